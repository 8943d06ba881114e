"""`slotstream bench pipeline`: end-to-end figures on the real broker, Redis and worker processes.

- throughput: N turns produced while no worker runs, then W workers started; turns per second
  from the workers' start until the offset barrier says every turn was extracted and every op
  applied (extract + reconcile + Redis), for each W asked for.
- freshness: at a steady background load, probe turns each carrying a new value; the time from
  the probe's send to the first context lookup that shows the value, p50/p99.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from slotstream.memory.models import ContextRequest, iso

from .settings import Settings
from .stack import LocalStack

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
PHRASES = [
    "Please keep your answers short.",
    "From now on, answer in detail and show the reasoning.",
    "This week focus on the {w} migration.",
    "Let me confirm before you send anything to the client.",
    "I live in {c}.",
    "Actually, I moved to {c}.",
    "We chose design {d} for the api.",
    "My timezone is UTC+{n}.",
    "以后请用中文回答。",
    "这周先处理{w}的问题。",
    "Thanks, that helps a lot!",
    "What do you think about the weather?",
]
CITIES = ["Berlin", "Lisbon", "Osaka", "Toronto", "Nairobi", "Lima", "Hanoi", "Oslo"]
WORDS = ["billing", "search", "login", "payments", "reporting", "mobile"]


def _turn(rng: random.Random, i: int, users: int) -> tuple[str, dict[str, Any]]:
    at = T0 + timedelta(seconds=i)
    text = rng.choice(PHRASES).format(
        w=rng.choice(WORDS), c=rng.choice(CITIES), d=rng.choice("ABC"), n=rng.randrange(1, 12)
    )
    return iso(at) or "", {
        "tenant": "bench",
        "user": f"u{rng.randrange(users)}",
        "session": "s1",
        "project": None,
        "role": "user",
        "text": text,
    }


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def throughput(settings: Settings, workers: int, n_turns: int, users: int, log_dir: Path | None) -> float:
    s = settings.replace(namespace=f"bench-{uuid.uuid4().hex[:8]}", topic_prefix=f"bench{uuid.uuid4().hex[:6]}")
    with LocalStack(s, workers=0, log_dir=log_dir) as stack:
        rng = random.Random(5)
        for i in range(n_turns):
            at, turn = _turn(rng, i, users)
            stack.producer.send_turn(at, turn)
        stack.producer.flush()
        start = time.perf_counter()
        for _ in range(workers):
            stack.add_worker()
        turns_topic = stack.settings.topic_prefix + ".turns"
        first = None
        while first is None:  # the clock starts at the first batch done, after start-up and joining
            if stack.progress.offsets(turns_topic):
                first = time.perf_counter()
                done_at_first = sum(stack.progress.offsets(turns_topic).values())
            elif time.perf_counter() - start > 300:
                raise TimeoutError("no worker made progress within 300 s")
            else:
                time.sleep(0.001)
        stack.barrier(timeout=600)
        end = time.perf_counter()
        applied = sum(int(v) for v in stack.progress.offsets(stack.settings.topic_prefix + ".ops").values())
        rate = (n_turns - done_at_first) / (end - first)
        print(
            f"  {workers} worker(s): {n_turns} turns -> {applied} ops; {rate:,.0f} turns/s from the first "
            f"batch to the barrier ({end - first:.1f} s; {end - start:.1f} s with start-up)",
            flush=True,
        )
        return rate


def freshness(settings: Settings, rate: float, seconds: float, probes: int) -> None:
    s = settings.replace(namespace=f"bench-{uuid.uuid4().hex[:8]}", topic_prefix=f"bench{uuid.uuid4().hex[:6]}")
    with LocalStack(s, workers=1) as stack:
        # warm up: the worker joins the group and handles a first batch
        stack.producer.send_turn(iso(T0), {"tenant": "bench", "user": "warm", "role": "user", "text": "hi"})
        stack.producer.flush()
        stack.barrier(timeout=120)
        stop = threading.Event()
        sent = [0]

        def background() -> None:
            rng = random.Random(9)
            i, t0 = 0, time.perf_counter()
            while not stop.is_set():
                due = t0 + i / rate
                now = time.perf_counter()
                if due > now:
                    time.sleep(due - now)
                at, turn = _turn(rng, i, 1000)
                stack.producer.send_turn(at, turn)
                i += 1
            sent[0] = i

        bg = threading.Thread(target=background, daemon=True)
        bg.start()
        lat: list[float] = []
        deadline = time.perf_counter() + seconds
        k = 0
        while time.perf_counter() < deadline and k < probes:
            city = f"Probecity{k}"
            at = iso(T0 + timedelta(days=1, seconds=k))
            req = ContextRequest(tenant="bench", user="probe", text="where do I live")
            t = time.perf_counter()
            stack.producer.send_turn(
                at, {"tenant": "bench", "user": "probe", "role": "user", "text": f"Actually, I moved to {city}."}
            )
            stack.producer.flush()
            while city.lower() not in stack.engine.context(req, at).context.lower():
                if time.perf_counter() - t > 30:
                    raise TimeoutError(f"probe {k} not visible after 30 s")
                time.sleep(0.0005)
            lat.append((time.perf_counter() - t) * 1000)
            k += 1
            time.sleep(0.05)
        stop.set()
        bg.join()
        print(
            f"  background {rate:.0f} turns/s for {seconds:.0f} s ({sent[0]} turns), {len(lat)} probes: "
            f"turn produced -> visible to a context lookup p50 {_pct(lat, 0.5):.1f} ms, "
            f"p99 {_pct(lat, 0.99):.1f} ms, max {max(lat):.1f} ms",
            flush=True,
        )


def extraction_alone(n_turns: int) -> None:
    """The rule extractor by itself on the same turns: its share of a worker's time."""
    from slotstream.memory.extraction import RuleExtractor, Turn

    rng = random.Random(5)
    turns = [
        Turn.model_validate({**t, "at": at, "turn_id": f"x{i}"})
        for i, (at, t) in enumerate(_turn(rng, i, 1000) for i in range(n_turns))
    ]
    extractor = RuleExtractor()
    start = time.perf_counter()
    for turn in turns:
        extractor.extract(turn)
    elapsed = time.perf_counter() - start
    print(
        f"  rule extraction alone: {n_turns / elapsed:,.0f} turns/s ({elapsed / n_turns * 1e6:.0f} us per turn)",
        flush=True,
    )


def run_pipeline_bench(
    settings: Settings, turns: int, workers: list[int], rate: float, seconds: float, log_dir: Path | None = None
) -> int:
    print(
        f"pipeline bench: batch_size={settings.batch_size} batch_wait={settings.batch_wait}s "
        f"partitions={settings.partitions}",
        flush=True,
    )
    if workers:
        print("throughput (end to end: turns topic -> extraction -> ops topic -> reconciliation -> Redis):")
        extraction_alone(min(turns, 5000))
    for w in workers:
        throughput(settings, w, turns, users=1000, log_dir=log_dir)
    print("freshness:")
    freshness(settings, rate, seconds, probes=200)
    return 0

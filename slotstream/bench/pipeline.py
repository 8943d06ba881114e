"""`slotstream bench pipeline`: end-to-end figures on the real broker, Redis and worker processes.

- throughput: N turns produced while no worker runs, then W workers started; turns per second
  from the workers' first batch until the offset barrier says every turn was extracted and every
  op applied (extract + reconcile + Redis), for each W asked for; each figure the median of
  `rounds` runs.
- freshness: at a steady background load, probe turns each carrying a new value; the time from
  the probe's send to the first context lookup that shows the value, p50/p99.
- runtime overhead (`--trivial N`): N small records through a worker whose processor does
  nothing: messages per second the runtime itself moves (consume, batch, thread hops, record).

Mixes: `bench`, the phrases below (most state something); `chat80`, 80% ordinary chit-chat that
states nothing and 20% the bench mix's memorable turns, closer to what an assistant sees.
"""

from __future__ import annotations

import os
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from slotstream.config.settings import Settings
from slotstream.local.redis_server import server_build
from slotstream.local.stack import LocalStack
from slotstream.memory.models import ContextRequest, iso
from slotstream.streams.topics import TURNS

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
CHAT = [  # turns that state nothing (checked by the extraction figure: 0 ops per turn)
    "Thanks, that helps a lot!",
    "What do you think about the weather?",
    "Can you explain how list comprehensions work in Python?",
    "How do I reverse a string in JavaScript?",
    "Write a short haiku about autumn leaves.",
    "What's the difference between TCP and UDP?",
    "Summarize the main points of the article I pasted above.",
    "Could you make that paragraph a bit more formal?",
    "Why does my for loop print the last value three times?",
    "Give me three name ideas for a coffee shop.",
    "OK, makes sense.",
    "Can you translate 'good morning' into Spanish?",
    "Is there a faster way to sort this list?",
    "Great, now add error handling to the function.",
    "What are some good books about distributed systems?",
    "Hmm, that didn't work. Any other ideas?",
    "Explain recursion like I'm five.",
    "谢谢，这个很有用！",
    "今天天气怎么样？",
    "帮我把这段话翻译成英文。",
    "这个函数为什么会报错？",
    "给我讲个笑话吧。",
    "能再解释一下吗？",
]
MEMORABLE = [p for p in PHRASES if p not in CHAT]
MIXES = ("bench", "chat80")
CITIES = ["Berlin", "Lisbon", "Osaka", "Toronto", "Nairobi", "Lima", "Hanoi", "Oslo"]
WORDS = ["billing", "search", "login", "payments", "reporting", "mobile"]


def _turn(rng: random.Random, i: int, users: int, mix: str = "bench") -> tuple[str, dict[str, Any]]:
    at = T0 + timedelta(seconds=i)
    if mix == "chat80":
        phrase = rng.choice(CHAT) if rng.random() < 0.8 else rng.choice(MEMORABLE)
    else:
        phrase = rng.choice(PHRASES)
    text = phrase.format(w=rng.choice(WORDS), c=rng.choice(CITIES), d=rng.choice("ABC"), n=rng.randrange(1, 12))
    return iso(at) or "", {
        "tenant": "bench",
        "user": f"u{rng.randrange(users)}",
        "session": "s1",
        "project": None,
        "role": "user",
        "text": text,
    }


# issue targets for one worker process, by mix
TURNS_TARGETS = {"bench": 2000, "chat80": 5000}


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def throughput(
    settings: Settings,
    workers: int,
    n_turns: int,
    users: int,
    log_dir: Path | None,
    mix: str = "bench",
    redis_aof: bool = True,
) -> float:
    s = settings.replace(namespace=f"bench-{uuid.uuid4().hex[:8]}", topic_prefix=f"bench{uuid.uuid4().hex[:6]}")
    with LocalStack(s, workers=0, log_dir=log_dir, redis_aof=redis_aof) as stack:
        rng = random.Random(5)
        turns = [_turn(rng, i, users, mix) for i in range(n_turns)]
        for chunk_start in range(0, n_turns, 500):
            stack.producer.send_turns(turns[chunk_start : chunk_start + 500])
        stack.producer.flush()
        start = time.perf_counter()
        for _ in range(workers):
            stack.add_worker()
        turns_topic = stack.settings.topic_prefix + ".turns"
        first = None
        while first is None:  # the clock starts at the first batch done, after start-up and joining
            if stack.progress.offsets(turns_topic):
                first = time.perf_counter()
                broker_at_first = _broker_cpu(stack)
                done_at_first = sum(stack.progress.offsets(turns_topic).values())
            elif time.perf_counter() - start > 300:
                raise TimeoutError("no worker made progress within 300 s")
            else:
                time.sleep(0.001)
        stack.barrier(timeout=600)
        end = time.perf_counter()
        broker_at_end = _broker_cpu(stack)
        applied = sum(int(v) for v in stack.progress.offsets(stack.settings.topic_prefix + ".ops").values())
        fused = stack.progress.counters().get("fused_apply:applied", 0)
        rate = (n_turns - done_at_first) / (end - first)
        print(
            f"  {workers} worker(s): {n_turns} turns -> {applied} ops ({fused} applied at once by the extracting "
            f"worker); {rate:,.0f} turns/s from the first batch to the barrier ({end - first:.1f} s; "
            f"{end - start:.1f} s with start-up)",
            flush=True,
        )
        _print_broker_cpu(broker_at_first, broker_at_end, end - first, "during the run")
        return rate


def _broker_cpu(stack: LocalStack) -> tuple[float, float] | None:
    """CPU seconds the embedded broker's JVM has used so far, and of those its JIT compiler
    threads' (read from /proc; None where that cannot be read, or the broker is not embedded)."""
    pid = stack.broker_pid
    if pid is None:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    total = compilers = 0.0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            used = (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
            total += used
            if (task / "comm").read_text().startswith(("C1 ", "C2 ")):
                compilers += used
    except (OSError, ValueError, IndexError):
        return None
    return total, compilers


def _print_broker_cpu(
    before: tuple[float, float] | None, after: tuple[float, float] | None, seconds: float, when: str
) -> None:
    # a broker started for the bench compiles its hot code for its first minute or so: CPU the
    # machine's two cores do not give the worker, which a long-running broker does not take
    if before is None or after is None or seconds <= 0:
        return
    used, compiling = (end - start for end, start in zip(after, before, strict=True))
    print(
        f"  the embedded broker used {used / seconds:.2f} of a core {when}, "
        f"its JIT compilers {compiling / seconds:.2f}",
        flush=True,
    )


def _own_aof_info(stack: LocalStack, section: str | None = None) -> dict[str, Any] | None:
    """INFO (one section, or the default ones) of the bench's own Redis when it keeps an AOF
    (None: it keeps none, or is not the bench's own)."""
    if stack.redis_pid is None:
        return None
    info = stack.engine.r.info(section)
    return info if info.get("aof_enabled") else None


def _aof_rewrites(stack: LocalStack) -> tuple[int, float] | None:
    """How many times the bench's embedded Redis has rewritten its AOF, and how long its last fork
    stopped the server, in ms (None: as `_own_aof_info`)."""
    info = _own_aof_info(stack)  # the default sections: persistence and stats among them
    return None if info is None else (int(info["aof_rewrites"]), int(info["latest_fork_usec"]) / 1000)


def _rewrite_mark(stack: LocalStack) -> tuple[int, bool] | None:
    """Where the bench's own Redis is with its AOF rewrites: how many it has made, and whether one
    runs now (None: as `_own_aof_info`). A probe marked before and after met a rewrite if one ran
    at either mark or one began and ended between them."""
    info = _own_aof_info(stack, "persistence")
    return None if info is None else (int(info["aof_rewrites"]), bool(info["aof_rewrite_in_progress"]))


def met_a_rewrite(before: tuple[int, bool] | None, after: tuple[int, bool] | None) -> bool:
    if before is None or after is None:
        return False
    return before[1] or after[1] or after[0] != before[0]


def _print_rewrite_split(latencies: list[float], met: list[bool]) -> None:
    """The probes that met an AOF rewrite apart from the others: the tail a rewrite makes (every
    page the server writes while its child runs is copied first) against the rest of the run."""
    during = [ms for ms, hit in zip(latencies, met, strict=True) if hit]
    others = [ms for ms, hit in zip(latencies, met, strict=True) if not hit]
    if not during or not others:
        return
    print(
        f"  {len(during)} of the {len(latencies)} probes met an AOF rewrite: p50 {_pct(during, 0.5):.1f} ms, "
        f"max {max(during):.1f} ms; the other {len(others)}: p99 {_pct(others, 0.99):.1f} ms, "
        f"max {max(others):.1f} ms",
        flush=True,
    )


def _print_redis_persistence(
    own: bool, before: tuple[int, float] | None, after: tuple[int, float] | None, server: str = ""
) -> None:
    """An AOF rewrite forks the server, and the child writes the whole state out: here, on the two
    cores the worker and the broker use (docs/results.md). `own`: the
    bench started the Redis (a configured one keeps its own persistence, not told here); `server`:
    its build (`server_build`)."""
    if not own:
        return
    named = f"the embedded Redis ({server})" if server else "the embedded Redis"
    if before is None or after is None:
        print(f"  {named} kept its state in memory only (--redis memory)", flush=True)
        return
    rewrites = after[0] - before[0]
    print(
        f"  {named} appended every write to its AOF (fsync every second) and rewrote it "
        f"{rewrites} time{'' if rewrites == 1 else 's'} while probing (the last fork stopped the server "
        f"for {after[1]:.1f} ms)",
        flush=True,
    )


class BackgroundLoad:
    """Turns of the bench's mix at `rate` a second on a thread of their own, every one scrubbed and
    sealed before the clock starts: the generator shares the machine with the worker, and then only
    sends."""

    def __init__(self, stack: LocalStack, rate: float, seconds: float, mix: str) -> None:
        self.stack, self.rate = stack, rate
        rng = random.Random(9)
        self.planned = int(rate * seconds * 1.2) + 1000
        self.records = stack.producer.prepare_turns([_turn(rng, i, 1000, mix) for i in range(self.planned)])
        self.stop = threading.Event()
        self.sent = 0
        self.thread = threading.Thread(target=self._send, daemon=True)

    def _send(self) -> None:
        # the turns due by now go out together
        i, t0 = 0, time.perf_counter()
        while not self.stop.is_set() and i < self.planned:
            now = time.perf_counter()
            due = int((now - t0) * self.rate) + 1 - i
            if due <= 0:
                time.sleep(t0 + i / self.rate - now)
                continue
            burst = self.records[i : i + min(due, 200)]
            self.stack.producer.send_prepared(TURNS, burst)
            i += len(burst)
        self.sent = i

    def start(self) -> None:
        self.started = time.perf_counter()
        self.thread.start()

    def finish(self) -> float:
        """Stops it; the rate it achieved."""
        self.stop.set()
        self.thread.join()
        return self.sent / (time.perf_counter() - self.started)


@dataclass
class Probes:
    """One probe at a time: a correction of the probe user's city, timed until a context lookup
    shows it."""

    latencies: list[float] = field(default_factory=list)
    met_rewrite: list[bool] = field(default_factory=list)  # whether each probe met an AOF rewrite
    lookups: int = 0
    stamp_reads: int = 0

    def probe(self, stack: LocalStack, k: int) -> None:
        city = f"Probecity{k}"
        at = iso(T0 + timedelta(days=1, seconds=k))
        req = ContextRequest(tenant="bench", user="probe", text="where do I live")
        meta = stack.engine.keys.meta("bench", "probe")
        mark = _rewrite_mark(stack)
        t = time.perf_counter()
        turn = {"tenant": "bench", "user": "probe", "role": "user", "text": f"Actually, I moved to {city}."}
        stack.producer.send_turn(at, turn)
        stack.producer.flush()
        # the probe's user gets only probe turns, so its write stamp moves only when one is applied:
        # a full lookup runs when the stamp moved, the cheap stamp read in between (a lookup every
        # 0.5 ms would take a core from the worker this run measures)
        seen = None
        while True:
            stamp = stack.engine.r.hget(meta, "version")
            if stamp != seen:
                seen = stamp
                self.lookups += 1
                if city.lower() in stack.engine.context(req, at).context.lower():
                    break
            if time.perf_counter() - t > 30:
                raise TimeoutError(f"probe {k} not visible after 30 s")
            self.stamp_reads += 1
            time.sleep(0.0005)
        self.latencies.append((time.perf_counter() - t) * 1000)
        self.met_rewrite.append(met_a_rewrite(mark, _rewrite_mark(stack)))


def _print_freshness(load: BackgroundLoad, achieved: float, seconds: float, warmup: float, probes: Probes) -> None:
    lat, n = probes.latencies, max(1, len(probes.latencies))
    # the load generator shares the machine: say so when it did not keep up
    short = "; the bench's producer fell short of the rate asked" if achieved < 0.95 * load.rate else ""
    print(
        f"  background {achieved:.0f} turns/s sent (asked {load.rate:.0f}{short}) for {seconds:.0f} s "
        f"({load.sent} turns), "
        f"{len(lat)} probes after a {warmup:.0f} s warm-up: turn produced -> visible to a context lookup "
        f"p50 {_pct(lat, 0.5):.1f} ms, "
        f"p99 {_pct(lat, 0.99):.1f} ms (target at half the measured load: <= 100 ms), max {max(lat):.1f} ms; "
        f"{probes.lookups / n:.1f} lookups and {probes.stamp_reads / n:.0f} stamp reads a probe "
        "(the stamp read every 0.5 ms, a lookup when it moved)",
        flush=True,
    )


def freshness(
    settings: Settings,
    rate: float,
    seconds: float,
    probes: int,
    mix: str = "bench",
    warmup: float = 0.0,
    redis_aof: bool = True,
) -> None:
    """Probes for `seconds` under a background load of `rate` turns/s, which runs `warmup` seconds
    first: a worker's first op of each of the bench's 1,000 users loads that user, a start-up cost
    a worker pays once, not its steady state."""
    s = settings.replace(namespace=f"bench-{uuid.uuid4().hex[:8]}", topic_prefix=f"bench{uuid.uuid4().hex[:6]}")
    with LocalStack(s, workers=1, redis_aof=redis_aof) as stack:
        # warm up: the worker joins the group and handles a first batch
        stack.producer.send_turn(iso(T0), {"tenant": "bench", "user": "warm", "role": "user", "text": "hi"})
        stack.producer.flush()
        stack.barrier(timeout=120)
        load = BackgroundLoad(stack, rate, warmup + seconds, mix)
        load.start()
        time.sleep(warmup)
        probed = Probes()
        probes_started, broker_before = time.perf_counter(), _broker_cpu(stack)
        aof_before = _aof_rewrites(stack)
        deadline = probes_started + seconds
        k = 0
        while time.perf_counter() < deadline and k < probes:
            probed.probe(stack, k)
            k += 1
            time.sleep(0.05)
        probing = time.perf_counter() - probes_started
        broker_after = _broker_cpu(stack)
        aof_after = _aof_rewrites(stack)
        achieved = load.finish()
        _print_freshness(load, achieved, seconds, warmup, probed)
        _print_broker_cpu(broker_before, broker_after, probing, "while probing")
        _print_redis_persistence(stack.redis_pid is not None, aof_before, aof_after, server_build(stack.engine.r))
        _print_rewrite_split(probed.latencies, probed.met_rewrite)


def extraction_alone(n_turns: int, mix: str = "bench") -> None:
    """The rule extractor by itself on the same turns: its share of a worker's time."""
    from slotstream.memory.extraction import RuleExtractor, Turn

    rng = random.Random(5)
    turns = [
        Turn.model_validate({**t, "at": at, "turn_id": f"x{i}"})
        for i, (at, t) in enumerate(_turn(rng, i, 1000, mix) for i in range(n_turns))
    ]
    extractor = RuleExtractor()
    start = time.perf_counter()
    items = sum(len(extractor.extract(turn).items) for turn in turns)
    elapsed = time.perf_counter() - start
    print(
        f"  rule extraction alone: {n_turns / elapsed:,.0f} turns/s ({elapsed / n_turns * 1e6:.0f} us per turn, "
        f"{items / n_turns:.2f} ops per turn)",
        flush=True,
    )


class _Trivial:
    """A processor that does nothing with its messages: what is left is the runtime's own cost.
    The clock starts once the first batch is done (after start-up and joining the group)."""

    processor = "trivial"

    def __init__(self, source_topic: str, expected: int) -> None:
        self.source_topic = source_topic
        self.expected = expected
        self.total = 0
        self.counted = 0  # messages after the first batch
        self.first: float | None = None
        self.reported = False

    def process(self, batch: list[Any]) -> Any:
        from slotstream.streams.messages import BatchOutput

        self.total += len(batch)
        if self.first is None:
            self.first = time.perf_counter()
        else:
            self.counted += len(batch)
        return BatchOutput()

    def record(self, batch: list[Any], out: Any) -> None:
        if self.first is not None and self.total >= self.expected and not self.reported:
            self.reported = True
            print(f"TRIVIAL {self.counted} {time.perf_counter() - self.first:.6f}", flush=True)
            os.kill(os.getpid(), signal.SIGTERM)

    def positions(self, partitions: list[int]) -> dict[int, int]:
        return dict.fromkeys(partitions, 0)

    def check(self) -> None:
        return None

    def stop(self) -> None:
        return None


def _trivial_worker(runtime: str, bootstrap: str, prefix: str, partitions: int, batch_size: int, n: int) -> None:
    """The child process of `runtime_overhead`: one worker with the trivial processor."""
    from slotstream.streams.runtimes.batch_flow import AppConfig
    from slotstream.streams.topics import TURNS, topic_names
    from slotstream.worker.logs import setup_worker_logging

    names = topic_names(prefix)
    config = AppConfig(
        group=f"{prefix}-trivial", bootstrap=bootstrap, topics=names, partitions=partitions, batch_size=batch_size
    )
    processors: Any = {TURNS: _Trivial(names[TURNS], n)}
    if runtime == "faust":
        from faust.worker import Worker

        from slotstream.streams.runtimes.faust import create_app

        Worker(create_app(config, processors), loglevel="WARNING").execute_from_commandline()
    else:
        from slotstream.streams.runtimes.aiokafka import LeanRuntime

        setup_worker_logging("WARNING")
        LeanRuntime(config, processors).run()


def runtime_overhead(settings: Settings, runtime: str, n: int) -> float:
    """Messages per second through a worker whose processor does nothing."""
    from slotstream.streams.topics import TURNS

    s = settings.replace(namespace=f"bench-{uuid.uuid4().hex[:8]}", topic_prefix=f"bench{uuid.uuid4().hex[:6]}")
    with LocalStack(s, workers=0) as stack:
        value = b'{"text": "' + b"x" * 80 + b'"}'
        for i in range(n):
            stack.producer.send_raw(TURNS, f"bench/u{i % 1000}".encode(), value)
        stack.producer.flush()
        args = [runtime, stack.bootstrap, stack.settings.topic_prefix, stack.settings.partitions, s.batch_size, n]
        code = f"from slotstream.bench.pipeline import _trivial_worker; _trivial_worker(*{args!r})"
        done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=600)
        # Faust's worker sends what is printed to its log: the line is looked for in both streams
        found = re.search(r"TRIVIAL (\d+) ([0-9.]+)", done.stdout + done.stderr)
        if found is None:
            raise RuntimeError(f"the trivial worker gave no figure: {done.stderr[-2000:]}")
        seen, elapsed = found.groups()
        rate = int(seen) / float(elapsed)
        print(f"  {runtime}: {n} records through a do-nothing processor: {rate:,.0f} msg/s", flush=True)
        return rate


def run_pipeline_bench(
    settings: Settings,
    turns: int,
    workers: list[int],
    rate: float | None,
    seconds: float,
    log_dir: Path | None = None,
    mix: str = "bench",
    rounds: int = 1,
    trivial: int = 0,
    warmup: float = 0.0,
    redis_aof: bool = True,
) -> int:
    """`rate` None: the freshness run's background load is half the first throughput measured.
    `redis_aof`: the embedded Redis appends to an AOF, as the local stack runs it; else memory only."""
    print(
        f"pipeline bench: runtime={settings.runtime} mix={mix} batch_size={settings.batch_size} "
        f"batch_wait={settings.batch_wait}s partitions={settings.partitions} "
        f"redis={'aof' if redis_aof else 'memory'}",
        flush=True,
    )
    if trivial:
        print("runtime overhead (a processor that does nothing):")
        runtime_overhead(settings, settings.runtime, trivial)
    measured: list[float] = []
    if workers:
        print("throughput (end to end: turns topic -> extraction -> ops topic -> reconciliation -> Redis):")
        extraction_alone(min(turns, 5000), mix)
    for w in workers:
        rates = [
            throughput(settings, w, turns, users=1000, log_dir=log_dir, mix=mix, redis_aof=redis_aof)
            for _ in range(rounds)
        ]
        if rounds > 1:
            target = (
                f" (target for one worker: >= {TURNS_TARGETS[mix]:,} turns/s)"
                if w == 1 and mix in TURNS_TARGETS
                else ""
            )
            print(f"  {w} worker(s): median of {rounds}: {statistics.median(rates):,.0f} turns/s{target}", flush=True)
        measured.append(statistics.median(rates))
    if rate is None:
        if not measured:
            print("freshness: --rate half needs a throughput run", file=sys.stderr)
            return 2
        rate = measured[0] / 2
    if seconds > 0:
        print("freshness:")
        # as many probes as the run's length gives (one at most every 50 ms): a p99 of a few hundred
        freshness(settings, rate, seconds, probes=int(seconds * 20) + 1, mix=mix, warmup=warmup, redis_aof=redis_aof)
    return 0

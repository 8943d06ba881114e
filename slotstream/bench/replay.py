"""`slotstream bench replay`: how fast a namespace is rebuilt from the topics, and how long a
promote takes, on the real broker and Redis.

A live pipeline (one worker) first processes N turns of the pipeline benchmark's mix. Then, per
round and in interleaved order: replays of the whole log into fresh namespaces, from the logged
ops and from the turns (re-extracted), with 1 and 2 processes; messages per second from the
replay's start to its last position recorded (plan resolution and the final digest excluded);
each replay's digest is checked against the live one. Then promotes, alternating between two
replayed namespaces while the worker runs: the time the live processors took to pause, the
catch-up, the switch, and until an op sent right after the switch was applied in the new namespace.
"""

from __future__ import annotations

import random
import statistics
import time
import uuid
from datetime import timedelta

from slotstream.bench.pipeline import T0, _turn
from slotstream.config.settings import Settings
from slotstream.local.stack import LocalStack
from slotstream.memory.models import iso
from slotstream.ops.promote import promote
from slotstream.ops.replay import make_plan, mark_finished, run_plan
from slotstream.state.deployment import active_namespace
from slotstream.state.digest import digest_namespace
from slotstream.state.namespaces import drop_namespace
from slotstream.state.progress import Progress
from slotstream.streams.log_reader import Bound


def _replay_once(stack: LocalStack, source: str, processes: int, live_digest: str) -> float:
    settings = stack.settings
    target = f"rbench-{uuid.uuid4().hex[:8]}"
    plan, _ = make_plan(settings, stack.client, target, source, Bound("edge"), Bound("edge"))
    total = sum(plan.total(role) for role in plan.roles())
    start = time.perf_counter()
    assert run_plan(settings, stack.client, target, plan, processes) == 0
    elapsed = time.perf_counter() - start
    digest = digest_namespace(stack.client, target, stack.engine.archive).digest
    drop_namespace(stack.client, target)
    if digest != live_digest:
        raise AssertionError(f"replay {source}/{processes}: digest {digest} differs from the live {live_digest}")
    return total / elapsed


def _replayed(stack: LocalStack, name: str) -> str:
    plan, _ = make_plan(stack.settings, stack.client, name, "ops", Bound("edge"), Bound("edge"))
    assert run_plan(stack.settings, stack.client, name, plan, 1) == 0
    mark_finished(stack.client, name, plan)
    return name


def _promote_once(stack: LocalStack, target: str, n: int) -> dict[str, float]:
    result = promote(stack.settings, target, timeout=120)
    switched = time.perf_counter()
    probe = {
        "tenant": "bench",
        "user": "probe",
        "kind": "knowledge",
        "attribute": "knowledge.probe",
        "value": f"p{n}",
        "statement": f"probe {n}",
        "authority": "user_explicit",
    }
    stack.producer.send_record(iso(T0 + timedelta(days=2, seconds=n)) or "", probe, op_id=f"probe-{uuid.uuid4().hex}")
    stack.producer.flush()
    progress = Progress(stack.client, target)
    ops_topic = stack.settings.topics["ops"]
    want = {p: off for p, off in stack.end_offsets("ops").items() if off > 0}
    while not all(progress.offsets(ops_topic).get(p, 0) >= off for p, off in want.items()):
        if time.perf_counter() - switched > 120:
            raise TimeoutError("the probe was not applied in the promoted namespace within 120 s")
        time.sleep(0.002)
    return {
        "pause": result.pause_ms,
        "catch-up": result.catch_up_ms,
        "switch": result.switched_ms,
        "first write applied": (time.perf_counter() - switched) * 1000,
    }


def run_replay_bench(settings: Settings, turns: int, processes: list[int], rounds: int) -> int:
    s = settings.replace(namespace=f"live-{uuid.uuid4().hex[:6]}", topic_prefix=f"rbench{uuid.uuid4().hex[:6]}")
    with LocalStack(s, workers=1) as stack:
        rng = random.Random(5)
        log = [_turn(rng, i, 1000) for i in range(turns)]
        for first in range(0, turns, 500):  # in bursts: one key round trip per burst, not per turn
            stack.producer.send_turns(log[first : first + 500])
        stack.producer.flush()
        stack.barrier(timeout=900)
        live = digest_namespace(stack.client, stack.settings.namespace, stack.engine.archive)
        ops = sum(Progress(stack.client, stack.settings.namespace).offsets(stack.settings.topics["ops"]).values())
        print(
            f"replay bench: {turns} turns -> {ops} ops in the log, {live.users} users, {live.records} records; "
            f"batch_size={s.batch_size}, partitions={s.partitions}, {rounds} rounds (medians)",
            flush=True,
        )
        rates: dict[tuple[str, int], list[float]] = {}
        for _ in range(rounds):
            for source in ("ops", "turns"):
                for k in processes:
                    rates.setdefault((source, k), []).append(_replay_once(stack, source, k, live.digest))
        for (source, k), values in rates.items():
            what = "the logged ops" if source == "ops" else "the turns, re-extracted (+ the ops callers sent)"
            shown = " / ".join(f"{v:,.0f}" for v in values)
            print(f"  from {what}, {k} process(es): {statistics.median(values):,.0f} msg/s  ({shown})", flush=True)
        # promotes alternate between two replayed namespaces while the live worker runs
        targets = [_replayed(stack, f"rbench-{side}-{uuid.uuid4().hex[:6]}") for side in "ab"]
        figures: dict[str, list[float]] = {}
        try:
            for n in range(rounds):
                for name, value in _promote_once(stack, targets[n % 2], n).items():
                    figures.setdefault(name, []).append(value)
            print("promote (one worker running), ms:", flush=True)
            for name, values in figures.items():
                shown = " / ".join(f"{v:.0f}" for v in values)
                print(f"  {name:<20} median {statistics.median(values):,.0f}  ({shown})", flush=True)
        finally:
            serving = active_namespace(stack.client, stack.settings.namespace)
            for name in [stack.settings.namespace, *targets]:
                if name != serving:
                    drop_namespace(stack.client, name)
            drop_namespace(stack.client, serving)
    return 0

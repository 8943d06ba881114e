"""`slotstream replay`: rebuild a namespace from the retained topics, never the live one.

The range is resolved into offsets once and kept in the target namespace with the positions a
replay recorded, so a replay that crashed or was stopped resumes where it stopped when run
again. Partitions are shared between processes (partition p goes to process p mod K); each
process reads its partitions outside any consumer group. The parent shows progress from the
positions the processes record in Redis.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import orjson
import redis

from slotstream.config.history import engine_options, history_archive
from slotstream.config.master_key import restore_user_keys, user_keys
from slotstream.config.settings import Settings
from slotstream.processors.extraction import ExtractionService
from slotstream.processors.reconciliation import ReconciliationService
from slotstream.processors.replay import ReplayService
from slotstream.processors.runner import BatchRunner, retry
from slotstream.processors.sealed import Sealed
from slotstream.state.client import connect
from slotstream.state.deployment import active_namespace
from slotstream.state.digest import digest_namespace
from slotstream.state.engine import Engine
from slotstream.state.expiry_index import DueIndex
from slotstream.state.keys import Keys
from slotstream.state.progress import Progress
from slotstream.streams.log_reader import Bound, log_consumer, read_partition, read_whole, resolve_range
from slotstream.streams.messages import BatchOutput, RawMessage
from slotstream.streams.topics import CONTROL, OPS, TURNS, user_key

Ranges = dict[str, dict[int, tuple[int, int]]]  # role -> partition -> [start, end)


class ReplayError(Exception):
    """A replay that cannot start: the target is live, holds other state, or the range is bad."""


@dataclass
class Plan:
    source: str  # "ops": the logged ops; "turns": the turns re-extracted, plus the ops callers sent
    topics: dict[str, str]  # role -> topic name
    ranges: Ranges
    created: str = ""
    finished: str | None = None

    def roles(self) -> list[str]:
        return [TURNS, OPS] if self.source == "turns" else [OPS]

    def dump(self) -> bytes:
        ranges = {role: {str(p): list(r) for p, r in parts.items()} for role, parts in self.ranges.items()}
        return orjson.dumps(
            {
                "source": self.source,
                "topics": self.topics,
                "ranges": ranges,
                "created": self.created,
                "finished": self.finished,
            }
        )

    @classmethod
    def load(cls, raw: bytes) -> Plan:
        data = orjson.loads(raw)
        ranges = {
            role: {int(p): (int(r[0]), int(r[1])) for p, r in parts.items()} for role, parts in data["ranges"].items()
        }
        return cls(data["source"], data["topics"], ranges, data.get("created", ""), data.get("finished"))

    def total(self, role: str) -> int:
        return sum(end - start for start, end in self.ranges[role].values())


def load_plan(client: redis.Redis, namespace: str) -> Plan | None:
    raw = client.get(Keys(namespace).replay_plan())
    return Plan.load(cast(bytes, raw)) if raw else None


def save_plan(client: redis.Redis, namespace: str, plan: Plan) -> None:
    client.set(Keys(namespace).replay_plan(), plan.dump())


def mark_finished(client: redis.Redis, namespace: str, plan: Plan) -> None:
    plan.finished = datetime.now(UTC).isoformat(timespec="seconds")
    save_plan(client, namespace, plan)


def make_plan(
    settings: Settings, client: redis.Redis, namespace: str, source: str, start: Bound, end: Bound
) -> tuple[Plan, bool]:
    """The target's plan: the one it holds (resumed: True), else a new one resolved now."""
    if namespace in (settings.namespace, active_namespace(client, settings.namespace)):
        raise ReplayError(f"{namespace} is the live namespace; a replay writes into a new one")
    held = load_plan(client, namespace)
    if held is not None:
        return held, True
    progress = Progress(client, namespace)
    if progress.has_state():
        raise ReplayError(
            f"namespace {namespace} holds state that no replay built; drop it (`slotstream namespace drop`) "
            "or choose another name"
        )
    assert settings.kafka_bootstrap
    names = settings.topic_specs()
    roles = [TURNS, OPS] if source == "turns" else [OPS]
    topics = {role: names[role].name for role in roles}
    ranges = resolve_range(settings.kafka_bootstrap, topics, start, end)
    plan = Plan(source, topics, ranges, created=datetime.now(UTC).isoformat(timespec="seconds"))
    client.set(Keys(namespace).marker(), "replay")
    restore_user_keys(settings, client)  # a Redis that lost keys gets them back before anything opens
    apply_control_first(settings, client, namespace, plan)
    save_plan(client, namespace, plan)
    return plan, False


def _as_replayed(op: dict[str, Any], as_matches: Any, position: str) -> list[dict[str, Any]]:
    """A control entry's op as a replay of a later range applies it. A forget by record id names a
    record the rebuilt state does not hold (it was stated before the range): it is applied as the
    forgets by match of the values it suppressed, which reconciliation kept in the entry; a match
    the forget also had stays. Each gets an op id of its own, derived from the forget's."""
    command = op.get("command") or {}
    if command.get("op") != "forget" or not command.get("record_id") or not isinstance(as_matches, list):
        return [op]
    op_id = op.get("op_id") or position
    by_match = {name: field for name, field in command.items() if name != "record_id"}
    out = [{**op, "command": by_match}] if command.get("match") else []
    for n, match in enumerate(as_matches):
        out.append({**op, "op_id": f"{op_id}:value{n}", "command": {**by_match, "match": match}})
    return out


def apply_control_first(settings: Settings, client: redis.Redis, namespace: str, plan: Plan) -> int:
    """The forgets, restores and erasures of the control topic that sit before the range (in the ops topic),
    applied first: a range that starts later still keeps what the user deleted deleted. Those in
    the range are applied where they sit. Returns how many were applied first."""
    assert settings.kafka_bootstrap
    ops_topic, starts = plan.topics[OPS], {p: start for p, (start, _) in plan.ranges[OPS].items()}
    control_topic = settings.topic_specs()[CONTROL].name
    consumer = log_consumer(settings.kafka_bootstrap)
    try:
        records = [
            RawMessage(control_topic, 0, n, key, value)
            for n, (key, value) in enumerate(read_whole(consumer, control_topic))
            if value is not None
        ]
    finally:
        consumer.close()
    first: list[RawMessage] = []

    def select(opened: list[RawMessage]) -> BatchOutput:
        for msg in opened:
            try:
                entry = orjson.loads(msg.value or b"{}")
                where = entry["position"]
                partition, offset = int(where["partition"]), int(where["offset"])
                op = entry["op"]
                command = op["command"]
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # not a record reconciliation writes; the ops it would stand for are in the log
            if where.get("topic") != ops_topic or offset >= starts.get(partition, 0):
                continue
            key = user_key(str(command.get("tenant")), str(command.get("user")))
            for replayed in _as_replayed(op, entry.get("as_matches"), f"{ops_topic}:{partition}:{offset}"):
                value = orjson.dumps(replayed)
                first.append(RawMessage(ops_topic, partition, offset, key, value, entry.get("ingest_ms")))
        return BatchOutput()

    # an erased user's forgets no longer open (their key is gone): the erasure covers them
    Sealed(select, user_keys(settings, client), "reconciliation")(records)
    if not first:
        return 0
    first.sort(key=lambda m: (m.partition, m.offset))
    engine = Engine(client, namespace=namespace, **engine_options(settings, client))
    ReconciliationService(engine, DueIndex(client, namespace), settings.max_event_skew).handle(first)
    return len(first)


def done_counts(client: redis.Redis, namespace: str, plan: Plan, ranges: Ranges | None = None) -> dict[str, int]:
    """role -> messages of the range behind the recorded positions."""
    progress = Progress(client, namespace)
    out = {}
    for role in plan.roles():
        held = progress.offsets(plan.topics[role])
        out[role] = sum(
            max(0, min(max(held.get(p, start), start), end) - start)
            for p, (start, end) in (ranges or plan.ranges)[role].items()
        )
    return out


def replay_partitions(
    settings: Settings,
    client: redis.Redis,
    namespace: str,
    plan: Plan,
    partitions: list[int],
    stop: threading.Event,
    ranges: Ranges | None = None,
) -> None:
    """Replay these partitions of the plan (or of `ranges`, e.g. a promote's catch-up) from where
    the namespace's positions say, batch by batch, recording each batch's position once applied."""
    from slotstream.worker.wiring import extractor_for

    assert settings.kafka_bootstrap
    ranges = ranges or plan.ranges
    engine = Engine(client, namespace=namespace, **engine_options(settings, client))
    progress = Progress(client, namespace)
    reconciliation = ReconciliationService(engine, DueIndex(client, namespace), settings.max_event_skew)
    extraction = ExtractionService(extractor_for(settings), settings.max_event_skew) if plan.source == "turns" else None
    service = ReplayService(reconciliation, extraction, plan.topics.get(TURNS, ""))
    # payloads open with their users' keys; an erased user's do not, and count as key_shredded
    handler = Sealed(service.handle, user_keys(settings, client), "reconciliation")
    runner = BatchRunner("replay", handler, progress, plan.topics[OPS], stop)
    ranks = {role: rank for rank, role in enumerate(plan.roles())}
    consumer = log_consumer(settings.kafka_bootstrap)
    try:
        batches = _Batches(runner, progress, service.skips, stop)
        _replay_each(consumer, partitions, plan, ranges, ranks, progress, batches, settings.batch_size)
    finally:
        consumer.close()


def _replay_each(
    consumer: Any,
    partitions: list[int],
    plan: Plan,
    ranges: Ranges,
    ranks: dict[str, int],
    progress: Progress,
    batches: _Batches,
    batch_size: int,
) -> None:
    for partition in partitions:
        spans = []
        for role in plan.roles():
            topic = plan.topics[role]
            start, end = ranges[role].get(partition, (0, 0))
            held = progress.positions(topic, [partition])[partition]
            spans.append((ranks[role], topic, partition, max(start, held), end))
        batch: list[RawMessage] = []
        for msg in read_partition(consumer, spans):
            batch.append(msg)
            if len(batch) >= batch_size:
                batches.apply(batch)
                batch = []
            if batches.stop.is_set():
                return
        if batch:
            batches.apply(batch)


@dataclass
class _Batches:
    """Applies one batch of a partition's merged messages, then records its positions."""

    runner: BatchRunner
    progress: Progress
    skips: Callable[[RawMessage], bool]  # logged extraction ops when re-extracting: never opened
    stop: threading.Event

    def apply(self, batch: list[RawMessage]) -> None:
        out = self.runner.process([msg for msg in batch if not self.skips(msg)])
        by_topic: dict[str, dict[int, int]] = {}
        for msg in batch:
            by_topic.setdefault(msg.topic, {})[msg.partition] = msg.offset + 1
        ops_topic = self.runner.source_topic

        def record() -> None:
            # the batch's counts go with the first position recorded; the watermark is the ops topic's
            for n, (topic, next_offsets) in enumerate(by_topic.items()):
                watermark = out.watermark if topic == ops_topic else None
                self.progress.advance(topic, next_offsets, watermark, counts=out.counts if n == 0 else None)

        retry(record, self.stop, "replay position")


def _ours(partitions: list[int], part: int, parts: int) -> list[int]:
    return [p for p in partitions if p % parts == part]


def run_part(settings: Settings, namespace: str, part: int, parts: int) -> int:
    """One process of a parallel replay (`--part i/K`): the plan's partitions p with p mod K = i."""
    client = connect(settings.redis_url or "")
    stop = threading.Event()
    try:
        plan = load_plan(client, namespace)
        if plan is None:
            print(f"slotstream replay: namespace {namespace} has no replay plan", file=sys.stderr)
            return 2
        partitions = sorted(set().union(*(set(r) for r in plan.ranges.values())))
        replay_partitions(settings, client, namespace, plan, _ours(partitions, part, parts), stop)
    except KeyboardInterrupt:
        stop.set()
        return 130
    finally:
        client.close()
    return 0


def _child(settings: Settings, namespace: str, part: int, parts: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "SLOTSTREAM_REDIS_URL": settings.redis_url or "",
        "SLOTSTREAM_KAFKA_BOOTSTRAP": settings.kafka_bootstrap or "",
        "SLOTSTREAM_BATCH_SIZE": str(settings.batch_size),
    }
    command = [
        sys.executable,
        "-P",
        "-m",
        "slotstream.cli",
        "replay",
        "--namespace",
        namespace,
        "--part",
        f"{part}/{parts}",
    ]
    return subprocess.Popen(command, env=env)


class _Display:
    """A rich progress bar per topic on a terminal; a line every few seconds otherwise."""

    def __init__(self, plan: Plan, done: Mapping[str, int]) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        del TransferSpeedColumn  # bytes per second; messages per second is the column below
        self.console = Console(stderr=True)
        self.plain = not self.console.is_terminal
        self.plan = plan
        self.started = time.monotonic()
        self.first = dict(done)
        self.last_line = 0.0
        self.progress = Progress(
            TextColumn("{task.description:<12}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]:>10}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TimeElapsedColumn(),
            console=self.console,
            disable=self.plain,
        )
        self.tasks = {
            role: self.progress.add_task(plan.topics[role], total=plan.total(role), completed=done[role], rate="")
            for role in plan.roles()
        }

    def __enter__(self) -> _Display:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)

    def update(self, done: Mapping[str, int], final: bool = False) -> None:
        elapsed = max(1e-6, time.monotonic() - self.started)
        for role, task in self.tasks.items():
            rate = (done[role] - self.first[role]) / elapsed
            self.progress.update(task, completed=done[role], rate=f"{rate:,.0f} msg/s")
        now = time.monotonic()
        if self.plain and (final or now - self.last_line >= 5):
            self.last_line = now
            parts = [f"{self.plan.topics[role]} {done[role]:,}/{self.plan.total(role):,}" for role in self.tasks]
            print("replay: " + ", ".join(parts), file=sys.stderr, flush=True)


def replay(
    settings: Settings,
    namespace: str,
    source: str = "ops",
    start: Bound | None = None,
    end: Bound | None = None,
    processes: int = 1,
    show: Callable[[str], None] = print,
) -> int:
    """Build `namespace` from the range (or resume the replay it holds); 0 when it completed."""
    assert settings.redis_url and settings.kafka_bootstrap
    client = connect(settings.redis_url)
    try:
        try:
            plan, resumed = make_plan(settings, client, namespace, source, start or Bound("edge"), end or Bound("edge"))
        except (ReplayError, ValueError) as err:
            print(f"slotstream replay: {err}", file=sys.stderr)
            return 2
        if resumed:
            show(f"resuming the replay into {namespace} planned at {plan.created} (its range; drop it to start over)")
        else:
            show(
                f"replaying into {namespace}: " + ", ".join(f"{plan.topics[r]} {plan.total(r):,}" for r in plan.roles())
            )
        if plan.finished is None:
            code = run_plan(settings, client, namespace, plan, processes)
            if code:
                return code
            mark_finished(client, namespace, plan)
        archive = history_archive(settings, client)
        try:
            digest = digest_namespace(client, namespace, archive)
        finally:
            if archive is not None:
                archive.close()
        dead = {k: v for k, v in Progress(client, namespace).counters().items() if k.startswith("dead_letters:")}
        show(f"namespace {namespace}: digest {digest.digest}; {digest.users} users, {digest.records} records")
        if dead:
            listed = ", ".join(f"{name.split(':', 1)[1]} {n}" for name, n in dead.items())
            show(f"  not applied (what the live workers dead-letter): {listed}")
    finally:
        client.close()
    return 0


def run_plan(settings: Settings, client: redis.Redis, namespace: str, plan: Plan, processes: int) -> int:
    """Replay the plan's partitions (resuming) in `processes` processes, with progress; 0 when done."""
    stop = threading.Event()
    partitions = sorted(set().union(*(set(r) for r in plan.ranges.values())))
    processes = max(1, min(processes, len(partitions) or 1))
    failures: list[str] = []
    thread: threading.Thread | None = None
    children: list[subprocess.Popen[bytes]] = []
    if processes == 1:

        def work() -> None:
            worker_client = connect(settings.redis_url or "")
            try:
                replay_partitions(settings, worker_client, namespace, plan, partitions, stop)
            except Exception as err:  # noqa: BLE001 - reported below; positions are kept
                failures.append(f"{type(err).__name__}: {err}")
            finally:
                worker_client.close()

        thread = threading.Thread(target=work, name="replay", daemon=True)
        thread.start()
    else:
        children = [_child(settings, namespace, i, processes) for i in range(processes)]

    def running() -> bool:
        if thread is not None:
            return thread.is_alive()
        return any(child.poll() is None for child in children)

    try:
        with _Display(plan, done_counts(client, namespace, plan)) as display:
            while running():
                time.sleep(0.25)
                display.update(done_counts(client, namespace, plan))
            display.update(done_counts(client, namespace, plan), final=True)
    except KeyboardInterrupt:
        stop.set()
        for child in children:
            child.terminate()
        print("slotstream replay: stopped; run the same command again to resume", file=sys.stderr)
        return 130
    failures += [f"process {i} exited with {c.returncode}" for i, c in enumerate(children) if c.returncode]
    if failures:
        print("slotstream replay: " + "; ".join(failures) + " (run again to resume)", file=sys.stderr)
        return 1
    return 0

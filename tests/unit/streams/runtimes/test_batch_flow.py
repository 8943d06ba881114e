"""The way of a batch through `BatchFlow`, with processors that only log what they are asked to do
(the Kafka runtimes and the real processors are in tests/integration/pipeline)."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from aiokafka import ConsumerRecord, TopicPartition

from slotstream.cli import main
from slotstream.streams.errors import TimelineUnwritable
from slotstream.streams.messages import BatchOutput, Compacted, Keyed, RawMessage
from slotstream.streams.runtimes import batch_flow as batches
from slotstream.streams.runtimes.aiokafka import LeanRuntime
from slotstream.streams.runtimes.batch_flow import AppConfig, BatchFlow, Delivered, Headers
from slotstream.streams.topics import CHANGES, OPS, TURNS

APPLY_SECONDS = 0.2


class _Logged:
    def __init__(self, name: str, topic: str, log: list[str], lock: threading.Lock) -> None:
        self.processor, self.source_topic = name, topic
        self.log, self.lock = log, lock

    def note(self, what: str) -> None:
        with self.lock:
            self.log.append(what)

    def record(self, batch: list[RawMessage], out: BatchOutput) -> None:
        self.note(f"{self.processor} record {batch[0].offset} {sorted(out.counts.items())}")

    def positions(self, partitions: list[int]) -> Mapping[int, int]:
        return dict.fromkeys(partitions, 0)

    def check(self) -> None:
        return None

    def stop(self) -> None:
        return None


class _Extraction(_Logged):
    def process(self, batch: list[RawMessage]) -> BatchOutput:
        self.note(f"extract {batch[0].offset}")
        out = BatchOutput()
        out.ops = [(b"t/u", msg.value or b"") for msg in batch]
        return out


class _Reconciliation(_Logged):
    def process(self, batch: list[RawMessage]) -> BatchOutput:
        self.note(f"reconcile {batch[0].offset}")
        return BatchOutput()

    def apply_produced(self, produced: list[RawMessage]) -> tuple[list[RawMessage], BatchOutput]:
        self.note(f"fused apply of {produced[0].value!r} begins")
        time.sleep(APPLY_SECONDS)  # the engine's writes
        self.note(f"fused apply of {produced[0].value!r} ends")
        out = BatchOutput()
        out.changes = [(msg.key, b"applied") for msg in produced]
        return produced, out

    def record_produced(self, applied: list[RawMessage], out: BatchOutput) -> None:
        self.note(f"fused record {applied[0].offset}")


def _flow(log: list[str], batch_size: int, timeline: str | None = None, changes_seconds: float = 0.0) -> BatchFlow:
    """`changes_seconds`: how long the broker takes to acknowledge records of the changes topic."""
    lock = threading.Lock()
    topics = {TURNS: "x.turns", OPS: "x.ops"}
    config = AppConfig(
        group="g", bootstrap="unused:9092", topics=topics, partitions=1, batch_size=batch_size, timeline=timeline
    )
    processors = {
        TURNS: _Extraction("extraction", "x.turns", log, lock),
        OPS: _Reconciliation("reconciliation", "x.ops", log, lock),
    }
    offsets: dict[str, int] = {}  # per topic

    async def send_once(role: str, items: Sequence[Keyed | Compacted], headers: Headers) -> list[Delivered]:
        if role == CHANGES and changes_seconds:
            await asyncio.sleep(changes_seconds)
        first = offsets.get(role, 0)
        offsets[role] = first + len(items)
        return [Delivered(0, first + k, None) for k in range(len(items))]

    return BatchFlow(config, processors, send_once, lambda: frozenset({0}))


def _run(flow: BatchFlow, work: Callable[[], Awaitable[None]]) -> None:
    """`work`, then every fused apply it started, on a loop of its own; the flow's threads closed."""

    async def settled() -> None:
        await work()
        await flow.settled()

    try:
        asyncio.run(settled())
    finally:
        flow.shutdown()


def _two_batches(batch_size: int, changes_seconds: float = 0.0) -> list[str]:
    log: list[str] = []
    flow = _flow(log, batch_size, changes_seconds=changes_seconds)

    async def run() -> None:
        for offset in (0, 1):
            batch = [RawMessage("x.turns", 0, offset, b"t/u", f"turn {offset}".encode())]
            await flow.handle(flow.processors[TURNS], batch)

    _run(flow, run)
    assert sorted(log) == sorted(
        [f"extract {n}" for n in (0, 1)]
        + [f"extraction record {n} []" for n in (0, 1)]
        + [f"fused apply of b'turn {n}' {edge}" for n in (0, 1) for edge in ("begins", "ends")]
        + [f"fused record {n}" for n in (0, 1)]
    ), log
    assert log.index("extract 1") > log.index("extraction record 0 []"), log
    return log


def test_a_turns_batch_short_of_full_waits_for_the_last_ones_fused_apply() -> None:
    """Run beside the next turns batch, a fused apply shares the GIL with its extraction and both
    take longer: while the worker keeps up (batches short of full), a batch waits for it."""
    log = _two_batches(batch_size=500)
    assert log.index("extract 1") > log.index("fused apply of b'turn 0' ends"), log


def test_a_turns_batch_does_not_wait_for_the_last_fused_applys_changes_to_be_delivered() -> None:
    """What the next batch waits for is the fused apply's writes to Redis; its change records going
    out and its position recorded happen beside that batch's extraction."""
    log = _two_batches(batch_size=500, changes_seconds=0.3)
    assert log.index("extract 1") > log.index("fused apply of b'turn 0' ends"), log
    assert log.index("extract 1") < log.index("fused record 0"), log
    # the fused applies still take turns: the second begins once the first was recorded
    assert log.index("fused apply of b'turn 1' begins") > log.index("fused record 0"), log


def test_a_full_turns_batch_runs_beside_the_last_ones_fused_apply() -> None:
    """A full batch means a backlog: it is extracted while the last batch's ops are applied (the
    apply waits for Redis, and the extraction fills those waits)."""
    log = _two_batches(batch_size=1)
    assert log.index("extract 1") < log.index("fused apply of b'turn 0' ends"), log
    # the fused applies still take turns: the second begins once the first was recorded
    assert log.index("fused apply of b'turn 1' begins") > log.index("fused record 0"), log


def test_a_turns_batch_that_cannot_have_reconciliation_in_time_leaves_its_ops_to_the_consumer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An ops batch holding reconciliation (a promote pausing it, say) past the fused apply's wait:
    the turns batch's ops are delivered, not applied at once, and counted as left to the consumer."""
    monkeypatch.setattr(batches, "FUSE_WAIT_SECONDS", 0.05)
    log: list[str] = []
    flow = _flow(log, batch_size=500)

    async def held_reconciliation() -> None:
        async with flow.reconciling:
            batch = [RawMessage("x.turns", 0, 0, b"t/u", b"turn 0")]
            await flow.handle(flow.processors[TURNS], batch)

    _run(flow, held_reconciliation)
    assert log == ["extract 0", "extraction record 0 [('fused_apply:left_to_consumer', 1)]"], log


def test_the_timeline_has_each_batchs_stages_and_its_oldest_turns_age_when_applied(tmp_path: Path) -> None:
    """SLOTSTREAM_BATCH_TIMELINE: a line per batch with its stages' times in order, and a line per
    fused apply with the age its batch's oldest turn had once its ops were applied."""
    path = tmp_path / "timeline.jsonl"
    flow = _flow([], batch_size=500, timeline=str(path))
    appended_ms = int(time.time() * 1000) - 300  # the turns sat on their topic 300 ms

    async def run() -> None:
        for offset in (0, 1):
            batch = [
                RawMessage("x.turns", 0, 2 * offset + k, b"t/u", f"turn {offset}".encode(), appended_ms + k)
                for k in (0, 1)
            ]
            await flow.handle(flow.processors[TURNS], batch)

    _run(flow, run)
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    batches_seen = [line for line in lines if line["processor"] == "extraction"]
    fused = [line for line in lines if line["processor"] == "fused_apply"]
    assert len(batches_seen) == 2 and len(fused) == 2, lines
    for line in batches_seen:
        assert line["records"] == 2
        assert line["oldest_age_ms"] >= 300
        assert 0 <= line["waited"] <= line["processed"] <= line["delivered"] <= line["recorded"], line
    # the second batch waited for the first one's fused apply (short of full), which began after
    # the first batch did
    assert batches_seen[1]["waited"] >= APPLY_SECONDS * 1000 * 0.5, batches_seen
    assert batches_seen[0]["start_ms"] <= fused[0]["start_ms"] <= batches_seen[1]["start_ms"], lines
    for line in fused:
        assert line["records"] == 2
        assert line["applied_ms"] >= APPLY_SECONDS * 1000
        assert line["visible_age_ms"] >= 300 + APPLY_SECONDS * 1000, line


def test_the_timeline_has_a_line_per_garbage_collection_until_the_flow_shuts_down(tmp_path: Path) -> None:
    path = tmp_path / "timeline.jsonl"
    flow = _flow([], batch_size=500, timeline=str(path))

    async def run() -> None:
        await flow.handle(flow.processors[TURNS], [RawMessage("x.turns", 0, 0, b"t/u", b"turn")])
        cycle: list[object] = []
        cycle.append(cycle)  # garbage only a collection finds
        del cycle
        gc.collect()

    _run(flow, run)
    written = path.read_bytes()
    gc.collect()  # after the shutdown: no line, and the timeline no longer hears of collections
    assert path.read_bytes() == written
    assert not [hook for hook in gc.callbacks if getattr(hook, "__self__", None) is flow.timeline]
    lines = [orjson.loads(line) for line in written.splitlines()]
    # (the interpreter may collect on its own as well: generation 0 or 1, any number of times)
    collections = [line for line in lines if line["processor"] == "gc"]
    assert all(c["pause_ms"] >= 0 and c["generation"] in (0, 1, 2) for c in collections), collections
    assert any(c["generation"] == 2 and c["collected"] >= 1 for c in collections), collections
    assert [line["processor"] for line in lines if line["processor"] != "gc"] == ["extraction", "fused_apply"]


def test_a_timeline_the_worker_cannot_append_to_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-folder" / "timeline.jsonl"
    with pytest.raises(TimelineUnwritable, match=r"SLOTSTREAM_BATCH_TIMELINE: cannot append to .*no-such-folder.*"):
        _flow([], batch_size=500, timeline=str(missing))

    # the command reports it as it reports a setting's bad value: a line and exit code 2
    def start_worker(args: object) -> int:
        _flow([], batch_size=500, timeline=str(missing))
        return 0

    monkeypatch.setattr("slotstream.cli.worker.cmd_worker", start_worker)
    assert main(["worker"]) == 2
    assert "slotstream: SLOTSTREAM_BATCH_TIMELINE: cannot append to" in capsys.readouterr().err


def test_a_timeline_on_a_full_disk_stops_without_failing_a_batch() -> None:
    """Every write to /dev/full fails as on a full disk (ENOSPC): the timeline stops, the batches
    and their fused applies go on and are recorded."""
    log: list[str] = []
    flow = _flow(log, batch_size=500, timeline="/dev/full")

    async def run() -> None:
        for offset in (0, 1):
            await flow.handle(flow.processors[TURNS], [RawMessage("x.turns", 0, offset, b"t/u", b"turn")])

    _run(flow, run)
    assert [line for line in log if "record" in line] == [
        "extraction record 0 []",
        "fused record 0",
        "extraction record 1 []",
        "fused record 1",
    ], log
    assert flow.timeline is not None and flow.timeline._file is None


class _Arrivals:
    """A consumer whose getmany returns the records that have arrived, as aiokafka's returns what its
    fetches brought in; `arrive` is what the broker appends meanwhile."""

    def __init__(self, first: int) -> None:
        self.fetched: list[ConsumerRecord[bytes, bytes]] = [self._record(n) for n in range(first)]
        self.next = first

    @staticmethod
    def _record(offset: int) -> ConsumerRecord[bytes, bytes]:
        return ConsumerRecord("x.turns", 0, offset, 0, 0, b"t/u", f"turn {offset}".encode(), None, 0, 0, [])

    def arrive(self, n: int) -> None:
        self.fetched += [self._record(self.next + k) for k in range(n)]
        self.next += n

    async def getmany(self, *partitions: TopicPartition, timeout_ms: int, max_records: int) -> dict[Any, Any]:
        if not self.fetched:
            await asyncio.sleep(min(timeout_ms, 5) / 1000)
        taken, self.fetched = self.fetched[:max_records], self.fetched[max_records:]
        return {partitions[0]: taken} if taken else {}


def _lean(batch_size: int, consumer: _Arrivals) -> LeanRuntime:
    lock = threading.Lock()
    topics = {TURNS: "x.turns", OPS: "x.ops"}
    config = AppConfig(group="g", bootstrap="unused:9092", topics=topics, partitions=1, batch_size=batch_size)
    processors = {
        TURNS: _Extraction("extraction", "x.turns", [], lock),
        OPS: _Reconciliation("reconciliation", "x.ops", [], lock),
    }
    runtime = LeanRuntime(config, processors)
    runtime._consumer = consumer  # type: ignore[assignment]
    return runtime


def _taken_during_a_fused_apply(
    batch_size: int, during: Callable[[LeanRuntime, _Arrivals], None]
) -> tuple[list[int], bool]:
    """A turns batch taken while the last batch's fused apply runs (0.2 s; `during` happens 0.05 s
    into it): the offsets taken, and whether the fused apply was over when the batch was."""
    consumer = _Arrivals(first=1)
    runtime = _lean(batch_size, consumer)

    async def fused_apply() -> None:
        await asyncio.sleep(0.05)
        during(runtime, consumer)
        await asyncio.sleep(0.15)

    async def take() -> tuple[list[int], bool]:
        runtime.flow.fusing = runtime.flow.applying = asyncio.create_task(fused_apply())
        batch = await runtime._take([TopicPartition("x.turns", 0)], runtime.flow.processors[TURNS])
        over = runtime.flow.fusing.done()
        await runtime.flow.settled()
        return [msg.offset for msg in batch], over

    try:
        return asyncio.run(take())
    finally:
        runtime.flow.shutdown()


def test_a_turns_batch_that_waits_for_a_fused_apply_takes_what_arrives_meanwhile() -> None:
    """The lean runtime: a batch short of full waits for the last batch's fused apply before it is
    extracted; the turns appended in the meantime join it rather than wait a whole batch more."""
    offsets, over = _taken_during_a_fused_apply(500, lambda runtime, consumer: consumer.arrive(3))
    assert offsets == [0, 1, 2, 3] and over


def test_a_full_turns_batch_is_taken_without_waiting_for_the_fused_apply() -> None:
    offsets, over = _taken_during_a_fused_apply(1, lambda runtime, consumer: consumer.arrive(3))
    assert offsets == [0] and not over


def test_a_batch_whose_wait_a_revocation_interrupts_keeps_only_what_came_after_it() -> None:
    """Records taken before a revocation belong to the old assignment (read again from the recorded
    position): a revocation during the wait drops them, and the batch is what came after it."""

    def revoked_then_arrived(runtime: LeanRuntime, consumer: _Arrivals) -> None:
        runtime.generation += 1
        consumer.arrive(2)

    offsets, over = _taken_during_a_fused_apply(500, revoked_then_arrived)
    assert offsets == [1, 2] and over


def test_the_timeline_has_a_line_per_expiry_sweep_with_its_time_on_reconciliations_thread(tmp_path: Path) -> None:
    """A sweep runs on reconciliation's thread, where a fused apply queued behind it waits: its
    line says how long it held the thread and how many ops it found due."""
    path = tmp_path / "timeline.jsonl"
    flow = _flow([], batch_size=500, timeline=str(path))
    swept: list[list[int]] = []

    def sweep(owned: list[int]) -> list[Keyed]:
        swept.append(owned)
        time.sleep(0.05)
        return [(b"t/u", b"expire r1"), (b"t/u", b"expire r2")]

    async def run() -> None:
        await flow.sweep(sweep, [0])
        await flow.sweep(sweep, [])  # no partition owned: no sweep, no line

    before_ms = time.time() * 1000
    _run(flow, run)
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    sweeps = [line for line in lines if line["processor"] == "sweep"]
    assert swept == [[0]]
    assert len(sweeps) == 1, lines
    assert sweeps[0]["records"] == 2
    assert sweeps[0]["swept_ms"] >= 50
    assert before_ms - 1 <= sweeps[0]["start_ms"] <= before_ms + 1000, sweeps

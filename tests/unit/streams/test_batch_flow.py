"""The way of a batch through `BatchFlow`, with processors that only log what they are asked to do
(the Kafka runtimes and the real processors are in tests/integration/pipeline)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence

import pytest

from slotstream.streams import batches
from slotstream.streams.batches import AppConfig, BatchFlow, Delivered, Headers
from slotstream.streams.messages import BatchOutput, Compacted, Keyed, RawMessage
from slotstream.streams.topics import OPS, TURNS

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
        return produced, BatchOutput()

    def record_produced(self, applied: list[RawMessage], out: BatchOutput) -> None:
        self.note(f"fused record {applied[0].offset}")


def _flow(log: list[str], batch_size: int) -> BatchFlow:
    lock = threading.Lock()
    topics = {TURNS: "x.turns", OPS: "x.ops"}
    config = AppConfig(group="g", bootstrap="unused:9092", topics=topics, partitions=1, batch_size=batch_size)
    processors = {
        TURNS: _Extraction("extraction", "x.turns", log, lock),
        OPS: _Reconciliation("reconciliation", "x.ops", log, lock),
    }
    offsets = {"next": 0}

    async def send_once(role: str, items: Sequence[Keyed | Compacted], headers: Headers) -> list[Delivered]:
        first = offsets["next"]
        offsets["next"] += len(items)
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


def _two_batches(batch_size: int) -> list[str]:
    log: list[str] = []
    flow = _flow(log, batch_size)

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
    assert log.index("extract 1") > log.index("fused record 0"), log


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

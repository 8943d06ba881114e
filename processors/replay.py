"""Replaying retained topics into a namespace: the same extraction and reconciliation the live
workers run, fed from a log range instead of a consumer group, producing nothing.

Two sources:
- the logged ops (default): every ops-topic record in offset order, the extracted ones included,
  exactly what the live reconciliation applied;
- the turns re-extracted with the current extractor: turns and ops of a partition merged in append
  order, each turn's ops applied where the turn sits, and the logged extraction ops (marked by the
  origin header) skipped since the turns yield them afresh.

What a live worker would send to the dead-letter topic is counted instead (`dead_letters:<reason>`
in the namespace's counters): a replay must not write into the live topics.
"""

from __future__ import annotations

from slotstream.streams.topics import ORIGIN_HEADER

from .extraction import ExtractionService
from .messages import BatchOutput, RawMessage
from .reconciliation import ReconciliationService

EXTRACTION_ORIGIN = b"extraction"


class ReplayService:
    def __init__(
        self,
        reconciliation: ReconciliationService,
        extraction: ExtractionService | None,
        turns_topic: str,
    ) -> None:
        """`extraction` None: the logged ops are applied as they are (turns are not read)."""
        self.reconciliation = reconciliation
        self.extraction = extraction
        self.turns_topic = turns_topic

    def skips(self, msg: RawMessage) -> bool:
        """A logged extraction op a re-extraction replaces: the caller leaves it out of the batch
        (so it is never even opened), keeping it only for the positions."""
        return (
            self.extraction is not None
            and msg.topic != self.turns_topic
            and msg.header(ORIGIN_HEADER) == EXTRACTION_ORIGIN
        )

    def handle(self, batch: list[RawMessage]) -> BatchOutput:
        """A merged batch (turns and ops of one partition, in append order, without what `skips`):
        the ops applied in that order, bad input counted as dead letters."""
        out = BatchOutput()
        ops: list[RawMessage] = []
        run: list[RawMessage] = []  # consecutive turns, extracted together (their ops stay in order)

        def flush_turns() -> None:
            if not run:
                return
            assert self.extraction is not None
            extracted = self.extraction.handle(run)
            out.dead += extracted.dead
            for name, n in extracted.counts.items():
                out.count(name, n)
            first = run[0]
            # an extracted op keeps its turn's place: partition, ingest time; its op id is its key
            ops.extend(
                RawMessage(self.turns_topic, first.partition, first.offset, key, value, first.timestamp_ms)
                for key, value in extracted.ops
            )
            run.clear()

        for msg in batch:
            if msg.topic == self.turns_topic:
                if self.extraction is not None:
                    run.append(msg)
                continue
            flush_turns()
            ops.append(msg)
        flush_turns()
        if ops:
            applied = self.reconciliation.handle(ops)
            applied.ops, applied.changes = [], []  # nothing is produced
            out.merge(applied)
        return out

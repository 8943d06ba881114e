"""Expiry processor: sweeps the due index of the partitions this worker owns and emits expire /
review_due ops; reconciliation stays the single writer.

Not needed for correct reads (eligibility checks validity against the request's time); it marks
and reports what is due. Its clock is event time: each user's watermark decides, the partition's
bounds the candidates. Each emitted op's id is derived from (kind, record, due time), so a sweep
repeated after a rebalance or a crash emits ops the engine recognises as duplicates.
"""

from __future__ import annotations

from datetime import UTC, datetime

import orjson

from slotstream.memory.models import iso
from slotstream.state.engine import Engine
from slotstream.state.expiry_index import DueIndex
from slotstream.state.progress import Progress
from slotstream.streams.messages import Keyed
from slotstream.streams.topics import user_key


class ExpiryService:
    def __init__(
        self, engine: Engine, progress: Progress, due_index: DueIndex, ops_topic: str, batch: int = 500
    ) -> None:
        self.engine = engine
        self.progress = progress
        self.due_index = due_index
        self.ops_topic = ops_topic
        self.batch = batch

    def sweep(self, partitions: list[int], *, max_scan: int = 20_000) -> list[Keyed]:
        """Ops for everything due, on the partitions this worker owns, by each user's event time."""
        marks = self.progress.watermarks(self.ops_topic)
        out: list[Keyed] = []
        for p in sorted(partitions):
            now = marks.get(p)
            if now is None:
                continue
            # The partition's watermark bounds the candidates; each user's own watermark decides, so
            # one user's later events never expire another user's records early. Entries not yet due
            # for their user are paged past, so they cannot hold back the ones behind them.
            emitted, offset = 0, 0
            while emitted < self.batch and offset < max_scan:
                page = self.due_index.page(p, now, offset, self.batch)
                if not page:
                    break
                offset += len(page)
                users = sorted({(entry.tenant, entry.user) for entry, _ in page})
                user_marks = dict(zip(users, self.engine.watermarks(users), strict=False))
                for entry, due_ms in page:
                    mark = user_marks.get((entry.tenant, entry.user))
                    if mark is None or due_ms > mark:
                        continue
                    at = iso(datetime.fromtimestamp(due_ms / 1000, tz=UTC))
                    op = {
                        "at": at,
                        "op_id": f"{entry.kind}:{entry.record_id}:{due_ms}",
                        "command": {
                            "op": entry.kind,
                            "tenant": entry.tenant,
                            "user": entry.user,
                            "record_id": entry.record_id,
                        },
                    }
                    out.append((user_key(entry.tenant, entry.user), orjson.dumps(op)))
                    emitted += 1
        return out

"""Expiry processor: sweeps the due index of the partitions this worker owns and emits expire /
review_due ops; reconciliation stays the single writer.

Not needed for correct reads (eligibility checks validity against the request's time); it marks
and reports what is due. Its clock is event time: each user's watermark decides, the partition's
bounds the candidates. Each emitted op's id
is derived from (kind, record, due time), so a sweep repeated after a rebalance or a crash emits
ops the engine recognises as duplicates.
"""

from __future__ import annotations

from datetime import datetime, timezone

import orjson

from memory.models import iso
from state.engine import Engine
from state.scripts import LuaScript
from streams.topics import user_key

from .progress import Progress

_ZREM_IF_DUE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


def due_member(tenant: str, user: str, record_id: str, kind: str) -> str:
    return f"{tenant}/{user}/{record_id}/{kind}"


class ExpiryService:
    def __init__(self, engine: Engine, progress: Progress, ops_topic: str, batch: int = 500) -> None:
        self.r = engine.r
        self.engine = engine
        self.progress = progress
        self.ops_topic = ops_topic
        self.batch = batch
        # reconciliation drops an entry with it when the sweep's op changed nothing
        self.zrem_if_due = LuaScript(engine.r, _ZREM_IF_DUE)

    def sweep(self, partitions: list[int], max_scan: int = 20_000) -> list[tuple[bytes, bytes]]:
        """Ops for everything due, on the partitions this worker owns, by each user's event time."""
        marks = self.progress.watermarks(self.ops_topic)
        out: list[tuple[bytes, bytes]] = []
        for p in sorted(partitions):
            now = marks.get(p)
            if now is None:
                continue
            # The partition's watermark bounds the candidates; each user's own watermark decides, so
            # one user's later events never expire another user's records early. Entries not yet due
            # for their user are paged past, so they cannot hold back the ones behind them.
            emitted, offset = 0, 0
            while emitted < self.batch and offset < max_scan:
                page = self.r.zrangebyscore(self.progress.due_key(p), "-inf", now, start=offset, num=self.batch,
                                            withscores=True)
                if not page:
                    break
                offset += len(page)
                due = [(m.decode().split("/"), int(score)) for m, score in page]
                users = sorted({(parts[0], parts[1]) for parts, _ in due})
                user_marks = dict(zip(users, self.engine.watermarks(users)))
                for (tenant, user, record_id, kind), due_ms in due:
                    mark = user_marks.get((tenant, user))
                    if mark is None or due_ms > mark:
                        continue
                    at = iso(datetime.fromtimestamp(due_ms / 1000, tz=timezone.utc))
                    op = {"at": at, "op_id": f"{kind}:{record_id}:{due_ms}",
                          "command": {"op": kind, "tenant": tenant, "user": user, "record_id": record_id}}
                    out.append((user_key(tenant, user), orjson.dumps(op)))
                    emitted += 1
        return out

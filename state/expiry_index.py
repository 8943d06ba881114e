"""The expiry index: per ops partition, a sorted set of (tenant, user, record, kind) by due time.

Reconciliation, the single writer of the records it lists, keeps it; the expiry sweep pages
through it. An entry whose sweep op changed nothing (the record is gone or was handled) is
removed only if its due time has not moved since the sweep read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis

from slotstream.memory.key_parts import join, split

from .keys import Keys
from .lua import LuaScript, run_pipeline

_ZREM_IF_DUE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


@dataclass(frozen=True, slots=True)
class DueEntry:
    tenant: str
    user: str
    record_id: str
    kind: str  # "expire" | "review_due"

    @property
    def member(self) -> str:
        # each part escaped (memory/key_parts.py), so the member splits back into its parts
        return join((self.tenant, self.user, self.record_id, self.kind))

    @classmethod
    def parse(cls, member: bytes | str) -> DueEntry:
        text = member.decode() if isinstance(member, bytes) else member
        tenant, user, record_id, kind = split(text, 4)
        return cls(tenant, user, record_id, kind)


class DueIndex:
    def __init__(self, client: redis.Redis, namespace: str) -> None:
        self.r = client
        self.keys = Keys(namespace)
        self._zrem_if_due = LuaScript(client, _ZREM_IF_DUE)

    def update(self, changes: list[tuple[int, DueEntry, int | None]], handled: list[tuple[int, DueEntry, int]]) -> None:
        """`changes`: (partition, entry, due ms, or None when no longer due); `handled`: (partition,
        entry, the sweep op's time) for sweep ops that changed nothing. One round trip."""
        if not changes and not handled:
            return
        # a batch changes many entries: per partition one ZADD and one ZREM, each entry ending as
        # its last change in the batch says (the order of the batch's changes of one entry matters)
        final: dict[int, dict[str, int | None]] = {}
        for partition, entry, due_ms in changes:
            final.setdefault(partition, {})[entry.member] = due_ms

        def build(pipe: Any) -> None:
            for partition, members in final.items():
                due = {member: due_ms for member, due_ms in members.items() if due_ms is not None}
                gone = [member for member, due_ms in members.items() if due_ms is None]
                if due:
                    pipe.zadd(self.keys.due(partition), due)
                if gone:
                    pipe.zrem(self.keys.due(partition), *gone)
            for partition, entry, at_ms in handled:
                self._zrem_if_due(keys=[self.keys.due(partition)], args=[entry.member, at_ms], client=pipe)

        run_pipeline(self.r, build, [self._zrem_if_due])

    def page(self, partition: int, until_ms: int, start: int, count: int) -> list[tuple[DueEntry, int]]:
        """Entries due at or before `until_ms`, oldest first, `count` from position `start`."""
        rows: list[tuple[bytes, float]] = self.r.zrangebyscore(  # type: ignore[assignment]
            self.keys.due(partition), "-inf", until_ms, start=start, num=count, withscores=True
        )
        return [(DueEntry.parse(member), int(score)) for member, score in rows]

"""Per-partition progress and event-time watermarks, kept in Redis beside the state they describe.

`progress` is the next offset a processor will read, written only after that batch's effects
landed (Redis writes and the records it produced), so "progress >= end offset" is an exact
barrier. The watermark (newest event time seen) is the expiry sweep's clock: event time, never
the wall clock, so a replay expires the same things.
"""

from __future__ import annotations

from typing import Iterable, Protocol

import redis

from state.scripts import LuaScript, run_pipeline

_HMAX = """
for i = 1, #ARGV, 2 do
  local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '-1')
  if tonumber(ARGV[i + 1]) > cur then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
"""


class _Msg(Protocol):
    partition: int
    offset: int


class Progress:
    def __init__(self, client: redis.Redis, namespace: str) -> None:
        self.r = client
        self.ns = namespace
        self._hmax = LuaScript(client, _HMAX)

    def offsets_key(self, topic: str) -> str:
        return f"{self.ns}:progress:{topic}"

    def watermark_key(self, topic: str) -> str:
        return f"{self.ns}:watermark:{topic}"

    def due_key(self, partition: int) -> str:
        return f"{self.ns}:due:{partition}"

    def advance(self, topic: str, batch: Iterable[_Msg], watermark: dict[int, int] | None = None) -> None:
        nxt: dict[int, int] = {}
        for m in batch:
            nxt[m.partition] = max(nxt.get(m.partition, 0), m.offset + 1)
        def build(pipe: object) -> None:
            if nxt:
                self._hmax(keys=[self.offsets_key(topic)], args=[x for kv in nxt.items() for x in kv], client=pipe)
            if watermark:
                self._hmax(keys=[self.watermark_key(topic)], args=[x for kv in watermark.items() for x in kv],
                           client=pipe)

        run_pipeline(self.r, build, [self._hmax])

    def offsets(self, topic: str) -> dict[int, int]:
        return {int(k): int(v) for k, v in self.r.hgetall(self.offsets_key(topic)).items()}

    def watermarks(self, topic: str) -> dict[int, int]:
        return {int(k): int(v) for k, v in self.r.hgetall(self.watermark_key(topic)).items()}

"""Processing positions and event-time watermarks, kept in Redis beside the state they describe.

`progress` is the next offset a processor will read, written only after that batch's effects
landed (Redis writes and the records it produced). It is the source of truth for where a worker
resumes: on every partition assignment the consumer is moved to it, whatever offsets the Kafka
client committed, so an offset committed past a batch that was never applied costs a re-read,
never a lost message. Because position and state live in the same Redis, a Redis that comes back
from its append-only file with the last second missing also rewinds its positions to match.

The watermark (newest event time seen per partition) is the expiry sweep's clock: event time,
never the wall clock, so a replay expires the same things.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, cast

import redis

from .errors import StateLost, StateRewound
from .keys import Keys
from .lua import LuaScript

log = logging.getLogger("slotstream.state")

# KEYS[1] = namespace marker, KEYS[2] = positions hash, KEYS[3] = watermarks hash, KEYS[4] = counters
# ARGV = #positions, then partition/offset/previous triples, #watermarks, partition/watermark pairs,
# then counter name/increment pairs.
# `previous` is where the caller last recorded that partition (0 or less: nothing): finding less means
# Redis lost writes it had acknowledged (restored from an older file, failed over to a lagging
# replica) and the caller must re-read from what Redis holds. Otherwise running maxima: a
# rewound worker re-applying old batches never moves a position backwards.
_ADVANCE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local n = tonumber(ARGV[1])
for i = 2, 1 + 3 * n, 3 do
  local cur = tonumber(redis.call('HGET', KEYS[2], ARGV[i]) or '-1')
  local prev = tonumber(ARGV[i + 2])
  if prev > 0 and cur < prev then return -2 end
end
for i = 2, 1 + 3 * n, 3 do
  local cur = tonumber(redis.call('HGET', KEYS[2], ARGV[i]) or '-1')
  if tonumber(ARGV[i + 1]) > cur then redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
end
local w = tonumber(ARGV[2 + 3 * n])
local first = 3 + 3 * n
for i = first, first + 2 * w - 1, 2 do
  local cur = tonumber(redis.call('HGET', KEYS[3], ARGV[i]) or '-1')
  if tonumber(ARGV[i + 1]) > cur then redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
end
for i = first + 2 * w, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[4], ARGV[i], ARGV[i + 1])
end
return 1
"""


def state_lost_message(namespace: str, detail: str) -> str:
    return (
        f"Redis namespace {namespace!r} has no state, but {detail}: the state was lost (a Redis "
        "restarted without persistence, or flushed). Processing stops here instead of carrying on "
        "over it. Restore Redis from its append-only file or a backup, or rebuild the namespace from "
        "the retained ops topic with `slotstream worker --rebuild` (docs/operating.md, 'Lost state')."
    )


class Progress:
    def __init__(self, client: redis.Redis, namespace: str) -> None:
        self.r = client
        self.ns = namespace
        self.keys = Keys(namespace)
        self._advance = LuaScript(client, _ADVANCE)

    def advance(
        self,
        topic: str,
        next_offsets: Mapping[int, int],
        watermark: Mapping[int, int] | None = None,
        previous: Mapping[int, int] | None = None,
        counts: Mapping[str, int] | None = None,
    ) -> None:
        """Record that everything before `next_offsets` is applied (and the newest event times).
        Raises StateLost when the namespace marker is gone (the state these positions describe
        is), StateRewound when a partition's position is below `previous` (where the caller last
        recorded it)."""
        if not next_offsets and not watermark:
            return
        args: list[Any] = [len(next_offsets)]
        for partition, offset in next_offsets.items():
            args += [partition, offset, (previous or {}).get(partition, -1)]
        args.append(len(watermark or {}))
        for partition, ms in (watermark or {}).items():
            args += [partition, ms]
        for name, n in (counts or {}).items():
            args += [name, n]
        keys = [self.keys.marker(), self.keys.progress(topic), self.keys.watermark(topic), self.keys.counters()]
        status = int(self._advance(keys=keys, args=args))
        if status == -1:
            raise StateLost(state_lost_message(self.ns, f"processing of {topic} had already begun"))
        if status == -2:
            raise StateRewound(
                f"{topic}: Redis holds positions below those this worker recorded "
                f"({dict(previous or {})}): its last writes were lost"
            )

    def regressed(self, topic: str, recorded: Mapping[int, int]) -> dict[int, tuple[int, int]]:
        """Partitions whose position in Redis is below what was `recorded`: (recorded, held)."""
        if not recorded:
            return {}
        partitions = list(recorded)
        pipe = self.r.pipeline(transaction=False)
        pipe.exists(self.keys.marker())
        pipe.hmget(self.keys.progress(topic), [str(p) for p in partitions])
        exists, raw = pipe.execute()
        if not exists:
            raise StateLost(state_lost_message(self.ns, f"this worker had recorded positions of {topic}"))
        held = {p: int(v) if v is not None else 0 for p, v in zip(partitions, raw, strict=False)}
        return {p: (recorded[p], held[p]) for p in partitions if held[p] < recorded[p]}

    def counters(self) -> dict[str, int]:
        """What the workers counted (ops applied by outcome, dead letters by reason), since the
        namespace began."""
        raw = cast(dict[bytes, bytes], self.r.hgetall(self.keys.counters()))
        return {k.decode(): int(v) for k, v in raw.items()}

    def offsets(self, topic: str) -> dict[int, int]:
        return {int(k): int(v) for k, v in self.r.hgetall(self.keys.progress(topic)).items()}

    def watermarks(self, topic: str) -> dict[int, int]:
        return {int(k): int(v) for k, v in self.r.hgetall(self.keys.watermark(topic)).items()}

    def has_state(self) -> bool:
        return bool(self.r.exists(self.keys.marker()))

    def claim(self, committed: Mapping[str, Mapping[int, int | None]], rebuild: bool = False) -> None:
        """Called before a worker consumes. A namespace without its marker is new — unless the
        consumer group already committed offsets (`committed`: topic -> partition -> offset), which
        means state was written here and is gone: StateLost, unless `rebuild` says to rebuild it."""
        if self.has_state():
            return
        done = {topic: {p: o for p, o in parts.items() if o} for topic, parts in committed.items()}
        done = {topic: parts for topic, parts in done.items() if parts}
        if done and not rebuild:
            summary = ", ".join(f"{topic} up to {dict(sorted(parts.items()))}" for topic, parts in sorted(done.items()))
            raise StateLost(state_lost_message(self.ns, f"the consumer group has committed offsets ({summary})"))
        self.r.set(self.keys.marker(), "rebuild" if done else "new")
        if done:
            log.warning("namespace %s: rebuilding from the retained ops topic (committed offsets: %s)", self.ns, done)

    def positions(self, topic: str, partitions: list[int]) -> dict[int, int]:
        """Where to resume each partition: the recorded position, else the beginning (nothing of
        that partition was applied in this namespace)."""
        raw = self.r.hmget(self.keys.progress(topic), [str(p) for p in partitions]) if partitions else []
        return {p: int(v) if v is not None else 0 for p, v in zip(partitions, raw, strict=False)}

"""What extraction made of a turn someone waits on: the op ids it produced and what it refused.

Written only for turns that ask for it (`track`), kept for an hour: long enough for a caller's
wait, short enough that a busy tenant's turns do not pile up in Redis.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson
import redis

from .keys import Keys

TTL_SECONDS = 3600


@dataclass(frozen=True, slots=True)
class TurnEntry:
    tenant: str
    user: str
    turn_id: str
    ops: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


class TurnLog:
    def __init__(self, client: redis.Redis, namespace: str) -> None:
        self.r = client
        self.keys = Keys(namespace)

    def record(self, entries: list[TurnEntry]) -> None:
        if not entries:
            return
        pipe = self.r.pipeline(transaction=False)
        for e in entries:
            body = orjson.dumps({"ops": e.ops, "refused": e.refused})
            pipe.set(self.keys.turn(e.tenant, e.user, e.turn_id), body, ex=TTL_SECONDS)
        pipe.execute()

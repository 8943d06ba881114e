"""Per-tenant quotas held in Redis, so every process that asks shares one count: each decision is
one call of quota.lua (GCRA on the server's clock), by SHA, alone or queued in a pipeline with the
reads of the same request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

from .lua import ScriptText

QUOTA_SCRIPT = ScriptText.named("quota.lua")


@dataclass(frozen=True, slots=True)
class Quota:
    """`rate` units a second, and up to `burst` at once after a quiet spell."""

    rate: float
    burst: float

    @property
    def interval_us(self) -> int:
        """Microseconds per unit, whole (the script's arithmetic stays in integers)."""
        return max(1, round(1_000_000 / self.rate))

    def fits(self, cost: float) -> bool:
        """Could a request of `cost` ever be allowed? (No wait makes room for more than the burst.)"""
        return cost <= self.burst

    def args(self, cost: float) -> list[Any]:
        return [self.interval_us, repr(float(self.burst)), repr(float(cost))]


@dataclass(frozen=True, slots=True)
class Decision:
    """`allowed` and the units left just after; refused, the seconds until the same cost fits."""

    allowed: bool
    wait: float = 0.0
    left: int = 0


def decision_of(reply: list[Any]) -> Decision:
    allowed, figure = int(reply[0]), int(reply[1])
    return Decision(True, 0.0, figure) if allowed else Decision(False, figure / 1_000_000)


def queue_take(pipe: Any, key: str, quota: Quota, cost: float) -> None:
    """Queue one decision in a pipeline (its reply goes to decision_of)."""
    pipe.evalsha(QUOTA_SCRIPT.sha, 1, key, *quota.args(cost))


async def take(client: aioredis.Redis, key: str, quota: Quota, cost: float) -> Decision:
    """One decision, in one round trip (two the first time after the server lost its scripts)."""
    try:
        reply = await client.evalsha(QUOTA_SCRIPT.sha, 1, key, *quota.args(cost))
    except NoScriptError:
        await client.script_load(QUOTA_SCRIPT.source)
        reply = await client.evalsha(QUOTA_SCRIPT.sha, 1, key, *quota.args(cost))
    return decision_of(reply)


class Riding(Protocol):
    """A decision sent in another read's round trip: `queue` adds its command first in the
    pipeline, `settle` gets that command's reply, or the error it answered with (and raises to
    refuse the request)."""

    def queue(self, pipe: Any) -> None: ...

    def settle(self, reply: Any) -> None: ...

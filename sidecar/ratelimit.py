"""Each tenant's quotas, shared by every sidecar process: a request rate (every authenticated
request costs one) and an ingest rate (each turn or op produced costs one, so a batch costs its
size). The count lives in Redis (state/quotas.py): one script call per decision, on the server's
clock. A context lookup carries its decision in the same round trip as its read (`admission`).

Two things are decided here without Redis:
- a tenant refused a moment ago is refused again until the wait it was given has passed (exact:
  the shared count only moves later, so nothing that would have been allowed is refused);
- while Redis does not answer (or answers errors: a replica, out of memory), each process keeps
  its share of each quota (rate / processes) in memory, and asks Redis again after OUTAGE_RETRY
  seconds. The request then goes on to whatever
  it needs Redis for, which answers 503; a route that only produces to Kafka keeps working, held
  to about the tenant's rate rather than let through unlimited.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from slotstream.state.keys import quota_key
from slotstream.state.quotas import Decision, Quota, decision_of, queue_take, take

from .errors import RateLimited, TooLarge

log = logging.getLogger(__name__)
OUTAGE_RETRY = 1.0  # seconds the local shares decide after Redis failed, before Redis is asked again
REQUESTS, INGEST = "requests", "ingest"
REFUSALS = {  # quota -> (reason code, what the detail names)
    REQUESTS: ("rate_limited", "this tenant's request rate"),
    INGEST: ("ingest_rate_limited", "this tenant's ingest quota (turns and ops a second)"),
}


class TenantLimiter:
    """A token bucket per tenant in this process alone: the share of a quota each process keeps
    while Redis is unreachable."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}  # tenant -> (tokens, at)

    def retry_after(self, tenant: str, cost: float = 1.0) -> float | None:
        """None when the request may go ahead (and takes its tokens), else the seconds to wait."""
        cost = min(cost, self.burst)  # a batch the whole quota allows is not refused for good
        now = time.monotonic()
        tokens, at = self._buckets.get(tenant, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens >= cost:
            self._buckets[tenant] = (tokens - cost, now)
            return None
        self._buckets[tenant] = (tokens, now)
        return (cost - tokens) / self.rate


class Admission:
    """One context lookup's request-rate decision, queued first in the lookup's own pipeline
    (state/reader.py calls `queue`, then `settle` with its reply, before it uses the rest)."""

    def __init__(self, limiter: SharedLimiter, tenant: str) -> None:
        self.limiter, self.tenant = limiter, tenant

    def queue(self, pipe: Any) -> None:
        queue_take(pipe, self.limiter.key(REQUESTS, self.tenant), self.limiter.quotas[REQUESTS], 1.0)

    def settle(self, reply: Any) -> None:
        if isinstance(reply, RedisError):  # e.g. a replica's READONLY, or out of memory
            self.limiter.outage(reply)
            self.limiter.local_decision(REQUESTS, self.tenant, 1.0)
            return
        self.limiter.settle(REQUESTS, self.tenant, 1.0, decision_of(reply))


class SharedLimiter:
    def __init__(
        self,
        base: str,
        requests: Quota,
        ingest: Quota,
        processes: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base, self.clock = base, clock
        self.quotas = {REQUESTS: requests, INGEST: ingest}
        self.client: aioredis.Redis | None = None  # set once the app's lifespan has connected
        self.local = {
            kind: TenantLimiter(q.rate / processes, max(1.0, q.burst / processes)) for kind, q in self.quotas.items()
        }
        self.refused: dict[tuple[str, str], tuple[float, float]] = {}  # (quota, tenant) -> (until, cost)
        self.down_until = 0.0

    def connect(self, client: aioredis.Redis) -> None:
        self.client = client

    def key(self, kind: str, tenant: str) -> str:
        return quota_key(self.base, tenant, kind)

    def admission(self, tenant: str) -> Admission | None:
        """A context lookup's decision to carry in its read; None when decided here already.
        Raises RateLimited when the tenant is over its rate as far as this process knows."""
        self._refused_lately(REQUESTS, tenant, 1.0)
        if self.client is None or self.clock() < self.down_until:
            self.local_decision(REQUESTS, tenant, 1.0)
            return None
        return Admission(self, tenant)

    async def admit(self, tenant: str, kind: str = REQUESTS, cost: float = 1.0) -> None:
        """Take `cost` of the tenant's `kind` quota, or raise RateLimited (TooLarge: never fits)."""
        quota = self.quotas[kind]
        if not quota.fits(cost):
            raise TooLarge(
                "over_ingest_burst" if kind == INGEST else "over_burst",
                f"{cost:g} at once is more than this tenant's burst of {quota.burst:g}: send at most "
                f"{int(quota.burst)} in one request",
            )
        self._refused_lately(kind, tenant, cost)
        if self.client is None or self.clock() < self.down_until:
            self.local_decision(kind, tenant, cost)
            return
        try:
            decision = await take(self.client, self.key(kind, tenant), quota, cost)
        except RedisError as err:  # unreachable, or answering errors (a replica, out of memory)
            self.outage(err)
            self.local_decision(kind, tenant, cost)
            return
        self.settle(kind, tenant, cost, decision)

    def outage(self, err: Exception) -> None:
        """Redis did not decide: the local shares decide for a while."""
        if self.clock() >= self.down_until:
            log.warning("quotas: Redis did not decide (%s); each process keeps its share for now", type(err).__name__)
        self.down_until = self.clock() + OUTAGE_RETRY

    def settle(self, kind: str, tenant: str, cost: float, decision: Decision) -> None:
        if decision.allowed:
            return
        self.refused[(kind, tenant)] = (self.clock() + decision.wait, cost)
        raise _refusal(kind, decision.wait)

    def _refused_lately(self, kind: str, tenant: str, cost: float) -> None:
        found = self.refused.get((kind, tenant))
        if found is None:
            return
        until, refused_cost = found
        wait = until - self.clock()
        if wait <= 0:
            del self.refused[(kind, tenant)]
        elif cost >= refused_cost:  # a smaller cost may fit sooner: Redis decides that
            raise _refusal(kind, wait)

    def local_decision(self, kind: str, tenant: str, cost: float) -> None:
        wait = self.local[kind].retry_after(tenant, cost)
        if wait is not None:
            raise _refusal(kind, wait)


def _refusal(kind: str, wait: float) -> RateLimited:
    reason, what = REFUSALS[kind]
    return RateLimited(wait, reason, what)

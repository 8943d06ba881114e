"""A token bucket per tenant, so one tenant cannot starve the others. Per server process: with
several worker processes each holds `rate / workers`, so the tenant's total stays `rate`."""

from __future__ import annotations

import time


class TenantLimiter:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}  # tenant -> (tokens, at)

    def retry_after(self, tenant: str, cost: float = 1.0) -> float | None:
        """None when the request may go ahead (and takes its tokens), else the seconds to wait."""
        now = time.monotonic()
        tokens, at = self._buckets.get(tenant, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens >= cost:
            self._buckets[tenant] = (tokens - cost, now)
            return None
        self._buckets[tenant] = (tokens, now)
        return (cost - tokens) / self.rate

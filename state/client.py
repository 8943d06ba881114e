"""Redis connections for long-running processes: bounded waits, so an outage surfaces as an error
the caller can wait out, never as a call that hangs."""

from __future__ import annotations

import redis


def connect(url: str, socket_timeout: float = 10.0) -> redis.Redis:
    return redis.Redis.from_url(
        url, socket_timeout=socket_timeout, socket_connect_timeout=2.0, health_check_interval=15
    )

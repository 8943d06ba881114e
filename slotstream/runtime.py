"""Process-level wiring: a Redis connection from settings, or the embedded local server."""

from __future__ import annotations

import contextlib
from typing import Iterator

import redis

from .localredis import LocalRedis
from .settings import Settings


@contextlib.contextmanager
def redis_client(settings: Settings) -> Iterator[redis.Redis]:
    """The configured Redis, or an embedded local one started now and stopped on exit."""
    if settings.redis_url:
        client = redis.Redis.from_url(settings.redis_url)
        try:
            yield client
        finally:
            client.close()
        return
    with LocalRedis() as local:
        client = redis.Redis.from_url(local.url)
        try:
            yield client
        finally:
            client.close()


def drop_namespace(client: redis.Redis, namespace: str) -> int:
    n = 0
    for key in client.scan_iter(match=f"{namespace}:*", count=1000):
        n += client.delete(key)
    return n


def tune_gc() -> None:
    """For long-running throughput processes (workers, benchmarks): the engine allocates many
    short-lived objects per op, and CPython's default gen-0 threshold (700) makes the collector run
    every few ops; collecting less often is a measurable part of apply throughput."""
    import gc

    gc.freeze()  # everything imported so far is permanent: never scan it again
    gc.set_threshold(100_000, 50, 100)

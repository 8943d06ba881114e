"""Whole namespaces: dropping one (the scenario runner's and benchmarks' scratch space)."""

from __future__ import annotations

import redis

from .keys import Keys


def drop_namespace(client: redis.Redis, namespace: str) -> int:
    """Delete every key of the namespace; returns how many."""
    n = 0
    for key in client.scan_iter(match=Keys(namespace).pattern(), count=1000):
        n += client.delete(key)
    return n

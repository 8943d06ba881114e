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


def used_memory(client: redis.Redis) -> int:
    """Redis's used_memory, summed over the masters of a cluster."""
    if isinstance(client, redis.RedisCluster):
        replies = client.info("memory", target_nodes=redis.RedisCluster.PRIMARIES)
        return sum(int(info["used_memory"]) for info in replies.values())
    return int(client.info("memory")["used_memory"])

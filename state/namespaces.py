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
    """used_memory of the server, or of every master of a cluster summed (a cluster client's plain
    INFO answers for one node only)."""
    if isinstance(client, redis.RedisCluster):
        infos = client.info("memory", target_nodes=redis.RedisCluster.PRIMARIES)
        if "used_memory" in infos:  # a cluster of one master answers as a server
            return int(infos["used_memory"])
        return sum(int(info["used_memory"]) for info in infos.values())
    return int(client.info("memory")["used_memory"])

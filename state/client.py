"""Redis connections for long-running processes: bounded waits, so an outage surfaces as an error
the caller can wait out, never as a call that hangs.

A URL selects the client. `redis://host:port/db` (and `rediss://`, `unix://`) is one server;
`redis+cluster://host:port[,host:port...]` (or `rediss+cluster://`, TLS) is a Redis Cluster, the
listed nodes being where the client first asks for the slot map (name several: any one that
answers will do). Every key of one user shares the hash tag {tenant:user} and the namespace's
bookkeeping keys the tag {<namespace>} (state/keys.py), so each script and each user's writes
stay in one slot, on one node; pipelines over several users are split per node by the client.
"""

from __future__ import annotations

import time
from typing import Any, cast
from urllib.parse import unquote, urlsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode as AsyncClusterNode
from redis.asyncio.cluster import ClusterPipeline as AsyncClusterPipeline
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import ClusterNode, ClusterPipeline, RedisCluster

CLUSTER_SCHEMES = {"redis+cluster": False, "rediss+cluster": True}  # scheme -> TLS
CLUSTER_CONNECT_WAIT = 30.0  # seconds a new cluster client waits for a node to hand it the slot map


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0].lower() in CLUSTER_SCHEMES


def cluster_nodes(url: str) -> tuple[list[tuple[str, int]], dict[str, Any]]:
    """The startup nodes of a `redis+cluster://` URL and the connection options it carries
    (user, password, TLS). A path other than "/" or "/0" is refused: a cluster has database 0 only."""
    scheme, _, rest = url.partition("://")
    if scheme.lower() not in CLUSTER_SCHEMES:
        raise ValueError(f"not a Redis Cluster URL (want redis+cluster://host:port[,host:port]): {scheme}://")
    parts = urlsplit(f"redis://{rest}")
    if parts.path not in ("", "/", "/0"):
        raise ValueError("a Redis Cluster URL names no database other than 0")
    hosts = parts.netloc.rpartition("@")[2]
    nodes: list[tuple[str, int]] = []
    for item in hosts.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host:
            host, port = port, "6379"
        nodes.append((host.strip("[]"), int(port or 6379)))
    options: dict[str, Any] = {}
    if parts.username:
        options["username"] = unquote(parts.username)
    if parts.password:
        options["password"] = unquote(parts.password)
    if CLUSTER_SCHEMES[scheme.lower()]:
        options["ssl"] = True
    return nodes, options


class _ClusterPipeline(ClusterPipeline):
    """redis-py refuses EVALSHA and ECHO in a cluster pipeline: a script's keys might span slots,
    and ECHO names no key. Here every script is called with keys of one hash tag (a user's, or a
    namespace's bookkeeping), so the pipeline routes each call to the node that owns its keys, and
    ECHO (the engine's placeholder reply for a user with nothing to write) to any node."""

    def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:
        return self.execute_command("EVALSHA", sha, numkeys, *keys_and_args)

    def echo(self, value: Any, **kwargs: Any) -> Any:
        return self.execute_command("ECHO", value, **kwargs)


class _AsyncClusterPipeline(AsyncClusterPipeline):
    """The same two commands allowed in the asyncio cluster pipeline (the reader's context script)."""

    def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:
        return self.execute_command("EVALSHA", sha, numkeys, *keys_and_args)

    def echo(self, value: Any, **kwargs: Any) -> Any:
        return self.execute_command("ECHO", value, **kwargs)


class _Cluster(RedisCluster):
    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> _ClusterPipeline:
        pipe = super().pipeline(transaction=transaction, shard_hint=shard_hint)
        pipe.__class__ = _ClusterPipeline  # the same object, with the two commands above allowed
        return cast(_ClusterPipeline, pipe)


class _AsyncCluster(AsyncRedisCluster):
    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> _AsyncClusterPipeline:
        pipe = super().pipeline(transaction=transaction, shard_hint=shard_hint)
        # through Any: redis-py's asyncio ClusterPipeline declares abstract methods mypy counts
        cast(Any, pipe).__class__ = _AsyncClusterPipeline
        return cast(_AsyncClusterPipeline, pipe)


def connect(url: str, socket_timeout: float = 10.0) -> redis.Redis:
    """A client for the server or the cluster `url` names.

    A cluster client asks for the slot map when it is built, so it waits (up to
    CLUSTER_CONNECT_WAIT) for a node to answer; a single server's client connects on first use.
    The cluster client answers every command the state layer sends, so callers type it as one."""
    if not is_cluster_url(url):
        return redis.Redis.from_url(
            url, socket_timeout=socket_timeout, socket_connect_timeout=2.0, health_check_interval=15
        )
    nodes, options = cluster_nodes(url)
    deadline = time.monotonic() + CLUSTER_CONNECT_WAIT
    while True:
        try:
            client = _Cluster(
                startup_nodes=[ClusterNode(host, port) for host, port in nodes],
                socket_timeout=socket_timeout,
                socket_connect_timeout=2.0,
                **options,
            )
        except (redis.exceptions.RedisError, redis.exceptions.RedisClusterException):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
            continue
        return cast(redis.Redis, client)


def connect_async(url: str, socket_timeout: float = 5.0) -> aioredis.Redis:
    """The asyncio client for `url` (a server's event loop); a cluster one finds its nodes on first use."""
    if not is_cluster_url(url):
        return aioredis.Redis.from_url(url, socket_timeout=socket_timeout, socket_connect_timeout=2.0)
    nodes, options = cluster_nodes(url)
    client = _AsyncCluster(
        startup_nodes=[AsyncClusterNode(host, port) for host, port in nodes],
        socket_timeout=socket_timeout,
        socket_connect_timeout=2.0,
        **options,
    )
    return cast(aioredis.Redis, client)

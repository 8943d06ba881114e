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
    (user, password, TLS). ValueError for a URL that names no node, an empty node, a port that is
    not one, a database other than 0 (a cluster has database 0 only) or query options (none is
    read): refused at once, rather than a client that waits for nodes that cannot be. The message
    never repeats the URL's text."""
    scheme, _, rest = url.partition("://")
    if scheme.lower() not in CLUSTER_SCHEMES:
        raise ValueError(f"not a Redis Cluster URL (want redis+cluster://host:port[,host:port]): {scheme}://")
    try:
        parts = urlsplit(f"redis://{rest}")
    except ValueError as err:  # e.g. an unclosed "[" of an IPv6 address
        raise ValueError(f"a Redis Cluster URL that does not parse: {err}") from None
    if parts.path not in ("", "/", "/0"):
        raise ValueError("a Redis Cluster URL names no database other than 0")
    if parts.query or parts.fragment:
        raise ValueError("a Redis Cluster URL takes no query options (?...) or fragment (#...)")
    hosts = parts.netloc.rpartition("@")[2]
    if not hosts.strip():
        raise ValueError("a Redis Cluster URL names at least one node: redis+cluster://host:port[,host:port]")
    nodes = [_node(item, position) for position, item in enumerate(hosts.split(","), start=1)]
    return nodes, _options(parts.username, parts.password, scheme)


def _node(item: str, position: int) -> tuple[str, int]:
    """One `host:port` (or `host`, port 6379; `[v6 address]:port`) of a cluster URL's node list.
    Errors name the node's place in the list, not its text (a misplaced password would be in it)."""
    entry = item.strip()
    where = f"a Redis Cluster URL's node {position}"
    if not entry:
        raise ValueError(f"{where} is empty (',,' or a ',' at an end)")
    if entry.startswith("[") and "]" in entry:  # an IPv6 address holds colons of its own
        host, _, port = entry[1:].partition("]")
        if port and not port.startswith(":"):
            raise ValueError(f"{where}: an IPv6 address in brackets is followed by :port or nothing")
        port = port[1:]
    else:
        host, _, port = entry.partition(":")
        if ":" in port:
            raise ValueError(f"{where} holds more than one ':' (an IPv6 address goes in brackets)")
    if not host:
        raise ValueError(f"{where} needs a host")
    if not port:
        return host, 6379
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{where} needs a port from 1 to 65535")
    return host, int(port)


def _options(username: str | None, password: str | None, scheme: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if username:
        options["username"] = unquote(username)
    if password:
        options["password"] = unquote(password)
    if CLUSTER_SCHEMES[scheme.lower()]:
        options["ssl"] = True
    return options


class _ClusterPipeline(ClusterPipeline):
    """redis-py refuses EVALSHA in a cluster pipeline: a script's keys might span slots. Here every
    script is called with keys of one hash slot (a user's hash tag, users grouped by slot, or a
    namespace's bookkeeping), so the pipeline routes each call to the node that owns its keys."""

    def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:
        return self.execute_command("EVALSHA", sha, numkeys, *keys_and_args)


class _AsyncClusterPipeline(AsyncClusterPipeline):
    """The same command allowed in the asyncio cluster pipeline (the reader's context script)."""

    def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:
        return self.execute_command("EVALSHA", sha, numkeys, *keys_and_args)


class _Cluster(RedisCluster):
    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> _ClusterPipeline:
        pipe = super().pipeline(transaction=transaction, shard_hint=shard_hint)
        pipe.__class__ = _ClusterPipeline  # the same object, with EVALSHA allowed
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

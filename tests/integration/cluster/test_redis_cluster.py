"""The state layer on a real Redis Cluster (three masters on loopback, `LocalRedisCluster`): the URL
that selects the cluster client, users spread over every master with each user's keys in one slot,
the same digest as on one server for the same input, scripts reloaded on every master after a flush,
the asyncio reader, a namespace dropped from every master.

The engine suite and the scenario files run on a cluster too: test_engine_on_cluster.py.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
import redis
from redis.cluster import RedisCluster

from slotstream.local.redis_server import LocalRedis, LocalRedisCluster
from slotstream.memory.models import ContextRequest
from slotstream.state.client import cluster_nodes, connect, connect_async, is_cluster_url
from slotstream.state.digest import digest_namespace, users_of
from slotstream.state.engine import Engine
from slotstream.state.expiry_index import DueEntry, DueIndex
from slotstream.state.namespaces import drop_namespace
from slotstream.state.progress import Progress
from slotstream.state.reader import AsyncReader

from workloads import T0, apply_in_order, build

pytestmark = pytest.mark.integration

TAG = re.compile(rb"\{([^}]*)\}")


@pytest.fixture(scope="module")
def single() -> Iterator[redis.Redis]:
    """One plain server, for comparing with the cluster."""
    with LocalRedis(persist=False) as server:
        client = redis.Redis.from_url(server.url)
        yield client
        client.close()


@pytest.fixture
def ns(cluster_client: redis.Redis) -> Iterator[str]:
    name = f"c-{uuid.uuid4().hex[:8]}"
    yield name
    drop_namespace(cluster_client, name)


def keys_per_master(cluster: LocalRedisCluster, pattern: str) -> list[list[bytes]]:
    """The keys matching `pattern` each master holds, asked of the node itself."""
    out = []
    for node in cluster.nodes:
        client = redis.Redis(host="127.0.0.1", port=node.port)
        try:
            out.append(list(client.scan_iter(match=pattern, count=1000)))
        finally:
            client.close()
    return out


def test_the_url_selects_the_cluster_client(cluster: LocalRedisCluster, cluster_client: redis.Redis) -> None:
    assert is_cluster_url(cluster.url) and cluster.url.startswith("redis+cluster://127.0.0.1:")
    assert isinstance(cluster_client, RedisCluster)
    assert len(cluster_client.get_primaries()) == 3
    assert not is_cluster_url("redis://127.0.0.1:6379/0")
    nodes, options = cluster_nodes("rediss+cluster://app:s%40cret@10.0.0.1:7000,10.0.0.2:7001/0")
    assert nodes == [("10.0.0.1", 7000), ("10.0.0.2", 7001)]
    assert options == {"username": "app", "password": "s@cret", "ssl": True}
    with pytest.raises(ValueError, match="database"):
        cluster_nodes("redis+cluster://127.0.0.1:7000/3")
    # one reachable node is enough to find the others
    alone = connect(f"redis+cluster://127.0.0.1:{cluster.nodes[1].port}")
    try:
        assert len(alone.get_primaries()) == 3  # type: ignore[attr-defined]
    finally:
        alone.close()


def test_users_spread_over_every_master_and_keep_their_keys_in_one_slot(
    cluster: LocalRedisCluster, cluster_client: redis.Redis, ns: str
) -> None:
    work = build(turn_users=12, op_users=12)
    apply_in_order(cluster_client, work, ns)
    progress = Progress(cluster_client, ns)
    progress.claim({})
    progress.advance("t.ops", {0: 5, 1: 7}, watermark={0: 1000}, counts={"applied": 3})
    DueIndex(cluster_client, ns).update([(0, DueEntry(work.tenant, "writer0", "r1", "expire"), 5000)], [])

    users = {f"{work.tenant}:{item.user}" for item in work.items}
    tags_per_node = []
    for keys in keys_per_master(cluster, f"{ns}:*"):
        tags = set()
        for key in keys:
            found = TAG.search(key)
            assert found, f"{key!r} has no hash tag: it could land on any node, away from its neighbours"
            tags.add(found.group(1).decode())
        tags_per_node.append(tags)
    assert all(tags_per_node), f"a master holds none of the namespace: {[len(t) for t in tags_per_node]}"
    everything = set().union(*tags_per_node)
    # one tag per user and one for the namespace's bookkeeping; a tag never on two nodes
    assert everything == users | {ns}
    assert sum(len(t) for t in tags_per_node) == len(everything)


def test_the_cluster_digests_the_same_state_as_one_server(
    cluster_client: redis.Redis, single: redis.Redis, ns: str
) -> None:
    work = build(turn_users=16, op_users=16)
    apply_in_order(cluster_client, work, ns)
    apply_in_order(single, work, ns)
    on_cluster, on_single = digest_namespace(cluster_client, ns), digest_namespace(single, ns)
    assert on_cluster.users == 32 and on_cluster.records > 0
    assert (on_cluster.digest, on_cluster.users, on_cluster.records) == (
        on_single.digest,
        on_single.users,
        on_single.records,
    )
    # the users' metas are found on all three masters
    assert users_of(cluster_client, ns) == users_of(single, ns)
    drop_namespace(single, ns)


def test_scripts_come_back_on_every_master_after_a_flush(cluster_client: redis.Redis, ns: str) -> None:
    engine = Engine(cluster_client, ns)
    progress = Progress(cluster_client, ns)
    due = DueIndex(cluster_client, ns)
    work = build(turn_users=0, op_users=10)
    apply_in_order(cluster_client, work, ns)
    progress.claim({})
    progress.advance("t.ops", {0: 1})
    cluster_client.script_flush()  # on every master: the next pipelines meet NOSCRIPT on each node
    more = [
        {
            "at": T0 + timedelta(hours=1),
            "op_id": f"late-{u}",
            "record": {"tenant": work.tenant, "user": f"writer{u}", "attribute": "knowledge.city", "value": "Oslo"},
        }
        for u in range(10)
    ]
    results = engine.apply_many(more)
    assert [r.outcome.value for r in results] == ["applied"] * 10
    progress.advance("t.ops", {0: 2})
    entry = DueEntry(work.tenant, "writer1", "gone", "expire")
    due.update([(1, entry, 10)], [])
    due.update([], [(1, entry, 20)])  # the conditional removal is a script too
    assert due.page(1, 100, 0, 10) == []
    assert progress.offsets("t.ops") == {0: 2}


def test_the_async_reader_answers_like_the_engine(
    cluster: LocalRedisCluster, cluster_client: redis.Redis, ns: str
) -> None:
    work = build(turn_users=8, op_users=8)
    apply_in_order(cluster_client, work, ns)
    engine = Engine(cluster_client, ns)
    at = T0 + timedelta(hours=1)
    users = sorted({item.user for item in work.items})
    requests = [ContextRequest(tenant=work.tenant, user=user, text="how should you answer?") for user in users]

    async def read() -> list[str]:
        client = connect_async(cluster.url)
        try:
            reader = AsyncReader(client, ns)
            return [(await reader.context(req, at)).context for req in requests]
        finally:
            await client.aclose()

    cluster_client.script_flush()  # the reader meets NOSCRIPT on a master and loads its script on all
    answers = asyncio.run(read())
    assert answers == [engine.context(req, at).context for req in requests]
    assert sum(1 for text in answers if text) >= len(users) // 2


def test_a_small_users_next_lookups_are_one_transaction_in_its_slot(cluster_client: redis.Redis, ns: str) -> None:
    """The engine reads a user whose scopes were small at its last lookup whole in a transaction,
    without the script: on a cluster too (every key of the user is in its hash slot)."""
    work = build(turn_users=6, op_users=6)
    apply_in_order(cluster_client, work, ns)
    engine = Engine(cluster_client, ns)
    at = T0 + timedelta(hours=1)
    requests = [
        ContextRequest(tenant=work.tenant, user=user, text="how should you answer?")
        for user in sorted({item.user for item in work.items})
    ]
    first = [engine.context(req, at) for req in requests]
    script, scripts_after = engine._context, []
    engine._context = lambda *args: scripts_after.append(args) or script(*args)  # type: ignore[assignment]
    again = [engine.context(req, at) for req in requests]
    assert again == first and scripts_after == []
    assert engine.read_stats.whole_small == 2 * len(requests) and any(answer.context for answer in again)


def test_dropping_a_namespace_empties_every_master(cluster: LocalRedisCluster, cluster_client: redis.Redis) -> None:
    name = f"c-{uuid.uuid4().hex[:8]}"
    apply_in_order(cluster_client, build(turn_users=6, op_users=6), name)
    before = [len(keys) for keys in keys_per_master(cluster, f"{name}:*")]
    assert all(before)
    assert drop_namespace(cluster_client, name) == sum(before)
    assert keys_per_master(cluster, f"{name}:*") == [[], [], []]

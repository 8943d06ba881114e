"""Scripts on a hash slot caught mid-move, on a real Redis Cluster: the slot set MIGRATING and
IMPORTING by hand with CLUSTER SETSLOT and some of a user's keys moved with MIGRATE, as
`redis-cli --cluster reshard` does between its batches of keys.

The scripts declare a user's meta hash and reach the user's other keys by name, so while the keys
are split between two nodes a script would stop half-way keeping its earlier writes ("non local
key"), or, sent on to the importing node, read a key not moved yet as empty. The cluster guard
(state/lua.py) refuses the call before it touches anything; the writer and the reader send it
again once the slot has moved, and the state ends as a clean run's.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import redis
from redis.exceptions import ClusterError, TryAgainError

from slotstream.local.redis_server import LocalRedisCluster
from slotstream.memory.models import ContextRequest
from slotstream.sidecar.responses import refusal_of
from slotstream.state.client import connect_async
from slotstream.state.digest import digest_namespace
from slotstream.state.engine import Engine
from slotstream.state.keys import Keys
from slotstream.state.namespaces import drop_namespace
from slotstream.state.reader import AsyncReader

from workloads import T0, Workload, apply_in_order, build, reference_digest

pytestmark = pytest.mark.integration

LOOPBACK = "127.0.0.1"


@pytest.fixture
def ns(cluster_client: redis.Redis) -> Iterator[str]:
    name = f"m-{uuid.uuid4().hex[:8]}"
    yield name
    drop_namespace(cluster_client, name)


class SlotMove:
    """One hash slot moved by hand from the master that serves it to the next one."""

    def __init__(self, cluster: LocalRedisCluster, client: Any, slot: int) -> None:
        self.cluster, self.slot = cluster, slot
        self.ids = cluster.node_ids()
        self.nodes = [redis.Redis(host=LOOPBACK, port=node.port) for node in cluster.nodes]
        owner = client.nodes_manager.get_node_from_slot(slot)
        self.source = next(i for i, node in enumerate(cluster.nodes) if node.port == owner.port)
        self.target = (self.source + 1) % len(self.nodes)

    def begin(self) -> None:
        self.nodes[self.target].execute_command("CLUSTER", "SETSLOT", self.slot, "IMPORTING", self.ids[self.source])
        self.nodes[self.source].execute_command("CLUSTER", "SETSLOT", self.slot, "MIGRATING", self.ids[self.target])

    def migrate(self, keys: list[str]) -> None:
        port = self.cluster.nodes[self.target].port
        self.nodes[self.source].execute_command("MIGRATE", LOOPBACK, port, "", 0, 5000, "KEYS", *keys)

    def keys_at_source(self) -> list[str]:
        raw = self.nodes[self.source].execute_command("CLUSTER", "GETKEYSINSLOT", self.slot, 10_000)
        return [key.decode() for key in raw]

    def held(self) -> dict[str, bytes]:
        """Every key of the slot on both nodes, serialized (DUMP), with where it is."""
        out = {}
        for index in (self.source, self.target):
            node = self.nodes[index]
            keys = node.execute_command("CLUSTER", "GETKEYSINSLOT", self.slot, 10_000)
            pipe = node.pipeline(transaction=False)
            for key in keys:
                pipe.execute_command("ASKING")  # the importing node answers for the slot after it
                pipe.dump(key)
            dumps = pipe.execute()[1::2]
            out |= {f"{index}:{key.decode()}": dump for key, dump in zip(keys, dumps, strict=True)}
        return out

    def finish(self) -> None:
        """The rest of the keys moved, and every master told the slot's new owner."""
        rest = self.keys_at_source()
        if rest:
            self.migrate(rest)
        order = [self.target, self.source, *(i for i in range(len(self.nodes)) if i not in (self.source, self.target))]
        for index in order:
            self.nodes[index].execute_command("CLUSTER", "SETSLOT", self.slot, "NODE", self.ids[self.target])

    def close(self) -> None:
        for node in self.nodes:
            node.close()


class Background(threading.Thread):
    def __init__(self, work: Any) -> None:
        super().__init__(daemon=True)
        self.work, self.result, self.error = work, None, None

    def run(self) -> None:
        try:
            self.result = self.work()
        except BaseException as err:  # noqa: BLE001 - handed to the test, which fails on it
            self.error = err


def one_writer() -> Workload:
    """One user's ops: records, a correction of the current value, a repeat, a forget."""
    return build(turn_users=0, op_users=1)


# "records": a key other than the one the script declares moved first (the source would stop the
# script half-way); "meta": the declared key moved first (the call is redirected to the importing
# node, which would read the keys still on the source as empty)
@pytest.mark.parametrize("moved_first", ["records", "meta"])
def test_a_write_to_a_slot_mid_move_waits_and_applies_once(
    cluster: LocalRedisCluster, cluster_client: redis.Redis, ns: str, moved_first: str
) -> None:
    work = one_writer()
    before, after = Workload(work.tenant, work.items[:3]), Workload(work.tenant, work.items[3:])
    apply_in_order(cluster_client, before, ns)
    keys = Keys(ns)
    user = work.items[0].user
    key = keys.records(work.tenant, user) if moved_first == "records" else keys.meta(work.tenant, user)
    move = SlotMove(cluster, cluster_client, cluster_client.keyslot(key))
    try:
        move.begin()
        move.migrate([key])
        split = move.held()
        writer = Background(lambda: apply_in_order(cluster_client, after, ns))
        writer.start()
        writer.join(1.0)
        assert writer.error is None, repr(writer.error)
        assert writer.is_alive(), "the write went through while the user's keys were split between two nodes"
        assert move.held() == split, "a refused call changed something"
        move.finish()
        writer.join(60)
        assert not writer.is_alive() and writer.error is None, repr(writer.error)
    finally:
        move.close()
    got = digest_namespace(cluster_client, ns)
    want = reference_digest(cluster_client, work)
    assert (got.digest, got.users, got.records) == (want.digest, want.users, want.records)


@pytest.mark.parametrize("moved_first", ["records", "meta"])
def test_a_context_read_of_a_slot_mid_move_waits_and_answers_as_after(
    cluster: LocalRedisCluster, cluster_client: redis.Redis, ns: str, moved_first: str
) -> None:
    work = one_writer()
    apply_in_order(cluster_client, work, ns)
    keys = Keys(ns)
    user = work.items[0].user
    request = ContextRequest(tenant=work.tenant, user=user, text="which database do I use? how should you answer?")
    at = T0 + timedelta(hours=1)
    key = keys.records(work.tenant, user) if moved_first == "records" else keys.meta(work.tenant, user)

    async def read() -> Any:
        client = connect_async(cluster.url)
        try:
            return (await AsyncReader(client, ns).context(request, at)).context
        finally:
            await client.aclose()

    move = SlotMove(cluster, cluster_client, cluster_client.keyslot(key))
    try:
        move.begin()
        move.migrate([key])
        reader = Background(lambda: asyncio.run(read()))
        reader.start()
        reader.join(0.5)
        assert reader.error is None, repr(reader.error)
        assert reader.is_alive(), "the lookup answered while the user's keys were split between two nodes"
        move.finish()
        reader.join(30)
        assert not reader.is_alive() and reader.error is None, repr(reader.error)
    finally:
        move.close()
    expected = Engine(cluster_client, ns).context(request, at).context
    assert expected and reader.result == expected


def test_a_read_the_retries_did_not_settle_is_a_503_with_retry_after() -> None:
    """A hash slot still moving after the reader's retries, or the cluster client's own retries used
    up on it: `redis_unavailable`, to be sent again, never a 500."""
    for err in (TryAgainError("hash slot 1 is moving between nodes"), ClusterError("TTL exhausted.")):
        refusal = refusal_of(err)
        assert refusal is not None and (refusal.status, refusal.reason) == (503, "redis_unavailable")
        assert refusal.headers == {"Retry-After": "1"}

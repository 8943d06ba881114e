"""The pipeline on distributed servers: a 3-broker KRaft Kafka (`LocalKafkaCluster`: every topic
with 3 replicas, min.insync.replicas 2, producers with acks=all) and a 3-master Redis Cluster
(`LocalRedisCluster`), with real worker processes.

Each run ends with the state digest of a clean run of the same input (applied straight into the
engine, tests/workloads.py): a broker killed while turns flow, and workers going 1 -> 3 -> 1 with
the rebalances that brings while input flows, must both leave exactly the state a clean run leaves.
"""

from __future__ import annotations

import logging
import re
import struct
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from kafka import KafkaAdminClient
from kafka.admin import ConfigResource, ConfigResourceType
from kafka.errors import KafkaError

from slotstream.client import Client
from slotstream.local.kafka_broker import LocalKafkaCluster
from slotstream.local.redis_server import LocalRedisCluster, free_port
from slotstream.local.stack import LocalStack
from slotstream.sidecar.keys import create_key
from slotstream.streams.topics import OPS, TURNS

from support import start_stack, worker_logs
from workloads import PacedSender, build, clean_run, differences, pipeline_digest, send

# about two minutes: the long suite (docs/testing.md); the engine suite on the cluster stays in the default one
pytestmark = [pytest.mark.kafka, pytest.mark.integration, pytest.mark.long]


@pytest.fixture(scope="module")
def kafka_cluster() -> Iterator[LocalKafkaCluster]:
    with LocalKafkaCluster(3, num_partitions=4, startup_timeout=180) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def redis_cluster() -> Iterator[LocalRedisCluster]:
    with LocalRedisCluster(masters=3) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def make_stack(
    kafka_cluster: LocalKafkaCluster, redis_cluster: LocalRedisCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., LocalStack]]:
    started: list[LocalStack] = []

    def make(tag: str, workers: int = 1, partitions: int = 4, **overrides: Any) -> LocalStack:
        name = f"cl-{tag}-{uuid.uuid4().hex[:6]}"
        # a worker that is gone leaves the group after 6 s (the brokers' minimum session)
        stack = start_stack(
            redis_cluster.url,
            kafka_cluster.bootstrap,
            name,
            tmp_path_factory.mktemp(name),
            workers,
            batch_size=20,
            session_timeout=6.0,
            partitions=partitions,
            **overrides,
        )
        started.append(stack)
        return stack

    yield make
    for stack in started:
        stack.stop()


# --- what the brokers and the consumer group say ------------------------------------------------------


def describe_partitions(stack: LocalStack) -> list[dict[str, Any]]:
    admin = KafkaAdminClient(bootstrap_servers=stack.bootstrap, client_id="cluster-test")
    try:
        topics = admin.describe_topics(list(stack.settings.topics.values()))
    finally:
        admin.close()
    return [partition for topic in topics for partition in topic["partitions"]]


def fully_replicated(stack: LocalStack, brokers: int = 3) -> bool:
    """Every partition of the stack's topics has `brokers` replicas, all in sync."""
    parts = describe_partitions(stack)
    return bool(parts) and all(len(p["replica_nodes"]) == brokers and len(p["isr_nodes"]) == brokers for p in parts)


def busiest_leader(stack: LocalStack) -> int:
    """The broker leading the most partitions of the turns and ops topics."""
    inputs = {stack.settings.topics[TURNS], stack.settings.topics[OPS]}
    admin = KafkaAdminClient(bootstrap_servers=stack.bootstrap, client_id="cluster-test")
    try:
        topics = admin.describe_topics(sorted(inputs))
    finally:
        admin.close()
    led = Counter(p["leader_id"] for topic in topics for p in topic["partitions"])
    return min(led, key=lambda node: (-led[node], node))


def assigned(assignment: Any) -> list[tuple[str, int]]:
    """(topic, partition) pairs of a member's assignment: decoded by kafka-python (a dict, or an
    object), or the raw ConsumerProtocol bytes it leaves when Faust's user data trips its decoder:
    int16 version, [int16-length topic, [int32 partition]], then the user data."""
    if isinstance(assignment, bytes):
        pos, pairs = 2, []
        (topics,) = struct.unpack_from(">i", assignment, pos)
        pos += 4
        for _ in range(topics):
            (length,) = struct.unpack_from(">h", assignment, pos)
            topic = assignment[pos + 2 : pos + 2 + length].decode()
            pos += 2 + length
            (count,) = struct.unpack_from(">i", assignment, pos)
            parts = struct.unpack_from(f">{count}i", assignment, pos + 4)
            pos += 4 + 4 * count
            pairs += [(topic, p) for p in parts]
        return sorted(pairs)
    rows = assignment.get("assigned_partitions", []) if isinstance(assignment, dict) else []
    rows = rows or getattr(assignment, "assigned_partitions", None) or []
    out = []
    for row in rows:
        topic = row["topic"] if isinstance(row, dict) else row.topic
        parts = row["partitions"] if isinstance(row, dict) else row.partitions
        out += [(topic, p) for p in parts]
    return sorted(out)


def group_members(stack: LocalStack) -> dict[str, list[tuple[str, int]]] | None:
    """Each member's (topic, partition) assignment while the workers' group is Stable, else None."""
    admin = KafkaAdminClient(bootstrap_servers=stack.bootstrap, client_id="cluster-test")
    # kafka-python warns (with the whole group) on every member whose Faust metadata it cannot decode
    quiet = logging.getLogger("kafka.admin._groups")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        group = admin.describe_groups([stack.settings.group])[stack.settings.group]
    except KafkaError:  # no coordinator yet (the offsets topic is made on first use), or it moved
        return None
    finally:
        quiet.setLevel(level)
        admin.close()
    if group.get("group_state") != "Stable":
        return None
    return {member["member_id"]: assigned(member.get("member_assignment")) for member in group.get("members", [])}


def wait_until(check: Callable[[], Any], timeout: float, what: str, every: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(every)


def applied_ops(stack: LocalStack) -> int:
    return sum(stack.progress.offsets(stack.settings.topics[OPS]).values())


# --- a broker killed mid-stream -------------------------------------------------------------------------


def test_a_broker_killed_mid_stream_loses_nothing(
    make_stack: Callable[..., LocalStack], kafka_cluster: LocalKafkaCluster
) -> None:
    stack = make_stack("kill")
    assert wait_until(lambda: fully_replicated(stack), 30, "3 in-sync replicas of every partition")
    work = build(turn_users=40, op_users=40)
    first, flowing, after = work.waves(3)
    send(stack.producer, first)
    wait_until(lambda: applied_ops(stack) > 0, 90, "the worker to apply the first ops")

    victim = next(i for i, node in enumerate(kafka_cluster.nodes) if node.node_id == busiest_leader(stack))
    sender = PacedSender(stack, flowing, spread=6.0)
    sender.start()
    sender.wait_sent(len(flowing) // 3)
    kafka_cluster.halt(victim, kill=True)  # a crash, mid-stream
    killed_at = sender.sent
    sender.wait_sent(killed_at + 9)  # input goes on through the failover
    sender.finish()
    assert killed_at < len(flowing)
    send(stack.producer, after)  # while the broker is still down: two in-sync replicas take acks=all
    stack.barrier(timeout=180)
    assert pipeline_digest(stack) == clean_run(stack, work), differences(stack, work)

    kafka_cluster.resume(victim)
    assert wait_until(lambda: fully_replicated(stack), 90, "the restarted broker back in every ISR")
    assert all(w.poll() is None for w in stack.workers), worker_logs(stack)[-3000:]


# --- workers 1 -> 3 -> 1 --------------------------------------------------------------------------------


def test_workers_one_to_three_to_one_while_input_flows(make_stack: Callable[..., LocalStack]) -> None:
    # Faust assigns the turns and ops partitions of one number together, ceil(partitions / workers)
    # to a worker: with 6, three workers own 2 each (with 4, the third would own none)
    stack = make_stack("scale", workers=1, partitions=6)
    n_partitions = stack.settings.partitions
    work = build(turn_users=48, op_users=48)
    first, growing, shrinking, last = work.waves(4)
    send(stack.producer, first)
    wait_until(lambda: (m := group_members(stack)) and len(m) == 1, 60, "one worker in the group")

    sender = PacedSender(stack, growing, spread=10.0)
    sender.start()
    sender.wait_sent(6)
    added = [stack.add_worker(), stack.add_worker()]

    def three_owning() -> dict[str, list[tuple[str, int]]] | None:
        members = group_members(stack)
        return members if members and len(members) == 3 and all(members.values()) else None

    spread = wait_until(three_owning, 90, "3 workers, each owning partitions")
    assert sender.sent < sender.total, "the input stopped before the workers were added"
    owned = sorted(tp for parts in spread.values() for tp in parts)
    inputs = [stack.settings.topics[TURNS], stack.settings.topics[OPS]]
    assert owned == sorted((topic, p) for topic in inputs for p in range(n_partitions))
    sender.finish()

    sender = PacedSender(stack, shrinking, spread=10.0)
    sender.start()
    sender.wait_sent(6)
    for proc in added:
        stack.stop_worker(proc)  # SIGTERM: they leave the group, the rest is rebalanced at once

    def one_owning_all() -> dict[str, list[tuple[str, int]]] | None:
        members = group_members(stack)
        return members if members and len(members) == 1 and len(next(iter(members.values()))) == len(owned) else None

    wait_until(one_owning_all, 90, "the first worker owning every partition again")
    assert sender.sent < sender.total, "the input stopped before the workers were stopped"
    sender.finish()
    send(stack.producer, last)
    stack.barrier(timeout=180)
    assert pipeline_digest(stack) == clean_run(stack, work), differences(stack, work)
    assert len(stack.workers) == 1 and stack.workers[0].poll() is None, worker_logs(stack)[-3000:]


def test_topics_get_three_replicas_and_two_in_sync_for_a_write(make_stack: Callable[..., LocalStack]) -> None:
    """Created without a replication factor: the brokers' default (3 on this cluster), never 1; a
    write with acks=all needs two in-sync replicas."""
    stack = make_stack("topics", workers=0)
    parts = describe_partitions(stack)
    assert len(parts) == len(stack.settings.topics) * stack.settings.partitions
    assert {len(p["replica_nodes"]) for p in parts} == {3}
    names = list(stack.settings.topics.values())
    admin = KafkaAdminClient(bootstrap_servers=stack.bootstrap, client_id="cluster-test")
    try:
        wanted = [ConfigResource(ConfigResourceType.TOPIC, name, {"min.insync.replicas": None}) for name in names]
        configs = admin.describe_configs(wanted, config_filter="all").get("topic", {})
    finally:
        admin.close()
    assert {name: str(configs[name]["min.insync.replicas"]["value"]) for name in names} == dict.fromkeys(names, "2")


# --- the sidecar ---------------------------------------------------------------------------------------


def test_the_sidecar_serves_from_both_clusters(make_stack: Callable[..., LocalStack], tmp_path: Path) -> None:
    """Its asyncio reader on the Redis Cluster (redis.asyncio's cluster client), its producer on the
    three brokers: a turn sent through it is in the next context it serves."""
    keys_file = tmp_path / "keys.json"
    stack = make_stack("sidecar", keys_file=str(keys_file), sidecar_port=free_port(), sidecar_workers=1)
    stack.start_sidecar()
    _, key = create_key(keys_file, "acme", ["read", "write"])
    with Client(stack.sidecar_url, key) as client:
        sent = client.send_turns([{"user": "alice", "text": "Please keep your answers short."}], wait=30)
        assert sent.complete and sent.accepted[0].ops[0].outcome == "applied"
        assert "concise" in client.context("alice", "how should you answer me?").context
        assert client.ready()
        # the memory inspector: its sessions in the cluster, and the tenant's users found by a SCAN
        # of every master
        for n in range(12):
            client.send_turns([{"user": f"u{n}", "text": "I live in Lisbon."}])
    with httpx.Client(base_url=stack.sidecar_url, timeout=30) as browser:
        form = browser.get("/ui/sign-in").text
        token = re.search(r'name="csrf" value="([^"]+)"', form)
        assert token and browser.post("/ui/sign-in", data={"key": key, "csrf": token.group(1)}).status_code == 303
        deadline = time.monotonic() + 30
        while (listed := browser.get("/ui/users")).text.count('href="/ui/users/u') < 12:
            assert time.monotonic() < deadline, listed.text
            time.sleep(0.5)
        assert 'href="/ui/users/alice"' in listed.text
        assert "concise" in browser.get("/ui/users/alice").text

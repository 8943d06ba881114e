"""Replays on the real broker and Redis: a namespace rebuilt from the retained topics digests the
same however it was built (twice, other batch sizes, one or two processes, killed and resumed),
and as the live namespace it was built from."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis

from slotstream.config.settings import Settings
from slotstream.local.stack import LocalStack
from slotstream.ops.promote import promote
from slotstream.ops.replay import load_plan, replay
from slotstream.state.digest import digest_namespace, user_state
from slotstream.state.keys import Keys, deploy_pointer
from slotstream.state.namespaces import drop_namespace
from slotstream.state.progress import Progress
from slotstream.state.reader import AsyncReader
from slotstream.streams.log_reader import Bound
from slotstream.streams.topics import OPS

from support import start_stack, worker_logs
from workloads import Workload, apply_in_order, build, reference_digest, send

pytestmark = [pytest.mark.kafka, pytest.mark.integration]


@pytest.fixture(scope="module")
def live(
    kafka_bootstrap: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory, default_runtime: str
) -> Iterator[LocalStack]:
    """A live pipeline that processed a workload: its topics are what the replays read."""
    name = f"rp-{uuid.uuid4().hex[:6]}"
    stack = start_stack(
        redis_url, kafka_bootstrap, name, tmp_path_factory.mktemp("replay-logs"), workers=1, runtime=default_runtime
    )
    try:
        yield stack
    finally:
        drop_namespace(stack.client, stack.settings.namespace)
        stack.stop()


@pytest.fixture(scope="module")
def workload(live: LocalStack) -> Workload:
    work = build(turn_users=12, op_users=12)
    send(live.producer, work.items)
    live.barrier()
    return work


@pytest.fixture
def targets(redis_client: redis.Redis) -> Iterator[list[str]]:
    names = [f"rb-{uuid.uuid4().hex[:8]}" for _ in range(3)]
    yield names
    for name in names:
        drop_namespace(redis_client, name)


def settings_of(stack: LocalStack, **changes: object) -> Settings:
    return stack.settings.replace(**changes)


def quiet(_: str) -> None:
    return None


async def read_namespace(redis_url: str, base: str) -> str:
    """The namespace a sidecar's reader of `base` reads now."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        return await AsyncReader(client, base).namespace()
    finally:
        await client.aclose()


def test_replaying_the_logged_ops_gives_the_live_digest(
    live: LocalStack, workload: Workload, targets: list[str], redis_client: redis.Redis
) -> None:
    live_digest = digest_namespace(redis_client, live.settings.namespace)
    assert live_digest.digest == reference_digest(redis_client, workload).digest
    assert replay(settings_of(live), targets[0], "ops", show=quiet) == 0
    rebuilt = digest_namespace(redis_client, targets[0])
    assert (rebuilt.digest, rebuilt.users, rebuilt.records) == (
        live_digest.digest,
        live_digest.users,
        live_digest.records,
    )
    plan = load_plan(redis_client, targets[0])
    assert plan is not None and plan.finished is not None
    # every message of the range is behind the recorded positions
    held = Progress(redis_client, targets[0]).offsets(plan.topics[OPS])
    assert all(held.get(p, 0) >= end for p, (_, end) in plan.ranges[OPS].items() if end)


def test_re_extracting_the_turns_gives_the_live_digest_with_the_same_extractor(
    live: LocalStack, workload: Workload, targets: list[str], redis_client: redis.Redis
) -> None:
    assert replay(settings_of(live), targets[0], "turns", show=quiet) == 0
    assert (
        digest_namespace(redis_client, targets[0]).digest
        == digest_namespace(redis_client, live.settings.namespace).digest
    )


def test_same_digest_twice_with_other_batch_sizes_and_two_processes(
    live: LocalStack, workload: Workload, targets: list[str], redis_client: redis.Redis
) -> None:
    assert replay(settings_of(live, batch_size=500), targets[0], "turns", show=quiet) == 0
    assert replay(settings_of(live, batch_size=7), targets[1], "turns", show=quiet) == 0
    assert replay(settings_of(live, batch_size=3), targets[2], "turns", processes=2, show=quiet) == 0
    digests = {digest_namespace(redis_client, name).digest for name in targets}
    assert len(digests) == 1


def test_a_range_up_to_given_offsets_replays_only_what_precedes_them(
    live: LocalStack, workload: Workload, targets: list[str], redis_client: redis.Redis
) -> None:
    empty = Bound.parse(["ops:" + ",".join(f"{p}=0" for p in range(live.settings.partitions))])
    assert replay(settings_of(live), targets[0], "ops", end=empty, show=quiet) == 0
    assert digest_namespace(redis_client, targets[0]).records == 0
    after_all = Bound.parse("2199-01-01T00:00:00Z")
    assert replay(settings_of(live), targets[1], "ops", start=after_all, show=quiet) == 0
    assert digest_namespace(redis_client, targets[1]).records == 0


def test_the_live_namespace_is_never_a_target(live: LocalStack, workload: Workload) -> None:
    assert replay(settings_of(live), live.settings.namespace, "ops", show=quiet) == 2


def test_a_replay_killed_midway_resumes_and_ends_with_the_same_digest(
    live: LocalStack, workload: Workload, targets: list[str], redis_client: redis.Redis, tmp_path: Path
) -> None:
    assert replay(settings_of(live), targets[0], "turns", show=quiet) == 0
    env = {**os.environ, **live.settings.to_env(), "SLOTSTREAM_BATCH_SIZE": "2"}
    command = [sys.executable, "-P", "-m", "slotstream.cli", "replay", "--namespace", targets[1], "--re-extract"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            plan = load_plan(redis_client, targets[1])
            done = Progress(redis_client, targets[1]).offsets(plan.topics[OPS]) if plan else {}
            if sum(done.values()) >= 10:
                break
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    plan = load_plan(redis_client, targets[1])
    assert plan is not None and plan.finished is None  # it did not get to the end
    resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming the replay" in resumed.stdout
    assert digest_namespace(redis_client, targets[1]).digest == digest_namespace(redis_client, targets[0]).digest


@pytest.mark.parametrize("source", ["ops", "turns"])
def test_replay_under_live_traffic_then_promote_loses_nothing_and_doubles_nothing(
    kafka_bootstrap: str, redis_url: str, redis_client: redis.Redis, tmp_path: Path, source: str, runtime: str
) -> None:
    name = f"pr-{uuid.uuid4().hex[:6]}"
    target = f"{name}-v2"
    stack = start_stack(redis_url, kafka_bootstrap, name, tmp_path / "logs", workers=2, runtime=runtime)
    work = build(turn_users=10, op_users=10)
    waves = work.waves(12)
    try:
        send(stack.producer, waves[0])
        stack.barrier()
        sending = threading.Thread(target=lambda: [(send(stack.producer, w), time.sleep(0.3)) for w in waves[1:]])
        sending.start()
        assert replay(settings_of(stack), target, source, show=quiet) == 0
        assert asyncio.run(read_namespace(redis_url, name)) == name
        assert sending.is_alive()  # the switch happens under traffic
        promoted = promote(settings_of(stack), target, timeout=60)
        assert (promoted.old, promoted.new) == (name, target)
        print(promoted)
        assert asyncio.run(read_namespace(redis_url, name)) == target  # readers follow on their next request
        sending.join()
        stack.barrier()  # follows the promoted namespace: every turn and op reached it
        assert all(w.poll() is None for w in stack.workers)  # restarted in place, not exited
        assert worker_logs(stack).count("restarting the worker") >= 2
        rebuilt = digest_namespace(redis_client, target)
        assert rebuilt.digest == reference_digest(redis_client, work).digest
        counts = Progress(redis_client, target).counters()
        assert counts.get("ops_applied:duplicate", 0) == 0 or source == "turns"
        assert replay(settings_of(stack), target, "ops", show=quiet) == 2  # the serving namespace is no target
    finally:
        stack.stop()
        drop_namespace(redis_client, name)
        drop_namespace(redis_client, target)
        redis_client.delete(deploy_pointer(name))


def test_a_range_from_a_time_reads_what_the_broker_appended_since(
    kafka_bootstrap: str,
    redis_url: str,
    redis_client: redis.Redis,
    tmp_path: Path,
    targets: list[str],
    default_runtime: str,
) -> None:
    """Two workloads (other tenants) a second apart: a replay from the time between them rebuilds
    exactly the second one (the broker's append times, through offsets_for_times)."""
    name = f"tr-{uuid.uuid4().hex[:6]}"
    stack = start_stack(redis_url, kafka_bootstrap, name, tmp_path / "logs", workers=1, runtime=default_runtime)
    try:
        first, second = build(turn_users=4, op_users=4), build(turn_users=4, op_users=4)
        send(stack.producer, first.items)
        stack.barrier()
        time.sleep(1.0)
        between = datetime.now(UTC).isoformat()
        time.sleep(1.0)
        send(stack.producer, second.items)
        stack.barrier()
        assert replay(settings_of(stack), targets[0], "turns", start=Bound.parse(between), show=quiet) == 0
        apply_in_order(redis_client, second, targets[1])
        users = {item.user for item in second.items}
        for user in users:  # the second workload's users: exactly as a clean run of it
            rebuilt = user_state(redis_client, Keys(targets[0]), second.tenant, user)
            assert rebuilt == user_state(redis_client, Keys(targets[1]), second.tenant, user)
        # of the first workload, only its forgets came in first (suppressions, no record)
        assert digest_namespace(redis_client, targets[0]).per_tenant.get(first.tenant, {"records": 0})["records"] == 0
    finally:
        stack.stop()
        drop_namespace(redis_client, name)

"""The live processors' side of a promote, on a real Redis: a batch never starts while the
deployment is switching, a processor reports paused only between batches, and a switched pointer
tells it to restart."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import pytest
import redis

from slotstream.state.deployment import DeployGate, Pointer, read_pointer, write_pointer
from slotstream.state.errors import NamespaceMoved
from slotstream.state.keys import deploy_pointer, deploy_runners

pytestmark = pytest.mark.integration


@pytest.fixture
def base(redis_client: redis.Redis) -> Iterator[str]:
    name = f"dp-{uuid.uuid4().hex[:8]}"
    yield name
    redis_client.delete(deploy_pointer(name), *redis_client.scan_iter(match=deploy_runners(name)))


def states(client: redis.Redis, base: str) -> list[bytes]:
    return [v for k in client.scan_iter(match=deploy_runners(base)) if (v := client.get(k)) is not None]


def test_without_a_pointer_the_base_serves(redis_client: redis.Redis, base: str) -> None:
    assert read_pointer(redis_client, base) == Pointer(base)
    gate = DeployGate(redis_client, base, base, "reconciliation", threading.Event())
    assert gate.enter() is True
    assert states(redis_client, base) == [b"running"]


def test_a_batch_waits_while_switching_and_the_switch_moves_the_processor(redis_client: redis.Redis, base: str) -> None:
    gate = DeployGate(redis_client, base, base, "reconciliation", threading.Event())
    write_pointer(redis_client, base, Pointer(base, "switching", "s1"))
    outcome: list[object] = []

    def batch() -> None:
        try:
            outcome.append(gate.enter())
        except NamespaceMoved as moved:
            outcome.append(moved)

    waiting = threading.Thread(target=batch)
    waiting.start()
    time.sleep(0.2)
    assert outcome == [] and states(redis_client, base) == [b"paused:s1"]  # standing still, and saying so
    write_pointer(redis_client, base, Pointer(f"{base}-v2", "active", None, base))
    waiting.join(5)
    assert len(outcome) == 1 and isinstance(outcome[0], NamespaceMoved)


def test_a_processor_in_a_batch_is_not_reported_paused_until_it_leaves(redis_client: redis.Redis, base: str) -> None:
    gate = DeployGate(redis_client, base, base, "extraction", threading.Event())
    assert gate.enter()
    write_pointer(redis_client, base, Pointer(base, "switching", "s2"))
    gate.heartbeat()
    assert states(redis_client, base) == [b"running"]
    gate.leave()  # no Redis call on the per-batch path: the next heartbeat reports the pause
    assert states(redis_client, base) == [b"running"]
    gate.heartbeat()
    assert states(redis_client, base) == [b"paused:s2"]
    write_pointer(redis_client, base, Pointer(base, "active"))  # the promote gave up: carry on
    assert gate.enter()


def test_a_stopping_processor_leaves_the_pause(redis_client: redis.Redis, base: str) -> None:
    stop = threading.Event()
    gate = DeployGate(redis_client, base, base, "extraction", stop)
    write_pointer(redis_client, base, Pointer(base, "switching", "s3"))
    threading.Timer(0.1, stop.set).start()
    assert gate.enter() is False

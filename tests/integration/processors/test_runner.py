"""The batch runner and the recorded positions, on a real Redis: a failing message is isolated,
an outage is waited out, a position is recorded only for a batch that fully landed, and a Redis
that lost state or acknowledged writes is noticed before anything is written on top of it."""

from __future__ import annotations

import threading
from typing import Any

import aiokafka.errors
import orjson
import pytest
import redis

from slotstream.processors.messages import BatchOutput, RawMessage
from slotstream.processors.runner import BatchRunner, retry, waits_for
from slotstream.state.errors import StateRewound
from slotstream.state.progress import Progress
from slotstream.streams.errors import RestartWorker, Stopping, StopWorker

pytestmark = pytest.mark.integration
TOPIC = "x.ops"


def batch(n: int, partition: int = 0, start: int = 0) -> list[RawMessage]:
    return [RawMessage(TOPIC, partition, start + i, b"t/u", orjson.dumps({"n": start + i})) for i in range(n)]


class Handler:
    """Handles what it is given; raises for the messages named in `bad`, and a transient Redis error
    for the first `outages` calls."""

    def __init__(self, bad: set[int] = frozenset(), outages: int = 0) -> None:  # type: ignore[assignment]
        self.bad, self.outages = bad, outages
        self.calls = 0
        self.handled: list[int] = []

    def __call__(self, msgs: list[RawMessage]) -> BatchOutput:
        self.calls += 1
        if self.outages:
            self.outages -= 1
            raise redis.exceptions.ConnectionError("Error 111 connecting")
        if any(m.offset in self.bad for m in msgs):
            raise KeyError("a bug this message meets")
        out = BatchOutput()
        for m in msgs:
            self.handled.append(m.offset)
            out.changes.append((m.key, m.value or b""))
        return out


@pytest.fixture
def progress(redis_client: redis.Redis, namespace: str) -> Progress:
    p = Progress(redis_client, namespace)
    p.claim({})
    return p


def test_one_failing_message_is_dead_lettered_and_the_rest_handled(progress: Progress) -> None:
    handler = Handler(bad={3})
    runner = BatchRunner("reconciliation", handler, progress, TOPIC)
    out = runner.process(batch(6))
    assert sorted(set(handler.handled)) == [0, 1, 2, 4, 5]
    assert len(out.changes) == 5
    (letter,) = [orjson.loads(v) for _, v in out.dead]
    assert letter["reason"] == "internal_error" and letter["error"] == "KeyError"
    assert letter["source"]["offset"] == 3 and runner.internal_errors == 1


def test_an_outage_is_waited_out_and_nothing_is_dead_lettered(progress: Progress) -> None:
    handler = Handler(outages=3)
    runner = BatchRunner("reconciliation", handler, progress, TOPIC)
    out = runner.process(batch(4))
    assert handler.handled == [0, 1, 2, 3] and not out.dead and handler.calls == 4


def test_stopping_while_waiting_gives_up_without_recording(progress: Progress) -> None:
    stop = threading.Event()
    stop.set()
    runner = BatchRunner("reconciliation", Handler(outages=1), progress, TOPIC, stop)
    with pytest.raises(Stopping):
        runner.process(batch(2))
    assert progress.offsets(TOPIC) == {}


def test_positions_are_recorded_per_partition_and_never_move_back(progress: Progress) -> None:
    runner = BatchRunner("reconciliation", Handler(), progress, TOPIC)
    msgs = batch(3, partition=0) + batch(2, partition=1, start=7)
    runner.record(msgs, runner.process(msgs))
    assert progress.offsets(TOPIC) == {0: 3, 1: 9}
    other = BatchRunner("reconciliation", Handler(), progress, TOPIC)  # a worker re-reading old batches
    other.record(batch(1), BatchOutput())
    assert progress.offsets(TOPIC) == {0: 3, 1: 9}


def test_a_namespace_that_lost_its_state_is_noticed_before_a_write(
    progress: Progress, redis_client: redis.Redis, namespace: str
) -> None:
    handler = Handler()
    runner = BatchRunner("reconciliation", handler, progress, TOPIC)
    runner.record(batch(2), runner.process(batch(2)))
    for key in redis_client.scan_iter(match=f"{namespace}:*"):
        redis_client.delete(key)
    with pytest.raises(StopWorker) as stop:
        runner.process(batch(2, start=2))
    assert stop.value.exit_code == 3 and "--rebuild" in str(stop.value)
    assert handler.handled == [0, 1], "a batch was applied on top of lost state"
    with pytest.raises(StopWorker):
        runner.record(batch(2, start=2), BatchOutput())
    with pytest.raises(StopWorker):
        runner.check()


def test_a_redis_behind_what_it_acknowledged_is_noticed_before_a_write(
    progress: Progress, redis_client: redis.Redis
) -> None:
    handler = Handler()
    runner = BatchRunner("reconciliation", handler, progress, TOPIC)
    runner.record(batch(5), runner.process(batch(5)))
    redis_client.hset(progress.keys.progress(TOPIC), "0", 2)  # as if the last writes were lost
    assert runner.regressed() == {0: (5, 2)}
    with pytest.raises(RestartWorker):
        runner.process(batch(1, start=5))
    with pytest.raises(RestartWorker):
        runner.check()
    assert handler.handled == [0, 1, 2, 3, 4]
    with pytest.raises(StateRewound):
        progress.advance(TOPIC, {0: 6}, previous={0: 5})


@pytest.mark.parametrize(
    "err,dependency",
    [
        (redis.exceptions.ConnectionError("x"), "Redis"),
        (redis.exceptions.TimeoutError("x"), "Redis"),
        (redis.exceptions.BusyLoadingError("x"), "Redis"),
        (redis.exceptions.ResponseError("LOADING Redis is loading the dataset in memory"), "Redis"),
        (redis.exceptions.ResponseError("OOM command not allowed"), "Redis"),
        (redis.exceptions.ResponseError("ERR Error running script"), None),
        (redis.exceptions.ClusterDownError("The cluster is down"), "Redis"),
        (redis.exceptions.ClusterError("The cluster is down"), "Redis"),
        (redis.exceptions.TryAgainError("TRYAGAIN"), "Redis"),
        (redis.exceptions.AskError("42 127.0.0.1:7001"), "Redis"),
        (redis.exceptions.MovedError("42 127.0.0.1:7001"), "Redis"),
        (redis.exceptions.RedisClusterException("Slot 42 is not covered by the cluster"), "Redis"),
        (KeyError("x"), None),
        (ValueError("x"), None),
        (aiokafka.errors.KafkaConnectionError("x"), "Kafka"),
        (aiokafka.errors.NotLeaderForPartitionError(), "Kafka"),
        (aiokafka.errors.KafkaTimeoutError(), "Kafka"),
    ],
)
def test_what_counts_as_an_outage(err: BaseException, dependency: Any) -> None:
    assert waits_for(err) == dependency


def test_retry_passes_other_errors_through() -> None:
    with pytest.raises(KeyError):
        retry(lambda: {}["x"], threading.Event(), "test")

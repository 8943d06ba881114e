"""Fused apply on a real Redis: ops a worker just produced are applied at once only when they are
next in line on their ops partition, and the ops consumer skips what was applied, so the state is
always the one the ops topic gives applied in order (here: the same ops straight into the engine,
in offset order, in another namespace).

The offsets are those a broker would have acknowledged; the Kafka side (a worker producing,
crashing, rebalancing) is in tests/integration/pipeline/test_pipeline.py."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
import redis

from slotstream.memory.models import iso, to_ms
from slotstream.processors.messages import RawMessage
from slotstream.processors.reconciliation import ReconciliationService
from slotstream.processors.runner import BatchRunner
from slotstream.state.digest import digest_namespace
from slotstream.state.engine import Engine
from slotstream.state.expiry_index import DueIndex
from slotstream.state.progress import Progress
from slotstream.streams.errors import RestartWorker
from slotstream.streams.topics import user_key

pytestmark = pytest.mark.integration
TOPIC = "x.ops"
T0 = datetime(2026, 10, 1, 9, tzinfo=UTC)


def op(n: int, user: str, value: str, corrects: bool = True) -> dict[str, Any]:
    """The n-th op of a timeline: each one a new home city for the user, correcting the last, so
    applying two of them out of order leaves another current value."""
    record = {
        "tenant": "t",
        "user": user,
        "kind": "preference",
        "attribute": "profile.home_city",
        "value": value,
        "statement": f"I live in {value}",
        "authority": "user_explicit",
    }
    if corrects:
        record["corrects_current"] = True
    return {"at": iso(T0 + timedelta(minutes=n)), "op_id": f"op-{user}-{n}", "record": record}


def message(offset: int, body: dict[str, Any], partition: int = 0) -> RawMessage:
    key = user_key("t", body["record"]["user"])
    return RawMessage(TOPIC, partition, offset, key, orjson.dumps(body), (to_ms(T0) or 0) + 3_600_000)


class Pipeline:
    """A reconciliation runner as a worker wires it (skipping what was applied), and the log of
    one ops partition per user group: what the broker would hold."""

    def __init__(self, client: redis.Redis, namespace: str) -> None:
        self.engine = Engine(client, namespace)
        self.progress = Progress(client, namespace)
        self.progress.claim({})
        service = ReconciliationService(self.engine, DueIndex(client, namespace), None)
        self.runner = BatchRunner("reconciliation", service.handle, self.progress, TOPIC, skip_applied=True)
        self.runner.positions([0, 1])
        self.log: dict[int, list[RawMessage]] = {0: [], 1: []}

    def produce(self, *bodies: dict[str, Any], partition: int = 0) -> list[RawMessage]:
        out = []
        for body in bodies:
            msg = message(len(self.log[partition]), body, partition)
            self.log[partition].append(msg)
            out.append(msg)
        return out

    def fuse(self, produced: list[RawMessage]) -> list[int]:
        applied, out = self.runner.apply_produced(produced)
        if applied:  # as the runtime does: nothing applied, nothing to deliver or record
            self.runner.record_produced(applied, out)
        return [m.offset for m in applied]

    def consume(self, partition: int = 0) -> list[str]:
        """The ops consumer reads the partition from its recorded position... to the end, as one
        batch (what a re-read after a crash or a rebalance does too)."""
        batch = self.log[partition]
        out = self.runner.process(batch)
        self.runner.record(batch, out)
        return [orjson.loads(v)["outcome"] for _, v in out.changes]


def in_order(client: redis.Redis, namespace: str, *logs: list[RawMessage]) -> str:
    """The digest of the logged ops applied straight into the engine, partition by partition in
    offset order (users never share a partition across logs)."""
    engine = Engine(client, namespace)
    for log in logs:
        engine.apply_many([orjson.loads(m.value or b"") for m in log])
    return digest_namespace(client, namespace).digest


@pytest.fixture
def pipe(redis_client: redis.Redis, namespace: str) -> Pipeline:
    return Pipeline(redis_client, namespace)


def current_city(pipe: Pipeline, user: str = "ann") -> Any:
    (rec,) = [r for r in pipe.engine.records("t", user) if r.status == "active"]
    return rec.value


def test_ops_next_in_line_are_applied_at_once_and_their_position_recorded(pipe: Pipeline) -> None:
    produced = pipe.produce(op(0, "ann", "Oslo"), op(1, "ann", "Lima"), op(2, "ann", "Rome"))
    assert pipe.fuse(produced) == [0, 1, 2]
    assert pipe.progress.offsets(TOPIC) == {0: 3}
    assert current_city(pipe) == "Rome"
    # the ops consumer reads them back later: nothing is applied twice, nothing reported twice
    assert pipe.consume() == []
    assert pipe.progress.counters()["skipped_applied:reconciliation"] == 3
    assert pipe.progress.counters()["fused_apply:applied"] == 3
    assert "ops_applied:duplicate" not in pipe.progress.counters()


def test_ops_behind_an_unapplied_op_of_another_producer_are_left_to_the_ops_consumer(
    pipe: Pipeline, redis_client: redis.Redis, other_namespace: str
) -> None:
    (foreign,) = pipe.produce(op(0, "ann", "Oslo"))  # a sidecar's op, not applied yet
    produced = pipe.produce(op(1, "ann", "Lima"), op(2, "ann", "Rome"))
    assert pipe.fuse(produced) == [], "applied ahead of an earlier op of the partition"
    assert pipe.engine.records("t", "ann") == []
    assert pipe.progress.offsets(TOPIC).get(0, 0) == 0
    assert pipe.consume() == ["applied", "applied", "applied"]
    assert current_city(pipe) == "Rome"
    assert digest_namespace(redis_client, pipe.progress.ns).digest == in_order(
        redis_client, other_namespace, pipe.log[0]
    )
    assert foreign.offset == 0


def test_a_run_stops_at_the_first_op_it_does_not_own(
    pipe: Pipeline, redis_client: redis.Redis, other_namespace: str
) -> None:
    first = pipe.produce(op(0, "ann", "Oslo"), op(1, "ann", "Lima"))
    pipe.produce(op(2, "ann", "Rome"))  # another producer's, between this worker's ops
    last = pipe.produce(op(3, "ann", "Kyiv"))
    assert pipe.fuse([*first, *last]) == [0, 1]
    assert current_city(pipe) == "Lima" and pipe.progress.offsets(TOPIC) == {0: 2}
    assert pipe.consume() == ["applied", "applied"]  # Rome, then Kyiv: in the topic's order
    assert current_city(pipe) == "Kyiv"
    assert digest_namespace(redis_client, pipe.progress.ns).digest == in_order(
        redis_client, other_namespace, pipe.log[0]
    )


def test_partitions_are_judged_each_by_its_own_position(
    pipe: Pipeline, redis_client: redis.Redis, other_namespace: str
) -> None:
    pipe.produce(op(0, "bob", "Oslo"), partition=1)  # partition 1 has an unapplied op first
    on_0 = pipe.produce(op(0, "ann", "Oslo"), op(1, "ann", "Lima"))
    on_1 = pipe.produce(op(1, "bob", "Lima"), partition=1)
    applied, out = pipe.runner.apply_produced([on_1[0], on_0[1], on_0[0]])  # in any order
    assert [(m.partition, m.offset) for m in applied] == [(0, 0), (0, 1)]
    pipe.runner.record_produced(applied, out)
    assert pipe.progress.offsets(TOPIC) == {0: 2}
    assert pipe.consume(1) == ["applied", "applied"]
    assert pipe.consume(0) == []
    assert digest_namespace(redis_client, pipe.progress.ns).digest == in_order(
        redis_client, other_namespace, pipe.log[0], pipe.log[1]
    )


def test_ops_the_consumer_applied_already_are_not_applied_again(pipe: Pipeline) -> None:
    produced = pipe.produce(op(0, "ann", "Oslo"), op(1, "ann", "Lima"))
    assert pipe.consume() == ["applied", "applied"]  # the consumer was first
    assert pipe.fuse(produced) == []
    assert "ops_applied:duplicate" not in pipe.progress.counters()


def test_a_crash_between_produce_and_apply_leaves_the_ops_to_the_consumer_once(
    pipe: Pipeline, redis_client: redis.Redis, other_namespace: str
) -> None:
    """The worker produced a turn's ops and died before applying them (and before recording the
    turn). Its successor extracts the turn again: the same op ids at later offsets, not next in
    line. The consumer applies the first copies in order and finds the second ones duplicates."""
    pipe.produce(op(0, "ann", "Oslo"), op(1, "ann", "Lima"))  # ... crash
    again = pipe.produce(op(0, "ann", "Oslo"), op(1, "ann", "Lima"))
    assert pipe.fuse(again) == []
    assert pipe.consume() == ["applied", "applied", "duplicate", "duplicate"]
    assert current_city(pipe) == "Lima"
    assert [r.op_id for r in pipe.engine.records("t", "ann")] == ["op-ann-0", "op-ann-1"]
    assert digest_namespace(redis_client, pipe.progress.ns).digest == in_order(
        redis_client, other_namespace, pipe.log[0]
    )


def test_a_crash_between_apply_and_record_costs_a_duplicate_only(pipe: Pipeline) -> None:
    """Applied at once, then the worker died before recording the ops' position: the consumer
    reads them from the recorded position and the ledger finds them applied."""
    produced = pipe.produce(op(0, "ann", "Oslo"), op(1, "ann", "Lima"))
    applied, _ = pipe.runner.apply_produced(produced)  # ... crash before record_produced
    assert len(applied) == 2
    assert pipe.consume() == ["duplicate", "duplicate"]
    assert current_city(pipe) == "Lima"
    assert [r.op_id for r in pipe.engine.records("t", "ann")] == ["op-ann-0", "op-ann-1"]


def test_a_redis_behind_what_was_recorded_restarts_the_worker_before_a_fused_write(
    pipe: Pipeline, redis_client: redis.Redis
) -> None:
    assert pipe.fuse(pipe.produce(op(0, "ann", "Oslo"), op(1, "ann", "Lima"))) == [0, 1]
    redis_client.hset(pipe.progress.keys.progress(TOPIC), "0", 1)  # as if the last write was lost
    with pytest.raises(RestartWorker):
        pipe.runner.apply_produced(pipe.produce(op(2, "ann", "Rome")))
    assert current_city(pipe) == "Lima"


def test_a_fused_apply_never_waits_at_the_promote_gate(redis_client: redis.Redis, namespace: str) -> None:
    """A promote pauses reconciliation at its gate and waits for the extraction batch in flight,
    which is the one doing the fused apply: that apply must not wait at reconciliation's gate."""
    from slotstream.state.deployment import DeployGate, Pointer, write_pointer

    pipe = Pipeline(redis_client, namespace)
    stop = threading.Event()
    gate = DeployGate(redis_client, namespace, namespace, "reconciliation", stop)
    pipe.runner.gate = gate
    write_pointer(redis_client, namespace, Pointer(namespace, "switching", "s1"))
    try:
        assert pipe.fuse(pipe.produce(op(0, "ann", "Oslo"))) == [0]
    finally:
        stop.set()
        redis_client.delete(gate.key)

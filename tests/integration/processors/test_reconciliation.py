"""ReconciliationService on a real Redis: a batch of ops-topic messages in, the state, the change
messages, the dead letters, the event-time watermark and the expiry index out."""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
import redis

from slotstream.memory.models import iso, to_ms
from slotstream.processors.messages import RawMessage
from slotstream.processors.reconciliation import ReconciliationService
from slotstream.state.engine import Engine
from slotstream.state.expiry_index import DueEntry, DueIndex
from slotstream.state.keys import Keys

pytestmark = pytest.mark.integration
T0 = datetime(2026, 10, 1, 9, tzinfo=UTC)


def message(offset: int, body: dict[str, Any], key: bytes = b"t/u", partition: int = 1) -> RawMessage:
    return RawMessage("x.ops", partition, offset, key, orjson.dumps(body), to_ms(T0 + timedelta(hours=1)))


def record(at: datetime, attribute: str, value: str, **extra: Any) -> dict[str, Any]:
    return {
        "at": iso(at),
        "record": {"tenant": "t", "user": "u", "kind": "knowledge", "attribute": attribute, "value": value, **extra},
    }


@pytest.fixture
def service(redis_client: redis.Redis, namespace: str) -> ReconciliationService:
    return ReconciliationService(Engine(redis_client, namespace), DueIndex(redis_client, namespace), 300.0)


def test_a_batch_applies_its_ops_and_reports_each_one(service: ReconciliationService) -> None:
    out = service.handle(
        [
            message(0, record(T0, "knowledge.db", "postgres")),
            message(1, {"at": iso(T0), "record": {"tenant": "t", "user": "u"}}),  # no attribute
            message(2, record(T0 + timedelta(minutes=1), "knowledge.db", "postgres")),  # a repeat
            message(3, record(T0, "knowledge.db", "mysql"), key=b"other/u"),  # key names another tenant
        ]
    )
    changes = [orjson.loads(v) for _, v in out.changes]
    assert [(c["op_id"], c["outcome"]) for c in changes] == [
        ("x.ops:1:0", "applied"),
        ("x.ops:1:1", "rejected"),
        ("x.ops:1:2", "refreshed"),
    ]
    dead = [orjson.loads(v) for _, v in out.dead]
    assert sorted((d["source"]["offset"], d["reason"]) for d in dead) == [(1, "missing_field"), (3, "tenant_mismatch")]
    (rec,) = service.engine.records("t", "u")
    assert rec.value == "postgres" and len(rec.evidence) == 0
    assert out.watermark == {1: to_ms(T0 + timedelta(minutes=1))}, "refused ops do not move the clock"


def test_the_expiry_index_follows_the_records_it_lists(
    service: ReconciliationService, redis_client: redis.Redis, namespace: str
) -> None:
    until = T0 + timedelta(hours=2)
    service.handle([message(0, record(T0, "knowledge.trip", "Rome", valid_until=iso(until)))])
    (rec,) = service.engine.records("t", "u")
    due_key = Keys(namespace).due(1)
    member = DueEntry("t", "u", rec.id, "expire").member
    assert redis_client.zscore(due_key, member) == to_ms(until)
    # forgotten: no longer due
    service.handle(
        [
            message(
                1,
                {
                    "at": iso(T0 + timedelta(minutes=5)),
                    "command": {"op": "forget", "tenant": "t", "user": "u", "record_id": rec.id},
                },
            )
        ]
    )
    assert redis_client.zscore(due_key, member) is None


def test_a_sweep_op_that_changed_nothing_clears_its_index_entry(
    service: ReconciliationService, redis_client: redis.Redis, namespace: str
) -> None:
    due_key = Keys(namespace).due(1)
    stale = DueEntry("t", "u", "r_gone", "expire")
    redis_client.zadd(due_key, {stale.member: to_ms(T0)})
    sweep = {
        "at": iso(T0),
        "op_id": f"expire:r_gone:{to_ms(T0)}",
        "command": {"op": "expire", "tenant": "t", "user": "u", "record_id": "r_gone"},
    }
    out = service.handle([message(0, sweep)])
    assert [orjson.loads(v)["outcome"] for _, v in out.changes] == ["noop"]
    assert redis_client.zscore(due_key, stale.member) is None


def test_an_op_dated_ahead_of_its_ingest_time_is_refused(service: ReconciliationService) -> None:
    out = service.handle([message(0, record(T0 + timedelta(days=3), "knowledge.db", "postgres"))])
    assert [orjson.loads(v)["reason"] for _, v in out.dead] == ["event_time_in_future"]
    assert not service.engine.records("t", "u") and not out.watermark


def test_a_batch_retried_after_its_index_write_failed_still_indexes_its_records(
    redis_client: redis.Redis, namespace: str, other_namespace: str
) -> None:
    """The runner retries a batch whose handler raised; by then every op is in the ledger, so the
    retry's ops are duplicates, and their entries come from the records the first apply wrote."""
    # the index's first write goes to a server that is not there (a real refused connection): the
    # ops are applied, their index entries are not; the retry finds the server again
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        gone = probe.getsockname()[1]
    unreachable = DueIndex(redis.Redis(port=gone, socket_connect_timeout=1, retry_on_error=[]), namespace)
    service = ReconciliationService(Engine(redis_client, namespace), unreachable, 300.0)
    until, review = T0 + timedelta(hours=2), T0 + timedelta(days=3)
    batch = [
        message(0, record(T0, "knowledge.trip", "Rome", valid_until=iso(until))),
        message(1, record(T0, "knowledge.stack", "postgres", review_at=iso(review))),
    ]
    with pytest.raises(redis.ConnectionError):
        service.handle(batch)
    due_key = Keys(namespace).due(1)
    assert redis_client.zcard(due_key) == 0 and len(service.engine.records("t", "u")) == 2
    service.due_index = DueIndex(redis_client, namespace)
    out = service.handle(batch)
    assert [orjson.loads(v)["outcome"] for _, v in out.changes] == ["duplicate", "duplicate"]
    indexed = redis_client.zrange(due_key, 0, -1, withscores=True)
    trip = next(r for r in service.engine.records("t", "u") if r.attribute == "knowledge.trip")
    stack = next(r for r in service.engine.records("t", "u") if r.attribute == "knowledge.stack")
    assert (DueEntry("t", "u", trip.id, "expire").member.encode(), to_ms(until)) in indexed
    assert (DueEntry("t", "u", stack.id, "review_due").member.encode(), to_ms(review)) in indexed
    clean = other_namespace  # the same batch where nothing failed
    ReconciliationService(Engine(redis_client, clean), DueIndex(redis_client, clean), 300.0).handle(batch)
    assert indexed == redis_client.zrange(Keys(clean).due(1), 0, -1, withscores=True)


def test_a_duplicate_takes_its_records_entries_as_they_are_now(
    service: ReconciliationService, redis_client: redis.Redis, namespace: str
) -> None:
    """A redelivery after later ops changed the record must not bring back an entry they removed."""
    until = T0 + timedelta(hours=2)
    first = message(0, record(T0, "knowledge.trip", "Rome", valid_until=iso(until)))
    service.handle([first])
    (rec,) = service.engine.records("t", "u")
    forget = {
        "at": iso(T0 + timedelta(minutes=5)),
        "command": {"op": "forget", "tenant": "t", "user": "u", "record_id": rec.id},
    }
    service.handle([message(1, forget)])
    out = service.handle([first, message(1, forget)])  # both again, as after a crash
    assert [orjson.loads(v)["outcome"] for _, v in out.changes] == ["duplicate", "duplicate"]
    assert redis_client.zcard(Keys(namespace).due(1)) == 0

"""What keeps a user's state from growing without bound, on a real Redis: the op ledger's window,
the read index kept only for scopes large enough to need it, the lineage hash."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
import redis

from slotstream.memory.errors import Reason
from slotstream.memory.models import Outcome
from slotstream.state.codec import decode_row, lineage_ids
from slotstream.state.engine import Engine
from slotstream.state.read_index import index_entry

from support import dump_namespace

pytestmark = pytest.mark.integration

T0 = datetime(2026, 2, 1, 12, tzinfo=UTC)
DAY = 86_400.0


def note(i: int, at: datetime, value: str | None = None, user: str = "u1") -> dict[str, Any]:
    return {
        "at": at.isoformat(),
        "op_id": f"{user}-op{i}",
        "record": {
            "tenant": "t1",
            "user": user,
            "kind": "knowledge",
            "attribute": f"knowledge.item_{i}",
            "value": value or f"budget note {i}",
        },
    }


def test_the_ledger_forgets_ops_past_its_window_and_refuses_them_if_they_come_again(
    redis_client: redis.Redis, namespace: str
) -> None:
    engine = Engine(redis_client, namespace, ledger_window_s=DAY)
    keys = engine.keys
    assert engine.apply(note(0, T0)).outcome == Outcome.APPLIED
    assert engine.apply(note(1, T0 + timedelta(hours=6))).outcome == Outcome.APPLIED
    # two days on: the user's event time is past the window of both ops
    assert engine.apply(note(2, T0 + timedelta(days=2))).outcome == Outcome.APPLIED
    assert set(redis_client.hkeys(keys.ledger("t1", "u1"))) == {b"u1-op2"}
    floor = int(redis_client.hget(keys.meta("t1", "u1"), "lfloor"))
    assert floor == int((T0 + timedelta(hours=6)).timestamp() * 1000)

    # the first op again (a producer sending it twice, days apart): the ledger cannot tell it was
    # applied, so it is refused, and nothing is written, not even its refusal
    before = dump_namespace(redis_client, namespace)
    again = engine.apply(note(0, T0))
    assert (again.outcome, again.reason) == (Outcome.REJECTED, Reason.BEYOND_LEDGER_WINDOW.value)
    assert dump_namespace(redis_client, namespace) == before
    # a fresh engine (a worker restarted) loads the floor with the user and refuses it as well
    assert Engine(redis_client, namespace, ledger_window_s=DAY).apply(note(1, T0 + timedelta(hours=6))).reason == (
        Reason.BEYOND_LEDGER_WINDOW.value
    )
    # an op the ledger still holds is a duplicate; a new op after the floor applies, late or not
    assert engine.apply(note(2, T0 + timedelta(days=2))).outcome == Outcome.DUPLICATE
    assert engine.apply(note(3, T0 + timedelta(hours=7))).outcome == Outcome.APPLIED


def test_with_no_window_the_ledger_keeps_every_op(redis_client: redis.Redis, namespace: str) -> None:
    engine = Engine(redis_client, namespace, ledger_window_s=0)
    for i in range(3):
        engine.apply(note(i, T0 + timedelta(days=30 * i)))
    assert redis_client.hlen(engine.keys.ledger("t1", "u1")) == 3
    assert engine.apply(note(0, T0)).outcome == Outcome.DUPLICATE


def test_a_scope_gets_its_read_index_once_it_holds_more_rows_than_the_threshold(
    redis_client: redis.Redis, namespace: str
) -> None:
    writer = Engine(redis_client, namespace, index_above=3)
    keys = writer.keys
    ixs = keys.read_index("t1", "u1", "global", "ixs")
    writer.apply_many([note(i, T0 + timedelta(seconds=i)) for i in range(3)])
    assert not redis_client.exists(ixs)
    assert not list(redis_client.scan_iter(match=f"{namespace}:*:ix*"))
    writer.apply(note(3, T0 + timedelta(seconds=3)))  # the fourth row: the scope is indexed, every row
    assert redis_client.zcard(ixs) == redis_client.hlen(keys.active("t1", "u1", "global")) == 4
    writer.apply(note(4, T0 + timedelta(seconds=4)))  # and kept up by each write from then on
    assert redis_client.zcard(ixs) == 5

    request = {"tenant": "t1", "user": "u1", "text": "budget note 2", "max_items": 2}
    when = T0 + timedelta(days=1)
    indexed, whole = Engine(redis_client, namespace, read_whole_up_to=0), Engine(redis_client, namespace)
    assert indexed.context(request, when).items == whole.context(request, when).items
    assert indexed.read_stats.indexed == 1


def test_an_index_built_from_rows_read_before_a_write_is_not_written(redis_client: redis.Redis, namespace: str) -> None:
    engine = Engine(redis_client, namespace, index_above=100)
    keys = engine.keys
    engine.apply_many([note(i, T0 + timedelta(seconds=i)) for i in range(3)])
    stale = int(redis_client.hget(keys.meta("t1", "u1"), "version"))
    rows = redis_client.hgetall(keys.active("t1", "u1", "global"))
    engine.apply(note(3, T0 + timedelta(seconds=3)))  # lands between the read and the build
    args: list[Any] = ["build", keys.prefix("t1", "u1"), stale, "global"]
    for rid, row in rows.items():
        args += (rid, orjson.dumps(index_entry(decode_row(row))))
    assert engine._apply(keys=[keys.meta("t1", "u1")], args=args) == 0
    assert not redis_client.exists(keys.read_index("t1", "u1", "global", "ixs"))


def test_a_lineage_list_of_an_earlier_version_is_read_and_moved_into_the_hash_at_the_next_write(
    redis_client: redis.Redis, namespace: str
) -> None:
    engine = Engine(redis_client, namespace)
    keys = engine.keys
    first = engine.apply(note(0, T0, "budget is 40k"))
    slot = "user|knowledge.item_0|global"
    # as an earlier version kept it: a list of its own
    redis_client.hdel(keys.lineage("t1", "u1"), slot)
    redis_client.rpush(keys.history("t1", "u1", slot), *first.record_ids)
    assert [r.id for r in Engine(redis_client, namespace).history("t1", "u1", "knowledge.item_0")] == first.record_ids

    fix = {"op": "correct", "tenant": "t1", "user": "u1", "record_id": first.record_ids[0], "value": "budget is 50k"}
    corrected = Engine(redis_client, namespace).apply({"at": (T0 + timedelta(hours=1)).isoformat(), "command": fix})
    assert corrected.outcome == Outcome.APPLIED
    assert not redis_client.exists(keys.history("t1", "u1", slot))
    # the field holds the ids before the live one, which ends the lineage
    assert redis_client.hget(keys.lineage("t1", "u1"), slot) == first.record_ids[0].encode()
    live = redis_client.hget(keys.slots("t1", "u1"), slot)
    assert lineage_ids(redis_client.hget(keys.lineage("t1", "u1"), slot), [], live) == [
        first.record_ids[0],
        *corrected.record_ids[:1],
    ]
    history = engine.history("t1", "u1", "knowledge.item_0")
    assert [r.value for r in history] == ["budget is 40k", "budget is 50k"]

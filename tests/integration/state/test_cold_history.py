"""A user's retired versions move into the cold history (state/codec.py; Engine.settle): the
records leave <prefix>:rec, and every read, history walk and op finds them there."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from slotstream.memory.models import Outcome, Status
from slotstream.state.codec import decode_triples
from slotstream.state.engine import Engine
from slotstream.state.keys import Keys

pytestmark = pytest.mark.integration

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
DRINK = "preference.drink"


def at(hours: int) -> str:
    return (T0 + timedelta(hours=hours)).isoformat()


def command(hours: int, op_id: str, **body: Any) -> dict[str, Any]:
    return {"at": at(hours), "op_id": op_id, "command": {"tenant": "t1", "user": "u1", **body}}


def cold_ids(client: redis.Redis, keys: Keys) -> set[str]:
    return set((client.hget(keys.cold("t1", "u1"), "ids") or b"").decode().split())


def cold_bytes(client: redis.Redis, keys: Keys) -> bytes:
    data = client.hget(keys.cold("t1", "u1"), "data")
    return zlib.decompress(data) if data else b""


def write_and_correct(engine: Engine, records: int, corrected: int) -> None:
    """`records` preferences of one user, then a correction of the first `corrected` of them."""
    body = {"tenant": "t1", "user": "u1", "kind": "preference"}
    ops = [
        {"at": at(0), "op_id": f"o{i}", "record": {**body, "attribute": f"preference.topic_{i}", "value": f"value {i}"}}
        for i in range(records)
    ]
    written = engine.apply_many(ops)
    fixes = [
        command(1, f"c{i}", op="correct", record_id=r.record_ids[0], value=f"new {i}")
        for i, r in enumerate(written[:corrected])
    ]
    engine.apply_many(fixes)


def test_older_versions_go_cold_and_every_read_and_op_still_finds_them(
    redis_client: redis.Redis, namespace: str
) -> None:
    engine = Engine(redis_client, namespace, history_hot=0, settle_after=1)
    keys, rec = engine.keys, engine.keys.records("t1", "u1")
    record = {"tenant": "t1", "user": "u1", "kind": "preference", "attribute": DRINK, "value": "green tea"}
    first = engine.apply({"at": at(0), "op_id": "o1", "record": {**record, "statement": "I drink green tea."}})
    tea = first.record_ids[0]
    coffee = engine.apply(command(1, "o2", op="correct", record_id=tea, value="black coffee")).record_ids[0]
    cocoa = engine.apply(command(2, "o3", op="correct", record_id=coffee, value="hot cocoa")).record_ids[0]

    # the two older versions left the records hash: the cold history holds them, compressed
    assert not redis_client.hexists(rec, tea) and not redis_client.hexists(rec, coffee)
    assert cold_ids(redis_client, keys) == {tea, coffee}
    assert b"green tea" in cold_bytes(redis_client, keys)
    assert [r.value for r in engine.history("t1", "u1", DRINK)] == ["green tea", "black coffee", "hot cocoa"]
    assert engine.record("t1", "u1", tea).status == Status.SUPERSEDED
    assert {r.id for r in engine.records("t1", "u1")} == {tea, coffee, cocoa}

    # a move takes the slot with its history to another scope: the cold versions are written again,
    # then settled back into the cold history in their new scope
    moved = engine.apply(command(3, "o4", op="move", attribute=DRINK, from_scope="global", to_scope="project:p1"))
    assert moved.outcome == Outcome.APPLIED
    assert engine.history("t1", "u1", DRINK) == []
    history = engine.history("t1", "u1", DRINK, scope="project:p1")
    assert [(r.value, r.scope) for r in history] == [
        (v, "project:p1") for v in ("green tea", "black coffee", "hot cocoa")
    ]
    assert cold_ids(redis_client, keys) == {tea, coffee} and not redis_client.hexists(rec, tea)
    assert engine.record("t1", "u1", tea).scope == "project:p1"
    request = {"tenant": "t1", "user": "u1", "text": "what do I drink", "project": "p1"}
    assert [item.value for item in engine.context(request, at=T0 + timedelta(hours=4)).items] == ["hot cocoa"]

    # forgetting the first value: gone from every read, and from the cold history's bytes too
    gone = engine.apply(command(5, "o5", op="forget", match={"attribute": DRINK, "value": "green tea"}))
    assert gone.outcome == Outcome.APPLIED
    assert engine.record("t1", "u1", tea).status == Status.DELETED
    assert b"green tea" not in cold_bytes(redis_client, keys)
    assert b"green tea" not in b"".join(redis_client.hvals(rec))

    # an erase takes the cold history with the rest
    engine.apply(command(6, "o6", op="erase_user"))
    assert not redis_client.exists(keys.cold("t1", "u1"))
    assert engine.records("t1", "u1") == []


def test_a_user_is_settled_once_enough_records_were_retired_and_the_newest_stay_whole(
    redis_client: redis.Redis, namespace: str
) -> None:
    engine = Engine(redis_client, namespace, history_hot=1, settle_after=3)
    keys = engine.keys
    record = {"tenant": "t1", "user": "u1", "kind": "preference", "attribute": DRINK, "value": "v0"}
    rid = engine.apply({"at": at(0), "op_id": "o0", "record": record}).record_ids[0]
    ids = [rid]
    for n in range(1, 4):
        ids.append(engine.apply(command(n, f"c{n}", op="correct", record_id=ids[-1], value=f"v{n}")).record_ids[0])
        if n < 3:  # fewer retired than settle_after: nothing moved yet
            assert not redis_client.exists(keys.cold("t1", "u1"))
    # three retired, the newest of them kept whole (history_hot=1): the two older went cold
    assert cold_ids(redis_client, keys) == set(ids[:2])
    assert redis_client.hexists(keys.records("t1", "u1"), ids[2])
    assert [r.value for r in engine.history("t1", "u1", DRINK)] == ["v0", "v1", "v2", "v3"]


def test_a_forgotten_value_leaves_the_cold_history_at_once_whatever_the_count(
    redis_client: redis.Redis, namespace: str
) -> None:
    engine = Engine(redis_client, namespace, history_hot=0, settle_after=2)
    keys = engine.keys
    record = {"tenant": "t1", "user": "u1", "kind": "preference", "attribute": DRINK, "value": "secret blend"}
    first = engine.apply({"at": at(0), "op_id": "o0", "record": record}).record_ids[0]
    second = engine.apply(command(1, "c1", op="correct", record_id=first, value="oolong")).record_ids[0]
    engine.apply(command(2, "c2", op="correct", record_id=second, value="rooibos"))
    assert cold_ids(redis_client, keys) == {first, second}
    # one record retired by the forget, fewer than settle_after: the stale cold bytes settle it
    engine.apply(command(3, "f", op="forget", record_id=first))
    assert engine.record("t1", "u1", first).status == Status.DELETED
    assert b"secret blend" not in cold_bytes(redis_client, keys)
    assert not redis_client.hexists(keys.meta("t1", "u1"), "cstale")


@pytest.mark.parametrize("listpack_value", [1024, 64])  # the user's records in a listpack, or a hashtable
def test_a_scan_pages_through_the_records_then_the_cold_history_a_page_at_most_its_count(
    redis_client: redis.Redis, namespace: str, listpack_value: int
) -> None:
    held = redis_client.config_get("hash-max-listpack-value")["hash-max-listpack-value"]
    redis_client.config_set("hash-max-listpack-value", listpack_value)
    try:
        engine = Engine(redis_client, namespace, history_hot=0, settle_after=1)
        write_and_correct(engine, records=30, corrected=12)
        assert len(cold_ids(redis_client, engine.keys)) == 12
        expected = {r.id: r for r in engine.records("t1", "u1")}
        assert len(expected) == 42
        seen: list[str] = []
        cursor, pages = 0, 0
        while True:
            reply = engine._records_call("t1", "u1", ["scan", cursor, 5])
            page = decode_triples(reply[1:], "t1", "u1")
            assert len(page) <= 5
            assert all(expected[rid] == rec for rid, rec in page.items())
            seen += page
            pages += 1
            cursor = int(reply[0])
            if cursor == 0:
                break
        assert sorted(seen) == sorted(expected) and pages >= 42 // 5
    finally:
        redis_client.config_set("hash-max-listpack-value", held)


def test_a_scan_of_a_user_with_more_records_than_it_orders_goes_through_hscan_then_the_cold_history(
    redis_client: redis.Redis, namespace: str
) -> None:
    engine = Engine(redis_client, namespace, history_hot=0, settle_after=1)
    write_and_correct(engine, records=520, corrected=20)
    expected = {r.id for r in engine.records("t1", "u1")}
    assert len(expected) == 540 and len(cold_ids(redis_client, engine.keys)) == 20
    seen: set[str] = set()
    cursor, parts = 0, set()
    while True:
        reply = engine._records_call("t1", "u1", ["scan", cursor, 100])
        seen |= set(decode_triples(reply[1:], "t1", "u1"))
        cursor = int(reply[0])
        parts.add(cursor % 4)
        if cursor == 0:
            break
    assert seen == expected and 1 in parts  # (HSCAN may give a record twice, never leaves one out)


def test_a_redis_error_while_settling_leaves_the_ops_applied_and_the_next_write_settles(
    redis_client: redis.Redis, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = Engine(redis_client, namespace, history_hot=0, settle_after=1)
    keys = engine.keys
    record = {"tenant": "t1", "user": "u1", "kind": "preference", "attribute": DRINK, "value": "v0"}
    first = engine.apply({"at": at(0), "op_id": "o0", "record": record}).record_ids[0]
    settle = engine.settle

    def cut_off(users: list[Any]) -> int:
        raise redis.ConnectionError("the server went away")

    monkeypatch.setattr(engine, "settle", cut_off)
    second = engine.apply(command(1, "c1", op="correct", record_id=first, value="v1"))
    # the correction was written and answered; its retired version waits in the records hash
    assert second.outcome == Outcome.APPLIED and engine.settles_failed == 1
    assert redis_client.hexists(keys.records("t1", "u1"), first) and not redis_client.exists(keys.cold("t1", "u1"))
    assert [r.value for r in engine.history("t1", "u1", DRINK)] == ["v0", "v1"]
    # the same op again is a duplicate, not a second correction
    assert engine.apply(command(1, "c1", op="correct", record_id=first, value="v1")).outcome == Outcome.DUPLICATE

    monkeypatch.setattr(engine, "settle", settle)
    engine.apply(command(2, "c2", op="correct", record_id=second.record_ids[0], value="v2"))
    assert cold_ids(redis_client, keys) == {first, second.record_ids[0]}
    assert [r.value for r in engine.history("t1", "u1", DRINK)] == ["v0", "v1", "v2"]

"""The compaction pass (state/compaction.py) on a real Redis: state written in the earlier forms
(JSON records, ledger, log and suppression entries; a list per slot's lineage; a read index on
every scope) reads the same before and after, takes less memory after, and a second run finds
nothing to do."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis

from slotstream.bench.memory import bytes_by_kind
from slotstream.local.redis_server import LocalRedis
from slotstream.memory.models import LIVE_STATUSES, Outcome
from slotstream.state.codec import (
    decode_changes,
    decode_ledger_entry,
    decode_suppression,
    is_op_entry,
    lineage_ids,
    suppression_field,
    suppression_key,
)
from slotstream.state.compaction import Compactor
from slotstream.state.digest import digest_namespace, user_state
from slotstream.state.engine import Engine
from slotstream.state.keys import Keys

from stored_forms import format_1, suppression_spelled

pytestmark = pytest.mark.integration

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
BIG, SMALL = "big", "small"  # users with more and fewer rows than the pass's index threshold
INDEX_ABOVE = 4


def op(user: str, i: int, value: str, hours: int = 0) -> dict[str, Any]:
    return {
        "at": (T0 + timedelta(hours=hours, seconds=i)).isoformat(),
        "op_id": f"{user}-{i}-{hours}",
        "record": {
            "tenant": "t1",
            "user": user,
            "kind": "preference",
            "attribute": f"preference.topic_{i}",
            "value": value,
            "statement": f"I like {value}.",
            "evidence": [{"source_type": "conversation", "source_id": f"turn-{i}", "quote": f"I like {value}"}],
        },
    }


def write_history(engine: Engine) -> None:
    """Records, a correction of some, a forget: lineages of several versions, suppressions."""
    ops = [op(BIG, i, f"tea {i}") for i in range(8)] + [op(SMALL, i, f"jazz {i}") for i in range(2)]
    assert {r.outcome for r in engine.apply_many(ops)} == {Outcome.APPLIED}
    later = [op(BIG, i, f"coffee {i}", hours=1) for i in range(3)] + [op(SMALL, 0, "blues", hours=1)]
    assert {r.outcome for r in engine.apply_many(later)} == {Outcome.APPLIED}
    forget = {"op": "forget", "tenant": "t1", "user": BIG, "match": {"attribute": "preference.topic_7"}}
    engine.apply_many([{"at": (T0 + timedelta(hours=2)).isoformat(), "op_id": "big-forget", "command": forget}])


def to_earlier_forms(client: redis.Redis, engine: Engine, tenant: str, user: str) -> None:
    """Rewrite one user's keys as the earlier code stored them."""
    keys = engine.keys
    for n, rec in enumerate(engine.records(tenant, user)):  # JSON, and the first compact form
        client.hset(keys.records(tenant, user), rec.id, format_1(rec) if n % 2 else rec.model_dump_json())
    for op_id, raw in client.hgetall(keys.ledger(tenant, user)).items():
        at, outcome, reason, ids = decode_ledger_entry(op_id.decode(), raw)
        entry: dict[str, Any] = {"at": at, "o": outcome, "r": reason}
        if ids:
            entry["p"] = ids
        client.hset(keys.ledger(tenant, user), op_id, orjson.dumps(entry))
    # the change log: a JSON entry a change
    log = [orjson.dumps(c) for raw in client.lrange(keys.log(tenant, user), 0, -1) for c in decode_changes(raw)]
    client.delete(keys.log(tenant, user))
    client.rpush(keys.log(tenant, user), *log)
    # suppressions under their key (the value hash in hex): JSON, or the reason spelled out
    for key in (keys.suppressions(tenant, user), keys.read_suppressions(tenant, user)):
        for n, (field, raw) in enumerate(client.hgetall(key).items()):
            sup = decode_suppression(field, raw)
            client.hdel(key, field)
            client.hset(key, sup.key, sup.model_dump_json() if n % 2 else suppression_spelled(sup))
    joined = client.hgetall(keys.lineage(tenant, user))
    for slot, live in client.hgetall(keys.slots(tenant, user)).items():  # a list for every slot
        ids = lineage_ids(joined.get(slot), [], live)
        if ids:
            client.rpush(keys.history(tenant, user, slot.decode()), *ids)
    client.delete(keys.lineage(tenant, user))


def held(client: redis.Redis, namespace: str) -> int:
    """What the namespace's keys hold (MEMORY USAGE of each): used_memory moves with the server's
    own allocations (scripts loaded, client buffers) by more than this small state takes."""
    return sum(bytes_by_kind(client, namespace)[0].values())


def reads(engine: Engine, user: str) -> dict[str, Any]:
    """What readers see of a user: records, their lineages, suppressions, changes, a lookup."""
    records = sorted((r.model_dump(mode="json") for r in engine.records("t1", user)), key=lambda r: r["id"])
    history = {r["attribute"]: [h.id for h in engine.history("t1", user, r["attribute"])] for r in records}
    context = engine.context(
        {"tenant": "t1", "user": user, "text": "what do I like to drink", "max_items": 8}, at=T0 + timedelta(days=1)
    )
    return {
        "records": records,
        "history": history,
        "suppressions": sorted(s.model_dump_json() for s in engine.suppressions("t1", user)),
        "changes": engine.changes("t1", user),
        "context": [item.model_dump(mode="json") for item in context.items],
    }


def test_state_in_the_earlier_forms_reads_the_same_after_the_pass_in_less_memory(
    redis_client: redis.Redis, namespace: str
) -> None:
    # the earlier code kept a read index on every scope: index_above=0 writes one for each
    engine = Engine(redis_client, namespace, index_above=0)
    write_history(engine)
    for user in (BIG, SMALL):
        to_earlier_forms(redis_client, engine, "t1", user)
    keys = Keys(namespace)
    assert redis_client.exists(keys.read_index("t1", SMALL, "global", "ixs"))
    before = {user: reads(engine, user) for user in (BIG, SMALL)}  # the readers take the earlier forms
    digest_before = digest_namespace(redis_client, namespace).digest
    memory_before = held(redis_client, namespace)

    compactor = Compactor(redis_client, namespace, index_above=INDEX_ABOVE)
    stats = compactor.run()

    assert (stats.users, stats.compacted, stats.retried) == (2, 2, 0)
    assert stats.records == len(before[BIG]["records"]) + len(before[SMALL]["records"])
    assert stats.indexes_dropped == 1  # the small user's; the big one keeps its index
    # the record the forget retired (out of its slot's live list) moved into the user's cold history
    retired = [r["id"] for user in (BIG, SMALL) for r in before[user]["records"] if r["status"] not in LIVE_STATUSES]
    assert stats.retired_moved == len(retired) == 1
    assert redis_client.hget(keys.cold("t1", BIG), "ids") == f" {retired[0]} ".encode()
    assert not redis_client.hexists(keys.records("t1", BIG), retired[0])
    assert {user: reads(engine, user) for user in (BIG, SMALL)} == before
    # the change log holds one entry an op again
    log = redis_client.lrange(keys.log("t1", BIG), 0, -1)
    assert all(is_op_entry(raw) for raw in log)
    assert len(log) == len({c["op"] for c in before[BIG]["changes"]}) < len(before[BIG]["changes"])
    assert digest_namespace(redis_client, namespace).digest == digest_before
    assert held(redis_client, namespace) < memory_before * 0.75
    # suppressions under their packed fields, the earlier ones gone
    fields = redis_client.hkeys(keys.suppressions("t1", BIG)) + redis_client.hkeys(keys.read_suppressions("t1", BIG))
    assert len(fields) == 2 * len(before[BIG]["suppressions"]) == 4  # the forget's, which selection reads: in rsup too
    assert all(field == suppression_field(suppression_key(field)) for field in fields)
    assert [len(field) < len(suppression_key(field)) for field in fields].count(True) > 0
    for user in (BIG, SMALL):
        state = redis_client.hvals(keys.records("t1", user))
        assert not [raw for raw in state if raw.startswith(b"{")]
        assert not [raw for raw in redis_client.lrange(keys.log("t1", user), 0, -1) if raw.startswith(b"{")]
        assert not list(redis_client.scan_iter(match=f"{namespace}:{{t1:{user}}}:hist:*"))
    assert not list(redis_client.scan_iter(match=f"{namespace}:{{t1:{SMALL}}}:ix*"))
    # the big user's scope is still indexed: an indexed lookup answers as a whole read does
    indexed = Engine(redis_client, namespace, read_whole_up_to=0)
    request = {"tenant": "t1", "user": BIG, "text": "tea", "max_items": 3}
    when = T0 + timedelta(days=1)
    assert indexed.context(request, when).items == Engine(redis_client, namespace).context(request, when).items
    assert indexed.read_stats.indexed == 1

    # a second run finds every user compact
    again = Compactor(redis_client, namespace, index_above=INDEX_ABOVE).run()
    assert (again.users, again.compacted) == (2, 0)


def test_a_user_written_while_the_pass_reads_it_is_read_again_and_loses_no_write(
    redis_client: redis.Redis, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = Engine(redis_client, namespace)
    write_history(engine)
    to_earlier_forms(redis_client, engine, "t1", SMALL)
    compactor = Compactor(redis_client, namespace, index_above=INDEX_ABOVE)
    plan = compactor._plan
    interleaved = []

    def plan_then_apply(tenant: str, user: str) -> Any:
        planned = plan(tenant, user)
        if not interleaved:  # an op lands between the pass's read and its write
            interleaved.append(engine.apply_many([op(SMALL, 5, "bebop", hours=3)]))
        return planned

    monkeypatch.setattr(compactor, "_plan", plan_then_apply)
    assert compactor.compact_user("t1", SMALL)
    assert compactor.stats.retried == 1
    values = {r.value for r in engine.records("t1", SMALL)}
    assert "bebop" in values and not [
        raw for raw in redis_client.hvals(Keys(namespace).records("t1", SMALL)) if raw.startswith(b"{")
    ]
    assert user_state(redis_client, Keys(namespace), "t1", SMALL)["records"]


def test_a_server_away_for_a_moment_mid_pass_is_waited_for_and_every_user_is_compacted_once(
    tmp_path: Path,
) -> None:
    server = LocalRedis(data_dir=tmp_path / "redis").start()
    try:
        client = redis.Redis.from_url(server.url)
        engine = Engine(client, "ns")
        write_history(engine)
        users = [f"extra{n}" for n in range(8)]
        engine.apply_many([op(user, 0, "tea") for user in users])
        for user in (BIG, SMALL, *users):
            to_earlier_forms(client, engine, "t1", user)
        before = digest_namespace(client, "ns").digest
        compactor = Compactor(client, "ns", index_above=INDEX_ABOVE)
        rewrite, calls = compactor.compact_user, []

        def away_at_the_fifth(tenant: str, user: str) -> bool:
            calls.append(user)
            if len(calls) == 5:  # the server stops, and is back 1.5 s later with its data
                server.halt()
                threading.Timer(1.5, server.start).start()
            return rewrite(tenant, user)

        compactor.compact_user = away_at_the_fifth  # type: ignore[method-assign]
        stats = compactor.run()

        assert stats.outages > 0 and (stats.users, stats.compacted) == (10, 10)
        assert len(calls) > 10  # the fifth user was done again once the server answered
        assert digest_namespace(client, "ns").digest == before
        assert Compactor(client, "ns", index_above=INDEX_ABOVE).run().compacted == 0
    finally:
        server.stop()


def test_a_server_that_stays_away_fails_the_pass_after_its_wait(tmp_path: Path) -> None:
    server = LocalRedis(data_dir=tmp_path / "redis").start()
    client = redis.Redis.from_url(server.url)
    Engine(client, "ns").apply_many([op(SMALL, 0, "tea")])
    server.stop()
    with pytest.raises(redis.ConnectionError):
        Compactor(client, "ns", outage_wait=1.0).run()

"""apply.lua on a real Redis, where its argument layout (state/apply_args.py) meets limits a small
batch never reaches: a user's batch of more ops than Lua can spread onto its stack at once, the
change log's cap, and read-index entries written by the earlier script (encoded by the server's
cjson, which wrote an empty list as `{}`; entries are now stored as the engine sends them)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from slotstream.memory.models import ContextRequest, Outcome
from slotstream.state.engine import Engine
from slotstream.state.keys import Keys

from support import dump_namespace

pytestmark = pytest.mark.integration

T0 = datetime(2024, 1, 1, tzinfo=UTC)
LOG_CAP = 10_000


def note(i: int, value: str | None = None, round_no: int = 0) -> dict[str, Any]:
    return {
        "at": (T0 + timedelta(seconds=i, hours=round_no)).isoformat(),
        "op_id": f"u1-{i}-r{round_no}",
        "record": {
            "tenant": "t1",
            "user": "u1",
            "kind": "knowledge",
            "attribute": f"knowledge.item_{i}",
            "value": value or f"budget note {i}",
        },
    }


def test_a_batch_of_more_ops_than_lua_can_unpack_is_applied_and_the_log_keeps_its_cap(
    redis_client: redis.Redis, namespace: str
) -> None:
    # one user's 9,000 ops are one script call: their op ids are more values than one unpack takes
    engine = Engine(redis_client, namespace, change_log_max=LOG_CAP)
    first = engine.apply_many([note(i) for i in range(9_000)])
    assert [r.outcome for r in first] == [Outcome.APPLIED] * 9_000
    then = engine.apply_many([note(i) for i in range(9_000, 10_500)])
    assert [r.outcome for r in then] == [Outcome.APPLIED] * 1_500

    log_key = f"{Keys(namespace).prefix('t1', 'u1')}:log"
    assert redis_client.llen(log_key) == LOG_CAP
    assert engine.changes("t1", "u1", -1)[0]["op"] == "u1-10499-r0"
    # the oldest entries went, not the newest: every op of the last batch is still in the log
    kept = {change["op"] for change in engine.changes("t1", "u1")}
    assert {f"u1-{i}-r0" for i in range(9_000, 10_500)} <= kept
    # a redelivery of the whole first batch changes nothing
    assert {r.outcome for r in engine.apply_many([note(i) for i in range(9_000)])} == {Outcome.DUPLICATE}
    assert redis_client.llen(log_key) == LOG_CAP


@pytest.mark.parametrize("cap", [0, 3])
def test_the_change_log_keeps_the_newest_entries_its_setting_allows(
    redis_client: redis.Redis, namespace: str, cap: int
) -> None:
    engine = Engine(redis_client, namespace, change_log_max=cap)
    for i in range(5):  # a call each: the cap holds across calls
        engine.apply_many([note(i)])
    assert [change["op"] for change in engine.changes("t1", "u1")] == [f"u1-{i}-r0" for i in range(5 - cap, 5)]


def _index_keys(client: redis.Redis, namespace: str) -> dict[str, Any]:
    """The users' read-index keys, entries decoded and empty JSON objects read as empty lists
    (the earlier script's encoding of them)."""
    dumped = dump_namespace(client, namespace)
    out: dict[str, Any] = {}
    for name, content in dumped.items():
        part = name.split(":")[2]  # "{tenant:user}:<part>:<scope>..."
        if part not in {"ix", "ixs", "ixt", "ixp", "ixq", "ixu"}:
            continue
        if part == "ix":
            content = {k: [[] if v == {} else v for v in json.loads(raw)] for k, raw in content.items()}
        out[name] = content
    return out


def test_entries_written_by_the_earlier_script_are_replaced_or_taken_out(
    redis_client: redis.Redis, namespace: str
) -> None:
    legacy_ns, clean_ns = f"{namespace}legacy", f"{namespace}clean"
    first = [note(i) for i in range(6)]
    # then: the same values again (entries unchanged but for their encoding), new values, a forget
    later: list[dict[str, Any]] = [note(i, f"budget note {i}", round_no=1) for i in range(2)]
    later += [note(i, f"deploy window {i}", round_no=1) for i in range(2, 5)]
    forget = {"op": "forget", "tenant": "t1", "user": "u1", "match": {"attribute": "knowledge.item_5"}}
    later.append({"at": (T0 + timedelta(hours=1)).isoformat(), "op_id": "u1-forget-5", "command": forget})
    legacy, clean = Engine(redis_client, legacy_ns, index_above=0), Engine(redis_client, clean_ns, index_above=0)
    legacy.apply_many(first)
    clean.apply_many(first)

    # rewrite the legacy user's entries as the earlier script stored them
    rewritten = 0
    for key in redis_client.scan_iter(match=f"{legacy_ns}:*:ix:*"):
        for field, raw in redis_client.hgetall(key).items():
            assert b"[]" in raw  # every entry has an empty topic list to rewrite
            redis_client.hset(key, field, raw.replace(b"[]", b"{}"))
            rewritten += 1
    assert rewritten == 6

    outcomes = [r.outcome for r in legacy.apply_many(later)]
    assert outcomes == [Outcome.REFRESHED] * 2 + [Outcome.APPLIED] * 4
    clean.apply_many(later)
    assert _index_keys(redis_client, legacy_ns) == _index_keys(redis_client, clean_ns)
    request = ContextRequest(tenant="t1", user="u1", text="what about the deploy window", max_items=4)
    at = T0 + timedelta(days=1)
    legacy_reader = Engine(redis_client, legacy_ns, read_whole_up_to=0)
    clean_reader = Engine(redis_client, clean_ns, read_whole_up_to=0)
    answer = legacy_reader.context(request, at=at)
    assert answer.model_dump() == clean_reader.context(request, at=at).model_dump()
    assert legacy_reader.read_stats.indexed >= 1  # answered through the index
    # no word list holds a row that no longer has the word (the legacy entries were taken out)
    index = _index_keys(redis_client, legacy_ns)
    entries = {
        id_.decode(): entry for key, ix in index.items() if key.split(":")[2] == "ix" for id_, entry in ix.items()
    }
    word_lists = {key.rsplit(":", 1)[1]: members for key, members in index.items() if key.split(":")[2] == "ixt"}
    # six notes, one forgotten, three of them holding a new value in place of the old
    assert sorted(entry[0] for entry in entries.values()) == [f"knowledge.item_{i}" for i in range(5)]
    assert word_lists
    for word, members in word_lists.items():
        for member, _ in members:
            assert word in entries[member.decode()][2]
    # and every row is on the list of each of its words
    for id_, entry in entries.items():
        for word in entry[2]:
            assert id_ in {member.decode() for member, _ in word_lists[word]}


def test_a_call_whose_arguments_do_not_add_up_is_refused_with_a_reason(
    redis_client: redis.Redis, namespace: str
) -> None:
    """Every user's arguments carry their count: a layout the script misreads stops the call with an
    error, before a next user's arguments could be taken for this one's."""
    engine = Engine(redis_client, namespace)
    engine.apply_many([note(0)])
    keys = Keys(namespace)
    engine._apply.ensure_loaded()
    head = ["apply", 0, 200, 0, 0]  # mode, index_above, change_log_max, ledger window, settle_after
    args = [*head, keys.prefix("t1", "u1"), -1, 0, 2, "stray", "arguments"]  # no transition, two arguments
    with pytest.raises(redis.ResponseError, match="did not add up"):
        redis_client.evalsha(engine._apply.sha, 1, keys.meta("t1", "u1"), *args)


def test_an_erase_in_the_call_that_gave_a_scope_its_first_row_takes_the_row_out(
    redis_client: redis.Redis, namespace: str
) -> None:
    """A user's scopes are listed once at the end of a call; an erase later in the same call must
    take out the rows and the read index written earlier in it, or the erased value is still read."""
    engine = Engine(redis_client, namespace)
    results = engine.apply_many(
        [
            {
                "at": "2026-10-01T00:00:00Z",
                "op_id": "op0",
                "record": {"tenant": "t", "user": "u", "attribute": "profile.home_city", "value": "Paris"},
            },
            {"at": "2026-10-01T00:01:00Z", "op_id": "op1", "command": {"tenant": "t", "user": "u", "op": "erase_user"}},
        ]
    )
    assert [r.outcome for r in results] == [Outcome.APPLIED, Outcome.APPLIED]
    left = {name.split(":", 2)[2] for name in dump_namespace(redis_client, namespace) if name.startswith("{t:u}")}
    assert left == {"meta", "ops", "log"}  # the log holds the erase's own entries only
    assert {change["op"] for change in engine.changes("t", "u")} == {"op1"}
    out = engine.context(ContextRequest(tenant="t", user="u", text="where do I live"), at="2026-10-01T00:02:00Z")
    assert out.used_ids == [] and "Paris" not in out.context

"""The engine on a real Redis server (the session fixture starts one): apply / context / history,
lineage, atomic and idempotent transitions under redelivery, batches over several users,
rejections that change nothing, one round trip per context, payload bounded by active records."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from slotstream.memory.models import Status, iso
from slotstream.state.codec import created_id, decode_ledger_entry
from slotstream.state.engine import Engine
from slotstream.state.lua import ChunkedWrites

from support import dump_namespace

pytestmark = pytest.mark.integration

T0 = datetime(2024, 1, 1, tzinfo=UTC)
H = timedelta(hours=1)
D = timedelta(days=1)
DETAIL = "preference.response.detail"


def at(offset: timedelta = timedelta(0)) -> str:
    return iso(T0 + offset)


def rec_op(
    op_id: str, offset: timedelta = timedelta(0), tenant: str = "t1", user: str = "u1", **record: Any
) -> dict[str, Any]:
    body = {"tenant": tenant, "user": user, "attribute": DETAIL, "value": "concise"}
    body.update(record)
    return {"at": at(offset), "op_id": op_id, "record": body}


def cmd_op(
    op_id: str, offset: timedelta = timedelta(0), tenant: str = "t1", user: str = "u1", **command: Any
) -> dict[str, Any]:
    return {"at": at(offset), "op_id": op_id, "command": {"tenant": tenant, "user": user, **command}}


def ctx(engine: Engine, offset: timedelta = D, tenant: str = "t1", user: str = "u1", **req: Any):
    return engine.context({"tenant": tenant, "user": user, "explain": True, **req}, at=T0 + offset)


# Bookkeeping an op leaves even when it changes no memory: the op ledger, the change log, the version.
BOOKKEEPING = (":ops", ":log", ":meta")


# --- round trip -------------------------------------------------------------------------------


def test_apply_context_history_round_trip(engine):
    res = engine.apply(rec_op("o1", id="r1", value="detailed", statement="Wants detailed answers."))
    assert res.outcome == "applied" and res.record_ids == ["r1"] and res.tenant == "t1" and res.user == "u1"
    out = ctx(engine)
    assert out.used_ids == ["r1"] and "Wants detailed answers." in out.context
    assert out.considered == 1
    hist = engine.history("t1", "u1", DETAIL)
    assert [(r.id, r.status) for r in hist] == [("r1", Status.ACTIVE)]
    assert engine.record("t1", "u1", "r1").value == "detailed"
    assert engine.record("t1", "u1", "nope") is None
    assert [c["type"] for c in engine.changes("t1", "u1")] == ["created"]


def test_preference_corrected_and_priority_expiring(engine):
    # the demo scenario: a preference set then explicitly corrected; a priority that expires
    engine.apply_many(
        [
            rec_op("o1", id="pref", value="concise", statement="Prefers concise answers."),
            rec_op("o2", id="prio", attribute="priority.focus", value="ship the v2 release"),
        ]
    )
    before = ctx(engine, H)
    assert "concise" in before.context and "ship the v2 release" in before.context
    engine.apply(
        rec_op(
            "o3",
            H,
            id="pref2",
            value="detailed",
            corrects="pref",
            statement="Wants detailed answers with the reasoning shown.",
        )
    )
    after = ctx(engine, 2 * H)
    assert "detailed" in after.context and "concise" not in after.context
    # no sweep ran: the priority drops out at read time once its week is over
    late = ctx(engine, 8 * D)
    assert "ship the v2 release" not in late.context
    assert {e.id: e.reason for e in late.excluded}["prio"] == "expired"
    assert engine.record("t1", "u1", "prio").status == Status.ACTIVE


def test_lineage_of_a_correction(engine):
    engine.apply(rec_op("o1", id="old", value="concise"))
    res = engine.apply(rec_op("o2", 3 * H, id="new", value="detailed", corrects="old"))
    assert res.outcome == "applied" and set(res.record_ids) == {"old", "new"}
    hist = engine.history("t1", "u1", DETAIL)
    assert [r.id for r in hist] == ["old", "new"]
    old, new = hist
    assert old.status == Status.SUPERSEDED and old.superseded_by == "new" and old.valid_until == T0 + 3 * H
    assert new.status == Status.ACTIVE and new.supersedes == "old" and new.corrects == "old"
    out = ctx(engine)
    assert out.used_ids == ["new"] and {e.id for e in out.excluded} == set()  # old is not even loaded
    log = [(c["op"], c["type"]) for c in engine.changes("t1", "u1")]
    assert ("o2", "created") in log and ("o2", "superseded") in log
    # a correct command continues the chain
    res = engine.apply(cmd_op("o3", 5 * H, op="correct", record_id="new", value="bullet points"))
    hist = engine.history("t1", "u1", DETAIL)
    assert [r.status for r in hist] == [Status.SUPERSEDED, Status.SUPERSEDED, Status.ACTIVE]
    assert hist[1].superseded_by == hist[2].id and hist[2].supersedes == "new"
    assert ctx(engine).used_ids == [hist[2].id]


def test_history_is_per_slot(engine):
    engine.apply_many(
        [rec_op("o1", id="g", value="concise"), rec_op("o2", id="p", value="detailed", scope="project:p1")]
    )
    assert [r.id for r in engine.history("t1", "u1", DETAIL)] == ["g"]
    assert [r.id for r in engine.history("t1", "u1", DETAIL, scope="project:p1")] == ["p"]
    assert engine.history("t1", "u1", "preference.language") == []
    out = ctx(engine, project="p1")
    assert out.used_ids == ["p"] and {e.id: e.reason for e in out.excluded} == {"g": "shadowed"}


def test_forget_leaves_no_copy_of_the_value(engine, redis_client, namespace):
    engine.apply_many(
        [
            rec_op(
                "o1",
                id="city",
                attribute="profile.home_city",
                value="Springfield",
                evidence=[{"source_id": "turn-1", "quote": "I live in Springfield"}],
            ),
            rec_op("o2", id="lang", attribute="preference.language", value="German"),
        ]
    )
    assert "Springfield" in ctx(engine, H).context
    res = engine.apply(cmd_op("o3", 2 * H, op="forget", record_id="city"))
    assert res.outcome == "applied"
    out = ctx(engine, 2 * H)
    assert "Springfield" not in out.context and out.used_ids == ["lang"]
    tomb = engine.record("t1", "u1", "city")
    assert tomb.status == Status.DELETED and tomb.value is None
    assert [s.attribute for s in engine.suppressions("t1", "u1")] == ["profile.home_city"]
    # no key of the user holds the forgotten value any more (record, read model, log, suppression)
    assert "springfield" not in repr(dump_namespace(redis_client, namespace)).casefold()
    # re-extraction is dropped
    again = engine.apply(
        rec_op(
            "o4", 3 * H, attribute="profile.home_city", value="Springfield", authority="system_inferred", confidence=0.9
        )
    )
    assert again.outcome == "dropped" and again.reason == "suppressed"
    assert "Springfield" not in ctx(engine, 4 * H).context


def test_erase_user_removes_every_derived_copy(engine, redis_client, namespace):
    engine.apply_many(
        [
            rec_op("o1", id="a", value="concise"),
            rec_op("o2", id="b", attribute="profile.allergies", value="peanuts", scope="project:p1"),
            rec_op("o3", id="c", attribute="preference.language", value="German", scope="session:s1"),
            rec_op("x1", id="other", user="u2", value="detailed"),
            rec_op(
                "o0", kind="preference", attribute="preference.drink", value="tea"
            ),  # its id derived: the ledger's short entry
        ]
    )
    ledger = engine.keys.ledger("t1", "u1")
    assert len(redis_client.hget(ledger, "o0")) == 9
    # a correction's entry names the record it superseded by its packed id (state/codec.py ID_EXT)
    corrected = created_id("o0")
    engine.apply(cmd_op("o3c", H, op="correct", record_id=corrected, value="coffee"))
    assert bytes.fromhex(corrected[2:]) in redis_client.hget(ledger, "o3c")
    assert decode_ledger_entry("o3c", redis_client.hget(ledger, "o3c"))[3] == [created_id("o3c"), corrected]
    engine.apply(cmd_op("o4", H, op="forget", record_id="a"))
    res = engine.apply(cmd_op("o5", 2 * H, op="erase_user"))
    assert res.outcome == "applied"
    state = dump_namespace(redis_client, namespace)
    u1 = {k: v for k, v in state.items() if "{t1:u1}" in k}
    assert set(u1) <= {"{t1:u1}:meta", "{t1:u1}:ops", "{t1:u1}:log"}
    # the ledger keeps every op, without the ids of the records they wrote
    entries = {op.decode(): decode_ledger_entry(op.decode(), raw) for op, raw in redis_client.hgetall(ledger).items()}
    assert set(entries) == {"o0", "o1", "o2", "o3", "o3c", "o4", "o5"} and all(not e[3] for e in entries.values())
    assert entries["o3c"][1:] == ("applied", None, [])
    assert entries["o0"][:3] == (at(), "applied", None)
    for value in ("concise", "peanuts", "german"):
        assert value not in repr(u1).casefold()
    assert engine.records("t1", "u1") == [] and engine.suppressions("t1", "u1") == []
    assert engine.history("t1", "u1", DETAIL) == []
    out = ctx(engine, 3 * H, project="p1", session="s1")
    assert out.context == "" and out.considered == 0
    # another user is untouched
    assert ctx(engine, 3 * H, user="u2").used_ids == ["other"]
    # replays of what was said before the erase stay out; new input is accepted
    assert engine.apply(rec_op("o6", 4 * H, value="concise", observed_at=at(H))).outcome == "dropped"
    assert engine.apply(rec_op("o7", 5 * H, id="fresh", value="detailed")).outcome == "applied"
    assert ctx(engine, 6 * H).used_ids == ["fresh"]


def test_redelivery_after_erase_is_a_duplicate(engine, redis_client, namespace):
    ops = [
        rec_op("o1", id="a", attribute="profile.allergies", value="peanuts"),
        cmd_op("o2", H, op="forget", match={"attribute": "profile.allergies"}),
        cmd_op("o3", 2 * H, op="erase_user"),
    ]
    engine.apply_many(ops)
    state = dump_namespace(redis_client, namespace)
    # the consumer restarts from an offset before the erase
    assert [r.outcome for r in engine.apply_many(ops)] == ["duplicate"] * 3
    assert dump_namespace(redis_client, namespace) == state
    assert engine.suppressions("t1", "u1") == [] and engine.records("t1", "u1") == []


# --- idempotency and atomicity ------------------------------------------------------------------


def test_same_op_twice_in_one_batch(engine, redis_client, namespace, other_namespace):
    op = rec_op("o1", id="r1", value="detailed")
    res = engine.apply_many([op, op])
    assert [r.outcome for r in res] == ["applied", "duplicate"]
    once = Engine(redis_client, namespace=other_namespace)
    once.apply(op)
    assert dump_namespace(redis_client, namespace) == dump_namespace(redis_client, other_namespace)


def test_same_batch_redelivered(engine, redis_client, namespace):
    batch = [
        rec_op("o1", id="a", value="concise"),
        rec_op("o2", H, id="b", value="detailed", corrects="a"),
        rec_op("o3", 2 * H, id="c", attribute="profile.allergies", value="peanuts"),
        cmd_op("o4", 3 * H, op="forget", record_id="c"),
        cmd_op("o5", 4 * H, op="confirm", record_id="b"),
    ]  # rejected: b is active
    first = engine.apply_many(batch)
    assert [r.outcome for r in first] == ["applied", "applied", "applied", "applied", "rejected"]
    assert first[4].reason == "target_not_pending"
    state = dump_namespace(redis_client, namespace)
    again = engine.apply_many(batch)
    assert [r.outcome for r in again] == ["duplicate"] * 5
    assert dump_namespace(redis_client, namespace) == state
    # a new engine (a restarted worker, nothing cached) sees the same ledger
    fresh = Engine(redis_client, namespace=namespace)
    assert [r.outcome for r in fresh.apply_many(batch)] == ["duplicate"] * 5
    assert dump_namespace(redis_client, namespace) == state


def test_a_duplicate_reports_the_expiry_entries_of_the_records_it_wrote_as_they_are_now(
    engine, redis_client, namespace
):
    """The expiry index is written after the apply: a redelivery must be able to write it again."""
    until = T0 + 2 * D
    first = engine.apply_many(
        [
            rec_op("o1", id="trip", attribute="knowledge.trip", value="Rome", valid_until=iso(until)),
            rec_op("o2", H, id="stack", attribute="knowledge.stack", value="postgres"),
        ]
    )
    assert ("trip", "expire", until.timestamp() * 1000) in first[0].due
    forget = cmd_op("o3", 2 * H, op="forget", record_id="stack")
    gone = [("stack", "expire", None), ("stack", "review_due", None)]
    assert engine.apply(forget).due == gone
    for again in (engine, Engine(redis_client, namespace=namespace)):  # cached view, and a fresh one
        trip, stack, forgotten = again.apply_many([rec_op("o1"), rec_op("o2"), forget])
        assert (trip.outcome, stack.outcome, forgotten.outcome) == ("duplicate",) * 3
        assert trip.due == first[0].due
        assert stack.due == gone and forgotten.due == gone  # as the record is now, not as o2 left it


@pytest.mark.parametrize("crash_after", [1, 2, 4])
def test_crash_mid_batch_then_redelivery_equals_one_clean_pass(redis_client, namespace, other_namespace, crash_after):
    batch = [
        rec_op("o1", id="a", value="concise"),
        rec_op("o2", H, id="b", value="detailed", corrects="a"),
        rec_op("o3", 2 * H, id="c", value="concise", authority="system_inferred", confidence=0.9),
        cmd_op("o4", 3 * H, op="forget", match={"attribute": DETAIL, "value": "concise"}),
        rec_op("o5", 4 * H, id="d", attribute="priority.focus", value="launch"),
        cmd_op("o6", 5 * H, op="correct", record_id="d", value="hiring"),
    ]
    crashed = Engine(redis_client, namespace=namespace)
    crashed.apply_many(batch[:crash_after])  # the worker died before committing its offsets
    restarted = Engine(redis_client, namespace=namespace)
    res = restarted.apply_many(batch)
    assert [r.outcome for r in res[:crash_after]] == ["duplicate"] * crash_after
    assert all(r.outcome != "duplicate" for r in res[crash_after:])
    clean = Engine(redis_client, namespace=other_namespace)
    clean.apply_many(batch)
    assert dump_namespace(redis_client, namespace) == dump_namespace(redis_client, other_namespace)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Every command the engine's writes send from now on (ChunkedWrites.send still sends them)."""
    commands: list[tuple[Any, ...]] = []
    real = ChunkedWrites.send

    def recording(self: ChunkedWrites, chunk: list[tuple[Any, ...]]) -> None:
        commands.extend(chunk)
        real(self, chunk)

    monkeypatch.setattr(ChunkedWrites, "send", recording)
    return commands


def test_a_correction_is_one_atomic_write(engine, sent):
    engine.apply(rec_op("o1", id="old", value="concise"))
    sent.clear()
    engine.apply(rec_op("o2", H, id="new", value="detailed", corrects="old"))
    # the new record, the old one's closing and the indexes: one call of the apply script
    assert [command[:2] for command in sent] == [("EVALSHA", engine._apply.sha)]
    hist = engine.history("t1", "u1", DETAIL)
    assert [(r.id, r.status) for r in hist] == [("old", Status.SUPERSEDED), ("new", Status.ACTIVE)]


def test_another_writer_between_load_and_apply(redis_client, namespace):
    """The apply script's version check: a view that went stale is reloaded and the op redone."""
    mine = Engine(redis_client, namespace=namespace)
    other = Engine(redis_client, namespace=namespace)
    mine.apply(rec_op("o1", id="a", value="concise"))
    other.apply(rec_op("o2", H, id="b", value="detailed", corrects="a"))  # behind mine's back
    # mine still holds the view it last wrote (a active); the write must land on the real state
    res = mine.apply(rec_op("o3", 2 * H, id="c", value="concise"))
    assert res.outcome == "applied"
    assert mine.record("t1", "u1", "a").status == Status.SUPERSEDED
    assert mine.record("t1", "u1", "b").status == Status.ACTIVE
    assert mine.record("t1", "u1", "c").status == Status.PENDING_REVIEW  # differs from explicit b
    assert ctx(mine, 3 * H).used_ids == ["b"]
    # and both engines agree on what was applied
    assert other.apply(rec_op("o3", 2 * H, id="c", value="concise")).outcome == "duplicate"


def test_one_stale_user_in_a_call_is_redone_alone_and_the_others_are_applied_once(redis_client, namespace, sent):
    """Several users share one call of the apply script; a user whose state moved underneath is
    refused by the script alone, and only that user goes round again."""
    mine = Engine(redis_client, namespace=namespace)
    users = [("t1", f"u{k}") for k in range(4)]
    mine.apply_many([rec_op(f"first-{user}", tenant=tenant, user=user, id=f"a-{user}") for tenant, user in users])
    other = Engine(redis_client, namespace=namespace)
    other.apply(rec_op("behind", H, user="u2", id="b-u2", value="detailed", corrects="a-u2"))
    sent.clear()
    res = mine.apply_many(
        [rec_op(f"next-{user}", 2 * H, tenant=tenant, user=user, value="detailed") for tenant, user in users]
    )
    # u2's op was reconciled again on the state the other engine left: it repeats b-u2's value
    assert [r.outcome for r in res] == ["applied", "applied", "refreshed", "applied"]
    keys = mine.keys
    if isinstance(redis_client, redis.Redis):  # one server: every user of the chunk in one call
        assert [command[2:3] for command in sent] == [(4,), (1,)]
        assert sent[1][3] == keys.meta("t1", "u2")
    else:  # a cluster: a call per hash slot, and the stale user's call again
        assert len(sent) == 5 and sent[-1][2:4] == (1, keys.meta("t1", "u2"))
    assert [r.id for r in mine.records("t1", "u2") if r.status == Status.ACTIVE] == ["b-u2"]
    for _, user in users:
        assert redis_client.hlen(keys.ledger("t1", user)) == (3 if user == "u2" else 2)


# --- batches ---------------------------------------------------------------------------------


def test_batch_with_several_users_and_tenants(engine):
    ops = []
    for i in range(5):
        for tenant, user in (("t1", "u1"), ("t1", "u2"), ("t2", "u1")):
            ops.append(
                rec_op(
                    f"{tenant}-{user}-{i}",
                    i * H,
                    tenant=tenant,
                    user=user,
                    id=f"{tenant}{user}r{i}",
                    value=f"{tenant}-{user}-v{i}",
                    **({"corrects": f"{tenant}{user}r{i - 1}"} if i else {}),
                )
            )
    ops.insert(4, rec_op("bad", tenant="t1", user="u1", scope="project:"))  # one invalid op in the middle
    res = engine.apply_many(ops)
    assert [r.op_id for r in res] == [op["op_id"] for op in ops]  # results in input order
    assert res[4].outcome == "rejected" and res[4].reason == "scope_missing_id"
    assert all(r.outcome == "applied" for i, r in enumerate(res) if i != 4)
    for tenant, user in (("t1", "u1"), ("t1", "u2"), ("t2", "u1")):
        out = ctx(engine, D, tenant=tenant, user=user)
        assert out.used_ids == [f"{tenant}{user}r4"]
        assert f"{tenant}-{user}-v4" in out.context
        hist = engine.history(tenant, user, DETAIL)
        assert len(hist) == 5 and [r.status for r in hist] == [Status.SUPERSEDED] * 4 + [Status.ACTIVE]


def test_same_ids_in_two_tenants_stay_apart(engine):
    # the same user id, op id and record id in two tenants: two users, nothing shared
    res = engine.apply_many(
        [
            rec_op("o1", tenant="tA", id="r1", value="alpha-secret-plan"),
            rec_op("o1", tenant="tB", id="r1", value="beta-plan"),
        ]
    )
    assert [r.outcome for r in res] == ["applied", "applied"]
    b = ctx(engine, tenant="tB")
    assert "alpha" not in b.context and b.used_ids == ["r1"] and engine.record("tB", "u1", "r1").value == "beta-plan"
    engine.apply(cmd_op("o2", H, tenant="tA", op="forget", record_id="r1"))
    assert engine.record("tB", "u1", "r1").status == Status.ACTIVE
    assert ctx(engine, tenant="tA").used_ids == []
    assert ctx(engine, tenant="tB").used_ids == ["r1"]


# --- rejections change nothing ----------------------------------------------------------------


@pytest.mark.parametrize(
    "bad,reason",
    [
        (rec_op("b1", tenant=None), "missing_tenant"),
        (rec_op("b2", user=""), "missing_user"),
        (rec_op("b3", kind="opinion"), "unknown_kind"),
        (rec_op("b4", scope="session:"), "scope_missing_id"),
        (rec_op("b5", confidence=1.5), "confidence_out_of_range"),
        (rec_op("b6", valid_from=at(D), valid_until=at(H)), "validity_inverted"),
        (
            rec_op(
                "b7",
                kind="fact",
                attribute="fact.price",
                value="10",
                authority="authoritative_source",
                valid_from=at(),
                valid_until=at(D),
            ),
            "fact_without_source",
        ),
        (
            rec_op(
                "b8",
                kind="fact",
                attribute="fact.price",
                value="10",
                authority="authoritative_source",
                evidence=[{"source_type": "document", "source_id": "list"}],
            ),
            "fact_without_validity",
        ),
        (rec_op("b9", value="my password is hunter22"), "secret_value"),
        (cmd_op("b10", op="explode"), "unknown_command"),
        ({"at": at(), "op_id": "b11"}, "missing_field"),
        ({"op_id": "b12", "record": {}}, "invalid_field"),
    ],
)
def test_invalid_input_is_rejected_and_changes_nothing(engine, redis_client, namespace, bad, reason):
    engine.apply(rec_op("o1", id="keep", value="concise"))
    before = dump_namespace(redis_client, namespace)
    res = engine.apply(bad)
    assert res.outcome == "rejected" and res.reason == reason
    assert dump_namespace(redis_client, namespace) == before


@pytest.mark.parametrize(
    "bad,reason",
    [
        (cmd_op("s1", H, op="confirm", record_id="keep"), "target_not_pending"),
        (cmd_op("s2", H, op="reject", record_id="keep"), "target_not_pending"),
        (cmd_op("s3", H, op="forget", record_id="missing"), "target_not_found"),
        (cmd_op("s4", H, op="correct", record_id="missing", value="x"), "target_not_found"),
        (cmd_op("s5", H, op="confirm", record_id="missing"), "target_not_found"),
    ],
)
def test_state_dependent_rejection_changes_no_memory(engine, redis_client, namespace, bad, reason):
    engine.apply(rec_op("o1", id="keep", value="concise"))
    before = dump_namespace(redis_client, namespace, exclude=BOOKKEEPING)
    res = engine.apply(bad)
    assert res.outcome == "rejected" and res.reason == reason
    assert dump_namespace(redis_client, namespace, exclude=BOOKKEEPING) == before
    assert ctx(engine, 2 * H).used_ids == ["keep"]


def test_rejection_inside_a_batch_leaves_the_rest_applied(engine):
    res = engine.apply_many(
        [
            rec_op("o1", id="a", value="concise"),
            rec_op("o2", H, id="b", value="detailed", confidence=7),
            rec_op("o3", 2 * H, id="c", attribute="preference.language", value="German"),
        ]
    )
    assert [r.outcome for r in res] == ["applied", "rejected", "applied"]
    assert engine.record("t1", "u1", "b") is None
    assert set(ctx(engine).used_ids) == {"a", "c"}


# --- the read path: one round trip, bounded payload ---------------------------------------------


class _Sends:
    """Counts packets written to Redis by any connection of this thread: one per round trip (a
    pipeline is one). Other threads are not counted: the session's embedded Redis has a thread of
    its own that asks the server about its append-only file now and then."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = redis.connection.AbstractConnection.send_packed_command
        mine = threading.get_ident()

        def counting(conn: Any, command: Any, check_health: bool = True) -> Any:
            if threading.get_ident() == mine:
                self.count += 1
            return real(conn, command, check_health)

        monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counting)


@pytest.mark.parametrize("history", [0, 200])
def test_context_is_one_round_trip(engine, redis_client, monkeypatch, history):
    ops = [
        rec_op("g", id="g", value="concise"),
        rec_op("p", id="p", attribute="preference.language", value="German", scope="project:p1"),
        rec_op("s", id="s", attribute="priority.focus", value="launch", scope="session:s1"),
    ]
    ops += [
        rec_op(f"h{i}", (i + 1) * timedelta(minutes=1), id=f"h{i}", value=f"v{i}", corrects=f"h{i - 1}" if i else "g")
        for i in range(history)
    ]
    engine.apply_many(ops)
    ctx(engine, D, project="p1", session="s1")  # the connection exists and the read script is loaded
    sends = _Sends(monkeypatch)
    out = ctx(engine, D, project="p1", session="s1")
    assert sends.count == 1
    assert len(out.used_ids) == 3 and out.considered == 3


def test_payload_is_bounded_by_the_active_records(engine, redis_client, namespace):
    ops: list[dict[str, Any]] = []
    # 300 versions of one slot, each correcting the last: 299 superseded, 1 active
    for i in range(300):
        ops.append(
            rec_op(
                f"c{i}",
                i * timedelta(minutes=1),
                id=f"c{i}",
                value=f"style {i}",
                **({"corrects": f"c{i - 1}"} if i else {}),
            )
        )
    # 200 goals, then all forgotten: 200 tombstones
    for i in range(200):
        ops.append(rec_op(f"g{i}", 6 * H, id=f"g{i}", attribute="goal.learn", value=f"topic {i}"))
    ops.append(cmd_op("forget-goals", 7 * H, op="forget", match={"attribute": "goal.learn"}))
    ops.append(rec_op("lang", 8 * H, id="lang", attribute="preference.language", value="German"))
    ops.append(rec_op("focus", 8 * H, id="focus", attribute="priority.focus", value="launch"))
    for i in range(0, len(ops), 100):
        engine.apply_many(ops[i : i + 100])
    statuses = [r.status for r in engine.records("t1", "u1")]
    assert len(statuses) == 502
    assert statuses.count(Status.SUPERSEDED) == 299 and statuses.count(Status.DELETED) == 200
    out = ctx(engine, D)
    assert out.considered == 3
    assert set(out.used_ids) == {"c299", "lang", "focus"}
    # the read model holds only the selectable records, whatever the history
    act = [k for k in redis_client.scan_iter(match=f"{namespace}:*:act:*")]
    assert sum(redis_client.hlen(k) for k in act) == 3


def test_context_needs_a_time_and_valid_ids(engine):
    from slotstream.memory.errors import Rejected

    with pytest.raises(Rejected):
        engine.context({"tenant": "t1", "user": "u1"})
    with pytest.raises(Rejected):
        engine.context({"tenant": "t:1", "user": "u1"}, at=T0)
    out = engine.context({"tenant": "t1", "user": "u1", "at": at()})
    assert out.context == "" and out.used_ids == []

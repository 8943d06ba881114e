"""The second-pass rules on a real Redis server: what the state layer must keep for them (the
dependency index, moved slots, the read model of records waiting for review) survives a fresh
engine that loads everything from Redis, and erasure takes it all."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from slotstream.memory.models import Status, iso
from slotstream.state.digest import user_state
from slotstream.state.engine import Engine
from slotstream.state.keys import Keys

from support import dump_namespace

pytestmark = pytest.mark.integration

T0 = datetime(2024, 1, 1, tzinfo=UTC)
H = timedelta(hours=1)
D = timedelta(days=1)
DETAIL = "preference.response.detail"


def rec_op(op_id: str, offset: timedelta = timedelta(0), **record: Any) -> dict[str, Any]:
    body = {"tenant": "t1", "user": "u1", "attribute": DETAIL, "value": "concise"}
    body.update(record)
    return {"at": iso(T0 + offset), "op_id": op_id, "record": body}


def cmd_op(op_id: str, offset: timedelta = timedelta(0), **command: Any) -> dict[str, Any]:
    return {"at": iso(T0 + offset), "op_id": op_id, "command": {"tenant": "t1", "user": "u1", **command}}


def ctx(engine: Engine, offset: timedelta, **req: Any):
    return engine.context({"tenant": "t1", "user": "u1", "explain": True, **req}, at=T0 + offset)


def test_dependents_go_to_review_from_a_fresh_engine(redis_client, namespace):
    writer = Engine(redis_client, namespace=namespace)
    writer.apply_many(
        [
            rec_op("o1", id="budget", attribute="knowledge.budget", kind="knowledge", value="5000 EUR"),
            rec_op(
                "o2",
                H,
                id="decision",
                attribute="knowledge.decision.laptop",
                kind="knowledge",
                value="buy the 4000 EUR model",
                depends_on=["budget"],
            ),
            rec_op(
                "o3",
                H,
                id="order",
                attribute="knowledge.order",
                kind="knowledge",
                value="order it on Monday",
                depends_on=["slot:knowledge.decision.laptop"],
            ),
        ]
    )
    assert "4000 EUR model" in ctx(writer, 2 * H).context
    # another engine (no cached view): the index must come from Redis
    other = Engine(redis_client, namespace=namespace)
    res = other.apply(cmd_op("o4", 3 * H, op="correct", record_id="budget", value="3000 EUR"))
    assert res.outcome == "applied" and {"decision", "order"} <= set(res.record_ids)
    out = ctx(other, 4 * H)
    assert "4000 EUR model" not in out.context and "Monday" not in out.context and "3000 EUR" in out.context
    waiting = {e.id: e for e in out.excluded}
    assert waiting["decision"].reason == "status_needs_review" and "budget" in (waiting["decision"].detail or "")
    assert waiting["order"].reason == "status_needs_review"
    assert other.record("t1", "u1", "order").status == Status.NEEDS_REVIEW


def test_move_rewrites_the_read_model_and_lineage(redis_client, namespace):
    engine = Engine(redis_client, namespace=namespace)
    engine.apply_many(
        [
            rec_op("o1", id="pref", value="concise", scope="session:s1"),
            cmd_op("o2", H, op="move", attribute=DETAIL, from_scope="session:s1", to_scope="project:p1"),
        ]
    )
    keys = Keys(namespace)
    assert redis_client.hkeys(keys.active("t1", "u1", "session:s1")) == []
    assert redis_client.hkeys(keys.active("t1", "u1", "project:p1")) == [b"pref"]
    assert [r.id for r in engine.history("t1", "u1", DETAIL, scope="project:p1")] == ["pref"]
    assert engine.history("t1", "u1", DETAIL, scope="session:s1") == []
    assert ctx(engine, 2 * H, project="p1").used_ids == ["pref"]
    assert ctx(engine, 2 * H, session="s1").used_ids == []
    # a fresh engine sees the slot where it now is: a correction of it lands
    res = Engine(redis_client, namespace=namespace).apply(
        rec_op("o3", 3 * H, value="detailed", scope="project:p1", corrects="pref")
    )
    assert res.outcome == "applied"
    assert "detailed" in ctx(engine, 4 * H, project="p1").context


def test_retraction_audience_and_special_categories_through_the_engine(redis_client, namespace):
    engine = Engine(redis_client, namespace=namespace)
    results = engine.apply_many(
        [
            rec_op("o1", id="conc", attribute="knowledge.conclusion", kind="knowledge", value="Vendor A is cheaper"),
            rec_op("o2", id="vp", attribute="knowledge.reorg", kind="knowledge", value="teams merge", audience=["vp"]),
            rec_op("o3", attribute="profile.allergies", value="peanuts", authority="system_inferred"),
            rec_op("o4", id="allergy", attribute="profile.allergies", value="peanuts"),
            cmd_op(
                "o5", H, op="retract", match={"attribute": "knowledge", "family": True, "value": "Vendor A is cheaper"}
            ),
        ]
    )
    assert [r.outcome for r in results] == ["applied", "applied", "rejected", "applied", "applied"]
    assert results[2].reason == "special_category_inferred"
    assert engine.record("t1", "u1", "conc").status == Status.RETRACTED
    plain = ctx(engine, 2 * H, text="plan the week")
    assert "Vendor A" not in plain.context and "teams merge" not in plain.context and "peanuts" not in plain.context
    assert ctx(engine, 2 * H, text="plan the week", roles=["vp"]).used_ids == ["vp"]
    assert "peanuts" in ctx(engine, 2 * H, text="what should I cook for dinner").context


def test_erasure_takes_the_dependency_index(redis_client, namespace):
    engine = Engine(redis_client, namespace=namespace)
    engine.apply_many(
        [
            rec_op("o1", id="base", attribute="knowledge.base", kind="knowledge", value="a"),
            rec_op("o2", id="derived", attribute="knowledge.derived", kind="knowledge", value="b", depends_on=["base"]),
        ]
    )
    keys = Keys(namespace)
    assert user_state(redis_client, keys, "t1", "u1")["dependents"] == {"id:base": ["derived"]}
    engine.apply(cmd_op("o3", H, op="erase_user"))
    assert not redis_client.exists(keys.dependents("t1", "u1"))
    assert b"derived" not in repr(dump_namespace(redis_client, namespace)).encode()

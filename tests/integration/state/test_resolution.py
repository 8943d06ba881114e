"""Corrections and forgets in the user's words, resolved by the engine on a real Redis: the
target is loaded from wherever it is stored (every slot of the user), replaced atomically, and
an ambiguous correction leaves the store unchanged but for a session note."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from slotstream.memory.models import iso
from slotstream.state.engine import Engine

pytestmark = pytest.mark.integration

T0 = datetime(2025, 12, 1, 14, 0, tzinfo=UTC)
M = timedelta(minutes=1)


def write(op_id: str, attribute: str, value: str, at: datetime = T0) -> dict[str, Any]:
    label = attribute.split(".", 1)[-1].replace("_", " ")
    record = {"tenant": "t1", "user": "u1", "kind": "knowledge", "attribute": attribute, "value": value}
    return {"at": iso(at), "op_id": op_id, "record": {**record, "statement": f"{label}: {value}"}}


def command(op_id: str, at: datetime, **body: Any) -> dict[str, Any]:
    return {"at": iso(at), "op_id": op_id, "command": {"tenant": "t1", "user": "u1", **body}}


def live(engine: Engine, **req: Any) -> list[str]:
    out = engine.context({"tenant": "t1", "user": "u1", "max_items": 50, **req}, at=T0 + 10 * M)
    return [item.text for item in out.items]


def test_a_restatement_replaces_its_target_wherever_it_is_stored(engine: Engine) -> None:
    engine.apply_many([write("w1", "knowledge.order_quantity", "1000"), write("w2", "knowledge.team_size", "12")])
    # a separate batch: the engine loads the user's slots it has never seen in this call
    res = engine.apply(
        command(
            "r1",
            T0 + 5 * M,
            op="restate",
            value="750",
            about=["quantity"],
            change=True,
            statement="Keep the location, but change the quantity to 750.",
            session="s1",
        )
    )
    assert res.outcome == "applied"
    texts = " | ".join(live(engine))
    assert "750" in texts and "1000" not in texts and "team size: 12" in texts
    history = engine.history("t1", "u1", "knowledge.order_quantity")
    assert [(r.value, r.status.value) for r in history] == [("1000", "superseded"), ("750", "active")]


def test_an_ambiguous_restatement_changes_nothing_but_tells_the_session(engine: Engine) -> None:
    engine.apply_many(
        [
            write("w1", "knowledge.launch_date", "Monday", T0 - 3 * 24 * 60 * M),
            write("w2", "knowledge.review_date", "Friday", T0 - 3 * 24 * 60 * M),
        ]
    )
    res = engine.apply(
        command(
            "r1",
            T0,
            op="restate",
            value="Thursday",
            change=True,
            statement="No wait, change that to Thursday.",
            session="s1",
        )
    )
    assert res.outcome == "applied"
    assert [r.value for r in engine.history("t1", "u1", "knowledge.launch_date")] == ["Monday"]
    assert [r.value for r in engine.history("t1", "u1", "knowledge.review_date")] == ["Friday"]
    in_session = " | ".join(live(engine, session="s1"))
    assert "Not applied, ambiguous" in in_session
    assert "Not applied" not in " | ".join(live(engine, session="s2"))


def test_a_forget_by_the_users_words_deletes_the_record_it_names(engine: Engine) -> None:
    engine.apply_many(
        [write("w1", "knowledge.favourite_band", "Radiohead"), write("w2", "knowledge.project_budget", "$5")]
    )
    res = engine.apply(command("f1", T0 + M, op="forget", about=["favourite", "band"]))
    assert res.outcome == "applied"
    texts = " | ".join(live(engine))
    assert "Radiohead" not in texts and "$5" in texts
    assert engine.history("t1", "u1", "knowledge.favourite_band")[-1].status.value == "deleted"

"""How a replay of a later range applies a control entry from before its range (`_as_replayed`):
a forget by record id becomes the forgets by match its entry carries; anything else, and an
entry whose carried matches are not a list, is applied as it was written."""

from __future__ import annotations

from typing import Any

from slotstream.ops.replay import _as_replayed

POSITION = "p.ops:0:7"


def forget(**command: Any) -> dict[str, Any]:
    return {
        "at": "2026-10-01T09:00:00Z",
        "op_id": "f1",
        "command": {"op": "forget", "tenant": "t", "user": "u", **command},
    }


MATCHES = [
    {"subject": "user", "attribute": "knowledge.editor", "value": "emacs", "scope": "global"},
    {"subject": "user", "attribute": "knowledge.editor", "value": "vim", "scope": "global"},
]


def test_a_forget_by_record_id_becomes_one_forget_by_match_a_value() -> None:
    out = _as_replayed(forget(record_id="r1"), MATCHES, POSITION)
    assert [op["op_id"] for op in out] == ["f1:value0", "f1:value1"]
    assert [op["command"] for op in out] == [
        {"op": "forget", "tenant": "t", "user": "u", "match": match} for match in MATCHES
    ]
    assert all(op["at"] == "2026-10-01T09:00:00Z" for op in out)


def test_a_match_the_forget_also_had_is_kept_and_an_op_without_id_takes_its_position() -> None:
    own = {"attribute": "knowledge.shell"}
    op = forget(record_id="r1", match=own)
    del op["op_id"]
    out = _as_replayed(op, MATCHES[:1], POSITION)
    assert [(o.get("op_id"), o["command"]["match"]) for o in out] == [(None, own), (f"{POSITION}:value0", MATCHES[0])]
    assert all("record_id" not in o["command"] for o in out)


def test_other_entries_and_malformed_matches_are_applied_as_written() -> None:
    restore = {"at": "2026-10-01T09:00:00Z", "op_id": "r", "command": {"op": "restore", "tenant": "t", "user": "u"}}
    assert _as_replayed(restore, MATCHES, POSITION) == [restore]
    by_match = forget(match={"attribute": "knowledge.editor"})
    assert _as_replayed(by_match, MATCHES, POSITION) == [by_match]
    for malformed in (None, "emacs", {"value": "emacs"}, 3):
        by_id = forget(record_id="r1")
        assert _as_replayed(by_id, malformed, POSITION) == [by_id]  # rejected downstream as before

"""StateBench adapter: conversion of hand-made timelines (pure) and the dev split through real Redis."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from slotstream.memory.models import ID_RE, OpIn
from slotstream.scenario import DirectBackend, run_lines
from slotstream.settings import Settings
from slotstream.state.engine import validate_op
from slotstream.statebench import (
    ENV_ATTRIBUTE,
    QUERY_SESSION,
    TARGET_TRACKS,
    convert,
    evaluate,
    main,
    run_converted,
)

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "statebench"
needs_data = pytest.mark.skipif(not (DATA / "dev.jsonl").is_file(), reason=f"no StateBench data in {DATA}")

T0 = "2025-11-27T16:00:00"


def _fact(fid: str, key: str, value: str, source: str = "system", ts: str = T0, **extra) -> dict:
    return {
        "id": fid,
        "key": key,
        "value": value,
        "source": {"type": source, "identity": None, "authority": "peer"},
        "ts": ts,
        "supersedes": None,
        "superseded_by": None,
        "is_valid": True,
        "scope": "global",
        "depends_on": [],
        "derived_facts": [],
        "is_constraint": False,
        "constraint_type": None,
        **extra,
    }


def _write(
    key: str, value: str, supersedes: str | None = None, wid: str = "W-AUTO", layer: str = "persistent_facts"
) -> dict:
    return {
        "id": wid,
        "layer": layer,
        "key": key,
        "value": value,
        "source": {"type": "user", "identity": None, "authority": "peer"},
        "scope": "global",
        "supersedes": supersedes,
        "depends_on": [],
        "is_constraint": False,
        "constraint_type": None,
    }


def _timeline(
    events: list[dict],
    facts: list[dict] | None = None,
    env: dict | None = None,
    working_set: list[dict] | None = None,
    tid: str = "T-1",
    track: str = "supersession",
) -> dict:
    return {
        "id": tid,
        "track": track,
        "initial_state": {
            "identity_role": {"user_name": "Ann", "authority": "Manager"},
            "persistent_facts": facts or [],
            "working_set": working_set or [],
            "environment": {"now": T0, **(env or {})},
        },
        "events": events,
    }


def _query(ts: str, prompt: str, mm: list[str], mnm: list[str]) -> dict:
    return {"ts": ts, "type": "query", "prompt": prompt, "ground_truth": {"must_mention": mm, "must_not_mention": mnm}}


def _records(conv) -> list[dict]:
    return [line["record"] for line in conv.lines if "record" in line]


# --- convert: pure ----------------------------------------------------------------------------


def test_supersedes_by_key_corrects_the_record_of_that_key_in_its_slot():
    tl = _timeline(
        facts=[_fact("F-PF-0011", "available_budget", "$200,000 available in Q4 budget")],
        events=[
            {
                "ts": "2025-11-27T16:02:00",
                "type": "conversation_turn",
                "speaker": "user",
                "text": "Actually the budget is $120,000",
                "implicit_supersession": None,
            },
            {
                "ts": "2025-11-27T16:37:00",
                "type": "supersession",
                "writes": [
                    _write("available_budget_corrected", "$120,000 total budget", supersedes="available_budget")
                ],
            },
            _query("2025-11-27T16:49:00", "What is our budget?", ["$120,000", "recalculate"], ["$200,000"]),
        ],
    )
    conv = convert(tl)
    first, second = _records(conv)
    assert first["attribute"] == second["attribute"] == "knowledge.available_budget"
    assert second["corrects"] == first["id"] and first["corrects"] is None
    assert {r["authority"] for r in (first, second)} == {"user_explicit"}
    assert first["evidence"][0] == {"source_type": "system", "source_id": "F-PF-0011"}
    assert second["statement"] == "available budget corrected: $120,000 total budget"
    assert conv.notes["supersedes_by_key"] == 1
    assert conv.notes["conversation_turns_not_parsed"] == 1  # the text is never parsed
    q = conv.queries[0]
    assert q.counted == ["$120,000"] and q.skipped == ["recalculate"] and q.must_not_mention == ["$200,000"]
    line = conv.lines[q.line]
    assert line["query"] == {
        "tenant": "sb",
        "user": "T-1",
        "session": QUERY_SESSION,
        "project": None,
        "text": "What is our budget?",
        "max_items": 50,
        "max_chars": 20000,
    }
    assert line["expect"] == {"include": ["$120,000"], "exclude": ["$200,000"]}


def test_supersedes_by_id_and_chains_keep_the_slot():
    tl = _timeline(
        events=[
            {
                "ts": "2025-11-28T13:03:00",
                "type": "state_write",
                "writes": [_write("meeting_location", "Seattle office, Room 302", wid="F-MEETING-LOC")],
            },
            {
                "ts": "2025-11-28T13:17:00",
                "type": "supersession",
                "writes": [
                    _write(
                        "meeting_location_v2",
                        "Portland office, Conference Room 1",
                        supersedes="F-MEETING-LOC",
                        wid="F-MEETING-LOC-V2",
                    )
                ],
            },
            {
                "ts": "2025-11-28T13:20:00",
                "type": "supersession",
                "writes": [_write("meeting_location_v3", "Denver office", supersedes="meeting_location_v2")],
            },
        ]
    )
    conv = convert(tl)
    a, b, c = _records(conv)
    assert a["attribute"] == b["attribute"] == c["attribute"] == "knowledge.meeting_location"
    assert b["corrects"] == a["id"] and c["corrects"] == b["id"]
    assert conv.notes["supersedes_by_id"] == 1 and conv.notes["supersedes_by_key"] == 1


def test_same_value_correction_keeps_the_current_record_as_target():
    # the engine refreshes instead of creating a record with the same value, so a later
    # correction must name the record that still holds the value (StateBench S1-000025)
    tl = _timeline(
        events=[
            {"ts": "2025-11-22T17:03:00", "type": "state_write", "writes": [_write("purchase", "approved $25000")]},
            {
                "ts": "2025-11-22T17:12:00",
                "type": "supersession",
                "writes": [_write("purchase_v2", "cancelled; project postponed", supersedes="purchase")],
            },
            {
                "ts": "2025-11-22T17:56:00",
                "type": "supersession",
                "writes": [_write("purchase_v3", "cancelled; project postponed", supersedes="purchase_v2")],
            },
            {
                "ts": "2025-11-22T18:44:00",
                "type": "supersession",
                "writes": [_write("purchase_v4", "cancelled; budget reallocated", supersedes="purchase_v3")],
            },
        ]
    )
    _r1, r2, r3, r4 = _records(conv := convert(tl))
    assert r3["corrects"] == r2["id"]
    assert r4["corrects"] == r2["id"]  # not r3: that one is folded into r2 by the engine
    assert conv.notes["same_value_refresh"] == 1


def test_rewrite_of_a_key_and_unresolved_supersedes():
    tl = _timeline(
        events=[
            {"ts": T0, "type": "state_write", "writes": [_write("status", "green")]},
            {"ts": T0, "type": "state_write", "writes": [_write("status", "red")]},
            {"ts": T0, "type": "supersession", "writes": [_write("owner", "Bob", supersedes="F-NOWHERE")]},
        ]
    )
    conv = convert(tl)
    a, b, c = _records(conv)
    assert b["corrects"] == a["id"] and b["attribute"] == a["attribute"]
    assert c["attribute"] == "knowledge.owner" and c["corrects"] is None
    assert conv.notes["supersedes_unresolved"] == 1 and conv.notes["rewrite_of_key"] == 1


def test_environment_signal_is_replaced_by_a_newer_one_whatever_its_key():
    tl = _timeline(
        env={"deadline": "VendorX contract auto-renews in 30 days (Dec 1)"},
        events=[
            {
                "ts": "2025-12-26T16:02:00",
                "type": "state_write",
                "writes": [_write("alert", "VendorX auto-renews TOMORROW. Cancel by 5 PM TODAY.", layer="environment")],
            },
            {
                "ts": "2025-12-27T16:02:00",
                "type": "state_write",
                "writes": [_write("alert", "VendorX cancelled.", layer="environment")],
            },
        ],
    )
    a, b, c = _records(convert(tl))
    assert a["attribute"] == b["attribute"] == c["attribute"] == ENV_ATTRIBUTE
    assert a["corrects"] is None and b["corrects"] == a["id"] and c["corrects"] == b["id"]
    assert a["statement"].startswith("deadline (environment, as of 2025-11-27T16:00:00Z): VendorX")
    # the alternative mapping keeps one slot per signal key: a same-key signal still replaces
    a, b, c = _records(convert(tl, env_mode="per_key"))
    assert (a["attribute"], b["attribute"]) == (f"{ENV_ATTRIBUTE}.deadline", f"{ENV_ATTRIBUTE}.alert")
    assert b["corrects"] is None and c["corrects"] == b["id"]


def test_scoped_working_set_goes_to_its_session_and_is_not_counted_for_inclusion():
    tl = _timeline(
        facts=[_fact("F-G", "global_committed_deadline", "None")],
        working_set=[
            {
                "item_type": "context",
                "content": "[SCOPE: estimation exercise] task: rough estimation",
                "ts": T0,
                "priority": 0,
            },
            {
                "item_type": "context",
                "content": "[SCOPE: Alice's session] alice_context: Located in Germany",
                "ts": T0,
                "priority": 0,
            },
            {"item_type": "context", "content": "no scope here", "ts": T0, "priority": 0},
        ],
        events=[_query("2025-11-27T16:10:00", "deadline?", ["Germany", "None"], ["rough estimation"])],
        track="scope_leak",
    )
    conv = convert(tl)
    g, est, alice = _records(conv)
    assert g["scope"] == "global"
    assert (est["kind"], est["scope"], est["attribute"], est["value"]) == (
        "session_context",
        "session:estimation-exercise",
        "session.task",
        "rough estimation",
    )
    assert (alice["scope"], alice["attribute"]) == ("session:alice-s-session", "session.alice_context")
    assert conv.notes["working_set_unscoped_not_mapped"] == 1
    q = conv.queries[0]
    assert q.counted == ["None"] and q.skipped == ["Germany"]  # a session value is not expected globally
    assert conv.lines[q.line]["query"]["session"] not in ("estimation-exercise", "alice-s-session")


def test_invalid_initial_fact_is_not_mapped_and_every_record_line_is_valid_input():
    tl = _timeline(
        facts=[_fact("F-1", "old", "stale", is_valid=False), _fact("F-2", "budget", "$1", source="policy")],
        env={"alert": "API down"},
        events=[{"ts": T0, "type": "state_write", "writes": [_write("plan", "ship Monday")]}],
        tid="ADV SUB/001",
    )  # an id with characters the engine refuses in a user id
    conv = convert(tl)
    assert ID_RE.match(conv.user) and conv.notes["initial_fact_invalid_not_mapped"] == 1
    assert [r["value"] for r in _records(conv)] == ["$1", "API down", "ship Monday"]
    for i, line in enumerate(conv.lines):
        _op_id, rec = validate_op(OpIn(at=line["at"], op_id=f"x:{i}", record=line["record"]))
        assert rec.status.value == "active" and ID_RE.match(rec.id)


# --- through the engine (real Redis) --------------------------------------------------------


def _handmade() -> dict:
    return _timeline(
        facts=[_fact("F-PF-1", "available_budget", "$200,000 available in Q4 budget")],
        env={"calendar": "Interview at 2:00 PM in Room A"},
        working_set=[
            {
                "item_type": "context",
                "ts": T0,
                "priority": 0,
                "content": "[SCOPE: what-if discussion] hypotheticals: maybe $35 each",
            }
        ],
        events=[
            {
                "ts": "2025-11-27T16:37:00",
                "type": "supersession",
                "writes": [_write("available_budget_v2", "$120,000 total budget", supersedes="F-PF-1")],
            },
            {
                "ts": "2025-11-27T16:40:00",
                "type": "state_write",
                "writes": [_write("alert", "Interview moved to 11:00 AM via Zoom", layer="environment")],
            },
            _query(
                "2025-11-27T16:49:00", "budget and interview?", ["$120,000", "Zoom"], ["$200,000", "2:00 PM", "$35"]
            ),
        ],
    )


@pytest.mark.integration
def test_handmade_timeline_through_the_engine(engine):
    conv = convert(_handmade())
    (out,) = run_converted(engine, conv)
    assert out.leaked == [] and out.missing == [] and out.counted == 2
    assert "$120,000" in out.context and "11:00 AM via Zoom" in out.context
    # the same lines are valid scenario lines (docs/scenarios.md) for the scenario runner
    report = run_lines(DirectBackend(engine), list(enumerate(convert(_handmade(), user="T-2").lines, 1)), "sb")
    assert (report.passed, report.failed) == (1, 0)


@needs_data
@pytest.mark.integration
def test_dev_split_target_tracks_have_no_stale_leak(engine):
    table = evaluate([DATA / "dev.jsonl"], lambda: engine, tracks=TARGET_TRACKS)
    assert set(table.tracks) == set(TARGET_TRACKS)
    assert {name: s.queries for name, s in table.tracks.items()} == {
        "supersession": 27,
        "environmental_freshness": 16,
        "scope_leak": 15,
        "commitment_durability": 15,
    }
    assert {name: s.leaking_queries for name, s in table.tracks.items()} == dict.fromkeys(TARGET_TRACKS, 0)
    total = table.total
    assert total.mm_counted == 100 and total.mm_included == 100  # every current value that should show, shows
    # the only ops the engine refuses: a Luhn-valid test card number in a scope_leak working set (rule 7)
    assert dict(table.engine_notes) == {"rejected:secret_value": 3}


@needs_data
@pytest.mark.integration
def test_main_prints_a_table_and_exits_zero(redis_url):
    buf = io.StringIO()
    rc = main([DATA / "dev.jsonl"], Settings(redis_url=redis_url), tracks=["supersession"], verbose=True, out=buf)
    text = buf.getvalue()
    assert rc == 0
    assert "* supersession" in text and "total" in text
    assert "leaking queries on the target tracks (27 queries): 0 (target met)" in text
    assert main([DATA / "nope.jsonl"], Settings(redis_url=redis_url), out=io.StringIO()) == 2

"""StateBench adapter: conversion of hand-made timelines (pure), the new mappings and the leak classes through
real Redis, and the dev split with and without --turns."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest

from slotstream.config.settings import Settings
from slotstream.eval.scenarios import DirectBackend, run_lines
from slotstream.eval.statebench import (
    ENV_ATTRIBUTE,
    NOBODY,
    QUERY_SESSION,
    TARGET_TRACKS,
    audience_for,
    caller_roles,
    convert,
    evaluate,
    main,
    restriction_of,
    run_converted,
)
from slotstream.memory.models import ID_RE, ContextRequest, OpIn, parse_time
from slotstream.state.engine import validate_op

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
    role: str = "Manager",
) -> dict:
    return {
        "id": tid,
        "track": track,
        "initial_state": {
            "identity_role": {"user_name": "Ann", "authority": role},
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
        "roles": ["level:manager"],  # from identity_role.authority "Manager"
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
    # the same lines are valid scenario lines (docs/evaluation.md) for the scenario runner
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


# --- the mappings to dependencies, audiences and retraction (pure) ------------------------------


def _turn(ts: str, text: str, speaker: str = "user") -> dict:
    return {"ts": ts, "type": "conversation_turn", "speaker": speaker, "text": text, "implicit_supersession": None}


def _commands(conv) -> list[dict]:
    return [line["command"] for line in conv.lines if "command" in line]


INVALIDATED = (
    "[INVALIDATED - was based on wrong data: $200,000 available in Q4 budget] "
    "Original conclusion: Approved $150,000 software purchase, $50,000 remaining"
)


def _repair() -> dict:
    """StateBench repair_propagation (S9-000819), shortened."""
    return _timeline(
        facts=[_fact("F-PF-0011", "available_budget", "$200,000 available in Q4 budget")],
        events=[
            _turn("2025-11-27T16:07:00", "So: Approved $150,000 software purchase, $50,000 remaining"),
            {
                "ts": "2025-11-27T16:07:00",
                "type": "state_write",
                "writes": [_write("derived_decision", "Approved $150,000 software purchase, $50,000 remaining")],
            },
            {
                "ts": "2025-11-27T16:37:00",
                "type": "supersession",
                "writes": [
                    _write("available_budget_corrected", "$120,000 total budget", supersedes="available_budget")
                ],
            },
            {
                "ts": "2025-11-27T16:39:00",
                "type": "supersession",
                "writes": [_write("derived_decision_corrected", INVALIDATED, supersedes="derived_decision")],
            },
            _query(
                "2025-11-27T16:49:00",
                "What's our remaining budget after the software purchase?",
                ["$120,000", "over budget"],
                ["$50,000 remaining", "$200,000"],
            ),
        ],
        track="repair_propagation",
    )


def test_an_invalidated_conclusion_is_retracted_not_restated():
    conv = convert(_repair())
    budget, derived, corrected = _records(conv)
    assert corrected["corrects"] == budget["id"]
    # the [INVALIDATED ...] write becomes a retraction of the conclusion it supersedes; its text
    # (which restates the stale conclusion and the stale basis) is stored nowhere
    assert _commands(conv) == [{"op": "retract", "tenant": "sb", "user": "T-1", "record_id": derived["id"]}]
    assert not any("INVALIDATED" in str(line) for line in conv.lines if "record" in line)
    assert conv.notes["invalidated_retracted"] == 1
    assert conv.queries[0].counted == ["$120,000"]  # the retracted conclusion is not expected anywhere
    for i, line in enumerate(conv.lines):
        if "query" not in line:
            kind = "record" if "record" in line else "command"
            validate_op(OpIn(at=line["at"], op_id=f"x:{i}", **{kind: line[kind]}))


def test_a_later_write_to_an_invalidated_conclusion_starts_its_slot_again():
    tl = _repair()
    tl["events"].insert(
        -1,
        {
            "ts": "2025-11-27T16:45:00",
            "type": "state_write",
            "writes": [_write("derived_decision_v2", "$30,000 over budget", supersedes="derived_decision_corrected")],
        },
    )
    conv = convert(tl)
    derived, recalculated = _records(conv)[1], _records(conv)[3]
    assert recalculated["attribute"] == derived["attribute"] and recalculated["corrects"] is None
    assert conv.queries[0].counted == ["$120,000", "over budget"]


def test_role_hierarchy_and_restrictions():
    assert audience_for("VP+") == ["level:vp", "level:c-suite"]
    assert audience_for("Director+") == ["level:director", "level:vp", "level:c-suite"]
    assert audience_for("C-suite") == ["level:c-suite"]
    assert audience_for("HR") == ["team:hr"]
    assert audience_for("Finance") == ["team:finance"]
    assert audience_for("Security team") == ["team:security"]
    assert audience_for("CS leadership") == ["team:customer-success:leadership"]
    assert audience_for("the moon") is None
    assert restriction_of("[RESTRICTED: M&A info restricted to VP+] Globex is an acquisition target") == (
        "VP+",
        ["level:vp", "level:c-suite"],
    )
    assert restriction_of("[RESTRICTED: odd] x") == ("odd", [NOBODY])  # unknown: nobody sees it
    assert restriction_of("Globex deal is in negotiation stage") is None
    assert caller_roles({"authority": "Sales Rep"}) == ["level:staff", "team:sales"]
    assert caller_roles({"authority": "VP Sales"}) == ["level:vp", "team:sales", "team:sales:leadership"]
    assert caller_roles({"authority": "Engineering Manager", "department": "Hr"}) == [
        "level:manager",
        "team:engineering",
    ]  # the department is the timeline's domain, not the caller's team
    assert caller_roles({"authority": "CHRO"}) == ["level:c-suite", "team:hr", "team:hr:leadership"]
    assert caller_roles({}) == []


def _restricted(role: str, tid: str) -> dict:
    """StateBench scope_permission (S4-000372), shortened."""
    return _timeline(
        facts=[
            _fact("F-PF-SHARED-1", "shared_fact_1", "Standard enterprise pricing is $50k/year"),
            _fact(
                "F-PF-RESTR-0",
                "restricted_fact_0",
                "[RESTRICTED: Strategic pricing and M&A info restricted to VP+] "
                "Board approved strategic pricing floor of $30k for Globex",
            ),
        ],
        events=[
            _turn("2025-11-27T16:02:00", f"I'm Mike, {role} at Acme Corp."),
            _query("2025-11-27T16:07:00", "What's the lowest price we can offer Globex?", ["$50k", "$30k"], ["$30k"]),
        ],
        tid=tid,
        track="scope_permission",
        role=role,
    )


def test_restricted_values_carry_an_audience_and_queries_the_callers_roles():
    conv = convert(_restricted("Sales Rep", "T-rep"))
    shared, restricted = _records(conv)
    assert "audience" not in shared and restricted["audience"] == ["level:vp", "level:c-suite"]
    assert restricted["value"].startswith("[RESTRICTED:")  # the value is kept as written
    assert conv.lines[conv.queries[0].line]["query"]["roles"] == ["level:staff", "team:sales"]
    assert conv.queries[0].counted == ["$50k"]  # a value the caller may not see is not expected
    assert conv.notes["restricted_audience"] == 1
    vp = convert(_restricted("VP Sales", "T-vp"))
    assert vp.queries[0].counted == ["$50k", "$30k"]


def test_depends_on_and_derived_facts_become_depends_on():
    plan = {
        "ts": "2025-11-27T16:07:00",
        "type": "state_write",
        "writes": [{**_write("frontend_plan", "Frontend starts January 16", wid="W-PLAN"), "depends_on": ["F-API"]}],
    }
    fix = {
        "ts": "2025-11-27T16:37:00",
        "type": "supersession",
        "writes": [_write("api_completion_corrected", "API delayed to February 1", supersedes="api_completion")],
    }
    q = _query("2025-11-27T16:49:00", "When does frontend start?", ["February 1", "January 16"], ["January 16"])
    conv = convert(_timeline(facts=[_fact("F-API", "api_completion", "API ready January 15")], events=[plan, fix, q]))
    api, frontend, _ = _records(conv)
    assert frontend["depends_on"] == [api["id"]] and conv.notes["depends_on_mapped"] == 1
    assert conv.queries[0].counted == ["February 1"]  # the dependent waits for review: not expected
    # the same link given the other way round: the base fact lists what is derived from it
    base = _fact("F-API", "api_completion", "API ready January 15", derived_facts=["W-PLAN"])
    plan["writes"][0]["depends_on"] = []
    conv = convert(_timeline(facts=[base], events=[plan, fix, q]))
    api, frontend, _ = _records(conv)
    assert frontend["depends_on"] == [api["id"]] and conv.notes["derived_facts_mapped"] == 1
    # an unresolvable reference is left out (the engine refuses an unknown record id)
    plan["writes"][0]["depends_on"] = ["F-NOWHERE"]
    conv = convert(_timeline(events=[plan]))
    assert "depends_on" not in _records(conv)[0] and conv.notes["depends_on_unresolved_not_mapped"] == 1


def test_turns_become_turn_lines_only_with_turns():
    tl = _timeline(
        events=[
            _turn("2025-11-27T16:02:00", "From now on, answer in detail."),
            _turn("2025-11-27T16:03:00", "Noted.", speaker="assistant"),
        ]
    )
    assert [line for line in convert(tl).lines if "turn" in line] == []
    assert convert(tl).notes["conversation_turns_not_parsed"] == 2
    conv = convert(tl, turns=True)
    turns = [line["turn"] for line in conv.lines if "turn" in line]
    assert [(t["role"], t["session"]) for t in turns] == [("user", QUERY_SESSION), ("assistant", QUERY_SESSION)]
    assert [t.text for t in conv.turns] == ["From now on, answer in detail.", "Noted."]  # kept for leak classes


# --- the mappings and the leak classes through the engine (real Redis) --------------------------


@pytest.mark.integration
def test_invalidated_conclusion_is_retracted_and_absent_from_the_context(engine):
    notes: Counter = Counter()
    (out,) = run_converted(engine, convert(_repair()), notes)
    assert notes["retracted"] == 1
    assert out.leaked == [] and out.missing == []
    assert "$120,000 total budget" in out.context and "$150,000" not in out.context


@pytest.mark.integration
def test_restricted_value_is_absent_without_the_role_and_present_with_it(engine):
    (rep,) = run_converted(engine, convert(_restricted("Sales Rep", "T-rep")))
    assert "$50k" in rep.context and "$30k" not in rep.context and rep.leaked == []
    (vp,) = run_converted(engine, convert(_restricted("VP Sales", "T-vp")))
    assert "$30k for Globex" in vp.context and vp.missing == []
    # the engine says why the Sales Rep did not get it
    request = ContextRequest(tenant="sb", user="T-rep", session=QUERY_SESSION, roles=["level:staff"], explain=True)
    resp = engine.context(request, parse_time("2025-11-27T16:08:00Z"))
    assert [e.reason for e in resp.excluded if e.attribute == "knowledge.restricted_fact_0"] == ["audience"]


@pytest.mark.integration
def test_dependent_leaves_the_context_when_its_base_is_corrected(engine):
    tl = _timeline(
        facts=[_fact("F-API", "api_completion", "API ready January 15")],
        events=[
            {
                "ts": "2025-11-27T16:07:00",
                "type": "state_write",
                "writes": [
                    {**_write("frontend_plan", "Frontend starts January 16", wid="W-PLAN"), "depends_on": ["F-API"]}
                ],
            },
            _query("2025-11-27T16:10:00", "When does frontend start?", ["January 16"], []),
            {
                "ts": "2025-11-27T16:37:00",
                "type": "supersession",
                "writes": [
                    _write("api_completion_corrected", "API delayed to February 1", supersedes="api_completion")
                ],
            },
            _query("2025-11-27T16:49:00", "When does frontend start?", ["February 1"], ["January 16"]),
        ],
    )
    notes: Counter = Counter()
    before, after = run_converted(engine, convert(tl), notes)
    assert "Frontend starts January 16" in before.context and before.missing == []
    assert after.leaked == [] and after.missing == [] and "February 1" in after.context
    assert notes["needs_review"] == 1
    request = ContextRequest(tenant="sb", user="T-1", session=QUERY_SESSION, explain=True)
    resp = engine.context(request, parse_time("2025-11-27T16:50:00Z"))
    (waiting,) = [e for e in resp.excluded if e.attribute == "knowledge.frontend_plan"]
    assert waiting.reason == "status_needs_review" and waiting.detail


@pytest.mark.integration
def test_turns_go_through_the_rule_extractor_beside_the_structured_writes(engine):
    tl = _timeline(
        facts=[_fact("F-1", "project", "Data Migration")],
        events=[
            _turn("2025-11-27T16:02:00", "From now on, answer in detail."),
            _turn("2025-11-27T16:03:00", "From now on, keep answers short.", speaker="assistant"),
            _query("2025-11-27T16:10:00", "How should you answer?", ["Data Migration"], ["concise"]),
        ],
    )
    extraction: Counter = Counter()
    (out,) = run_converted(engine, convert(tl, turns=True), extraction_notes=extraction)
    assert "detailed" in out.context and "Data Migration" in out.context
    assert out.leaked == []  # the assistant's turn gives nothing
    assert extraction["turns"] == 2 and extraction["record:preference.response.detail:corrects_current"] == 1


def _detection() -> dict:
    """StateBench supersession_detection (DET-001073): the correction is only in the conversation."""
    return _timeline(
        events=[
            _turn("2025-12-02T15:02:00", "Schedule the meeting for next week."),
            _turn("2025-12-02T15:04:00", "Meeting scheduled for next week.", speaker="assistant"),
            _turn("2025-12-02T15:06:00", "No wait, change that to this week."),
            {
                "ts": "2025-12-02T15:01:00",
                "type": "state_write",
                "writes": [_write("meeting_date", "next week", wid="F-MEETING-DATE")],
            },
            _query("2025-12-02T15:11:00", "When is the meeting?", ["this week"], ["next week"]),
        ],
        track="supersession_detection",
    )


@pytest.mark.integration
def test_leak_classes_b_and_c(engine):
    (det,) = run_converted(engine, convert(_detection()))
    assert det.leaked == ["next week"] and det.leak_class == "b"
    assert "2025-12-02T15:06:00Z" in det.verdicts[0].detail
    tl = _timeline(
        facts=[
            _fact("F-AUTH-A", "instruction_a", "[DIRECTOR] Diana (Engineering Director): Use PostgreSQL"),
            _fact("F-AUTH-B", "instruction_b", "[CONTRACTOR] Carl (Consulting Architect): MongoDB would be better"),
        ],
        events=[
            _turn("2025-11-27T16:02:00", "Diana mandated PostgreSQL. Contractor Carl recommends MongoDB."),
            _query("2025-11-27T16:17:00", "Which database?", ["PostgreSQL", "mandate"], ["MongoDB"]),
        ],
        tid="T-auth",
        track="authority_hierarchy",
    )
    (auth,) = run_converted(engine, convert(tl))
    assert auth.leaked == ["MongoDB"] and auth.leak_class == "c"  # a current, valid value


class _IgnoresRetractions:
    """An engine that loses every retraction (it sends them to an id that does not exist)."""

    def __init__(self, engine) -> None:
        self.engine = engine

    def apply_many(self, ops):
        lost = [
            OpIn(at=op.at, op_id=op.op_id, command={**op.command, "record_id": "T-1.nothing"})
            if op.command and op.command.get("op") == "retract"
            else op
            for op in ops
        ]
        return self.engine.apply_many(lost)

    def context(self, request, at):
        return self.engine.context(request, at)


@pytest.mark.integration
def test_leak_class_a_is_the_engine_showing_what_its_input_ruled_out(engine):
    notes: Counter = Counter()
    (out,) = run_converted(_IgnoresRetractions(engine), convert(_repair()), notes)
    assert notes["rejected:target_not_found"] == 1
    assert out.leaked == ["$50,000 remaining"] and out.leak_class == "a"
    assert "retract" in out.verdicts[0].detail


@needs_data
@pytest.mark.integration
@pytest.mark.parametrize("turns", [False, True], ids=["structured", "with-turns"])
def test_dev_split_has_no_class_a_leak_and_the_target_tracks_hold(engine, turns):
    table = evaluate([DATA / "dev.jsonl"], lambda: engine, turns=turns)
    assert len(table.tracks) == 13
    assert {name: s.leaks_a for name, s in table.tracks.items()} == dict.fromkeys(table.tracks, 0)
    for name, s in table.tracks.items():  # every leaking query has exactly one class
        assert s.leaks_a + s.leaks_b + s.leaks_c == s.leaking_queries, name
    for name in TARGET_TRACKS:
        s = table.tracks[name]
        assert s.leaking_queries == 0 and s.mm_included == s.mm_counted > 0, name
    # the restricted values and the invalidated conclusions no longer leak
    assert table.tracks["scope_permission"].leaking_queries == 0
    assert table.mapping_notes["restricted_audience"] == 36 and table.mapping_notes["invalidated_retracted"] == 15
    # supersessions said only in the conversation ("make that $150,000") find their record: with
    # the turns read, none is left to leak
    detection = table.tracks["supersession_detection"]
    assert detection.leaking_queries == (15 if not turns else 0)

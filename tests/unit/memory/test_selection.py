"""Selection, pure (docs/concepts.md, "Read path"): scope, eligibility, narrowest-scope-wins, ranking without
confidence, budgets, separate sections, request overrides, explanations, used ids."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotstream.memory.models import ContextRequest, Record, Sensitivity, Status
from slotstream.memory.selection import (
    ASSUMPTION_MIN_CONFIDENCE,
    ROWS,
    Candidate,
    can_use,
    compact,
    exclusion_reason,
    from_compact,
    from_record,
    is_working_assumption,
    prepare,
    render_line,
    score,
    section_of,
    select,
    tokens,
    usable_window,
)
from slotstream.memory.validation import build_record, parse_record

T0 = datetime(2024, 1, 1, tzinfo=UTC)
NOW = T0 + timedelta(hours=1)
H = timedelta(hours=1)
DETAIL = "preference.response.detail"
_n = 0


def varied(c: Candidate, **changes: Any) -> Candidate:
    """A copy of `c` with `changes`, its static value and what prepare() worked out computed afresh."""
    return msgspec.structs.replace(c, base=-1.0, window=None, **changes)


def rec(status: Status | None = None, **kw: Any) -> Record:
    global _n
    _n += 1
    at = kw.pop("_at", T0)
    data: dict[str, Any] = {"tenant": "t1", "user": "u1", "attribute": DETAIL, "value": "detailed"}
    data.update(kw)
    r = build_record(parse_record(data), op_id=f"sel-{_n}", at=at)
    if status is None:
        status = Status.CANDIDATE if r.authority.value in ("system_inferred", "user_observed") else Status.ACTIVE
    return r.model_copy(update={"status": status})


def cands(*records: Record) -> list[Candidate]:
    return [from_record(r) for r in records]


def request(**kw: Any) -> ContextRequest:
    return ContextRequest(tenant="t1", user="u1", **kw)


def run(records: list[Record], at: datetime = NOW, **kw: Any):
    return select(request(**kw), cands(*records), at)


def reasons(out) -> dict[str, str]:
    return {e.id: e.reason for e in out.excluded}


# --- scope ----------------------------------------------------------------------------------


def test_scope_filter_global_plus_request_project_and_session_only():
    rs = {
        scope: rec(attribute="profile.languages", value=f"lang-{scope}", scope=scope)
        for scope in ("global", "project:p1", "project:p2", "session:s1", "session:s2")
    }
    out = run(list(rs.values()), project="p1", session="s1", explain=True)
    assert set(out.used_ids) == {rs["global"].id, rs["project:p1"].id, rs["session:s1"].id}
    assert reasons(out) == {rs["project:p2"].id: "out_of_scope", rs["session:s2"].id: "out_of_scope"}
    for leaked in ("lang-project:p2", "lang-session:s2"):
        assert leaked not in out.context
    bare = run(list(rs.values()))
    assert bare.used_ids == [rs["global"].id]


def test_narrowest_scope_wins_for_a_single_valued_attribute():
    g = rec(value="detailed")
    p = rec(value="concise", scope="project:p1")
    s = rec(value="bullet points", scope="session:s1")
    out = run([g, p, s], project="p1", session="s1", explain=True)
    assert out.used_ids == [s.id]
    assert reasons(out) == {g.id: "shadowed", p.id: "shadowed"}
    assert run([g, p, s], project="p1").used_ids == [p.id]
    assert run([g, p, s]).used_ids == [g.id]
    # order of the candidates does not matter
    assert run([s, p, g], project="p1", session="s1").used_ids == [s.id]


def test_a_narrower_inference_does_not_hide_the_users_explicit_value():
    explicit = rec(value="detailed")
    inferred = rec(
        value="concise",
        scope="session:s1",
        authority="system_inferred",
        confidence=0.9,
        _at=T0 + 0.5 * H,
        observed_at=(T0 + 0.5 * H).isoformat(),
    )
    out = run([explicit, inferred], session="s1")
    assert explicit.id in out.used_ids


def test_users_word_beats_an_inference_in_the_same_scope_then_newest():
    explicit = rec(value="detailed")
    inferred = rec(
        value="concise",
        authority="system_inferred",
        confidence=0.9,
        _at=T0 + 0.5 * H,
        observed_at=(T0 + 0.5 * H).isoformat(),
    )
    assert run([inferred, explicit]).used_ids == [explicit.id]
    older = rec(value="terse", observed_at=(T0 - H).isoformat())
    assert run([older, explicit]).used_ids == [explicit.id]


def test_multi_valued_attribute_keeps_every_value():
    a = rec(attribute="profile.languages", value="German")
    b = rec(attribute="profile.languages", value="French", scope="session:s1")
    assert set(run([a, b], session="s1").used_ids) == {a.id, b.id}


# --- eligibility and working assumptions ----------------------------------------------------


def test_working_assumptions_threshold_and_section():
    ok = rec(value="concise", authority="system_inferred", confidence=ASSUMPTION_MIN_CONFIDENCE)
    assert ASSUMPTION_MIN_CONFIDENCE == 0.7
    out = run([ok])
    assert out.used_ids == [ok.id] and out.items[0].section == "assumptions"
    assert out.context.startswith("## Working assumptions")
    weak = rec(value="concise", authority="system_inferred", confidence=0.69)
    out = run([weak], explain=True)
    assert out.used_ids == [] and reasons(out) == {weak.id: "weak_assumption"}


@pytest.mark.parametrize(
    "kw,usable",
    [
        ({"consequence": "low"}, True),
        ({"consequence": "medium"}, True),
        ({"consequence": "high"}, False),
        ({"consequence": "critical"}, False),
        ({"sensitivity": "personal"}, False),
        ({"authority": "user_observed"}, True),
    ],
)
def test_working_assumption_conditions(kw, usable):
    data = {"authority": "system_inferred", "confidence": 0.9, **kw}
    c = from_record(rec(value="concise", **data))
    assert is_working_assumption(c) is usable
    assert (exclusion_reason(c, int(NOW.timestamp() * 1000), request(), ["global"]) is None) is usable


def test_stated_and_assumed_are_presented_separately():
    stated = rec(attribute="preference.language", value="German")
    assumed = rec(value="concise", authority="system_inferred", confidence=0.8)
    out = run([stated, assumed])
    assert {i.section for i in out.items} == {"stated", "assumptions"}
    stated_block, assumed_block = out.context.split("\n\n")
    assert stated_block.startswith("## What the user stated") and "German" in stated_block
    assert assumed_block.startswith("## Working assumptions") and "concise" in assumed_block


@pytest.mark.parametrize(
    "status",
    [Status.PENDING_REVIEW, Status.CONFLICTED, Status.SUPERSEDED, Status.EXPIRED, Status.REVIEW_DUE, Status.DELETED],
)
def test_only_active_and_candidate_statuses_are_used(status):
    r = rec(status=status)
    out = run([r], explain=True)
    assert out.used_ids == [] and reasons(out) == {r.id: f"status_{status.value}"}


def test_time_checks_at_read_time():
    expired = rec(attribute="priority.focus", value="ship v2")  # 7 days
    future = rec(attribute="preference.language", value="French", valid_from=(T0 + 3 * H).isoformat())
    review = rec(attribute="profile.home_city", value="Berlin")  # review in 180 days
    out = run([expired, future, review], at=T0 + timedelta(days=200), explain=True)
    assert out.used_ids == [future.id]
    assert reasons(out) == {expired.id: "expired", review.id: "review_due"}
    out = run([expired, future, review], at=T0 + H, explain=True)
    assert reasons(out) == {future.id: "not_yet_valid"}


def test_personal_and_secret_sensitivity():
    city = rec(attribute="profile.home_city", value="Berlin")
    assert run([city]).used_ids == [city.id]
    out = run([city], allow_personal=False, explain=True)
    assert out.used_ids == [] and reasons(out) == {city.id: "sensitivity"}
    secret = varied(from_record(rec(attribute="profile.name", value="x")), sensitivity=Sensitivity.SECRET)
    assert exclusion_reason(secret, int(NOW.timestamp() * 1000), request(), ["global"]) == "secret"


def test_can_use_accepts_records_and_candidates():
    r = rec(value="detailed")
    assert can_use(r, NOW, request()) and can_use(from_record(r), NOW, request())
    p = rec(value="detailed", scope="project:p9")
    assert not can_use(p, NOW, request()) and can_use(p, NOW, request(project="p9"))
    assert not can_use(r, T0 - H, request())  # not yet known


# --- ranking --------------------------------------------------------------------------------


def test_confidence_is_not_a_ranking_weight():
    a = from_record(rec(attribute="goal.database", value="postgres", authority="system_inferred", confidence=0.71))
    b = varied(a, id="other", confidence=1.0)
    for q in ("", "which database", "postgres"):
        assert score(a, tokens(q)) == score(b, tokens(q))
    # ranking among two otherwise identical records is by id, not by confidence
    hi = varied(a, id="a-low-id", confidence=0.7)
    lo = varied(a, id="z-high-id", confidence=0.99)
    for order in ([lo, hi], [hi, lo]):
        out = select(request(max_items=1), order, NOW)
        assert out.used_ids == ["a-low-id"]
        assert select(request(), order, NOW).items[0].score == select(request(), order, NOW).items[1].score


def test_relevance_importance_consequence_actionability_rank():
    db = rec(attribute="knowledge.db", value="postgres", statement="The project uses Postgres 16.")
    ci = rec(attribute="knowledge.ci", value="github actions", statement="CI runs on GitHub Actions.")
    assert run([db, ci], text="which database does the project use? postgres", max_items=1).used_ids == [db.id]
    assert run([db, ci], text="how does CI run, github actions", max_items=1).used_ids == [ci.id]
    base = from_record(db)
    q = tokens("")
    for field, lo, hi in (("importance", 0.1, 0.9), ("actionability", 0.1, 0.9)):
        assert score(varied(base, **{field: hi}), q) > score(varied(base, **{field: lo}), q)
    from slotstream.memory.models import Consequence

    assert score(varied(base, consequence=Consequence.HIGH), q) > score(varied(base, consequence=Consequence.LOW), q)


def test_tokens():
    assert tokens("What is the Database, please?") == frozenset({"database"})
    assert tokens("用中文回答") == frozenset({"用中", "中文", "文回", "回答"})
    assert tokens("中") == frozenset({"中"})
    assert tokens("") == frozenset()


# --- budgets --------------------------------------------------------------------------------


def many(n: int) -> list[Record]:
    return [rec(attribute=f"knowledge.topic{i}", value=f"fact number {i} about the project") for i in range(n)]


def test_count_budget():
    rs = many(10)
    out = run(rs, max_items=3, explain=True)
    assert len(out.items) == 3 and len(out.used_ids) == 3
    assert sorted(reasons(out).values()) == ["over_item_budget"] * 7
    assert out.considered == 10


@pytest.mark.parametrize("max_chars", [50, 80, 120, 200, 400, 2000])
def test_char_budget(max_chars):
    rs = many(20)
    out = run(rs, max_chars=max_chars, max_items=200, explain=True)
    assert len(out.context) <= max_chars
    assert len(out.items) + len(out.excluded) == 20
    assert all(e.reason == "over_char_budget" for e in out.excluded)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(
                ["knowledge.a", "knowledge.b", "goal.x", "rule.y", "priority.z", DETAIL, "profile.allergies"]
            ),
            st.text("abcdefgh 中文", min_size=1, max_size=40).filter(str.strip),
        ),
        min_size=0,
        max_size=15,
    ),
    st.integers(50, 600),
    st.integers(1, 10),
)
def test_budgets_always_respected(entries, max_chars, max_items):
    rs = [rec(attribute=a, value=v) for a, v in entries]
    out = run(rs, max_chars=max_chars, max_items=max_items)
    assert len(out.context) <= max_chars
    assert len(out.items) <= max_items
    assert out.used_ids == [i.id for i in out.items]


def test_char_budget_respected_with_overrides():
    out = run(many(10), max_chars=120, overrides={"preference.language": "English"})
    assert len(out.context) <= 120


# --- overrides, explanations, used ids ------------------------------------------------------


def test_request_override_for_this_request_only():
    stored = rec(attribute="preference.language", value="German")
    snapshot = from_record(stored)
    out = run([stored], overrides={"preference.language": "English"}, explain=True)
    assert out.items[0].section == "request" and out.items[0].value == "English"
    assert "English" in out.context and "German" not in out.context
    assert out.context.startswith("## For this request only")
    assert reasons(out) == {stored.id: "overridden_by_request"}
    assert out.used_ids == []  # an override is not a stored record
    # nothing was rewritten: the next request sees the stored preference again
    assert from_record(stored) == snapshot
    nxt = run([stored])
    assert nxt.used_ids == [stored.id] and "German" in nxt.context


def test_explain_only_on_request():
    r = rec(status=Status.PENDING_REVIEW)
    assert run([r]).excluded == []
    assert reasons(run([r], explain=True)) == {r.id: "status_pending_review"}


def test_used_ids_and_considered():
    used = rec(attribute="preference.language", value="German")
    gone = rec(status=Status.SUPERSEDED)
    out = run([used, gone], explain=True)
    assert out.used_ids == [used.id] and out.considered == 2
    assert set(out.used_ids) | {e.id for e in out.excluded} == {used.id, gone.id}
    assert out.tenant == "t1" and out.user == "u1" and out.at == NOW


def test_sections_for_every_kind():
    goal = rec(attribute="goal.learn_rust", value="learn Rust")
    prio = rec(attribute="priority.focus", value="ship v2")
    rule = rec(attribute="rule.confirm_before", value="deleting data")
    know = rec(attribute="knowledge.db", value="postgres")
    sess = rec(kind="session_context", attribute="session.task", value="fixing bug 12", scope="session:s1")
    fact = rec(
        kind="fact",
        attribute="fact.sla",
        value="99.9%",
        authority="authoritative_source",
        valid_from="2024-01-01T00:00:00Z",
        valid_until="2025-01-01T00:00:00Z",
        evidence=[{"source_type": "document", "source_id": "contract-7"}],
    )
    out = run([goal, prio, rule, know, sess, fact], session="s1", max_items=20)
    assert {i.id: i.section for i in out.items} == {
        goal.id: "goals",
        prio.id: "priorities",
        rule.id: "rules",
        know.id: "knowledge",
        sess.id: "session",
        fact.id: "facts",
    }
    titles = [b.split("\n", 1)[0] for b in out.context.split("\n\n")]
    assert titles == [
        "## Goals",
        "## Current priorities",
        "## Collaboration rules",
        "## Project knowledge and decisions",
        "## Facts (from their source)",
        "## Current session",
    ]
    assert "(until 2024-01-08T00:00:00Z)" in render_line(from_record(prio))
    assert "[source: contract-7, valid until 2025-01-01T00:00:00Z]" in render_line(from_record(fact))
    assert section_of(from_record(rec(value="x", authority="system_inferred", confidence=0.9))) == "assumptions"


def test_render_line_adds_the_value_when_the_statement_lacks_it():
    c = from_record(rec(value="detailed", statement="Likes depth."))
    assert render_line(c) == "- Likes depth. (detailed)"
    c = from_record(rec(value="detailed", statement="Wants detailed answers."))
    assert render_line(c) == "- Wants detailed answers."


def test_compact_round_trip_is_selection_only():
    r = rec(value="detailed", evidence=[{"source_id": "turn-1", "quote": "I want a very long quote here"}])
    d = compact(r)
    c = from_compact(d)
    assert c == from_record(r)
    assert c.id == r.id and c.value == "detailed" and c.status == Status.ACTIVE
    assert "quote" not in str(d) and "very long quote" not in str(d)
    assert "detailed" in c.tokens


@pytest.mark.parametrize("width", [20, 21])
def test_rows_written_before_the_later_columns_decode_and_select_as_full_rows(width):
    """Redis may hold rows from before the stored static value (20 columns) and before audiences,
    dependencies and review notes (21): they decode with the defaults and select the same."""
    records = [
        rec(attribute=f"knowledge.item_{i}", kind="knowledge", value=f"api budget {i}", importance=i / 10)
        for i in range(6)
    ]
    full = [compact(r) for r in records]
    short = [row[:width] for row in full]
    old = ROWS.decode(msgspec.json.encode(short))
    assert [c.base for c in old] == ([-1.0] * 6 if width == 20 else [row[20] for row in full])
    assert all(c.audience is None and c.dependency_until_ms is None and c.note is None for c in old)
    req = ContextRequest(tenant="t1", user="u1", text="api budget", max_items=3)
    before, now = select(req, old, NOW), select(req, ROWS.decode(msgspec.json.encode(full)), NOW)
    assert (before.used_ids, before.context) == (now.used_ids, now.context) and len(now.used_ids) == 3
    # the stored static value is rounded to 6 places; one worked out afresh differs past that
    assert [i.score for i in before.items] == pytest.approx([i.score for i in now.items], abs=1e-6)


_STATUSES = ["active", "candidate", "superseded", "rejected", "deleted", "expired", "archived"]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(
    status=st.sampled_from(_STATUSES),
    sensitivity=st.sampled_from(["normal", "personal", "secret"]),
    kind=st.sampled_from(["preference", "fact", "knowledge", "priority"]),
    authority=st.sampled_from(["user_explicit", "system_inferred", "user_observed", "authoritative_source"]),
    confidence=st.sampled_from([0.2, ASSUMPTION_MIN_CONFIDENCE - 0.01, ASSUMPTION_MIN_CONFIDENCE, 0.95]),
    consequence=st.sampled_from(["low", "medium", "high"]),
    scope=st.sampled_from(["global", "project:p1", "session:s1", "project:other"]),
    times=st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=4, max_size=4),
    at=st.integers(-6, 6),
    allow_personal=st.booleans(),
    project=st.sampled_from([None, "p1"]),
)
def test_the_folded_eligibility_check_agrees_with_exclusion_reason(
    status, sensitivity, kind, authority, confidence, consequence, scope, times, at, allow_personal, project
):
    """`usable_window` is `exclusion_reason` rearranged for speed: the two must never disagree."""
    observed, valid_from, valid_until, review = (None if t is None else t * 1000 for t in times)
    base = from_record(rec(attribute="knowledge.thing", value="v"))
    c = varied(
        base,
        status=status,
        sensitivity=sensitivity,
        kind=kind,
        authority=authority,
        confidence=confidence,
        consequence=consequence,
        scope=scope,
        observed_ms=observed if observed is not None else 0,
        valid_from_ms=valid_from,
        valid_until_ms=valid_until,
        review_ms=review,
    )
    req = request(project=project, allow_personal=allow_personal, explain=True)
    scopes = frozenset(req.scopes())
    prepared = varied(c)
    prepare([prepared])
    assert c.window is None and prepared.window is not None
    passes, personal, start, end = usable_window(prepared)
    folded = passes and start <= at * 1000 < end and c.scope in scopes and (allow_personal or not personal)
    assert folded == (exclusion_reason(c, at * 1000, req, scopes) is None)
    # and select() itself, prepared or not: used exactly when usable, the same reason when not
    when = datetime.fromtimestamp(at, tz=UTC)
    plain_out, prepared_out = select(req, [c], when), select(req, [prepared], when)
    assert (plain_out.used_ids == [c.id]) == folded
    assert (plain_out.context, plain_out.excluded) == (prepared_out.context, prepared_out.excluded)


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["knowledge.a", "knowledge.b", "goal.x", "rule.y", DETAIL, "profile.allergies"]),
            st.sampled_from(["api budget", "latency", "vim", "postgres db", "预算 延迟"]),
            st.sampled_from(["global", "project:p1", "session:s1"]),
            st.sampled_from([None, -2, 3]),
        ),
        max_size=40,
    ),
    st.sampled_from(["api latency budget", "db", "预算", ""]),
    st.integers(1, 12),
    st.booleans(),
)
def test_prepared_candidates_select_exactly_as_fresh_ones(entries, query, max_items, explain):
    records = [
        rec(attribute=a, value=v, scope=sc, **({"valid_until": NOW + until * H} if until is not None else {}))
        for a, v, sc, until in entries
    ]
    fresh = cands(*records)
    prepared = cands(*records)
    prepare(prepared)
    req = {"project": "p1", "session": "s1", "text": query, "max_items": max_items, "explain": explain}
    a, b = select(request(**req), fresh, NOW), select(request(**req), prepared, NOW)
    assert (a.context, a.used_ids, a.excluded) == (b.context, b.used_ids, b.excluded)


def test_an_accessibility_need_reaches_its_own_areas_and_not_food_through_health() -> None:
    deaf = rec(
        attribute="profile.accessibility",
        kind="preference",
        value="deaf in my left ear",
        statement="I'm deaf in my left ear",
    )
    pizza = run([deaf], text="What's the best dough hydration for pizza?", explain=True)
    assert [i.id for i in pizza.items] == [] and reasons(pizza)[deaf.id] == "unrelated"
    calls = run([deaf], text="Which hearing aids should I look at?")
    assert [i.id for i in calls.items] == [deaf.id]

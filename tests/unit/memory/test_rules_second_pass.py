"""The rules of the second correctness pass (docs/concepts.md, rules 6, 9-13), pure: forgetting a
corrected value covers its correction chain, suppressions belong to their scope, a value corrected
away stays away in multi-valued slots too, retraction, dependent facts, audiences, special
categories, move and restore."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.models import Sensitivity, Status

from simulation import DETAIL, Sim

T0 = datetime(2024, 1, 1, tzinfo=UTC)
H = timedelta(hours=1)
D = timedelta(days=1)
LANGS = "profile.languages"
INFERRED = {"authority": "system_inferred", "confidence": 0.9}


def reasons(s: Sim, at: datetime, **req) -> dict[str, str]:
    return {e.id: e.reason for e in s.context(at, **req).excluded}


# === forgetting a corrected value covers its correction chain ================================


def test_forgetting_the_current_value_forgets_what_it_replaced():
    s = Sim()
    _, concise = s.record(T0, value="concise")
    _, detailed = s.record(T0 + H, value="detailed", corrects=concise.id)
    t = s.command(T0 + 2 * H, op="forget", record_id=detailed.id)
    assert s.get(concise.id).status == Status.DELETED and s.get(concise.id).value is None
    assert s.get(detailed.id).status == Status.DELETED
    assert {sup.reason for sup in t.suppress} == {"forget"} and len(t.suppress) == 2
    # neither value comes back automatically: an inference, or a re-extracted earlier statement
    t, _ = s.record(T0 + D, value="concise", **INFERRED)
    assert (t.outcome, t.reason) == ("dropped", "suppressed")
    t, _ = s.record(T0 + D, value="concise", observed_at=(T0 + 0.5 * H).isoformat())
    assert (t.outcome, t.reason) == ("dropped", "suppressed")
    assert "concise" not in s.context(T0 + D).context
    # only the user's own new statement brings a value back
    t, again = s.record(T0 + 2 * D, value="concise")
    assert t.outcome == "applied" and s.get(again.id).status == Status.ACTIVE


def test_forget_by_match_on_a_value_covers_the_chain_that_led_to_it():
    s = Sim()
    _, a = s.record(T0, value="concise")
    _, b = s.record(T0 + H, value="detailed", corrects=a.id)
    _, c = s.record(T0 + 2 * H, value="bullet points", corrects=b.id)
    s.command(T0 + 3 * H, op="forget", match={"attribute": DETAIL, "value": "bullet points"})
    assert {s.get(r.id).status for r in (a, b, c)} == {Status.DELETED}
    for value in ("concise", "detailed"):
        t, _ = s.record(T0 + D, value=value, **INFERRED)
        assert t.reason == "suppressed", value


# === a suppression belongs to the scope it was made in =======================================


def test_a_project_statement_lifts_nothing_in_another_project():
    s = Sim()
    _, p1 = s.record(T0, value="concise", scope="project:one")
    s.command(T0 + H, op="forget", record_id=p1.id)
    t, _ = s.record(T0 + 2 * H, value="concise", scope="project:two")
    assert t.outcome == "applied" and t.unsuppress == []
    # project one stays suppressed: an inference there is dropped ...
    t, _ = s.record(T0 + 3 * H, value="concise", scope="project:one", **INFERRED)
    assert (t.outcome, t.reason) == ("dropped", "suppressed")
    assert "concise" not in s.context(T0 + 4 * H, project="one").context
    # ... and project two, where the user said it, is not
    assert "concise" in s.context(T0 + 4 * H, project="two").context


def test_a_statement_in_the_same_project_lifts_its_suppression():
    s = Sim()
    _, p1 = s.record(T0, value="concise", scope="project:one")
    s.command(T0 + H, op="forget", record_id=p1.id)
    t, _ = s.record(T0 + 2 * H, value="concise", scope="project:one")
    assert t.outcome == "applied" and len(t.unsuppress) == 1


def test_a_global_deletion_holds_everywhere_and_a_project_statement_does_not_lift_it():
    s = Sim()
    _, g = s.record(T0, value="concise")
    s.command(T0 + H, op="forget", record_id=g.id)
    t, _ = s.record(T0 + 2 * H, value="concise", scope="project:two")
    assert t.outcome == "applied" and t.unsuppress == []  # the user's word, in that project only
    for scope in ("global", "project:three"):
        t, _ = s.record(T0 + 3 * H, value="concise", scope=scope, **INFERRED)
        assert (t.outcome, t.reason) == ("dropped", "suppressed"), scope


def test_a_global_statement_leaves_a_projects_deletion_standing():
    s = Sim()
    _, p1 = s.record(T0, value="concise", scope="project:one")
    s.command(T0 + H, op="forget", record_id=p1.id)
    t, _ = s.record(T0 + 2 * H, value="concise")  # global
    assert t.outcome == "applied" and t.unsuppress == []
    t, _ = s.record(T0 + 3 * H, value="concise", scope="project:one", **INFERRED)
    assert t.reason == "suppressed"


# === a value corrected away stays away, single- and multi-valued ============================


def test_multi_valued_correction_keeps_the_replaced_value_out():
    s = Sim()
    _, german = s.record(T0, attribute=LANGS, value="German", **INFERRED)
    s.record(T0 + H, attribute=LANGS, value="Japanese", corrects=german.id)
    assert s.get(german.id).status == Status.SUPERSEDED
    # a later inference of the replaced value is not added again
    t, _ = s.record(T0 + 2 * H, attribute=LANGS, value="German", **INFERRED)
    assert (t.outcome, t.reason) == ("dropped", "suppressed")
    # nor a late copy of a statement made before the correction
    t, _ = s.record(T0 + 3 * H, attribute=LANGS, value="German", observed_at=(T0 + 0.5 * H).isoformat())
    assert (t.outcome, t.reason) == ("dropped", "suppressed")
    assert [r.value for r in s.usable(T0 + 4 * H, LANGS)] == ["Japanese"]
    # other values still add, and the user's own later statement brings German back
    t, _ = s.record(T0 + 4 * H, attribute=LANGS, value="French", **INFERRED)
    assert t.outcome == "applied"
    t, _ = s.record(T0 + 5 * H, attribute=LANGS, value="German")
    assert t.outcome == "applied"
    assert sorted(r.value for r in s.usable(T0 + 6 * H, LANGS)) == ["French", "German", "Japanese"]


def test_single_valued_correction_keeps_the_replaced_value_out():
    s = Sim()
    _, concise = s.record(T0, value="concise")
    s.command(T0 + H, op="correct", record_id=concise.id, value="detailed")
    t, _ = s.record(T0 + 2 * H, value="concise", **INFERRED)
    assert (t.outcome, t.reason) == ("dropped", "suppressed")


def test_a_correction_keeps_the_value_out_of_its_own_scope_only():
    s = Sim()
    _, concise = s.record(T0, value="concise")
    s.command(T0 + H, op="correct", record_id=concise.id, value="detailed")
    t, _ = s.record(T0 + 2 * H, value="concise", scope="session:s1")  # "this time, concise"
    assert t.outcome == "applied"
    assert "concise" in s.context(T0 + 2.5 * H, session="s1").context


# === retraction =============================================================================


def test_retract_by_id_leaves_the_slot_without_a_current_value():
    s = Sim()
    _, rec = s.record(T0, attribute="knowledge.decision.database", kind="knowledge", value="Postgres")
    t = s.command(T0 + H, op="retract", record_id=rec.id)
    gone = s.get(rec.id)
    assert gone.status == Status.RETRACTED and gone.status_reason == "retracted by the user"
    assert gone.value == "Postgres"  # lineage shows what was retracted and why
    assert s.view.live(rec.slot) == []
    assert "Postgres" not in s.context(T0 + 2 * H).context
    assert [c["type"] for c in t.changes] == ["retracted", "suppressed"]
    # an automatic re-inference of the same conclusion does not bring it back
    t, _ = s.record(T0 + 3 * H, attribute="knowledge.decision.database", kind="knowledge", value="Postgres", **INFERRED)
    assert t.reason == "suppressed"


def test_retract_latest_in_a_family_takes_the_most_recent_conclusion():
    s = Sim()
    _, older = s.record(T0, attribute="knowledge.decision.api", kind="knowledge", value="REST")
    _, newer = s.record(T0 + H, attribute="knowledge.estimate", kind="knowledge", value="3 weeks")
    s.command(T0 + 2 * H, op="retract", match={"attribute": "knowledge", "family": True}, latest=True)
    assert s.get(newer.id).status == Status.RETRACTED and s.get(older.id).status == Status.ACTIVE


def test_retract_of_nothing_live_is_a_noop_and_of_a_fact_is_refused():
    s = Sim()
    t = s.command(T0, op="retract", match={"attribute": "knowledge", "family": True}, latest=True)
    assert (t.outcome, t.reason) == ("noop", "target_not_found")
    with pytest.raises(Rejected) as err:
        s.command(T0, op="retract")
    assert err.value.reason == Reason.MISSING_FIELD


# === dependent facts ========================================================================


def _budget_and_decision(s: Sim, **budget_extra):
    _, budget = s.record(T0, attribute="knowledge.budget", kind="knowledge", value="5000 EUR", **budget_extra)
    _, decision = s.record(
        T0 + H,
        attribute="knowledge.decision.laptop",
        kind="knowledge",
        value="buy the 4000 EUR model",
        depends_on=[budget.id],
    )
    return budget, decision


def test_a_corrected_dependency_sends_its_dependent_to_review_in_the_same_transition():
    s = Sim()
    budget, decision = _budget_and_decision(s)
    assert "buy the 4000 EUR model" in s.context(T0 + 2 * H).context
    t = s.command(T0 + 3 * H, op="correct", record_id=budget.id, value="3000 EUR")
    moved = t.puts[decision.id]
    assert moved.status == Status.NEEDS_REVIEW and budget.id in (moved.status_reason or "")
    out = s.context(T0 + 4 * H)
    assert "4000 EUR model" not in out.context and "3000 EUR" in out.context
    assert {e.id: e.reason for e in out.excluded}[decision.id] == "status_needs_review"
    assert "corrected" in next(e.detail for e in out.excluded if e.id == decision.id)


@pytest.mark.parametrize(
    "change",
    [
        {"op": "retract"},
        {"op": "forget"},
        {"op": "expire"},
    ],
)
def test_retracted_forgotten_or_expired_dependencies_send_dependents_to_review(change):
    s = Sim()
    budget, decision = _budget_and_decision(s, valid_until=(T0 + D).isoformat())
    t = s.command(T0 + 2 * D, record_id=budget.id, **change)
    assert t.puts[decision.id].status == Status.NEEDS_REVIEW


def test_review_propagates_transitively_and_through_slot_dependencies():
    s = Sim()
    budget, decision = _budget_and_decision(s)
    _, order = s.record(
        T0 + 2 * H,
        attribute="knowledge.order",
        kind="knowledge",
        value="order placed",
        depends_on=["slot:knowledge.decision.laptop"],
    )
    _, note = s.record(
        T0 + 2 * H, attribute="knowledge.note", kind="knowledge", value="tell Ana", depends_on=[order.id]
    )
    t = s.command(T0 + 3 * H, op="retract", record_id=budget.id)
    assert {rid for rid, r in t.puts.items() if r.status == Status.NEEDS_REVIEW} == {decision.id, order.id, note.id}


def test_dependency_expiry_is_checked_at_read_time_without_a_sweep():
    s = Sim()
    _, decision = _budget_and_decision(s, valid_until=(T0 + D).isoformat())
    assert s.get(decision.id).dependency_until == T0 + D
    assert "4000 EUR" in s.context(T0 + 2 * H).context
    assert reasons(s, T0 + 2 * D)[decision.id] == "dependency_expired"


def test_dependencies_must_exist_and_an_ended_one_starts_the_dependent_in_review():
    s = Sim()
    with pytest.raises(Rejected) as err:
        s.record(T0, attribute="knowledge.x", kind="knowledge", value="v", depends_on=["r_unknown"])
    assert err.value.reason == Reason.INVALID_DEPENDENCY
    with pytest.raises(Rejected) as err:
        s.record(T0, attribute="knowledge.x", kind="knowledge", value="v", depends_on=["slot:knowledge.x"])
    assert err.value.reason == Reason.INVALID_DEPENDENCY
    _, base = s.record(T0, attribute="knowledge.base", kind="knowledge", value="a")
    s.command(T0 + H, op="retract", record_id=base.id)
    t, derived = s.record(T0 + 2 * H, attribute="knowledge.derived", kind="knowledge", value="b", depends_on=[base.id])
    assert t.puts[derived.id].status == Status.NEEDS_REVIEW


def test_a_dependent_in_review_is_confirmed_or_replaced_by_the_user():
    s = Sim()
    budget, decision = _budget_and_decision(s)
    s.command(T0 + 2 * H, op="correct", record_id=budget.id, value="4500 EUR")
    s.command(T0 + 3 * H, op="confirm", record_id=decision.id)
    assert s.get(decision.id).status == Status.ACTIVE
    assert "4000 EUR model" in s.context(T0 + 4 * H).context


# === audiences ==============================================================================


def test_a_record_with_an_audience_is_seen_only_by_its_roles():
    s = Sim()
    _, secret_plan = s.record(
        T0, attribute="knowledge.reorg", kind="knowledge", value="merge teams A and B", audience=["vp", "hr"]
    )
    _, open_note = s.record(T0, attribute="knowledge.office", kind="knowledge", value="office moves in May")
    out = s.context(T0 + H)
    assert open_note.id in out.used_ids and secret_plan.id not in out.used_ids
    assert {e.id: e.reason for e in out.excluded}[secret_plan.id] == "audience"
    assert secret_plan.id in s.context(T0 + H, roles=["engineer", "vp"]).used_ids
    assert secret_plan.id not in s.context(T0 + H, roles=["engineer"]).used_ids


def test_oversized_or_malformed_dependencies_and_audiences_are_refused():
    s = Sim()
    too_many = [f"r{i}" for i in range(33)]
    for field, value, reason in (
        ("depends_on", too_many, Reason.TOO_LARGE),
        ("audience", too_many, Reason.TOO_LARGE),
        ("depends_on", ["has space"], Reason.INVALID_DEPENDENCY),
        ("depends_on", ["slot:bad|attr"], Reason.INVALID_DEPENDENCY),
        ("audience", ["x" * 129], Reason.INVALID_FIELD),
    ):
        with pytest.raises(Rejected) as err:
            s.record(T0, attribute="knowledge.x", kind="knowledge", value="v", **{field: value})
        assert err.value.reason == reason, (field, value)
    assert not s.view.records


def test_a_requests_roles_are_bounded():
    from pydantic import ValidationError

    from slotstream.memory.models import ContextRequest

    with pytest.raises(ValidationError):
        ContextRequest(tenant="t1", user="u1", roles=["x" * 129])
    with pytest.raises(ValidationError):
        ContextRequest(tenant="t1", user="u1", roles=[f"r{i}" for i in range(65)])


def test_audience_entries_are_checked():
    s = Sim()
    with pytest.raises(Rejected):
        s.record(T0, attribute="knowledge.x", kind="knowledge", value="v", audience=["has space"])


# === special categories =====================================================================


def test_an_inferred_special_category_item_is_never_stored():
    s = Sim()
    for attribute in ("profile.allergies", "health.condition", "profile.religion"):
        with pytest.raises(Rejected) as err:
            s.record(T0, attribute=attribute, value="x", **INFERRED)
        assert err.value.reason == Reason.SPECIAL_CATEGORY_INFERRED
    # saying it is "normal" does not get an inference through
    with pytest.raises(Rejected):
        s.record(T0, attribute="profile.allergies", value="peanuts", sensitivity="normal", **INFERRED)
    assert not s.view.records


def test_a_stated_special_item_is_used_only_on_its_topic():
    s = Sim()
    _, allergy = s.record(T0, attribute="profile.allergies", value="peanuts", sensitivity="normal")
    assert s.get(allergy.id).sensitivity == Sensitivity.SPECIAL
    assert allergy.id in s.context(T0 + H, text="Suggest a dinner recipe").used_ids
    assert allergy.id in s.context(T0 + H, text="推荐点零食").used_ids
    out = s.context(T0 + H, text="Draft a work email to my manager")
    assert (
        allergy.id not in out.used_ids and reasons(s, T0 + H, text="Draft an email")[allergy.id] == "special_off_topic"
    )


# === move and restore =======================================================================


def test_move_takes_a_slot_and_its_history_to_another_scope():
    s = Sim()
    _, first = s.record(
        T0, value="concise", scope="session:s1", valid_from=T0.isoformat(), valid_until=(T0 + 4 * H).isoformat()
    )
    s.command(T0 + H, op="forget", match={"attribute": DETAIL, "value": "terse", "scope": "session:s1"})
    t = s.command(T0 + 2 * H, op="move", attribute=DETAIL, from_scope="session:s1", to_scope="project:p1")
    moved = s.get(first.id)
    assert moved.scope == "project:p1" and moved.valid_until is None  # "this time" became lasting
    assert s.view.history["user|preference.response.detail|project:p1"] == [first.id]
    assert s.view.history["user|preference.response.detail|session:s1"] == []
    assert any(sup.scope == "project:p1" for sup in t.suppress) and len(t.unsuppress) == 1
    assert first.id in s.context(T0 + D, project="p1").used_ids


def test_move_into_an_occupied_slot_is_refused():
    s = Sim()
    s.record(T0, value="concise", scope="session:s1")
    s.record(T0, value="detailed", scope="project:p1")
    with pytest.raises(Rejected) as err:
        s.command(T0 + H, op="move", attribute=DETAIL, from_scope="session:s1", to_scope="project:p1")
    assert err.value.reason == Reason.SCOPE_OCCUPIED


def test_restore_lifts_a_suppression_explicitly():
    s = Sim()
    _, rec = s.record(T0, value="concise")
    s.command(T0 + H, op="forget", record_id=rec.id)
    t = s.command(T0 + 2 * H, op="restore", match={"attribute": DETAIL, "value": "concise"})
    assert t.outcome == "applied" and len(t.unsuppress) == 1 and not s.view.suppressions
    t, back = s.record(T0 + 3 * H, value="concise", **INFERRED)
    assert t.outcome == "applied" and s.get(back.id).status == Status.CANDIDATE
    assert s.get(rec.id).status == Status.DELETED  # nothing forgotten is rebuilt by a restore
    t = s.command(T0 + 4 * H, op="restore", match={"attribute": DETAIL})
    assert t.outcome == "noop"

"""Validation: every invalid input is rejected with a reason code before any state is read.

The issue's invalid-input list: missing tenant/user, unknown kind, a project:/session: scope
without an id, confidence outside 0..1, valid_until before valid_from, a fact without an
authoritative source and a validity window. Plus the other reason codes of `memory.errors`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.models import (
    Authority,
    Cardinality,
    ConfirmCommand,
    Consequence,
    ForgetCommand,
    Kind,
    Sensitivity,
    Status,
)
from slotstream.memory.registry import TEMPORARY_LIFETIME
from slotstream.memory.validation import (
    build_record,
    derive_id,
    normalize_value,
    parse_command,
    parse_record,
    value_hash,
)

T0 = datetime(2024, 1, 1, tzinfo=UTC)
DAY = timedelta(days=1)


def wire(**kw: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"tenant": "t1", "user": "u1", "attribute": "preference.response.detail", "value": "detailed"}
    d.update(kw)
    return {k: v for k, v in d.items() if v is not ...}


def build(**kw: Any):
    return build_record(parse_record(wire(**kw)), op_id="op-1", at=T0)


def fact(**kw: Any) -> dict[str, Any]:
    d = dict(
        kind="fact",
        attribute="fact.price.basic_plan",
        value="10 EUR/month",
        authority="authoritative_source",
        valid_from="2024-01-01T00:00:00Z",
        valid_until="2024-06-01T00:00:00Z",
        evidence=[{"source_type": "document", "source_id": "price-list-2024"}],
    )
    d.update(kw)
    return d


def reason_of(**kw: Any) -> Reason:
    with pytest.raises(Rejected) as err:
        build(**kw)
    return err.value.reason


# --- the invalid-input list ---------------------------------------------------------


@pytest.mark.parametrize("value", [None, ""])
def test_missing_tenant(value):
    assert reason_of(tenant=value) == Reason.MISSING_TENANT
    assert reason_of(tenant=...) == Reason.MISSING_TENANT


@pytest.mark.parametrize("value", [None, ""])
def test_missing_user(value):
    assert reason_of(user=value) == Reason.MISSING_USER
    assert reason_of(user=...) == Reason.MISSING_USER


def test_bad_tenant_or_user_id():
    assert reason_of(tenant="a:b") == Reason.INVALID_ID
    assert reason_of(user="{u}") == Reason.INVALID_ID
    assert reason_of(id="has space") == Reason.INVALID_ID


def test_unknown_kind():
    assert reason_of(kind="opinion") == Reason.UNKNOWN_KIND


def test_unregistered_attribute_without_kind():
    assert reason_of(attribute="hobby.favourite_colour") == Reason.UNKNOWN_KIND
    # with a kind it is allowed: single-valued, medium consequence
    rec = build(attribute="hobby.favourite_colour", kind="preference", value="green")
    assert rec.cardinality == Cardinality.SINGLE and rec.consequence == Consequence.MEDIUM


@pytest.mark.parametrize("scope", ["project:", "session:", "project", "session:  "])
def test_scope_without_id(scope):
    assert reason_of(scope=scope) == Reason.SCOPE_MISSING_ID


def test_invalid_scope():
    assert reason_of(scope="team:x") == Reason.INVALID_SCOPE


@pytest.mark.parametrize("confidence", [1.01, -0.01, 2, -5])
def test_confidence_outside_unit_range(confidence):
    assert reason_of(confidence=confidence) == Reason.CONFIDENCE_OUT_OF_RANGE


def test_confidence_not_a_number():
    assert reason_of(confidence="high") == Reason.CONFIDENCE_OUT_OF_RANGE


@pytest.mark.parametrize("confidence", [0, 0.0, 0.5, 1, 1.0])
def test_confidence_bounds_inclusive(confidence):
    assert build(confidence=confidence).confidence == float(confidence)


@pytest.mark.parametrize("field", ["importance", "actionability"])
def test_other_unit_fields(field):
    assert reason_of(**{field: 1.5}) == Reason.VALUE_OUT_OF_RANGE


def test_valid_until_before_valid_from():
    assert reason_of(valid_from="2024-02-01T00:00:00Z", valid_until="2024-01-01T00:00:00Z") == Reason.VALIDITY_INVERTED
    # an empty window is inverted too
    assert reason_of(valid_from="2024-02-01T00:00:00Z", valid_until="2024-02-01T00:00:00Z") == Reason.VALIDITY_INVERTED


def test_default_lifetime_cannot_invert_an_explicit_valid_from():
    # valid_from given, valid_until from the registry: it starts at valid_from, never inverted
    rec = build(attribute="priority.focus", value="ship v2", valid_from="2024-03-01T00:00:00Z")
    assert rec.valid_until == datetime(2024, 3, 8, tzinfo=UTC)


def test_fact_without_source():
    assert reason_of(**fact(evidence=[])) == Reason.FACT_WITHOUT_SOURCE
    # a conversation is not a source for a business fact
    assert (
        reason_of(**fact(evidence=[{"source_type": "conversation", "source_id": "turn-1"}]))
        == Reason.FACT_WITHOUT_SOURCE
    )
    # a document without an id is not either
    assert reason_of(**fact(evidence=[{"source_type": "document"}])) == Reason.FACT_WITHOUT_SOURCE


def test_fact_without_validity():
    assert reason_of(**fact(valid_from=None)) == Reason.FACT_WITHOUT_VALIDITY
    assert reason_of(**fact(valid_until=None)) == Reason.FACT_WITHOUT_VALIDITY
    # a review date stands in for the end of the window
    rec = build(**fact(valid_until=None, review_at="2024-03-01T00:00:00Z"))
    assert rec.kind == Kind.FACT and rec.valid_until is None


def test_valid_fact():
    rec = build(**fact())
    assert rec.kind == Kind.FACT and rec.authority == Authority.AUTHORITATIVE_SOURCE
    assert rec.source == "price-list-2024"
    assert rec.valid_from == T0 and rec.valid_until == datetime(2024, 6, 1, tzinfo=UTC)


def test_authoritative_source_writes_facts_only():
    assert reason_of(authority="authoritative_source") == Reason.SOURCE_NOT_AUTHORIZED


def test_assistant_is_never_evidence():
    assert reason_of(evidence=[{"source_type": "assistant", "source_id": "answer-3"}]) == Reason.ASSISTANT_NOT_EVIDENCE


def test_session_context_needs_a_session_scope():
    assert (
        reason_of(kind="session_context", attribute="session.task", value="fix bug 12")
        == Reason.SESSION_CONTEXT_NOT_IN_SESSION
    )
    rec = build(kind="session_context", attribute="session.task", value="fix bug 12", scope="session:s1")
    assert rec.scope == "session:s1" and rec.valid_until == T0 + DAY


def test_secret_values_are_refused():
    assert reason_of(attribute="profile.name", value="my password is hunter22") == Reason.SECRET_VALUE
    assert reason_of(attribute="profile.name", value="x", statement="card 4111 1111 1111 1111") == Reason.SECRET_VALUE
    assert reason_of(attribute="profile.name", value="x", sensitivity="secret") == Reason.SECRET_VALUE


@pytest.mark.parametrize("value", [None, "", "   "])
def test_missing_value(value):
    assert reason_of(value=value) == Reason.MISSING_FIELD


def test_missing_attribute_and_unknown_fields():
    with pytest.raises(Rejected) as err:
        parse_record({"tenant": "t", "user": "u", "value": "x"})
    assert err.value.reason == Reason.MISSING_FIELD
    with pytest.raises(Rejected) as err:
        parse_record({"tenant": "t", "user": "u", "attribute": "a", "value": "x", "bogus": 1})
    assert err.value.reason == Reason.INVALID_FIELD
    with pytest.raises(Rejected) as err:
        parse_record({"tenant": "t", "user": "u", "attribute": "a", "value": "x", "authority": "god"})
    assert err.value.reason == Reason.INVALID_FIELD
    with pytest.raises(Rejected) as err:
        parse_record(["not", "an", "object"])
    assert err.value.reason == Reason.INVALID_FIELD


@pytest.mark.parametrize("raw", [["op", "forget"], "forget", None, 7])
def test_a_command_that_is_not_a_json_object_is_refused_with_its_reason(raw: Any) -> None:
    # raw JSON reaches parse_command unchecked; compiled, a narrower annotation would raise a
    # TypeError on entry instead of this reason
    with pytest.raises(Rejected) as err:
        parse_command(raw)
    assert (err.value.reason, err.value.detail) == (Reason.INVALID_FIELD, "command must be an object")


# --- defaults -------------------------------------------------------------------------------


def test_defaults_from_registry():
    rec = build()
    assert rec.kind == Kind.PREFERENCE and rec.status == Status.ACTIVE and rec.scope == "global"
    assert rec.authority == Authority.USER_EXPLICIT and rec.confidence == 1.0
    assert rec.consequence == Consequence.LOW and rec.importance == 0.6 and rec.actionability == 0.9
    assert rec.sensitivity == Sensitivity.NORMAL and rec.cardinality == Cardinality.SINGLE
    assert rec.observed_at == T0 and rec.ingested_at == T0 and rec.valid_until is None
    assert rec.normalized_value == "detailed" and rec.op_id == "op-1"
    assert rec.id == derive_id("r_", "op-1")
    assert "detailed" in rec.statement


def test_inferred_default_confidence_is_lower():
    assert build(authority="system_inferred").confidence == 0.6
    assert build(authority="user_observed").confidence == 0.6


def test_explicit_id_and_observed_at_kept():
    rec = build(id="rec-1", observed_at="2023-12-31T00:00:00Z")
    assert rec.id == "rec-1" and rec.observed_at == T0 - DAY and rec.ingested_at == T0


def test_lifetime_and_review_defaults():
    prio = build(attribute="priority.focus", value="launch")
    assert prio.kind == Kind.PRIORITY and prio.valid_until == T0 + 7 * DAY
    city = build(attribute="profile.home_city", value="Berlin")
    assert city.review_at == T0 + 180 * DAY and city.valid_until is None
    assert city.sensitivity == Sensitivity.PERSONAL
    temp = build(scope="session:s1", value="concise")  # "this time": short-lived
    assert temp.valid_until == T0 + TEMPORARY_LIFETIME
    lasting = build(scope="project:p1", value="concise")
    assert lasting.valid_until is None


def test_unregistered_priority_is_still_time_boxed():
    unknown_prio = build(attribute="sprint.goal", kind="priority", value="x")
    assert unknown_prio.valid_until == T0 + 7 * DAY


def test_unregistered_session_context_gets_kind_lifetime():
    rec = build(attribute="task.current", kind="session_context", value="x", scope="session:s1")
    assert rec.valid_until == T0 + DAY


def test_evidence_quote_is_redacted_and_timed():
    rec = build(evidence=[{"source_id": "turn-1", "quote": "detailed please; my password is hunter22"}])
    assert "hunter22" not in rec.model_dump_json()
    assert "[REDACTED:password]" in rec.evidence[0].quote
    assert rec.evidence[0].at == T0


# --- helpers --------------------------------------------------------------------------------


def test_normalize_value():
    assert normalize_value("  Detailed. ") == "detailed"
    assert normalize_value("DETAILED!") == "detailed"
    assert normalize_value("very   detailed\n answers") == "very detailed answers"
    assert normalize_value("ＡＢＣ") == "abc"  # NFKC full-width
    assert normalize_value("详细。") == "详细"
    assert normalize_value({"b": 1, "a": 2}) == normalize_value({"a": 2, "b": 1})
    assert normalize_value(3) == "3"
    assert normalize_value("Straße") == normalize_value("STRASSE")


def test_value_hash_and_derive_id():
    h = value_hash("t", "u", "a", "v")
    assert h == value_hash("t", "u", "a", "v") and len(h) == 32 and h != "v"
    assert value_hash("t2", "u", "a", "v") != h and value_hash("t", "u", "a", "w") != h
    assert derive_id("r_", "x") == derive_id("r_", "x") != derive_id("r_", "y")


# --- commands -------------------------------------------------------------------------------


def cmd_reason(data: Any) -> Reason:
    with pytest.raises(Rejected) as err:
        parse_command(data)
    return err.value.reason


def test_commands_parse():
    c = parse_command({"op": "forget", "tenant": "t", "user": "u", "record_id": "r1"})
    assert isinstance(c, ForgetCommand) and c.record_id == "r1"
    c = parse_command(
        {"op": "forget", "tenant": "t", "user": "u", "match": {"attribute": "a", "value": "v", "scope": "project:p"}}
    )
    assert c.match.scope == "project:p" and c.match.subject == "user"
    assert isinstance(parse_command({"op": "confirm", "tenant": "t", "user": "u", "record_id": "r"}), ConfirmCommand)
    for op in ("reject", "expire", "review_due"):
        assert parse_command({"op": op, "tenant": "t", "user": "u", "record_id": "r"}).op == op
    assert parse_command({"op": "erase_user", "tenant": "t", "user": "u"}).op == "erase_user"
    assert parse_command({"op": "correct", "tenant": "t", "user": "u", "record_id": "r", "value": "x"}).value == "x"


def test_command_rejections():
    assert cmd_reason({"op": "explode", "tenant": "t", "user": "u"}) == Reason.UNKNOWN_COMMAND
    assert cmd_reason({"tenant": "t", "user": "u"}) == Reason.UNKNOWN_COMMAND
    assert cmd_reason({"op": "erase_user", "user": "u"}) == Reason.MISSING_TENANT
    assert cmd_reason({"op": "erase_user", "tenant": "t"}) == Reason.MISSING_USER
    assert cmd_reason({"op": "forget", "tenant": "t", "user": "u"}) == Reason.MISSING_FIELD
    assert cmd_reason({"op": "confirm", "tenant": "t", "user": "u"}) == Reason.MISSING_FIELD
    assert (
        cmd_reason({"op": "forget", "tenant": "t", "user": "u", "match": {"attribute": "a", "scope": "session:"}})
        == Reason.SCOPE_MISSING_ID
    )
    assert (
        cmd_reason({"op": "confirm", "tenant": "t", "user": "u", "record_id": "r", "extra": True})
        == Reason.INVALID_FIELD
    )
    assert cmd_reason("forget") == Reason.INVALID_FIELD


@pytest.mark.parametrize("op", ["forget", "retract"])
@pytest.mark.parametrize(
    "about,reason",
    [
        (["gym"] * 13, Reason.TOO_LARGE),  # more words than any name of a thing
        (["x" * 300], Reason.TOO_LARGE),
        ([""], Reason.MISSING_FIELD),
        ("gym", Reason.INVALID_FIELD),  # not a list
        ([{"word": "gym"}], Reason.INVALID_FIELD),
        (["AKIAIOSFODNN7EXAMPLE"], Reason.SECRET_VALUE),
    ],
)
def test_a_target_named_in_words_is_checked_like_any_text(op: str, about: Any, reason: Reason) -> None:
    with pytest.raises(Rejected) as err:
        parse_command({"op": op, "tenant": "t", "user": "u", "about": about})
    assert err.value.reason == reason


def test_a_retraction_in_words_parses() -> None:
    c = parse_command({"op": "retract", "tenant": "t", "user": "u", "about": ["book", "club"]})
    assert c.op == "retract" and c.about == ["book", "club"]

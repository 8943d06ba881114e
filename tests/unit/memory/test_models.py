"""Models: scopes, ids, time handling, slot identity, wire/stored record shapes (docs/concepts.md)."""

from __future__ import annotations

import gc
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.models import (
    AUTHORITY_RANK,
    LIVE_STATUSES,
    SELECTABLE_STATUSES,
    Authority,
    ContextRequest,
    Evidence,
    OpIn,
    RecordIn,
    SourceType,
    Status,
    Suppression,
    check_id,
    iso,
    parse_scope,
    parse_time,
    scope_rank,
    slot_key,
    to_ms,
    utc,
)
from slotstream.memory.validation import build_record, parse_record

T0 = datetime(2024, 1, 1, tzinfo=UTC)


# --- scopes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [None, "", "global"])
def test_global_scope_forms(raw):
    assert parse_scope(raw) == "global"


@pytest.mark.parametrize("raw,expected", [("project:p1", "project:p1"), ("session:s-9", "session:s-9")])
def test_project_and_session_scopes_keep_their_id(raw, expected):
    assert parse_scope(raw) == expected


@pytest.mark.parametrize("raw", ["project", "project:", "session:", "session:   ", "project:  "])
def test_scope_without_id_is_rejected_never_widened(raw):
    with pytest.raises(Rejected) as err:
        parse_scope(raw)
    assert err.value.reason == Reason.SCOPE_MISSING_ID


@pytest.mark.parametrize("raw", ["team:x", "globalish", "user:1", "project:a b", "session:{x}"])
def test_unknown_or_malformed_scope_is_rejected(raw):
    with pytest.raises(Rejected) as err:
        parse_scope(raw)
    assert err.value.reason == Reason.INVALID_SCOPE


def test_scope_rank_narrowest_highest():
    assert scope_rank("session:s") > scope_rank("project:p") > scope_rank("global")


def test_slot_identity_excludes_the_value():
    assert slot_key("user", "preference.response.detail", "global") == "user|preference.response.detail|global"
    a = build_record(
        parse_record({"tenant": "t", "user": "u", "attribute": "preference.response.detail", "value": "concise"}),
        op_id="a",
        at=T0,
    )
    b = build_record(
        parse_record({"tenant": "t", "user": "u", "attribute": "preference.response.detail", "value": "detailed"}),
        op_id="b",
        at=T0,
    )
    assert a.slot == b.slot
    c = build_record(
        parse_record(
            {
                "tenant": "t",
                "user": "u",
                "attribute": "preference.response.detail",
                "value": "concise",
                "scope": "project:p",
            }
        ),
        op_id="c",
        at=T0,
    )
    assert c.slot != a.slot


# --- ids and time ---------------------------------------------------------------------------


def test_check_id():
    assert check_id("t-1_a.b@c+d", Reason.MISSING_TENANT) == "t-1_a.b@c+d"
    for missing in (None, ""):
        with pytest.raises(Rejected) as err:
            check_id(missing, Reason.MISSING_USER)
        assert err.value.reason == Reason.MISSING_USER
    for bad in ("a:b", "a{b}", "a b", "x" * 129):
        with pytest.raises(Rejected) as err:
            check_id(bad, Reason.MISSING_TENANT)
        assert err.value.reason == Reason.INVALID_ID


def test_parse_time_utc():
    assert parse_time("2024-01-01T00:00:00Z") == T0
    assert parse_time("2024-01-01T00:00:00") == T0  # naive input is UTC
    assert parse_time("2024-01-01T02:00:00+02:00") == T0
    assert parse_time(datetime(2024, 1, 1)) == T0
    assert parse_time(T0).tzinfo is not None
    with pytest.raises(ValueError):
        parse_time(12345)


def test_iso_and_ms():
    assert iso(T0) == "2024-01-01T00:00:00Z"
    assert iso(None) is None
    assert to_ms(None) is None
    assert to_ms(T0 + timedelta(milliseconds=5)) - to_ms(T0) == 5
    assert utc(datetime(2024, 1, 1)).tzinfo == UTC


# --- authority / status ---------------------------------------------------------------------


def test_authority_order():
    assert (
        AUTHORITY_RANK[Authority.USER_EXPLICIT]
        > AUTHORITY_RANK[Authority.USER_OBSERVED]
        > AUTHORITY_RANK[Authority.SYSTEM_INFERRED]
        > AUTHORITY_RANK[Authority.EXTERNAL_UNTRUSTED]
    )


def test_status_sets():
    assert {Status.ACTIVE, Status.CANDIDATE} == SELECTABLE_STATUSES
    for gone in (Status.SUPERSEDED, Status.EXPIRED, Status.DELETED):
        assert gone not in LIVE_STATUSES and gone not in SELECTABLE_STATUSES
    assert Status.PENDING_REVIEW in LIVE_STATUSES and Status.PENDING_REVIEW not in SELECTABLE_STATUSES


# --- wire models ----------------------------------------------------------------------------


def test_record_in_forbids_unknown_fields():
    with pytest.raises(ValidationError):
        RecordIn.model_validate({"tenant": "t", "user": "u", "attribute": "a", "value": "v", "colour": "red"})


def test_record_in_parses_times():
    rin = RecordIn.model_validate(
        {
            "tenant": "t",
            "user": "u",
            "attribute": "a",
            "value": "v",
            "valid_from": "2024-01-01T00:00:00Z",
            "valid_until": "2024-01-02T00:00:00",
        }
    )
    assert rin.valid_from == T0 and rin.valid_until == T0 + timedelta(days=1)
    assert rin.authority == Authority.USER_EXPLICIT and rin.scope == "global" and rin.subject == "user"


def test_record_source_prefers_document_or_system():
    rec = build_record(
        parse_record(
            {
                "tenant": "t",
                "user": "u",
                "attribute": "knowledge.db",
                "value": "postgres",
                "evidence": [
                    {"source_type": "conversation", "source_id": "turn-1"},
                    {"source_type": "document", "source_id": "adr-7"},
                ],
            }
        ),
        op_id="x",
        at=T0,
    )
    assert rec.source == "adr-7"
    conv = build_record(
        parse_record(
            {
                "tenant": "t",
                "user": "u",
                "attribute": "knowledge.db",
                "value": "postgres",
                "evidence": [{"source_type": "conversation", "source_id": "turn-1"}],
            }
        ),
        op_id="y",
        at=T0,
    )
    assert conv.source == "turn-1"
    none = build_record(
        parse_record({"tenant": "t", "user": "u", "attribute": "knowledge.db", "value": "postgres"}), op_id="z", at=T0
    )
    assert none.source is None


def test_evidence_defaults():
    ev = Evidence.model_validate({"source_id": "turn-1", "at": "2024-01-01T00:00:00Z"})
    assert ev.source_type == SourceType.CONVERSATION and ev.at == T0


def test_suppression_key():
    assert Suppression(attribute="a", at=T0).key == "a|*|*"
    assert Suppression(attribute="a", scope="global", value_hash="h", at=T0).key == "a|global|h"


def test_context_request_scopes_and_limits():
    assert ContextRequest(tenant="t", user="u").scopes() == ["global"]
    assert ContextRequest(tenant="t", user="u", project="p", session="s").scopes() == [
        "global",
        "project:p",
        "session:s",
    ]
    with pytest.raises(ValidationError):
        ContextRequest(tenant="t", user="u", max_items=0)
    with pytest.raises(ValidationError):
        ContextRequest(tenant="t", user="u", max_chars=10)
    with pytest.raises(ValidationError):
        ContextRequest(tenant="t", user="u", bogus=1)
    assert ContextRequest(tenant="t", user="u", at="2024-01-01T00:00:00Z").at == T0


def test_op_in():
    op = OpIn.model_validate({"at": "2024-01-01T00:00:00Z", "record": {"x": 1}})
    assert op.at == T0 and op.op_id is None
    with pytest.raises(ValidationError):
        OpIn.model_validate({"record": {}})  # event time is required
    with pytest.raises(ValidationError):
        OpIn.model_validate({"at": "2024-01-01T00:00:00Z", "record": {}, "extra": 1})


def test_stored_records_are_left_out_of_the_cycle_collector():
    """A stored record and its evidence hold only values parsed from JSON, never a reference back to
    themselves, so the cycle collector has nothing to find through them. Left untracked, the
    thousands of records an engine's cached views hold are not walked by every young-generation
    collection, which halves the collector's pauses in a worker. The lists and the structured
    value a record holds are still tracked themselves."""
    rec = build_record(
        parse_record(
            {
                "tenant": "t",
                "user": "u",
                "kind": "knowledge",
                "attribute": "knowledge.trip",
                "value": {"city": "Lisbon", "nights": [1, 2]},
                "evidence": [{"source_type": "conversation", "source_id": "turn-1"}],
            }
        ),
        op_id="x",
        at=T0,
    )
    assert not gc.is_tracked(rec)
    assert not any(gc.is_tracked(entry) for entry in rec.evidence)
    assert gc.is_tracked(rec.value) and gc.is_tracked(rec.evidence)
    assert not gc.is_tracked(rec.model_copy({"status": "superseded"}))

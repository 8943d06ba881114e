"""The stored forms (state/codec.py): every record reconciliation writes reads back equal from its
compact form and from its tail with its row; the earlier JSON forms still read; bookkeeping entries
round-trip."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import given

from slotstream.memory.models import (
    READ_MODEL_STATUSES,
    Authority,
    Cardinality,
    Change,
    Consequence,
    EvidenceEntry,
    Kind,
    Outcome,
    Record,
    Sensitivity,
    SourceType,
    Status,
    Suppression,
)
from slotstream.memory.selection import compact
from slotstream.state import codec
from slotstream.state.codec import (
    AUTHORITIES,
    CARDINALITIES,
    CHANGE_TYPES,
    CONSEQUENCES,
    KINDS,
    OUTCOMES,
    SENSITIVITIES,
    SOURCE_TYPES,
    STATUSES,
    SUPPRESSION_REASONS,
    MalformedRecord,
    cold_entries,
    created_id,
    decode_changes,
    decode_ledger_entry,
    decode_record,
    decode_suppression,
    encode_changes,
    encode_cold,
    encode_ledger_entry,
    encode_record,
    encode_suppression,
    encode_tail,
    lineage_field,
    lineage_ids,
    suppression_field,
    suppression_key,
)

from simulation import Sim
from stored_forms import format_1, suppression_spelled
from strategies import PURE, op_sequences

T0 = datetime(2026, 5, 4, 8, 30, 15, 123456, tzinfo=UTC)


def records_written(ops: list[dict[str, Any]]) -> list[Record]:
    """Every record version reconciliation wrote applying `ops` to one user."""
    sim, written = Sim(), []
    for raw in ops:
        applied = sim.apply_wire(raw)
        if applied is not None:
            written += applied[0].puts.values()
    return written


@PURE
@given(op_sequences(dependencies=True, moves=True))
def test_every_record_written_reads_back_equal_from_its_stored_forms(ops: list[dict[str, Any]]) -> None:
    for rec in records_written(ops):
        assert decode_record(rec.id, encode_record(rec), rec.tenant, rec.user) == rec
        if rec.status in READ_MODEL_STATUSES:
            row = orjson.dumps(compact(rec))  # as the read model stores it
            assert decode_record(rec.id, encode_tail(rec), rec.tenant, rec.user, row) == rec
        # the earlier forms: format 1, and JSON
        assert decode_record(rec.id, format_1(rec), rec.tenant, rec.user) == rec
        assert decode_record(rec.id, rec.model_dump_json(), rec.tenant, rec.user) == rec


def test_a_superseded_version_is_stored_without_what_its_neighbours_say() -> None:
    sim = Sim()
    _, old = sim.record(
        T0, attribute="preference.drink", value="tea", statement="I like tea.", kind="preference", confidence=0.85
    )
    _, new = sim.record(
        T0 + timedelta(days=1), attribute="preference.drink", value="coffee", kind="preference", corrects=old.id
    )
    superseded, new = sim.view.records[old.id], sim.view.records[new.id]
    assert (superseded.status, superseded.status_reason) == (Status.SUPERSEDED, f"superseded by {new.id}")
    assert (new.corrects, new.supersedes) == (old.id, old.id)
    stored = encode_record(superseded)
    assert decode_record(old.id, stored, old.tenant, old.user) == superseded
    # neither its id, nor the reason's text, nor a score in nine bytes: each id is stored once, as
    # the 10 bytes its hex digits stand for
    assert b"r_" not in stored and stored.count(packed(old.id)) == 0 and stored.count(packed(new.id)) == 1
    assert len(stored) <= len(format_1(superseded)) - len(old.id) - len(superseded.status_reason) - 6
    row = orjson.dumps(compact(new))
    tail = encode_tail(new)
    assert tail.count(packed(old.id)) == 1 and old.id.encode() not in tail
    # the default scope and subject are left to the reader, and so is the source the row holds
    assert b"global" not in tail and b"user" not in tail
    sourced = new.model_copy(
        update={"evidence": [EvidenceEntry(source_type="conversation", source_id="turn-42", at=new.observed_at)]}
    )
    assert sourced.source == "turn-42" and b"turn-42" not in encode_tail(sourced)
    assert decode_record(new.id, encode_tail(sourced), new.tenant, new.user, orjson.dumps(compact(sourced))) == sourced
    assert decode_record(new.id, tail, new.tenant, new.user, row) == new
    assert decode_record(new.id, encode_record(new), new.tenant, new.user) == new
    # an id a client gave is stored as it is
    given = new.model_copy(update={"supersedes": "pref-7", "corrects": "r_" + "A" * 20})
    assert b"pref-7" in encode_tail(given) and b"r_" + b"A" * 20 in encode_tail(given)
    assert decode_record(new.id, encode_tail(given), new.tenant, new.user, row) == given


def packed(rid: str) -> bytes:
    """How a derived record id is stored where another record names it (state/codec.py ID_EXT)."""
    return b"\xc7\x0a\x03" + bytes.fromhex(rid[2:])


def test_a_record_with_every_field_set_round_trips_exactly() -> None:
    sim = Sim()
    _, rec = sim.record(
        T0,
        attribute="preference.response.format",
        value={"items": ["peanuts", 3, 2.5, None], "since": "2019"},
        statement="I'm allergic to peanuts.",
        authority="user_observed",
        confidence=0.8125,
        importance=0.123456789,
        valid_from=(T0 - timedelta(days=2)).isoformat(),
        valid_until=(T0 + timedelta(days=30, microseconds=7)).isoformat(),
        review_at=(T0 + timedelta(days=10)).isoformat(),
        scope="project:p1",
        audience=["doctor", "me"],
        evidence=[
            {"source_type": "document", "source_id": "doc-1", "quote": "peanuts"},
            {"source_type": "conversation", "source_id": "turn-9"},
        ],
    )
    full = rec.model_copy(
        update={
            "supersedes": "r_a",
            "superseded_by": "r_b",
            "corrects": "r_c",
            "corrects_current": True,
            "status_reason": "why",
            "depends_on": ["r_d", "slot:profile.home_city"],
            "dependency_until": T0 + timedelta(days=3),
            "ingested_at": T0 + timedelta(seconds=1),
            "updated_at": T0 + timedelta(seconds=2),
            "normalized_value": "different",
        }
    )
    assert decode_record(full.id, encode_record(full), full.tenant, full.user) == full
    row = orjson.dumps(compact(full))
    assert decode_record(full.id, encode_tail(full), full.tenant, full.user, row) == full
    # defaults are left out: a plain record's stored form is a small fraction of its JSON
    _, plain = sim.record(T0, attribute="preference.language", value="German", statement="Answer in German.")
    assert len(encode_record(plain)) < len(plain.model_dump_json()) / 3
    assert len(encode_tail(plain)) < 64  # a tail fits Redis's compact hash encoding


def test_a_tail_without_its_row_and_an_unknown_format_are_refused_with_a_reason() -> None:
    _, rec = Sim().record(T0)
    with pytest.raises(MalformedRecord, match="without its read-model row"):
        decode_record(rec.id, encode_tail(rec), rec.tenant, rec.user)
    with pytest.raises(MalformedRecord, match="format 9"):
        decode_record(rec.id, b"\x93\x09\xa1x\x00", rec.tenant, rec.user)
    # damaged bytes of any kind are refused as a malformed record, never another error (the sidecar
    # answers it 500 stored_state_unreadable, not a 4xx that would blame the caller)
    row = orjson.dumps(compact(rec))
    bad_row = orjson.dumps(["x", "no such kind", *compact(rec)[2:]])
    for raw, with_row in (
        (b"", None),
        (b"\xc1", None),
        (b'{"id": 3}', None),
        (b"{", None),
        (encode_tail(rec), bad_row),
    ):
        with pytest.raises(MalformedRecord):
            decode_record(rec.id, raw, rec.tenant, rec.user, with_row)
    assert decode_record(rec.id, encode_tail(rec), rec.tenant, rec.user, row) == rec


def test_code_tables_cover_their_enums_and_values_are_unique() -> None:
    for table, enum in (
        (KINDS, Kind),
        (STATUSES, Status),
        (AUTHORITIES, Authority),
        (CONSEQUENCES, Consequence),
        (SENSITIVITIES, Sensitivity),
        (CARDINALITIES, Cardinality),
        (SOURCE_TYPES, SourceType),
        (OUTCOMES, Outcome),
        (CHANGE_TYPES, Change),
    ):
        assert set(table) == set(enum) and len(table) == len(enum)
    # a row's enum texts are read through one table (codec._BY_VALUE)
    values = [m.value for t in (KINDS, STATUSES, AUTHORITIES, CONSEQUENCES, SENSITIVITIES, CARDINALITIES) for m in t]
    assert len(values) == len(set(values))


def test_bookkeeping_entries_round_trip_and_the_earlier_forms_read() -> None:
    ids = ["r_0123456789abcdef0123", "r_0123456789abcdef0124"]
    entry = encode_ledger_entry("op-1", T0, "applied", None, ids)
    assert len(entry) <= 64
    assert decode_ledger_entry("op-1", entry) == ("2026-05-04T08:30:15.123456Z", "applied", None, ids)
    # the id of the record the op created is its op id's: the entry does not spell it out
    created = created_id("op-1")
    entry = encode_ledger_entry("op-1", T0, "applied", None, [created, ids[0]])
    assert created.encode() not in entry and len(entry) <= 40
    assert decode_ledger_entry("op-1", entry)[3] == [created, ids[0]]
    # an op that applied and created its one record, the most common entry: its time alone
    entry = encode_ledger_entry("op-1", T0, "applied", None, [created])
    assert msgspec.msgpack.decode(entry) == codec._us(T0) and len(entry) == 9
    assert decode_ledger_entry("op-1", entry) == ("2026-05-04T08:30:15.123456Z", "applied", None, [created])
    for other in (("noop", None, [created]), ("applied", "why", [created]), ("applied", None, [ids[0]])):
        entry = encode_ledger_entry("op-1", T0, *other)
        assert len(entry) > 9 and decode_ledger_entry("op-1", entry)[1:] == other
    assert decode_ledger_entry("op-1", encode_ledger_entry("op-1", T0, "rejected", "target_not_found", []))[1:] == (
        "rejected",
        "target_not_found",
        [],
    )
    assert decode_ledger_entry("op-1", b'{"at":"2026-01-01T00:00:00Z","o":"noop","r":null,"p":["r1"]}') == (
        "2026-01-01T00:00:00Z",
        "noop",
        None,
        ["r1"],
    )
    assert decode_ledger_entry("op-1", b"2026-01-01T00:00:00Z") == ("2026-01-01T00:00:00Z", "applied", None, [])

    change = {
        "type": Change.SUPERSEDED,
        "record_id": "r1",
        "attribute": "a.b",
        "scope": "global",
        "status": "superseded",
        "by": "r2",
        "extra": [1, 2],
    }
    decoded = decode_changes(encode_changes("op-1", T0, [change]))
    assert decoded == [{"op": "op-1", "at": "2026-05-04T08:30:15.123456Z", **change, "type": "superseded"}]
    # the older forms: JSON, and [op, time, type, field, value, ...] (one change an entry)
    assert decode_changes(b'{"op":"o","at":"t","type":"created"}') == [{"op": "o", "at": "t", "type": "created"}]
    older = msgspec.msgpack.encode(["o", 1_000_000, list(Change).index(Change.CREATED), 0, "r1", 3, 0])
    assert decode_changes(older) == [
        {"op": "o", "at": "1970-01-01T00:00:01Z", "type": "created", "record_id": "r1", "status": "active"}
    ]


def test_one_ops_changes_are_one_log_entry_naming_each_string_once() -> None:
    new, old = "r_830f15ca93f430a447f4", "r_9dda584634ded9e27b26"
    changes: list[dict[str, Any]] = [
        {
            "type": Change.CREATED,
            "record_id": new,
            "attribute": "preference.tea",
            "scope": "global",
            "status": "active",
            "corrects": old,
        },
        {
            "type": Change.SUPERSEDED,
            "record_id": old,
            "attribute": "preference.tea",
            "scope": "global",
            "status": "superseded",
            "by": new,
        },
        {"type": Change.SUPPRESSED, "attribute": "preference.tea", "key": "preference.tea|global|" + "b5" * 16},
        {"type": Change.RESOLVED, "targets": [old, new, "r_other"], "why": "ab"},
        {"type": Change.UNSUPPRESSED, "attribute": "x", "key": "preference.tea|*|*"},
    ]
    changes[0]["record_id"] = new = created_id("fix:0")  # the op's record: its id is the op id's
    changes[1]["by"] = changes[3]["targets"][1] = new
    raw = encode_changes("fix:0", T0, changes)
    at = "2026-05-04T08:30:15.123456Z"
    assert decode_changes(raw) == [{"op": "fix:0", "at": at, **c, "type": str(c["type"].value)} for c in changes]
    # each id and the attribute are written out once (a derived id as its 10 bytes, the suppressed
    # value's hash as its 16), the default scope not at all
    assert raw.count(b"preference.tea") == 1 and b"global" not in raw
    assert raw.count(packed(old)) == 1 and b"r_" not in raw.replace(b"r_other", b"")
    assert raw.count(bytes.fromhex("b5" * 16)) == 1 and b"b5b5" not in raw
    assert new.encode() not in raw and packed(new) not in raw
    # a correction's three changes: the entry of the three takes about 60% of the bytes of an entry each
    correction = len(encode_changes("fix:0", T0, changes[:3]))
    apart = sum(len(encode_changes("fix:0", T0, [c])) for c in changes[:3])
    assert correction < 0.65 * apart


def test_a_change_log_entry_with_an_unknown_reference_is_refused() -> None:
    raw = msgspec.msgpack.encode(["o", 0, [0, 0, msgspec.msgpack.Ext(1, bytes((7,)))]])
    with pytest.raises(MalformedRecord):
        decode_changes(raw)


def test_a_suppression_is_stored_with_its_hash_packed_and_its_reason_coded_and_earlier_forms_read() -> None:
    hashed = "0123456789abcdef" * 2
    for sup in (
        Suppression(attribute="a.b", scope="global", value_hash=hashed, at=T0, record_ids=["r1"], reason="corrected"),
        Suppression(attribute="a.b", scope="proj", value_hash=hashed, at=T0, record_ids=["r1"], reason="retracted"),
        Suppression(attribute="a.b", scope=None, value_hash=None, at=T0, record_ids=[], reason="forget"),
        Suppression(attribute="a.b", scope="global", value_hash="ab", at=T0, record_ids=[], reason="made up"),
    ):
        field = suppression_field(sup.key)
        assert suppression_key(field) == sup.key
        assert decode_suppression(field, encode_suppression(sup)) == sup
        # as earlier releases stored it: under its key, JSON or the reason spelled out
        assert decode_suppression(sup.key.encode(), sup.model_dump_json()) == sup
        assert decode_suppression(sup.key.encode(), suppression_spelled(sup)) == sup
    # the default scope left empty, the hash as its 16 bytes
    field = suppression_field(f"a.b|global|{hashed}")
    assert field == b"a.b||" + bytes.fromhex(hashed) and suppression_key(field) == f"a.b|global|{hashed}"
    assert suppression_field("a.b|proj|*") == b"a.b|proj|*" and suppression_key(b"a.b||*") == "a.b|global|*"
    # a byte of the packed hash that is "|" is part of the hash, not a separator
    assert suppression_key(b"a.b|*|" + b"|" * 16) == "a.b|*|" + "7c" * 16
    corrected = Suppression(attribute="a.b", value_hash=hashed, at=T0, record_ids=["r1"], reason="corrected")
    assert len(encode_suppression(corrected)) < len(suppression_spelled(corrected))
    assert msgspec.msgpack.decode(encode_suppression(corrected))[2] == SUPPRESSION_REASONS.index("corrected") == 1
    # a value that does not decode: refused with a reason, not a crash of the reader
    for raw in (b"\xc1", msgspec.msgpack.encode([0, [], 9]), b'{"attribute": 1}'):
        with pytest.raises(MalformedRecord, match="suppression"):
            decode_suppression(field, raw)

    # a field, then the live ids it does not hold; a slot's own list (an earlier form) as it is
    assert lineage_ids(b"r1 r2 r3", [b"x"], b'["r3"]') == ["r1", "r2", "r3"]
    assert lineage_ids(b"r1 r2", [], b'["r3"]') == ["r1", "r2", "r3"]
    assert lineage_ids(None, [b"r1", b"r2"], b'["r2"]') == ["r1", "r2"]
    assert lineage_ids(None, [], b'["r2","r3"]') == ["r2", "r3"]  # a lineage that is the live list
    assert lineage_ids(None, [], None) == []
    assert lineage_field(["r1", "r2", "r3"], ["r2", "r3"]) == "r1"
    assert lineage_field(["r2", "r3"], ["r2", "r3"]) is None
    assert lineage_field(["r1", "r2"], ["r1"]) == "r1 r2"  # a reinstated first version: whole
    for lineage, live in ((["a", "b", "c"], ["c"]), (["a", "b"], ["a"]), (["a"], []), (["b", "a"], ["a", "b"])):
        field = lineage_field(lineage, live)
        stored = field.encode() if field else None
        assert lineage_ids(stored, [], orjson.dumps(live)) == lineage, (lineage, live)


def test_a_cold_history_reads_back_only_the_ids_it_lists_and_refuses_bytes_that_do_not_decode() -> None:
    _, rec = Sim().record(T0)
    ids, data = encode_cold({"r_a": encode_record(rec), "r_b": b"\x00"})
    assert ids == b" r_a r_b "
    assert cold_entries(" r_a ", data) == {"r_a": encode_record(rec)}  # r_b taken out of the listing
    for broken in (b"not zlib", zlib.compress(b"\xc1")):
        with pytest.raises(MalformedRecord, match="cold history"):
            cold_entries(ids, broken)

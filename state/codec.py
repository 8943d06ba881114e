"""How records are stored in Redis: a compact positional MessagePack form with a format version.

A record's JSON spelled out every field name (about 42% of its bytes), every default and every
time as text. The stored form is a MessagePack array, `[format, kind, subject, attribute, scope,
value, statement, status, op_id, observed_at, ...]` (`_Full`), in which:

- the id, the tenant and the user are left out: the hash field and the key it is stored under
  name them;
- enums are small integers (the tables below: append only, never reorder);
- times are MessagePack timestamps, and the ones that equal `observed_at` (as a record's ingest
  and update times and its evidence's usually do) are nil;
- `normalized_value` is nil when it equals the value;
- fields past the last one that differs from its default are left out of the array.

A record in the read model is stored as its tail instead (format 2, `_Tail`): the fields its
read-model row does not hold; the row holds the rest. Scripts return a tail with its row
(records.lua, load.lua), and `decode_record` joins them.

A record without a row is stored whole (format 3, `_Full`; format 1, `_Stored`, is the form it
had before, still read). stored.lua reads the first positions inside scripts (format 1: format,
id, kind, subject, attribute, scope; format 2: format, scope, subject; format 3: format, kind,
subject, attribute, scope): they must stay first, and stay strings and small integers.

Records written before these forms are JSON objects (their first byte is `{`): `decode_record`
reads them too, so a namespace needs no conversion to keep working; `slotstream state compact`
rewrites them (state/compaction.py). The ledger, change-log and suppression entries below follow
the same rule.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import orjson
from pydantic import ValidationError

from slotstream.memory.models import (
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
    iso,
)
from slotstream.memory.validation import derive_id

FORMAT = 1  # the first compact form (read, no longer written)

# code -> value; a stored record holds the code. Append only: a code once written means its value forever.
KINDS = (
    Kind.PREFERENCE,
    Kind.GOAL,
    Kind.PRIORITY,
    Kind.RULE,
    Kind.KNOWLEDGE,
    Kind.FACT,
    Kind.SESSION_CONTEXT,
)
STATUSES = (
    Status.ACTIVE,
    Status.CANDIDATE,
    Status.PENDING_REVIEW,
    Status.CONFLICTED,
    Status.SUPERSEDED,
    Status.EXPIRED,
    Status.REVIEW_DUE,
    Status.NEEDS_REVIEW,
    Status.RETRACTED,
    Status.DELETED,
)
AUTHORITIES = (
    Authority.USER_EXPLICIT,
    Authority.USER_OBSERVED,
    Authority.SYSTEM_INFERRED,
    Authority.EXTERNAL_UNTRUSTED,
    Authority.AUTHORITATIVE_SOURCE,
)
CONSEQUENCES = (Consequence.LOW, Consequence.MEDIUM, Consequence.HIGH, Consequence.CRITICAL)
SENSITIVITIES = (Sensitivity.NORMAL, Sensitivity.PERSONAL, Sensitivity.SPECIAL, Sensitivity.SECRET)
CARDINALITIES = (Cardinality.SINGLE, Cardinality.MULTI)
SOURCE_TYPES = (SourceType.CONVERSATION, SourceType.DOCUMENT, SourceType.SYSTEM, SourceType.ASSISTANT)
OUTCOMES = (
    Outcome.APPLIED,
    Outcome.REFRESHED,
    Outcome.DUPLICATE,
    Outcome.REJECTED,
    Outcome.DROPPED,
    Outcome.NOOP,
    Outcome.REFUSED,
)
CHANGE_TYPES = tuple(Change)  # in the enum's order: append new types at its end

_CODE = {
    table: {value: code for code, value in enumerate(table)}
    for table in (KINDS, STATUSES, AUTHORITIES, CONSEQUENCES, SENSITIVITIES, CARDINALITIES, SOURCE_TYPES, OUTCOMES)
}

_KIND, _STATUS, _AUTHORITY = _CODE[KINDS], _CODE[STATUSES], _CODE[AUTHORITIES]
_CONSEQUENCE, _SENSITIVITY, _CARDINALITY = _CODE[CONSEQUENCES], _CODE[SENSITIVITIES], _CODE[CARDINALITIES]
_SOURCE_TYPE = _CODE[SOURCE_TYPES]
_CHANGE_TYPE_CODE = {value.value: code for code, value in enumerate(CHANGE_TYPES)}
_STATUS_CODE = {value.value: code for code, value in enumerate(STATUSES)}


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _us(dt: datetime) -> int:
    delta = dt - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _at(us: int) -> datetime:
    return _EPOCH + timedelta(microseconds=us)


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder()


class MalformedRecord(ValueError):
    """A stored value that is neither a record's JSON nor its compact form."""


class _Stored(msgspec.Struct, array_like=True, omit_defaults=True, gc=False):
    """The compact form's positions. Times are MessagePack timestamps; `ingested_at` and
    `updated_at` are nil when they equal `observed_at`, an evidence entry's time likewise. Every
    field from `ingested_at` on has a default, and trailing defaults are left out of the array."""

    format: int
    id: str
    kind: int
    subject: str
    attribute: str
    scope: str
    value: Any
    statement: str
    status: int
    op_id: str
    observed_at: datetime
    ingested_at: datetime | None = None
    updated_at: datetime | None = None
    confidence: float = 1.0
    importance: float = 0.5
    actionability: float = 0.5
    authority: int = 0
    consequence: int = 1
    sensitivity: int = 0
    cardinality: int = 0
    normalized_value: Any = None
    evidence: list[tuple[int, str | bool | None, str | None, datetime | None]] | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    valid_until: datetime | None = None
    valid_from: datetime | None = None
    review_at: datetime | None = None
    status_reason: str | None = None
    corrects: str | None = None
    corrects_current: bool = False
    depends_on: list[str] | None = None
    dependency_until: datetime | None = None
    audience: list[str] | None = None


_STORED_DECODER = msgspec.msgpack.Decoder(_Stored)

TAIL = 2  # the format of a tail
DEFAULT_SCOPE, DEFAULT_SUBJECT = "global", "user"  # a tail's nil scope and subject
FULL = 3  # the format of a whole record written now (format 1 is still read)

# A score (confidence, importance, actionability) is stored as an integer, its thousandths, where
# that gives it back exactly (0.85 as 850: three bytes, not nine), else as the float.
_SCORE_SCALE = 1000


def _score_out(x: float) -> float | int:
    if 0.0 <= x <= 1.0:  # (a NaN is neither)
        n = round(x * _SCORE_SCALE)
        if n / _SCORE_SCALE == x:
            return n
    return x


def _score_in(x: float | int) -> float:
    return x / _SCORE_SCALE if type(x) is int else float(x)


# A record id the engine derived ("r_" and 20 hex digits: memory/validation.py derive_id) is stored
# as MessagePack extension ID_EXT holding the 10 bytes the digits stand for (13 bytes, not 23) where
# a record, suppression or change-log entry names another record; ids given by a client are
# stored as they are.
ID_EXT = 3
_DERIVED_ID = re.compile(r"r_[0-9a-f]{20}")


def _id_out(rid: str | bool | None) -> str | bool | msgspec.msgpack.Ext | None:
    if isinstance(rid, str) and len(rid) == 22 and _DERIVED_ID.fullmatch(rid):
        return msgspec.msgpack.Ext(ID_EXT, bytes.fromhex(rid[2:]))
    return rid


def _id_in(value: Any) -> Any:
    if isinstance(value, msgspec.msgpack.Ext):
        data = bytes(value.data)
        if value.code != ID_EXT or len(data) != 10:
            raise MalformedRecord(f"a stored id is an unknown extension: {value.code}")
        return "r_" + data.hex()
    return value


# the stored value of a `status_reason` that says which record superseded this one, and of a
# `corrects` that names the record it supersedes: the text would repeat an id stored beside it
_SAID_BY_SUPERSEDED_BY = True
_SAME_AS_SUPERSEDES = True


class _Full(msgspec.Struct, array_like=True, omit_defaults=True, gc=False):
    """A record without a read-model row (retired, or not yet usable), as written now (format 3).
    Unlike format 1: the id is left to the hash field it is stored under; the positions most
    records leave at their defaults come last, so that they are left out; scores are thousandths
    where exact (`_score_out`); a `status_reason` of "superseded by <superseded_by>" and a
    `corrects` equal to `supersedes` are `True`."""

    format: int
    kind: int
    subject: str
    attribute: str
    scope: str
    value: Any
    statement: str
    status: int
    op_id: str
    observed_at: datetime
    updated_at: datetime | None = None
    superseded_by: str | msgspec.msgpack.Ext | None = None
    valid_until: datetime | None = None
    status_reason: str | bool | None = None
    evidence: list[tuple[int, str | bool | None, str | None, datetime | None]] | None = None
    supersedes: str | msgspec.msgpack.Ext | None = None
    corrects: str | bool | msgspec.msgpack.Ext | None = None
    corrects_current: bool = False
    confidence: float | int = _SCORE_SCALE
    importance: float | int = _SCORE_SCALE // 2
    actionability: float | int = _SCORE_SCALE // 2
    authority: int = 0
    consequence: int = 1
    sensitivity: int = 0
    cardinality: int = 0
    ingested_at: datetime | None = None
    normalized_value: Any = None
    valid_from: datetime | None = None
    review_at: datetime | None = None
    depends_on: list[str] | None = None
    dependency_until: datetime | None = None
    audience: list[str] | None = None


_FULL_DECODER = msgspec.msgpack.Decoder(_Full)


class _Tail(msgspec.Struct, array_like=True, omit_defaults=True, gc=False):
    """A record that has a read-model row is stored as its tail: what the row does not hold. The
    row (selection.compact: id, kind, attribute, scope, value, statement, authority, status, the
    three scores, consequence, sensitivity, cardinality, audience) is in <prefix>:act:<scope>, and
    both are written in the same apply: a record's strings are stored once. Times are exact here
    (the row's are milliseconds). The scope and subject are nil when "global" and "user"; an
    evidence entry's source id is True when it is the row's source (the row holds it)."""

    format: int
    scope: str | None
    subject: str | None
    op_id: str
    observed_at: datetime
    ingested_at: datetime | None = None
    updated_at: datetime | None = None
    normalized_value: Any = None
    evidence: list[tuple[int, str | bool | None, str | None, datetime | None]] | None = None
    supersedes: str | msgspec.msgpack.Ext | None = None
    superseded_by: str | msgspec.msgpack.Ext | None = None
    valid_until: datetime | None = None
    valid_from: datetime | None = None
    review_at: datetime | None = None
    status_reason: str | None = None
    corrects: str | bool | msgspec.msgpack.Ext | None = None  # True: the same as `supersedes`
    corrects_current: bool = False
    depends_on: list[str] | None = None
    dependency_until: datetime | None = None


_TAIL_DECODER = msgspec.msgpack.Decoder(_Tail)
# a row's enum texts as enum members: one table for all, since no two of these enums share a value
# (tests/unit/state/test_codec.py)
_BY_VALUE: dict[str, Any] = {
    member.value: member
    for table in (KINDS, STATUSES, AUTHORITIES, CONSEQUENCES, SENSITIVITIES, CARDINALITIES)
    for member in table
}


def _defaults(struct: type[msgspec.Struct]) -> tuple[Any, ...]:
    """Each position's default (a sentinel for the positions that have none)."""
    info = msgspec.structs.fields(struct)
    return tuple(f.default if f.default is not msgspec.NODEFAULT else _REQUIRED for f in info)


_REQUIRED = object()
_FULL_DEFAULTS = _defaults(_Full)
_TAIL_DEFAULTS = _defaults(_Tail)


def _is_default(value: Any, default: Any) -> bool:
    return value is default or (type(value) is type(default) and value == default)


def _trimmed(defaults: tuple[Any, ...], values: tuple[Any, ...]) -> bytes:
    """`values` as a MessagePack array without its trailing defaults (the decoder fills them in:
    `omit_defaults` leaves an array-like struct's positions in)."""
    end = len(values)
    while end and _is_default(values[end - 1], defaults[end - 1]):
        end -= 1
    return _ENCODER.encode(values[:end] if end < len(values) else values)


_ROW_DECODER = msgspec.json.Decoder()


_ROW_SOURCE = True  # in a tail's evidence entry: the source id is the row's source


def _evidence_out(
    rec: Record, row_source: str | None = None
) -> list[tuple[int, str | bool | None, str | None, datetime | None]] | None:
    observed = rec.observed_at
    out = [
        (
            _SOURCE_TYPE[e.source_type],
            _ROW_SOURCE if row_source is not None and e.source_id == row_source else e.source_id,
            e.quote,
            None if e.at == observed else e.at,
        )
        for e in rec.evidence
    ]
    return out or None


def _evidence_in(
    entries: list[tuple[int, str | bool | None, str | None, datetime | None]] | None,
    observed: datetime,
    row_source: str | None = None,
) -> list[EvidenceEntry]:
    return [
        EvidenceEntry(
            source_type=SOURCE_TYPES[e[0]],
            source_id=row_source if e[1] is _ROW_SOURCE else e[1],  # type: ignore[arg-type]
            quote=e[2],
            at=e[3] or observed,
        )
        for e in entries or ()
    ]


def encode_tail(rec: Record) -> bytes:
    """The stored form of a record whose read-model row is stored beside it (see `_Tail`)."""
    observed = rec.observed_at
    return _trimmed(
        _TAIL_DEFAULTS,
        (
            TAIL,
            None if rec.scope == DEFAULT_SCOPE else rec.scope,
            None if rec.subject == DEFAULT_SUBJECT else rec.subject,
            rec.op_id,
            observed,
            None if rec.ingested_at == observed else rec.ingested_at,
            None if rec.updated_at == observed else rec.updated_at,
            None if rec.normalized_value == rec.value else rec.normalized_value,
            _evidence_out(rec, rec.source),
            _id_out(rec.supersedes),
            _id_out(rec.superseded_by),
            rec.valid_until,
            rec.valid_from,
            rec.review_at,
            rec.status_reason,
            _corrects_out(rec),
            rec.corrects_current,
            rec.depends_on or None,
            rec.dependency_until,
        ),
    )


def _corrects_out(rec: Record) -> str | bool | msgspec.msgpack.Ext | None:
    if rec.corrects is not None and rec.corrects == rec.supersedes:
        return _SAME_AS_SUPERSEDES
    return _id_out(rec.corrects)


def _corrects_in(corrects: Any, supersedes: str | None) -> str | None:
    return supersedes if corrects is _SAME_AS_SUPERSEDES else _id_in(corrects)


def _from_tail(record_id: str, raw: bytes, row: bytes | list[Any] | None, tenant: str, user: str) -> Record:
    if row is None:
        raise MalformedRecord("a stored record's tail came without its read-model row")
    t = _TAIL_DECODER.decode(raw)
    r = decode_row(row) if isinstance(row, (bytes, str)) else row
    observed = t.observed_at
    value = r[4]
    return Record(
        id=r[0],
        tenant=tenant,
        user=user,
        kind=_BY_VALUE[r[1]],
        subject=t.subject or DEFAULT_SUBJECT,
        attribute=r[2],
        scope=t.scope or DEFAULT_SCOPE,
        value=value,
        normalized_value=value if t.normalized_value is None else t.normalized_value,
        statement=r[5],
        status=_BY_VALUE[r[7]],
        op_id=t.op_id,
        observed_at=observed,
        ingested_at=t.ingested_at or observed,
        updated_at=t.updated_at or observed,
        confidence=r[8],
        importance=r[9],
        actionability=r[11],
        authority=_BY_VALUE[r[6]],
        consequence=_BY_VALUE[r[10]],
        sensitivity=_BY_VALUE[r[12]],
        cardinality=_BY_VALUE[r[13]],
        evidence=_evidence_in(t.evidence, observed, r[18]),
        supersedes=_id_in(t.supersedes),
        superseded_by=_id_in(t.superseded_by),
        valid_until=t.valid_until,
        valid_from=t.valid_from,
        review_at=t.review_at,
        status_reason=t.status_reason,
        corrects=_corrects_in(t.corrects, _id_in(t.supersedes)),
        corrects_current=t.corrects_current,
        depends_on=t.depends_on or [],
        dependency_until=t.dependency_until,
        audience=list(r[21] or ()) if len(r) > 21 else [],
    )


def encode_record(rec: Record) -> bytes:
    """The stored form of a record without a read-model row (its id, tenant and user are the key's)."""
    observed = rec.observed_at
    value = rec.value
    superseded = rec.superseded_by is not None and rec.status_reason == f"superseded by {rec.superseded_by}"
    return _trimmed(
        _FULL_DEFAULTS,
        (
            FULL,
            _KIND[rec.kind],
            rec.subject,
            rec.attribute,
            rec.scope,
            value,
            rec.statement,
            _STATUS[rec.status],
            rec.op_id,
            observed,
            None if rec.updated_at == observed else rec.updated_at,
            _id_out(rec.superseded_by),
            rec.valid_until,
            _SAID_BY_SUPERSEDED_BY if superseded else rec.status_reason,
            _evidence_out(rec),
            _id_out(rec.supersedes),
            _corrects_out(rec),
            rec.corrects_current,
            _score_out(rec.confidence),
            _score_out(rec.importance),
            _score_out(rec.actionability),
            _AUTHORITY[rec.authority],
            _CONSEQUENCE[rec.consequence],
            _SENSITIVITY[rec.sensitivity],
            _CARDINALITY[rec.cardinality],
            None if rec.ingested_at == observed else rec.ingested_at,
            None if rec.normalized_value == value else rec.normalized_value,
            rec.valid_from,
            rec.review_at,
            rec.depends_on or None,
            rec.dependency_until,
            rec.audience or None,
        ),
    )


def _text(value: str | bool | None) -> str | None:
    return value if isinstance(value, str) else None


def _from_whole(record_id: str, f: _Full | _Stored, tenant: str, user: str) -> Record:
    """A record stored whole, in format 3 or 1 (format 1 holds no thousandths and no True)."""
    observed = f.observed_at
    value = f.value
    reason = f.status_reason
    supersedes, superseded_by = _id_in(f.supersedes), _id_in(f.superseded_by)
    return Record(
        id=record_id,
        tenant=tenant,
        user=user,
        kind=KINDS[f.kind],
        subject=f.subject,
        attribute=f.attribute,
        scope=f.scope,
        value=value,
        normalized_value=value if f.normalized_value is None else f.normalized_value,
        statement=f.statement,
        status=STATUSES[f.status],
        op_id=f.op_id,
        observed_at=observed,
        ingested_at=f.ingested_at or observed,
        updated_at=f.updated_at or observed,
        confidence=_score_in(f.confidence),
        importance=_score_in(f.importance),
        actionability=_score_in(f.actionability),
        authority=AUTHORITIES[f.authority],
        consequence=CONSEQUENCES[f.consequence],
        sensitivity=SENSITIVITIES[f.sensitivity],
        cardinality=CARDINALITIES[f.cardinality],
        evidence=_evidence_in(f.evidence, observed),
        supersedes=supersedes,
        superseded_by=superseded_by,
        valid_until=f.valid_until,
        valid_from=f.valid_from,
        review_at=f.review_at,
        status_reason=f"superseded by {superseded_by}" if reason is _SAID_BY_SUPERSEDED_BY else _text(reason),
        corrects=_corrects_in(f.corrects, supersedes),
        corrects_current=f.corrects_current,
        depends_on=f.depends_on or [],
        dependency_until=f.dependency_until,
        audience=f.audience or [],
    )


def _format(raw: bytes) -> int:
    """The first position of a stored MessagePack array (-1: not an array)."""
    head = raw[0]
    at = 1 if 0x90 <= head <= 0x9F else 3 if head == 0xDC else 5 if head == 0xDD else 0
    return raw[at] if at and len(raw) > at else -1


def written_with_row(raw: bytes) -> bool:
    """Whether a stored record is a tail (the rest of it is its read-model row)."""
    return raw[:1] != b"{" and _format(raw) == TAIL


def written_now(raw: bytes) -> bool:
    """Whether a stored record is in a form written now (a tail, or format 3): not JSON, not format 1."""
    return raw[:1] != b"{" and _format(raw) in (TAIL, FULL)


def decode_record(
    record_id: str, raw: bytes | str, tenant: str, user: str, row: bytes | list[Any] | None = None
) -> Record:
    """A stored record, in any of its forms. `record_id`, `tenant`, `user`: the hash field and the
    key it was read from (the compact forms leave them out; format 1 and JSON name their own).
    `row`: a tail's read-model row, read in the same step (records.lua, load.lua)."""
    if isinstance(raw, str):
        raw = raw.encode()
    if raw[:1] == b"{":
        try:
            return Record.model_validate_json(raw)
        except msgspec.DecodeError as err:
            raise MalformedRecord(f"stored record does not validate: {err}") from err
    if not raw:
        raise MalformedRecord("stored record is empty")
    form = _format(raw)
    if form not in (FORMAT, TAIL, FULL):
        raise MalformedRecord(f"stored record of format {form}: this version reads {FORMAT}, {TAIL} and {FULL}")
    try:
        if form == TAIL:
            return _from_tail(record_id, raw, row, tenant, user)
        if form == FULL:
            return _from_whole(record_id, _FULL_DECODER.decode(raw), tenant, user)
        stored = _STORED_DECODER.decode(raw)
        return _from_whole(stored.id, stored, tenant, user)
    except msgspec.DecodeError as err:
        raise MalformedRecord(f"stored record does not decode: {err}") from err
    except IndexError as err:
        raise MalformedRecord(f"stored record holds an unknown code: {err}") from err
    except (KeyError, TypeError) as err:
        raise MalformedRecord(f"stored record does not read as one: {err!r}") from err


# --- the op ledger -----------------------------------------------------------------------------
# An entry, under its op id: [event time (µs since the epoch), outcome (its code), reason or "", ids
# of the records it wrote], the id a record created by the op gets (its op's id derived,
# memory/validation.py `derive_id`) being 0, another derived id being ID_EXT: at most 64 bytes for
# an op that wrote up to two records, so that a user's ledger stays in Redis's compact (listpack)
# encoding. The entry of an op that applied and created its one record, most entries, is the event
# time alone.
# apply.lua reads the time (to trim the ledger to its window) and drops the ids when the user is
# erased; entries written before this form are JSON objects ({"at": ISO time, "o", "r", "p"}), or
# an ISO time alone in the oldest.

_DERIVED = 0  # in a ledger entry's ids: the id derived from the entry's op id
_APPLIED = _CODE[OUTCOMES][Outcome.APPLIED]


def created_id(op_id: str) -> str:
    """The id of the record an op creates (unless the record names its own)."""
    return derive_id("r_", op_id)


def encode_ledger_entry(op_id: str, at: datetime, outcome: str, reason: str | None, record_ids: list[str]) -> bytes:
    code = _CODE[OUTCOMES][Outcome(outcome)]
    derived = created_id(op_id)
    if code == _APPLIED and not reason and record_ids == [derived]:
        return _ENCODER.encode(_us(at))  # the most common entry: the op applied, creating its record
    entry: list[Any] = [_us(at), code, reason or ""]  # nil would be a hole in Lua
    if record_ids:
        entry.append([_DERIVED if rid == derived else _id_out(rid) for rid in record_ids])
    return _ENCODER.encode(entry)


def decode_ledger_entry(op_id: str, raw: bytes) -> tuple[str, str, str | None, list[str]]:
    """(event time as ISO text, outcome, reason, record ids) of the ledger entry of op `op_id`, in
    any form."""
    if raw[:1] == b"{":
        data = msgspec.json.decode(raw)
        return data.get("at"), data.get("o", "applied"), data.get("r"), list(data.get("p") or ())
    if raw[:1].isdigit():  # the oldest form: the event time alone
        return raw.decode(), "applied", None, []
    entry = _DECODER.decode(raw)
    if isinstance(entry, int):
        return iso(_at(entry)), Outcome.APPLIED.value, None, [created_id(op_id)]
    ids = [created_id(op_id) if rid == _DERIVED else _id_in(rid) for rid in entry[3]] if len(entry) > 3 else []
    return iso(_at(entry[0])), OUTCOMES[entry[1]].value, entry[2] or None, ids


# --- the change log ------------------------------------------------------------------------------
# An entry holds one op's changes: [op id, event time (µs), change, change, ...], a change being
# [change type (its code), then field, value pairs], a field being its code in CHANGE_FIELDS
# (append only) or, for a field not listed, its name; a status is its code, the default scope True.
# The changes of one op name the same records, attribute and scope again and again: a string of
# four characters or more met before in the entry is written as a reference to it (MessagePack
# extension REF, data: its number among the entry's first mentions), the id of the record the op
# created (derived from the op id) as extension CREATED, another derived id first met as ID_EXT,
# and a suppression key ("<attribute>|<scope>|<hash>") as its three parts, so the attribute and
# scope in it are references too (the hash: its 16 bytes).
# Older entries hold one change each, [op id, time, change type, field, value, ...], or are JSON.

CHANGE_FIELDS = (
    "record_id",
    "attribute",
    "scope",
    "status",
    "by",
    "corrects",
    "key",
    "reason",
    "detail",
    "because",
    "why",
    "targets",
    "target",
    "from",
)
_CHANGE_CODE = {name: code for code, name in enumerate(CHANGE_FIELDS)}
_KEY_FIELD = _CHANGE_CODE["key"]
_PLAIN = (str, int, float, bool, type(None), Change)
REF = 1  # the extension type of a reference to a string met before in the entry
CREATED = 2  # the extension type (no data) of the id of the record the entry's op created
_REF_FROM = 4  # shorter strings are written out: a reference takes three bytes
_REFS_MAX = 256  # a reference's data is one byte


class _Interned:
    """The strings of one entry met so far, in order: encoding writes a string met before as a
    reference, decoding reads a reference back (the two walk the entry in the same order)."""

    def __init__(self, op_id: str) -> None:
        self.seen: dict[str, int] = {}
        self.strings: list[str] = []
        self.created = created_id(op_id)

    def out(self, value: Any) -> Any:
        if isinstance(value, str):
            if value == self.created:
                return msgspec.msgpack.Ext(CREATED, b"")
            ref = self.seen.get(value)
            if ref is not None:
                return msgspec.msgpack.Ext(REF, bytes((ref,)))
            if len(value) >= _REF_FROM and len(self.strings) < _REFS_MAX:
                self.seen[value] = len(self.strings)
                self.strings.append(value)
            return _id_out(value)
        if isinstance(value, list):
            return [self.out(v) for v in value]
        return value

    def back(self, value: Any) -> Any:
        if isinstance(value, msgspec.msgpack.Ext):
            data = bytes(value.data)
            if value.code == CREATED and not data:
                return self.created
            if value.code == ID_EXT:  # a string met for the first time
                return self.back(_id_in(value))
            if value.code != REF or len(data) != 1 or data[0] >= len(self.strings):
                raise MalformedRecord(f"a change-log entry holds an unknown reference: {value!r}")
            return self.strings[data[0]]
        if isinstance(value, str):
            if len(value) >= _REF_FROM and len(self.strings) < _REFS_MAX:
                self.strings.append(value)
            return value
        if isinstance(value, list):
            return [self.back(v) for v in value]
        return value


def encode_changes(op_id: str, at: datetime, changes: list[dict[str, Any]]) -> bytes:
    """One op's changes as one change-log entry."""
    interned = _Interned(op_id)
    entry: list[Any] = [op_id, _us(at)]
    for change in changes:
        out: list[Any] = [_CHANGE_TYPE_CODE[str(change["type"])]]
        # the values as JSON would give them back (times as text, enums as their values)
        plain = all(type(v) in _PLAIN for v in change.values())
        for name, value in (change if plain else orjson.loads(orjson.dumps(change))).items():
            if name == "type":
                continue
            code = _CHANGE_CODE.get(name, name)
            if name == "status":
                value = _STATUS_CODE.get(value, value)
            elif name == "scope" and value == DEFAULT_SCOPE:
                value = True
            elif code == _KEY_FIELD and isinstance(value, str) and value.count("|") == 2:
                attribute, scope, value_hash = value.split("|")
                value = [attribute, True if scope == DEFAULT_SCOPE else scope, _packed_hash(value_hash)]
            out += (code, interned.out(value))
        entry.append(out)
    return _ENCODER.encode(entry)


def is_op_entry(raw: bytes) -> bool:
    """Whether a change-log entry is of the current form (one op's changes)."""
    if raw[:1] == b"{":
        return False
    entry = _DECODER.decode(raw)
    return len(entry) < 3 or isinstance(entry[2], list)


def _key_part(part: str | bytes | bool) -> str:
    if part is True:
        return DEFAULT_SCOPE
    return part.hex() if isinstance(part, bytes) else str(part)


def _change(op: str, at: str, type_code: int, fields: list[Any], interned: _Interned | None) -> dict[str, Any]:
    out: dict[str, Any] = {"op": op, "at": at, "type": CHANGE_TYPES[type_code].value}
    for k in range(0, len(fields) - 1, 2):
        name = CHANGE_FIELDS[fields[k]] if isinstance(fields[k], int) else fields[k]
        value = interned.back(fields[k + 1]) if interned else fields[k + 1]
        if name == "status" and isinstance(value, int):
            value = STATUSES[value].value
        elif name == "scope" and value is True:
            value = DEFAULT_SCOPE
        elif name == "key" and isinstance(value, list):
            value = "|".join(_key_part(v) for v in value)
        out[name] = value
    return out


def decode_changes(raw: bytes | str) -> list[dict[str, Any]]:
    """A change-log entry, of any form, as its changes: dicts {"op", "at" (ISO text), "type",
    its fields...}."""
    if isinstance(raw, str):
        raw = raw.encode()
    if raw[:1] == b"{":
        return [dict(msgspec.json.decode(raw))]
    try:
        entry = _DECODER.decode(raw)
        op, at = entry[0], iso(_at(entry[1]))
        if len(entry) > 2 and isinstance(entry[2], int):  # one change an entry (the older form)
            return [_change(op, at, entry[2], entry[3:], None)]
        interned = _Interned(op)
        return [_change(op, at, change[0], change[1:], interned) for change in entry[2:]]
    except (msgspec.DecodeError, IndexError, TypeError) as err:
        raise MalformedRecord(f"a change-log entry does not decode: {err}") from err


# --- a slot's lineage ----------------------------------------------------------------------------


def lineage_ids(joined: bytes | None, listed: list[bytes], live: bytes | None) -> list[str]:
    """A slot's record ids, oldest first: its field of the lineage hash (ids joined by spaces),
    then the ids of its live list (`live`, as the slot hash holds it) the field does not hold; a
    slot written before that hash has a list of its own instead (state/keys.py `lineage`)."""
    if joined is None and listed:
        return [i.decode() for i in listed]
    ids = joined.decode().split() if joined else []
    held = set(ids)
    return ids + [i for i in (msgspec.json.decode(live) if live else ()) if i not in held]


def lineage_field(lineage: list[str], live: list[str]) -> str | None:
    """What the lineage hash holds for a slot (None: no field): its lineage less the live ids
    where they end it (apply.lua writes the same)."""
    kept = len(lineage) - len(live)
    if kept < 0 or lineage[kept:] != live:
        kept = len(lineage)
    return " ".join(lineage[:kept]) or None


# --- suppressions --------------------------------------------------------------------------------
# Stored under their field, the key (Suppression.key, "<attribute>|<scope or *>|<value hash or *>")
# with the default scope left empty and the value hash as its 16 bytes rather than 32 hex digits,
# as [time (µs), record ids, reason (its code in SUPPRESSION_REASONS)]: the field gives the rest,
# and a value this short keeps a user's suppressions in Redis's compact (listpack) encoding. Older
# ones have the scope and hash spelled out or the reason, or are the suppression's JSON under its key.

SUPPRESSION_REASONS = ("forget", "corrected", "retracted", "rejected")  # apply.lua and context.lua know 1 and 2
_SUPPRESSION_REASON = {reason: code for code, reason in enumerate(SUPPRESSION_REASONS)}
_HASH_HEX = 32  # a value hash's hex digits (memory/validation.py value_hash)


def _packed_hash(value_hash: str) -> str | bytes:
    """A value hash as its bytes; anything else ("*") as it is."""
    if len(value_hash) == _HASH_HEX:
        try:
            return bytes.fromhex(value_hash)
        except ValueError:
            pass
    return value_hash


def suppression_field(key: str) -> bytes:
    """The stored field of a suppression's key: the default scope left empty, the value hash packed."""
    attribute, scope, value_hash = key.split("|")
    packed = _packed_hash(value_hash)
    return b"|".join(
        (
            attribute.encode(),
            b"" if scope == DEFAULT_SCOPE else scope.encode(),
            packed if isinstance(packed, bytes) else packed.encode(),
        )
    )


def suppression_key(field: bytes | str) -> str:
    """A suppression's key (Suppression.key) from its stored field, of any form."""
    if isinstance(field, str):
        field = field.encode()
    attribute, scope, value_hash = field.split(b"|", 2)
    hashed = value_hash.hex() if len(value_hash) == _HASH_HEX // 2 else value_hash.decode()
    return f"{attribute.decode()}|{scope.decode() or DEFAULT_SCOPE}|{hashed}"


def encode_suppression(sup: Suppression) -> bytes:
    ids = [_id_out(rid) for rid in sup.record_ids]
    return _ENCODER.encode([_us(sup.at), ids, _SUPPRESSION_REASON.get(sup.reason, sup.reason)])


def decode_suppression(field: bytes | str, raw: bytes | str) -> Suppression:
    if isinstance(raw, str):
        raw = raw.encode()
    try:
        if raw[:1] == b"{":
            return Suppression.model_validate_json(raw)
        at, record_ids, reason = _DECODER.decode(raw)
        attribute, scope, value_hash = suppression_key(field).split("|")
        return Suppression(
            attribute=attribute,
            scope=None if scope == "*" else scope,
            value_hash=None if value_hash == "*" else value_hash,
            at=_at(at),
            record_ids=[_id_in(rid) for rid in record_ids],
            reason=SUPPRESSION_REASONS[reason] if isinstance(reason, int) else reason,
        )
    except (msgspec.DecodeError, ValidationError, ValueError, IndexError, TypeError) as err:  # (MalformedRecord too)
        raise MalformedRecord(f"a suppression does not decode: {err}") from err


def decode_suppressions(pairs: Sequence[bytes | str]) -> list[Suppression]:
    """Suppressions from a flat [key, value, key, value, ...] reply."""
    return [decode_suppression(pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2)]


# --- read-model rows ----------------------------------------------------------------------------
# A row (memory/selection.py `compact`, in `Candidate` order) is stored as its JSON, without the
# trailing positions that hold their default (audience, dependency end, review note and meaning
# are None or empty for most records): `Candidate` gives them their defaults.

_ROW_KEPT = 21  # the positions every stored row holds: id to static value (Candidate's fields before audience)


def encode_row(row: list[Any]) -> bytes:
    end = len(row)
    while end > _ROW_KEPT and (row[end - 1] is None or row[end - 1] == []):
        end -= 1
    return orjson.dumps(row[:end])


def decode_row(raw: bytes | str) -> list[Any]:
    """A stored row as the list `compact` made (less the trailing defaults)."""
    return list(_ROW_DECODER.decode(raw))


# --- cold history -------------------------------------------------------------------------------
# A user's retired versions beyond the newest of each slot (the engine's `history_hot`) leave
# <prefix>:rec for <prefix>:cold, a hash of two fields: `ids`, the ids it holds between spaces
# (" r_a r_b "), which scripts read; and `data`, the records compressed together
# (zlib of the MessagePack array [[id, stored record], ...]): retired versions of a user repeat
# each other's attributes, scopes and evidence, and compress to a fraction of their size. Only the
# ids listed count: a write that brings a record back takes its id out of `ids` (apply.lua), and
# the next settling drops its stale bytes (Engine.settle). A script that needs listed records
# returns the hash as one triple: id COLD_ID, `data`, the ids wanted (False: every one).

COLD_ID = "*"  # (record ids never hold it: memory/models.py ID_RE)


def encode_cold(entries: Mapping[str, bytes]) -> tuple[bytes, bytes]:
    """The `ids` and `data` fields of a user's cold history of `entries` (id -> stored record)."""
    ids = (" " + " ".join(entries) + " ").encode()
    return ids, zlib.compress(_ENCODER.encode([[rid, raw] for rid, raw in entries.items()]), 9)


def cold_entries(ids: bytes | str, data: bytes) -> dict[str, bytes]:
    """The records a cold history holds (id -> stored record): those `ids` lists."""
    listed = set((ids.decode() if isinstance(ids, bytes) else ids).split())
    try:
        pairs = _DECODER.decode(zlib.decompress(data))
    except (zlib.error, msgspec.DecodeError) as err:
        raise MalformedRecord(f"a cold history does not decode: {err}") from err
    return {rid: raw for rid, raw in pairs if rid in listed}


def cold_records(data: bytes, wanted: bytes | str | None, tenant: str, user: str) -> dict[str, Record]:
    """The records of a cold-history triple (COLD_ID, data, the wanted ids or None: every listed
    one; the script checked they are listed)."""
    if wanted is None:
        raise MalformedRecord("a cold history came without the ids it holds")
    held = cold_entries(wanted, data)
    return {rid: decode_record(rid, raw, tenant, user) for rid, raw in held.items()}


# --- records as the scripts return them ----------------------------------------------------------


def decode_triples(flat: Sequence[Any], tenant: str, user: str) -> dict[str, Record]:
    """Records from a flat [id, stored, row of a tail or nil, ...] reply (records.lua, load.lua),
    a cold history's triple among them."""
    out: dict[str, Record] = {}
    for i in range(0, len(flat), 3):
        rid = flat[i].decode() if isinstance(flat[i], bytes) else flat[i]
        if rid == COLD_ID:
            out.update(cold_records(flat[i + 1], flat[i + 2] or None, tenant, user))
        else:
            out[rid] = decode_record(rid, flat[i + 1], tenant, user, flat[i + 2])
    return out

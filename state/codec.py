"""How records are stored in Redis: a compact positional MessagePack form with a format version.

A record's JSON spelled out every field name (about 42% of its bytes), every default and every
time as text. The stored form is a MessagePack array, `[format, id, kind, subject, attribute,
scope, value, statement, status, op_id, observed_at, ...]`, in which:

- the tenant and the user are left out: the key the record is stored under names them;
- enums are small integers (the tables below: append only, never reorder);
- `observed_at` is microseconds since the epoch; every other time is microseconds after it (0 for
  the same instant, which is the usual case and one byte);
- a float that is a whole number of ten-thousandths is that integer (0.5 -> 5000: two bytes, and
  dividing it back gives the same float);
- `normalized_value` is left out (nil) when it equals the value;
- fields past the last one that differs from its default are left out of the array.

Records written before this form are JSON objects (their first byte is `{`): `decode_record` reads
both, so a namespace needs no conversion to keep working; `slotstream state compact` rewrites old
records in this form (state/compaction.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from slotstream.memory.models import (
    Authority,
    Cardinality,
    Consequence,
    EvidenceEntry,
    Kind,
    Record,
    Sensitivity,
    SourceType,
    Status,
)

FORMAT = 1

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

_CODE = {
    table: {value: code for code, value in enumerate(table)}
    for table in (KINDS, STATUSES, AUTHORITIES, CONSEQUENCES, SENSITIVITIES, CARDINALITIES, SOURCE_TYPES)
}

# positions of the array (after the format at 0)
ID, KIND, SUBJECT, ATTRIBUTE, SCOPE = 1, 2, 3, 4, 5

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder()


class MalformedRecord(ValueError):
    """A stored value that is neither a record's JSON nor its compact form."""


def _us(dt: datetime) -> int:
    delta = dt - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _at(us: int) -> datetime:
    return _EPOCH + timedelta(microseconds=us)


def _after(dt: datetime | None, base: int) -> int | None:
    return None if dt is None else _us(dt) - base


def _from(offset: int | None, base: int) -> datetime | None:
    return None if offset is None else _at(base + offset)


def _number(x: float) -> float | int:
    scaled = round(x * 10_000)
    return scaled if scaled / 10_000 == x and -(2**31) < scaled < 2**31 else x


def _float(x: float | int) -> float:
    return x / 10_000 if isinstance(x, int) else x


def _evidence(ev: EvidenceEntry, base: int) -> list[Any]:
    out = [_CODE[SOURCE_TYPES][ev.source_type], ev.source_id, ev.quote, _after(ev.at, base)]
    while out and out[-1] is None:
        out.pop()
    return out


def encode_record(rec: Record) -> bytes:
    """The stored form of `rec` (its tenant and user are the key's)."""
    base = _us(rec.observed_at)
    value = rec.value
    out: list[Any] = [
        FORMAT,
        rec.id,
        _CODE[KINDS][rec.kind],
        rec.subject,
        rec.attribute,
        rec.scope,
        value,
        rec.statement,
        _CODE[STATUSES][rec.status],
        rec.op_id,
        base,
        _after(rec.ingested_at, base),
        _after(rec.updated_at, base),
        _number(rec.confidence),
        _number(rec.importance),
        _number(rec.actionability),
        _CODE[AUTHORITIES][rec.authority],
        _CODE[CONSEQUENCES][rec.consequence],
        _CODE[SENSITIVITIES][rec.sensitivity],
        _CODE[CARDINALITIES][rec.cardinality],
        None if rec.normalized_value == value else rec.normalized_value,
        [_evidence(ev, base) for ev in rec.evidence] or None,
        rec.supersedes,
        rec.superseded_by,
        _after(rec.valid_until, base),
        _after(rec.valid_from, base),
        _after(rec.review_at, base),
        rec.status_reason,
        rec.corrects,
        rec.corrects_current or None,
        rec.depends_on or None,
        _after(rec.dependency_until, base),
        rec.audience or None,
    ]
    while out[-1] is None:
        out.pop()
    return _ENCODER.encode(out)


def _field(fields: list[Any], k: int) -> Any:
    return fields[k] if k < len(fields) else None


def decode_record(raw: bytes | str, tenant: str, user: str) -> Record:
    """A stored record, in either form. `tenant`, `user`: whose key it was read from (the compact
    form leaves them out; a JSON record names its own)."""
    if isinstance(raw, str):
        raw = raw.encode()
    if raw[:1] == b"{":
        return Record.model_validate_json(raw)
    try:
        f = _DECODER.decode(raw)
        if not isinstance(f, list) or not f or f[0] != FORMAT:
            raise MalformedRecord(f"not a stored record (format {f[0] if isinstance(f, list) and f else '?'})")
        base = f[10]
        value = f[6]
        normalized = _field(f, 20)
        evidence = [
            EvidenceEntry(
                source_type=SOURCE_TYPES[e[0]],
                source_id=e[1] if len(e) > 1 else None,
                quote=e[2] if len(e) > 2 else None,
                at=_from(e[3], base) if len(e) > 3 else None,
            )
            for e in _field(f, 21) or ()
        ]
        return Record(
            id=f[ID],
            tenant=tenant,
            user=user,
            kind=KINDS[f[KIND]],
            subject=f[SUBJECT],
            attribute=f[ATTRIBUTE],
            scope=f[SCOPE],
            value=value,
            normalized_value=value if normalized is None else normalized,
            statement=f[7],
            status=STATUSES[f[8]],
            op_id=f[9],
            observed_at=_at(base),
            ingested_at=_at(base + f[11]),
            updated_at=_at(base + f[12]),
            confidence=_float(f[13]),
            importance=_float(f[14]),
            actionability=_float(f[15]),
            authority=AUTHORITIES[f[16]],
            consequence=CONSEQUENCES[f[17]],
            sensitivity=SENSITIVITIES[f[18]],
            cardinality=CARDINALITIES[f[19]],
            evidence=evidence,
            supersedes=_field(f, 22),
            superseded_by=_field(f, 23),
            valid_until=_from(_field(f, 24), base),
            valid_from=_from(_field(f, 25), base),
            review_at=_from(_field(f, 26), base),
            status_reason=_field(f, 27),
            corrects=_field(f, 28),
            corrects_current=bool(_field(f, 29)),
            depends_on=list(_field(f, 30) or ()),
            dependency_until=_from(_field(f, 31), base),
            audience=list(_field(f, 32) or ()),
        )
    except (msgspec.DecodeError, IndexError, TypeError, KeyError) as err:
        raise MalformedRecord(f"stored record does not decode: {err}") from err

"""Stored forms earlier releases wrote, for the tests that check they are still read."""

from __future__ import annotations

import msgspec

from slotstream.memory.models import Record, Suppression
from slotstream.state import codec
from slotstream.state.codec import (
    AUTHORITIES,
    CARDINALITIES,
    CONSEQUENCES,
    KINDS,
    SENSITIVITIES,
    SOURCE_TYPES,
    STATUSES,
)


def format_1(rec: Record) -> bytes:
    """`rec` in format 1, the compact form records without a row were written in before format 3."""
    obs = rec.observed_at
    return msgspec.msgpack.encode(
        codec._Stored(
            1,
            rec.id,
            KINDS.index(rec.kind),
            rec.subject,
            rec.attribute,
            rec.scope,
            rec.value,
            rec.statement,
            STATUSES.index(rec.status),
            rec.op_id,
            obs,
            None if rec.ingested_at == obs else rec.ingested_at,
            None if rec.updated_at == obs else rec.updated_at,
            rec.confidence,
            rec.importance,
            rec.actionability,
            AUTHORITIES.index(rec.authority),
            CONSEQUENCES.index(rec.consequence),
            SENSITIVITIES.index(rec.sensitivity),
            CARDINALITIES.index(rec.cardinality),
            None if rec.normalized_value == rec.value else rec.normalized_value,
            [
                (SOURCE_TYPES.index(e.source_type), e.source_id, e.quote, None if e.at == obs else e.at)
                for e in rec.evidence
            ]
            or None,
            rec.supersedes,
            rec.superseded_by,
            rec.valid_until,
            rec.valid_from,
            rec.review_at,
            rec.status_reason,
            rec.corrects,
            rec.corrects_current,
            rec.depends_on or None,
            rec.dependency_until,
            rec.audience or None,
        )
    )


def suppression_spelled(sup: Suppression) -> bytes:
    """`sup`'s value as it was stored before reasons were coded (under its key, the hash in hex)."""
    return msgspec.msgpack.encode([codec._us(sup.at), sup.record_ids, sup.reason])

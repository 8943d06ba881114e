"""The archived history: a user's oldest retired versions, kept outside Redis.

Retired versions first go into the user's cold history in Redis (state/codec.py). Once that holds
`Engine.archive_after` records, settling moves them, with the part of each slot's lineage they
begin, into a segment of the user's archive (a `HistoryArchive`: in a deployment, a compacted
Kafka topic, streams/history_archive.py), and Redis keeps only the segments' positions in
<prefix>:arch, oldest first. A user's memory in Redis then stops growing with their history:
what it holds of the past is at most the cold history's bound and a few bytes a segment.

A segment holds at most SEGMENT_RECORDS records. The newest one is written again, whole, with the
next records until it is full (under a new position, the old one dropped once Redis names the new
one), so a user has one segment per SEGMENT_RECORDS archived versions.

Readers put a slot's lineage together from the segments' parts, in order, then the part Redis
holds (`full_lineage`); a record is the one Redis holds, else the archived one. A write that
brings an archived record back (a forget of an old value) writes it to Redis, where it wins.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import msgspec

from slotstream.memory.errors import ArchiveError, ArchiveUnavailable, SegmentUnreadable
from slotstream.memory.models import Record

from .codec import decode_record

SEGMENT_FORMAT = 1
SEGMENT_RECORDS = 512  # records a segment holds before the next one starts

_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder()


__all__ = ["ArchiveError", "ArchiveUnavailable", "SegmentUnreadable"]  # (raised by every archive)


class HistoryArchive(Protocol):
    """Where segments are kept. Positions are the archive's own bytes; Redis stores them as they are."""

    def write(self, tenant: str, user: str, payload: bytes) -> bytes:
        """Store one segment of the user's; its position. Raises ArchiveUnavailable."""
        ...

    def read(self, tenant: str, user: str, positions: Sequence[bytes]) -> list[bytes]:
        """The segments at `positions`, in their order. Raises ArchiveUnavailable or
        SegmentUnreadable."""
        ...

    def drop(self, tenant: str, user: str, positions: Sequence[bytes]) -> None:
        """Segments no position in Redis names any more (replaced by a fuller one): the archive
        may reclaim them. Best effort: a segment left behind is never read."""
        ...


@dataclass
class Segment:
    records: dict[str, bytes] = field(default_factory=dict)  # id -> stored record (state/codec.py)
    lineage: dict[str, list[str]] = field(default_factory=dict)  # slot key -> archived ids, oldest first
    # a deduplicated op's record id -> the record it refreshed, once that record left Redis
    aliases: dict[str, str] = field(default_factory=dict)

    def encode(self) -> bytes:
        body = [SEGMENT_FORMAT, list(self.records.items()), list(self.lineage.items()), list(self.aliases.items())]
        return zlib.compress(_ENCODER.encode(body), 9)

    @classmethod
    def decode(cls, raw: bytes) -> Segment:
        try:
            version, records, lineage, aliases = _DECODER.decode(zlib.decompress(raw))
            if version != SEGMENT_FORMAT:
                raise SegmentUnreadable(f"a segment of format {version!r}; this release reads {SEGMENT_FORMAT}")
            return cls(
                {str(rid): bytes(rec) for rid, rec in records},
                {str(s): list(ids) for s, ids in lineage},
                {str(alias): str(target) for alias, target in aliases},
            )
        except (zlib.error, msgspec.DecodeError, TypeError, ValueError) as err:
            raise SegmentUnreadable(f"a segment does not decode: {err}") from err

    def followed_by(self, newer: Segment) -> Segment:
        """This segment with `newer`'s records, lineage parts and aliases after its own."""
        lineage = {slot: list(ids) for slot, ids in self.lineage.items()}
        for slot, ids in newer.lineage.items():
            lineage.setdefault(slot, []).extend(ids)
        return Segment({**self.records, **newer.records}, lineage, {**self.aliases, **newer.aliases})


@dataclass
class Archived:
    """A user's archive read whole: the union of their segments."""

    records: dict[str, bytes] = field(default_factory=dict)
    lineage: dict[str, list[str]] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, segments: Iterable[Segment]) -> Archived:
        whole = Segment()
        for segment in segments:
            whole = whole.followed_by(segment)
        return cls(whole.records, whole.lineage, whole.aliases)


def split_lineage(staying: Container[str], fields: Mapping[str, str]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """What of each slot's lineage field (slot key -> ids joined by spaces) moves to the archive:
    the longest start of the field none of whose records stays in Redis (`staying`: the live ones,
    and retired ones kept whole), be they archived now or before, so that archived parts followed
    by what Redis keeps give the lineage in order. Returns those parts, and the fields left (""
    for a field left empty, which Redis drops: the slot's live list is then its lineage)."""
    parts: dict[str, list[str]] = {}
    rest: dict[str, str] = {}
    for slot, joined in fields.items():
        ids = joined.split()
        k = 0
        while k < len(ids) and ids[k] not in staying:
            k += 1
        if k:
            parts[slot] = ids[:k]
            rest[slot] = " ".join(ids[k:])
    return parts, rest


def full_lineage(
    slot: str, archived: Sequence[str], hot: Sequence[str], slot_of: Callable[[str], str | None]
) -> list[str]:
    """A slot's lineage: its archived part, less the records that have moved to another slot since
    (`slot_of`: a record's slot now, None when unknown), then the part Redis holds."""
    held = set(hot)
    out = [rid for rid in archived if rid not in held and slot_of(rid) in (slot, None)]
    return list(dict.fromkeys([*out, *hot]))


def archived_records(archived: Archived, ids: Iterable[str], tenant: str, user: str) -> dict[str, Record]:
    """The records of `ids` the archive holds."""
    return {rid: decode_record(rid, archived.records[rid], tenant, user) for rid in ids if rid in archived.records}


def slot_finder(held: Mapping[str, Record], archived: Archived, tenant: str, user: str) -> Callable[[str], str | None]:
    """A record's slot now, for `full_lineage`: Redis's copy's (`held`), else the newest archived
    copy's (a record moved, then archived again, is in a later segment than its old lineage)."""

    def slot_of(rid: str) -> str | None:
        if rid in held:
            return held[rid].slot
        if rid in archived.records:
            return decode_record(rid, archived.records[rid], tenant, user).slot
        return None

    return slot_of

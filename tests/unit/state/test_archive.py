"""The archived history's pure parts (state/archive.py): segments in and out of their bytes, the
union of a user's segments, which part of a lineage moves with its records, and how a slot's
lineage is put together again."""

from __future__ import annotations

import zlib

import msgspec
import pytest

from slotstream.state.archive import (
    SEGMENT_FORMAT,
    Archived,
    Segment,
    SegmentUnreadable,
    full_lineage,
    split_lineage,
)


def test_a_segment_comes_back_from_its_bytes_as_it_went_in() -> None:
    segment = Segment({"r_a": b"\x93\x03\x01\x02", "r_b": b"stored"}, {"user|drink|": ["r_a", "r_b"]}, {"r_c": "r_b"})
    raw = segment.encode()
    assert Segment.decode(raw) == segment
    assert b"stored" not in raw  # compressed


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not zlib at all",
        zlib.compress(b"\xc1"),  # not MessagePack
        zlib.compress(msgspec.msgpack.encode([SEGMENT_FORMAT + 1, [], [], []])),  # a format this release does not read
        zlib.compress(msgspec.msgpack.encode([SEGMENT_FORMAT, [], [], []])[:-1]),  # cut short
        zlib.compress(msgspec.msgpack.encode([SEGMENT_FORMAT, [], []])),  # a part missing
        zlib.compress(msgspec.msgpack.encode({"records": []})),
    ],
)
def test_bytes_that_are_no_segment_are_refused_as_unreadable(raw: bytes) -> None:
    with pytest.raises(SegmentUnreadable):
        Segment.decode(raw)


def test_a_newer_segment_follows_an_older_one_its_records_winning() -> None:
    older = Segment({"r_a": b"old a", "r_b": b"b"}, {"s1": ["r_a"], "s2": ["r_b"]}, {"r_d": "r_a"})
    newer = Segment({"r_a": b"new a", "r_c": b"c"}, {"s1": ["r_c"], "s3": ["r_x"]}, {"r_e": "r_c"})
    both = older.followed_by(newer)
    assert both.records == {"r_a": b"new a", "r_b": b"b", "r_c": b"c"}
    assert both.lineage == {"s1": ["r_a", "r_c"], "s2": ["r_b"], "s3": ["r_x"]}
    assert both.aliases == {"r_d": "r_a", "r_e": "r_c"}
    assert older.lineage == {"s1": ["r_a"], "s2": ["r_b"]}  # neither is changed
    assert Archived.of([older, newer]) == Archived(both.records, both.lineage, both.aliases)
    assert Archived.of([]) == Archived()


def test_a_lineage_field_gives_up_the_longest_start_none_of_whose_records_stays_in_redis() -> None:
    staying = {"r_5", "r_7"}  # live, or kept whole
    fields = {
        "whole": "r_1 r_2",  # nothing stays: the field is left empty (Redis drops it)
        "start": "r_4 r_5 r_9",  # r_9 goes too, but after r_5, which stays: its place stays in Redis
        "none": "r_5 r_1",  # the first stays: nothing of it moves
        "earlier": "r_0 r_3 r_7",  # r_0 went to the archive before, r_3 goes now: both places go
    }
    parts, rest = split_lineage(staying, fields)
    assert parts == {"whole": ["r_1", "r_2"], "start": ["r_4"], "earlier": ["r_0", "r_3"]}
    assert rest == {"whole": "", "start": "r_5 r_9", "earlier": "r_7"}


def test_a_slots_lineage_is_its_archived_part_then_the_part_redis_holds() -> None:
    where = {"r_moved": "other", "r_back": "s"}
    lineage = full_lineage("s", ["r_1", "r_moved", "r_back", "r_2"], ["r_back", "r_3"], where.get)
    # a record moved to another slot since leaves this one's lineage; one Redis lists again is
    # listed where Redis has it; one of unknown whereabouts stays
    assert lineage == ["r_1", "r_2", "r_back", "r_3"]
    assert full_lineage("s", [], ["r_3"], where.get) == ["r_3"]
    assert full_lineage("s", ["r_1", "r_1"], [], where.get) == ["r_1"]

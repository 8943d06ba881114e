"""Reading a range of the retained topics outside any consumer group (manual assignment), for
replays: a live worker's partitions are never taken, and nothing is committed.

A range is resolved once into offsets per partition, [start, end), so a resumed replay reads
exactly what the first attempt meant to read whatever arrived since.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kafka import KafkaConsumer, TopicPartition

from .messages import RawMessage

Offsets = dict[int, int]  # partition -> offset


@dataclass(frozen=True)
class Bound:
    """One end of a range: the log's beginning or end, a time, or explicit offsets (partitions not
    named take the log's beginning for a start, its end for an end)."""

    kind: str  # "edge" (beginning for a start, now for an end), "time" or "offsets"
    time_ms: int | None = None
    offsets: Mapping[str, Offsets] | None = None  # role -> partition -> offset

    @classmethod
    def parse(cls, text: str | Sequence[str] | None) -> Bound:
        """`beginning` / `now` / an ISO-8601 time / `role:partition=offset,...` (repeatable)."""
        items = [text] if isinstance(text, str) else list(text or [])
        if not items or items == ["beginning"] or items == ["now"]:
            return cls("edge")
        if len(items) == 1 and "=" not in items[0]:
            try:
                moment = datetime.fromisoformat(items[0].replace("Z", "+00:00"))
            except ValueError:
                raise ValueError(
                    f"a bound is beginning, now, an ISO-8601 time or offsets like ops:0=120, not {items[0]!r}"
                ) from None
            if moment.tzinfo is None:
                raise ValueError(f"a time bound needs a timezone (e.g. {items[0]}Z): {items[0]!r}")
            return cls("time", time_ms=int(moment.timestamp() * 1000))
        offsets: dict[str, Offsets] = {}
        for item in items:
            role, sep, rest = item.partition(":")
            if not sep or not rest:
                raise ValueError(f"offsets look like ops:0=120,1=98, not {item!r}")
            for pair in rest.split(","):
                partition, eq, offset = pair.partition("=")
                if not eq or not partition.strip().isdigit() or not offset.strip().lstrip("-").isdigit():
                    raise ValueError(f"offsets look like ops:0=120,1=98, not {item!r}")
                offsets.setdefault(role.strip(), {})[int(partition)] = int(offset)
        return cls("offsets", offsets=offsets)


def log_consumer(bootstrap: str, max_records: int = 2000) -> KafkaConsumer:
    """A consumer in no group (manual assignment; nothing committed), for `read_partition`."""
    return KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        client_id="slotstream-replay",
        max_poll_records=max_records,
        fetch_max_bytes=32 * 1024 * 1024,
        max_partition_fetch_bytes=8 * 1024 * 1024,
        # a range ends at a known offset: a fetch at the log's end should not idle for the default 500 ms
        fetch_max_wait_ms=50,
    )


def resolve_range(
    bootstrap: str, topics: Mapping[str, str], start: Bound, end: Bound
) -> dict[str, dict[int, tuple[int, int]]]:
    """role -> partition -> (start, end) offsets, clamped to what the log holds."""
    consumer = log_consumer(bootstrap)
    try:
        out: dict[str, dict[int, tuple[int, int]]] = {}
        for role, topic in topics.items():
            partitions = sorted(consumer.partitions_for_topic(topic) or ())
            if not partitions:
                raise ValueError(f"topic {topic} does not exist (run `slotstream topics create`)")
            tps = [TopicPartition(topic, p) for p in partitions]
            first, last = consumer.beginning_offsets(tps), consumer.end_offsets(tps)
            low = _bound(consumer, role, tps, start, first, last)
            high = _bound(consumer, role, tps, end, last, last)
            out[role] = {
                tp.partition: (
                    max(first[tp], min(low[tp], last[tp])),
                    max(first[tp], min(high[tp], last[tp])),
                )
                for tp in tps
            }
            for partition, (lo, hi) in out[role].items():
                if hi < lo:
                    out[role][partition] = (lo, lo)
        return out
    finally:
        consumer.close()


def _bound(
    consumer: KafkaConsumer,
    role: str,
    tps: list[TopicPartition],
    bound: Bound,
    edge: Mapping[TopicPartition, int],
    last: Mapping[TopicPartition, int],
) -> dict[TopicPartition, int]:
    if bound.kind == "time":
        found = consumer.offsets_for_times({tp: bound.time_ms for tp in tps})
        # no record at or after the time: the range starts (or ends) at the log's end
        return {tp: (found[tp].offset if found.get(tp) is not None else last[tp]) for tp in tps}
    if bound.kind == "offsets":
        given = (bound.offsets or {}).get(role, {})
        return {tp: given.get(tp.partition, edge[tp]) for tp in tps}
    return dict(edge)


def _message(record: Any) -> RawMessage:
    return RawMessage(
        record.topic,
        record.partition,
        record.offset,
        record.key,
        record.value,
        record.timestamp,
        tuple(record.headers or ()),
    )


def read_partition(
    consumer: KafkaConsumer, ranges: Sequence[tuple[int, str, int, int, int]], poll_ms: int = 200
) -> Iterator[RawMessage]:
    """The messages of one partition number across topics, merged into the order they were
    appended: by the broker's append time, then by `rank` (the topic given first wins a tie),
    then by offset. `ranges`: (rank, topic, partition, start, end) with [start, end) to read.
    The consumer (see `log_consumer`) is reassigned; the caller closes it."""
    try:
        wanted = {TopicPartition(topic, partition): (rank, start, end) for rank, topic, partition, start, end in ranges}
        open_tps = {tp: spec for tp, spec in wanted.items() if spec[1] < spec[2]}
        consumer.assign(list(open_tps))
        if not open_tps:
            return
        for tp, (_, start, _) in open_tps.items():
            consumer.seek(tp, start)
        buffers: dict[TopicPartition, list[RawMessage]] = {tp: [] for tp in open_tps}
        done = {tp: False for tp in open_tps}
        heap: list[tuple[int, int, int, int, TopicPartition]] = []
        while True:
            # a message can go once every other unfinished topic has a buffered message to compare with
            while heap and all(done[tp] or buffers[tp] for tp in open_tps):
                _, _, _, _, tp = heapq.heappop(heap)
                msg = buffers[tp].pop(0)
                yield msg
                if buffers[tp]:
                    head = buffers[tp][0]
                    heapq.heappush(heap, (head.timestamp_ms or 0, open_tps[tp][0], head.offset, id(tp), tp))
            if all(done.values()):
                return
            # keep memory bounded: a topic far ahead waits for the other one
            full = [tp for tp in open_tps if len(buffers[tp]) >= 5000]
            consumer.pause(*full)
            consumer.resume(*[tp for tp in open_tps if tp not in full and not done[tp]])
            polled = consumer.poll(timeout_ms=poll_ms)
            for tp, records in polled.items():
                rank, _, end = open_tps[tp]
                was_empty = not buffers[tp]
                for record in records:
                    if record.offset >= end:
                        break
                    buffers[tp].append(_message(record))
                if was_empty and buffers[tp]:
                    head = buffers[tp][0]
                    heapq.heappush(heap, (head.timestamp_ms or 0, rank, head.offset, id(tp), tp))
            for tp, (_, _, end) in open_tps.items():
                if not done[tp] and consumer.position(tp) >= end:
                    done[tp] = True
                    consumer.pause(tp)
    finally:
        consumer.assign([])


def read_whole(consumer: KafkaConsumer, topic: str, poll_ms: int = 200) -> Iterator[tuple[bytes, bytes | None]]:
    """Every record of a (compacted) topic up to its current end, in log order per partition:
    (key, value), value None for a tombstone."""
    partitions = sorted(consumer.partitions_for_topic(topic) or ())
    tps = [TopicPartition(topic, p) for p in partitions]
    ends = consumer.end_offsets(tps)
    wanted = [tp for tp in tps if ends[tp] > 0]
    consumer.assign(wanted)
    try:
        if not wanted:
            return
        consumer.seek_to_beginning(*wanted)
        remaining = set(wanted)
        while remaining:
            for tp, records in consumer.poll(timeout_ms=poll_ms).items():
                for record in records:
                    if record.offset < ends[tp] and record.key is not None:
                        yield record.key, record.value
            for tp in list(remaining):
                if consumer.position(tp) >= ends[tp]:
                    remaining.discard(tp)
                    consumer.pause(tp)
    finally:
        consumer.assign([])

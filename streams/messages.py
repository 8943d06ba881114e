"""Kafka records as the processors see them, and what a batch gives back to produce."""

from __future__ import annotations

from dataclasses import dataclass, field

from .schemas import SourceRef

Keyed = tuple[bytes | None, bytes]  # (key, value) of a record to produce
Compacted = tuple[bytes, bytes | None]  # a compacted topic's record: key, value (None: a tombstone)


@dataclass(slots=True)
class RawMessage:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp_ms: int | None = None  # ingest time: the broker's (or producer's) record timestamp
    headers: tuple[tuple[str, bytes], ...] = ()
    sealed: bool = False  # the value was opened from a sealed payload: never copied into a dead letter

    def header(self, name: str) -> bytes | None:
        for key, value in self.headers:
            if key == name:
                return value
        return None

    @property
    def source(self) -> SourceRef:
        return SourceRef(topic=self.topic, partition=self.partition, offset=self.offset)

    @property
    def source_id(self) -> str:
        return f"{self.topic}:{self.partition}:{self.offset}"


@dataclass
class BatchOutput:
    """A batch's records to produce; the source offsets count as done only once they are delivered."""

    ops: list[Keyed] = field(default_factory=list)
    changes: list[Keyed] = field(default_factory=list)
    dead: list[Keyed] = field(default_factory=list)
    keys: list[Compacted] = field(default_factory=list)  # users' data keys created, or erased (tombstones)
    control: list[Compacted] = field(default_factory=list)  # forgets and erasures a replay applies first
    control_private: list[Compacted] = field(default_factory=list)  # the same, to be sealed first (forgets)
    # (tenant, user, key ids): keys to delete from Redis once the tombstones above were delivered
    shred: list[tuple[str, str, list[str]]] = field(default_factory=list)
    watermark: dict[int, int] = field(default_factory=dict)  # partition -> newest event time (ms)
    counts: dict[str, int] = field(default_factory=dict)  # metric name -> increment, recorded with the position

    def count(self, name: str, n: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def merge(self, other: BatchOutput) -> None:
        self.ops += other.ops
        self.changes += other.changes
        self.dead += other.dead
        self.keys += other.keys
        self.control += other.control
        self.control_private += other.control_private
        self.shred += other.shred
        for partition, ms in other.watermark.items():
            self.watermark[partition] = max(self.watermark.get(partition, ms), ms)
        for name, n in other.counts.items():
            self.count(name, n)

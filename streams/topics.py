"""Topic specs. Every topic is keyed by tenant+user, so one user's events stay ordered on one
partition and reconciliation is the only writer of that user's state.

Three compacted topics keep the newest value per key rather than a history: `keys` holds each
user's data keys (wrapped; an erasure writes a tombstone, so compaction removes the key from the
broker's disks), `control` the suppressions and erasures a replay applies before its range, and
`history` the segments of users' archived history (streams/history_archive.py), sealed with their
keys."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from slotstream.memory.key_parts import join

TURNS, OPS, CHANGES, DLQ, KEYS, CONTROL, HISTORY = "turns", "ops", "changes", "dlq", "keys", "control", "history"
ALL = (TURNS, OPS, CHANGES, DLQ, KEYS, CONTROL, HISTORY)
COMPACTED = (KEYS, CONTROL, HISTORY)
HOUR_MS = 3600 * 1000
DAY_MS = 24 * HOUR_MS
DEFAULT_RETENTION_MS = {TURNS: 7 * DAY_MS, OPS: -1, CHANGES: 7 * DAY_MS, DLQ: 30 * DAY_MS}
DEFAULT_COMPACTION_LAG_MS = HOUR_MS
# Which processor produced an ops-topic record ("extraction", "expiry"); absent on records that
# callers sent. A replay that re-extracts the turns skips the logged extraction ops by it.
ORIGIN_HEADER = "slotstream-origin"


@dataclass(frozen=True)
class TopicSpec:
    role: str
    name: str
    partitions: int
    config: dict[str, str] = field(default_factory=dict)


def topic_names(prefix: str) -> dict[str, str]:
    return {role: f"{prefix}.{role}" for role in ALL}


def topic_specs(
    prefix: str,
    partitions: int,
    retention_ms: Mapping[str, int] | None = None,
    compaction_lag_ms: int = DEFAULT_COMPACTION_LAG_MS,
) -> dict[str, TopicSpec]:
    """`retention_ms` per role (-1 keeps forever); the ops topic defaults to forever, since it is
    the log a rebuild or a replay reads. The compacted topics roll a segment and compact within
    `compaction_lag_ms` of a write: the bound on how long a shredded key stays on the broker's disks."""
    retention = {**DEFAULT_RETENTION_MS, **(retention_ms or {})}
    # The broker stamps input records as it appends them: that timestamp is the ingest time an
    # event time is checked against, and a replay reads the same one back.
    stamped = {"message.timestamp.type": "LogAppendTime"}
    lag = str(compaction_lag_ms)
    compacted = {
        "cleanup.policy": "compact",
        "min.compaction.lag.ms": "0",
        "max.compaction.lag.ms": lag,
        "segment.ms": lag,
        "min.cleanable.dirty.ratio": "0.01",
        "delete.retention.ms": lag,  # how long a tombstone itself stays readable
    }
    names = topic_names(prefix)
    out = {}
    for role in ALL:
        if role in COMPACTED:
            config = dict(compacted)
        else:
            config = {"retention.ms": str(retention[role]), "cleanup.policy": "delete"}
        if role in (TURNS, OPS):
            config.update(stamped)
        out[role] = TopicSpec(role, names[role], partitions, config)
    return out


def user_key(tenant: str, user: str) -> bytes:
    """The record key of a user's turns and ops: b"tenant/user", each part escaped
    (memory/key_parts.py), so it splits back into the pair it was made from."""
    return join((tenant, user)).encode()


def control_key(tenant: str, user: str, *rest: str) -> bytes:
    """The record key of a user's entry on a compacted control topic: b"tenant/user/..."."""
    return join((tenant, user, *rest)).encode()

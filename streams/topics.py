"""Topic specs. Every topic is keyed by tenant+user, so one user's events stay ordered on one
partition and reconciliation is the only writer of that user's state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

TURNS, OPS, CHANGES, DLQ = "turns", "ops", "changes", "dlq"
ALL = (TURNS, OPS, CHANGES, DLQ)
DAY_MS = 24 * 3600 * 1000
DEFAULT_RETENTION_MS = {TURNS: 7 * DAY_MS, OPS: -1, CHANGES: 7 * DAY_MS, DLQ: 30 * DAY_MS}


@dataclass(frozen=True)
class TopicSpec:
    role: str
    name: str
    partitions: int
    config: dict[str, str] = field(default_factory=dict)


def topic_names(prefix: str) -> dict[str, str]:
    return {role: f"{prefix}.{role}" for role in ALL}


def topic_specs(
    prefix: str, partitions: int, retention_ms: Mapping[str, int] | None = None, replication: int = 1
) -> dict[str, TopicSpec]:
    """`retention_ms` per role (-1 keeps forever); the ops topic defaults to forever, since it is
    the log a rebuild or a replay reads."""
    retention = {**DEFAULT_RETENTION_MS, **(retention_ms or {})}
    # The broker stamps input records as it appends them: that timestamp is the ingest time an
    # event time is checked against, and a replay reads the same one back.
    stamped = {"message.timestamp.type": "LogAppendTime"}
    names = topic_names(prefix)
    out = {}
    for role in ALL:
        config = {"retention.ms": str(retention[role]), "cleanup.policy": "delete"}
        if role in (TURNS, OPS):
            config.update(stamped)
        out[role] = TopicSpec(role, names[role], partitions, config)
    return out


def user_key(tenant: str, user: str) -> bytes:
    # ids are validated to exclude "/", so the key splits back unambiguously
    return f"{tenant}/{user}".encode()

"""Topic specs. Every topic is keyed by tenant+user, so one user's events stay ordered on one
partition and reconciliation is the only writer of that user's state."""

from __future__ import annotations

from dataclasses import dataclass, field

from slotstream.settings import Settings

TURNS, OPS, CHANGES, DLQ = "turns", "ops", "changes", "dlq"
ALL = (TURNS, OPS, CHANGES, DLQ)


@dataclass(frozen=True)
class TopicSpec:
    role: str
    name: str
    partitions: int
    config: dict[str, str] = field(default_factory=dict)


def topic_specs(settings: Settings) -> dict[str, TopicSpec]:
    p, n = settings.topic_prefix, settings.partitions
    week = str(7 * 24 * 3600 * 1000)
    # The broker stamps input records as it appends them: that timestamp is the ingest time an
    # event time is checked against, and a replay reads the same one back.
    stamped = {"message.timestamp.type": "LogAppendTime"}
    return {
        # turns and ops are the replayable history, never compacted; ops are the log a rebuild
        # reads from the beginning, so they are kept indefinitely
        TURNS: TopicSpec(TURNS, f"{p}.turns", n, {"retention.ms": week, "cleanup.policy": "delete", **stamped}),
        OPS: TopicSpec(OPS, f"{p}.ops", n, {"retention.ms": "-1", "cleanup.policy": "delete", **stamped}),
        CHANGES: TopicSpec(CHANGES, f"{p}.changes", n, {"retention.ms": week, "cleanup.policy": "delete"}),
        DLQ: TopicSpec(DLQ, f"{p}.dlq", n, {"retention.ms": str(30 * 24 * 3600 * 1000), "cleanup.policy": "delete"}),
    }


def user_key(tenant: str, user: str) -> bytes:
    # ids are validated to exclude "/", so the key splits back unambiguously
    return f"{tenant}/{user}".encode()

"""Topics (creation, their configs) and the consumer group's committed offsets, with kafka-python's
admin client."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from kafka import KafkaAdminClient
from kafka.admin import ConfigResource, ConfigResourceType, NewTopic
from kafka.errors import TopicAlreadyExistsError

from .topics import TopicSpec


@dataclass
class TopicState:
    """A topic as the broker has it, beside what the settings want."""

    spec: TopicSpec
    exists: bool
    partitions: int = 0
    config: dict[str, str] = field(default_factory=dict)  # the wanted keys, as the broker holds them

    @property
    def differs(self) -> dict[str, tuple[str | None, str]]:
        """Config key -> (the broker's value, the wanted value), where they differ."""
        return {k: (self.config.get(k), v) for k, v in self.spec.config.items() if self.config.get(k) != v}


# CreateTopics with replication factor -1: the brokers' default.replication.factor (1 on the single
# local broker, 3 on LocalKafkaCluster), so the cluster's operator, not each caller, sets it
BROKER_DEFAULT_REPLICATION = -1


def create_topics(
    bootstrap: str, specs: Iterable[TopicSpec], replication: int = BROKER_DEFAULT_REPLICATION
) -> list[str]:
    """Create every topic that does not exist yet (`replication` replicas per partition, by default
    the brokers' default.replication.factor); returns the names created."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="slotstream-admin")
    try:
        existing = set(admin.list_topics())
        wanted = [s for s in specs if s.name not in existing]
        if wanted:
            with contextlib.suppress(TopicAlreadyExistsError):  # another worker created them first
                admin.create_topics(
                    [NewTopic(s.name, s.partitions, replication, topic_configs=s.config) for s in wanted]
                )
        return [s.name for s in wanted]
    finally:
        admin.close()


def describe_topics(bootstrap: str, specs: Iterable[TopicSpec]) -> list[TopicState]:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="slotstream-admin")
    try:
        return _describe(admin, list(specs))
    finally:
        admin.close()


def _describe(admin: KafkaAdminClient, specs: list[TopicSpec]) -> list[TopicState]:
    existing = set(admin.list_topics())
    present = [s for s in specs if s.name in existing]
    partitions = {t["name"]: len(t["partitions"]) for t in admin.describe_topics([s.name for s in present])}
    configs: dict[str, dict[str, str]] = {}
    if present:
        resources = [ConfigResource(ConfigResourceType.TOPIC, s.name, dict.fromkeys(s.config)) for s in present]
        reply = admin.describe_configs(resources, config_filter="all").get("topic", {})
        configs = {name: {k: str(v["value"]) for k, v in entries.items()} for name, entries in reply.items()}
    return [TopicState(s, s.name in existing, partitions.get(s.name, 0), configs.get(s.name, {})) for s in specs]


def apply_topic_configs(bootstrap: str, specs: Iterable[TopicSpec]) -> dict[str, dict[str, tuple[str | None, str]]]:
    """Set each existing topic's configs to the wanted ones (retention, compaction); returns what
    changed: topic -> key -> (was, now). Partition counts are never changed here."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="slotstream-admin")
    try:
        changed = {t.spec.name: t.differs for t in _describe(admin, list(specs)) if t.exists and t.differs}
        if changed:
            admin.alter_configs(
                [
                    ConfigResource(ConfigResourceType.TOPIC, name, {k: now for k, (_, now) in diff.items()})
                    for name, diff in changed.items()
                ],
                incremental=True,
            )
        return changed
    finally:
        admin.close()


def committed_offsets(bootstrap: str, group: str, topics: list[str]) -> dict[str, dict[int, int]]:
    """The consumer group's committed offsets for `topics`: topic -> partition -> offset."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="slotstream-admin")
    try:
        offsets = admin.list_group_offsets({group: None}).get(group, {})
    finally:
        admin.close()
    out: dict[str, dict[int, int]] = {t: {} for t in topics}
    for tp, meta in offsets.items():
        if tp.topic in out and meta.offset is not None and meta.offset >= 0:
            out[tp.topic][tp.partition] = meta.offset
    return out

"""Topic creation and the consumer group's committed offsets, with kafka-python's admin client."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from kafka import KafkaAdminClient
from kafka.admin import NewTopic
from kafka.errors import TopicAlreadyExistsError

from .topics import TopicSpec


def create_topics(bootstrap: str, specs: Iterable[TopicSpec], replication: int = 1) -> list[str]:
    """Create every topic that does not exist yet; returns the names created."""
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

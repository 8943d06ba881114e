"""The history archive a process's engine writes to and reads from (state/archive.py): the
deployment's `<prefix>.history` topic, its segments sealed with the users' keys; none when
SLOTSTREAM_HISTORY_ARCHIVE_AFTER is 0 (retired versions then stay in Redis's cold history)."""

from __future__ import annotations

from typing import Any

import redis

from slotstream.config.master_key import user_keys
from slotstream.config.settings import Settings
from slotstream.state.user_keys import Sealer
from slotstream.streams.history_archive import KafkaHistoryArchive
from slotstream.streams.topics import HISTORY, KEYS, topic_names


def history_archive(settings: Settings, client: redis.Redis) -> KafkaHistoryArchive | None:
    if not settings.history_archive_after or not settings.kafka_bootstrap:
        return None
    names = topic_names(settings.topic_prefix)
    keys = user_keys(settings, client)
    return KafkaHistoryArchive(settings.kafka_bootstrap, names[HISTORY], names[KEYS], Sealer(keys), keys)


def engine_options(settings: Settings, client: redis.Redis) -> dict[str, Any]:
    """The engine's write settings with the archive (state/engine.py `Engine`), for every process
    that applies."""
    return {**settings.engine_options(), "archive": history_archive(settings, client)}

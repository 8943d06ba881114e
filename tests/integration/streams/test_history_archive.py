"""The history archive on a real Kafka topic (streams/history_archive.py): segments sealed with
their users' keys, read back by position from a process that never saw them, unreadable once the
user's key is shredded, replaced segments tombstoned, and a broker away answered at once."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
import redis
from kafka import KafkaConsumer, TopicPartition

from slotstream.memory.errors import ArchiveUnavailable, SegmentUnreadable
from slotstream.memory.sealing import is_sealed, new_key
from slotstream.state.user_keys import Sealer, UserKeys
from slotstream.streams.admin import create_topics
from slotstream.streams.history_archive import KafkaHistoryArchive, segment_key
from slotstream.streams.topics import HISTORY, KEYS, topic_names, topic_specs

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def names(kafka_bootstrap: str) -> dict[str, str]:
    prefix = f"harch{uuid.uuid4().hex[:8]}"
    specs = topic_specs(prefix, 2)
    create_topics(kafka_bootstrap, [specs[HISTORY], specs[KEYS]])
    return topic_names(prefix)


@pytest.fixture
def user_keys(redis_client: redis.Redis) -> UserKeys:
    return UserKeys(redis_client, new_key())


def archive_of(kafka_bootstrap: str, names: dict[str, str], keys: UserKeys | None) -> KafkaHistoryArchive:
    return KafkaHistoryArchive(
        kafka_bootstrap, names[HISTORY], names[KEYS], Sealer(keys) if keys else None, keys, timeout_s=10
    )


@pytest.fixture
def archive(kafka_bootstrap: str, names: dict[str, str], user_keys: UserKeys) -> Iterator[KafkaHistoryArchive]:
    held = archive_of(kafka_bootstrap, names, user_keys)
    yield held
    held.close()


def raw_record(kafka_bootstrap: str, topic: str, partition: int, offset: int) -> tuple[bytes, bytes | None]:
    consumer = KafkaConsumer(bootstrap_servers=kafka_bootstrap, enable_auto_commit=False)
    try:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        consumer.seek(tp, offset)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for rec in consumer.poll(timeout_ms=200).get(tp, []):
                return rec.key, rec.value
        raise AssertionError(f"nothing at {topic}/{partition}@{offset}")
    finally:
        consumer.close()


def test_a_segment_is_sealed_on_the_topic_and_read_back_by_position_elsewhere(
    kafka_bootstrap: str, names: dict[str, str], archive: KafkaHistoryArchive, user_keys: UserKeys, keys_tenant: str
) -> None:
    payload = b"retired versions of green tea " * 20
    first = archive.write(keys_tenant, "u1", payload)
    second = archive.write(keys_tenant, "u1", b"the next segment")
    assert first != second and len(first) == 20
    partition, offset = int.from_bytes(first[:4]), int.from_bytes(first[4:12])
    key, value = raw_record(kafka_bootstrap, names[HISTORY], partition, offset)
    assert key == segment_key(keys_tenant, "u1", first[12:]) and key.startswith(f"{keys_tenant}/u1/".encode())
    assert value is not None and is_sealed(value) and b"green tea" not in value
    # the user's key reached the keys topic too (its durable copy)
    reader = archive_of(kafka_bootstrap, names, user_keys)
    try:
        assert reader.read(keys_tenant, "u1", [second, first]) == [b"the next segment", payload]
        assert reader.reads == 2
        assert reader.read(keys_tenant, "u1", [first]) == [payload] and reader.reads == 2  # from memory
        # a position read for another user does not open: the record key is bound into the seal
        with pytest.raises(SegmentUnreadable):
            reader.read(keys_tenant, "u2", [first])
        with pytest.raises(SegmentUnreadable):
            reader.read(keys_tenant, "u1", [b"short"])
    finally:
        reader.close()


def test_once_the_users_key_is_shredded_their_segments_do_not_open(
    kafka_bootstrap: str, names: dict[str, str], archive: KafkaHistoryArchive, user_keys: UserKeys, keys_tenant: str
) -> None:
    position = archive.write(keys_tenant, "gone", b"what the user said long ago")
    user_keys.drop(keys_tenant, "gone", user_keys.created_before(keys_tenant, "gone", int(time.time() * 1000) + 1))
    reader = archive_of(kafka_bootstrap, names, user_keys)
    try:
        with pytest.raises(SegmentUnreadable, match="erased"):
            reader.read(keys_tenant, "gone", [position])
    finally:
        reader.close()


def test_a_dropped_segment_gets_a_tombstone_and_no_longer_reads(
    kafka_bootstrap: str, names: dict[str, str], archive: KafkaHistoryArchive, keys_tenant: str
) -> None:
    position = archive.write(keys_tenant, "u1", b"replaced by a fuller segment")
    archive.drop(keys_tenant, "u1", [position])
    partition = int.from_bytes(position[:4])
    consumer = KafkaConsumer(bootstrap_servers=kafka_bootstrap, enable_auto_commit=False)
    try:
        tp = TopicPartition(names[HISTORY], partition)
        consumer.assign([tp])
        consumer.seek(tp, int.from_bytes(position[4:12]))
        seen: list[tuple[bytes, bytes | None]] = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(v is None for _, v in seen):
            seen += [(r.key, r.value) for r in consumer.poll(timeout_ms=200).get(tp, [])]
    finally:
        consumer.close()
    assert (segment_key(keys_tenant, "u1", position[12:]), None) in seen


def test_a_plaintext_archive_reads_what_it_wrote_and_a_broker_away_fails_fast(
    kafka_bootstrap: str, names: dict[str, str]
) -> None:
    plain = archive_of(kafka_bootstrap, names, None)
    try:
        position = plain.write("t1", "u1", b"unsealed")
        fresh = archive_of(kafka_bootstrap, names, None)
        assert fresh.read("t1", "u1", [position]) == [b"unsealed"]
        fresh.close()
    finally:
        plain.close()
    away = KafkaHistoryArchive("127.0.0.1:1", "x.history", "x.keys", None, None, timeout_s=1, backoff_s=30)
    with pytest.raises(ArchiveUnavailable):
        away.write("t1", "u1", b"x")
    started = time.monotonic()
    with pytest.raises(ArchiveUnavailable, match="a moment ago"):
        away.read("t1", "u1", [position])
    with pytest.raises(ArchiveUnavailable, match="a moment ago"):
        away.write("t1", "u1", b"x")
    assert time.monotonic() - started < 1  # no second wait while it is known to be away


def test_a_missing_topic_is_named_at_once_rather_than_waited_for(kafka_bootstrap: str) -> None:
    missing = KafkaHistoryArchive(
        kafka_bootstrap, f"none{uuid.uuid4().hex[:8]}.history", "none.keys", None, None, timeout_s=10
    )
    try:
        started = time.monotonic()
        with pytest.raises(ArchiveUnavailable, match="topics create"):
            missing.write("t1", "u1", b"x")
        assert time.monotonic() - started < 5  # not the send's 10 s wait for a topic that is not there
    finally:
        missing.close()

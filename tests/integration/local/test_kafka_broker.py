"""A real Kafka broker from slotstream.local.kafka_broker: topics, produce, consume.

Needs a JDK 17+ and Maven (the first run fetches the broker jars from Maven
Central into .cache/kafka) and kafka-python. Run with:

    .venv/bin/python -m pytest -m kafka tests/integration/slotstream/test_localkafka.py
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from pathlib import Path

import pytest

from slotstream.local.kafka_broker import LocalKafka, probe_broker

pytestmark = pytest.mark.kafka

N_MESSAGES = 100
N_KEYS = 10
N_PARTITIONS = 3


@pytest.fixture(scope="module")
def kafka():
    broker = LocalKafka(startup_timeout=90)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()
        assert not broker.is_running


def _producer_supports_idempotence() -> bool:
    from kafka import KafkaProducer

    return "enable_idempotence" in getattr(KafkaProducer, "DEFAULT_CONFIG", {})


def test_broker_is_on_loopback(kafka):
    host, port = kafka.bootstrap.rsplit(":", 1)
    assert host == "127.0.0.1"
    assert int(port) == kafka.port != kafka.controller_port
    assert probe_broker(host, int(port)) == [1]


def test_the_brokers_process_is_its_jvm(kafka):
    # what the pipeline bench reads the broker's CPU from
    assert kafka.pid is not None
    assert b"kafka.Kafka" in Path(f"/proc/{kafka.pid}/cmdline").read_bytes()


def test_produce_consume_roundtrip(kafka):
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import NewTopic

    topic = f"localkafka-{uuid.uuid4().hex[:8]}"

    admin = KafkaAdminClient(bootstrap_servers=kafka.bootstrap, client_id="localkafka-test")
    try:
        admin.create_topics([NewTopic(name=topic, num_partitions=N_PARTITIONS, replication_factor=1)])
        deadline = time.monotonic() + 30
        while topic not in admin.list_topics():
            assert time.monotonic() < deadline, f"topic {topic} never appeared"
            time.sleep(0.2)
    finally:
        admin.close()

    def key_of(i: int) -> str:
        return f"user-{i % N_KEYS}"

    # First half: a plain acks=all producer (idempotence off where the
    # client has the switch); second half: an idempotent producer. Each
    # half is flushed before the next, so per-key order spans both.
    halves = [(0, N_MESSAGES // 2, {"acks": "all"}), (N_MESSAGES // 2, N_MESSAGES, {"acks": "all"})]
    if _producer_supports_idempotence():
        halves[0][2]["enable_idempotence"] = False
        halves[1][2]["enable_idempotence"] = True

    partition_of_key: dict[str, int] = {}
    for first, last, extra in halves:
        producer = KafkaProducer(
            bootstrap_servers=kafka.bootstrap,
            linger_ms=5,
            **extra,
        )
        try:
            futures = [
                (
                    key_of(i),
                    producer.send(topic, key=key_of(i).encode(), value=f"{key_of(i)}:{i}".encode()),
                )
                for i in range(first, last)
            ]
            producer.flush(timeout=30)
            for key, future in futures:
                meta = future.get(timeout=30)
                assert meta.topic == topic
                # Same key, same partition: the default partitioner hashes keys.
                assert partition_of_key.setdefault(key, meta.partition) == meta.partition
        finally:
            producer.close(timeout=10)

    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=kafka.bootstrap,
        group_id=f"localkafka-test-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    try:
        received = []
        deadline = time.monotonic() + 60
        while len(received) < N_MESSAGES and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=500).values():
                received.extend(records)
        assert len(received) == N_MESSAGES, f"got {len(received)} of {N_MESSAGES}"
        consumer.commit()

        by_key: dict[str, list[int]] = defaultdict(list)
        for record in received:
            key, seq = record.value.decode().split(":")
            assert key == record.key.decode()
            assert record.partition == partition_of_key[key]
            by_key[key].append(int(seq))
        # Every message arrived exactly once, and each key's order is kept.
        assert sorted(s for seqs in by_key.values() for s in seqs) == list(range(N_MESSAGES))
        for key, seqs in by_key.items():
            assert seqs == sorted(seqs), f"order broken for {key}: {seqs}"
            assert len(seqs) == N_MESSAGES // N_KEYS

        partitions = [TopicPartition(topic, p) for p in range(N_PARTITIONS)]
        end_offsets = consumer.end_offsets(partitions)
        assert sum(end_offsets.values()) == N_MESSAGES
        assert set(consumer.assignment()) == set(partitions)
    finally:
        consumer.close()

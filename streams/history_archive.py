"""The history archive on Kafka (state/archive.py's `HistoryArchive`): each segment of a user's
archived history is one record of the compacted `<prefix>.history` topic, keyed
b"tenant/user/<token>" and sealed with the user's key, so an erasure (which shreds the key) makes
every segment of theirs unreadable, as it does their ops. A position is the segment's partition,
offset and token. A replaced segment gets a tombstone, and compaction reclaims it.

Reads assign and seek outside any consumer group. Segments never change under a position, so
opened ones are kept in memory (up to `cache_bytes`), the ones this process wrote among them.
After the broker fails to answer, calls fail at once for `backoff_s` rather than each waiting out
its timeout: a worker settling users meanwhile keeps their records in Redis and moves on.
"""

from __future__ import annotations

import os
import struct
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import KafkaError

from slotstream.memory.errors import ArchiveUnavailable, SegmentUnreadable
from slotstream.memory.key_parts import join
from slotstream.memory.sealing import SealError, is_sealed, key_id, open_sealed

from .runtimes.protocol import PayloadKeys, PayloadSealer

_POSITION = struct.Struct(">IQ8s")  # partition, offset, the token ending the segment's record key
CACHE_BYTES = 64 << 20


def segment_key(tenant: str, user: str, token: bytes) -> bytes:
    return join((tenant, user, token.hex())).encode()


class KafkaHistoryArchive:
    def __init__(
        self,
        bootstrap: str,
        topic: str,
        keys_topic: str,
        sealer: PayloadSealer | None,
        keys: PayloadKeys | None,
        cache_bytes: int = CACHE_BYTES,
        timeout_s: float = 15.0,
        backoff_s: float = 10.0,
        **config: Any,
    ) -> None:
        """`sealer` seals what is written and `keys` opens what is read (both None: segments go in
        plaintext, for a deployment that seals nothing)."""
        self.bootstrap = bootstrap
        self.topic = topic
        self.keys_topic = keys_topic
        self.sealer = sealer
        self.keys = keys
        self.cache_bytes = cache_bytes
        self.timeout_s = timeout_s
        self.backoff_s = backoff_s
        self.config = config
        self._down_until = 0.0  # monotonic time before which the broker is taken to be away
        self._topic_seen = False  # the topic exists (a send to a missing one would wait out its timeout)
        self._producer: KafkaProducer | None = None
        self._consumer: KafkaConsumer | None = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[bytes, bytes] = OrderedDict()
        self._cached = 0
        self.reads = 0  # segments fetched from the broker (not from memory)

    # --- writing ---------------------------------------------------------------------------------

    def _produce(self) -> KafkaProducer:
        if self._producer is None:
            self._producer = KafkaProducer(
                bootstrap_servers=self.bootstrap,
                acks="all",
                enable_idempotence=True,
                max_request_size=16 << 20,
                max_block_ms=int(self.timeout_s * 1000),
                bootstrap_timeout_ms=int(self.timeout_s * 1000),
                client_id="slotstream-history",
                **self.config,
            )
        return self._producer

    def _check_up(self) -> None:
        if time.monotonic() < self._down_until:
            raise ArchiveUnavailable(f"{self.topic}: the broker did not answer a moment ago")

    def _went_down(self, err: Exception, what: str) -> ArchiveUnavailable:
        self._down_until = time.monotonic() + self.backoff_s
        return ArchiveUnavailable(f"{what} {self.topic} failed: {err}")

    def write(self, tenant: str, user: str, payload: bytes) -> bytes:
        self._check_up()
        token = os.urandom(8)
        key = segment_key(tenant, user, token)
        value = payload
        try:
            with self._lock:
                if not self._topic_seen:
                    if self.topic not in self._reader().topics():
                        self._down_until = time.monotonic() + self.backoff_s
                        raise ArchiveUnavailable(f"no topic {self.topic}: `slotstream topics create` creates it")
                    self._topic_seen = True
                producer = self._produce()
                if self.sealer is not None:
                    (value,), created = self.sealer.seal_many([(tenant, user, key, payload)], int(time.time() * 1000))
                    # a key made now has its durable copy written before the first payload it seals
                    for record_key, stored in created:
                        producer.send(self.keys_topic, key=record_key, value=stored).get(timeout=self.timeout_s)
                sent = producer.send(self.topic, key=key, value=value).get(timeout=self.timeout_s)
        except KafkaError as err:
            raise self._went_down(err, "writing a segment to") from err
        position = _POSITION.pack(sent.partition, sent.offset, token)
        self._remember(key + position, payload)
        return position

    def drop(self, tenant: str, user: str, positions: Sequence[bytes]) -> None:
        self._check_up()
        try:
            with self._lock:
                producer = self._produce()
                for position in positions:
                    _, _, token = _POSITION.unpack(position)
                    key = segment_key(tenant, user, token)
                    producer.send(self.topic, key=key, value=None)
                    self._forget(key + position)
                producer.flush(timeout=self.timeout_s)
        except KafkaError as err:
            raise self._went_down(err, "dropping segments from") from err

    # --- reading ---------------------------------------------------------------------------------

    def read(self, tenant: str, user: str, positions: Sequence[bytes]) -> list[bytes]:
        out = []
        for position in positions:
            if len(position) != _POSITION.size:
                raise SegmentUnreadable(f"a segment position of {len(position)} bytes")
            # (kept by user and position: a position never reads as another user's segment)
            cached = segment_key(tenant, user, position[12:]) + position
            with self._lock:
                held = self._cache.get(cached)
                if held is not None:
                    self._cache.move_to_end(cached)
            if held is None:
                self._check_up()
                held = self._fetch(tenant, user, position)
                self._remember(cached, held)
            out.append(held)
        return out

    def _fetch(self, tenant: str, user: str, position: bytes) -> bytes:
        partition, offset, token = _POSITION.unpack(position)
        key = segment_key(tenant, user, token)
        tp = TopicPartition(self.topic, partition)
        deadline = time.monotonic() + self.timeout_s
        try:
            with self._lock:
                consumer = self._reader()
                consumer.assign([tp])
                consumer.seek(tp, offset)
                while time.monotonic() < deadline:
                    for record in consumer.poll(timeout_ms=200, max_records=1).get(tp, []):
                        if record.offset != offset or record.key != key or record.value is None:
                            # compaction removed it: only a segment no position names is removed
                            raise SegmentUnreadable(f"the segment at {self.topic}/{partition}@{offset} is gone")
                        self.reads += 1
                        return self._open(tenant, user, key, record.value)
        except KafkaError as err:
            raise self._went_down(err, f"reading {partition}@{offset} of") from err
        raise self._went_down(TimeoutError(f"no answer in {self.timeout_s} s"), f"reading {partition}@{offset} of")

    def _reader(self) -> KafkaConsumer:
        if self._consumer is None:
            self._consumer = KafkaConsumer(
                bootstrap_servers=self.bootstrap,
                enable_auto_commit=False,
                group_id=None,
                fetch_max_bytes=32 << 20,
                max_partition_fetch_bytes=16 << 20,
                client_id="slotstream-history-reader",
                bootstrap_timeout_ms=int(self.timeout_s * 1000),
                **self.config,
            )
        return self._consumer

    def _open(self, tenant: str, user: str, key: bytes, value: bytes) -> bytes:
        if not is_sealed(value):
            return value
        if self.keys is None:
            raise SegmentUnreadable("a sealed segment, and no user keys to open it with")
        try:
            data_key = self.keys.keys_of([(tenant, user)]).get((tenant, user), {}).get(key_id(value))
            if data_key is None:
                raise SegmentUnreadable("the user's key for this segment was erased")
            return open_sealed(data_key, key, value)
        except SealError as err:
            raise SegmentUnreadable(f"a segment does not open: {err}") from err

    # --- the segments in memory -------------------------------------------------------------------

    def _remember(self, cached: bytes, payload: bytes) -> None:
        with self._lock:
            if cached in self._cache:
                return
            self._cache[cached] = payload
            self._cached += len(payload)
            while self._cached > self.cache_bytes and self._cache:
                _, gone = self._cache.popitem(last=False)
                self._cached -= len(gone)

    def _forget(self, cached: bytes) -> None:
        gone = self._cache.pop(cached, None)
        if gone is not None:
            self._cached -= len(gone)

    def close(self) -> None:
        with self._lock:
            if self._producer is not None:
                self._producer.close(timeout=5)
            if self._consumer is not None:
                self._consumer.close()
            self._producer = self._consumer = None

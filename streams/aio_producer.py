"""A producer for an asyncio server (aiokafka): turns, records and commands, keyed by tenant+user,
scrubbed of secrets like the synchronous producer's, each send answered with its position.

A server must come up while the broker is away and ride out a short outage: `run()` connects
in the background and keeps trying; until it has, and whenever a send times out, `send_many`
raises BrokerUnavailable (the server answers 503 and the client retries)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

import orjson
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from slotstream.memory.secrets import scrub

from .errors import BrokerUnavailable
from .producer import erasure
from .runtimes.protocol import PayloadSealer
from .topics import KEYS, topic_names, user_key

log = logging.getLogger(__name__)

Position = tuple[str, int, int]  # topic, partition, offset


def wire_payload(value: dict[str, Any]) -> bytes:
    """The bytes `send_many` writes for `value` (before sealing): scrubbed of secrets. The sidecar
    reads these bytes as a processor will, and sends them once they pass."""
    return orjson.dumps(scrub(value))


class AsyncProducer:
    def __init__(
        self, bootstrap: str, topic_prefix: str, request_timeout: float = 10.0, sealer: PayloadSealer | None = None
    ) -> None:
        """`sealer`: payloads are sealed with their users' keys (see SlotstreamProducer)."""
        self.topics = topic_names(topic_prefix)
        self.sealer = sealer
        self.bootstrap = bootstrap
        self.request_timeout = request_timeout
        self._p: AIOKafkaProducer | None = None
        self._connecting: asyncio.Task[None] | None = None

    def _new(self) -> AIOKafkaProducer:
        # acks=all + idempotence: a retried send is written once, in order, per partition
        return AIOKafkaProducer(
            bootstrap_servers=self.bootstrap,
            acks="all",
            enable_idempotence=True,
            linger_ms=1,
            request_timeout_ms=int(self.request_timeout * 1000),
            client_id="slotstream-sidecar",
        )

    async def start(self) -> None:
        """Connect now (raises if the broker is not there)."""
        producer = self._new()
        await producer.start()
        self._p = producer

    def run(self) -> None:
        """Connect in the background, retrying until the broker answers."""
        self._connecting = asyncio.get_running_loop().create_task(self._connect())

    async def _connect(self) -> None:
        delay = 0.2
        while self._p is None:
            producer = self._new()
            try:
                await producer.start()
            except KafkaError as err:
                await producer.stop()
                log.warning("Kafka not reachable at %s (%s); retrying in %.1f s", self.bootstrap, err, delay)
                await asyncio.sleep(delay)
                delay = min(5.0, delay * 2)
            else:
                self._p = producer

    async def stop(self) -> None:
        if self._connecting is not None:
            self._connecting.cancel()
        if self._p is not None:
            await self._p.stop()

    async def send_many(
        self, role: str, items: Sequence[tuple[str, str, dict[str, Any]]], wire: Sequence[bytes] | None = None
    ) -> list[Position]:
        """Send (tenant, user, value) items to a topic; each one's position once the broker has it.
        `wire`: the items' `wire_payload` bytes, when the caller made them already (to check them)."""
        if self._p is None:
            raise BrokerUnavailable(f"not connected to Kafka at {self.bootstrap} yet")
        topic = self.topics[role]
        made = wire if wire is not None else [wire_payload(value) for _, _, value in items]
        keyed = [
            (tenant, user, user_key(tenant, user), payload)
            for (tenant, user, _), payload in zip(items, made, strict=True)
        ]
        created: list[tuple[bytes, bytes | None]] = []
        payloads = [payload for *_, payload in keyed]
        private = [n for n, (_, _, value) in enumerate(items) if not erasure(value)]
        if self.sealer is not None and private:
            # the users' keys come from Redis: off the event loop
            sealed, created = await asyncio.to_thread(
                self.sealer.seal_many, [keyed[n] for n in private], int(time.time() * 1000)
            )
            for n, value in zip(private, sealed, strict=True):
                payloads[n] = value
        try:
            for record_key, stored in created:
                await (await self._p.send(self.topics[KEYS], key=record_key, value=stored))
            pending = [
                await self._p.send(topic, key=rkey, value=payload)
                for (_, _, rkey, _), payload in zip(keyed, payloads, strict=True)
            ]
            metas = await asyncio.gather(*pending)
        except KafkaError as err:
            raise BrokerUnavailable(f"Kafka did not take the records: {err!r}") from err
        return [(m.topic, m.partition, m.offset) for m in metas]

    async def ready(self, timeout: float = 2.0) -> bool:
        """The broker answers and knows the topics."""
        if self._p is None:
            return False
        try:
            parts = await asyncio.wait_for(self._p.partitions_for(self.topics["ops"]), timeout)
        except (TimeoutError, OSError):
            return False
        except Exception:  # noqa: BLE001 - any client error means "not ready"
            return False
        return bool(parts)

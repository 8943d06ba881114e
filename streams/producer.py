"""Producers for Python callers: turns, records and commands, keyed by tenant+user.

What they write is scrubbed first (`memory.secrets.scrub`): a secret in a turn or a record is
replaced by a redaction marker before it reaches a topic, so it is never at rest in Kafka. The
pipeline then refuses the marked value (`secret_value`) exactly as it would have refused the
secret.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from kafka import KafkaProducer
from kafka.producer.future import FutureRecordMetadata

from slotstream.memory.models import iso
from slotstream.memory.secrets import scrub

from .topics import OPS, TURNS, topic_names, user_key


def _json_default(obj: Any) -> Any:
    if isinstance(obj, datetime):
        return iso(obj)
    raise TypeError(type(obj).__name__)


class SlotstreamProducer:
    def __init__(self, bootstrap: str, topic_prefix: str, **config: Any) -> None:
        self.topics = topic_names(topic_prefix)
        # acks=all + idempotence: a retried send is written once, in order, per partition
        self._p = KafkaProducer(
            bootstrap_servers=bootstrap,
            acks="all",
            enable_idempotence=True,
            linger_ms=5,
            client_id="slotstream-producer",
            **config,
        )

    def _send(self, role: str, tenant: str, user: str, value: dict[str, Any]) -> FutureRecordMetadata:
        return self._p.send(
            self.topics[role], key=user_key(tenant, user), value=orjson.dumps(scrub(value), default=_json_default)
        )

    def send_turn(self, at: datetime | str, turn: dict[str, Any]) -> FutureRecordMetadata:
        return self._send(TURNS, turn["tenant"], turn["user"], {**turn, "at": at})

    def send_record(self, at: datetime | str, record: dict[str, Any], op_id: str | None = None) -> FutureRecordMetadata:
        return self._send(
            OPS,
            str(record.get("tenant") or ""),
            str(record.get("user") or ""),
            {"at": at, "op_id": op_id, "record": record},
        )

    def send_command(
        self, at: datetime | str, command: dict[str, Any], op_id: str | None = None
    ) -> FutureRecordMetadata:
        return self._send(
            OPS,
            str(command.get("tenant") or ""),
            str(command.get("user") or ""),
            {"at": at, "op_id": op_id, "command": command},
        )

    def send_raw(self, role: str, key: bytes | None, value: bytes) -> FutureRecordMetadata:
        return self._p.send(self.topics[role], key=key, value=value)

    def flush(self, timeout: float | None = 30) -> None:
        self._p.flush(timeout)

    def close(self) -> None:
        self._p.close()

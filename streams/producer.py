"""Producers for Python callers: turns, records and commands, keyed by tenant+user.

What they write is scrubbed first (`memory.secrets.scrub`): a secret in a turn or a record is
replaced by a redaction marker before it reaches a topic, so it is never at rest in Kafka. The
pipeline then refuses the marked value (`secret_value`) exactly as it would have refused the
secret.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import orjson
from kafka import KafkaProducer
from kafka.producer.future import FutureRecordMetadata

from slotstream.memory.models import iso
from slotstream.memory.secrets import scrub

from .runtimes.protocol import PayloadSealer
from .topics import KEYS, OPS, TURNS, topic_names, user_key


def _json_default(obj: Any) -> Any:
    if isinstance(obj, datetime):
        return iso(obj)
    raise TypeError(type(obj).__name__)


def erasure(value: dict[str, Any]) -> bool:
    """An erasure command says nothing of the user but who: it stays readable (unsealed) after the
    keys it shreds are gone, so a replay applies it too."""
    command = value.get("command")
    return isinstance(command, dict) and command.get("op") == "erase_user"


class SlotstreamProducer:
    def __init__(self, bootstrap: str, topic_prefix: str, sealer: PayloadSealer | None = None, **config: Any) -> None:
        """`sealer`: payloads are sealed with their users' keys (what this repository's own
        producers do; without it they go in plaintext and erasure cannot reach the log)."""
        self.topics = topic_names(topic_prefix)
        self.sealer = sealer
        # users' new keys sent to the keys topic: not waited for one by one (a user's first
        # payload would wait a round trip), but `flush` fails if one of them was not delivered
        self._key_records: list[FutureRecordMetadata] = []
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
        return self.send_prepared(role, self.prepare([(tenant, user, value)]))[0]

    def prepare(self, items: list[tuple[str, str, dict[str, Any]]]) -> list[tuple[bytes, bytes]]:
        """(tenant, user, value) items as the (key, payload) records `send_prepared` sends: scrubbed
        and sealed, the users' keys asked for in one round trip (a user's first payload sends its
        key's durable copy now)."""
        keyed = [(tenant, user, user_key(tenant, user), value) for tenant, user, value in items]
        payloads = [orjson.dumps(scrub(value), default=_json_default) for _, _, _, value in keyed]
        sealable = [
            i
            for i, (tenant, user, _, value) in enumerate(keyed)
            if self.sealer is not None and tenant and user and not erasure(value)
        ]
        if sealable:
            assert self.sealer is not None
            sealed, created = self.sealer.seal_many(
                [(keyed[i][0], keyed[i][1], keyed[i][2], payloads[i]) for i in sealable], int(time.time() * 1000)
            )
            for record_key, stored in created:  # a user's first payload: its key's durable copy too
                self._key_records.append(self._p.send(self.topics[KEYS], key=record_key, value=stored))
            if len(self._key_records) > 1000:  # delivered ones need no check; failed ones wait for flush
                self._key_records = [f for f in self._key_records if not f.is_done or f.failed()]
            for i, payload in zip(sealable, sealed, strict=True):
                payloads[i] = payload
        return [(key, payload) for (_, _, key, _), payload in zip(keyed, payloads, strict=True)]

    def prepare_turns(self, turns: Sequence[tuple[datetime | str, dict[str, Any]]]) -> list[tuple[bytes, bytes]]:
        """Turns as records for `send_prepared(TURNS, ...)`: a load generator prepares them before
        it starts, so that its own work does not take the machine from what it measures."""
        return self.prepare([(turn["tenant"], turn["user"], {**turn, "at": at}) for at, turn in turns])

    def send_prepared(self, role: str, records: list[tuple[bytes, bytes]]) -> list[FutureRecordMetadata]:
        topic = self.topics[role]
        return [self._p.send(topic, key=key, value=payload) for key, payload in records]

    def send_turn(self, at: datetime | str, turn: dict[str, Any]) -> FutureRecordMetadata:
        return self._send(TURNS, turn["tenant"], turn["user"], {**turn, "at": at})

    def send_turns(self, turns: Sequence[tuple[datetime | str, dict[str, Any]]]) -> list[FutureRecordMetadata]:
        """Several turns, their users' keys asked for in one round trip (a load generator's burst)."""
        return self.send_prepared(TURNS, self.prepare_turns(turns))

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

    def send_raw(self, role: str, key: bytes | None, value: bytes | None) -> FutureRecordMetadata:
        return self._p.send(self.topics[role], key=key, value=value)

    def flush(self, timeout: float | None = 30) -> None:
        """Wait until everything sent was delivered; raises if a user's new key was not (the
        payloads sealed with it could not be opened again once Redis lost it)."""
        self._p.flush(timeout)
        pending, self._key_records = self._key_records, []
        for future in pending:
            future.get(timeout=10)

    def close(self) -> None:
        self._p.close()

"""Deterministic input for the fault tests: turns and ops with their own ids, and the state digest a
clean run of them gives (applied straight into the engine, no Kafka).

Turn users and op users are kept apart: a user's turns and ops travel on two topics, and their
relative order is the one thing Kafka does not fix. Each user's timeline spans minutes, so no
record comes due during the run (the pipeline's expiry sweep would otherwise change statuses a
direct run does not).
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import redis

from slotstream.memory.extraction import Turn
from slotstream.memory.models import OpIn
from slotstream.processors.extraction import ExtractionService
from slotstream.state.digest import Digest, digest_namespace, user_state, users_of
from slotstream.state.engine import Engine
from slotstream.state.keys import Keys
from slotstream.state.namespaces import drop_namespace

from support import record, wait_until

T0 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)

TURN_SCRIPTS = [
    [
        "Please keep your answers short.",
        "I moved to Berlin.",
        "Actually, from now on answer in detail.",
        "Let me confirm before you send anything to the client.",
    ],
    ["以后回答简短一点。", "我搬到上海了。", "这周重点是上线。", "不对，以后回答详细一点。"],
    [
        "This week focus on the launch of project A.",
        "Answer in English.",
        "I live in Beijing.",
        "Forget that I live in Beijing.",
    ],
    ["我的目标是学会Python。", "发给客户之前先让我确认。", "My timezone is UTC+8.", "Forget my timezone."],
]


@dataclass
class Item:
    kind: str  # "turn" | "record" | "command"
    at: datetime
    body: dict[str, Any]
    op_id: str | None = None

    @property
    def user(self) -> str:
        return str(self.body["user"])


@dataclass
class Workload:
    tenant: str
    items: list[Item] = field(default_factory=list)

    def waves(self, n: int) -> list[list[Item]]:
        """The items in `n` consecutive slices (each user's items stay in order across slices)."""
        size = -(-len(self.items) // n)
        return [self.items[i : i + size] for i in range(0, len(self.items), size)]

    def without(self, op_id: str) -> Workload:
        return Workload(self.tenant, [i for i in self.items if i.op_id != op_id])


def build(tenant: str | None = None, turn_users: int = 24, op_users: int = 24) -> Workload:
    """Turn users go through the scripts above; op users get records, a correction of the current
    value, a repeat, a forget. Items interleave users the way traffic would."""
    tenant = tenant or f"w{uuid.uuid4().hex[:6]}"
    per_user: list[list[Item]] = []
    for u in range(turn_users):
        user = f"talker{u}"
        script = TURN_SCRIPTS[u % len(TURN_SCRIPTS)]
        per_user.append(
            [
                Item(
                    "turn",
                    T0 + timedelta(minutes=n),
                    {
                        "tenant": tenant,
                        "user": user,
                        "session": f"s{u}",
                        "project": None,
                        "role": "user",
                        "text": text,
                        "turn_id": f"{tenant}:{user}:turn{n}",
                    },
                    op_id=f"{tenant}:{user}:turn{n}",
                )
                for n, text in enumerate(script)
            ]
        )
    for u in range(op_users):
        user = f"writer{u}"
        rows: list[Item] = []

        def op(n: int, attribute: str, value: Any, kind: str = "knowledge", user: str = user, **extra: Any) -> Item:
            body = record(tenant, user, attribute, value, kind, **extra)
            return Item("record", T0 + timedelta(minutes=n), body, op_id=f"{tenant}:{user}:op{n}")

        rows.append(op(0, "knowledge.database", "postgres"))
        rows.append(op(1, "preference.response.detail", "concise", kind="preference"))
        rows.append(op(2, "knowledge.editor", f"editor-{u % 3}"))
        rows.append(op(3, "preference.response.detail", "detailed", kind="preference", corrects_current=True))
        rows.append(op(4, "knowledge.database", "postgres"))  # a repeat: refreshed, not duplicated
        rows.append(
            Item(
                "command",
                T0 + timedelta(minutes=5),
                {"op": "forget", "tenant": tenant, "user": user, "match": {"attribute": "knowledge.editor"}},
                op_id=f"{tenant}:{user}:op5",
            )
        )
        per_user.append(rows)
    return Workload(tenant, interleave(per_user))


def build_busy(tenant: str, users: int, rounds: int, attributes: int = 4) -> Workload:
    """Users that keep writing: each gets `rounds` records, a minute apart, going round
    `attributes` attributes with a new value each time, every third one a correction of the
    current value (each attribute is a slot with its own history key: more attributes, more keys)."""
    names = ["preference.response.detail", *(f"knowledge.project{k}" for k in range(attributes - 1))]
    per_user: list[list[Item]] = []
    for u in range(users):
        user = f"busy{u}"
        rows = []
        for n in range(rounds):
            attribute = names[n % len(names)]
            kind = "preference" if attribute.startswith("preference.") else "knowledge"
            body = record(tenant, user, attribute, f"v{n}", kind, **({"corrects_current": True} if n % 3 == 2 else {}))
            rows.append(Item("record", T0 + timedelta(minutes=n), body, op_id=f"{tenant}:{user}:busy{n}"))
        per_user.append(rows)
    return Workload(tenant, interleave(per_user))


def interleave(per_user: list[list[Item]]) -> list[Item]:
    """The users' items in turn, each user's in its order (as traffic of many users comes)."""
    items: list[Item] = []
    for step in range(max((len(rows) for rows in per_user), default=0)):
        items.extend(rows[step] for rows in per_user if step < len(rows))
    return items


def send(producer: Any, items: list[Item]) -> None:
    for item in items:
        if item.kind == "turn":
            producer.send_turn(item.at, item.body)
        elif item.kind == "record":
            producer.send_record(item.at, item.body, op_id=item.op_id)
        else:
            producer.send_command(item.at, item.body, op_id=item.op_id)
    producer.flush()


def reference_digest(client: redis.Redis, workload: Workload) -> Digest:
    """The digest of the workload applied straight into a fresh namespace, in order."""
    ns = f"ref-{uuid.uuid4().hex[:8]}"
    try:
        apply_in_order(client, workload, ns)
        return digest_namespace(client, ns)
    finally:
        for key in client.scan_iter(match=f"{ns}:*", count=1000):
            client.delete(key)


def apply_in_order(client: redis.Redis, workload: Workload, ns: str) -> None:
    """The workload applied straight into namespace `ns`, in order (no Kafka)."""
    engine = Engine(client, namespace=ns)
    extraction = ExtractionService()
    for item in workload.items:
        if item.kind == "turn":
            turn = Turn.model_validate({**item.body, "at": item.at})
            ops = extraction.ops_for_turn(turn, op_prefix=str(item.body["turn_id"])).ops
        else:
            key = "record" if item.kind == "record" else "command"
            ops = [OpIn(at=item.at, op_id=item.op_id, **{key: item.body})]
        if ops:
            engine.apply_many(ops)


# --- the workload through a running pipeline (a LocalStack) ----------------------------------------------


class PacedSender(threading.Thread):
    """Sends `items` a few at a time, spread over about `spread` seconds; the last few wait for
    `release`, so input is still flowing when what the test waits for happens (it checks `sent`)."""

    def __init__(self, stack: Any, items: list[Item], spread: float, chunk: int = 3) -> None:
        super().__init__(name="paced-sender")
        self.stack, self.chunks = stack, [items[i : i + chunk] for i in range(0, len(items), chunk)]
        self.pause = spread / len(self.chunks)
        self.release = threading.Event()
        self.sent = 0
        self.total = len(items)
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for n, chunk in enumerate(self.chunks):
                if n == len(self.chunks) - 1:
                    self.release.wait(300)
                send(self.stack.producer, chunk)
                self.sent += len(chunk)
                time.sleep(self.pause)
        except BaseException as err:  # noqa: BLE001 - handed to the test, which fails on it
            self.error = err

    def wait_sent(self, count: int, timeout: float = 60.0) -> None:
        wait_until(lambda: self.sent >= count or not self.is_alive(), timeout, f"{count} items sent", every=0.02)

    def finish(self, timeout: float = 180.0) -> None:
        self.release.set()
        self.join(timeout)
        assert not self.is_alive(), "the sender is stuck"
        assert self.error is None, repr(self.error)
        assert self.sent == self.total


def pipeline_digest(stack: Any) -> tuple[str, int, int]:
    d = digest_namespace(stack.client, stack.settings.namespace)
    return d.digest, d.users, d.records


def clean_run(stack: Any, work: Workload) -> tuple[str, int, int]:
    d = reference_digest(stack.client, work)
    assert d.records > 0
    return d.digest, d.users, d.records


def differences(stack: Any, work: Workload, limit: int = 3) -> str:
    """Where the pipeline's state and a clean run's differ, user by user (for a failure message)."""
    ns = f"ref-{uuid.uuid4().hex[:8]}"
    try:
        apply_in_order(stack.client, work, ns)
        keys, ref_keys = Keys(stack.settings.namespace), Keys(ns)
        out = []
        for tenant, user in sorted(set(users_of(stack.client, ns)) | set(users_of(stack.client, keys.namespace))):
            got = user_state(stack.client, keys, tenant, user)
            want = user_state(stack.client, ref_keys, tenant, user)
            if got != want:
                diff = {k: (got[k], want[k]) for k in got if got[k] != want[k]}
                out.append(f"{tenant}/{user}: (pipeline, clean run) {diff}")
        return f"{len(out)} users differ; " + "\n".join(out[:limit])
    finally:
        drop_namespace(stack.client, ns)

"""Reconciliation processor: ops -> Redis (through the engine) -> changes; bad input -> dlq.

At-least-once: a batch's offsets are acknowledged only after its writes landed, and every op
carries an idempotency key (its own `op_id`, else topic/partition/offset), so a redelivery after
a crash applies nothing twice and loses nothing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis
from pydantic import ValidationError

from memory.errors import Reason
from memory.models import OpIn, iso, to_ms
from state.engine import ApplyResult, Engine
from streams.schemas import ChangeMessage, DeadLetter, SourceRef

from .expiry import due_member
from .progress import Progress


@dataclass(slots=True)
class RawMessage:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None


@dataclass
class BatchOutput:
    changes: list[tuple[bytes | None, bytes]] = field(default_factory=list)
    dead: list[tuple[bytes | None, bytes]] = field(default_factory=list)
    results: list[ApplyResult] = field(default_factory=list)
    watermark: dict[int, int] = field(default_factory=dict)  # partition -> newest event time (ms)


def dead_letter(msg: RawMessage, reason: str, detail: str, processor: str, at: Any = None) -> bytes:
    payload = (msg.value or b"").decode("utf-8", errors="replace")
    dl = DeadLetter(reason=reason, detail=detail[:500], processor=processor,  # type: ignore[arg-type]
                    source=SourceRef(topic=msg.topic, partition=msg.partition, offset=msg.offset),
                    key=msg.key.decode("utf-8", errors="replace") if msg.key else None, payload=payload, at=at)
    return dl.model_dump_json().encode()


def parse_op(msg: RawMessage) -> OpIn:
    """Decode one ops-topic message; raises ValueError with a reason code as its first argument."""
    try:
        data = orjson.loads(msg.value or b"")
    except orjson.JSONDecodeError as err:
        raise ValueError(Reason.INVALID_JSON.value, str(err)) from None
    if not isinstance(data, dict):
        raise ValueError(Reason.INVALID_FIELD.value, "an op is a JSON object")
    try:
        op = OpIn.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        field_name = str((first.get("loc") or ("?",))[0])
        reason = Reason.MISSING_FIELD if first.get("type") == "missing" else Reason.INVALID_FIELD
        raise ValueError(reason.value, f"{field_name}: {first.get('msg')}") from None
    if not op.op_id:
        op.op_id = f"{msg.topic}:{msg.partition}:{msg.offset}"
    return op


class ReconciliationService:
    def __init__(self, engine: Engine, client: redis.Redis, progress: Progress,
                 settle: Any = None) -> None:
        self.engine = engine
        self.r = client
        self.progress = progress
        self.settle = settle or (lambda *a: None)

    def handle(self, batch: list[RawMessage]) -> BatchOutput:
        out = BatchOutput()
        ops: list[OpIn] = []
        sources: list[RawMessage] = []
        for msg in batch:
            try:
                op = parse_op(msg)
            except ValueError as err:
                out.dead.append((msg.key, dead_letter(msg, err.args[0], err.args[1], "reconciliation")))
                continue
            ops.append(op)
            sources.append(msg)
        results = self.engine.apply_many(ops) if ops else []
        due_pipe = self.r.pipeline(transaction=False)
        watermark: dict[int, int] = {}
        for op, msg, res in zip(ops, sources, results):
            out.results.append(res)
            at_ms = to_ms(op.at) or 0
            watermark[msg.partition] = max(watermark.get(msg.partition, 0), at_ms)
            if res.outcome == "rejected":
                out.dead.append((msg.key, dead_letter(msg, res.reason or "rejected", res.detail,
                                                      "reconciliation", iso(op.at))))
            change = ChangeMessage(op_id=res.op_id, outcome=res.outcome, reason=res.reason, tenant=res.tenant,
                                   user=res.user, at=op.at, changes=res.changes,
                                   source=SourceRef(topic=msg.topic, partition=msg.partition, offset=msg.offset))
            out.changes.append((msg.key, change.model_dump_json().encode()))
            for record_id, kind, due_ms in res.due:
                member = due_member(res.tenant or "", res.user or "", record_id, kind)
                if due_ms is None:
                    due_pipe.zrem(self.progress.due_key(msg.partition), member)
                else:
                    due_pipe.zadd(self.progress.due_key(msg.partition), {member: due_ms})
            cmd = op.command or {}
            if cmd.get("op") in ("expire", "review_due") and res.outcome in ("noop", "duplicate", "rejected"):
                # the sweep's op changed nothing: the entry is stale (record gone or handled)
                self.settle(msg.partition, res.tenant or str(cmd.get("tenant")), res.user or str(cmd.get("user")),
                            str(cmd.get("record_id")), cmd["op"], at_ms)
        due_pipe.execute()
        out.watermark = watermark
        return out


def group_by_partition(batch: list[RawMessage]) -> dict[int, list[RawMessage]]:
    parts: dict[int, list[RawMessage]] = defaultdict(list)
    for m in batch:
        parts[m.partition].append(m)
    return parts

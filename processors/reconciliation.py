"""Reconciliation processor: ops -> Redis (through the engine) -> changes; bad input -> dlq.

At-least-once: a batch's offsets are acknowledged only after its writes landed, and every op
carries an idempotency key (its own `op_id`, else topic/partition/offset), so a redelivery after
a crash applies nothing twice and loses nothing.
"""

from __future__ import annotations

from typing import Any


from memory.models import OpIn, iso, to_ms
from state.engine import Engine
from state.scripts import run_pipeline
from streams.schemas import ChangeMessage

from .expiry import ExpiryService, due_member
from .messages import BadMessage, BatchOutput, RawMessage, dead_letter, decode
from .progress import Progress


def parse_op(msg: RawMessage) -> OpIn:
    """One ops-topic message; without an op id of its own, its topic/partition/offset is the key."""
    return decode(msg, OpIn, {"op_id": msg.source_id})


class ReconciliationService:
    def __init__(self, engine: Engine, progress: Progress, expiry: ExpiryService | None = None) -> None:
        self.engine = engine
        self.r = engine.r
        self.progress = progress
        self.expiry = expiry

    def handle(self, batch: list[RawMessage]) -> BatchOutput:
        out = BatchOutput()
        ops: list[OpIn] = []
        sources: list[RawMessage] = []
        for msg in batch:
            try:
                ops.append(parse_op(msg))
            except BadMessage as bad:
                out.dead.append((msg.key, dead_letter(msg, bad.reason, bad.detail, "reconciliation")))
                continue
            sources.append(msg)
        results = self.engine.apply_many(ops) if ops else []
        due: list[tuple[str, str, int | None]] = []  # (index key, member, due ms or None: not due any more)
        stale: list[tuple[str, str, int]] = []  # (index key, member, the sweep op's time)
        for op, msg, res in zip(ops, sources, results):
            at_ms = to_ms(op.at) or 0
            out.watermark[msg.partition] = max(out.watermark.get(msg.partition, 0), at_ms)
            if res.outcome == "rejected":
                out.dead.append((msg.key, dead_letter(msg, res.reason or "rejected", res.detail,
                                                      "reconciliation", iso(op.at))))
            change = ChangeMessage(op_id=res.op_id, outcome=res.outcome, reason=res.reason, tenant=res.tenant,
                                   user=res.user, at=op.at, changes=res.changes, source=msg.source)
            out.changes.append((msg.key, change.model_dump_json().encode()))
            key = self.progress.due_key(msg.partition)
            for record_id, kind, due_ms in res.due:
                due.append((key, due_member(res.tenant or "", res.user or "", record_id, kind), due_ms))
            cmd = op.command or {}
            if cmd.get("op") in ("expire", "review_due") and res.outcome in ("noop", "duplicate", "rejected"):
                # the sweep's op changed nothing: its index entry is stale (record gone or handled)
                stale.append((key, due_member(str(cmd.get("tenant")), str(cmd.get("user")),
                                              str(cmd.get("record_id")), cmd["op"]), at_ms))
        if due or stale:
            run_pipeline(self.r, lambda pipe: self._write_index(pipe, due, stale),
                         [self.expiry.zrem_if_due] if self.expiry else [])
        return out

    def _write_index(self, pipe: Any, due: list[tuple[str, str, int | None]],
                     stale: list[tuple[str, str, int]]) -> None:
        """The expiry index (`<ns>:due:<partition>`), kept by the single writer of the records it lists."""
        for key, member, due_ms in due:
            if due_ms is None:
                pipe.zrem(key, member)
            else:
                pipe.zadd(key, {member: due_ms})
        if self.expiry is not None:
            for key, member, at_ms in stale:
                self.expiry.zrem_if_due(keys=[key], args=[member, at_ms], client=pipe)

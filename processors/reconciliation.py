"""Reconciliation processor: ops -> Redis (through the engine) -> changes; bad input -> dlq.

At-least-once: a batch's position is recorded only after its writes landed, and every op
carries an idempotency key (its own `op_id`, else topic/partition/offset), so a redelivery after
a crash applies nothing twice and loses nothing.
"""

from __future__ import annotations

from typing import Any

import orjson

from slotstream.memory.models import OpIn, Outcome, iso, to_ms
from slotstream.state.engine import ApplyResult, Engine
from slotstream.state.expiry_index import DueEntry, DueIndex
from slotstream.state.user_keys import UserKeys, record_key
from slotstream.streams.schemas import ChangeMessage
from slotstream.streams.topics import control_key

from .messages import BadMessage, BatchOutput, RawMessage, read, refuse

SWEEP_OPS = ("expire", "review_due")
# what a replay of a later range applies first: deletions, and the user's explicit lifting of one
# (else a replay would keep out what the user let back in)
CONTROL_OPS = ("forget", "restore", "erase_user")


def _owner(op: OpIn) -> tuple[Any, Any]:
    body = op.record if op.record is not None else (op.command or {})
    return body.get("tenant"), body.get("user")


def parse_op(msg: RawMessage, max_skew_seconds: float | None = None) -> OpIn:
    """One ops-topic message; without an op id of its own, its topic/partition/offset is the key."""
    return read(msg, OpIn, "op_id", _owner, lambda op: op.at, max_skew_seconds)


class ReconciliationService:
    def __init__(
        self,
        engine: Engine,
        due_index: DueIndex,
        max_skew_seconds: float | None = None,
        user_keys: UserKeys | None = None,
    ) -> None:
        """`user_keys`: the live pipeline's (an applied erasure shreds the user's keys, and forgets
        and erasures are written to the control topic); a replay passes none and writes nothing."""
        self.engine = engine
        self.due_index = due_index
        self.max_skew_seconds = max_skew_seconds
        self.user_keys = user_keys

    def handle(self, batch: list[RawMessage]) -> BatchOutput:
        out = BatchOutput()
        ops: list[OpIn] = []
        sources: list[RawMessage] = []
        for msg in batch:
            try:
                ops.append(parse_op(msg, self.max_skew_seconds))
            except BadMessage as bad:
                refuse(out, msg, bad.reason, bad.detail, "reconciliation")
                continue
            sources.append(msg)
        results = self.engine.apply_many(ops) if ops else []
        changes: list[tuple[int, DueEntry, int | None]] = []
        handled: list[tuple[int, DueEntry, int]] = []
        for op, msg, res in zip(ops, sources, results, strict=False):
            at_ms = to_ms(op.at) or 0
            if res.outcome == Outcome.REJECTED:
                refuse(out, msg, res.reason or "rejected", res.detail, "reconciliation", iso(op.at))
            else:
                # a refused op does not move its partition's event-time clock
                out.watermark[msg.partition] = max(out.watermark.get(msg.partition, 0), at_ms)
            out.count(f"ops_applied:{res.outcome}")
            change = ChangeMessage(
                op_id=res.op_id,
                outcome=res.outcome,
                reason=res.reason,
                tenant=res.tenant,
                user=res.user,
                at=op.at,
                changes=res.changes,
                source=msg.source,
            )
            out.changes.append((msg.key, change.model_dump_json().encode()))
            for record_id, kind, due_ms in res.due:
                changes.append((msg.partition, DueEntry(res.tenant or "", res.user or "", record_id, kind), due_ms))
            cmd = op.command or {}
            if self.user_keys is not None and cmd.get("op") in CONTROL_OPS:
                self._control(out, op, msg, res)
            if cmd.get("op") in SWEEP_OPS and res.outcome in (Outcome.NOOP, Outcome.DUPLICATE, Outcome.REJECTED):
                # the sweep's op changed nothing: its index entry is stale (record gone or handled)
                handled.append(
                    (
                        msg.partition,
                        DueEntry(str(cmd.get("tenant")), str(cmd.get("user")), str(cmd.get("record_id")), cmd["op"]),
                        at_ms,
                    )
                )
        self.due_index.update(changes, handled)
        return out

    def _control(self, out: BatchOutput, op: OpIn, msg: RawMessage, res: ApplyResult) -> None:
        """A forget, a restore or an erasure that took effect, kept on the control topic (with where it sits in
        the ops topic) for replays of later ranges; an erasure also shreds the user's keys. A forget
        by record id is kept with the forgets by match it amounts to (the values it suppressed): a
        replay of a later range has no record of that id. (Sealed with the user's key, like the
        ops that stated those values.)"""
        assert self.user_keys is not None
        outcome = res.outcome
        cmd = op.command or {}
        tenant, user = str(cmd.get("tenant")), str(cmd.get("user"))
        ingest_ms = msg.timestamp_ms or to_ms(op.at) or 0
        if outcome in (Outcome.APPLIED, Outcome.DUPLICATE) and cmd["op"] == "erase_user":
            # a redelivered erasure shreds too: the first delivery may have stopped short of it
            kids = self.user_keys.created_before(tenant, user, ingest_ms)
            out.keys += [(record_key(tenant, user, kid), None) for kid in kids]
            out.shred.append((tenant, user, kids))
        if outcome != Outcome.APPLIED:
            return
        entry = {
            "op": {"at": iso(op.at), "op_id": op.op_id, "command": cmd},
            "position": {"topic": msg.topic, "partition": msg.partition, "offset": msg.offset},
            "ingest_ms": ingest_ms,
        }
        if cmd["op"] == "forget" and res.as_matches:
            entry["as_matches"] = res.as_matches
        key = control_key(tenant, user, str(cmd["op"]), str(op.op_id))
        if cmd["op"] == "erase_user":
            out.control.append((control_key(tenant, user, "erase_user"), orjson.dumps(entry)))
        else:
            out.control_private.append((key, orjson.dumps(entry)))

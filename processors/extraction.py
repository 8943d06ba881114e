"""Extraction processor: turns -> ops. The extractor is pure (memory.extraction); this module names
the ops (stable ids) and marks corrections of the current value for reconciliation to resolve."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from slotstream.memory.errors import Reason
from slotstream.memory.extraction import Extractor, RuleExtractor, Turn
from slotstream.memory.limits import MAX_OPS_PER_TURN
from slotstream.memory.models import OpIn, Outcome, iso
from slotstream.state.turn_outcomes import TurnEntry, TurnLog
from slotstream.streams.schemas import ChangeMessage
from slotstream.streams.topics import user_key

from .messages import BadMessage, BatchOutput, RawMessage, read, refuse


@dataclass
class TurnOutput:
    ops: list[OpIn] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


class ExtractionService:
    def __init__(
        self, extractor: Extractor | None = None, max_skew_seconds: float | None = None, turn_log: TurnLog | None = None
    ) -> None:
        self.extractor = extractor or RuleExtractor()
        self.max_skew_seconds = max_skew_seconds
        self.turn_log = turn_log

    def ops_for_turn(self, turn: Turn, op_prefix: str) -> TurnOutput:
        """The ops a turn yields, each with a stable id `<op_prefix>#<n>` (replays yield the same).
        A correction is marked `corrects_current`: which record is current is decided by
        reconciliation when it applies the op, in order, so replays decide the same."""
        result = self.extractor.extract(turn)
        out = TurnOutput(refused=list(result.refused))
        for n, proposal in enumerate(result.items):
            op_id = f"{op_prefix}#{n}"
            if proposal.command is not None:
                out.ops.append(OpIn(at=turn.at, op_id=op_id, command=proposal.command))
                continue
            record: dict[str, Any] = dict(proposal.record or {})
            if proposal.link_current and not record.get("corrects"):
                record["corrects_current"] = True
            out.ops.append(OpIn(at=turn.at, op_id=op_id, record=record))
        return out

    def handle(self, batch: list[RawMessage]) -> BatchOutput:
        """A batch of turns-topic messages: ops for the ops topic, refusals as notes on the changes
        topic, bad input to the dead-letter topic."""
        out = BatchOutput()
        tracked: list[TurnEntry] = []
        for msg in batch:
            try:
                turn = read(msg, Turn, "turn_id", lambda t: (t.tenant, t.user), lambda t: t.at, self.max_skew_seconds)
                assert turn.turn_id is not None
                result = self.ops_for_turn(turn, op_prefix=turn.turn_id)
                if len(result.ops) > MAX_OPS_PER_TURN:
                    raise BadMessage(
                        Reason.TOO_MANY_OPS.value,
                        f"{len(result.ops)} records or commands in one turn, at most {MAX_OPS_PER_TURN}",
                    )
            except BadMessage as bad:
                refuse(out, msg, bad.reason, bad.detail, "extraction")
                continue
            key = user_key(turn.tenant, turn.user)
            out.ops.extend((key, orjson.dumps(op_json(op))) for op in result.ops)
            if turn.track:
                ops = [str(op.op_id) for op in result.ops]
                tracked.append(TurnEntry(turn.tenant, turn.user, turn.turn_id, ops, result.refused))
            if result.refused:
                note = ChangeMessage(
                    op_id=turn.turn_id,
                    outcome=Outcome.REFUSED,
                    reason=",".join(result.refused),
                    tenant=turn.tenant,
                    user=turn.user,
                    at=turn.at,
                    source=msg.source,
                )
                out.changes.append((key, note.model_dump_json().encode()))
        if tracked and self.turn_log is not None:
            self.turn_log.record(tracked)
        return out


def op_json(op: OpIn) -> dict[str, Any]:
    return {"at": iso(op.at), "op_id": op.op_id, "record": op.record, "command": op.command}

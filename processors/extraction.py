"""Extraction processor: turns -> ops. The extractor is pure (memory.extraction); this module names
the ops (stable ids) and marks corrections of the current value for reconciliation to resolve."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory.extraction import Extractor, RuleExtractor, Turn
from memory.models import OpIn, iso


@dataclass
class TurnOutput:
    ops: list[OpIn] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


class ExtractionService:
    def __init__(self, extractor: Extractor | None = None) -> None:
        self.extractor = extractor or RuleExtractor()

    def ops_for_turn(self, turn: Turn, op_prefix: str) -> TurnOutput:
        """The ops a turn yields, each with a stable id `<op_prefix>#<n>` (replays yield the same)."""
        return self.ops_for_turns([(turn, op_prefix)])[0]

    def ops_for_turns(self, turns: list[tuple[Turn, str]]) -> list[TurnOutput]:
        """Many turns at once. A correction is marked `corrects_current`: which record is current is
        decided by reconciliation when it applies the op, in order, so replays decide the same."""
        outputs = []
        for turn, prefix in turns:
            result = self.extractor.extract(turn)
            out = TurnOutput(refused=list(result.refused))
            for n, proposal in enumerate(result.items):
                op_id = f"{prefix}#{n}"
                if proposal.command is not None:
                    out.ops.append(OpIn(at=turn.at, op_id=op_id, command=proposal.command))
                    continue
                record: dict[str, Any] = dict(proposal.record or {})
                if proposal.link_current and not record.get("corrects"):
                    record["corrects_current"] = True
                out.ops.append(OpIn(at=turn.at, op_id=op_id, record=record))
            outputs.append(out)
        return outputs


def turn_from_message(data: dict[str, Any], default_id: str) -> Turn:
    data = dict(data)
    data.setdefault("turn_id", default_id)
    return Turn.model_validate(data)


def op_json(op: OpIn) -> dict[str, Any]:
    return {"at": iso(op.at), "op_id": op.op_id, "record": op.record, "command": op.command}

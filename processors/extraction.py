"""Extraction processor: turns -> ops. The extractor is pure (memory.extraction); this module only
links explicit corrections to the slot's current record (a state read) and names the ops."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory.extraction import Extractor, RuleExtractor, Turn
from memory.models import OpIn, iso
from memory.validation import parse_scope
from state.engine import Engine


@dataclass
class TurnOutput:
    ops: list[OpIn] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


class ExtractionService:
    def __init__(self, engine: Engine, extractor: Extractor | None = None) -> None:
        self.engine = engine
        self.extractor = extractor or RuleExtractor()

    def ops_for_turn(self, turn: Turn, op_prefix: str) -> TurnOutput:
        """The ops a turn yields, each with a stable id `<op_prefix>#<n>` (replays yield the same)."""
        return self.ops_for_turns([(turn, op_prefix)])[0]

    def ops_for_turns(self, turns: list[tuple[Turn, str]]) -> list[TurnOutput]:
        """Many turns at once: the current-record lookups of all their corrections share one round trip."""
        extracted = [(turn, prefix, self.extractor.extract(turn)) for turn, prefix in turns]
        wanted: list[tuple[str, str, str, str, str]] = []
        for _, _, result in extracted:
            for proposal in result.items:
                if proposal.record is not None and proposal.link_current and not proposal.record.get("corrects"):
                    key = _slot_of(proposal.record)
                    if key is not None:
                        wanted.append(key)
        current = dict(zip(wanted, self.engine.current_many(wanted))) if wanted else {}
        outputs = []
        for turn, prefix, result in extracted:
            out = TurnOutput(refused=list(result.refused))
            for n, proposal in enumerate(result.items):
                op_id = f"{prefix}#{n}"
                if proposal.command is not None:
                    out.ops.append(OpIn(at=turn.at, op_id=op_id, command=proposal.command))
                    continue
                record: dict[str, Any] = dict(proposal.record or {})
                if proposal.link_current and not record.get("corrects"):
                    rec = current.get(_slot_of(record))  # type: ignore[arg-type]
                    if rec is not None:
                        record["corrects"] = rec.id
                out.ops.append(OpIn(at=turn.at, op_id=op_id, record=record))
            outputs.append(out)
        return outputs


def _slot_of(record: dict[str, Any]) -> tuple[str, str, str, str, str] | None:
    try:
        scope = parse_scope(record.get("scope"))
    except ValueError:
        return None  # validation downstream rejects it with its reason
    return (str(record.get("tenant")), str(record.get("user")), str(record.get("attribute")), scope,
            str(record.get("subject") or "user"))


def turn_from_message(data: dict[str, Any], default_id: str) -> Turn:
    data = dict(data)
    data.setdefault("turn_id", default_id)
    return Turn.model_validate(data)


def op_json(op: OpIn) -> dict[str, Any]:
    return {"at": iso(op.at), "op_id": op.op_id, "record": op.record, "command": op.command}

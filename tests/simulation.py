"""One user's state in memory, changed exactly as the engine changes it in Redis: validate ->
reconcile -> `UserView.apply`. The pure rule tests and the property tests both run on it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from slotstream.memory.errors import Rejected
from slotstream.memory.models import AnyCommand, ContextRequest, ContextResponse, OpIn, Record
from slotstream.memory.reconcile import Transition, UserView, reconcile
from slotstream.memory.selection import exclusion_reason, from_record, select
from slotstream.memory.validation import build_record, parse_command, parse_record, validate_op

DETAIL = "preference.response.detail"


def ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


class Sim:
    def __init__(self, tenant: str = "t1", user: str = "u1") -> None:
        self.tenant, self.user = tenant, user
        self.view = UserView()
        self.n = 0

    def _op_id(self) -> str:
        self.n += 1
        return f"op-{self.n}"

    def build(self, at: datetime, **kw: Any) -> Record:
        data: dict[str, Any] = {"tenant": self.tenant, "user": self.user, "attribute": DETAIL, "value": "concise"}
        data.update(kw)
        return build_record(parse_record(data), op_id=self._op_id(), at=at)

    def apply(self, op: Record | AnyCommand, at: datetime, op_id: str | None = None) -> Transition:
        op_id = op_id or getattr(op, "op_id", None) or self._op_id()
        t = reconcile(self.view, op, at, op_id)
        self.view.apply(t)
        return t

    def apply_wire(self, raw: dict[str, Any]) -> tuple[Transition, Record | AnyCommand, datetime] | None:
        """An op as producers send it, through the engine's own validation; None when refused."""
        op = OpIn.model_validate(raw)
        try:
            op_id, parsed = validate_op(op)
            t = reconcile(self.view, parsed, op.at, op_id)
        except Rejected:
            return None  # rejected input changes nothing
        self.view.apply(t)
        return t, parsed, op.at

    def record(self, at: datetime, **kw: Any) -> tuple[Transition, Record]:
        rec = self.build(at, **kw)
        return self.apply(rec, at), rec

    def command(self, at: datetime, **kw: Any) -> Transition:
        cmd = parse_command({"tenant": self.tenant, "user": self.user, **kw})
        return self.apply(cmd, at)

    def get(self, rid: str) -> Record:
        return self.view.records[rid]

    def usable(self, at: datetime, attribute: str = DETAIL, **req: Any) -> list[Record]:
        request = ContextRequest(tenant=self.tenant, user=self.user, **req)
        return [
            r
            for r in self.view.records.values()
            if r.attribute == attribute and exclusion_reason(from_record(r), ms(at), request, request.scopes()) is None
        ]

    def context(self, at: datetime, **req: Any) -> ContextResponse:
        request = ContextRequest(tenant=self.tenant, user=self.user, explain=True, **req)
        return select(
            request, [from_record(r) for r in self.view.records.values()], at, list(self.view.suppressions.values())
        )

"""The engine: validate -> load (one round trip) -> reconcile (pure) -> apply (one atomic script).

`Engine.apply` / `apply_many` is the write API of the processors and the sidecar, `context` the
read API (one round trip, payload bounded by the active records in the request's scopes),
`history` the lineage of a slot.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from typing import Any, Iterable

import orjson
import redis

from memory.errors import Reason, Rejected
from memory.models import (
    LIVE_STATUSES,
    SELECTABLE_STATUSES,
    ContextRequest,
    ContextResponse,
    OpIn,
    Record,
    Suppression,
    check_id,
    iso,
    parse_time,
    slot_key,
)
from memory.reconcile import Transition, UserView, needs_for, reconcile
from memory.selection import compact, from_compact, select
from memory.validation import build_record, parse_command, parse_record

from .keys import Keys

MAX_RETRIES = 5


@dataclass(slots=True)
class ApplyResult:
    op_id: str
    outcome: str  # applied | refreshed | duplicate | rejected | dropped | noop
    reason: str | None = None
    detail: str = ""
    tenant: str | None = None
    user: str | None = None
    record_ids: list[str] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"op_id": self.op_id, "outcome": self.outcome, "reason": self.reason, "detail": self.detail,
                "tenant": self.tenant, "user": self.user, "record_ids": self.record_ids,
                "changes": self.changes}


@dataclass(slots=True)
class _Pending:
    index: int
    op_id: str
    at: datetime
    parsed: Any  # Record or command


def op_id_for(op: OpIn) -> str:
    if op.op_id:
        return op.op_id
    body = orjson.dumps({"r": op.record, "c": op.command, "at": iso(op.at)}, option=orjson.OPT_SORT_KEYS)
    return "h:" + hashlib.sha1(body).hexdigest()[:24]


def validate_op(op: OpIn) -> tuple[str, Any]:
    """(op_id, Record | command) or raises Rejected. Pure: reads no state."""
    op_id = op_id_for(op)
    if (op.record is None) == (op.command is None):
        raise Rejected(Reason.MISSING_FIELD, "exactly one of record or command")
    if op.record is not None:
        return op_id, build_record(parse_record(op.record), op_id=op_id, at=op.at)
    return op_id, parse_command(op.command)


def _script(name: str) -> str:
    return resources.files("state").joinpath(name).read_text()


class Engine:
    def __init__(self, client: redis.Redis, namespace: str = "ss") -> None:
        self.r = client
        self.keys = Keys(namespace)
        self._load = client.register_script(_script("load.lua"))
        self._apply = client.register_script(_script("apply.lua"))

    # --- write side ---------------------------------------------------------------------------

    def apply(self, op: OpIn | dict[str, Any]) -> ApplyResult:
        return self.apply_many([op])[0]

    def apply_many(self, ops: Iterable[OpIn | dict[str, Any]]) -> list[ApplyResult]:
        """Apply ops in order. One load round trip and one apply round trip per batch (plus a retry
        for a user whose state changed between them); each user's part is one atomic script."""
        results: list[ApplyResult | None] = []
        by_user: OrderedDict[tuple[str, str], list[_Pending]] = OrderedDict()
        for i, raw in enumerate(ops):
            try:
                op = raw if isinstance(raw, OpIn) else OpIn.model_validate(raw)
            except Exception as err:  # noqa: BLE001 - any malformed envelope is a rejection
                results.append(ApplyResult(op_id=f"#{i}", outcome="rejected", reason=Reason.INVALID_FIELD.value,
                                           detail=str(err).splitlines()[0]))
                continue
            try:
                op_id, parsed = validate_op(op)
            except Rejected as rej:
                results.append(ApplyResult(op_id=op_id_for(op), outcome="rejected", reason=rej.reason.value,
                                           detail=rej.detail))
                continue
            results.append(None)
            by_user.setdefault((parsed.tenant, parsed.user), []).append(_Pending(i, op_id, op.at, parsed))

        pending = by_user
        for _ in range(MAX_RETRIES):
            if not pending:
                break
            pending = self._apply_round(pending, results)
        if pending:
            raise RuntimeError(f"state kept changing under {len(pending)} users; gave up after {MAX_RETRIES} tries")
        return [r for r in results if r is not None]

    def _apply_round(self, by_user: OrderedDict[tuple[str, str], list[_Pending]],
                     results: list[ApplyResult | None]) -> OrderedDict[tuple[str, str], list[_Pending]]:
        users = list(by_user)
        pipe = self.r.pipeline(transaction=False)
        for tenant, user in users:
            items = by_user[(tenant, user)]
            slots: set[str] = set()
            ids: set[str] = set()
            attrs: list[list[str]] = []
            history = False
            for p in items:
                n = needs_for(p.parsed)
                slots |= n.slots
                ids |= n.ids
                history |= n.with_history
                if n.attribute:
                    attrs.append([n.attribute[0], n.attribute[1]])
            req = {"ops": [p.op_id for p in items], "slots": sorted(slots), "ids": sorted(ids),
                   "attrs": attrs, "history": history}
            self._load(keys=[self.keys.meta(tenant, user)],
                       args=[self.keys.prefix(tenant, user), orjson.dumps(req)], client=pipe)
        loaded = pipe.execute()

        apply_pipe = self.r.pipeline(transaction=False)
        staged: list[tuple[tuple[str, str], list[tuple[_Pending, ApplyResult]]]] = []
        for (tenant, user), raw in zip(users, loaded):
            state = orjson.loads(raw)
            view = _view(state)
            applied_before = state.get("applied") or {}
            payload: list[dict[str, Any]] = []
            outcomes: list[tuple[_Pending, ApplyResult]] = []
            seen_ops: set[str] = set()
            for p in by_user[(tenant, user)]:
                if p.op_id in applied_before or p.op_id in seen_ops:
                    outcomes.append((p, ApplyResult(p.op_id, "duplicate", tenant=tenant, user=user)))
                    continue
                seen_ops.add(p.op_id)
                try:
                    t = reconcile(view, p.parsed, p.at, p.op_id)
                except Rejected as rej:
                    outcomes.append((p, ApplyResult(p.op_id, "rejected", rej.reason.value, rej.detail,
                                                    tenant, user)))
                    continue
                _overlay(view, t)
                payload.append(_encode(t))
                outcomes.append((p, ApplyResult(p.op_id, t.outcome, t.reason, "", tenant, user,
                                                list(t.puts), t.changes)))
            staged.append(((tenant, user), outcomes))
            if payload:
                self._apply(keys=[self.keys.meta(tenant, user)],
                            args=[self.keys.prefix(tenant, user), state.get("version", 0), orjson.dumps(payload)],
                            client=apply_pipe)
            else:
                apply_pipe.echo("noop")
        replies = apply_pipe.execute()

        retry: OrderedDict[tuple[str, str], list[_Pending]] = OrderedDict()
        for ((tenant, user), outcomes), reply in zip(staged, replies):
            if isinstance(reply, list) and int(reply[0]) == -1:
                retry[(tenant, user)] = [p for p, _ in outcomes]  # another writer moved first: redo
                continue
            for p, res in outcomes:
                results[p.index] = res
        return retry

    # --- read side ----------------------------------------------------------------------------

    def context(self, request: ContextRequest | dict[str, Any], at: datetime | str | None = None) -> ContextResponse:
        """Assemble the context for one request: one pipelined round trip, then pure selection."""
        req = request if isinstance(request, ContextRequest) else ContextRequest.model_validate(request)
        check_id(req.tenant, Reason.MISSING_TENANT)
        check_id(req.user, Reason.MISSING_USER)
        when = parse_time(at) if at is not None else req.at
        if when is None:
            raise Rejected(Reason.MISSING_FIELD, "at: the time the context is for")
        scopes = req.scopes()
        pipe = self.r.pipeline(transaction=False)
        for scope in scopes:
            pipe.hvals(self.keys.active(req.tenant, req.user, scope))
        candidates = [from_compact(orjson.loads(v)) for vals in pipe.execute() for v in vals]
        return select(req, candidates, when)

    def history(self, tenant: str, user: str, attribute: str, scope: str = "global",
                subject: str = "user") -> list[Record]:
        """Every record the slot ever held, oldest first, with status and supersession links."""
        ids = self.r.lrange(self.keys.history(tenant, user, slot_key(subject, attribute, scope)), 0, -1)
        if not ids:
            return []
        raws = self.r.hmget(self.keys.records(tenant, user), ids)
        return [Record.model_validate_json(r) for r in raws if r]

    def record(self, tenant: str, user: str, record_id: str) -> Record | None:
        raw = self.r.hget(self.keys.records(tenant, user), record_id)
        return Record.model_validate_json(raw) if raw else None

    def records(self, tenant: str, user: str) -> list[Record]:
        return [Record.model_validate_json(v) for v in self.r.hvals(self.keys.records(tenant, user))]

    def suppressions(self, tenant: str, user: str) -> list[Suppression]:
        return [Suppression.model_validate_json(v) for v in self.r.hvals(self.keys.suppressions(tenant, user))]

    def changes(self, tenant: str, user: str, start: int = 0, end: int = -1) -> list[dict[str, Any]]:
        return [orjson.loads(v) for v in self.r.lrange(self.keys.log(tenant, user), start, end)]


def _view(state: dict[str, Any]) -> UserView:
    view = UserView()
    for rid, raw in (state.get("records") or {}).items():
        view.records[rid] = Record.model_validate_json(raw)
    for sk, raw in (state.get("slots") or {}).items():
        view.slots[sk] = list(orjson.loads(raw)) if raw else []
    for sk, ids in (state.get("history") or {}).items():
        view.history[sk] = list(ids) if ids else []
    for key, raw in (state.get("sup") or {}).items():
        view.suppressions[key] = Suppression.model_validate_json(raw)
    if state.get("erased_at"):
        view.erased_at = parse_time(state["erased_at"])
    return view


def _overlay(view: UserView, t: Transition) -> None:
    """Make the batch's later ops see this op's effect before it is written."""
    if t.erase:
        view.records.clear(); view.slots.clear(); view.history.clear(); view.suppressions.clear()
        view.erased_at = t.at
    for rid in t.created:
        rec = t.puts[rid]
        view.history.setdefault(rec.slot, []).append(rid)
    for rec in t.puts.values():
        view.records[rec.id] = rec
        live = view.slots.setdefault(rec.slot, [])
        if rec.status in LIVE_STATUSES:
            if rec.id not in live:
                live.append(rec.id)
        elif rec.id in live:
            live.remove(rec.id)
    for s in t.suppress:
        view.suppressions[s.key] = s
    for key in t.unsuppress:
        view.suppressions.pop(key, None)


def _encode(t: Transition) -> dict[str, Any]:
    at = iso(t.at)
    puts = []
    for rec in t.puts.values():
        puts.append({
            "id": rec.id, "json": rec.model_dump_json(), "slot": rec.slot, "scope": rec.scope,
            "live": rec.status in LIVE_STATUSES,
            "act": orjson.dumps(compact(rec)).decode() if rec.status in SELECTABLE_STATUSES else False,
        })
    log = [orjson.dumps({"op": t.op_id, "at": at, **c}).decode() for c in t.changes]
    return {
        "op": t.op_id, "at": at, "puts": puts,
        "created": [[t.puts[rid].slot, rid] for rid in t.created],
        "sup": {s.key: s.model_dump_json() for s in t.suppress},
        "unsup": t.unsuppress, "log": log, "erase": t.erase,
    }

"""What the sidecar does, apart from HTTP: context lookups, ingest through the topics (with an
optional wait for the outcomes), memory controls and reads — always within the caller's tenant.

Every change goes through the ops topic, so reconciliation stays the single writer of a user's
state. A wait polls Redis: a tracked turn's log (written by extraction once its ops are out), then
each op's entry in the user's ledger (written by the apply script with the op's outcome). Once an
op is in the ledger its effect is in Redis, so the next context lookup sees it.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.extraction import Turn
from slotstream.memory.models import (
    SLOT_DEPENDENCY,
    AnyCommand,
    ContextRequest,
    ContextResponse,
    MoveCommand,
    OpIn,
    Record,
    iso,
    slot_key,
    to_ms,
)
from slotstream.memory.reconcile import TARGETED, check_dependency, check_move, check_target, reuses_id
from slotstream.memory.validation import check_event_skew, derive_id, parse_message, validate_op
from slotstream.state.engine import Engine
from slotstream.state.quotas import Riding
from slotstream.state.reader import AsyncReader
from slotstream.streams.aio_producer import AsyncProducer, Position, wire_payload
from slotstream.streams.topics import OPS, TURNS

from .errors import Conflict, Forbidden, NotFound
from .keys import Principal
from .schemas import Accepted, ContextLine, ContextQuery, ContextResult, IngestResult, OpBody, OpOutcome, TurnIn

POLL_FIRST, POLL_MAX = 0.003, 0.05  # seconds between polls of a wait


@dataclass(frozen=True)
class CheckedOp:
    """An op the door let through: the message it produces and what the engine reads it as."""

    message: dict[str, Any]
    wire: bytes  # the message's bytes on the topic (before sealing)
    op_id: str
    user: str
    parsed: Record | AnyCommand


def _now() -> datetime:
    return datetime.now(UTC)


class Sidecar:
    def __init__(
        self,
        reader: AsyncReader,
        producer: AsyncProducer,
        max_event_skew: float,
        engine_for: Callable[[str], Engine] | None = None,
        clock: Callable[[], datetime] = _now,
        ingest_quota: Callable[[str, int], Awaitable[None]] | None = None,
    ) -> None:
        """`engine_for`: set, context reads run a synchronous engine (of the namespace the reader
        resolves) on a thread pool. `ingest_quota(tenant, count)`: takes a tenant's quota for
        `count` turns or ops about to be produced, or raises to refuse them."""
        self.ingest_quota = ingest_quota
        self.reader = reader
        self.producer = producer
        self.max_event_skew = max_event_skew
        self.engine_for = engine_for
        self._engines: dict[str, Engine] = {}
        self.clock = clock
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="sidecar-read") if engine_for else None

    # --- context ----------------------------------------------------------------------------------

    async def context(self, caller: Principal, q: ContextQuery, riding: Riding | None = None) -> ContextResult:
        """`riding`: the caller's quota decision, sent in the read's first round trip."""
        req = ContextRequest(
            tenant=caller.tenant,
            user=q.user,
            project=q.project,
            session=q.session,
            text=q.query,
            max_items=q.max_items,
            max_chars=q.max_chars,
            explain=q.explain,
            roles=caller_roles(caller),
        )
        at = q.at or self.clock()
        if self.engine_for is not None and self._pool is not None:
            namespace = await self.reader.namespace(riding)
            engine = self._engines.get(namespace)
            if engine is None:
                engine = self._engines[namespace] = self.engine_for(namespace)
            resp = await asyncio.get_running_loop().run_in_executor(self._pool, engine.context, req, at)
        else:
            resp = await self.reader.context(req, at, riding)
        return _result(q.user, resp, q.explain)

    # --- ingest -----------------------------------------------------------------------------------

    async def turns(self, caller: Principal, turns: list[TurnIn], wait: float | None) -> IngestResult:
        bodies, wire = [], []
        for t in turns:
            at = self._event_time(t.at)
            turn_id = t.turn_id or f"sct_{uuid.uuid4().hex}"
            body: dict[str, Any] = {
                "tenant": caller.tenant,
                "user": t.user,
                "session": t.session,
                "project": t.project,
                "role": t.role,
                "text": t.text,
                "at": iso(at),
                "turn_id": turn_id,
                "track": wait is not None,
            }
            wire.append(_wire(body))
            parse_message(wire[-1], Turn)  # Rejected: as extraction reads (and refuses) it
            bodies.append(body)
        await self._take_ingest(caller, len(bodies))
        positions = await self.producer.send_many(TURNS, [(caller.tenant, b["user"], b) for b in bodies], wire)
        accepted = [_accepted(b["turn_id"], pos) for b, pos in zip(bodies, positions, strict=True)]
        if wait is None:
            return IngestResult(accepted=accepted, complete=False)
        deadline = time.monotonic() + wait
        done = await asyncio.gather(
            *(self._wait_turn(caller.tenant, b["user"], a, deadline) for b, a in zip(bodies, accepted, strict=True))
        )
        return IngestResult(accepted=accepted, complete=all(done))

    async def ops(self, caller: Principal, ops: list[OpBody], wait: float | None) -> IngestResult:
        """Every op is checked first, as the worker reads and applies it: one bad op refuses the
        whole request and nothing is produced."""
        checked = [self._checked_op(caller, op) for op in ops]
        await self._check_stored(caller.tenant, checked)
        items = [(caller.tenant, c.user, c.message) for c in checked]
        await self._take_ingest(caller, len(items))
        positions = await self.producer.send_many(OPS, items, [c.wire for c in checked])
        accepted = [_accepted(c.op_id, pos) for c, pos in zip(checked, positions, strict=True)]
        if wait is None:
            return IngestResult(accepted=accepted, complete=False)
        deadline = time.monotonic() + wait
        by_user: dict[str, list[Accepted]] = {}
        for c, a in zip(checked, accepted, strict=True):
            by_user.setdefault(c.user, []).append(a)
        done = await asyncio.gather(
            *(self._wait_ops(caller.tenant, user, items_, deadline) for user, items_ in by_user.items())
        )
        return IngestResult(accepted=accepted, complete=all(done))

    async def command(self, caller: Principal, user: str, command: dict[str, Any], wait: float | None) -> IngestResult:
        """A control on the record a URL names."""
        body = {"op": command.pop("op"), "tenant": caller.tenant, "user": user, **command}
        try:
            return await self.ops(caller, [OpBody(command=body)], wait)
        except Rejected as err:
            if err.reason is Reason.TARGET_NOT_FOUND:
                # the URL names no record of this user's: its resource is missing, as for a GET
                raise NotFound(err.reason.value, err.detail) from None
            if err.reason in (Reason.TARGET_NOT_PENDING, Reason.SOURCE_NOT_AUTHORIZED):
                # the record is there, in a state (or of a kind) this control does not apply to
                raise Conflict(err.reason.value, err.detail) from None
            raise

    async def _take_ingest(self, caller: Principal, count: int) -> None:
        """Valid input only is counted: a refused request costs the tenant nothing."""
        if self.ingest_quota is not None:
            await self.ingest_quota(caller.tenant, count)

    def _checked_op(self, caller: Principal, body: OpBody) -> CheckedOp:
        """The op as it goes on the ops topic, read back from its bytes as reconciliation reads
        them (size, nesting, envelope) and validated as the engine validates it. Rejected: 422
        with the reason code the worker would dead-letter it with."""
        payload = body.record if body.record is not None else body.command
        if (body.record is None) == (body.command is None) or payload is None:
            raise Rejected(Reason.MISSING_FIELD, "exactly one of record or command")
        if payload.get("tenant") not in (None, caller.tenant):
            raise Forbidden(Reason.TENANT_MISMATCH.value, "a key acts for its own tenant only")
        if body.command is not None and payload.get("op") == "erase_user" and not caller.may("admin"):
            raise Forbidden("scope", "erasing a user needs the admin scope")
        payload = {**payload, "tenant": caller.tenant}
        op_id = body.op_id or f"sco_{uuid.uuid4().hex}"
        message = {
            "at": iso(self._event_time(body.at)),
            "op_id": op_id,
            "record": payload if body.record is not None else None,
            "command": payload if body.command is not None else None,
        }
        wire = _wire(message)
        _, parsed = validate_op(parse_message(wire, OpIn))
        return CheckedOp(message, wire, op_id, str(parsed.user), parsed)

    async def _check_stored(self, tenant: str, checked: list[CheckedOp]) -> None:
        """The engine's rules that depend on what is stored (a control's target, a record's
        dependencies, a reused record id), checked against the user's state now. Only a user's
        first op in the request is: what the state is after an earlier op of theirs, only the
        worker knows. (What changes between this check and the apply is still refused there.)"""
        seen: set[str] = set()
        for c in checked:
            if c.user in seen:
                continue
            seen.add(c.user)
            op = c.parsed
            if isinstance(op, Record):
                if op.id != derive_id("r_", c.op_id):  # an id of the producer's may already be in use
                    reuses_id(op, await self.reader.record(tenant, c.user, op.id))
                for dep in op.depends_on:
                    if not dep.startswith(SLOT_DEPENDENCY):
                        check_dependency(dep, await self.reader.record(tenant, c.user, dep))
            elif isinstance(op, TARGETED) and op.record_id:
                check_target(op, await self.reader.record(tenant, c.user, op.record_id))
            elif isinstance(op, MoveCommand):
                source = await self.reader.history(tenant, c.user, slot_key(op.subject, op.attribute, op.from_scope))
                destination = await self.reader.live(tenant, c.user, slot_key(op.subject, op.attribute, op.to_scope))
                check_move(op, [r.id for r in source], destination)

    def _event_time(self, at: datetime | None) -> datetime:
        now = self.clock()
        if at is None:
            return now
        check_event_skew(at, to_ms(now) or 0, self.max_event_skew)  # as the worker checks it
        return at

    # --- waits ------------------------------------------------------------------------------------

    async def _wait_turn(self, tenant: str, user: str, accepted: Accepted, deadline: float) -> bool:
        log = await _poll(lambda: self.reader.turn_log(tenant, user, accepted.id), deadline)
        if log is None:
            accepted.outcome = "pending"
            return False
        accepted.outcome, accepted.refused = "extracted", list(log.get("refused", []))
        accepted.ops = [OpOutcome(op_id=op_id, outcome="pending") for op_id in log.get("ops", [])]
        if not accepted.ops:
            return True
        wanted = [Accepted(id=o.op_id, topic="", partition=-1, offset=-1) for o in accepted.ops]
        done = await self._wait_ops(tenant, user, wanted, deadline)
        accepted.ops = [OpOutcome(op_id=w.id, outcome=w.outcome or "pending", reason=w.reason) for w in wanted]
        return done

    async def _wait_ops(self, tenant: str, user: str, accepted: list[Accepted], deadline: float) -> bool:
        # an op id sent twice in one request has one entry in the ledger: both items get its outcome
        pending: dict[str, list[Accepted]] = {}
        for a in accepted:
            pending.setdefault(a.id, []).append(a)

        async def check() -> bool | None:
            found = await self.reader.outcomes(tenant, user, list(pending))
            for op_id, outcome in found.items():
                if outcome is not None:
                    for a in pending.pop(op_id):
                        a.outcome, a.reason = outcome["outcome"], outcome["reason"]
            return True if not pending else None

        done = await _poll(check, deadline)
        for waiting in pending.values():
            for a in waiting:
                a.outcome = "pending"
        return bool(done)

    # --- reads ------------------------------------------------------------------------------------

    async def memories(
        self, caller: Principal, user: str, cursor: int, limit: int, filters: dict[str, str | None]
    ) -> tuple[list[Record], int | None]:
        page, next_cursor = await self.reader.records_page(caller.tenant, user, cursor, limit)
        wanted = {k: v for k, v in filters.items() if v}
        items = [r for r in page if may_see(caller, r) and all(str(getattr(r, k)) == v for k, v in wanted.items())]
        items.sort(key=lambda r: (r.observed_at, r.id))
        return items, next_cursor or None

    async def memory(self, caller: Principal, user: str, record_id: str) -> Record:
        rec = await self.reader.record(caller.tenant, user, record_id)
        if rec is None or not may_see(caller, rec):
            raise NotFound("not_found", f"no memory {record_id} for this user")
        return rec

    async def history(self, caller: Principal, user: str, record_id: str) -> tuple[Record, list[Record]]:
        rec = await self.memory(caller, user, record_id)
        lineage = await self.reader.history(caller.tenant, user, rec.slot)
        return rec, [r for r in lineage if may_see(caller, r)]

    def export(self, caller: Principal, user: str) -> AsyncIterator[dict[str, Any]]:
        return self.reader.export(caller.tenant, user)

    async def ready(self) -> dict[str, bool]:
        async def redis_up() -> bool:
            try:
                return await asyncio.wait_for(self.reader.ping(), 2.0)
            except Exception:  # noqa: BLE001 - any failure means "not reachable"
                return False

        redis_ok, kafka_ok = await asyncio.gather(redis_up(), self.producer.ready())
        return {"redis": redis_ok, "kafka": kafka_ok}


def _wire(message: dict[str, Any]) -> bytes:
    """The bytes the producer will write for `message`. A body Python's JSON reader takes but no
    message can carry (an integer past 64 bits) is the caller's error, not a 500."""
    try:
        return wire_payload(message)
    except orjson.JSONEncodeError as err:
        raise Rejected(Reason.INVALID_FIELD, f"not representable as a message: {err}"[:200]) from None


def caller_roles(caller: Principal) -> list[str]:
    """What a caller may see comes from its key (its roles, and the key itself as a principal):
    a request body cannot claim a role."""
    return [*sorted(caller.roles), f"key:{caller.key_id}"]


def may_see(caller: Principal, rec: Record) -> bool:
    """A record with an audience is visible to its roles and principals (and an admin key, which
    exports and erases the user's whole memory anyway); one without an audience to every caller."""
    return not rec.audience or caller.may("admin") or bool(set(rec.audience).intersection(caller_roles(caller)))


async def _poll(check: Callable[[], Any], deadline: float) -> Any:
    """`check()` until it gives something other than None, or the deadline passes (then None)."""
    delay = POLL_FIRST
    while True:
        value = await check()
        if value is not None:
            return value
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        await asyncio.sleep(min(delay, left))
        delay = min(POLL_MAX, delay * 2)


def _accepted(item_id: str, pos: Position) -> Accepted:
    topic, partition, offset = pos
    return Accepted(id=item_id, topic=topic, partition=partition, offset=offset)


def _result(user: str, resp: ContextResponse, explain: bool) -> ContextResult:
    sections: dict[str, list[ContextLine]] = {}
    for item in resp.items:
        sections.setdefault(item.section, []).append(
            ContextLine(
                id=item.id,
                attribute=item.attribute,
                scope=item.scope,
                value=item.value,
                text=item.text,
                source=item.source,
            )
        )
    return ContextResult(
        user=user,
        at=resp.at,
        context=resp.context,
        sections=sections,
        used_ids=resp.used_ids,
        excluded=resp.excluded if explain else None,
    )

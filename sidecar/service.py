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
from datetime import UTC, datetime, timedelta
from typing import Any

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.extraction import Turn
from slotstream.memory.models import ContextRequest, ContextResponse, OpIn, Record, iso
from slotstream.memory.validation import validate_op
from slotstream.state.engine import Engine
from slotstream.state.quotas import Riding
from slotstream.state.reader import AsyncReader
from slotstream.streams.aio_producer import AsyncProducer, Position
from slotstream.streams.topics import OPS, TURNS

from .errors import Forbidden, NotFound
from .keys import Principal
from .schemas import Accepted, ContextLine, ContextQuery, ContextResult, IngestResult, OpBody, OpOutcome, TurnIn

POLL_FIRST, POLL_MAX = 0.003, 0.05  # seconds between polls of a wait


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
        bodies = []
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
            Turn.model_validate(body)
            bodies.append(body)
        await self._take_ingest(caller, len(bodies))
        positions = await self.producer.send_many(TURNS, [(caller.tenant, b["user"], b) for b in bodies])
        accepted = [_accepted(b["turn_id"], pos) for b, pos in zip(bodies, positions, strict=True)]
        if wait is None:
            return IngestResult(accepted=accepted, complete=False)
        deadline = time.monotonic() + wait
        done = await asyncio.gather(
            *(self._wait_turn(caller.tenant, b["user"], a, deadline) for b, a in zip(bodies, accepted, strict=True))
        )
        return IngestResult(accepted=accepted, complete=all(done))

    async def ops(self, caller: Principal, ops: list[OpBody], wait: float | None) -> IngestResult:
        """Every op is validated first (the engine's own validation): one bad op refuses the whole
        request and nothing is produced."""
        checked = [self._checked_op(caller, op) for op in ops]
        items = [
            (caller.tenant, user, {"at": iso(op.at), "op_id": op.op_id, "record": op.record, "command": op.command})
            for op, user in checked
        ]
        await self._take_ingest(caller, len(items))
        positions = await self.producer.send_many(OPS, items)
        accepted = [_accepted(str(op.op_id), pos) for (op, _), pos in zip(checked, positions, strict=True)]
        if wait is None:
            return IngestResult(accepted=accepted, complete=False)
        deadline = time.monotonic() + wait
        by_user: dict[str, list[Accepted]] = {}
        for (_, user), a in zip(checked, accepted, strict=True):
            by_user.setdefault(user, []).append(a)
        done = await asyncio.gather(
            *(self._wait_ops(caller.tenant, user, items_, deadline) for user, items_ in by_user.items())
        )
        return IngestResult(accepted=accepted, complete=all(done))

    async def command(self, caller: Principal, user: str, command: dict[str, Any], wait: float | None) -> IngestResult:
        body = {"op": command.pop("op"), "tenant": caller.tenant, "user": user, **command}
        return await self.ops(caller, [OpBody(command=body)], wait)

    async def _take_ingest(self, caller: Principal, count: int) -> None:
        """Valid input only is counted: a refused request costs the tenant nothing."""
        if self.ingest_quota is not None:
            await self.ingest_quota(caller.tenant, count)

    def _checked_op(self, caller: Principal, body: OpBody) -> tuple[OpIn, str]:
        payload = body.record if body.record is not None else body.command
        if (body.record is None) == (body.command is None) or payload is None:
            raise Rejected(Reason.MISSING_FIELD, "exactly one of record or command")
        if payload.get("tenant") not in (None, caller.tenant):
            raise Forbidden(Reason.TENANT_MISMATCH.value, "a key acts for its own tenant only")
        if body.command is not None and payload.get("op") == "erase_user" and not caller.may("admin"):
            raise Forbidden("scope", "erasing a user needs the admin scope")
        payload = {**payload, "tenant": caller.tenant}
        op = OpIn(
            at=self._event_time(body.at),
            op_id=body.op_id or f"sco_{uuid.uuid4().hex}",
            record=payload if body.record is not None else None,
            command=payload if body.command is not None else None,
        )
        validate_op(op)  # Rejected: 422 with the engine's reason code
        return op, str(payload.get("user"))

    def _event_time(self, at: datetime | None) -> datetime:
        now = self.clock()
        if at is None:
            return now
        if at > now + timedelta(seconds=self.max_event_skew):
            raise Rejected(Reason.EVENT_TIME_IN_FUTURE, f"at is more than {self.max_event_skew:g} s ahead of now")
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
        pending = {a.id: a for a in accepted}

        async def check() -> bool | None:
            found = await self.reader.outcomes(tenant, user, list(pending))
            for op_id, outcome in found.items():
                if outcome is not None:
                    pending[op_id].outcome, pending[op_id].reason = outcome["outcome"], outcome["reason"]
                    del pending[op_id]
            return True if not pending else None

        done = await _poll(check, deadline)
        for a in pending.values():
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

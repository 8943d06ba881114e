"""The read side over Redis, for a server's event loop (redis.asyncio): context lookups, a user's
memories, a slot's lineage, op outcomes and the export of everything held for a user.

The context is read as by `Engine.context` (ContextRead below) and selected by the same pure
function; nothing here writes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any, cast

import orjson
import redis.asyncio as aioredis

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.models import ContextRequest, ContextResponse, Record, Suppression, check_id, parse_time
from slotstream.memory.selection import from_compact, prepare, select

from .context_cache import STAMP_FIELDS, ContextCache
from .deploy import parse_pointer
from .keys import Keys, deploy_pointer

PAGE_MAX = 200


class ContextRead:
    """One context lookup's reads, the same for the synchronous engine and the async reader (only
    the I/O differs): with a cache, first the user's write stamp alone; if the cached rows still
    hold, nothing more. Otherwise one pipelined round trip: the stamp, each scope's read model,
    the suppressions."""

    def __init__(self, keys: Keys, req: ContextRequest, at: datetime | str | None, cache: ContextCache | None) -> None:
        self.req, self.when, self.cache = req, context_time(req, at), cache
        self.user = (req.tenant, req.user)
        self.scopes = req.scopes()
        self.meta = keys.meta(req.tenant, req.user)
        self.scope_keys = [keys.active(req.tenant, req.user, scope) for scope in self.scopes]
        self.suppressions_key = keys.suppressions(req.tenant, req.user)
        self.cached = cache.candidate(self.user, self.scopes) if cache is not None else None

    def from_cache(self, stamp: Sequence[bytes | str | None]) -> ContextResponse | None:
        """The answer from the cached rows if `stamp` (read just now) is theirs, else None."""
        if self.cached is None or self.cache is None or tuple(stamp) != self.cached.stamp:
            return None
        self.cache.hit()
        rows = [c for scope in self.scopes for c in self.cached.scopes[scope]]
        if not self.cached.prepared:  # asked again unchanged: worth preparing for the next times
            prepare(c for scope_rows in self.cached.scopes.values() for c in scope_rows)
            self.cached.prepared = True
        return select(self.req, rows, self.when, self.cached.suppressions)

    def queue(self, pipe: Any) -> None:
        pipe.hmget(self.meta, STAMP_FIELDS)
        for key in self.scope_keys:
            pipe.hvals(key)
        pipe.hvals(self.suppressions_key)

    def from_replies(self, replies: list[Any]) -> ContextResponse:
        stamp, *rows, sups_raw = replies
        by_scope = {
            scope: [from_compact(orjson.loads(v)) for v in vals] for scope, vals in zip(self.scopes, rows, strict=True)
        }
        sups = [Suppression.model_validate_json(v) for v in sups_raw]
        if self.cache is not None:
            self.cache.store(self.user, (stamp[0], stamp[1]), by_scope, sups)
        return select(self.req, [c for scope in self.scopes for c in by_scope[scope]], self.when, sups)


def context_time(req: ContextRequest, at: datetime | str | None) -> datetime:
    check_id(req.tenant, Reason.MISSING_TENANT)
    check_id(req.user, Reason.MISSING_USER)
    when = parse_time(at) if at is not None else req.at
    if when is None:
        raise Rejected(Reason.MISSING_FIELD, "at: the time the context is for")
    return when


def outcome_of(raw: bytes | None) -> dict[str, Any] | None:
    """An op ledger entry: {"at", "outcome", "reason"} (older entries hold only the event time)."""
    if raw is None:
        return None
    text = raw.decode()
    if not text.startswith("{"):
        return {"at": text, "outcome": "applied", "reason": None}
    data = orjson.loads(text)
    return {"at": data.get("at"), "outcome": data.get("o", "applied"), "reason": data.get("r")}


class AsyncReader:
    """Reads of the deployment `base`: every call reads the namespace its pointer names at that
    moment, so `slotstream promote` switches the readers with its one write."""

    def __init__(self, client: aioredis.Redis, base: str, cache: ContextCache | None = None) -> None:
        self.r = client
        self.base = base
        self.pointer = deploy_pointer(base)
        self.keys = Keys(base)  # the namespace read last
        self.cache = cache

    def _follow(self, raw: bytes | str | None) -> bool:
        """Take the pointer's namespace; True when it is not the one read last."""
        name = parse_pointer(raw, self.base).namespace
        if name == self.keys.namespace:
            return False
        self.keys = Keys(name)
        if self.cache is not None:
            self.cache.clear()
        return True

    async def namespace(self) -> str:
        self._follow(await self.r.get(self.pointer))
        return self.keys.namespace

    async def _current(self) -> Keys:
        self._follow(await self.r.get(self.pointer))
        return self.keys

    async def context(self, req: ContextRequest, at: datetime | str | None = None) -> ContextResponse:
        # The pointer is read in the same round trip as the namespace read last (the usual case:
        # unchanged); when it names another one, the lookup starts again there.
        read = ContextRead(self.keys, req, at, self.cache)
        pipe = self.r.pipeline(transaction=False)
        pipe.get(self.pointer)
        if read.cached is not None:
            pipe.hmget(read.meta, STAMP_FIELDS)
        else:
            read.queue(pipe)
        pointer, *replies = await pipe.execute()
        if self._follow(pointer):
            return await self.context(req, at)
        if read.cached is None:
            return read.from_replies(replies)
        answer = read.from_cache(replies[0])
        if answer is not None:
            return answer
        pipe = self.r.pipeline(transaction=False)
        read.queue(pipe)
        return read.from_replies(await pipe.execute())

    async def record(self, tenant: str, user: str, record_id: str) -> Record | None:
        """A record by id, following the alias a deduplicated op left behind."""
        keys = await self._current()
        raw = await self.r.hget(keys.records(tenant, user), record_id)
        if raw is None:
            target = await self.r.hget(keys.aliases(tenant, user), record_id)
            raw = await self.r.hget(keys.records(tenant, user), target) if target else None
        return Record.model_validate_json(raw) if raw else None

    async def records_page(self, tenant: str, user: str, cursor: int, count: int) -> tuple[list[Record], int]:
        """One page of a user's records (HSCAN order; `cursor` 0 starts, a returned 0 is the end)."""
        keys = await self._current()
        cursor, page = await self._hscan(keys.records(tenant, user), cursor, max(1, min(count, PAGE_MAX)))
        return [Record.model_validate_json(v) for v in page.values()], cursor

    async def _hscan(self, key: str, cursor: int, count: int) -> tuple[int, dict[bytes, bytes]]:
        next_cursor, page = await self.r.hscan(key, cursor=cursor, count=count)
        return int(next_cursor), cast(dict[bytes, bytes], page)

    async def history(self, tenant: str, user: str, slot: str) -> list[Record]:
        keys = await self._current()
        ids = await self.r.lrange(keys.history(tenant, user, slot), 0, -1)
        if not ids:
            return []
        raws = await self.r.hmget(keys.records(tenant, user), ids)
        return [Record.model_validate_json(r) for r in raws if r]

    async def outcomes(self, tenant: str, user: str, op_ids: list[str]) -> dict[str, dict[str, Any] | None]:
        """Each op's outcome once reconciliation applied it (None: not applied yet)."""
        if not op_ids:
            return {}
        keys = await self._current()
        raws = cast(list[bytes | None], await self.r.hmget(keys.ledger(tenant, user), op_ids))
        return {op_id: outcome_of(raw) for op_id, raw in zip(op_ids, raws, strict=True)}

    async def turn_log(self, tenant: str, user: str, turn_id: str) -> dict[str, Any] | None:
        """What extraction made of a tracked turn: {"ops": [op ids], "refused": [reasons]}."""
        keys = await self._current()
        raw = await self.r.get(keys.turn(tenant, user, turn_id))
        return orjson.loads(raw) if raw else None

    async def export(self, tenant: str, user: str) -> AsyncIterator[dict[str, Any]]:
        """Everything held for the user, as JSON-ready rows: records (with their lineage), and
        suppressions (which keep a hash of a forgotten value, never the value)."""
        keys = await self._current()
        cursor = 0
        while True:
            cursor, page = await self._hscan(keys.records(tenant, user), cursor, PAGE_MAX)
            for raw in page.values():
                yield {"type": "record", "record": orjson.loads(raw)}
            if cursor == 0:
                break
        sups = cast(dict[bytes, bytes], await self.r.hgetall(keys.suppressions(tenant, user)))
        for sup in sups.values():
            yield {"type": "suppression", "suppression": orjson.loads(sup)}
        erased = cast(bytes | None, await self.r.hget(keys.meta(tenant, user), "erased_at"))
        if erased:
            yield {"type": "erased", "at": erased.decode()}

    async def ping(self) -> bool:
        return bool(await self.r.ping())

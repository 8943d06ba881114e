"""The read side over Redis, for a server's event loop (redis.asyncio): context lookups, a user's
memories, a slot's lineage, op outcomes and the export of everything held for a user.

The context is read as by `Engine.context` (ContextRead below) and selected by the same pure
function; nothing here writes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, cast

import orjson
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.exceptions import NoScriptError, RedisError

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.models import ContextRequest, ContextResponse, Record, check_id, parse_time
from slotstream.memory.selection import (
    ROWS,
    TOPIC_RELEVANCE,
    Candidate,
    DocFrequency,
    budget_certified,
    left_out_bound,
    prepare,
    relevance_weights,
    select,
    terms_of,
)
from slotstream.memory.semantics import relevance

from . import read_index
from .archive import Archived, ArchiveError, HistoryArchive, Segment, archived_records, full_lineage, slot_finder
from .codec import decode_ledger_entry, decode_suppression, decode_suppressions, decode_triples, lineage_ids
from .context_cache import STAMP_FIELDS, ContextCache
from .deployment import parse_pointer
from .keys import Keys, deploy_pointer
from .lua import SLOT_MOVE_PAUSE, SLOT_MOVE_PAUSE_MAX, ScriptText, slot_moving
from .quotas import QUOTA_SCRIPT, Riding
from .read_index import CONTEXT_SCRIPT, WHOLE_UP_TO, ReadStats, SmallScopes, per_list, word_key

PAGE_MAX = 200
# How long a read waits, asking again, while a hash slot it reads moves between cluster nodes
# (state/lua.py, the cluster guard): a slot moves in milliseconds, so a lookup rarely waits at
# all; past this the error is the caller's (the sidecar answers 503 redis_unavailable).
READ_SLOT_MOVE_WAIT = 5.0
WHOLE_ALWAYS = 1 << 62  # a row count no scope reaches: context.lua returns every row


class ContextRead:
    """One context lookup's reads, the same for the synchronous engine and the async reader (only
    the I/O differs): with a cache, first the user's write stamp alone; if the cached rows still
    hold, nothing more. Otherwise, for scopes that were small at the user's last lookup
    (`whole_first`, from SmallScopes), a whole read in a transaction (`queue_whole`); for the
    others one script call (context.lua): small scopes whole, large ones through the read index
    (state/read_index.py) with a certificate. An uncertified answer is read again whole."""

    def __init__(
        self,
        keys: Keys,
        req: ContextRequest,
        at: datetime | str | None,
        cache: ContextCache | None,
        stats: ReadStats | None = None,
        whole_up_to: int = WHOLE_UP_TO,
        small: SmallScopes | None = None,
    ) -> None:
        self.req, self.when, self.cache, self.stats = req, context_time(req, at), cache, stats
        self.user = (req.tenant, req.user)
        self.scopes = req.scopes()
        self.keys = keys
        self.meta = keys.meta(req.tenant, req.user)
        self.prefix = keys.prefix(req.tenant, req.user)
        self.cached = cache.candidate(self.user, self.scopes) if cache is not None else None
        self.terms = terms_of(req)
        self.words = sorted(self.terms.query)
        self.topics = sorted(self.terms.topics)
        # the index lists a row used only when related by meaning under its topics and areas: the
        # request's are read (without text, such a row is not filtered by meaning: no list needed)
        self.meant = sorted(relevance.looked_up_under(self.terms.meaning)) if req.text else []
        # ... and of the rows those lists give, the script leaves out those that cannot be related
        # (explain reads whole: every row's fate is reported)
        self.screen = relevance.screen_request(self.terms.meaning) if req.text else ([], [])
        self.threshold, self.small = whole_up_to, small
        # explain lists every row's fate: only a whole read has them all
        self.whole_up_to = WHOLE_ALWAYS if req.explain else whole_up_to
        self.forced = False  # reading whole after an uncertified answer (counted as that)

    @cached_property
    def whole_first(self) -> bool:
        """Read whole without the script: what the script would do, as far as is known. (Asked
        only when the rows are read: a lookup the cache answers never needs it.)"""
        return self.req.explain or (self.small is not None and self.small.small(self.user, self.scopes))

    def from_cache(self, stamp: Sequence[bytes | str | None]) -> ContextResponse | None:
        """The answer from the cached rows if `stamp` (read just now) is theirs, else None."""
        if self.cached is None or self.cache is None or tuple(stamp) != self.cached.stamp:
            return None
        self.cache.hit()
        rows = [c for scope in self.scopes for c in self.cached.scopes[scope]]
        if not self.cached.prepared:  # asked again unchanged: worth preparing for the next times
            prepare(c for scope_rows in self.cached.scopes.values() for c in scope_rows)
            self.cached.prepared = True
        return select(self.req, rows, self.when, self.cached.suppressions, terms=self.terms)

    def args(self, whole: bool = False) -> list[Any]:
        """context.lua's arguments (its one key is `self.meta`)."""
        word_keys = [word_key(word) for word in self.words]
        self.forced = whole
        return [
            self.prefix,
            WHOLE_ALWAYS if whole else self.whole_up_to,
            per_list(self.req.max_items),
            len(self.scopes),
            *self.scopes,
            len(word_keys),
            *word_keys,
            len(self.topics),
            *self.topics,
            len(self.topics),
            *self.topics,
            len(self.meant),
            *self.meant,
            len(self.screen[0]),
            *self.screen[0],
            len(self.screen[1]),
            *self.screen[1],
            relevance.SCREEN_AGREEMENT,
            read_index.GATED_READ,
        ]

    def queue_whole(self, pipe: Any) -> None:
        """The commands of a whole read without the script, for a transaction (one snapshot, like
        the script's): the write stamp, whether rsup is complete, rsup, and each scope's rows."""
        tenant, user = self.user
        pipe.hmget(self.meta, "version", "written", "rsup")
        pipe.hgetall(self.keys.read_suppressions(tenant, user))
        for scope in self.scopes:
            pipe.hvals(self.keys.active(tenant, user, scope))

    def from_whole(self, replies: Sequence[Any]) -> ContextResponse | None:
        """The answer from `queue_whole`'s replies (after the transaction's own); None for a user
        written before rsup existed, whose suppressions only the script filters (read it instead)."""
        (version, written, complete), sups_held, *rows = replies
        sups_raw = [part for pair in sups_held.items() for part in pair]
        if version is not None and complete is None:
            self._note_size(None)
            return None
        total = sum(len(scope_rows) for scope_rows in rows)
        by_scope = {scope: ROWS.decode(_joined(values)) for scope, values in zip(self.scopes, rows, strict=True)}
        how = "whole_small" if total <= self.whole_up_to else "whole_grown"
        return self._whole_answer(version, written, total, how, sups_raw, by_scope)

    def from_reply(self, reply: list[Any]) -> ContextResponse | None:
        """The answer from context.lua's reply; None when an indexed read is not certified (read
        again whole)."""
        version, written, mode, total, lists, sups_raw, *rows = reply
        by_scope = {scope: ROWS.decode(joined) for scope, joined in zip(self.scopes, rows, strict=True)}
        if mode in (b"whole", "whole"):
            how = "whole_small" if total <= self.whole_up_to else "whole_unindexed"
            return self._whole_answer(version, written, int(total), how, sups_raw, by_scope)
        self._note_size(int(total))
        sups = decode_suppressions(sups_raw)
        candidates = [c for scope in self.scopes for c in by_scope[scope]]
        frequency, bound = self._left_out(int(total), lists)
        answer = select(
            self.req, candidates, self.when, sups, frequency=frequency, considered=int(total), terms=self.terms
        )
        if not budget_certified(answer, self.req, bound):
            if self.stats is not None:
                self.stats.count("uncertified", len(candidates))
            return None
        if self.stats is not None:
            self.stats.count("indexed", len(candidates))
        return answer

    def _whole_answer(
        self,
        version: bytes | str | None,
        written: bytes | str | None,
        total: int,
        how: str,
        sups_raw: Sequence[bytes | str],
        by_scope: dict[str, list[Candidate]],
    ) -> ContextResponse:
        """Every row of the scopes read: the answer is its own certificate."""
        self._note_size(total)
        sups = decode_suppressions(sups_raw)
        candidates = [c for scope in self.scopes for c in by_scope[scope]]
        if self.stats is not None and not self.forced:
            self.stats.count(how, len(candidates))
        if self.cache is not None:
            self.cache.store(self.user, (version or None, written or None), by_scope, sups)
        return select(self.req, candidates, self.when, sups, terms=self.terms)

    def _note_size(self, total: int | None) -> None:
        """What the next lookup of these scopes reads first (None: the script, whatever the size)."""
        if self.small is not None:
            self.small.note(self.user, self.scopes, total is not None and total <= self.threshold)

    def _left_out(self, total: int, lists: list[Any]) -> tuple[DocFrequency, float | None]:
        """The whole read's word frequencies, and the most a row left out can score: a row not read
        is bounded by where each list was cut (left_out_bound, worked out here again with this
        side's weights), a row read but not returned by the script's bound."""

        def value(raw: bytes | str) -> float | None:
            return float(raw) if raw not in (b"", "") else None

        script_bound, cuts, sizes = value(lists[0]), [value(raw) for raw in lists[1]], lists[2]
        frequency = DocFrequency({word: int(size) for word, size in zip(self.words, sizes, strict=True)}, total)
        weights = relevance_weights(self.words, frequency)
        n_words, n_topics = len(self.words), len(self.topics)
        word_cuts = [(cuts[1 + k], weights.get(word, 0.0)) for k, word in enumerate(self.words)]
        topic_cuts = [(cut, TOPIC_RELEVANCE) for cut in cuts[1 + n_words : 1 + n_words + n_topics]]
        topic_cuts += [(cut, TOPIC_RELEVANCE / 2) for cut in cuts[1 + n_words + n_topics : 1 + n_words + 2 * n_topics]]
        topic_cuts += [(cut, 1.0) for cut in cuts[1 + n_words + 2 * n_topics :]]  # meaning lists: up to all of it
        unread = left_out_bound(cuts[0], word_cuts, topic_cuts)
        # the script estimates in the same order of operations; the margin only guards rounding
        read_not_returned = None if script_bound is None else script_bound + 1e-9
        bounds = [b for b in (unread, read_not_returned) if b is not None]
        return frequency, max(bounds) if bounds else None


def _joined(values: Sequence[bytes | str]) -> bytes:
    """A scope's HVALS as one JSON array, decoded in one call (as the script joins them)."""
    try:
        return b"[" + b",".join(cast(Sequence[bytes], values)) + b"]"
    except TypeError:  # a client that decodes replies gives str
        return b"[" + b",".join(v if isinstance(v, bytes) else v.encode() for v in values) + b"]"


def context_time(req: ContextRequest, at: datetime | str | None) -> datetime:
    check_id(req.tenant, Reason.MISSING_TENANT)
    check_id(req.user, Reason.MISSING_USER)
    when = parse_time(at) if at is not None else req.at
    if when is None:
        raise Rejected(Reason.MISSING_FIELD, "at: the time the context is for")
    return when


@dataclass(frozen=True)
class UserSummary:
    """A user as the inspector lists them: records stored (every version), slots, last write."""

    user: str
    records: int
    slots: int
    last_write: datetime | None
    erased: bool


def _server_time(raw: bytes | str | None) -> datetime | None:
    """The `written` stamp apply.lua leaves in a user's meta ("<seconds>.<microseconds>" of the
    server's clock) as a time; None if absent or unreadable."""
    if raw is None:
        return None
    seconds, _, micros = (raw.decode() if isinstance(raw, bytes) else raw).partition(".")
    try:
        return datetime.fromtimestamp(int(seconds) + int(micros or 0) / 1e6, UTC)
    except ValueError:
        return None


RECORDS_SCRIPT = ScriptText.named("records.lua")


def outcome_of(op_id: str, raw: bytes | None) -> dict[str, Any] | None:
    """An op ledger entry: {"at", "outcome", "reason"} (older entries hold only the event time)."""
    if raw is None:
        return None
    at, outcome, reason, _ = decode_ledger_entry(op_id, raw)
    return {"at": at, "outcome": outcome, "reason": reason}


ARCHIVE_CURSOR = 1 << 51  # a listing's cursors from here on page through the archived records (above every
# cursor records.lua gives, and exact in a JavaScript number)


class AsyncReader:
    """Reads of the deployment `base`: every call reads the namespace its pointer names at that
    moment, so `slotstream promote` switches the readers with its one write."""

    def __init__(
        self,
        client: aioredis.Redis,
        base: str,
        cache: ContextCache | None = None,
        archive: HistoryArchive | None = None,
    ) -> None:
        """`archive`: where users' oldest history is (state/archive.py); read in a thread, since
        the archive's reads block."""
        self.r = client
        self.archive = archive
        self.base = base
        self.pointer = deploy_pointer(base)
        self.keys = Keys(base)  # the namespace read last
        self.cache = cache
        self.stats = ReadStats()
        self.small = SmallScopes()
        self.cluster = isinstance(client, AsyncRedisCluster)
        # on a cluster the context script goes with the guard that refuses it while its slot moves
        self.context_script = CONTEXT_SCRIPT.guarded() if self.cluster else CONTEXT_SCRIPT
        self.records_script = RECORDS_SCRIPT.guarded() if self.cluster else RECORDS_SCRIPT

    def _follow(self, raw: bytes | str | None) -> bool:
        """Take the pointer's namespace; True when it is not the one read last."""
        name = parse_pointer(raw, self.base).namespace
        if name == self.keys.namespace:
            return False
        self.keys = Keys(name)
        self.small.clear()
        if self.cache is not None:
            self.cache.clear()
        return True

    async def namespace(self, riding: Riding | None = None) -> str:
        """The namespace the pointer names now; `riding` is sent in the same round trip."""
        if riding is None:
            self._follow(await self.r.get(self.pointer))
            return self.keys.namespace
        (pointer,) = await self._execute(lambda pipe: pipe.get(self.pointer), riding=riding)
        self._follow(pointer)
        return self.keys.namespace

    async def _current(self) -> Keys:
        self._follow(await self.r.get(self.pointer))
        return self.keys

    async def context(
        self, req: ContextRequest, at: datetime | str | None = None, riding: Riding | None = None
    ) -> ContextResponse:
        # The pointer is read in the same round trip as the namespace read last (the usual case:
        # unchanged); when it names another one, the lookup starts again there. `riding` (the
        # caller's quota decision) goes first in that round trip and is settled before the rest.
        read = ContextRead(self.keys, req, at, self.cache, self.stats, small=self.small)
        # on a cluster the pointer's hash slot is not the user's, and a transaction holds one slot;
        # a lookup the cache may answer asks first for the stamp alone
        whole_first = read.cached is None and not self.cluster and read.whole_first

        def first_trip(pipe: Any) -> None:
            pipe.get(self.pointer)
            if read.cached is not None:
                pipe.hmget(read.meta, STAMP_FIELDS)
            elif whole_first:
                read.queue_whole(pipe)
            else:
                self._queue_read(pipe, read)

        pointer, *replies = await self._execute(first_trip, transaction=whole_first, riding=riding)
        if self._follow(pointer):
            return await self.context(req, at)
        answer: ContextResponse | None = None
        scripted = False  # the script was asked already (its answer, if any, was not certified)
        if read.cached is not None:
            answer = read.from_cache(replies[0])
            if answer is not None:
                return answer
            if not self.cluster and read.whole_first:
                answer = await self._read_whole(read)
        elif whole_first:
            answer = read.from_whole(replies)
        else:
            answer, scripted = read.from_reply(replies[0]), True
        if answer is None and not scripted:  # not read yet, or written before rsup existed
            answer = read.from_reply(await self._read(read))
        if answer is None:  # not certified: read the scopes whole
            read.forced = True
            if not self.cluster:
                answer = await self._read_whole(read)
            if answer is None:  # (or written before rsup existed: the script filters its suppressions)
                answer = read.from_reply(await self._read(read, whole=True))
        assert answer is not None  # a whole read is always its own certificate
        return answer

    async def _read_whole(self, read: ContextRead) -> ContextResponse | None:
        return read.from_whole(await self._execute(read.queue_whole, transaction=True))

    def _queue_read(self, pipe: Any, read: ContextRead, whole: bool = False) -> None:
        pipe.evalsha(self.context_script.sha, 1, read.meta, *read.args(whole))

    async def _read(self, read: ContextRead, whole: bool = False) -> list[Any]:
        replies = await self._execute(lambda pipe: self._queue_read(pipe, read, whole))
        return cast(list[Any], replies[0])

    async def _execute(
        self, build: Callable[[Any], None], transaction: bool = False, riding: Riding | None = None
    ) -> list[Any]:
        """Build and execute a pipeline, loading the scripts first if the server does not have them
        (a restart or a flush dropped them), and again while a hash slot it reads is moving (up to
        READ_SLOT_MOVE_WAIT); the pipeline only reads, so sending it again is safe. `riding` goes
        first and is settled before anything is returned; it is not sent again once decided (a
        quota decision takes its cost when it is made)."""
        reloaded = False
        loop = asyncio.get_running_loop()
        deadline, pause = loop.time() + READ_SLOT_MOVE_WAIT, SLOT_MOVE_PAUSE
        while True:
            pipe = self.r.pipeline(transaction=transaction)
            if riding is not None:
                riding.queue(pipe)
            build(pipe)
            try:
                replies: list[Any] = await pipe.execute(raise_on_error=False)
            except RedisError as err:
                # the cluster client's own retries used up: nothing decided is lost by asking again
                if riding is not None or not slot_moving(err) or loop.time() >= deadline:
                    raise
                await asyncio.sleep(pause)
                pause = min(pause * 2, SLOT_MOVE_PAUSE_MAX)
                continue
            if riding is not None:
                decided = replies.pop(0)
                if not isinstance(decided, NoScriptError):
                    riding.settle(decided)  # an error reply too: the decision's owner says what it means
                    riding = None
            lost = riding is not None or any(isinstance(reply, NoScriptError) for reply in replies)
            if lost:
                if reloaded:
                    raise NoScriptError("the read scripts are still not loaded")
                reloaded = True
                for script in (self.context_script, QUOTA_SCRIPT, self.records_script):
                    await self.r.script_load(script.source)
                continue
            moving = any(isinstance(reply, Exception) and slot_moving(reply) for reply in replies)
            if moving and loop.time() < deadline:
                await asyncio.sleep(pause)
                pause = min(pause * 2, SLOT_MOVE_PAUSE_MAX)
                continue
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
            return replies

    async def record(self, tenant: str, user: str, record_id: str) -> Record | None:
        """A record by id, following the alias a deduplicated op left behind."""
        keys = await self._current()
        found = await self._stored(keys, tenant, user, "ids", record_id)
        if record_id not in found:
            raw = await self.r.hget(keys.aliases(tenant, user), record_id)
            if raw:
                target = raw.decode() if isinstance(raw, bytes) else raw
                return (await self._stored(keys, tenant, user, "ids", target)).get(target)
            archived = await self._archived(keys, tenant, user)
            if archived is not None:
                if record_id in archived.aliases and record_id not in archived.records:
                    record_id = archived.aliases[record_id]  # (an alias archived with its record)
                    found = await self._stored(keys, tenant, user, "ids", record_id)
                if record_id not in found:
                    found = archived_records(archived, [record_id], tenant, user)
        return found.get(record_id)

    async def _archived(self, keys: Keys, tenant: str, user: str) -> Archived | None:
        """The user's archive read whole; None when they have none. ArchiveError: it cannot be
        read now, or this reader has no archive while the user's history was archived."""
        positions = cast(list[bytes], await self.r.lrange(keys.archive(tenant, user), 0, -1))
        if not positions:
            return None
        if self.archive is None:
            raise ArchiveError(f"{(tenant, user)}'s oldest history is archived, and this reader was given no archive")
        raws = await asyncio.to_thread(self.archive.read, tenant, user, positions)
        return Archived.of(Segment.decode(raw) for raw in raws)

    async def _stored(self, keys: Keys, tenant: str, user: str, *args: Any) -> dict[str, Record]:
        """Stored records, each whole (records.lua: a tail comes with its row)."""
        reply = await self._script(self.records_script, keys.meta(tenant, user), keys.prefix(tenant, user), *args)
        return decode_triples(reply[1:], tenant, user)

    async def _script(self, script: ScriptText, key: str, *args: Any) -> Any:
        replies = await self._execute(lambda pipe: pipe.evalsha(script.sha, 1, key, *args))
        return replies[0]

    async def records_page(self, tenant: str, user: str, cursor: int, count: int) -> tuple[list[Record], int]:
        """One page of a user's records (HSCAN order; `cursor` 0 starts, a returned 0 is the end)."""
        keys = await self._current()
        return await self._records_page(keys, tenant, user, cursor, max(1, min(count, PAGE_MAX)))

    async def _records_page(
        self, keys: Keys, tenant: str, user: str, cursor: int, count: int
    ) -> tuple[list[Record], int]:
        """Redis's records (records.lua "scan"), then the archived ones that Redis does not hold,
        in id order (cursors from ARCHIVE_CURSOR on: ARCHIVE_CURSOR + how many were passed)."""
        if cursor < ARCHIVE_CURSOR:
            reply = await self._script(
                self.records_script, keys.meta(tenant, user), keys.prefix(tenant, user), "scan", cursor, count
            )
            after = int(reply[0])
            if after == 0 and await self.r.exists(keys.archive(tenant, user)):
                after = ARCHIVE_CURSOR
            return list(decode_triples(reply[1:], tenant, user).values()), after
        archived = await self._archived(keys, tenant, user)
        if archived is None:
            return [], 0
        ids = sorted(archived.records)
        first = cursor - ARCHIVE_CURSOR
        page = ids[first : first + count]
        # a record a write brought back from the archive is Redis's, and listed there
        held = await self._stored(keys, tenant, user, "ids", *page) if page else {}
        out = archived_records(archived, [rid for rid in page if rid not in held], tenant, user)
        after = first + len(page)
        return list(out.values()), ARCHIVE_CURSOR + after if after < len(ids) else 0

    async def history(self, tenant: str, user: str, slot: str) -> list[Record]:
        keys = await self._current()
        pipe = self.r.pipeline(transaction=not self.cluster)  # one hash slot on a cluster either way
        pipe.hget(keys.lineage(tenant, user), slot)
        pipe.lrange(keys.history(tenant, user, slot), 0, -1)
        pipe.hget(keys.slots(tenant, user), slot)
        joined, listed, live = await pipe.execute()
        ids = lineage_ids(joined, listed, live)
        archived = await self._archived(keys, tenant, user)
        if archived is None:
            held = await self._stored(keys, tenant, user, "ids", *ids) if ids else {}
            return [held[i] for i in ids if i in held]
        older = archived.lineage.get(slot, [])
        held = await self._stored(keys, tenant, user, "ids", *ids, *older) if ids or older else {}
        ids = full_lineage(slot, older, ids, slot_finder(held, archived, tenant, user))
        held.update(archived_records(archived, [i for i in ids if i not in held], tenant, user))
        return [held[i] for i in ids if i in held]

    async def live(self, tenant: str, user: str, slot: str) -> list[Record]:
        """The records a slot holds now (its live ones, as reconciliation loads them)."""
        keys = await self._current()
        raw = await self.r.hget(keys.slots(tenant, user), slot)
        ids = orjson.loads(raw) if raw else []
        if not ids:
            return []
        held = await self._stored(keys, tenant, user, "ids", *ids)
        return [held[i] for i in ids if i in held]

    async def outcomes(self, tenant: str, user: str, op_ids: list[str]) -> dict[str, dict[str, Any] | None]:
        """Each op's outcome once reconciliation applied it (None: not applied yet)."""
        if not op_ids:
            return {}
        keys = await self._current()
        raws = cast(list[bytes | None], await self.r.hmget(keys.ledger(tenant, user), op_ids))
        return {op_id: outcome_of(op_id, raw) for op_id, raw in zip(op_ids, raws, strict=True)}

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
            page, cursor = await self._records_page(keys, tenant, user, cursor, PAGE_MAX)
            for rec in page:
                yield {"type": "record", "record": rec.model_dump(mode="json")}
            if cursor == 0:
                break
        sups = cast(dict[bytes, bytes], await self.r.hgetall(keys.suppressions(tenant, user)))
        for key, sup in sups.items():
            yield {"type": "suppression", "suppression": decode_suppression(key, sup).model_dump(mode="json")}
        erased = cast(bytes | None, await self.r.hget(keys.meta(tenant, user), "erased_at"))
        if erased:
            yield {"type": "erased", "at": erased.decode()}

    async def users(self, tenant: str, prefix: str, cap: int) -> tuple[list[UserSummary], bool]:
        """The tenant's users whose id starts with `prefix`, by id, with their counts and last
        write: at most `cap` of them, and whether more matched. A SCAN of the keyspace (every
        master of a cluster): an operator's look, not a request path."""
        keys = await self._current()
        found: set[str] = set()
        more = False
        async for key in self.r.scan_iter(match=keys.tenant_user_metas(tenant, prefix), count=1000):
            user = keys.user_of_meta(key.decode() if isinstance(key, bytes) else str(key), tenant)
            if user is None:
                continue
            if len(found) == cap:
                more = True
                break
            found.add(user)
        users = sorted(found)
        summaries: list[UserSummary] = []
        for start in range(0, len(users), 200):
            batch = users[start : start + 200]
            async with self.r.pipeline(transaction=False) as pipe:
                for user in batch:
                    pipe.hlen(keys.records(tenant, user))
                    pipe.hlen(keys.slots(tenant, user))
                    pipe.hmget(keys.meta(tenant, user), ["written", "erased_at"])
                replies = await pipe.execute()
            for n, user in enumerate(batch):
                versions, slots, (written, erased) = replies[3 * n : 3 * n + 3]
                summaries.append(
                    UserSummary(
                        user=user,
                        records=int(versions or 0),
                        slots=int(slots or 0),
                        last_write=_server_time(written),
                        erased=bool(erased),
                    )
                )
        return summaries, more

    async def user_exists(self, tenant: str, user: str) -> bool:
        """Has anything ever been applied for the user (their meta hash, kept after an erasure)?"""
        keys = await self._current()
        return bool(await self.r.exists(keys.meta(tenant, user)))

    async def ping(self) -> bool:
        return bool(await self.r.ping())

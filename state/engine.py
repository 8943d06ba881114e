"""The engine: validate -> load (one round trip) -> reconcile (pure) -> apply (one atomic script).

`Engine.apply` / `apply_many` is the write API of the processors and the sidecar, `context` the
read API (one round trip, payload bounded by the active records in the request's scopes),
`history` the lineage of a slot. With a `HistoryArchive`, a user's oldest retired versions leave
Redis for it (state/archive.py), and every read here puts them back in.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

import orjson
import redis

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.models import (
    LIVE_STATUSES,
    SELECTABLE_STATUSES,
    AnyCommand,
    Change,
    ContextRequest,
    ContextResponse,
    OpIn,
    Outcome,
    Record,
    Suppression,
    iso,
    owner,
    parse_time,
    slot_key,
    to_ms,
)
from slotstream.memory.reconcile import (
    Needs,
    Transition,
    UserView,
    current_of,
    needs_for,
    reconcile,
)
from slotstream.memory.validation import op_id_for, validate_op

from .apply_args import KnownState, transition_args
from .archive import (
    SEGMENT_RECORDS,
    Archived,
    ArchiveError,
    HistoryArchive,
    Segment,
    archived_records,
    full_lineage,
    slot_finder,
    split_lineage,
)
from .codec import (
    COLD_ID,
    cold_entries,
    cold_records,
    decode_changes,
    decode_ledger_entry,
    decode_record,
    decode_row,
    decode_suppression,
    decode_triples,
    encode_cold,
    encode_record,
    lineage_ids,
    written_now,
    written_with_row,
)
from .context_cache import STAMP_FIELDS, ContextCache
from .errors import ConcurrentUpdate
from .keys import Keys
from .lua import ChunkedWrites, LuaScript, run_pipeline, script_source
from .read_index import CONTEXT_SCRIPT, INDEX_ABOVE, WHOLE_UP_TO, ReadStats, SmallScopes, index_entry
from .reader import ContextRead

_log = logging.getLogger(__name__)

MAX_RETRIES = 5
# the defaults of the settings of the same names (slotstream/config/settings.py)
CHANGE_LOG_MAX = 200
LEDGER_WINDOW_S = 7 * 86_400.0
HISTORY_HOT = 0  # retired versions of a slot kept whole in the user's records (the rest go cold)
SETTLE_AFTER = 16  # records retired since a user was last settled before it is settled again
ARCHIVE_AFTER = 64  # records the cold history holds before settling moves them to the archive
# a load lists the user's slot keys when there are at most this many (the view cache then knows
# which slots are empty without asking); above it a new slot is loaded like any other
LISTED_SLOTS_MAX = 1000
# users per apply pipeline: Redis applies a chunk while the next is reconciled, and the batch waits
# only for the last one's scripts (16 and 64 measured within the noise of each other; 16 waits less)
WRITE_CHUNK_USERS = 16


@dataclass(slots=True)
class ApplyResult:
    op_id: str
    outcome: Outcome
    reason: str | None = None
    detail: str = ""
    tenant: str | None = None
    user: str | None = None
    record_ids: list[str] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    # (record id, "expire" | "review_due", due epoch ms or None when no longer due) for the expiry index
    due: list[tuple[str, str, int | None]] = field(default_factory=list)
    # a forget by record id, as forgets by match (Transition.as_matches): kept for replays
    as_matches: list[dict[str, Any]] = field(default_factory=list)


User = tuple[str, str]  # (tenant, user)


@dataclass(slots=True)
class _Staged:
    """One user's part of a round: the ops' outcomes and what to write."""

    user: User
    version: int
    view: UserView
    outcomes: list[tuple[_Pending, ApplyResult]] = field(default_factory=list)
    op_ids: list[str] = field(default_factory=list)  # the ops to write, in order
    args: list[Any] = field(default_factory=list)  # their transitions, as apply.lua reads them
    known: KnownState | None = None  # what the view tells the script of the stored state


@dataclass(slots=True)
class _Pending:
    index: int
    op_id: str
    at: datetime
    parsed: Record | AnyCommand


def _script(name: str) -> str:
    return script_source(name)


class Engine:
    # Send apply.lua each live list the view holds whole, and which scopes the user's scope list
    # holds, so the script neither reads the stored list nor adds a known scope again. (False: the
    # script works every list and scope out itself, as it does for the ones the view does not hold.)
    client_writes_live_lists = True

    def __init__(
        self,
        client: redis.Redis,
        namespace: str = "ss",
        context_cache: ContextCache | None = None,
        read_whole_up_to: int = WHOLE_UP_TO,
        index_above: int = INDEX_ABOVE,
        change_log_max: int = CHANGE_LOG_MAX,
        ledger_window_s: float = LEDGER_WINDOW_S,
        history_hot: int | None = HISTORY_HOT,
        settle_after: int = SETTLE_AFTER,
        archive: HistoryArchive | None = None,
        archive_after: int = ARCHIVE_AFTER,
    ) -> None:
        """`context_cache`: keep parsed read-model rows between context lookups (a server's read
        path; see state/context_cache.py). Without it every lookup reads the rows.
        `read_whole_up_to`: a lookup reads its scopes whole up to this many rows, through the read
        index above it (state/read_index.py). `index_above`: writes keep a scope's read index once
        it holds more rows than this. `change_log_max`: change-log entries kept per user.
        `ledger_window_s`: seconds of event time the op ledger remembers an op for (0: for ever).
        `history_hot`: retired versions of a slot kept whole in the user's records, its newest;
        older ones move into the user's cold history (state/codec.py) once `settle_after` records
        were retired since the user was last settled (`settle`). None: every version stays whole.
        `archive`: where a user's cold history goes once it holds `archive_after` records
        (state/archive.py); None: it stays in Redis. An engine reading a user whose history was
        archived needs the archive too (ArchiveError without it)."""
        self.read_whole_up_to = read_whole_up_to
        self.index_above = index_above
        self.change_log_max = change_log_max
        self.ledger_window_ms = int(ledger_window_s * 1000)
        self.history_hot = history_hot
        self.settle_after = settle_after if history_hot is not None else 0
        self.r = client
        self.keys = Keys(namespace)
        self.context_cache = context_cache
        self._load = LuaScript(client, _script("load.lua"))
        self._apply = LuaScript(client, _script("apply.lua"))
        self._records = LuaScript(client, _script("records.lua"))
        self._context = LuaScript(client, CONTEXT_SCRIPT.source)
        self._scripts = [self._load, self._apply, self._records]
        self.read_stats = ReadStats()
        self.small_scopes = SmallScopes()  # whose next lookup reads whole without the script
        self.users_loaded = 0  # load round trips' users, over this engine's life (the apply bench prints it)
        self.settles_failed = 0  # settling calls a Redis error cut short, over this engine's life
        self.archive = archive
        self.archive_after = max(archive_after, 1)
        self.archive_failures = 0  # settles whose archive write failed (their records stayed in Redis)
        self.segments_written = 0
        self._cache = ViewCache()
        # a cluster client's chunks are sent and awaited here (state/lua.py, ChunkedWrites)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="slotstream-apply")

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
                results.append(
                    ApplyResult(
                        op_id=f"#{i}",
                        outcome=Outcome.REJECTED,
                        reason=Reason.INVALID_FIELD.value,
                        detail=str(err).splitlines()[0],
                    )
                )
                continue
            op_id = op_id_for(op)
            try:
                _, parsed = validate_op(op, op_id)
            except Rejected as rej:
                results.append(
                    ApplyResult(op_id=op_id, outcome=Outcome.REJECTED, reason=rej.reason.value, detail=rej.detail)
                )
                continue
            results.append(None)
            by_user.setdefault(owner(parsed), []).append(_Pending(i, op_id, op.at, parsed))

        pending = by_user
        try:
            for _ in range(MAX_RETRIES):
                if not pending:
                    break
                pending = self._apply_round(pending, results)
        except BaseException:
            # views are reconciled in place before they are written: after a failure (Redis gone
            # mid-batch, say) none of them is known to match what Redis holds
            self._cache.clear()
            raise
        if pending:
            raise ConcurrentUpdate(f"state kept changing under {len(pending)} users; gave up after {MAX_RETRIES} tries")
        done = [r for r in results if r is not None]
        self._due_of_duplicates([r for r in done if r.outcome == Outcome.DUPLICATE and r.tenant and r.user])
        return done

    def _due_of_duplicates(self, duplicates: list[ApplyResult]) -> None:
        """A duplicate's expiry entries, from the records its first apply wrote (its ledger entry
        lists them) as they are now. The first delivery's entries may never have been written: the
        index is written after the apply, and a crash or an outage in between leaves a redelivery
        that finds every op applied. Two round trips, for duplicates only."""
        if not duplicates:
            return
        keys = self.keys
        pipe = self.r.pipeline(transaction=False)
        for res in duplicates:
            pipe.hget(keys.ledger(res.tenant or "", res.user or ""), res.op_id)
        written: list[list[str]] = []
        for res, raw in zip(duplicates, pipe.execute(), strict=True):
            # entries written before the list, and those of an erased user, have none
            written.append(decode_ledger_entry(res.op_id, raw)[3] if raw else [])

        def build(pipe: Any) -> None:
            for res, ids in zip(duplicates, written, strict=True):
                if ids:
                    self._records_call(res.tenant or "", res.user or "", ["ids", *ids], pipe)

        stored = iter(run_pipeline(self.r, build, self._scripts))
        for res, ids in zip(duplicates, written, strict=True):
            if not ids:
                continue
            held = decode_triples(next(stored)[1:], res.tenant or "", res.user or "")
            for record_id in ids:
                res.due += _due_of(record_id, held.get(record_id))

    def _needs(self, items: list[_Pending]) -> Needs:
        total = Needs()
        for p in items:
            n = needs_for(p.parsed)
            total.slots |= n.slots
            total.ids |= n.ids
            total.with_history |= n.with_history
            total.attrs += n.attrs
        return total

    def _apply_round(
        self, by_user: OrderedDict[User, list[_Pending]], results: list[ApplyResult | None]
    ) -> OrderedDict[User, list[_Pending]]:
        """Load what is not cached, reconcile every user's ops, apply each user's part in one
        script; returns the users whose state moved underneath (to be done again)."""
        users = list(by_user)
        needs = {u: self._needs(by_user[u]) for u in users}
        # Reconciliation is the single writer of a user, so the view it last wrote is usually
        # still current: reuse it and let the apply script's version check catch the exceptions.
        self._load_views([u for u in users if not self._cache.covers(u, needs[u])], by_user, needs)
        # Reconcile in chunks of users; each chunk's writes go out to Redis while the next chunk is
        # reconciled here (users are independent: no chunk waits on another).
        staged: list[_Staged] = []
        users_of_calls: list[list[int]] = []  # per call sent, the positions in `staged` of its users
        with ChunkedWrites(self.r, self._scripts, self._writer) as writes:
            for first in range(0, len(users), WRITE_CHUNK_USERS):
                chunk = [self._reconcile_user(u, by_user[u]) for u in users[first : first + WRITE_CHUNK_USERS]]
                commands, users_of_commands = self._write_commands(chunk)
                users_of_calls += [[len(staged) + k for k in of_command] for of_command in users_of_commands]
                staged += chunk
                writes.send(commands)
            replies = writes.replies()  # every write settled before any is judged
        user_replies: list[Any] = [None] * len(staged)  # None: the user had nothing to write
        for positions, reply in zip(users_of_calls, replies, strict=True):
            for position, user_reply in zip(positions, reply, strict=True):
                user_replies[position] = user_reply
        retry: OrderedDict[User, list[_Pending]] = OrderedDict()
        to_index: list[tuple[User, str]] = []
        to_settle: list[User] = []
        for stage, reply in zip(staged, user_replies, strict=True):
            if reply is not None and int(reply[0]) < 0:
                # another writer moved first, or an op was applied before: reload and redo
                self._cache.drop(stage.user)
                retry[stage.user] = [p for p, _ in stage.outcomes]
                continue
            if stage.op_ids:
                self._cache.advance(stage.user, stage.view, int(reply[2]), stage.known, int(reply[4]))
                to_index += [(stage.user, scope.decode()) for scope in reply[3]]
                if int(reply[5]):
                    to_settle.append(stage.user)
            for p, res in stage.outcomes:
                results[p.index] = res
        if to_index:
            self.build_indexes(to_index)
        if to_settle:
            try:
                self.settle(to_settle)
            except redis.RedisError as err:
                # the ops are written and answered; the move waits for the next write that retires a
                # record (meta keeps the count) or for `slotstream state compact`, and every reader
                # finds the records where they are meanwhile
                self.settles_failed += 1
                _log.warning("moving %d users' retired records to their cold history failed: %s", len(to_settle), err)
        return retry

    def build_indexes(self, scopes: list[tuple[User, str]]) -> int:
        """Give each (user, scope) its read index, from the scope's rows (apply.lua names the scopes
        that have grown past `index_above` without one). Two round trips: the rows with the version
        they were read at, then one build call each, which indexes nothing when the user was written
        in between (a later write names the scope again). Returns the scopes indexed."""
        pipe = self.r.pipeline(transaction=False)
        for (tenant, user), scope in scopes:
            pipe.hget(self.keys.meta(tenant, user), "version")
            pipe.hgetall(self.keys.active(tenant, user, scope))
        read = pipe.execute()
        calls: list[tuple[str, list[Any]]] = []
        for k, ((tenant, user), scope) in enumerate(scopes):
            version, rows = read[2 * k], read[2 * k + 1]
            args: list[Any] = ["build", self.keys.prefix(tenant, user), int(version or 0), scope]
            for rid, row in rows.items():
                args += (rid, orjson.dumps(index_entry(decode_row(row))))
            calls.append((self.keys.meta(tenant, user), args))

        def build(pipe: Any) -> None:
            for meta, args in calls:
                self._apply(keys=[meta], args=args, client=pipe)

        return sum(int(done) for done in run_pipeline(self.r, build, self._scripts))

    def settle(self, users: list[User]) -> int:
        """Move each user's retired records, but the newest `history_hot` of each slot, into the
        user's cold history, and drop the cold bytes of records a write brought back (apply.lua
        names such users); a cold history of `archive_after` records or more goes on to the archive
        (`_archive_plan`). Two round trips: what to move, with the version it was read at, then one
        settle call each, which writes nothing when the user was written in between (a later write
        names the user again). Returns the records moved."""
        if self.history_hot is None or not users:
            return 0
        keys = self.keys
        pipe = self.r.pipeline(transaction=False)
        for who in users:
            pipe.hget(keys.meta(*who), "version")
            pipe.hgetall(keys.lineage(*who))
            pipe.hgetall(keys.slots(*who))
            pipe.hgetall(keys.cold(*who))
            pipe.lindex(keys.archive(*who), -1)
            pipe.hkeys(keys.records(*who))
            pipe.hgetall(keys.aliases(*who))
        read = pipe.execute()
        plans: list[tuple[User, int, list[str], dict[bytes, bytes]]] = []
        lineages: dict[User, dict[bytes, bytes]] = {}
        newest: dict[User, bytes | None] = {}
        staying: dict[User, set[str]] = {}  # the ids of the records that stay whole in Redis
        aliases: dict[User, dict[bytes, bytes]] = {}
        for k, who in enumerate(users):
            version, fields, lives, cold, newest[who], stored, aliases[who] = read[7 * k : 7 * k + 7]
            lineages[who] = fields
            moving: list[str] = []
            staying[who] = stay = set()
            for slot, joined in fields.items():  # a slot without a field has only live records
                live = set(lineage_ids(None, [], lives.get(slot)))
                retired = [i for i in lineage_ids(joined, [], lives.get(slot)) if i not in live]
                cut = max(len(retired) - self.history_hot, 0)
                moving += retired[:cut]
                stay |= live | set(retired[cut:])
            # a record an op wrote back from the archive (a forget of an old value) has its place in
            # an archived lineage, not in a field: it goes back with the next records
            listed = stay | set(moving) | {i for raw in lives.values() for i in orjson.loads(raw) or ()}
            moving += [i.decode() for i in stored if i.decode() not in listed] if newest[who] is not None else []
            plans.append((who, int(version or 0), moving, cold))
        pipe = self.r.pipeline(transaction=False)
        for (tenant, user), _, moving, _ in plans:
            if moving:
                pipe.hmget(keys.records(tenant, user), moving)
        fetched = iter(pipe.execute())
        held = [next(fetched) if moving else [] for _, _, moving, _ in plans]
        calls: list[tuple[str, list[Any]]] = []
        moves: list[int] = []
        segments: list[tuple[User, bytes | None, bytes] | None] = []
        for ((tenant, user), version, moving, cold), raws in zip(plans, held, strict=True):
            # the cold records still listed (a record a write brought back is not), and the moved
            entries = cold_entries(cold[b"ids"], cold[b"data"]) if cold else {}
            moved = []
            for rid, raw in zip(moving, raws or [], strict=False):
                if raw is not None and not written_with_row(raw):
                    # (a record written in an earlier form is moved in the current one)
                    entries[rid] = raw if written_now(raw) else encode_record(decode_record(rid, raw, tenant, user))
                    moved.append(rid)
                elif raw is not None:
                    staying[(tenant, user)].add(rid)  # (a tail: its row is in the read model)
            who = (tenant, user)
            archived = self._archive_plan(who, entries, lineages[who], newest[who], staying[who], aliases[who])
            if archived is not None:
                replaced, written, fields, gone_aliases = archived
                cold_args: list[Any] = [b"", b""]
                archive_args: list[Any] = [
                    newest[who] or b"",
                    written,
                    int(replaced is not None),
                    len(fields) // 2,
                    *fields,
                    len(gone_aliases),
                    *gone_aliases,
                ]
                segments.append(((tenant, user), replaced, written))
            else:
                cold_args = list(encode_cold(entries)) if entries else [b"", b""]
                archive_args = [b"", b"", 0, 0, 0]
                segments.append(None)
            prefix = keys.prefix(tenant, user)
            calls.append((keys.meta(tenant, user), ["settle", prefix, version, *cold_args, *archive_args, *moved]))
            moves.append(len(moved))

        def write(pipe: Any) -> None:
            for meta, args in calls:
                self._apply(keys=[meta], args=args, client=pipe)

        done = run_pipeline(self.r, write, self._scripts)
        for segment, written in zip(segments, done, strict=True):
            if segment is not None and self.archive is not None:
                who, replaced, position = segment
                # the segment Redis names no more: the replaced one, or the one just written when
                # the user was written meanwhile (the next settle writes it again)
                gone = [replaced] if int(written) and replaced else [] if int(written) else [position]
                if gone:
                    self._drop_segments(who, gone)
        return sum(n for n, written in zip(moves, done, strict=True) if int(written))

    def _archive_plan(
        self,
        who: User,
        entries: dict[str, bytes],
        fields: dict[bytes, bytes],
        newest: bytes | None,
        staying: set[str],
        aliases: dict[bytes, bytes],
    ) -> tuple[bytes | None, bytes, list[str], list[str]] | None:
        """Write `entries` (the whole cold history after this settle), with the lineage parts they
        begin and the aliases of records that do not stay in Redis, to the user's archive when
        there are `archive_after` of them: into the newest segment while it has room, else a
        segment of their own. Returns the position replaced (None: the segment is added), the one
        written, the lineage fields to rewrite (slot, ids, ...) and the aliases that moved; None
        when the records stay in the cold history (too few, no archive, or the archive failed:
        the next settle tries again)."""
        if self.archive is None or len(entries) < self.archive_after:
            return None
        parts, rest = split_lineage(staying, {k.decode(): v.decode() for k, v in fields.items()})
        moving = {k.decode(): v.decode() for k, v in aliases.items() if v.decode() not in staying}
        segment = Segment(dict(entries), parts, moving)
        try:
            replaced = None
            if newest is not None:
                (old_raw,) = self.archive.read(*who, [newest])
                old = Segment.decode(old_raw)
                if len(old.records) + len(entries) <= SEGMENT_RECORDS:
                    segment, replaced = old.followed_by(segment), newest
            position = self.archive.write(*who, segment.encode())
        except ArchiveError as err:
            self.archive_failures += 1
            _log.warning("archiving %s's retired records failed; they stay in the cold history: %s", who, err)
            return None
        self.segments_written += 1
        return replaced, position, [x for slot, ids in rest.items() for x in (slot, ids)], list(moving)

    def _drop_segments(self, who: User, positions: list[bytes]) -> None:
        assert self.archive is not None
        try:
            self.archive.drop(*who, positions)
        except ArchiveError as err:  # a segment left behind is never read
            _log.warning("dropping %d replaced segments of %s failed: %s", len(positions), who, err)

    def _load_views(
        self, to_load: list[User], by_user: Mapping[User, list[_Pending]], needs: Mapping[User, Needs]
    ) -> None:
        """One pipelined round trip: each user's load script, into the view cache."""
        if not to_load:
            return
        self.users_loaded += len(to_load)

        def build(pipe: Any) -> None:
            for tenant, user in to_load:
                n = needs[(tenant, user)]
                req = {
                    "ops": [p.op_id for p in by_user[(tenant, user)]],
                    "slots": sorted(n.slots),
                    "ids": sorted(n.ids),
                    "attrs": [[a[0], a[1], a[3]] for a in n.attrs],
                    "history": n.with_history,
                    "list_slots_up_to": LISTED_SLOTS_MAX,
                }
                self._load(
                    keys=[self.keys.meta(tenant, user)],
                    args=[self.keys.prefix(tenant, user), orjson.dumps(req)],
                    client=pipe,
                )

        for u, reply in zip(to_load, run_pipeline(self.r, build, self._scripts), strict=True):
            state = _loaded(reply)
            positions = state.pop("archived")
            n = needs[u]
            if positions and (n.with_history or n.ids):
                self._add_archived(u, state, positions, n)
            self._cache.store_loaded(u, state, n)

    def _archived(self, who: User, positions: list[bytes]) -> Archived:
        """The user's archive, read whole (ArchiveError: it cannot be read now, or this engine has
        none while the user's history was archived)."""
        if self.archive is None:
            raise ArchiveError(f"{who}'s oldest history is archived, and this engine was given no archive")
        return Archived.of(Segment.decode(raw) for raw in self.archive.read(*who, positions))

    def _add_archived(self, who: User, state: dict[str, Any], positions: list[bytes], needs: Needs) -> None:
        """Put the archived history into a loaded state: the records the ops name that only the
        archive holds, with their slots (as the load gives a record's slot), each loaded slot's
        lineage whole, and the records it names that Redis does not hold."""
        archived = self._archived(who, positions)
        records: dict[str, Any] = state["records"]
        for rid in needs.ids:  # an alias that went to the archive with the record it names
            if rid not in records and rid not in state["aliases"] and rid in archived.aliases:
                state["aliases"][rid] = archived.aliases[rid]
        wanted = {rid for rid in needs.ids | set(state["aliases"].values()) if rid in archived.records}
        wanted -= records.keys()
        slots = {decode_record(rid, archived.records[rid], *who).slot for rid in wanted} - state["slots"].keys()
        if slots:
            self._load_slots(who, state, sorted(slots), needs.with_history)
            records = state["records"]
        cold_listed = set(records[COLD_ID][1].decode().split()) if COLD_ID in records else set()
        named = wanted | {rid for sk in state["history"] for rid in archived.lineage.get(sk, ())}
        unheld = [rid for rid in named if rid not in records and rid not in cold_listed]
        # a record an op brought back from the archive is in Redis again, and that copy wins
        held = self._records_of(*who, ["ids", *unheld]) if unheld else {}
        for rid in unheld:
            if rid in held:
                records[rid] = (encode_record(held[rid]), None)
            elif rid in archived.records:
                records[rid] = (archived.records[rid], None)

        # where the records the archived lineage names are now: Redis's copies first
        current = dict(held)
        for rid in named:
            if rid in records and rid not in held:
                raw, row = records[rid]
                current[rid] = decode_record(rid, raw, *who, row)
        if named & cold_listed:
            current.update(cold_records(records[COLD_ID][0], " ".join(named & cold_listed), *who))
        slot_of = slot_finder(current, archived, *who)
        for sk, hot in state["history"].items():
            state["history"][sk] = full_lineage(sk, archived.lineage.get(sk, []), hot, slot_of)

    def _load_slots(self, who: User, state: dict[str, Any], slots: list[str], with_history: bool) -> None:
        """Add `slots` (live lists, their records, and their histories if `with_history`) to a
        loaded state. Loaded at another version, they are left out: the write that follows is
        refused for that, and the ops are loaded again."""
        req = {"ops": [], "slots": slots, "ids": [], "attrs": [], "history": with_history}
        more = _loaded(self._load(keys=[self.keys.meta(*who)], args=[self.keys.prefix(*who), orjson.dumps(req)]))
        if more["version"] != state["version"]:
            return
        records = state["records"]
        if COLD_ID in more["records"] and COLD_ID in records:  # the same data; the ids wanted of both
            data, listed = records[COLD_ID]
            records[COLD_ID] = (data, listed + more["records"].pop(COLD_ID)[1])
        state["records"] = {**more["records"], **records}
        state["slots"].update(more["slots"])
        state["history"].update(more["history"])

    def _reconcile_user(self, user_key: User, pending: list[_Pending]) -> _Staged:
        """Reconcile one user's ops in order on the cached view (each sees the ones before it)."""
        tenant, user = user_key
        entry = self._cache.get(user_key)
        stage = _Staged(user_key, entry.version, entry.view)  # reconciled in place; dropped if not written
        view = stage.view
        if self.client_writes_live_lists:
            stage.known = KnownState(view.slots, entry.slots, entry.slot_keys, entry.scopes)
        known = stage.known
        seen_ops: set[str] = set()
        for p in pending:
            if p.op_id in entry.applied or p.op_id in seen_ops:
                stage.outcomes.append((p, ApplyResult(p.op_id, Outcome.DUPLICATE, tenant=tenant, user=user)))
                continue
            seen_ops.add(p.op_id)
            if (to_ms(p.at) or 0) <= entry.ledger_floor:
                # the ledger forgot the ops of that time: this may be one of them, delivered again.
                # Refused and not recorded, so that a redelivery changes nothing either way.
                detail = f"event time {iso(p.at)} is at or before the op ledger's window: it cannot tell a redelivery"
                res = ApplyResult(p.op_id, Outcome.REJECTED, Reason.BEYOND_LEDGER_WINDOW.value, detail, tenant, user)
                stage.outcomes.append((p, res))
                continue
            try:
                t = reconcile(stage.view, p.parsed, p.at, p.op_id)
            except Rejected as rej:
                # a rejection that depends on state is recorded like any op, so a redelivery
                # after the state moved on cannot turn it into a different outcome
                change = {"type": Change.REJECTED, "reason": rej.reason.value, "detail": rej.detail}
                t = Transition(
                    op_id=p.op_id,
                    at=p.at,
                    tenant=tenant,
                    user=user,
                    outcome=Outcome.REJECTED,
                    reason=rej.reason.value,
                    changes=[change],
                )
                stage.op_ids.append(p.op_id)
                transition_args(t, stage.args)
                res = ApplyResult(
                    p.op_id, Outcome.REJECTED, rej.reason.value, rej.detail, tenant, user, changes=t.changes
                )
                stage.outcomes.append((p, res))
                continue
            changed = view.apply(t)  # later ops of the batch see this one before it is written
            if known is not None:
                known.transition(t, changed)
            stage.op_ids.append(p.op_id)
            transition_args(t, stage.args, known)
            res = ApplyResult(
                p.op_id, t.outcome, t.reason, "", tenant, user, list(t.puts), t.changes, _due(t), t.as_matches
            )
            stage.outcomes.append((p, res))
        return stage

    def _write_commands(self, staged: list[_Staged]) -> tuple[list[tuple[Any, ...]], list[list[int]]]:
        """The apply script's calls for the users with something to write, several users a call
        (on a cluster, users of one hash slot); and per call, its users' positions in `staged`."""
        sha, keys = self._apply.sha, self.keys
        slot_of = None if isinstance(self.r, redis.Redis) else getattr(self.r, "keyslot", None)
        calls: dict[int, tuple[list[str], list[Any], list[int]]] = {}
        for position, stage in enumerate(staged):
            if not stage.op_ids:
                continue
            meta = keys.meta(*stage.user)
            call_keys, args, positions = calls.setdefault(slot_of(meta) if slot_of else 0, ([], [], []))
            call_keys.append(meta)
            args += (keys.prefix(*stage.user), stage.version, len(stage.op_ids), len(stage.args), *stage.op_ids)
            args += stage.args
            positions.append(position)
        head = ("apply", self.index_above, self.change_log_max, self.ledger_window_ms, self.settle_after)
        commands = [("EVALSHA", sha, len(call_keys), *call_keys, *head, *args) for call_keys, args, _ in calls.values()]
        return commands, [positions for _, _, positions in calls.values()]

    # --- read side ----------------------------------------------------------------------------

    def context(self, request: ContextRequest | dict[str, Any], at: datetime | str | None = None) -> ContextResponse:
        """Assemble the context for one request: one round trip, then pure selection. The round
        trip is a script call (the rows that can make the budget, with a certificate;
        state/read_index.py), or for scopes small at the user's last lookup a whole read in a
        transaction (state/reader.py, `queue_whole`)."""
        req = request if isinstance(request, ContextRequest) else ContextRequest.model_validate(request)
        read = ContextRead(
            self.keys, req, at, self.context_cache, self.read_stats, self.read_whole_up_to, self.small_scopes
        )
        if read.cached is not None:
            answer = read.from_cache(self.r.hmget(read.meta, STAMP_FIELDS))
            if answer is not None:
                return answer
        answer = self._read_whole(read) if read.whole_first else None
        if answer is None:  # not read whole, or written before rsup existed (the script filters it)
            answer = read.from_reply(self._context([read.meta], read.args()))
        if answer is None:  # not certified: read the scopes whole
            read.forced = True
            answer = self._read_whole(read)
        if answer is None:  # written before rsup existed: the script filters its suppressions
            answer = read.from_reply(self._context([read.meta], read.args(whole=True)))
        assert answer is not None  # a whole read is always its own certificate
        return answer

    def _read_whole(self, read: ContextRead) -> ContextResponse | None:
        """The scopes whole in one transaction (every key is the user's: one hash slot on a cluster)."""
        pipe = self.r.pipeline(transaction=True)
        read.queue_whole(pipe)
        return read.from_whole(pipe.execute())

    def history(
        self, tenant: str, user: str, attribute: str, scope: str = "global", subject: str = "user"
    ) -> list[Record]:
        """Every record the slot ever held, oldest first, with status and supersession links."""
        slot = slot_key(subject, attribute, scope)
        pipe = self.r.pipeline(transaction=True)
        pipe.hget(self.keys.lineage(tenant, user), slot)
        pipe.lrange(self.keys.history(tenant, user, slot), 0, -1)
        pipe.hget(self.keys.slots(tenant, user), slot)
        pipe.lrange(self.keys.archive(tenant, user), 0, -1)
        joined, listed, live, positions = pipe.execute()
        ids = lineage_ids(joined, listed, live)
        if not positions:
            held = self._records_of(tenant, user, ["ids", *ids]) if ids else {}
            return [held[i] for i in ids if i in held]
        archived = self._archived((tenant, user), positions)
        older = archived.lineage.get(slot, [])
        held = self._records_of(tenant, user, ["ids", *ids, *older])
        ids = full_lineage(slot, older, ids, slot_finder(held, archived, tenant, user))
        held.update(archived_records(archived, [i for i in ids if i not in held], tenant, user))
        return [held[i] for i in ids if i in held]

    def watermarks(self, users: list[tuple[str, str]]) -> list[int | None]:
        """Each user's event-time watermark: the newest event time applied to their state."""
        pipe = self.r.pipeline(transaction=False)
        for tenant, user in users:
            pipe.hget(self.keys.meta(tenant, user), "watermark")
        return [int(v) if v is not None else None for v in pipe.execute()]

    def current(
        self, tenant: str, user: str, attribute: str, scope: str = "global", subject: str = "user"
    ) -> Record | None:
        """The record "the current value" of a slot means (what `corrects_current` resolves to)."""
        sk = slot_key(subject, attribute, scope)
        req = {"ops": [], "slots": [sk], "ids": [], "attrs": [], "history": False}
        reply = self._load(
            keys=[self.keys.meta(tenant, user)], args=[self.keys.prefix(tenant, user), orjson.dumps(req)]
        )
        return current_of(_view(_loaded(reply), (tenant, user)).live(sk))

    def record(self, tenant: str, user: str, record_id: str) -> Record | None:
        found = self._records_of(tenant, user, ["ids", record_id]).get(record_id)
        if found is None and (positions := self._positions(tenant, user)):
            archived = self._archived((tenant, user), positions)
            found = archived_records(archived, [record_id], tenant, user).get(record_id)
        return found

    def _positions(self, tenant: str, user: str) -> list[bytes]:
        return cast(list[bytes], self.r.lrange(self.keys.archive(tenant, user), 0, -1))

    def records(self, tenant: str, user: str) -> list[Record]:
        """Every record the user has, the archived ones too."""
        held = self._records_of(tenant, user, ["all"])
        if positions := self._positions(tenant, user):
            archived = self._archived((tenant, user), positions)
            held.update(archived_records(archived, [i for i in archived.records if i not in held], tenant, user))
        return list(held.values())

    def _records_call(self, tenant: str, user: str, args: list[Any], client: Any = None) -> Any:
        return self._records(
            keys=[self.keys.meta(tenant, user)], args=[self.keys.prefix(tenant, user), *args], client=client
        )

    def _records_of(self, tenant: str, user: str, args: list[Any]) -> dict[str, Record]:
        """Stored records, each whole (records.lua: a tail comes with its row)."""
        return decode_triples(self._records_call(tenant, user, args)[1:], tenant, user)

    def suppressions(self, tenant: str, user: str) -> list[Suppression]:
        held = self.r.hgetall(self.keys.suppressions(tenant, user))
        return [decode_suppression(key, raw) for key, raw in held.items()]

    def changes(self, tenant: str, user: str, start: int = 0, end: int = -1) -> list[dict[str, Any]]:
        """The changes of the change log's entries `start` to `end` (an entry holds one op's changes;
        older entries one change each)."""
        return [c for v in self.r.lrange(self.keys.log(tenant, user), start, end) for c in decode_changes(v)]


@dataclass(slots=True)
class _CachedView:
    version: int
    view: UserView
    slots: set[str]  # slot keys whose live list the view holds
    history: set[str]  # slot keys whose full history the view holds
    applied: set[str]  # op ids the last load reported as applied
    # every slot key the user has (or had) at `version`, when the load listed them (at most
    # LISTED_SLOTS_MAX): a slot not among them is empty, so an op on it needs no load
    slot_keys: set[str] | None = None
    # scopes the user's scope list holds at `version` (those this engine gave rows since the view
    # was loaded): apply.lua is not asked to add them again
    scopes: set[str] = field(default_factory=set)
    # the newest event time (ms) the op ledger has forgotten ops of (meta's lfloor)
    ledger_floor: int = 0

    def unknown(self, slots: set[str], held: set[str]) -> bool:
        """Some of `slots` is neither held (in `held`) nor known to be empty (a slot the last load
        did not list had nothing stored)."""
        rest = slots - held
        return bool(rest) and (self.slot_keys is None or not rest.isdisjoint(self.slot_keys))


class ViewCache:
    """The views this engine last loaded or wrote, per user, least recently used dropped first."""

    def __init__(self, max_users: int = 20_000) -> None:
        self.max_users = max_users
        self._entries: OrderedDict[tuple[str, str], _CachedView] = OrderedDict()

    def get(self, user: tuple[str, str]) -> _CachedView:
        entry = self._entries[user]
        self._entries.move_to_end(user)
        return entry

    def drop(self, user: tuple[str, str]) -> None:
        self._entries.pop(user, None)

    def clear(self) -> None:
        self._entries.clear()

    def covers(self, user: tuple[str, str], needs: Needs) -> bool:
        entry = self._entries.get(user)
        if entry is None or needs.attrs:
            return False
        if entry.unknown(needs.slots, entry.slots):
            return False
        # as a load does: with history, the batch's slots with their histories (load.lua)
        if needs.with_history and entry.unknown(needs.slots, entry.history):
            return False
        for rid in needs.ids:
            # as a load does: a record by id comes with its slot's live list (a dependent loaded
            # with the dependency index comes without it)
            rec = entry.view.get(rid)
            if rec is None or rec.slot not in entry.slots or (needs.with_history and rec.slot not in entry.history):
                return False
        return True

    def store_loaded(self, user: tuple[str, str], state: dict[str, Any], needs: Needs) -> None:
        view = _view(state, user)
        version = int(state.get("version", 0))
        slots = set(view.slots)
        history = set(view.history)
        old = self._entries.get(user)
        scopes: set[str] = set()
        if old is not None and old.version == version:
            # nothing changed since the cached view: widen it instead of starting over
            merged = old.view.copy()
            merged.records.update(view.records)
            merged.slots.update(view.slots)
            merged.history.update(view.history)
            merged.aliases.update(view.aliases)  # only those of the ids asked for are loaded
            merged.dependents = view.dependents  # loaded whole every time (as are suppressions)
            view, slots, history = merged, slots | old.slots, history | old.history
            scopes = old.scopes
        slot_keys = set(state["slot_keys"]) if "slot_keys" in state else None  # an empty list arrives as {}
        applied = set(state.get("applied") or {})
        floor = int(state.get("ledger_floor") or 0)
        self._entries[user] = _CachedView(version, view, slots, history, applied, slot_keys, scopes, floor)
        self._entries.move_to_end(user)
        while len(self._entries) > self.max_users:
            self._entries.popitem(last=False)

    def advance(
        self,
        user: tuple[str, str],
        view: UserView,
        version: int,
        known: KnownState | None = None,
        ledger_floor: int = 0,
    ) -> None:
        """The view as written at `version`. A slot's live list or history the view did not hold
        whole before (a dependent sent to review in a slot never loaded, a record created in a slot
        whose history was never loaded) is partial after the write: it is dropped, never held, so
        the next op that needs it loads it. `known`: what the write told the script (the scopes it
        gave rows are listed now)."""
        entry = self._entries.get(user)
        if entry is None:
            return
        if known is not None:
            entry.scopes = known.scopes | known.written

        # a slot the last load did not list had nothing stored: what the view holds of it is all of it
        listed = entry.slot_keys
        for held, lists in ((entry.slots, view.slots), (entry.history, view.history)):
            new = lists.keys() - held
            if not new:
                continue
            for slot in new:
                if listed is None or slot in listed:
                    del lists[slot]  # partial
                else:
                    held.add(slot)
        entry.view, entry.version, entry.applied, entry.ledger_floor = view, version, set(), ledger_floor


def _triples(flat: list[Any]) -> dict[str, tuple[bytes, bytes | None]]:
    return {flat[i].decode(): (flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)}


def _pairs(flat: list[Any]) -> dict[str, Any]:
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


def _loaded(reply: list[Any]) -> dict[str, Any]:
    """load.lua's flat reply as the state a view is built from."""
    version, erased_at, applied, records, slots, history, sup, aliases, deps, slot_keys, ledger_floor, archived = reply
    state: dict[str, Any] = {
        "version": int(version),
        "ledger_floor": int(ledger_floor or 0),
        "erased_at": erased_at.decode() if erased_at else "",
        "applied": {op.decode() for op in applied},
        "records": _triples(records),
        "slots": _pairs(slots),
        "history": {k: [i.decode() for i in ids] for k, ids in _pairs(history).items()},
        "sup": {sup[i]: sup[i + 1] for i in range(0, len(sup), 2)},  # fields hold bytes (state/codec.py)
        "aliases": {k: v.decode() for k, v in _pairs(aliases).items()},
        "deps": _pairs(deps),
        "archived": list(archived),
    }
    if slot_keys is not None:
        state["slot_keys"] = [k.decode() for k in slot_keys]
    return state


def _view(state: dict[str, Any], user: tuple[str, str]) -> UserView:
    view = UserView()
    for rid, (raw, row) in (state.get("records") or {}).items():
        if rid == COLD_ID:  # the wanted records of the cold history (state/codec.py)
            view.records.update(cold_records(raw, row, *user))
        else:
            view.records[rid] = decode_record(rid, raw, *user, row)
    for sk, raw in (state.get("slots") or {}).items():
        view.slots[sk] = list(orjson.loads(raw)) if raw else []
    for sk, ids in (state.get("history") or {}).items():
        view.history[sk] = list(ids) if ids else []
    for stored, raw in (state.get("sup") or {}).items():
        sup = decode_suppression(stored, raw)
        view.suppressions[sup.key] = sup
    view.aliases.update(state.get("aliases") or {})
    for key, raw in (state.get("deps") or {}).items():
        view.dependents[key] = list(orjson.loads(raw)) if raw else []
    if state.get("erased_at"):
        view.erased_at = parse_time(state["erased_at"])
    return view


def _due(t: Transition) -> list[tuple[str, str, int | None]]:
    out: list[tuple[str, str, int | None]] = []
    for rec in t.puts.values():
        out += _due_of(rec.id, rec)
    return out


def _due_of(record_id: str, rec: Record | None) -> list[tuple[str, str, int | None]]:
    """A record's expiry index entries (None: it is not, or no longer, stored)."""
    live = rec is not None and rec.status in LIVE_STATUSES
    expire_ms = to_ms(rec.valid_until) if rec is not None and live else None
    review_ms = to_ms(rec.review_at) if rec is not None and live and rec.status in SELECTABLE_STATUSES else None
    return [(record_id, "expire", expire_ms), (record_id, "review_due", review_ms)]

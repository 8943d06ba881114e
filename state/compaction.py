"""A compaction pass over a namespace: every user's keys in their current compact forms.

Readers take every older form (state/codec.py), and each write stores the new one, so a namespace
keeps working without this pass. The pass makes the memory figures hold for state written before:

- records stored as JSON or in format 1 become their current form (a tail where the record has a
  read-model row);
- op-ledger entries stored as JSON, and suppressions stored as JSON or with their scope, value hash
  or reason spelled out, become their compact forms;
- the change log holds one entry an op (older entries, JSON or compact, hold one change each) and
  keeps its newest `change_log_max` entries;
- each slot's lineage list moves into the user's lineage hash, a field there leaves out the live ids
  that end its lineage, and a slot whose lineage is its live list keeps none;
- retired records beyond a slot's newest `history_hot` move into the user's cold history;
- a scope that holds at most `index_above` rows loses its read index (a lookup reads such a scope
  whole), a larger scope without one gets it, and the index keys no longer written go.

Per user: one read, then one conditional write (compact.lua), which writes nothing if an op was
applied to the user in between (the pass reads the user again). It runs beside the workers. A user
it rewrote is marked (meta field `form`) and skipped by a later run: run it again after a crash and
it goes on where it stopped. A server that stops answering for a moment is waited for (`run`).
(A user written only in the compact forms is read and left as it is.)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from slotstream.memory.models import READ_MODEL_STATUSES, parse_time

from .archive import HistoryArchive
from .codec import (
    decode_changes,
    decode_ledger_entry,
    decode_record,
    decode_suppression,
    encode_changes,
    encode_ledger_entry,
    encode_record,
    encode_suppression,
    encode_tail,
    is_op_entry,
    lineage_field,
    lineage_ids,
    suppression_field,
    written_now,
)
from .engine import ARCHIVE_AFTER, CHANGE_LOG_MAX, HISTORY_HOT, Engine
from .keys import Keys
from .lua import LuaScript, script_source
from .read_index import INDEX_ABOVE

# the meta field a compacted user carries: the form its keys were last rewritten to (4: suppressions
# with their value hash packed and their reason coded)
FORM = "4"
MAX_TRIES = 5
OUTAGE_WAIT = 30.0  # seconds the pass waits for a server that stopped answering, then fails
OUTAGE_PAUSE, OUTAGE_PAUSE_MAX = 0.25, 2.0
# the errors of a server that is away for a moment (a restart, a failover): wait and go on
OUTAGE_ERRORS = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError)
ARGS_PER_COMMAND = 1000  # a command's arguments go in blocks: Lua's unpack takes a few thousand at most


@dataclass
class CompactionStats:
    users: int = 0  # users looked at
    compacted: int = 0  # users rewritten (the others were compact already)
    records: int = 0  # records rewritten from JSON or format 1
    entries: int = 0  # read-model rows, ledger, change-log and suppression entries rewritten
    lineages: int = 0  # slots whose lineage moved into the lineage hash, or left it (the live list)
    indexes_dropped: int = 0  # scopes too small for a read index that had one
    indexes_built: int = 0  # scopes large enough that had none
    retired_moved: int = 0  # retired records moved into the users' cold histories
    retried: int = 0  # users written by an apply while the pass read them
    outages: int = 0  # times the server did not answer and the pass waited for it


def _is_json(raw: bytes) -> bool:
    return raw[:1] == b"{"


def _by_op(log: list[bytes]) -> Iterator[tuple[str, str, list[dict[str, Any]]]]:
    """A change log's changes, oldest first, as (op id, event time, changes) an op: the changes of
    one op are next to each other in any form of the log."""
    op: tuple[str, str] | None = None
    group: list[dict[str, Any]] = []
    for raw in log:
        for change in decode_changes(raw):
            at = (change.pop("op"), change.pop("at"))
            if group and at != op:
                yield *op, group  # type: ignore[misc]
                group = []
            op = at
            group.append(change)
    if group and op:
        yield *op, group


def index_key_parts(scope: str, entry: list[Any]) -> list[str]:
    """The index keys (after the user's prefix) an entry lists its row in: apply.lua's
    index_keys, from the entry (state/read_index.py `index_entry`)."""
    parts = [f"ixt:{scope}:{word}" for word in entry[2]]
    parts += [f"ixp:{scope}:{topic}" for topic in entry[3]]
    parts += [f"ixq:{scope}:{topic}" for topic in entry[4]]
    if len(entry) > 5 and entry[5]:
        parts += [f"ixg:{scope}:{name}" for name in entry[5]]
    return parts


class Compactor:
    def __init__(
        self,
        client: redis.Redis,
        namespace: str,
        change_log_max: int = CHANGE_LOG_MAX,
        index_above: int = INDEX_ABOVE,
        history_hot: int | None = HISTORY_HOT,
        outage_wait: float = OUTAGE_WAIT,
        archive: HistoryArchive | None = None,
        archive_after: int = ARCHIVE_AFTER,
    ) -> None:
        """`archive`: where settling moves a cold history of `archive_after` records (state/archive.py)."""
        self.r = client
        self.outage_wait = outage_wait
        self.keys = Keys(namespace)
        self.change_log_max = change_log_max
        self.index_above = index_above
        self.engine = Engine(
            client,
            namespace,
            index_above=index_above,
            change_log_max=change_log_max,
            history_hot=history_hot,
            archive=archive,
            archive_after=archive_after,
        )
        self._write = LuaScript(client, script_source("compact.lua"))
        self.stats = CompactionStats()

    def users(self) -> Iterator[tuple[str, str]]:
        for key in self.r.scan_iter(match=self.keys.user_metas(), count=1000):
            pair = self.keys.user_of_key(key.decode() if isinstance(key, bytes) else key)
            if pair is not None:
                yield pair

    def run(self, progress: Callable[[CompactionStats], None] | None = None) -> CompactionStats:
        """Every user of the namespace. A server away for a moment (a restart, a failover) is waited
        for, up to `outage_wait` seconds each time: the user is done again (each step writes only
        if the user is unchanged since it read it), and a scan cut short starts over, skipping the
        users done."""
        done: set[tuple[str, str]] = set()
        waited = 0.0
        while True:
            try:
                for tenant, user in self.users():
                    if (tenant, user) not in done:
                        self._one_user(tenant, user)
                        done.add((tenant, user))
                        waited = 0.0
                        if progress is not None and self.stats.users % 1000 == 0:
                            progress(self.stats)
                return self.stats
            except OUTAGE_ERRORS as err:
                waited = self._wait_out(err, waited)

    def _one_user(self, tenant: str, user: str) -> None:
        waited = 0.0
        while True:
            try:
                self.compact_user(tenant, user)
                # retired versions beyond the newest of each slot into the cold history (a user
                # without a lineage field has none)
                if self.engine.history_hot is not None and self.r.exists(self.keys.lineage(tenant, user)):
                    self.stats.retired_moved += self.engine.settle([(tenant, user)])
                self.stats.users += 1
                return
            except OUTAGE_ERRORS as err:
                waited = self._wait_out(err, waited)

    def _wait_out(self, err: Exception, waited: float = 0.0) -> float:
        """Pause before trying again; raises `err` once `outage_wait` seconds were spent."""
        if waited >= self.outage_wait:
            raise err
        pause = min(max(OUTAGE_PAUSE, waited), OUTAGE_PAUSE_MAX, self.outage_wait - waited)
        self.stats.outages += 1
        time.sleep(pause)
        return waited + pause

    def compact_user(self, tenant: str, user: str) -> bool:
        """Rewrite one user's keys; False when the user was compact already."""
        keys = self.keys
        for _ in range(MAX_TRIES):
            if self.r.hget(keys.meta(tenant, user), "form") == FORM.encode():
                return False
            version, commands, to_index = self._plan(tenant, user)
            if not commands and not to_index:
                return False  # written in the compact forms only: nothing to do, nothing to mark
            commands.append(("HSET", [keys.meta(tenant, user), "form", FORM]))
            args: list[Any] = [version]
            for name, values in commands:
                args += (name, len(values), *values)
            if self._write(keys=[keys.meta(tenant, user)], args=args):
                self.stats.compacted += 1
                if to_index:
                    self.stats.indexes_built += self.engine.build_indexes([((tenant, user), s) for s in to_index])
                return True
            self.stats.retried += 1
        raise RuntimeError(f"{tenant}/{user} kept changing under the compaction pass; run it again")

    def _plan(self, tenant: str, user: str) -> tuple[int, list[tuple[str, list[Any]]], list[str]]:
        """What to write for one user (read in one transaction), and the scopes to index after."""
        keys = self.keys
        prefix = keys.prefix(tenant, user)
        pipe = self.r.pipeline(transaction=True)
        pipe.hget(keys.meta(tenant, user), "version")
        pipe.hgetall(keys.records(tenant, user))
        pipe.hgetall(keys.ledger(tenant, user))
        pipe.lrange(keys.log(tenant, user), 0, -1)
        pipe.hgetall(keys.suppressions(tenant, user))
        pipe.hgetall(keys.read_suppressions(tenant, user))
        pipe.hgetall(keys.slots(tenant, user))
        pipe.hgetall(keys.lineage(tenant, user))
        pipe.smembers(f"{prefix}:scopes")
        version, records, ledger, log, sups, rsups, slots, lineage, scopes = pipe.execute()
        scope_names = sorted(s.decode() for s in scopes)

        pipe = self.r.pipeline(transaction=True)
        for scope in scope_names:
            pipe.hkeys(keys.active(tenant, user, scope))
            pipe.hgetall(keys.read_index(tenant, user, scope, "ix"))
            pipe.exists(keys.read_index(tenant, user, scope, "ixs"))
            pipe.exists(keys.read_index(tenant, user, scope, "ixa"))  # no longer written
        for slot in slots:
            pipe.lrange(keys.history(tenant, user, slot.decode()), 0, -1)
        read = pipe.execute()
        per = 4
        by_scope = {s: read[per * k : per * k + per] for k, s in enumerate(scope_names)}
        listed = read[per * len(scope_names) :]

        commands: list[tuple[str, list[Any]]] = []

        def hset(key: str, pairs: list[Any]) -> None:
            for first in range(0, len(pairs), ARGS_PER_COMMAND):
                commands.append(("HSET", [key, *pairs[first : first + ARGS_PER_COMMAND]]))

        # records
        with_rows = {(s, rid) for s in scope_names for rid in by_scope[s][0]}
        pairs: list[Any] = []
        for rid, raw in records.items():
            if written_now(raw):
                continue
            rec = decode_record(rid.decode(), raw, tenant, user)
            row_held = rec.status in READ_MODEL_STATUSES and (rec.scope, rid) in with_rows
            pairs += (rid, encode_tail(rec) if row_held else encode_record(rec))
        self.stats.records += len(pairs) // 2
        hset(keys.records(tenant, user), pairs)

        # ledger, suppressions
        pairs = []
        for op_id, raw in ledger.items():
            if _is_json(raw) or raw[:1].isdigit():
                at, outcome, reason, ids = decode_ledger_entry(op_id.decode(), raw)
                pairs += (op_id, encode_ledger_entry(op_id.decode(), parse_time(at), outcome, reason, ids))
        self.stats.entries += len(pairs) // 2
        hset(keys.ledger(tenant, user), pairs)
        for key, held in ((keys.suppressions(tenant, user), sups), (keys.read_suppressions(tenant, user), rsups)):
            pairs, moved = [], []
            for field, raw in held.items():
                sup = decode_suppression(field, raw)
                stored = (suppression_field(sup.key), encode_suppression(sup))
                if stored != (field, raw):
                    pairs += stored
                    if stored[0] != field:
                        moved.append(field)
            self.stats.entries += len(pairs) // 2
            if moved:
                commands.append(("HDEL", [key, *moved]))
            hset(key, pairs)

        # the change log: one entry an op (older entries hold a change each), its newest entries
        if len(log) > self.change_log_max or not all(is_op_entry(raw) for raw in log):
            entries = []
            for op_id, at, changes in _by_op(log):
                entries.append(encode_changes(op_id, parse_time(at), changes))
            self.stats.entries += len(entries)
            entries = entries[-self.change_log_max :] if self.change_log_max else []
            commands.append(("DEL", [keys.log(tenant, user)]))
            for first in range(0, len(entries), ARGS_PER_COMMAND):
                commands.append(("RPUSH", [keys.log(tenant, user), *entries[first : first + ARGS_PER_COMMAND]]))

        # lineage lists into the lineage hash, each field less the live ids that end its lineage
        pairs, emptied = [], []
        for slot, ids in zip(slots, listed, strict=True):
            live = slots[slot]
            field = lineage_field(lineage_ids(lineage.get(slot), ids, live), lineage_ids(None, [], live))
            held = lineage.get(slot)
            if field is None and held is not None:
                emptied.append(slot)
            elif field is not None and field.encode() != held:
                pairs += (slot, field)
            if ids:
                commands.append(("DEL", [keys.history(tenant, user, slot.decode())]))
            if ids or (field.encode() if field else None) != held:
                self.stats.lineages += 1
        hset(keys.lineage(tenant, user), pairs)
        if emptied:
            commands.append(("HDEL", [keys.lineage(tenant, user), *emptied]))

        # read indexes: none for a small scope, one for a large scope
        to_index = []
        for scope in scope_names:
            rows, entries_of, indexed, obsolete = by_scope[scope]
            if len(rows) <= self.index_above and (indexed or entries_of):
                gone = {f"{prefix}:{part}:{scope}" for part in ("ix", "ixs", "ixu", "ixm", "ixr", "ixa")}
                for raw in entries_of.values():
                    gone |= {f"{prefix}:{part}" for part in index_key_parts(scope, orjson.loads(raw))}
                commands.append(("DEL", sorted(gone)))
                self.stats.indexes_dropped += 1
                continue
            if obsolete:
                commands.append(("DEL", [keys.read_index(tenant, user, scope, "ixa")]))
            if len(rows) > self.index_above and not indexed:
                to_index.append(scope)
        return int(version or 0), commands, to_index

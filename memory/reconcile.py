"""Reconciliation: (what is stored, an incoming record or command, event time) -> a transition.

Pure: no I/O, no clock. The state layer loads a `UserView`, calls `reconcile`, and applies the
returned `Transition` atomically. Rules 1-4, 6 and 8-13 of docs/concepts.md live here (the read
side of 4, 5 and 12 is in selection.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .errors import Reason, Rejected
from .models import (
    AUTHORITY_RANK,
    INFERRED_AUTHORITIES,
    LIVE_STATUSES,
    SLOT_DEPENDENCY,
    AnyCommand,
    Authority,
    Cardinality,
    Change,
    ConfirmCommand,
    CorrectCommand,
    EraseUserCommand,
    Evidence,
    EvidenceEntry,
    ExpireCommand,
    ForgetCommand,
    Kind,
    Match,
    MoveCommand,
    Outcome,
    Record,
    RecordIn,
    RejectCommand,
    RestateCommand,
    RestoreCommand,
    RetractCommand,
    ReviewDueCommand,
    Status,
    Suppression,
    dependency_key,
    owner,
    slot_key,
)
from .registry import TEMPORARY_LIFETIME, resolve
from .resolution import (
    SPECIFIC_KINDS,
    VERBATIM,
    eligible,
    of_other_areas,
    only_quotes,
    resolve_forget,
    resolve_replacement,
    resolve_restatement,
    resolve_retraction,
    restated,
    value_kind,
    without_clauses,
)
from .validation import build_record, derive_id, normalize_value, value_hash


@dataclass(slots=True)
class UserView:
    """The part of one user's state that an op may touch, as loaded by the state layer."""

    records: dict[str, Record] = field(default_factory=dict)
    slots: dict[str, list[str]] = field(default_factory=dict)  # slot key -> live record ids
    history: dict[str, list[str]] = field(default_factory=dict)  # slot key -> every id ever in it
    suppressions: dict[str, Suppression] = field(default_factory=dict)
    erased_at: datetime | None = None
    aliases: dict[str, str] = field(default_factory=dict)  # id of a refreshed op -> record it refreshed
    # dependency index: "id:<record id>" / "attr:<subject>|<attribute>" -> ids of records derived from it
    dependents: dict[str, list[str]] = field(default_factory=dict)

    def get(self, record_id: str) -> Record | None:
        """A record by id, following the alias a deduplicated op left behind."""
        rec = self.records.get(record_id)
        if rec is None and record_id in self.aliases:
            rec = self.records.get(self.aliases[record_id])
        return rec

    def copy(self) -> UserView:
        # records are immutable (every change is a model_copy), so shallow copies suffice
        return UserView(
            dict(self.records),
            {k: list(v) for k, v in self.slots.items()},
            {k: list(v) for k, v in self.history.items()},
            dict(self.suppressions),
            self.erased_at,
            dict(self.aliases),
            {k: list(v) for k, v in self.dependents.items()},
        )

    def apply(self, t: Transition) -> set[str]:
        """This view as it is after `t`: what the state layer writes, applied in memory, so a
        batch's later ops see the earlier ones before anything is written. Returns the slot keys
        whose live list it changed."""
        changed: set[str] = set()
        if t.erase:
            self.records.clear()
            self.slots.clear()
            self.history.clear()
            self.suppressions.clear()
            self.aliases.clear()
            self.dependents.clear()
            self.erased_at = t.at
        for rid in t.created:
            self.history.setdefault(t.puts[rid].slot, []).append(rid)
        for rid, old_slot in t.moved.items():
            if rid in self.slots.get(old_slot, ()):
                self.slots[old_slot].remove(rid)
                changed.add(old_slot)
            if rid in self.history.get(old_slot, ()):
                self.history[old_slot].remove(rid)
            self.history.setdefault(t.puts[rid].slot, []).append(rid)
        for key, ids in t.deps.items():
            known = self.dependents.setdefault(key, [])
            known.extend(i for i in ids if i not in known)
        for rec in t.puts.values():
            self.records[rec.id] = rec
            live = self.slots.setdefault(rec.slot, [])
            if rec.status in LIVE_STATUSES:
                if rec.id not in live:
                    live.append(rec.id)
                    changed.add(rec.slot)
            elif rec.id in live:
                live.remove(rec.id)
                changed.add(rec.slot)
        self.aliases.update(t.aliases)
        for s in t.suppress:
            self.suppressions[s.key] = s
        for key in t.unsuppress:
            self.suppressions.pop(key, None)
        return changed

    def live(self, slot: str) -> list[Record]:
        return [self.records[i] for i in self.slots.get(slot, ()) if i in self.records]


@dataclass(slots=True)
class Needs:
    """What the state layer must load before reconciling an op."""

    slots: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    # (subject, attribute, scope, family) whose slots and histories are loaded: a forget's match, ...
    attrs: list[tuple[str, str, str | None, bool]] = field(default_factory=list)
    with_history: bool = False


@dataclass(slots=True)
class Transition:
    op_id: str
    at: datetime
    tenant: str
    user: str
    outcome: Outcome
    reason: str | None = None
    puts: dict[str, Record] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)
    suppress: list[Suppression] = field(default_factory=list)
    unsuppress: list[str] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    erase: bool = False
    aliases: dict[str, str] = field(default_factory=dict)  # an op's record id -> the record it refreshed
    moved: dict[str, str] = field(default_factory=dict)  # record id -> the slot it was moved out of
    deps: dict[str, list[str]] = field(default_factory=dict)  # dependency index entries to add
    # a forget by record id as forgets by match, one per value it suppressed: what a replay of a
    # later range applies instead, since the records it names are not in the rebuilt state
    as_matches: list[dict[str, Any]] = field(default_factory=list)

    def put(self, rec: Record, change: Change, **extra: Any) -> Record:
        self.puts[rec.id] = rec
        self.changes.append(
            {
                "type": change,
                "record_id": rec.id,
                "attribute": rec.attribute,
                "scope": rec.scope,
                "status": rec.status.value,
                **extra,
            }
        )
        return rec


# --- helpers --------------------------------------------------------------------------------


def _start(rec: Record) -> datetime:
    return rec.valid_from or rec.observed_at


def _end(rec: Record) -> datetime | None:
    ends = [t for t in (rec.valid_until, rec.review_at) if t is not None]
    return min(ends) if ends else None


def _overlaps(a: Record, b: Record) -> bool:
    """Do the periods in which a and b apply intersect? A record applies from its valid_from (else
    from when it was observed) until its valid_until or review date, whichever comes first."""
    a_end, b_end = _end(a), _end(b)
    if a_end is not None and a_end <= _start(b):
        return False
    return not (b_end is not None and b_end <= _start(a))


def _merge_evidence(old: list[EvidenceEntry], new: list[EvidenceEntry]) -> list[EvidenceEntry]:
    seen = {(e.source_type, e.source_id, e.quote) for e in old}
    out = list(old)
    for e in new:
        if (e.source_type, e.source_id, e.quote) not in seen:
            out.append(e)
            seen.add((e.source_type, e.source_id, e.quote))
    return out[-20:]  # bounded: the newest twenty references are enough to audit a record


def _rank(a: Authority) -> int:
    return AUTHORITY_RANK[a]


def _supersede(t: Transition, old: Record, new: Record, at: datetime) -> None:
    """Close `old` where `new` begins. A replacement that starts later leaves old usable until then."""
    start = new.valid_from if new.valid_from and new.valid_from > at else at
    close = start if old.valid_until is None else min(old.valid_until, start)
    if old.valid_from is not None and close < old.valid_from:
        close = old.valid_from
    status = Status.SUPERSEDED if start <= at else old.status
    t.put(
        old.model_copy(
            update={
                "status": status,
                "superseded_by": new.id,
                "valid_until": close,
                "updated_at": at,
                "status_reason": f"superseded by {new.id}",
            }
        ),
        Change.SUPERSEDED,
        by=new.id,
    )


_CURRENT_ORDER = {
    Status.ACTIVE: 0,
    Status.REVIEW_DUE: 1,
    Status.NEEDS_REVIEW: 2,
    Status.CANDIDATE: 3,
    Status.PENDING_REVIEW: 4,
    Status.CONFLICTED: 5,
}
# statuses that hold a slot's value until something replaces it
_HOLDING = (Status.ACTIVE, Status.CANDIDATE, Status.REVIEW_DUE, Status.NEEDS_REVIEW)
# held only until replaced: a value waiting to be re-checked, by its date or its dependency
_WAITING = (Status.REVIEW_DUE, Status.NEEDS_REVIEW)


def current_of(live: list[Record]) -> Record | None:
    """The record "the current value" means: live, the user's word first, then the newest."""
    ranked = sorted(
        (r for r in live if r.status in _CURRENT_ORDER),
        key=lambda r: (
            _CURRENT_ORDER[r.status],
            r.authority != Authority.USER_EXPLICIT,
            -r.observed_at.timestamp(),
            r.id,
        ),
    )
    return ranked[0] if ranked else None


def _settle_slot(t: Transition, live: list[Record], winner: Record, at: datetime) -> None:
    """After an explicit correction the user has named the slot's value: waiting copies of it are
    settled, and in a single-valued slot no other value stays usable beside it."""
    for cur in live:
        cur = t.puts.get(cur.id, cur)
        if cur.id == winner.id or cur.status not in LIVE_STATUSES:
            continue
        if cur.normalized_value == winner.normalized_value:
            if cur.status in (Status.PENDING_REVIEW, Status.CONFLICTED, Status.CANDIDATE):
                _supersede(t, cur, winner, at)
        elif winner.cardinality == Cardinality.SINGLE and cur.status in _HOLDING and _overlaps(winner, cur):
            _supersede(t, cur, winner, at)


def _base_status(rec: Record) -> Status:
    if rec.authority == Authority.USER_EXPLICIT:
        return Status.ACTIVE
    if rec.authority == Authority.AUTHORITATIVE_SOURCE:
        return Status.ACTIVE
    if rec.authority in INFERRED_AUTHORITIES:
        return Status.CANDIDATE
    return Status.PENDING_REVIEW  # external_untrusted waits for a person


def _place(t: Transition, view: UserView, rec: Record, at: datetime) -> Record:
    """Decide the status of a new (not explicitly linked) record among its slot's live records."""
    if rec.kind == Kind.FACT and rec.authority != Authority.AUTHORITATIVE_SOURCE:
        rec = rec.model_copy(
            update={"status": Status.PENDING_REVIEW, "status_reason": "unverified fact: not from an authorized source"}
        )
        return t.put(rec, Change.PENDING_REVIEW)
    status = _base_status(rec)
    if status == Status.PENDING_REVIEW:
        return t.put(
            rec.model_copy(update={"status": status, "status_reason": "untrusted source"}), Change.PENDING_REVIEW
        )
    if rec.cardinality == Cardinality.MULTI:
        return t.put(rec.model_copy(update={"status": status}), Change.CREATED)

    to_supersede: list[Record] = []
    for cur in view.live(rec.slot):
        if cur.id == rec.id or cur.normalized_value == rec.normalized_value:
            continue
        if cur.status not in _HOLDING:
            continue
        # a value due for review still holds the slot until something replaces it
        if cur.status not in _WAITING and not _overlaps(rec, cur):
            continue
        if rec.kind == Kind.FACT:
            to_supersede.append(cur)  # a newer version from an authorized source replaces the old
        elif cur.status in _WAITING:
            if rec.authority == Authority.USER_EXPLICIT:
                to_supersede.append(cur)
        elif rec.authority == Authority.USER_EXPLICIT and cur.authority != Authority.USER_EXPLICIT:
            to_supersede.append(cur)  # explicit beats inferred
        elif rec.authority == Authority.USER_EXPLICIT:
            # rule 3: an unlinked, different explicit value waits for review
            return t.put(
                rec.model_copy(
                    update={"status": Status.PENDING_REVIEW, "status_reason": f"differs from explicit {cur.id}"}
                ),
                Change.PENDING_REVIEW,
                against=cur.id,
            )
        else:
            # rule 3: newer is not more authoritative
            return t.put(
                rec.model_copy(update={"status": Status.CONFLICTED, "status_reason": f"conflicts with {cur.id}"}),
                Change.CONFLICTED,
                against=cur.id,
            )
    placed = t.put(rec.model_copy(update={"status": status}), Change.CREATED)
    if rec.kind == Kind.FACT:
        for cur in view.live(rec.slot):  # unverified claims of this very value are settled by the source
            if cur.status == Status.PENDING_REVIEW and cur.normalized_value == rec.normalized_value:
                _supersede(t, cur, placed, at)
    for cur in to_supersede:
        _supersede(t, cur, placed, at)
        placed = t.puts[placed.id] = placed.model_copy(update={"supersedes": placed.supersedes or cur.id})
    return placed


def _refresh(t: Transition, cur: Record, rec: Record, at: datetime, reason: str) -> Record:
    """Same value again: update wording, observed_at and evidence instead of duplicating."""
    upd: dict[str, Any] = {
        "observed_at": max(cur.observed_at, rec.observed_at),
        "evidence": _merge_evidence(cur.evidence, rec.evidence),
        "updated_at": at,
    }
    if _rank(rec.authority) >= _rank(cur.authority):
        upd["statement"] = rec.statement
        upd["confidence"] = max(cur.confidence, rec.confidence)
    # a record already closed by its successor keeps its end: extending it would overlap the successor
    if (
        rec.valid_until is not None
        and cur.superseded_by is None
        and (cur.valid_until is None or rec.valid_until > cur.valid_until)
    ):
        upd["valid_until"] = rec.valid_until
    if rec.review_at is not None and (cur.review_at is None or rec.review_at > cur.review_at):
        upd["review_at"] = rec.review_at
    if _rank(rec.authority) > _rank(cur.authority) and Kind.FACT not in (cur.kind, rec.kind):
        upd["authority"] = rec.authority
    if cur.status == Status.REVIEW_DUE and rec.authority == Authority.USER_EXPLICIT:
        upd["status"] = Status.ACTIVE  # re-stated by the user: confirmed again
        upd["status_reason"] = "re-confirmed"
    elif cur.status == Status.CANDIDATE and upd.get("authority") == Authority.USER_EXPLICIT:
        upd["status"] = Status.ACTIVE
    if rec.id != cur.id:
        t.aliases[rec.id] = cur.id  # a later correction may name the id this op carried
    return t.put(cur.model_copy(update=upd), Change.REFRESHED, reason=reason, evidence_from=rec.op_id)


def _blocking_suppressions(view: UserView, rec: Record) -> list[Suppression]:
    found = [s for s in view.suppressions.values() if s.attribute == rec.attribute and s.covers(rec.scope)]
    if not found:  # the common case: no hash to work out
        return found
    # by key: a view's dicts are in load order or in write order (state/engine.py caches views),
    # and what a transition writes must not depend on which
    found.sort(key=lambda s: s.key)
    vh = value_hash(rec.tenant, rec.user, rec.attribute, rec.normalized_value)
    return [s for s in found if s.value_hash in (None, vh)]


def _suppression(
    t: Transition, rec: Record, scope: str | None, at: datetime, reason: str, ids: list[str]
) -> Suppression:
    return Suppression(
        attribute=rec.attribute,
        scope=scope,
        at=at,
        record_ids=ids,
        value_hash=value_hash(t.tenant, t.user, rec.attribute, rec.normalized_value),
        reason=reason,
    )


def _replaced_chain(view: UserView, rec: Record) -> list[Record]:
    """The records `rec` replaced in its slot, transitively: what a correction chain led to it."""
    in_slot = {rid: view.records[rid] for rid in view.history.get(rec.slot, []) if rid in view.records}
    replaced: dict[str, list[Record]] = {}  # record id -> the records it replaced
    for other in in_slot.values():
        if other.superseded_by:
            replaced.setdefault(other.superseded_by, []).append(other)
        if other.supersedes in in_slot:
            replaced.setdefault(other.id, []).append(in_slot[other.supersedes])
    seen, out, todo = {rec.id}, [], [rec.id]
    while todo:
        for earlier in replaced.get(todo.pop(), []):
            if earlier.id not in seen:
                seen.add(earlier.id)
                out.append(earlier)
                todo.append(earlier.id)
    return out


def _tombstone(rec: Record, at: datetime, reason: str) -> Record:
    # Auditable, but the forgotten value itself is not kept: only its hash.
    return rec.model_copy(
        update={
            "status": Status.DELETED,
            "status_reason": reason,
            "updated_at": at,
            "value": None,
            "statement": "(forgotten)",
            "normalized_value": value_hash(rec.tenant, rec.user, rec.attribute, rec.normalized_value),
            "evidence": [
                EvidenceEntry(source_type=e.source_type, source_id=e.source_id, at=e.at) for e in rec.evidence
            ],
        }
    )


# --- entry points ---------------------------------------------------------------------------


def needs_for(op: Record | AnyCommand) -> Needs:
    n = Needs()
    if isinstance(op, Record):
        n.slots.add(op.slot)
        if op.id != derive_id("r_", op.op_id):
            n.ids.add(op.id)  # a producer-given id may already be in use: it must not be overwritten
        if op.corrects:
            n.ids.add(op.corrects)
        for dep in op.depends_on:
            if dep.startswith(SLOT_DEPENDENCY):
                n.attrs.append((op.subject, dep[len(SLOT_DEPENDENCY) :], None, False))
            else:
                n.ids.add(dep)
        return n
    if (
        isinstance(op, RestateCommand)
        or (isinstance(op, (ForgetCommand, RetractCommand)) and op.about)
        or (isinstance(op, RetractCommand) and op.replaced_by)
    ):
        # a target named in the user's words may be anywhere in their memory
        n.with_history = True
        n.attrs.append(("user", EVERY_ATTRIBUTE, None, False))
        if not isinstance(op, (ForgetCommand, RetractCommand)):
            return n
    if isinstance(op, (ForgetCommand, RetractCommand, RestoreCommand)):
        n.with_history = True
        record_id = getattr(op, "record_id", None)  # a restore names a match only
        if record_id:
            n.ids.add(record_id)
        if op.match is not None:
            n.attrs.append((op.match.subject, op.match.attribute, op.match.scope, op.match.family))
        return n
    if isinstance(op, MoveCommand):
        n.with_history = True
        n.attrs.append((op.subject, op.attribute, None, False))
        return n
    if isinstance(op, (CorrectCommand, ConfirmCommand, RejectCommand, ExpireCommand, ReviewDueCommand)):
        n.ids.add(op.record_id)
        n.with_history = isinstance(op, (CorrectCommand, ConfirmCommand))
    return n


def reconcile(view: UserView, op: Record | AnyCommand, at: datetime, op_id: str) -> Transition:
    """Decide what `op` does to the user's state at event time `at`. Raises `Rejected`."""
    tenant, user = owner(op)
    t = Transition(op_id=op_id, at=at, tenant=tenant, user=user, outcome=Outcome.APPLIED)
    if isinstance(op, Record):
        _reconcile_record(view, op, at, t)
    else:
        handler = _COMMANDS.get(type(op))
        if handler is None:
            raise Rejected(Reason.UNKNOWN_COMMAND, type(op).__name__)
        handler(view, op, at, t)
    if not t.erase:
        _propagate(view, t, at)
    return t


def _erase(view: UserView, cmd: EraseUserCommand, at: datetime, t: Transition) -> Transition:
    t.erase = True
    t.changes.append({"type": Change.ERASED})
    return t


def _correct(view: UserView, cmd: CorrectCommand, at: datetime, t: Transition) -> Transition:
    """A correction of a named record: a new record in its slot, linked to it (rule 1)."""
    target = check_target(cmd, view.get(cmd.record_id))
    _replaced(view, target, cmd.value, cmd.statement, cmd.evidence, at, t)
    return t


def _reject(view: UserView, cmd: RejectCommand, at: datetime, t: Transition) -> Transition:
    """The user turns down a waiting record: a tombstone, and its value is suppressed."""
    target = check_target(cmd, view.get(cmd.record_id))
    t.put(_tombstone(target, at, "rejected"), Change.REJECTED)
    t.suppress.append(
        Suppression(
            attribute=target.attribute,
            scope=None,
            at=at,
            record_ids=[target.id],
            value_hash=value_hash(t.tenant, t.user, target.attribute, target.normalized_value),
            reason="rejected",
        )
    )
    return t


def _sweep(view: UserView, cmd: ExpireCommand | ReviewDueCommand, at: datetime, t: Transition) -> Transition:
    """The expiry sweep's ops: mark what really is due by `at`, else change nothing."""
    due = view.get(cmd.record_id)
    if due is None:
        t.outcome, t.reason = Outcome.NOOP, Reason.TARGET_NOT_FOUND.value
        return t
    if isinstance(cmd, ExpireCommand):
        if due.status in LIVE_STATUSES and due.valid_until is not None and due.valid_until <= at:
            update = {"status": Status.EXPIRED, "updated_at": at, "status_reason": "valid_until passed"}
            t.put(due.model_copy(update=update), Change.EXPIRED)
            return t
    elif due.status in (Status.ACTIVE, Status.CANDIDATE) and due.review_at is not None and due.review_at <= at:
        update = {"status": Status.REVIEW_DUE, "updated_at": at, "status_reason": "review_at passed"}
        t.put(due.model_copy(update=update), Change.REVIEW_DUE)
        return t
    t.outcome, t.reason = Outcome.NOOP, Reason.NOT_DUE.value
    return t


# a needs entry for every attribute of the subject (state/load.lua reads it so)
EVERY_ATTRIBUTE = "*"
# the session note of a correction that could mean more than one record
PENDING_CORRECTION = "session.pending_correction"


# what a user may confirm (a record waiting for their word) and reject (one not yet taken as theirs)
CONFIRMABLE = frozenset(
    {Status.PENDING_REVIEW, Status.CONFLICTED, Status.CANDIDATE, Status.REVIEW_DUE, Status.NEEDS_REVIEW}
)
REJECTABLE = frozenset({Status.PENDING_REVIEW, Status.CONFLICTED, Status.CANDIDATE})
# the controls that name one record by its id, and are refused when it does not fit
TARGETED = (CorrectCommand, ConfirmCommand, RejectCommand, ForgetCommand, RetractCommand)


def check_target(cmd: AnyCommand, target: Record | None) -> Record:
    """The record a control names by id (`target`, as stored, found through aliases), or
    Rejected: the rule the engine applies and the sidecar checks before it produces the control."""
    record_id = getattr(cmd, "record_id", None)
    if target is None:
        raise Rejected(Reason.TARGET_NOT_FOUND, str(record_id))
    if isinstance(cmd, ConfirmCommand):
        if target.status not in CONFIRMABLE:
            raise Rejected(Reason.TARGET_NOT_PENDING, f"{target.id} is {target.status.value}")
        if target.kind == Kind.FACT and target.authority != Authority.AUTHORITATIVE_SOURCE:
            # a user's confirmation does not turn an unverified business fact into a true one
            raise Rejected(Reason.SOURCE_NOT_AUTHORIZED, "facts are confirmed by an authorized source")
    elif isinstance(cmd, RejectCommand):
        if target.status not in REJECTABLE:
            raise Rejected(Reason.TARGET_NOT_PENDING, f"{target.id} is {target.status.value}")
    elif target.kind == Kind.FACT and (
        isinstance(cmd, CorrectCommand) or (isinstance(cmd, RetractCommand) and target.status in LIVE_STATUSES)
    ):
        raise Rejected(Reason.SOURCE_NOT_AUTHORIZED, "facts change only through an authorized source")
    return target


def check_dependency(dep: str, target: Record | None) -> Record:
    """A record a new record `depends_on` by id: it must be one of the same user's."""
    if target is None:
        raise Rejected(Reason.INVALID_DEPENDENCY, f"depends on {dep}, which is not a record of this user")
    return target


def reuses_id(rec: Record, stored: Record | None) -> bool:
    """True when `rec` comes under the id of a stored record and is a resend of it (the same
    slot and value: a refresh, or a drop of a tombstone's); Rejected when it names another."""
    if stored is None:
        return False
    if stored.status != Status.DELETED and (stored.slot != rec.slot or stored.normalized_value != rec.normalized_value):
        raise Rejected(Reason.INVALID_ID, f"{rec.id} already names another record")
    return True


def _reconcile_record(view: UserView, rec: Record, at: datetime, t: Transition) -> Transition:
    """A new record, through the rules in order; the first step that decides ends it."""
    live = view.live(rec.slot)
    if _stopped(view, rec, t) or _resent(view, rec, at, t):
        return t
    rec, ended = _with_dependencies(view, rec)
    if not (_explicit_correction(view, rec, live, at, t) or _repeat(live, rec, at, t)):
        t.created.append(rec.id)
        _place(t, view, rec, at)
    placed = t.puts.get(rec.id)
    if placed is not None and rec.id in t.created and placed.depends_on:
        for key in placed.dependency_keys:
            t.deps.setdefault(key, []).append(placed.id)
        if ended is not None and placed.status in _HOLDING:
            t.put(_needs_review(placed, at, ended), Change.NEEDS_REVIEW, because=ended)
    return t


def _with_dependencies(view: UserView, rec: Record) -> tuple[Record, str | None]:
    """`rec` with its `depends_on` ids resolved (through aliases) and the earliest end among its
    dependencies; and why it already needs review when one of them is no longer current."""
    if not rec.depends_on:
        return rec, None
    resolved: list[str] = []
    ends: list[datetime] = []
    ended: str | None = None
    for dep in rec.depends_on:
        if dep.startswith(SLOT_DEPENDENCY):
            resolved.append(dep)
            attribute = dep[len(SLOT_DEPENDENCY) :]
            for sk, _ids in view.slots.items():
                subject, attr, _ = sk.split("|", 2)
                if subject == rec.subject and attr == attribute:
                    ends += [r.valid_until for r in view.live(sk) if r.valid_until is not None]
            continue
        target = check_dependency(dep, view.get(dep))
        resolved.append(target.id)
        if target.valid_until is not None:
            ends.append(target.valid_until)
        if target.status not in _HOLDING or target.superseded_by:
            ended = ended or f"{target.id} ({target.attribute}) is {target.status.value}"
    update: dict[str, Any] = {"depends_on": resolved, "dependency_until": min(ends) if ends else None}
    return rec.model_copy(update=update), ended


def _needs_review(rec: Record, at: datetime, why: str) -> Record:
    return rec.model_copy(
        update={"status": Status.NEEDS_REVIEW, "status_reason": f"depends on {why}", "updated_at": at}
    )


# what makes a record's dependents need review: it no longer holds as it was
_ENDED = frozenset({Status.SUPERSEDED, Status.RETRACTED, Status.DELETED, Status.EXPIRED, Status.NEEDS_REVIEW})


def _propagate(view: UserView, t: Transition, at: datetime) -> None:
    """Rule 9 (dependent facts): every record derived from one this op corrected, retracted,
    forgot, expired or sent to review needs review itself, transitively, in the same transition."""
    queue: list[Record] = []
    for rec in list(t.puts.values()):
        before = view.records.get(rec.id)
        newly_ended = rec.status in _ENDED and (before is None or before.status != rec.status)
        newly_replaced = rec.superseded_by is not None and (before is None or before.superseded_by is None)
        if newly_ended or newly_replaced:
            queue.append(rec)
    seen = {r.id for r in queue}
    while queue:
        cause = queue.pop(0)
        if cause.status == Status.DELETED:
            what = "forgotten"
        else:
            what = "corrected" if cause.superseded_by else cause.status.value
        by_slot = dependency_key(cause.subject, SLOT_DEPENDENCY + cause.attribute)
        for key in (dependency_key(cause.subject, cause.id), by_slot):
            for rid in view.dependents.get(key, []) + t.deps.get(key, []):
                if rid in seen:
                    continue
                dependent = t.puts.get(rid) or view.records.get(rid)
                if dependent is None or dependent.status not in _HOLDING:
                    continue
                seen.add(rid)
                why = f"{cause.id} ({cause.attribute}), {what}"
                queue.append(t.put(_needs_review(dependent, at, why), Change.NEEDS_REVIEW, because=cause.id))


def _stopped(view: UserView, rec: Record, t: Transition) -> bool:
    """Rule 6: an erased user, or a suppressed value, takes nothing automatic or older back."""
    if view.erased_at is not None and rec.observed_at <= view.erased_at:
        t.outcome, t.reason = Outcome.DROPPED, Reason.USER_ERASED.value
        t.changes.append({"type": Change.DROPPED, "reason": t.reason, "attribute": rec.attribute})
        return True
    blocking = _blocking_suppressions(view, rec)
    if not blocking:
        return False
    if rec.authority != Authority.USER_EXPLICIT or any(rec.observed_at <= s.at for s in blocking):
        # neither automatic extraction nor a replay of old topics rebuilds a deletion
        t.outcome, t.reason = Outcome.DROPPED, Reason.SUPPRESSED.value
        t.changes.append({"type": Change.DROPPED, "reason": t.reason, "attribute": rec.attribute, "scope": rec.scope})
        return True
    for s in blocking:  # the user says it again, later: their word lifts it where they say it
        if s.lifted_by(rec.scope):
            t.unsuppress.append(s.key)
            t.changes.append({"type": Change.UNSUPPRESSED, "attribute": s.attribute, "key": s.key})
    return False


def _resent(view: UserView, rec: Record, at: datetime, t: Transition) -> bool:
    """A producer resending a record under its id: never overwrite what is stored (a tombstone
    stays a tombstone); the same value refreshes, anything else is a conflicting reuse."""
    same_id = view.get(rec.id)
    if same_id is None or not reuses_id(rec, same_id):
        return False
    if same_id.status == Status.DELETED:
        t.outcome, t.reason = Outcome.DROPPED, Reason.SUPPRESSED.value
        t.changes.append({"type": Change.DROPPED, "reason": t.reason, "record_id": rec.id})
        return True
    if same_id.status in LIVE_STATUSES:
        _refresh(t, same_id, rec.model_copy(update={"id": same_id.id}), at, "resent")
        t.outcome = Outcome.REFRESHED
    else:
        t.outcome, t.reason = Outcome.NOOP, "record no longer current"
    return True


def _explicit_correction(view: UserView, rec: Record, live: list[Record], at: datetime, t: Transition) -> bool:
    """Rule 1: an explicit correction that names its target (or the slot's current record) is
    applied before duplicate detection; rule 8: a user's word never corrects a business fact."""
    target_id = rec.corrects
    if target_id is None and rec.corrects_current:
        current = current_of(live)
        target_id = current.id if current is not None else None
    if not target_id or rec.authority != Authority.USER_EXPLICIT:
        return False
    target = view.get(target_id)
    if (
        target is None
        or target.slot != rec.slot
        or target.status not in LIVE_STATUSES
        or Kind.FACT in (target.kind, rec.kind)
    ):
        reason = "target not live in the same slot" if target else "target not found"
        t.changes.append(
            {"type": Change.CORRECTION_IGNORED, "record_id": rec.id, "target": target_id, "reason": reason}
        )
        return False
    if target.normalized_value == rec.normalized_value:
        refreshed = _refresh(t, target, rec, at, "correction with the same value")
        if refreshed.status in (Status.CANDIDATE, Status.CONFLICTED, Status.PENDING_REVIEW):
            confirmed: dict[str, Any] = {"status": Status.ACTIVE, "authority": Authority.USER_EXPLICIT}
            refreshed = t.put(refreshed.model_copy(update=confirmed), Change.CONFIRMED)
        _settle_slot(t, live, refreshed, at)
        t.outcome = Outcome.REFRESHED
        return True
    t.created.append(rec.id)
    new = t.put(
        rec.model_copy(update={"status": Status.ACTIVE, "supersedes": target.id}), Change.CREATED, corrects=target.id
    )
    _supersede(t, target, new, at)
    _settle_slot(t, [c for c in live if c.id != target.id], new, at)
    # the value corrected away stays away: no inference, and no copy of a statement made before
    # the correction, adds it to this slot again; only the user's own later statement does
    corrected = _suppression(t, target, target.scope, at, "corrected", [target.id])
    t.suppress.append(corrected)
    t.changes.append({"type": Change.SUPPRESSED, "attribute": target.attribute, "key": corrected.key})
    return True


def _repeat(live: list[Record], rec: Record, at: datetime, t: Transition) -> bool:
    """Rule 2: a plain repeat of a value the slot holds refreshes it."""
    authoritative = rec.authority == Authority.AUTHORITATIVE_SOURCE
    for cur in live:
        if cur.valid_until is not None and cur.valid_until <= _start(rec):
            continue  # a lapsed window is not repeated: the value starts again as a new record
        if (
            cur.normalized_value == rec.normalized_value
            and cur.kind == rec.kind
            and (cur.authority == Authority.AUTHORITATIVE_SOURCE) == authoritative
        ):
            _refresh(t, cur, rec, at, "repeat")
            t.outcome = Outcome.REFRESHED
            return True
    return False


def _forget_record(
    view: UserView, rec: Record, at: datetime, t: Transition, targets: dict[str, Record]
) -> list[Suppression]:
    """A forget naming one record: it, the same value elsewhere in its slot's history (or it would
    come back) and the values it replaced (its correction chain: the user deleted those as well),
    each value suppressed in the scope it was forgotten in."""
    targets[rec.id] = rec
    for rid in view.history.get(rec.slot, ()):
        other = view.records.get(rid)
        if other and other.status != Status.DELETED and other.normalized_value == rec.normalized_value:
            targets[other.id] = other
    for other in _replaced_chain(view, rec):
        if other.status != Status.DELETED:
            targets[other.id] = other
    by_value: dict[str, list[str]] = {}
    for other in targets.values():
        by_value.setdefault(other.normalized_value, []).append(other.id)
    suppressions: list[Suppression] = []
    for ids in by_value.values():
        first = targets[ids[0]]
        suppressions.append(_suppression(t, first, rec.scope, at, "forget", sorted(ids)))
        t.as_matches.append(
            {"subject": first.subject, "attribute": first.attribute, "value": first.value, "scope": rec.scope}
        )
    return suppressions


def _forget_match(
    view: UserView, m: Match, at: datetime, t: Transition, targets: dict[str, Record], suppressions: list[Suppression]
) -> None:
    """A forget by attribute (and value): every live record it matches, with the values each
    replaced, and a suppression for the match itself."""
    wanted = normalize_value(m.value) if m.value is not None else None
    for other in _matched(view, m):
        if other.status == Status.DELETED or (wanted is not None and other.normalized_value != wanted):
            continue
        targets[other.id] = other
        for replaced in _replaced_chain(view, other):
            if replaced.status != Status.DELETED:
                targets[replaced.id] = replaced
                vh = value_hash(t.tenant, t.user, replaced.attribute, replaced.normalized_value)
                if all(s.value_hash != vh for s in suppressions):
                    suppressions.append(
                        _suppression(t, replaced, m.scope or replaced.scope, at, "forget", [replaced.id])
                    )
    match_hash = value_hash(t.tenant, t.user, m.attribute, wanted) if wanted is not None else None
    suppressions.append(
        Suppression(attribute=m.attribute, scope=m.scope, at=at, record_ids=sorted(targets), value_hash=match_hash)
    )
    if wanted is None:
        # each forgotten value is suppressed on its own too: a later explicit statement of a NEW
        # value lifts the attribute-wide entry, but the forgotten values stay forgotten
        for rec in targets.values():
            vh = value_hash(t.tenant, t.user, rec.attribute, rec.normalized_value)
            if all(s.value_hash != vh for s in suppressions):
                suppressions.append(
                    Suppression(attribute=rec.attribute, scope=m.scope, at=at, record_ids=[rec.id], value_hash=vh)
                )


def _forget(view: UserView, cmd: ForgetCommand, at: datetime, t: Transition) -> Transition:
    targets: dict[str, Record] = {}
    suppressions: list[Suppression] = []
    # "forget what I said about my knee" of "training for a 10k, and I've got a dodgy knee": the
    # statement, kept in the user's words, goes whole (its history too) and what it says of
    # anything else comes back as a new record
    rest: tuple[Record, str] | None = None
    named: list[Record] = []
    if cmd.about:
        found = resolve_forget(eligible(view.records.values(), _all_scopes(view), restating=False), cmd.about)
        if not found.targets and not cmd.record_id and cmd.match is None:
            t.outcome, t.reason = Outcome.NOOP, found.why
            return t
        quoting = [r for r in found.targets if only_quotes(r, cmd.about)]
        named = [r for r in found.targets if r not in quoting]
        for rec in named:
            suppressions += _forget_record(view, rec, at, t, targets)
        for rec in quoting:
            _requote(rec, cmd.about, at, t)
        if len(named) == 1 and named[0].attribute.startswith(VERBATIM):
            kept = without_clauses(named[0].statement, cmd.about)
            rest = (named[0], kept) if kept else None
    if cmd.record_id:
        rec = check_target(cmd, view.get(cmd.record_id))
        if rec.status == Status.DELETED:
            t.outcome, t.reason = Outcome.NOOP, "already deleted"
            return t
        suppressions = _forget_record(view, rec, at, t, targets)
    if cmd.match is not None:
        _forget_match(view, cmd.match, at, t, targets, suppressions)
    if rest is not None:
        _replaced(view, rest[0], rest[1], rest[1], None, at, t)  # (the forgotten version is tombstoned below)
    elif cmd.about:
        for rec in named:
            if not rec.attribute.startswith(VERBATIM):
                _said_beside(view, rec, cmd.about, tuple(named), at, t)
    for rec in targets.values():
        t.put(_tombstone(rec, at, "forgotten"), Change.DELETED)
    for s in suppressions:
        t.suppress.append(s)
        t.changes.append({"type": Change.SUPPRESSED, "attribute": s.attribute, "key": s.key})
    return t


def _requote(rec: Record, about: list[str], at: datetime, t: Transition) -> None:
    """A record whose value the forget does not name, but whose quote does ("I'm a nurse, … and
    I'm going through a divorce" for the occupation "nurse"): it stays, quoted without the clauses
    naming what was forgotten (or by its value alone), in place, so no version keeps them."""
    quote = without_clauses(rec.statement, about) or str(rec.value)
    evidence = [
        EvidenceEntry(source_type=e.source_type, source_id=e.source_id, at=e.at, quote=quote if e.quote else None)
        for e in rec.evidence
    ]
    t.put(rec.model_copy(update={"statement": quote, "evidence": evidence, "updated_at": at}), Change.REQUOTED)


def _all_scopes(view: UserView) -> set[str]:
    return {r.scope for r in view.records.values()}


def _restate(view: UserView, cmd: RestateCommand, at: datetime, t: Transition) -> Transition:
    """A new value for a record found by what the sentence says of it (memory/resolution.py): a
    correction of that record (rule 1), and the same value held elsewhere ends with it. Ambiguous:
    nothing changes, and the session gets a note to ask the user."""
    scopes = {"global"}
    if cmd.project:
        scopes.add(f"project:{cmd.project}")
    if cmd.session:
        scopes.add(f"session:{cmd.session}")
    records = [
        r for r in eligible(view.records.values(), scopes, restating=True) if r.attribute not in cmd.except_attributes
    ]
    found = resolve_restatement(records, cmd.value, cmd.about, cmd.old_value, cmd.change, at, cmd.statement)
    if found.ambiguous:
        return _pending_correction(cmd, found.candidates, at, t)
    if not found.targets:
        if cmd.change and cmd.evidence and cmd.old_value is None and value_kind(cmd.value) in SPECIFIC_KINDS:
            # a change said with a value no record holds a value of its kind for ("the pub quiz
            # moved to 8pm" and "I play in a pub quiz team" kept as a hobby): what it says holds
            # now, as news does, in place of the one record clearly closest to it
            replaced = _replaced_by_statement(view, cmd.statement, at, t, cmd.evidence[0])
            if replaced.outcome != Outcome.NOOP:
                return replaced
        t.outcome, t.reason = Outcome.NOOP, found.why
        return t
    first, *others = found.targets
    # a statement in the user's words is replaced by itself with the new value in place of the old
    # one ("our sync is every Wednesday at 10" -> "... every Thursday at 10"), else by the new
    # sentence as said
    value = cmd.value
    statement = cmd.statement
    if first.attribute.startswith(VERBATIM):
        value = statement = restated(first.statement, cmd.value) or cmd.statement
    elif isinstance(first.value, str) and value_kind(cmd.value) == "number":
        # "make it 40" for "under $30 a head": the amount as it was said, with the new number
        value = restated(first.value, cmd.value) or cmd.value
    elif isinstance(first.value, str) and value_kind(first.value) == "text" and value_kind(cmd.value) != "text":
        # a phrase of the user's keeps its words, with the new day, amount or count in place of
        # the old one ("swim laps every tuesday" -> "... every monday"), and so does its statement
        rewritten = restated(first.value, cmd.value)
        if rewritten is not None:
            value = rewritten
            statement = restated(first.statement, cmd.value) or cmd.statement
    new = _replaced(view, first, value, statement, cmd.evidence, at, t)
    if new is None:
        return t
    for other in others:
        if other.id not in t.puts:
            _supersede(t, other, new, at)
    t.changes.append(
        {"type": Change.RESOLVED, "record_id": new.id, "targets": [r.id for r in found.targets], "why": found.why}
    )
    return t


def _replaced(
    view: UserView,
    first: Record,
    value: Any,
    statement: str | None,
    evidence: list[Any] | None,
    at: datetime,
    t: Transition,
) -> Record | None:
    """A correction of `first` by the user's word (rule 1), evidence defaulting to the record's own:
    the new live record, or None when it did not become live."""
    rin = RecordIn(
        id=derive_id("r_", t.op_id),
        tenant=t.tenant,
        user=t.user,
        kind=first.kind.value,
        subject=first.subject,
        attribute=first.attribute,
        scope=first.scope,
        value=value,
        statement=statement,
        authority=Authority.USER_EXPLICIT,
        importance=first.importance,
        consequence=first.consequence,
        actionability=first.actionability,
        sensitivity=first.sensitivity,
        evidence=evidence or [e.to_wire() for e in first.evidence[:1]],
        corrects=first.id,
    )
    _reconcile_record(view, build_record(rin, op_id=t.op_id, at=at), at, t)
    new = t.puts.get(rin.id or "")
    return new if new is not None and new.status in LIVE_STATUSES else None


def _pending_correction(cmd: RestateCommand, candidates: tuple[Record, ...], at: datetime, t: Transition) -> Transition:
    """An ambiguous correction: nothing is replaced; in a session, a note the agent sees there."""
    options = "; ".join(f"{c.value} ({c.attribute})" for c in candidates)
    t.changes.append(
        {"type": Change.CORRECTION_IGNORED, "reason": "ambiguous", "candidates": [c.id for c in candidates]}
    )
    if not cmd.session:
        t.outcome, t.reason = Outcome.NOOP, f"ambiguous: could replace {options}"
        return t
    rin = RecordIn(
        id=derive_id("r_", t.op_id),
        tenant=t.tenant,
        user=t.user,
        kind=Kind.SESSION_CONTEXT.value,
        attribute=PENDING_CORRECTION,
        scope=f"session:{cmd.session}",
        value=cmd.value,
        statement=f'Not applied, ambiguous: "{cmd.statement}" could replace {options}. Ask the user which.',
        authority=Authority.USER_EXPLICIT,
        evidence=cmd.evidence,
    )
    rec = build_record(rin, op_id=t.op_id, at=at)
    t.created.append(rec.id)
    t.put(rec.model_copy(update={"status": Status.ACTIVE}), Change.CREATED)
    return t


def _matched(view: UserView, m: Match) -> list[Record]:
    """Every record (any status) in the slots a match names, oldest first per slot."""
    out: list[Record] = []
    for sk, ids in sorted(view.history.items()):  # by slot key, as _blocking_suppressions says why
        subject, attribute, scope = sk.split("|", 2)
        if subject != m.subject or not m.attribute_matches(attribute) or (m.scope and scope != m.scope):
            continue
        out += [view.records[rid] for rid in ids if rid in view.records]
    return out


def _retract(view: UserView, cmd: RetractCommand, at: datetime, t: Transition) -> Transition:
    """The user invalidates a record without a new value: it leaves the slot (which then has no
    current value), its value is kept from coming back there automatically, lineage keeps why."""
    if cmd.replaced_by and not cmd.about and not cmd.record_id and cmd.match is None:
        return _replaced_by_statement(view, cmd.replaced_by, at, t, cmd.said_in)
    if cmd.about and not cmd.record_id and cmd.match is None:
        return _retract_described(view, cmd, cmd.about, at, t)
    if cmd.record_id:
        targets = [check_target(cmd, view.get(cmd.record_id))]
    else:
        assert cmd.match is not None
        wanted = normalize_value(cmd.match.value) if cmd.match.value is not None else None
        targets = [
            r
            for r in _matched(view, cmd.match)
            if r.status in LIVE_STATUSES and (wanted is None or r.normalized_value == wanted)
        ]
        if cmd.latest and targets:
            targets = [max(targets, key=lambda r: (r.observed_at, r.updated_at, r.id))]
    targets = [r for r in targets if r.status in LIVE_STATUSES]
    if not targets:
        t.outcome, t.reason = Outcome.NOOP, Reason.TARGET_NOT_FOUND.value
        return t
    if any(r.kind == Kind.FACT for r in targets):
        raise Rejected(Reason.SOURCE_NOT_AUTHORIZED, "facts change only through an authorized source")
    for rec in targets:
        _retracted(rec, "retracted by the user", at, t)
    return t


def _retracted(rec: Record, why: str, at: datetime, t: Transition) -> None:
    """A record leaves its slot as retracted, its value kept from coming back there automatically."""
    t.put(rec.model_copy(update={"status": Status.RETRACTED, "status_reason": why, "updated_at": at}), Change.RETRACTED)
    kept_out = _suppression(t, rec, rec.scope, at, "retracted", [rec.id])
    t.suppress.append(kept_out)
    t.changes.append({"type": Change.SUPPRESSED, "attribute": rec.attribute, "key": kept_out.key})


def _replaced_by_statement(
    view: UserView, statement: str, at: datetime, t: Transition, said_in: Evidence | None = None
) -> Transition:
    """ "I work from my kitchen table now": what the user says holds now ends the one earlier record
    clearly closest to it in meaning ("I work from the office in town"); none clearly closest, nothing ends.
    What was said in this turn or later is never a target (the statement is kept beside it).
    `said_in`: the statement is kept here, in the ended record's scope, and only if one ended."""
    records = [
        r
        for r in eligible(view.records.values(), _all_scopes(view), restating=False)
        if r.kind != Kind.FACT and r.observed_at < at and r.statement != statement
    ]
    found = resolve_replacement(records, statement, news=said_in is not None)
    if not found.targets:
        t.outcome, t.reason = Outcome.NOOP, found.why
        return t
    for rec in found.targets:
        _retracted(rec, "replaced by what the user said now", at, t)
        if said_in is None:
            _said_beside(view, rec, [statement], found.targets, at, t)
        else:  # (news names the thing it changes loosely: what the record said of other areas stays)
            rest = of_other_areas(rec.statement, statement) or ""
            _said_beside(view, rec, [statement], found.targets, at, t, rest=rest)
    t.changes.append({"type": Change.RESOLVED, "targets": [r.id for r in found.targets], "why": found.why})
    if said_in is not None:
        _kept_in_place(view, found.targets[0], statement, said_in, at, t)
    return t


def _kept_in_place(
    view: UserView, ended: Record, statement: str, said_in: Evidence, at: datetime, t: Transition
) -> None:
    """What the user said holds now, kept in their words where the record it ended was (its scope,
    its authority), read as any statement is."""
    evidence = [said_in.model_copy(update={"quote": statement, "at": said_in.at or at}).model_dump()]
    _kept_as_statement(view, statement, ended.scope, Authority.USER_EXPLICIT, evidence, at, t, "holds now")


def _kept_as_statement(
    view: UserView,
    text: str,
    scope: str,
    authority: Authority | str,
    evidence: list[dict[str, Any]],
    at: datetime,
    t: Transition,
    *id_parts: str,
) -> None:
    """Words of the user's kept as a statement of its own, read as any statement is (its area, a
    safety-relevant one as health, a time bound it says)."""
    from .extraction.open_statement import statement_hit  # (the reading of statements: loaded on first use)

    hit = statement_hit(text, at)
    rin = RecordIn(
        id=derive_id("r_", t.op_id, *id_parts),
        tenant=t.tenant,
        user=t.user,
        kind=hit.kind.value,
        attribute=hit.attribute,
        scope=scope,
        value=text,
        statement=text,
        authority=authority,
        valid_until=hit.valid_until,
        evidence=evidence,
    )
    _reconcile_record(view, build_record(rin, op_id=t.op_id, at=at), at, t)


def _retract_described(
    view: UserView, cmd: RetractCommand, about: list[str], at: datetime, t: Transition
) -> Transition:
    """ "I quit the gym": the records the words name leave their slots; a statement kept in the
    user's words loses only the clauses naming it ("I'm in a book club that meets on Tuesdays,
    and I read mostly sci-fi": the sci-fi stays)."""
    records = [r for r in eligible(view.records.values(), _all_scopes(view), restating=False) if r.kind != Kind.FACT]
    found = resolve_retraction(records, about)
    if not found.targets:
        t.outcome, t.reason = Outcome.NOOP, found.why
        return t
    for rec in found.targets:
        rest = without_clauses(rec.statement, about) if rec.attribute.startswith(VERBATIM) else None
        if rest:
            _replaced(view, rec, rest, rest, None, at, t)
            continue
        _retracted(rec, "retracted by the user", at, t)
        _said_beside(view, rec, about, found.targets, at, t)
    t.changes.append({"type": Change.RESOLVED, "targets": [r.id for r in found.targets], "why": found.why})
    return t


def _said_beside(
    view: UserView,
    rec: Record,
    about: list[str],
    ended: tuple[Record, ...],
    at: datetime,
    t: Transition,
    rest: str | None = None,
) -> None:
    """What the sentence a record was read from said beside it outlives it ("I'm on blood thinners
    and I volunteer at the food bank on Sundays", the blood thinners ended): the other records read
    from the same sentence are quoted without what ended; with none, what it said beside is kept
    in the user's words, as a statement of its own."""
    rest = rest if rest is not None else without_clauses(rec.statement, about)
    if not rest:
        return
    ended_ids = {r.id for r in ended}
    siblings = [
        r
        for r in view.records.values()
        if r.id not in ended_ids and r.status in LIVE_STATUSES and r.statement == rec.statement
    ]
    if siblings:
        for sibling in siblings:
            if sibling.id not in t.puts:
                _requote(sibling, about, at, t)
        return
    if any(r.statement == rest and r.status in LIVE_STATUSES for r in t.puts.values()):
        return  # (two records of one sentence ended: what it said beside is kept once)
    evidence = [
        {"source_type": e.source_type, "source_id": e.source_id, "quote": rest if e.quote else None, "at": e.at}
        for e in rec.evidence[:1]
    ]
    _kept_as_statement(view, rest, rec.scope, rec.authority, evidence, at, t, "said beside", rec.id)


def check_move(cmd: MoveCommand, moving: list[str], at_destination: list[Record]) -> bool:
    """Whether a move has anything to move (`moving`: the source slot's records); Rejected when
    its destination slot holds a live value (`at_destination`). The engine's rule, which the
    sidecar checks before it produces the move."""
    if not moving:
        return False
    if at_destination:
        raise Rejected(Reason.SCOPE_OCCUPIED, f"{cmd.attribute} already has a value in {cmd.to_scope}")
    return True


def _move(view: UserView, cmd: MoveCommand, at: datetime, t: Transition) -> Transition:
    """A slot and its history to another scope: "keep this for the whole project". A value that
    lived "this time" only becomes lasting in a wider scope; its suppressions move with it."""
    source = slot_key(cmd.subject, cmd.attribute, cmd.from_scope)
    dest = slot_key(cmd.subject, cmd.attribute, cmd.to_scope)
    ids = [rid for rid in view.history.get(source, []) if rid in view.records]
    if not check_move(cmd, ids, view.live(dest)):
        t.outcome, t.reason = Outcome.NOOP, Reason.TARGET_NOT_FOUND.value
        return t
    widening = cmd.from_scope.startswith("session:") and not cmd.to_scope.startswith("session:")
    for rid in ids:
        rec = view.records[rid]
        update: dict[str, Any] = {"scope": cmd.to_scope, "updated_at": at}
        start = rec.valid_from or rec.observed_at
        if widening and rec.valid_until is not None and rec.valid_until - start == TEMPORARY_LIFETIME:
            lifetime = resolve(rec.attribute, rec.kind).lifetime
            update["valid_until"] = start + lifetime if lifetime else None
        t.moved[rid] = source
        t.put(rec.model_copy(update=update), Change.MOVED, **{"from": cmd.from_scope})
    for _, s in sorted(view.suppressions.items()):  # by key, as _blocking_suppressions says why
        if s.attribute == cmd.attribute and s.scope == cmd.from_scope:
            t.unsuppress.append(s.key)
            t.suppress.append(s.model_copy(update={"scope": cmd.to_scope}))
    return t


def _restore(view: UserView, cmd: RestoreCommand, at: datetime, t: Transition) -> Transition:
    """The user lifts suppressions explicitly: automatic input may bring the value back (nothing
    forgotten is rebuilt by this: a tombstone keeps no value)."""
    m = cmd.match
    wanted = value_hash(t.tenant, t.user, m.attribute, normalize_value(m.value)) if m.value is not None else None
    keys = [
        s.key
        for _, s in sorted(view.suppressions.items())  # by key, as _blocking_suppressions says why
        if m.attribute_matches(s.attribute)
        and (m.scope is None or s.scope == m.scope)
        and (wanted is None or s.value_hash == wanted)
    ]
    if not keys:
        t.outcome, t.reason = Outcome.NOOP, "nothing suppressed"
        return t
    for key in keys:
        t.unsuppress.append(key)
        t.changes.append({"type": Change.UNSUPPRESSED, "attribute": view.suppressions[key].attribute, "key": key})
    return t


def _confirm(view: UserView, cmd: ConfirmCommand, at: datetime, t: Transition) -> Transition:
    target = check_target(cmd, view.get(cmd.record_id))
    confirmed = t.put(
        target.model_copy(
            update={
                "status": Status.ACTIVE,
                "authority": Authority.USER_EXPLICIT,
                "updated_at": at,
                "status_reason": "confirmed by user",
                "review_at": None if target.status == Status.REVIEW_DUE else target.review_at,
            }
        ),
        Change.CONFIRMED,
    )
    if target.cardinality == Cardinality.SINGLE:
        for cur in view.live(target.slot):
            if cur.id != target.id and cur.status in _HOLDING and cur.normalized_value != target.normalized_value:
                _supersede(t, cur, confirmed, at)
    return t


_COMMANDS: dict[type, Callable[[UserView, Any, datetime, Transition], Transition]] = {
    EraseUserCommand: _erase,
    RestateCommand: _restate,
    ForgetCommand: _forget,
    CorrectCommand: _correct,
    ConfirmCommand: _confirm,
    RejectCommand: _reject,
    ExpireCommand: _sweep,
    ReviewDueCommand: _sweep,
    RetractCommand: _retract,
    MoveCommand: _move,
    RestoreCommand: _restore,
}

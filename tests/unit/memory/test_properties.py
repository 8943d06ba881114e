"""Property-based tests (hypothesis) for the engine's invariants.

Pure (no Redis), over random op sequences on one user, run through the same path the engine uses
(`validate_op` -> `reconcile` -> `UserView.apply`):
  (a) at any instant a single-valued slot has at most one usable value;
  (b) an inferred record never supersedes an explicit one;
  (c) a deleted record's value is never in a later `select` output (until the user states it again).
The Redis-backed properties are in tests/integration/state/test_properties.py.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hypothesis import given, note, settings
from hypothesis.control import currently_in_test_context

from slotstream.memory.models import (
    INFERRED_AUTHORITIES,
    Authority,
    Cardinality,
    ConfirmCommand,
    CorrectCommand,
    Record,
    Status,
    iso,
    to_ms,
)
from slotstream.memory.reconcile import Transition, UserView
from slotstream.memory.selection import exclusion_reason, from_record, select
from slotstream.memory.validation import normalize_value

from simulation import Sim
from strategies import PURE, SAMPLE_OFFSETS, T0, D, H, op_sequences, request_all

Check = Callable[[UserView, dict[str, Record], Transition, Any, datetime], None]


def run_pure(ops: list[dict[str, Any]], *checks: Check) -> UserView:
    """Apply wire ops to an in-memory view as the engine does; call each check after each transition."""
    sim = Sim()
    for raw in ops:
        before = dict(sim.view.records)
        done = sim.apply_wire(raw)
        if done is None:
            continue
        t, parsed, at = done
        if currently_in_test_context():
            note(f"{raw} -> {t.outcome} {[(r.id, r.value, r.status.value) for r in t.puts.values()]}")
        for check in checks:
            check(sim.view, before, t, parsed, at)
    return sim.view


# --- (a) at most one usable value per single-valued slot at any instant --------------------------


def check_one_usable_value(view: UserView, before: dict[str, Record], t: Transition, op: Any, at: datetime) -> None:
    req = request_all()
    scopes = req.scopes()
    for offset in SAMPLE_OFFSETS:
        when = to_ms(at + offset)
        usable: dict[tuple[str, str], set[str]] = {}
        for rec in view.records.values():
            if rec.cardinality != Cardinality.SINGLE:
                continue
            if exclusion_reason(from_record(rec), when, req, scopes) is None:
                usable.setdefault((rec.attribute, rec.scope), set()).add(rec.normalized_value)
        for slot, values in usable.items():
            assert len(values) <= 1, f"{slot} has {values} usable at {at + offset}"


# --- (b) an inferred record never supersedes an explicit one -------------------------------------


def check_inferred_never_supersedes_explicit(
    view: UserView, before: dict[str, Record], t: Transition, op: Any, at: datetime
) -> None:
    for rec in t.puts.values():
        old = before.get(rec.id)
        if rec.superseded_by is None or (old is not None and old.superseded_by == rec.superseded_by):
            continue  # not superseded by this op
        prior_authority = old.authority if old is not None else rec.authority
        by = view.records[rec.superseded_by]
        if prior_authority == Authority.USER_EXPLICIT:
            assert by.authority not in INFERRED_AUTHORITIES, f"inferred {by.id} superseded explicit {rec.id}"
            assert by.authority == Authority.USER_EXPLICIT, f"{by.id} ({by.authority}) superseded explicit {rec.id}"
            # a superseder that was inferred before this op must have been made explicit by the user
            # in this very op: a confirm, a correction naming it, or the user stating its value
            was = before.get(by.id)
            if was is not None and was.authority in INFERRED_AUTHORITIES:
                assert isinstance(op, (ConfirmCommand, CorrectCommand)) or (
                    isinstance(op, Record)
                    and op.authority == Authority.USER_EXPLICIT
                    and op.normalized_value == by.normalized_value
                ), f"{by.id} was inferred: {op!r}"


# --- (c) a deleted value stays out of every later context -------------------------------------


class ForgottenTracker:
    """(attribute, scope, normalized value) of every tombstoned record, until the user states the value
    again (an accepted explicit record or correction, or a confirm)."""

    def __init__(self) -> None:
        self.keys: set[tuple[str, str, str]] = set()

    def __call__(self, view: UserView, before: dict[str, Record], t: Transition, op: Any, at: datetime) -> None:
        if t.erase:
            self.keys.clear()  # nothing left to leak: the view is empty
        restated: tuple[str, str] | None = None
        if isinstance(op, Record) and op.authority == Authority.USER_EXPLICIT and t.outcome != "dropped":
            restated = (op.attribute, op.normalized_value)
        elif isinstance(op, CorrectCommand) and t.created:
            new = t.puts[t.created[0]]
            restated = (new.attribute, new.normalized_value)
        elif isinstance(op, ConfirmCommand):
            confirmed = next(c["record_id"] for c in t.changes if c["type"] == "confirmed")
            tgt = before[confirmed]
            restated = (tgt.attribute, tgt.normalized_value)
        if restated is not None:
            self.keys = {k for k in self.keys if (k[0], k[2]) != restated}
        for rec in t.puts.values():
            old = before.get(rec.id)
            if rec.status == Status.DELETED and old is not None and old.status != Status.DELETED:
                assert rec.value is None
                self.keys.add((old.attribute, old.scope, old.normalized_value))
        for offset in (timedelta(0), H):
            out = select(request_all(), [from_record(r) for r in view.records.values()], at + offset)
            for item in out.items:
                key = (item.attribute, item.scope, normalize_value(item.value))
                assert key not in self.keys, f"forgotten {key} is back in the context ({item.id})"
                assert view.records[item.id].status != Status.DELETED


@settings(PURE)
@given(op_sequences())
def test_a_single_valued_slot_has_at_most_one_usable_value(ops):
    run_pure(ops, check_one_usable_value)


def test_one_usable_value_after_correcting_a_waiting_record():
    at = [iso(T0 + i * H) for i in range(3)]
    base = {"tenant": "t1", "user": "u1", "attribute": "preference.response.detail"}
    run_pure(
        [
            {"at": at[0], "op_id": "o0", "record": {**base, "id": "r0", "value": "vA"}},
            {
                "at": at[1],
                "op_id": "o1",
                "record": {**base, "id": "r1", "value": "vB", "authority": "system_inferred", "confidence": 0.9},
            },
            {"at": at[2], "op_id": "o2", "record": {**base, "id": "r2", "value": "vC", "corrects": "r1"}},
        ],
        check_one_usable_value,
    )


def test_one_usable_value_after_repeating_a_lapsed_value():
    at = [iso(T0), iso(T0 + D), iso(T0 + D + H)]
    base = {"tenant": "t1", "user": "u1", "attribute": "preference.response.detail", "scope": "session:s1"}
    run_pure(
        [  # "this time vB" (4 hours), next day "this time vA", then "this time vB" again
            {"at": at[0], "op_id": "o0", "record": {**base, "id": "r0", "value": "vB"}},
            {"at": at[1], "op_id": "o1", "record": {**base, "id": "r1", "value": "vA"}},
            {"at": at[2], "op_id": "o2", "record": {**base, "id": "r2", "value": "vB"}},
        ],
        check_one_usable_value,
    )


@settings(PURE)
@given(op_sequences())
def test_an_inferred_record_never_supersedes_an_explicit_one(ops):
    run_pure(ops, check_inferred_never_supersedes_explicit)


@settings(PURE)
@given(op_sequences())
def test_a_deleted_value_never_comes_back_on_its_own(ops):
    run_pure(ops, ForgottenTracker())

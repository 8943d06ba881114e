"""apply.lua's arguments: each transition as a flat run of strings.

The script reads its arguments in order with a cursor; it decodes no JSON to find them (decoding a
user's transitions as one JSON document cost the script more than any single write it makes). The
record, read-model row, suppression, log and ledger texts are passed as they will be stored.
The layout is documented at the top of apply.lua; the two change together.

Where the engine's view holds a slot's live list whole, the list as the transition leaves it is
sent too (the script writes it without reading the stored one); where it does not, the script
works the list out itself. Likewise a row's scope is marked new unless the engine knows the user's
scope list holds it already.
"""

from __future__ import annotations

from typing import Any

import orjson

from slotstream.memory.models import LIVE_STATUSES, READ_MODEL_STATUSES, SLOT_ONLY_REASONS, iso, to_ms
from slotstream.memory.reconcile import Transition
from slotstream.memory.selection import compact

from .codec import (
    encode_changes,
    encode_ledger_entry,
    encode_record,
    encode_row,
    encode_suppression,
    encode_tail,
    suppression_field,
)
from .read_index import index_entry


def _flag(value: bool) -> str:
    return "1" if value else "0"


# a slot's live list argument: the script reads the stored list and works the change out itself
WORK_OUT = b"?"
# ... the list is as it was (a later put of the same transition in a slot already sent says this too)
UNCHANGED = b""


class KnownState:
    """What the engine's view knows of one user's stored state that spares apply.lua a read: the
    live lists it holds whole and the scopes the user's scope list holds. One per user's batch,
    told each transition in turn (`transition_args`)."""

    def __init__(self, slots: dict[str, list[str]], held: set[str], listed: set[str] | None, scopes: set[str]) -> None:
        self.slots = slots  # the view's live lists, reconciled in place
        self.held = held  # slots whose live list the view holds whole
        self.listed = listed  # every slot key the user had when loaded (None: not listed); others were empty
        self.scopes = scopes  # scopes the user's scope list holds
        self.written: set[str] = set()  # scopes this batch gave rows (since its erase)
        self.erased = False  # an op of this batch erased the user: every list is whole from then on
        self.changed: set[str] = set()  # the slots whose live list the current transition changed

    def transition(self, t: Transition, changed: set[str]) -> None:
        """`t` is next: `changed` is what UserView.apply said it changed."""
        self.changed = changed
        if t.erase:
            self.erased = True
            self.scopes = set()  # the erase takes the scope list: rows after it list theirs again
            self.written = set()

    def live_list(self, slot: str) -> bytes:
        """The argument for the slot's live list as the current transition leaves it."""
        listed = self.listed
        if not (self.erased or slot in self.held or (listed is not None and slot not in listed)):
            return WORK_OUT  # held only in part (a dependent's slot): the script reads it
        after = self.slots.get(slot)
        if slot in self.changed:
            return orjson.dumps(after if after is not None else [])
        # unchanged: a list with ids in it is stored; an empty one may be stored or not, which only
        # the script can tell (it stores "[]" where nothing was)
        return UNCHANGED if after else WORK_OUT


def transition_args(t: Transition, out: list[Any], known: KnownState | None = None) -> None:
    """Append one transition's arguments to `out` (its op id goes in the script's id list).
    `known`: what the caller's view knows (after `known.transition(t, ...)`); without it the script
    works every live list and scope out itself."""
    sent: dict[str, bytes] = {}
    at = iso(t.at)
    # the ledger entry: the op's event time and what it did (a caller waiting on it reads this), and
    # the records it wrote: a redelivery finds the op a duplicate and works their expiry entries out
    # again from them (Engine.apply_many), in case the first delivery's were never written
    ledger = encode_ledger_entry(t.op_id, t.at, t.outcome, t.reason, list(t.puts))
    out += (t.op_id, at, to_ms(t.at), _flag(t.erase), ledger, len(t.puts))
    for rec in t.puts.values():
        from_slot = t.moved.get(rec.id, "")
        in_read_model = rec.status in READ_MODEL_STATUSES
        out += (
            rec.id,
            # a record with a read-model row is stored as its tail: the row holds the rest
            encode_tail(rec) if in_read_model else encode_record(rec),
            rec.slot,
            rec.scope,
            _flag(rec.status in LIVE_STATUSES),
            # a record created here is new to the user (reconciliation refuses or refreshes an id in
            # use): no read-model row or index entry of it can exist to be looked up and taken out
            _flag(rec.id in t.created),
        )
        if from_slot:
            from_list = _list_arg(known, sent, from_slot)  # the script takes the record out of there first
            out += (from_slot, from_slot.split("|", 2)[2], from_list, _list_arg(known, sent, rec.slot))
        else:
            out += ("", "", UNCHANGED, _list_arg(known, sent, rec.slot))
        if not in_read_model:
            out.append("")
            continue
        row = compact(rec)
        new_scope = True
        if known is not None:
            new_scope = rec.scope not in known.scopes
            known.written.add(rec.scope)
        out += (encode_row(row), _flag(new_scope), orjson.dumps(index_entry(row)))
    out.append(len(t.created))
    for rid in t.created:
        out += (t.puts[rid].slot, rid)
    out.append(len(t.suppress))
    for s in t.suppress:
        out += (suppression_field(s.key), encode_suppression(s), _flag(s.reason not in SLOT_ONLY_REASONS))
    # a key goes in either stored form (state/codec.py): its older one when it is written anew
    unsuppress = [field for key in t.unsuppress for field in _fields(key)]
    unsuppress += [spelled for s in t.suppress if (spelled := s.key.encode()) != suppression_field(s.key)]
    out += (len(unsuppress), *unsuppress, len(t.aliases))
    for alias, target in t.aliases.items():
        out += (alias, target)
    out.append(len(t.deps))
    for key, ids in t.deps.items():
        out += (key, len(ids), *ids)
    if t.changes:  # one change-log entry an op
        out += (1, encode_changes(t.op_id, t.at, t.changes))
    else:
        out.append(0)


def _list_arg(known: KnownState | None, sent: dict[str, bytes], slot: str) -> bytes:
    """A put's live list argument: a list the caller holds goes once a transition (its end state),
    a list the script works out is worked out again for each put, in order."""
    if known is None:
        return WORK_OUT
    first = sent.get(slot)
    if first is not None:
        return WORK_OUT if first == WORK_OUT else UNCHANGED
    value = known.live_list(slot)
    sent[slot] = value
    return value


def _fields(key: str) -> tuple[bytes, ...]:
    """The stored fields a suppression's key may have, newest form first."""
    field = suppression_field(key)
    return (field,) if field == key.encode() else (field, key.encode())

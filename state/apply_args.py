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

from .read_index import index_entry


def _flag(value: bool) -> str:
    return "1" if value else "0"


# a slot's live list argument: the script reads the stored list and works the change out itself
WORK_OUT = b"?"
# ... the list is as it was (a later put of the same transition in a slot already sent says this too)
UNCHANGED = b""


def transition_args(
    t: Transition, out: list[Any], lists: dict[str, bytes] | None = None, known_scopes: set[str] | None = None
) -> None:
    """Append one transition's arguments to `out` (its op id goes in the script's id list).
    `lists`: per slot the transition touches whose live list the caller holds whole, the argument
    for it (the list as JSON, or UNCHANGED); every other slot is WORK_OUT. `known_scopes`: scopes
    the user's scope list is known to hold."""
    lists = lists or {}
    known_scopes = known_scopes or set()
    sent: set[str] = set()

    def live_list(slot: str) -> bytes:
        # a list the caller holds goes once (the transition's end state); a list worked out by the
        # script is worked out again for each put, in order
        value = lists.get(slot)
        if value is None:
            return WORK_OUT
        if slot in sent:
            return UNCHANGED
        sent.add(slot)
        return value

    at = iso(t.at)
    # the ledger entry: the op's event time and what it did (a caller waiting on it reads this), and
    # the records it wrote: a redelivery finds the op a duplicate and works their expiry entries out
    # again from them (Engine.apply_many), in case the first delivery's were never written
    entry: dict[str, Any] = {"at": at, "o": t.outcome, "r": t.reason}
    if t.puts:
        entry["p"] = list(t.puts)
    ledger = orjson.dumps(entry)
    out += (t.op_id, at, to_ms(t.at), _flag(t.erase), ledger, len(t.puts))
    for rec in t.puts.values():
        from_slot = t.moved.get(rec.id, "")
        out += (
            rec.id,
            rec.model_dump_json(),
            rec.slot,
            rec.scope,
            _flag(rec.status in LIVE_STATUSES),
            # a record created here is new to the user (reconciliation refuses or refreshes an id in
            # use): no read-model row or index entry of it can exist to be looked up and taken out
            _flag(rec.id in t.created),
        )
        if from_slot:
            from_list = live_list(from_slot)  # the script takes the record out of there first
            out += (from_slot, from_slot.split("|", 2)[2], from_list, live_list(rec.slot))
        else:
            out += ("", "", UNCHANGED, live_list(rec.slot))
        if rec.status not in READ_MODEL_STATUSES:
            out.append("")
            continue
        row = compact(rec)
        out += (orjson.dumps(row), _flag(rec.scope not in known_scopes), orjson.dumps(index_entry(rec, row)))
    out.append(len(t.created))
    for rid in t.created:
        out += (t.puts[rid].slot, rid)
    out.append(len(t.suppress))
    for s in t.suppress:
        out += (s.key, s.model_dump_json(), _flag(s.reason not in SLOT_ONLY_REASONS))
    out += (len(t.unsuppress), *t.unsuppress, len(t.aliases))
    for alias, target in t.aliases.items():
        out += (alias, target)
    out.append(len(t.deps))
    for key, ids in t.deps.items():
        out += (key, len(ids), *ids)
    out.append(len(t.changes))
    out += (orjson.dumps({"op": t.op_id, "at": at, **change}) for change in t.changes)

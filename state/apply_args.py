"""apply.lua's arguments: each transition as a flat run of strings.

The script reads its arguments in order with a cursor; it decodes no JSON to find them (decoding a
user's transitions as one JSON document cost the script more than any single write it makes). The
record, read-model row, suppression, log and ledger texts are passed as they will be stored.
The layout is documented at the top of apply.lua; the two change together.
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


def transition_args(t: Transition, out: list[Any]) -> None:
    """Append one transition's arguments to `out` (its op id goes in the script's id list)."""
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
            from_slot,
            from_slot.split("|", 2)[2] if from_slot else "",
        )
        if rec.status not in READ_MODEL_STATUSES:
            out.append("")
            continue
        row = compact(rec)
        out += (orjson.dumps(row), orjson.dumps(index_entry(rec, row)))
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

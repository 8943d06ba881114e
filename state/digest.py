"""A deterministic digest of a namespace's state: what two runs must agree on to have built the
same memory.

Per user: every record (all fields), the live records of each slot, each slot's lineage, the
suppressions, the aliases left by deduplication, the dependency index and the erasure mark. Not
included: processing bookkeeping that depends on how the input was delivered (the op ledger, the change log, version
counters, positions, the expiry index), so a run with redeliveries, crashes or other batch sizes
digests the same as a clean one.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis

from slotstream.memory.key_parts import join

from .archive import Archived, ArchiveError, HistoryArchive, Segment, archived_records, full_lineage
from .codec import decode_suppression, decode_triples, lineage_ids
from .keys import Keys
from .lua import ScriptText

RECORDS = ScriptText.named("records.lua")


@dataclass
class Digest:
    namespace: str
    digest: str
    users: int
    records: int
    per_tenant: dict[str, dict[str, int]] = field(default_factory=dict)  # tenant -> users, records


def users_of(client: redis.Redis, namespace: str) -> list[tuple[str, str]]:
    keys = Keys(namespace)
    out = set()
    for key in client.scan_iter(match=keys.user_metas(), count=1000):
        pair = keys.user_of_key(key.decode())
        if pair is not None:
            out.add(pair)
    return sorted(out)


def user_state(
    client: redis.Redis, keys: Keys, tenant: str, user: str, archive: HistoryArchive | None = None
) -> dict[str, Any]:
    """One user's digested state, as plain sorted data: with their archived history (state/archive.py),
    which must be given `archive` when there is one, since where a record is kept is not digested."""
    # EVAL, not EVALSHA: a digest is not a hot path, and the server may not have the script yet (a
    # cluster client's pipeline takes no EVAL: it goes on its own)
    records = client.eval(RECORDS.source, 1, keys.meta(tenant, user), keys.prefix(tenant, user), "all")
    pipe = client.pipeline(transaction=False)
    pipe.hgetall(keys.slots(tenant, user))
    pipe.hgetall(keys.suppressions(tenant, user))
    pipe.hgetall(keys.aliases(tenant, user))
    pipe.hget(keys.meta(tenant, user), "erased_at")
    pipe.hgetall(keys.dependents(tenant, user))
    pipe.hgetall(keys.lineage(tenant, user))
    pipe.lrange(keys.archive(tenant, user), 0, -1)
    slots, sups, aliases, erased, dependents, joined, positions = pipe.execute()
    hist_pipe = client.pipeline(transaction=False)
    slot_names = sorted(k.decode() for k in slots)
    for slot in slot_names:
        hist_pipe.lrange(keys.history(tenant, user, slot), 0, -1)
    listed = hist_pipe.execute() if slot_names else []
    lineage = [
        lineage_ids(joined.get(s.encode()), ids, slots[s.encode()]) for s, ids in zip(slot_names, listed, strict=True)
    ]
    held = decode_triples(records[1:], tenant, user)
    if positions:
        if archive is None:
            raise ArchiveError(f"{(tenant, user)}'s oldest history is archived; the digest needs the archive")
        archived = Archived.of(Segment.decode(raw) for raw in archive.read(tenant, user, positions))
        held.update(archived_records(archived, [i for i in archived.records if i not in held], tenant, user))
        aliases = {**{k.encode(): v.encode() for k, v in archived.aliases.items()}, **aliases}
        lineage = [
            full_lineage(s, archived.lineage.get(s, []), ids, lambda rid: held[rid].slot if rid in held else None)
            for s, ids in zip(slot_names, lineage, strict=True)
        ]
    suppressions = [decode_suppression(field, raw) for field, raw in sups.items()]
    return {
        "records": {k: r.model_dump(mode="json") for k, r in sorted(held.items())},
        "slots": {slot: sorted(orjson.loads(slots[slot.encode()]) or []) for slot in slot_names},
        "history": dict(zip(slot_names, lineage, strict=True)),
        "suppressions": {s.key: s.model_dump(mode="json") for s in sorted(suppressions, key=lambda s: s.key)},
        "aliases": {k.decode(): v.decode() for k, v in sorted(aliases.items())},
        "erased_at": erased.decode() if erased else None,
        "dependents": {k.decode(): sorted(orjson.loads(v)) for k, v in sorted(dependents.items())},
    }


def digest_namespace(client: redis.Redis, namespace: str, archive: HistoryArchive | None = None) -> Digest:
    keys = Keys(namespace)
    total = hashlib.sha256()
    per_tenant: dict[str, dict[str, int]] = defaultdict(lambda: {"users": 0, "records": 0})
    n_users = n_records = 0
    for tenant, user in users_of(client, namespace):
        state = user_state(client, keys, tenant, user, archive)
        if not (state["records"] or state["suppressions"] or state["erased_at"]):
            continue  # a user whose every op was refused or dropped holds no state
        body = orjson.dumps(state, option=orjson.OPT_SORT_KEYS)
        total.update(f"{join((tenant, user))}\n".encode())
        total.update(hashlib.sha256(body).digest())
        n_users += 1
        n_records += len(state["records"])
        per_tenant[tenant]["users"] += 1
        per_tenant[tenant]["records"] += len(state["records"])
    return Digest(namespace, total.hexdigest(), n_users, n_records, dict(sorted(per_tenant.items())))

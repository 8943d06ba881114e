"""Key layout: every Redis key the project uses is named here.

Every key of one user shares the hash tag {tenant:user}, so a Redis Cluster keeps a user on one
node and each script touches a single slot. The namespace's own keys (processing positions,
event-time watermarks, the expiry index, the namespace marker) share the hash tag {<namespace>},
so the scripts that update several of them together stay in one slot too.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from slotstream.memory.key_parts import MalformedKey, escape, unescape


@dataclass(frozen=True, slots=True)
class Keys:
    namespace: str = "ss"

    # --- one user's state -------------------------------------------------------------------

    def prefix(self, tenant: str, user: str) -> str:
        # every part escaped (memory/key_parts.py): no id can close the hash tag early or pass for
        # another pair of ids, whether or not it was validated first
        return f"{escape(self.namespace)}:{{{escape(tenant)}:{escape(user)}}}"

    def meta(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":meta"

    def active(self, tenant: str, user: str, scope: str) -> str:
        return f"{self.prefix(tenant, user)}:act:{scope}"

    def records(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":rec"

    def slots(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":slot"

    def history(self, tenant: str, user: str, slot: str) -> str:
        """A slot's lineage as a list of its own (written before `lineage`)."""
        # the slot key names an attribute, which may be derived from what the user said: key names
        # carry its hash (the scripts use redis.sha1hex), never the text
        return f"{self.prefix(tenant, user)}:hist:{slot_hash(slot)}"

    def lineage(self, tenant: str, user: str) -> str:
        """Hash: slot key -> the ids of the records the slot ever held, oldest first, joined by
        spaces (record ids hold none), less the slot's live ids where those end them: a reader
        appends the live ids a field does not hold, so a slot with no field has its live list as
        its lineage. Replaces the list per slot (`history`) that users written before it still
        have: readers take a slot's list where it has one; a write moves the list into the field."""
        return self.prefix(tenant, user) + ":lin"

    def archive(self, tenant: str, user: str) -> str:
        """List: the positions of the user's archived history's segments, oldest first (state/archive.py)."""
        return self.prefix(tenant, user) + ":arch"

    def cold(self, tenant: str, user: str) -> str:
        """Hash: the user's cold history, its retired records compressed together (`ids`, `data`:
        state/codec.py)."""
        return self.prefix(tenant, user) + ":cold"

    def log(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":log"

    def suppressions(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":sup"

    def read_suppressions(self, tenant: str, user: str) -> str:
        """The suppressions selection reads (not a value corrected or retracted away): a copy of
        those in `suppressions`, kept by apply.lua; meta's `rsup` field says it is complete."""
        return self.prefix(tenant, user) + ":rsup"

    def read_index(self, tenant: str, user: str, scope: str, part: str) -> str:
        """One key of a scope's read index (state/read_index.py; apply.lua keeps it, context.lua
        reads it): `part` is "ix" (id -> entry), "ixs" (ids by static value), "ixu" (unit ->
        ids), or "ixt:<word key>" / "ixp:<topic>" / "ixq:<topic>" (ids holding a
        word, of attributes mainly about / related to a topic, by static value)."""
        kind, _, rest = part.partition(":")
        return f"{self.prefix(tenant, user)}:{kind}:{scope}" + (f":{rest}" if rest else "")

    def aliases(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":alias"

    def dependents(self, tenant: str, user: str) -> str:
        """Hash: dependency key ("id:<record>" / "attr:<subject>|<attribute>") -> JSON list of the
        ids of records that depend on it."""
        return self.prefix(tenant, user) + ":dep"

    def ledger(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":ops"

    def turn(self, tenant: str, user: str, turn_id: str) -> str:
        """What extraction made of a turn a caller waits on (short-lived)."""
        return f"{self.prefix(tenant, user)}:turn:{turn_id}"

    def user_metas(self) -> str:
        """SCAN pattern that finds one key per user: their meta hash."""
        return f"{glob_escape(escape(self.namespace))}:{{*:*}}:meta"

    def tenant_user_metas(self, tenant: str, user_prefix: str = "") -> str:
        """SCAN pattern of the meta hashes of one tenant's users whose id starts with
        `user_prefix` (glob characters in either part match only themselves)."""
        # escape() works character by character: an id's escaped form starts with its prefix's
        namespace, tenant_part = glob_escape(escape(self.namespace)), glob_escape(escape(tenant))
        return f"{namespace}:{{{tenant_part}:{glob_escape(escape(user_prefix))}*}}:meta"

    def user_of_meta(self, key: str, tenant: str) -> str | None:
        """The user a meta key of `tenant` belongs to (None: not one of the tenant's)."""
        head = f"{escape(self.namespace)}:{{{escape(tenant)}:"
        if not key.startswith(head) or not key.endswith("}:meta"):
            return None
        try:
            return unescape(key[len(head) : -len("}:meta")])
        except MalformedKey:
            return None

    def user_of_key(self, key: str) -> tuple[str, str] | None:
        """The (tenant, user) a key of one user's state belongs to (None: not such a key)."""
        head = f"{escape(self.namespace)}:{{"
        tag, closed, _ = key[len(head) :].partition("}") if key.startswith(head) else ("", "", "")
        tenant, colon, user = tag.partition(":")
        if not (closed and colon):
            return None
        try:
            return unescape(tenant), unescape(user)
        except MalformedKey:
            return None

    # --- the namespace's processing bookkeeping ---------------------------------------------

    def _shared(self, name: str) -> str:
        namespace = escape(self.namespace)
        return f"{namespace}:{{{namespace}}}:{name}"

    def marker(self) -> str:
        """Exists while the namespace holds state: a worker that finds it gone knows the state was
        lost (a Redis restarted without persistence, a flush) rather than never written."""
        return self._shared("namespace")

    def progress(self, topic: str) -> str:
        return self._shared(f"progress:{topic}")

    def watermark(self, topic: str) -> str:
        return self._shared(f"watermark:{topic}")

    def counters(self) -> str:
        return self._shared("counters")

    def replay_plan(self) -> str:
        """The range a replay into this namespace reads (its resolved offsets), kept so a crashed
        replay resumes the same range."""
        return self._shared("replay")

    def due(self, partition: int) -> str:
        return self._shared(f"due:{partition}")

    def probe(self) -> str:
        """A plain string key the benchmarks GET to measure a bare round trip."""
        return self._shared("probe")

    def pattern(self) -> str:
        return f"{glob_escape(escape(self.namespace))}:*"


def user_data_keys(tenant: str, user: str) -> str:
    """A user's data keys (wrapped), shared by every namespace: they open the user's payloads in
    the topics, which every namespace reads. Erasure deletes them."""
    return f"slotstream:ukeys:{{{escape(tenant)}:{escape(user)}}}"


def user_of_data_keys(key: str) -> tuple[str, str] | None:
    """The (tenant, user) whose data keys `key` holds (None: not such a key)."""
    head = "slotstream:ukeys:{"
    if not key.startswith(head) or not key.endswith("}"):
        return None
    tenant, colon, user = key[len(head) : -1].partition(":")
    try:
        return (unescape(tenant), unescape(user)) if colon else None
    except MalformedKey:
        return None


def all_user_data_keys() -> str:
    """SCAN pattern of every user's data keys."""
    return "slotstream:ukeys:{*}"


def master_pointer() -> str:
    """The fingerprint of the master key that wraps new data keys, when a rotation named one
    (`slotstream keys rotate-master`); every process reads it, and falls back to its first key."""
    return "slotstream:master:wrapping"


def deploy_pointer(base: str) -> str:
    """Which namespace serves the deployment configured as `base` (readers and workers resolve it;
    `slotstream promote` switches it). Outside every namespace, so dropping one never takes it."""
    return f"slotstream:deploy:{{{escape(base)}}}:active"


def deploy_runners(base: str) -> str:
    """SCAN pattern of the live runners' heartbeat keys (see deploy_runner)."""
    return f"slotstream:deploy:{{{glob_escape(escape(base))}}}:runner:*"


def deploy_runner(base: str, runner: str) -> str:
    """One live processor's heartbeat: "running", or "paused:<switch id>" while a promote waits."""
    return f"slotstream:deploy:{{{escape(base)}}}:runner:{escape(runner)}"


def glob_escape(text: str) -> str:
    """`text` as a SCAN pattern that matches it literally."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def slot_hash(slot: str) -> str:
    return hashlib.sha1(slot.encode()).hexdigest()


def quota_key(base: str, tenant: str, kind: str) -> str:
    """A tenant's quota of `kind` ("requests", "ingest") in the deployment configured as `base`,
    shared by every sidecar process (state/quotas.py). Outside every namespace, so a promote keeps
    the count. The hash tag holds the deployment and the tenant, each escaped (memory/key_parts.py)."""
    return f"slotstream:quota:{{{escape(base)}:{escape(tenant)}}}:{kind}"

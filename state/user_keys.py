"""Users' data keys, kept apart from the topics they open: in Redis (wrapped with the master key),
with a durable copy in the compacted keys topic so a lost Redis can have them back.

Per user, a hash of key id -> "<created ms>:<wrapped key>", and `current` -> the id new payloads
are sealed with. Erasure deletes the keys created before the erasure; a user who talks again
afterwards gets a new key, so what they say later stays readable.

A process holds a ring of master keys (`MasterRing`): every one unwraps; new keys are wrapped with
the one the deployment's pointer names (set by `slotstream keys rotate-master`), else the ring's
first. A key wrapped with a master key the ring lacks makes the ring reload from where it came
from (the master key file), so a rotation reaches running processes without a restart.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

import redis
import redis.exceptions

from slotstream.memory.key_parts import MalformedKey, join, split
from slotstream.memory.sealing import SealError, fingerprint, new_key, new_key_id, seal, unwrap, wrap

from .errors import MasterKeyMismatch
from .keys import master_pointer, user_data_keys
from .lua import LuaScript, run_pipeline

User = tuple[str, str]  # tenant, user
Opened = Mapping[User, Mapping[str, bytes]]  # per user, the keys (id -> key) its input was opened with
KeyRecord = tuple[bytes, bytes | None]  # keys-topic record: b"tenant/user/kid", stored value (None: erased)

# KEYS[1] = the user's keys hash. ARGV = a new key's id and stored form (used when the user has no
# current key). Returns the current key's id and stored form, plus 1 when it was created now.
_CURRENT = """
local cur = redis.call('HGET', KEYS[1], 'current')
local val = cur and redis.call('HGET', KEYS[1], cur)
if val then return {cur, val, 0} end
redis.call('HSET', KEYS[1], 'current', ARGV[1], ARGV[1], ARGV[2])
return {ARGV[1], ARGV[2], 1}
"""


# KEYS[1] = a user's keys hash. ARGV = key id, the stored form read, the stored form to put in its
# place. Returns 1 when put, 0 when the key is gone (erased since), 2 when it holds another form.
_REWRAP = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return 0 end
if held ~= ARGV[2] then return 2 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""


def _binding(tenant: str, user: str, kid: str) -> bytes:
    # each part escaped (memory/key_parts.py): no two users' keys share a binding, whatever their ids
    return join((tenant, user, kid)).encode()


def record_key(tenant: str, user: str, kid: str) -> bytes:
    return _binding(tenant, user, kid)


def _created(stored: bytes) -> int:
    return int(stored.split(b":", 1)[0])


log = logging.getLogger(__name__)
POINTER_REFRESH_SECONDS = 1.0  # how stale a process's view of the wrapping pointer may be
RELOAD_INTERVAL_SECONDS = 1.0  # a ring reloads at most this often, however many keys it misses


class MasterRing:
    """The master keys a process holds, first one first; `reload` reads them again from their source."""

    def __init__(self, keys: Sequence[bytes], reload: Callable[[], Sequence[bytes]] | None = None) -> None:
        if not keys:
            raise ValueError("a master key ring needs at least one key")
        self._reload = reload
        self._reloaded_at = 0.0
        self._take(keys)

    def _take(self, keys: Sequence[bytes]) -> None:
        self.keys = list(dict.fromkeys(keys))
        self.by_fingerprint = {fingerprint(k): k for k in self.keys}
        self.first = fingerprint(self.keys[0])

    def reload(self) -> bool:
        """Read the keys again (at most once a second); True when the ring changed."""
        now = time.monotonic()
        if self._reload is None or now - self._reloaded_at < RELOAD_INTERVAL_SECONDS:
            return False
        self._reloaded_at = now
        fresh = list(self._reload())
        if not fresh or fresh == self.keys:
            return False
        self._take(fresh)
        return True

    def get(self, fp: str) -> bytes | None:
        found = self.by_fingerprint.get(fp)
        if found is None and self.reload():
            found = self.by_fingerprint.get(fp)
        return found


class UserKeys:
    def __init__(self, client: redis.Redis, master: bytes | MasterRing) -> None:
        self.r = client
        self.ring = master if isinstance(master, MasterRing) else MasterRing([master])
        self._current = LuaScript(client, _CURRENT)
        self._rewrap = LuaScript(client, _REWRAP)
        self._wrapping: tuple[str, float] | None = None  # pointer's fingerprint, read at

    def wrapping_key(self) -> tuple[str, bytes]:
        """The master key new data keys are wrapped with: the one the deployment's pointer names
        (read again after POINTER_REFRESH_SECONDS), else the ring's first."""
        now = time.monotonic()
        if self._wrapping is None or now - self._wrapping[1] > POINTER_REFRESH_SECONDS:
            named = cast(bytes | None, self.r.get(master_pointer()))
            self._wrapping = (named.decode() if named else "", now)
        named_fp = self._wrapping[0]
        if named_fp:
            key = self.ring.get(named_fp)
            if key is not None:
                return named_fp, key
            log.warning("the master key %s that wraps new data keys is not in this process's ring", named_fp)
        return self.ring.first, self.ring.keys[0]

    def opener(self, tenant: str, user: str, kid: str, stored: bytes) -> tuple[str, bytes]:
        """(the fingerprint of the master key that unwraps a stored key, the data key)."""
        binding, wrapped = _binding(tenant, user, kid), stored.split(b":", 1)[1]
        for attempt in range(2):
            for fp, master in self.ring.by_fingerprint.items():
                try:
                    return fp, unwrap(master, binding, wrapped)
                except SealError:
                    continue
            if attempt == 0 and not self.ring.reload():
                break
        raise MasterKeyMismatch(
            "a user key does not unwrap with any master key of this process: every process of a "
            "deployment needs the deployment's master keys (SLOTSTREAM_MASTER_KEY or the master key file)"
        )

    def _unwrap(self, tenant: str, user: str, kid: str, stored: bytes) -> bytes:
        return self.opener(tenant, user, kid, stored)[1]

    def wrapped_with(self, tenant: str, user: str, kid: str, stored: bytes, master: bytes) -> bytes:
        """The stored form of a held key wrapped with `master` instead (its creation time kept)."""
        created, _ = stored.split(b":", 1)
        key = self._unwrap(tenant, user, kid, stored)
        return created + b":" + wrap(master, _binding(tenant, user, kid), key)

    def replace(self, tenant: str, user: str, kid: str, seen: bytes, stored: bytes) -> str:
        """Put `stored` in place of the form `seen`, if the key still holds it: "replaced", or
        "gone" (erased since), or "changed" (another form since)."""
        got = self._rewrap(keys=[user_data_keys(tenant, user)], args=[kid, seen, stored])
        return {1: "replaced", 0: "gone"}.get(int(got), "changed")

    def current(self, tenant: str, user: str, now_ms: int) -> tuple[str, bytes, KeyRecord | None]:
        """The key new payloads of the user are sealed with: (id, key, the keys-topic record to
        produce when it was created now)."""
        found = self.current_many([(tenant, user)], now_ms)[(tenant, user)]
        assert found is not None  # only a caller naming the keys its input was opened with gets none
        return found

    def current_many(
        self, users: Iterable[User], now_ms: int, opened: Opened | None = None
    ) -> dict[User, tuple[str, bytes, KeyRecord | None] | None]:
        """`current` for several users in one round trip. `opened`: for a user whose payloads come
        from input opened with these keys, the current key only if it is one of them, else None
        and no key created (the user was erased since: what was said before the erasure must not
        be sealed with a key that opens after it). Such a user's current key id is all that is
        read: the key itself is in hand, and a key id names one key for good."""
        wanted = list(dict.fromkeys(users))
        opened = opened or {}
        fresh = {}
        master = self.wrapping_key()[1] if any(not opened.get(u) for u in wanted) else b""
        for tenant, user in wanted:
            if opened.get((tenant, user)):
                continue
            kid, key = new_key_id(), new_key()
            fresh[(tenant, user)] = (
                kid,
                key,
                f"{now_ms}:".encode() + wrap(master, _binding(tenant, user, kid), key),
            )

        def build(pipe: Any) -> None:
            for tenant, user in wanted:
                if (tenant, user) in fresh:
                    kid, _, stored = fresh[(tenant, user)]
                    self._current(keys=[user_data_keys(tenant, user)], args=[kid, stored], client=pipe)
                else:
                    # an erasure deletes the current key's id with the keys (one HDEL), so an id
                    # still current names a key the user still holds
                    pipe.hget(user_data_keys(tenant, user), "current")

        if fresh and not self._current._loaded:
            self._current.reload()
        out: dict[User, tuple[str, bytes, KeyRecord | None] | None] = {}
        for (tenant, user), reply in zip(wanted, run_pipeline(self.r, build, [self._current]), strict=True):
            if (tenant, user) not in fresh:
                held = opened[(tenant, user)]
                current = reply.decode() if reply is not None else ""  # "": no current key (erased)
                out[(tenant, user)] = (current, held[current], None) if current in held else None
                continue
            got_kid, got_stored, created = reply
            got = got_kid.decode()
            if created:
                out[(tenant, user)] = (got, fresh[(tenant, user)][1], (record_key(tenant, user, got), got_stored))
            else:
                out[(tenant, user)] = (got, self._unwrap(tenant, user, got, got_stored), None)
        return out

    def keys_of(self, users: Iterable[User]) -> dict[User, dict[str, bytes]]:
        """Every key each user holds (id -> key); a user with none (erased, or never sealed) maps to {}."""
        wanted = list(dict.fromkeys(users))
        pipe = self.r.pipeline(transaction=False)
        for tenant, user in wanted:
            pipe.hgetall(user_data_keys(tenant, user))
        out: dict[User, dict[str, bytes]] = {}
        for (tenant, user), held in zip(wanted, pipe.execute(), strict=True):
            fields = cast(dict[bytes, bytes], held)
            out[(tenant, user)] = {
                kid.decode(): self._unwrap(tenant, user, kid.decode(), stored)
                for kid, stored in fields.items()
                if kid != b"current"
            }
        return out

    def created_before(self, tenant: str, user: str, before_ms: int) -> list[str]:
        held = cast(dict[bytes, bytes], self.r.hgetall(user_data_keys(tenant, user)))
        return sorted(k.decode() for k, v in held.items() if k != b"current" and _created(v) <= before_ms)

    def drop(self, tenant: str, user: str, kids: list[str]) -> None:
        """Delete these keys (the current one too, if among them: the next payload gets a new key)."""
        if not kids:
            return
        name = user_data_keys(tenant, user)
        current = cast(bytes | None, self.r.hget(name, "current"))
        fields = list(kids) + (["current"] if current is not None and current.decode() in kids else [])
        self.r.hdel(name, *fields)

    def restore(self, records: Iterable[KeyRecord]) -> int:
        """Apply keys-topic records in log order (a value: the key; None: erased); returns how many
        keys Redis did not hold. Run before a rebuild or a replay, so a lost Redis loses no key."""
        # the last record of a key is its latest form (a rotation re-wraps a key, an erasure
        # tombstones it): only that one counts
        latest: dict[bytes, bytes | None] = {}
        for key, stored in records:
            latest[key] = stored
        added = 0
        for key, stored in latest.items():
            created = stored.split(b":", 1)[0] if stored is not None else b"0"
            try:
                tenant, user, kid = split(key.decode("utf-8"), 3)
            except (UnicodeDecodeError, MalformedKey):
                continue  # not a record this project writes: nothing to restore from it
            if not (tenant and user and kid and created.isdigit()):
                continue
            name = user_data_keys(tenant, user)
            if stored is None:
                self.r.hdel(name, kid)
                continue
            added += int(self.r.hsetnx(name, kid, stored))
            self.r.hsetnx(name, "current", kid)
        return added


class Sealer:
    """Seals payloads for the topics with their users' current keys.

    Each payload asks Redis for the user's current key (an erasure deletes it, and the next payload
    must get a new one). While Redis cannot be reached, the key this process last used for the user
    (within `fallback_seconds`) seals instead, so ingest rides out a short Redis outage for the
    users it serves: an erasure cannot take effect meanwhile, since shredding needs Redis too."""

    def __init__(self, keys: UserKeys, fallback_seconds: float = 300.0, remembered: int = 100_000) -> None:
        self.keys = keys
        self.fallback_seconds = fallback_seconds
        self.remembered = remembered
        self._recent: OrderedDict[User, tuple[str, bytes, float]] = OrderedDict()
        self._lock = threading.Lock()

    def _current(
        self, users: list[User], now_ms: int, opened: Opened | None = None
    ) -> dict[User, tuple[str, bytes, KeyRecord | None] | None]:
        try:
            found = self.keys.current_many(users, now_ms, opened)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            now = time.monotonic()
            with self._lock:
                recent = {u: self._recent.get(u) for u in users}
            if any(r is None or now - r[2] > self.fallback_seconds for r in recent.values()):
                raise
            wanted = opened or {}
            return {
                u: (r[0], r[1], None) if u not in wanted or r[0] in wanted[u] else None
                for u, r in recent.items()
                if r is not None
            }
        now = time.monotonic()
        with self._lock:
            for who, current in found.items():
                if current is None:
                    continue
                self._recent[who] = (current[0], current[1], now)
                self._recent.move_to_end(who)
            while len(self._recent) > self.remembered:
                self._recent.popitem(last=False)
        return found

    def seal_many(self, items: list[tuple[str, str, bytes, bytes]], now_ms: int) -> tuple[list[bytes], list[KeyRecord]]:
        """(tenant, user, record key, plaintext) items -> sealed values, and the key records of
        keys created now (to produce to the keys topic before the values)."""
        values, created = self.seal_opened(items, now_ms, {})
        sealed = [value for value in values if value is not None]
        assert len(sealed) == len(values)  # naming no opened keys, nothing is left unsealed
        return sealed, created

    def seal_opened(
        self, items: list[tuple[str, str, bytes, bytes]], now_ms: int, opened: Opened
    ) -> tuple[list[bytes | None], list[KeyRecord]]:
        """`seal_many` for payloads made from sealed input: a user's are sealed only with a key
        their input was opened with (`opened`: those keys, id -> key, per user), else left None
        (the user was erased since the input was opened). Users not in `opened` are sealed as
        usual."""
        found = self._current(list(dict.fromkeys((tenant, user) for tenant, user, _, _ in items)), now_ms, opened)
        created = [current[2] for current in found.values() if current is not None and current[2] is not None]
        out: list[bytes | None] = []
        for tenant, user, rkey, plaintext in items:
            current = found[(tenant, user)]
            out.append(None if current is None else seal(current[1], current[0], rkey, plaintext))
        return out, created

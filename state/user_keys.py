"""Users' data keys, kept apart from the topics they open: in Redis (wrapped with the master key),
with a durable copy in the compacted keys topic so a lost Redis can have them back.

Per user, a hash of key id -> "<created ms>:<wrapped key>", and `current` -> the id new payloads
are sealed with. Erasure deletes the keys created before the erasure; a user who talks again
afterwards gets a new key, so what they say later stays readable.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, cast

import redis
import redis.exceptions

from slotstream.memory.sealing import new_key, new_key_id, seal, unwrap, wrap

from .errors import MasterKeyMismatch
from .keys import user_data_keys
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


def _binding(tenant: str, user: str, kid: str) -> bytes:
    return f"{tenant}/{user}/{kid}".encode()


def record_key(tenant: str, user: str, kid: str) -> bytes:
    return _binding(tenant, user, kid)


def _created(stored: bytes) -> int:
    return int(stored.split(b":", 1)[0])


class UserKeys:
    def __init__(self, client: redis.Redis, master: bytes) -> None:
        self.r = client
        self.master = master
        self._current = LuaScript(client, _CURRENT)

    def _unwrap(self, tenant: str, user: str, kid: str, stored: bytes) -> bytes:
        try:
            return unwrap(self.master, _binding(tenant, user, kid), stored.split(b":", 1)[1])
        except ValueError as err:
            raise MasterKeyMismatch(
                f"{err}: every process of a deployment needs the same SLOTSTREAM_MASTER_KEY (or master key file)"
            ) from None

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
        for tenant, user in wanted:
            if opened.get((tenant, user)):
                continue
            kid, key = new_key_id(), new_key()
            fresh[(tenant, user)] = (
                kid,
                key,
                f"{now_ms}:".encode() + wrap(self.master, _binding(tenant, user, kid), key),
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
        added = 0
        for key, stored in records:
            parts = key.decode("utf-8", errors="replace").split("/")
            created = stored.split(b":", 1)[0] if stored is not None else b"0"
            if len(parts) != 3 or not all(parts) or not created.isdigit():
                continue  # not a record this project writes: nothing to restore from it
            tenant, user, kid = parts
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

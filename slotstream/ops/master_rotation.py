"""Master-key rotation while the pipeline runs: every user's data key is wrapped again with the
new master key, in Redis and in the keys topic (the durable copy), so the old master key can be
retired once the rotation reports completion.

1. The deployment's wrapping pointer names the new key: every process wraps the data keys it
   creates from then on with it (a process reads the pointer at least once a second; one whose
   ring lacks the key reloads it from the master key file).
2. A pass over every user's data keys: a key still wrapped with another master key is wrapped
   again; its new form goes to the keys topic first, then replaces the old form in Redis only if
   Redis still holds exactly that form. A key erased meanwhile gets a tombstone after that record,
   so the topic's last word on it is the erasure (an erasure's own tombstone comes after its
   delete, and so after any record the rotation produced before replacing).
3. Passes repeat until one finds nothing to wrap again (keys created during a pass by a process
   not yet on the new key are caught by the next); the report then says which master keys no key
   needs any more.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import redis

from slotstream.state.errors import MasterKeyMismatch
from slotstream.state.keys import all_user_data_keys, master_pointer, user_of_data_keys
from slotstream.state.user_keys import POINTER_REFRESH_SECONDS, UserKeys, record_key

Send = Callable[[bytes, bytes | None], None]  # keys-topic record: key, stored form (None: erased)
UNKNOWN = "unknown"  # a data key no master key of the ring opens (wrapped with one retired too early)


@dataclass
class RotationReport:
    wrapping: str  # the fingerprint of the master key every data key is wrapped with now
    users: int = 0
    keys: int = 0
    rewrapped: int = 0
    erased_meanwhile: int = 0
    passes: int = 0
    left: Counter[str] = field(default_factory=Counter)  # other master keys' fingerprints -> keys still under them

    @property
    def complete(self) -> bool:
        return not self.left


def _held(client: redis.Redis, name: bytes) -> dict[str, bytes]:
    fields = cast(dict[bytes, bytes], client.hgetall(name))
    return {kid.decode(): stored for kid, stored in fields.items() if kid != b"current"}


def _under(user_keys: UserKeys, tenant: str, user: str, kid: str, stored: bytes) -> str:
    try:
        return user_keys.opener(tenant, user, kid, stored)[0]
    except MasterKeyMismatch:
        return UNKNOWN


def rotation_pass(user_keys: UserKeys, send: Send, flush: Callable[[], None], report: RotationReport) -> int:
    """One pass over every user's data keys; returns how many were wrapped again."""
    client = user_keys.r
    target = user_keys.ring.by_fingerprint[report.wrapping]
    users = keys = moved = 0
    report.left.clear()
    pending: list[tuple[str, str, str, bytes, bytes]] = []

    def settle() -> None:
        nonlocal moved
        flush()  # the new forms are in the topic before Redis holds them
        for tenant, user, kid, seen, stored in pending:
            outcome = user_keys.replace(tenant, user, kid, seen, stored)
            if outcome == "replaced":
                moved += 1
            elif outcome == "gone":
                send(record_key(tenant, user, kid), None)
                report.erased_meanwhile += 1
        flush()
        pending.clear()

    for name in client.scan_iter(match=all_user_data_keys(), count=1000):
        owner = user_of_data_keys(name.decode() if isinstance(name, bytes) else str(name))
        if owner is None:
            continue
        tenant, user = owner
        users += 1
        for kid, stored in _held(client, name).items():
            keys += 1
            under = _under(user_keys, tenant, user, kid, stored)
            if under in (report.wrapping, UNKNOWN):
                continue
            fresh = user_keys.wrapped_with(tenant, user, kid, stored, target)
            send(record_key(tenant, user, kid), fresh)
            pending.append((tenant, user, kid, stored, fresh))
            if len(pending) >= 500:
                settle()
    settle()
    report.users, report.keys = users, keys
    report.rewrapped += moved
    report.passes += 1
    return moved


def count_left(user_keys: UserKeys, wrapping: str) -> Counter[str]:
    """Data keys wrapped with a master key other than `wrapping`, by its fingerprint."""
    left: Counter[str] = Counter()
    for name in user_keys.r.scan_iter(match=all_user_data_keys(), count=1000):
        owner = user_of_data_keys(name.decode() if isinstance(name, bytes) else str(name))
        if owner is None:
            continue
        for kid, stored in _held(user_keys.r, name).items():
            under = _under(user_keys, *owner, kid, stored)
            if under != wrapping:
                left[under] += 1
    return left


def rotate(
    user_keys: UserKeys,
    send: Send,
    flush: Callable[[], None],
    max_passes: int = 5,
    progress: Callable[[RotationReport], None] | None = None,
) -> RotationReport:
    """Name the ring's first key as the one that wraps, then wrap every data key with it."""
    report = RotationReport(wrapping=user_keys.ring.first)
    user_keys.r.set(master_pointer(), report.wrapping)
    # every process has read the pointer again after this: keys they create are wrapped with it
    time.sleep(2 * POINTER_REFRESH_SECONDS + 0.5)
    for _ in range(max_passes):
        moved = rotation_pass(user_keys, send, flush, report)
        if progress is not None:
            progress(report)
        if moved == 0:
            break
    report.left = count_left(user_keys, report.wrapping)
    return report

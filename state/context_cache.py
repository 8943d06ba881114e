"""Parsed read-model rows per user, kept between context lookups while the user's state is
unchanged — so a lookup whose user did not change costs one small round trip (the user's write
stamp) and the selection, not the transfer and parsing of every active record.

Validity: every apply script run stamps the user's meta hash with its version and the server's
TIME. A cached entry is used only while both still read the same. The version alone would not do:
after a Redis restart that lost its last second of writes (or a rebuild of the namespace) the
version can climb back to a cached number with other content, while the TIME of the new writes
differs from the lost ones. A lookup reads the stamp before the rows, so an entry is never labelled
newer than its content (a write in between makes the next lookup reload).

Bounded by the number of records held (least recently used users go first); a user with more
active records than the bound is never cached. One cache per process, not shared across threads
without its lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from slotstream.memory.models import Suppression
from slotstream.memory.selection import Candidate

Stamp = tuple[bytes | str | None, bytes | str | None]  # the meta hash's (version, written); (None, None): no state
STAMP_FIELDS = ("version", "written")


@dataclass(slots=True)
class UserRows:
    stamp: Stamp
    scopes: dict[str, list[Candidate]] = field(default_factory=dict)
    suppressions: list[Suppression] = field(default_factory=list)
    prepared: bool = False  # selection.prepare() ran on the rows: done at the first hit, not the fill

    @property
    def size(self) -> int:
        return sum(len(rows) for rows in self.scopes.values()) + len(self.suppressions) + 1


class ContextCache:
    def __init__(self, max_records: int) -> None:
        self.max_records = max_records
        self._users: OrderedDict[tuple[str, str], UserRows] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def candidate(self, user: tuple[str, str], scopes: list[str]) -> UserRows | None:
        """The entry that could answer for these scopes, if its stamp still holds (the caller checks)."""
        with self._lock:
            entry = self._users.get(user)
            if entry is None or any(s not in entry.scopes for s in scopes):
                return None
            self._users.move_to_end(user)
            return entry

    def clear(self) -> None:
        """Forget every entry (the reader moved to another namespace: its stamps mean nothing there)."""
        with self._lock:
            self._users.clear()
            self._held = 0

    def hit(self) -> None:
        self.hits += 1

    def store(
        self,
        user: tuple[str, str],
        stamp: Stamp,
        scopes: dict[str, list[Candidate]],
        suppressions: list[Suppression],
    ) -> None:
        """Keep what a full read returned. Rows read under the same stamp as the entry's join it."""
        self.misses += 1
        if stamp[0] is None:  # no state written for this user: nothing to validate against later
            self.drop(user)
            return
        with self._lock:
            old = self._users.pop(user, None)
            if old is not None:
                self._held -= old.size
            entry = UserRows(stamp, dict(scopes), suppressions)
            if old is not None and old.stamp == stamp:
                entry.scopes = {**old.scopes, **scopes}
            if entry.size > self.max_records:
                return
            self._users[user] = entry
            self._held += entry.size
            while self._held > self.max_records and self._users:
                _, evicted = self._users.popitem(last=False)
                self._held -= evicted.size

    def drop(self, user: tuple[str, str]) -> None:
        with self._lock:
            old = self._users.pop(user, None)
            if old is not None:
                self._held -= old.size

    @property
    def held(self) -> int:
        return self._held

"""The read index: what apply.lua keeps next to each scope's read model so a context lookup reads
only the rows that can make its budget (context.lua), and how a lookup uses it.

Per scope, every read-model row is listed by its static value (the part of its score that does not
depend on the request) in: the scope's list, one list per word it holds, and one per request topic
its attribute is mainly about or related to. A lookup takes the best `per_list` rows of the scope's
list, of each query word's list and of each request topic's lists (reading on until `per_list`
rows are valued above the bound below), and returns the best `2 x per_list` of them, plus every
row of the single-valued attributes among them. A row left out is, on every list it is on, at most as
valuable as that list's first left-out row: that bounds its score, and when the response's last
item scores above the bound of every row left out (and the budget is full), selecting from the
rows read is certified equal to selecting from all of them. Otherwise the lookup reads the scopes
whole (counted in `ReadStats.uncertified`).

Word keys are hashes: key names never carry what the user said.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from slotstream.memory.models import Cardinality
from slotstream.memory.selection import topics_for
from slotstream.memory.semantics import relevance

from .lua import ScriptText

CONTEXT_SCRIPT = ScriptText.named("context.lua")

# a context lookup reads its scopes whole when they hold at most this many rows: reading them all
# costs about what the indexed read costs (docs/results.md)
WHOLE_UP_TO = 128

# apply.lua keeps a scope's read index once the scope holds more than this many rows, and none
# below: a lookup reads a scope that small whole anyway (context.lua reads a scope whose index does
# not cover its rows whole), and the index cost more RAM than the rows it lists. Half WHOLE_UP_TO,
# so that a request over two such scopes still finds them indexed.
INDEX_ABOVE = WHOLE_UP_TO // 2


# the script reads the ids of a scope's rows used only when related at once (one ZRANGE, then a
# table lookup a row read) when the scope holds up to this many; beyond, it asks row by row (ZSCORE)
GATED_READ = 2048


def word_key(word: str) -> str:
    return hashlib.blake2b(word.encode(), digest_size=8).hexdigest()


@lru_cache(maxsize=4096)  # the same words come back with every refresh of a value
def _keys_of_words(words: str) -> tuple[str, ...]:
    return tuple(word_key(word) for word in words.split())


@lru_cache(maxsize=4096)
def _topic_lists(attribute: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    main, related = topics_for(attribute)
    return tuple(sorted(main)), tuple(sorted(related))


def index_entry(row: list[Any]) -> list[Any]:
    """The entry apply.lua indexes a read-model row by: [unit (single-valued: the attribute, whose
    rows compete for one place) or False, static value, word keys, main topics, related topics,
    and for a row used only when related by meaning (its row holds a meaning) what it is listed
    under for that (relevance.listed_under) and what a lookup screens it with
    (relevance.screen_of_packed)]. `row` is a record's compact row (selection.compact): a pure
    function of it, so an index can be built later from the rows alone (`Engine.build_indexes`)."""
    attribute = row[2]
    main, related = _topic_lists(attribute)
    entry: list[Any] = [
        attribute if row[13] != Cardinality.MULTI else False,
        repr(row[20]),
        _keys_of_words(row[19]),
        main,
        related,
    ]
    meaning = row[24] if len(row) > 24 else None  # (a stored row leaves trailing defaults out)
    if meaning is not None:
        entry.append(sorted(relevance.listed_under_packed(meaning)))
        entry.append(relevance.screen_of_packed(meaning))
    return entry


def per_list(max_items: int) -> int:
    """How many rows the indexed read wants estimated above every row it leaves out before it
    stops (and its first step down each list): the budget, and a few spare for rows selection
    will find ineligible or shadowed. Too few, and the answer is not certified (read again whole)."""
    return max_items + 4


class SmallScopes:
    """The users, with the scopes they asked for, whose last context lookup found at most the
    threshold's rows. Their next lookup reads the scopes whole in a transaction (HMGET and HVALS),
    not through context.lua: a script turns every row into a Lua string and back and joins them,
    which at 100 rows costs the server 90–97 µs a lookup against 22 µs (docs/results.md,
    "Reads"). A user not seen yet, or past the threshold, goes through the script, which decides.
    Bounded: the users read least recently go first."""

    def __init__(self, max_entries: int = 65_536) -> None:
        self.max_entries = max_entries
        self._small: OrderedDict[tuple[str, str, tuple[str, ...]], None] = OrderedDict()
        self._lock = threading.Lock()

    def small(self, user: tuple[str, str], scopes: Sequence[str]) -> bool:
        key = (*user, tuple(scopes))
        with self._lock:
            if key not in self._small:
                return False
            self._small.move_to_end(key)
            return True

    def note(self, user: tuple[str, str], scopes: Sequence[str], small: bool) -> None:
        key = (*user, tuple(scopes))
        with self._lock:
            if not small:
                self._small.pop(key, None)
                return
            self._small[key] = None
            self._small.move_to_end(key)
            while len(self._small) > self.max_entries:
                self._small.popitem(last=False)

    def clear(self) -> None:
        """Forget every user (the reader moved to another namespace)."""
        with self._lock:
            self._small.clear()

    def __len__(self) -> int:
        return len(self._small)


@dataclass
class ReadStats:
    """How context lookups were answered: scopes read whole because they are small, or because
    their index does not cover them (rows written before it existed), or because they were small
    at the user's last lookup and have grown past the threshold since (the next lookup goes
    through the index); from the index, and from the index but not certified (then read whole: a
    second round trip)."""

    whole_small: int = 0
    whole_unindexed: int = 0
    whole_grown: int = 0
    indexed: int = 0
    uncertified: int = 0
    rows: int = 0  # rows transferred and parsed, over every lookup

    # called with each count's name as well (a server exports them as a metric)
    on_count: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def count(self, what: str, rows: int) -> None:
        with self._lock:
            setattr(self, what, getattr(self, what) + 1)
            self.rows += rows
        if self.on_count is not None:
            self.on_count(what)

    def as_dict(self) -> dict[str, int]:
        return {
            "whole_small": self.whole_small,
            "whole_unindexed": self.whole_unindexed,
            "whole_grown": self.whole_grown,
            "indexed": self.indexed,
            "uncertified": self.uncertified,
            "rows": self.rows,
        }

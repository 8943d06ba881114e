"""Home city: `profile.home_city`, the city as written; "I moved to …" states a change.

The patterns and word lists are in `memory/data/families/home.toml`; here are the readers that
turn a match into a city."""

from __future__ import annotations

import re

from . import prefilter
from .prefilter import one_of
from .spec import Reader, Spec
from .text import clean

SPEC = Spec("home")
_NOT_A_CITY_EN = frozenset(SPEC.words["not_a_city_en"])
_CITY_JOINERS = frozenset(SPEC.words["city_joiners"])
_NOT_A_PLACE = SPEC.expressions["not_a_place"]


def _city_en(m: re.Match[str], group: int) -> str | None:
    words = m.group(group).strip().split()
    while words and words[-1].casefold() in _CITY_JOINERS:
        words.pop()
    if not words or words[0].casefold() in _NOT_A_CITY_EN:
        return None
    return " ".join(words)


def _city_zh(m: re.Match[str]) -> str | None:
    city = clean(m.group(1))
    if len(city) > 2 and city.endswith("市"):
        city = city[:-1]
    if len(city) < 2 or _NOT_A_PLACE.search(city):
        return None
    return city


_READERS: dict[str, Reader] = {"city_en": _city_en, "city_zh": _city_zh}
HOME_CITY = SPEC.family("home_city", _READERS)

# A move told without its place ("big news, we moved!", "we finally did the move"): the place said
# beside it, or in the next sentence, as where the user is now ("we're in Bristol now") is the new
# home. (A move to a place is read by HOME_CITY itself: "moved to Bristol".)
MOVE_TOLD = SPEC.expressions["move_told"]
HOME_AFTER_A_MOVE = SPEC.family("home_after_a_move", _READERS)
prefilter.tested(MOVE_TOLD)
# what a turn cannot hold such a home without: a move told, and a place said as where the user is
AFTER_A_MOVE_REQUIRES = one_of(MOVE_TOLD) & HOME_AFTER_A_MOVE.requires

"""Family: `profile.family` ("wife: Ana", "2 kids", "我老婆: 小美"). Read before other people's clauses
are dropped: the relative is the subject, through the user's possessive ("my wife", "我老婆").

The patterns are in `memory/data/families/relatives.toml`; here are the readers of a relative and
a name."""

from __future__ import annotations

import re

from . import prefilter
from .everyday_shared import ME_ZH, Found, first_read
from .prefilter import one_of
from .spec import Reader, Spec

SPEC = Spec("relatives")


def _counted(m: re.Match[str]) -> str:
    """ "two kids", "three children: Tom, Ann and Joe"."""
    return f"{m.group('n')} {m.group('rel')}" + (f": {m.group('name')}" if m.group("name") else "")


def _relative_lower(m: re.Match[str]) -> str:
    return f"{m.group('rel').casefold()}: {m.group('name')}"


def _with_name(m: re.Match[str], relative: int | str, name: int | str) -> str:
    """The relative, with the name when one is said."""
    return m.group(relative) + (f": {m.group(name)}" if m.group(name) else "")


_READERS: dict[str, Reader] = {
    "counted": _counted,
    "relative_lower": _relative_lower,
    "with_name": _with_name,
}
RELATIVES_EN = SPEC.pairs("family_en", _READERS)


_FAMILY_ZH_TABLE = SPEC.pairs("family_zh_table", _READERS)
_CHILD_ZH = SPEC.expressions["child_zh"]
# every statement about family in Chinese is one of these (the prefilter's look at `relatives_zh`)
RELATIVES_ZH_REQUIRES = one_of(ME_ZH, _CHILD_ZH) & one_of(*(pattern for pattern, _ in _FAMILY_ZH_TABLE))


def relatives_zh(t: str) -> list[Found]:
    if "我" not in t and not t.startswith("孩子他"):
        return []
    for pattern, read in _FAMILY_ZH_TABLE:
        m = prefilter.search(pattern, t)
        if m:
            return [("profile.family", read(m), False)]
    return []


# what an English statement about it cannot be without (the prefilter's look at `relatives_en`)
RELATIVES_EN_REQUIRES = one_of(*(pattern for pattern, _ in RELATIVES_EN))


def relatives_en(t: str) -> list[Found]:
    """The first pattern that matches gives the relative ("my wife Ana", "two kids")."""
    return first_read(RELATIVES_EN, t, "profile.family")

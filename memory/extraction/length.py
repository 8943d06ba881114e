"""Answer length: quantitative limits (`preference.response.length`, "3 sentences", "at most 100 words").

The patterns, units and word lists are in `memory/data/families/length.toml`; here are the readers
that turn a number and a unit into the stored value."""

from __future__ import annotations

import re
from typing import Any

from .spec import Spec
from .text import to_int

SPEC = Spec("length")
_UNITS_EN = SPEC.maps["units_en"]
_ALIASES_EN = SPEC.maps["aliases_en"]
_UNITS_ZH = SPEC.maps["units_zh"]
_MEASURED_BY_NAME_ZH = SPEC.maps["measured_by_name_zh"]
_EXACT_LEADS = frozenset(SPEC.words["exact_leads"])
_EXACT_LEADS_ZH = frozenset(SPEC.words["exact_leads_zh"])
_ABOUT = re.compile(r"\b(?:around|about|roughly|approximately)$|\bfor$")
_TASK = SPEC.expressions["task"]
_SCOPED = SPEC.expressions["scoped"]


def _unit_en(raw: str) -> str | None:
    u = " ".join(raw.casefold().split())
    u = u[:-1] if u.endswith("s") else u
    return _UNITS_EN.get(_ALIASES_EN.get(u, u))


def _value(n: int | None, unit: str | None, mode: str) -> str | None:
    if not n or not unit:
        return None
    if n == 1 and unit.endswith("s"):
        unit = unit[:-1]
    if mode == "exact":
        return f"{n} {unit}"
    if mode == "about":
        return f"about {n} {unit}"
    return f"at most {n} {unit}"


def _len_en(m: re.Match[str]) -> str | None:
    """The number's mode from the words before it: "in three sentences" is exact, "around 100
    words" about, "under 100 words" (or "… or fewer") at most."""
    lead = (m.group("lead") or "").casefold().strip()
    tail = (m.group("tail") or "").casefold().strip() if "tail" in m.re.groupindex else ""
    if tail:
        mode = "max"
    elif lead in _EXACT_LEADS:
        mode = "exact"
    elif _ABOUT.search(lead):
        mode = "about"
    else:
        mode = "max"
    n_raw = m.group("n").casefold()
    if n_raw in ("a", "an"):
        if mode == "exact":
            return None  # "in a word", "in a sentence": a figure of speech
        n_raw = "one"
    return _value(to_int(n_raw), _unit_en(m.group("u")), mode)


def _measure_en(m: re.Match[str], mode: str) -> str | None:
    return _value(to_int(m.group("n")), _unit_en(m.group("u")), mode)


def _len_zh(m: re.Match[str]) -> str | None:
    n = to_int(m.group(2))
    unit = _UNITS_ZH.get(m.group(3))
    if not n or not unit:
        return None
    if n == 1 and unit.endswith("s"):
        unit = unit[:-1]
    exact = not (m.group(1) and m.group(1) not in _EXACT_LEADS_ZH) and not m.group(4)
    return f"{n} {unit}" if exact else f"at most {n} {unit}"


def _measure_zh(m: re.Match[str], mode: str, number: int, unit: int) -> str | None:
    return _value(to_int(m.group(number)), _UNITS_ZH.get(m.group(unit)), mode)


def _characters_zh(m: re.Match[str], number: int) -> str | None:
    return _value(to_int(m.group(number)), "characters", "max")


def _named_measure_zh(m: re.Match[str]) -> str | None:
    return _value(to_int(m.group(2)), _MEASURED_BY_NAME_ZH.get(m.group(1)), "max")


class _NotATask:
    """A reader that gives nothing in a task's own format ("Summarize the report in three bullet
    points"), unless the sentence says it holds beyond the task."""

    __slots__ = ("read",)

    def __init__(self, read: Any) -> None:
        self.read = read

    def __call__(self, m: re.Match[str], *args: Any) -> str | None:
        if _TASK.search(m.string) and not _SCOPED.search(m.string):
            return None
        value: str | None = self.read(m, *args)
        return value


_READERS = {
    "len_en": _NotATask(_len_en),
    "measure_en": _NotATask(_measure_en),
    "len_zh": _NotATask(_len_zh),
    "measure_zh": _NotATask(_measure_zh),
    "characters_zh": _NotATask(_characters_zh),
    "named_measure_zh": _NotATask(_named_measure_zh),
}
LENGTH = SPEC.family("length", _READERS)

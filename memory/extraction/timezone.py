"""Timezone: `profile.timezone` ("UTC+8", "PST", "Asia/Shanghai"; 东八区 and 北京时间 are UTC+8;
named zones keep their usual abbreviation, "<city> time" its IANA name when the city is known).

The patterns, the named zones and the cities are in `memory/data/families/timezone.toml`; here are
the readers that turn what was written into the zone kept."""

from __future__ import annotations

import re
import unicodedata

from .spec import Spec
from .text import to_int

SPEC = Spec("timezone")
_NAMED = {**SPEC.maps["zones_en"], **SPEC.maps["zones_zh"]}
_CITIES = {**SPEC.maps["cities_en"], **SPEC.maps["cities_zh"]}
_ABBREVIATION = re.compile(SPEC.part("tz_abbr"), re.X | re.I)
_ANY_TZ = SPEC.expressions["any_tz"]
_OWN_TIME = SPEC.expressions["own_time"]
_CLOCK_BEFORE = SPEC.expressions["clock_before"]
_CLOCK_AFTER = SPEC.expressions["clock_after"]
_CONVERSION = SPEC.expressions["conversion"]


def _norm_tz(raw: str) -> str | None:
    t = unicodedata.normalize("NFKC", raw).strip().replace("−", "-")
    m = re.fullmatch(r"(?:UTC|GMT)\s*([+\-])\s*(\d{1,2})(?::?(\d{2}))?", t, re.I)
    if m:
        hours, minutes = int(m.group(2)), m.group(3)
        if hours > 14 or (minutes and int(minutes) >= 60):
            return None
        return f"UTC{m.group(1)}{hours}" + (f":{minutes}" if minutes and minutes != "00" else "")
    m = re.fullmatch(r"([东西])([一二三四五六七八九十]{1,2})区", t)
    if m:
        n = to_int(m.group(2))
        if not n or n > 12:
            return None
        return f"UTC{'+' if m.group(1) == '东' else '-'}{n}"
    if t in ("零时区", "中时区") or t.upper() in ("UTC", "GMT"):
        return "UTC"
    key = re.sub(r"\s+", " ", t.casefold())
    key = re.sub(r"^the ", "", key)
    key = re.sub(r"(?: time| time ?zone| zone|(?:标准)?时间)$", "", key)
    if key in _NAMED:
        return _NAMED[key]
    if key in _CITIES:
        return _CITIES[key]
    key = re.sub(r" (?:standard|daylight)$", "", key)
    if key in _NAMED:
        return _NAMED[key]
    if "/" in t:
        return t
    return t.upper() if _ABBREVIATION.fullmatch(t) else None


def _zone(m: re.Match[str], group: int) -> str | None:
    return _norm_tz(m.group(group))


def _offset(m: re.Match[str]) -> str | None:
    """ "I'm 5 hours ahead of UTC": the offset said in words."""
    n = to_int(m.group(1))
    if not n or n > 14:
        return None
    return f"UTC{'+' if m.group(2).casefold().startswith('ahead') else '-'}{n}"


def _timezone_cue(m: re.Match[str]) -> str | None:
    text = m.string
    if not _OWN_TIME.search(text) or _CONVERSION.search(text):
        return None
    for tz in _ANY_TZ.finditer(text):
        raw = next(g for g in tz.groups() if g)
        if _CLOCK_BEFORE.search(text[: tz.start()]) or _CLOCK_AFTER.search(text[tz.end() :]):
            continue
        value = _norm_tz(raw)
        if value:
            return value
    return None


TIMEZONE = SPEC.family("timezone", {"zone": _zone, "offset": _offset, "timezone_cue": _timezone_cue})

"""Travel: `preference.travel.<seat|cabin|airline|hotel|style|…>` ("I always book an aisle seat",
"我坐飞机只坐靠窗"), and what a trip is hard with (motion sickness, fear of flying).

The patterns are in `memory/data/families/travel.toml`; here is how a sentence is read with them."""

from __future__ import annotations

import re

from . import prefilter
from .everyday_shared import ME_ZH, Found, phrase_value, strip_subject_en
from .prefilter import one_of
from .spec import Spec

SPEC = Spec("travel")

_TRAVEL_EN = SPEC.pairs("travel_en")
_FEAR_EN = SPEC.expressions["fear_en"]
_TRAVEL_CUE_EN = SPEC.expressions["travel_cue_en"]


_TRAVELLING_EN = SPEC.expressions["travelling_en"]
# every travel statement is one of these (the prefilter's look at `travel_en`)
TRAVEL_EN_REQUIRES = one_of(_TRAVEL_CUE_EN) & one_of(_FEAR_EN, _TRAVELLING_EN, *(pattern for pattern, _ in _TRAVEL_EN))


def travel_en(t: str) -> list[Found]:
    if not _TRAVEL_CUE_EN.search(t):
        return []
    out: list[Found] = []
    if not re.search(
        r"(?i)\b(?:prefer|like|love|hate|avoid|always|usually|only|rather|go-to|for\s+me|member|have|try|book|stay|fly|want|need|"
        r"possible|whenever|no\s+need|afraid|nervous|scared|sick|claustrophobic|get|I'm|travel)\b",
        t,
    ):
        return out
    m = prefilter.search(_FEAR_EN, t)
    if m and re.search(r"(?i)\bI(?:'m|\s+am|\s+get|\s+have|'ve)\b", t):
        out.append(("profile.travel_fears", phrase_value(m.group("v")), False))
    elif _TRAVELLING_EN.search(t) and re.search(
        r"(?i)\bI\s+(?:\w+\s+)?(?:like|love|prefer|always|usually|try|avoid|never)\b", t
    ):
        out.append(("preference.travel.style", phrase_value(strip_subject_en(t)), False))
    for r, attr in _TRAVEL_EN:
        m = prefilter.search(r, t)
        if m:
            v = m.group("v") or m.groupdict().get("v2") or ""
            if attr == "preference.travel.seat":
                v = re.sub(r"(?i)\s+seats?$", "", v) + ("" if "front" in v.casefold() else " seat")
            if attr == "preference.travel.flights" and re.search(r"(?i)hate|avoid|rather\s+avoid|no\b", t):
                v = "direct flights" if re.search(r"(?i)layover|connection", v) else "no " + v
            out.append((attr, phrase_value(v), False))
            break
    return out


_TRAVEL_ZH = SPEC.pairs("travel_zh")


_FEAR_ZH_RX = SPEC.expressions["fear_zh_rx"]
_TRAVEL_ZH_RX = _TRAVEL_ZH
# every travel statement in Chinese is one of these (the prefilter's look at `travel_zh`)
TRAVEL_ZH_REQUIRES = one_of(ME_ZH) & one_of(_FEAR_ZH_RX, *(pattern for pattern, _ in _TRAVEL_ZH_RX))


def travel_zh(t: str) -> list[Found]:
    if "我" not in t:
        return []
    out: list[Found] = []
    m = _FEAR_ZH_RX.search(t)
    if m:
        out.append(("profile.travel_fears", m.group(1), False))
    if re.search(r"坐|飞|住|订|选|喜欢|习惯|一般|出门|出差|旅游|会员|要|带|用|玩", t):
        for pattern, attr in _TRAVEL_ZH_RX:
            m = prefilter.search(pattern, t)
            if m:
                v = m.group(1)
                if attr == "preference.travel.flights" and "转机" in v:
                    v = "直飞"
                out.append((attr, v, False))
                break
    return out

"""Hobbies, sports teams, music: `profile.hobbies`, `profile.sports_teams`, `profile.music` (beyond what
the likes frame routes here).

The patterns are in `memory/data/families/hobbies.toml`; here is how a sentence is read with them."""

from __future__ import annotations

import re

from . import prefilter
from .everyday_shared import ME_ZH, Found, phrase_value, strip_subject_en
from .languages_spoken import LANGUAGES_SPOKEN_ZH
from .prefilter import one_of
from .spec import Spec

SPEC = Spec("hobbies")

_HOBBY_EN = SPEC.pairs("hobby_en")


HOBBIES_EN_REQUIRES = one_of(*(pattern for pattern, _ in _HOBBY_EN))  # the prefilter's look at `hobbies_en`


def hobbies_en(t: str) -> list[Found]:
    if not re.search(r"(?i)\b(?:I|I'm|I've|my)\b", t):
        return []
    out: list[Found] = []
    for r, attr in _HOBBY_EN:
        m = prefilter.search(r, t)
        if m:
            v = phrase_value(m.groupdict().get("v") or strip_subject_en(t))
            if not v or re.fullmatch(r"(?i)I|the|a|an|my|it|this|that", v):
                continue
            if attr == "profile.sports_teams" and re.search(
                r"(?i)^(?:the\s+)?(?:rules?|news|advice|recipe|instructions?)\b", v
            ):
                continue
            out.append((attr, v, False))
            break
    return out


_LEARNING_LEAD_ZH = SPEC.expressions["learning_lead_zh"]
_FAN_ZH = SPEC.expressions["fan_zh"]
_SUPPORTS_ZH = SPEC.expressions["supports_zh"]
_LEARNING_ZH = SPEC.expressions["learning_zh"]
_HOBBY_ZH = SPEC.expressions["hobby_zh"]
_CAN_PLAY_ZH = SPEC.expressions["can_play_zh"]
_CRAFT_ZH = SPEC.expressions["craft_zh"]
# every hobby statement in Chinese is one of these (the prefilter's look at `hobbies_zh`)
HOBBIES_ZH_REQUIRES = one_of(ME_ZH, _LEARNING_LEAD_ZH) & one_of(
    _FAN_ZH, _SUPPORTS_ZH, _LEARNING_ZH, _HOBBY_ZH, _CAN_PLAY_ZH, _CRAFT_ZH
)


def hobbies_zh(t: str) -> list[Found]:
    if "我" not in t and not _LEARNING_LEAD_ZH.match(t):
        return []
    m = _FAN_ZH.search(t) or _SUPPORTS_ZH.search(t)
    if m:
        return [("profile.sports_teams", m.group(1), False)]
    m = _LEARNING_ZH.search(t)
    if m and m.group(1) not in LANGUAGES_SPOKEN_ZH and not m.group(1).endswith(("语", "话")):
        return [("profile.hobbies", m.group(1), False)]
    m = _HOBBY_ZH.search(t) or _CAN_PLAY_ZH.search(t)
    if m:
        return [("profile.hobbies", m.group(1), False)]
    m = _CRAFT_ZH.search(t)
    if m:
        return [("profile.hobbies", m.group(1), False)]
    return []

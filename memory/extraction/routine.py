"""Routines and habits: `profile.routine` ("I run every morning", "我每天骑车上班").

The patterns are in `memory/data/families/routine.toml`; here is how a sentence is read with them."""

from __future__ import annotations

import re

from . import prefilter
from .budget import BUDGET_LIMIT_ZH
from .everyday_shared import ME_ZH, REQUEST_ZH, Found, phrase_value, strip_subject_en
from .prefilter import one_of
from .spec import Spec
from .text import clean

SPEC = Spec("routine")

_FREQ_EN = SPEC.expressions["freq_en"]
_ACT_EN = SPEC.expressions["act_en"]
_ROUTINE_EN = SPEC.searches("routine_en")


_SELF_EN = SPEC.expressions["self_en"]
_I_EN = SPEC.expressions["i_en"]
# every routine statement is about the user, and is one of these or says how often the user does it
# (the prefilter's look at `routine_en`)
ROUTINE_EN_REQUIRES = one_of(_SELF_EN) & one_of(*_ROUTINE_EN, (_I_EN, _FREQ_EN))


def routine_en(t: str) -> list[Found]:
    if not _SELF_EN.search(t):
        return []
    for r in _ROUTINE_EN:
        if prefilter.search(r, t):
            return [("profile.routine", phrase_value(strip_subject_en(t)), False)]
    m = _I_EN.search(t)
    verb = re.search(
        # (not a question's inverted "am I right", "do I need")
        r"(?i)(?<!\bam\s)(?<!\bdo\s)(?<!\bdid\s)(?<!\bcan\s)(?<!\bshould\s)\bI\s+"
        r"(?:usually\s+|always\s+|normally\s+|never\s+|generally\s+|typically\s+|often\s+|also\s+)*(?P<v>[a-z]+)\b",
        t,
    )
    present = bool(
        verb
        and not re.fullmatch(
            r"(?i)\w+ed|am|was|were|had|did|went|ate|got|made|took|saw|want|need|would|should|could|might|will|plan|hope|wish|love|like|hate|think|guess|know|mean|have|can|can't|don't",
            verb.group("v"),
        )
    )
    if m and _FREQ_EN.search(t) and (present or _ACT_EN.search(t[m.start() :])):
        if re.search(
            r"(?i)\bI\s+(?:want|need|'d|would|should|could|might|will|plan|hope|wish|tried|went|had|was|did)\b", t
        ):
            return []
        return [("profile.routine", phrase_value(strip_subject_en(t)), False)]
    return []


_COMMUTE_ZH = SPEC.expressions["commute_zh"]
_HABIT_ZH = SPEC.expressions["habit_zh"]
_EVERY_ZH = SPEC.expressions["every_zh"]
_FREQ_ZH_RX = SPEC.expressions["freq_zh_rx"]
_ACT_ZH_RX = SPEC.expressions["act_zh_rx"]
# every routine statement in Chinese is one of these (the prefilter's look at `routine_zh`)
ROUTINE_ZH_REQUIRES = one_of(ME_ZH) & one_of(_COMMUTE_ZH, _HABIT_ZH, _EVERY_ZH, (_FREQ_ZH_RX, _ACT_ZH_RX))


def routine_zh(t: str) -> list[Found]:
    if "我" not in t or REQUEST_ZH.search(t) or re.search(r"我(?:说|是说|的意思)", t):
        return []
    if _COMMUTE_ZH.search(t) or _HABIT_ZH.search(t):
        return [("profile.routine", clean(re.sub(r"^我(?:的)?", "", t)), False)]
    if re.search(r"(?<!冥)想|打算|准备|应该|要不要", t):
        return []
    if _EVERY_ZH.search(t) and not BUDGET_LIMIT_ZH.search(t):
        return [("profile.routine", clean(re.sub(r"^(?:我(?:一般|通常|平时)?)", "", t)), False)]
    if _FREQ_ZH_RX.search(t) and _ACT_ZH_RX.search(t):
        return [("profile.routine", clean(re.sub(r"^(?:我(?:一般|通常|平时)?)", "", t)), False)]
    return []

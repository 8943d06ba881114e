"""Accessibility: `profile.accessibility` ("I'm hard of hearing", "I use a screen reader", "我有阅读障碍");
a setting many people simply like (dark mode, captions) only when the sentence says it is a need.

The patterns are in `memory/data/families/accessibility.toml`; here is how a sentence is read with
them."""

from __future__ import annotations

import re

from .everyday_shared import ME_ZH, Found, phrase_value, strip_subject_en
from .prefilter import all_of, one_of
from .spec import Spec
from .text import clean

SPEC = Spec("accessibility")

_ACCESS_EN = SPEC.expressions["access_en"]


# settings many people simply like: an accessibility need only when the sentence says it is one
_ACCESS_SOFT_EN = SPEC.expressions["access_soft_en"]
_ACCESS_NEED_EN = SPEC.expressions["access_need_en"]


_ACCESS_ZH_RX = SPEC.expressions["access_zh_rx"]
# a word for an accessibility need (the prefilter's look at `accessibility`)
ACCESS_EN_REQUIRES = one_of(_ACCESS_EN)
ACCESS_ZH_REQUIRES = all_of(ME_ZH, _ACCESS_ZH_RX)


def accessibility(t: str, lang_zh: bool) -> list[Found]:
    if lang_zh:
        if "我" not in t:
            return []
        m = _ACCESS_ZH_RX.search(t)
        return (
            [
                (
                    "profile.accessibility",
                    clean(re.sub(r"^我(?:是|有|的)?", "", re.split(r"[，,]", t)[0])) or m.group(0),
                    False,
                )
            ]
            if m
            else []
        )
    m = _ACCESS_EN.search(t)
    if not m or not re.search(r"(?i)\b(?:I|I'm|I've|my|me)\b", t):
        return []
    if _ACCESS_SOFT_EN.fullmatch(m.group(0)) and not _ACCESS_NEED_EN.search(t):
        return []  # "I like dark mode in the editor": a taste, not a need
    if re.search(
        r"(?i)\bmy\s+(?:\w+\s+)?(?:friend|mom|dad|son|daughter|kid|wife|husband|colleague|intern|grandma|grandpa)\b", t
    ):
        return []
    return [
        ("profile.accessibility", phrase_value(m.group(0)) if len(t) > 80 else phrase_value(strip_subject_en(t)), False)
    ]

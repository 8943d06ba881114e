"""Dates: `profile.dates` ("my birthday: March 3", "结婚纪念日: 5月20日"). Read before other people's
clauses are dropped ("my wife's birthday is …").

The patterns are in `memory/data/families/dates.toml`; here is how a sentence is read with them."""

from __future__ import annotations

import re

from .everyday_shared import CJK, ME_ZH, REL_ZH, Found
from .prefilter import all_of
from .spec import Spec

SPEC = Spec("dates")

_DATE_NOUN_EN = SPEC.expressions["date_noun_en"]


_DATE_EN_RX = SPEC.expressions["date_en_rx"]
_DATE_ZH_RX = SPEC.expressions["date_zh_rx"]
_DATE_NOUN_ZH_RX = SPEC.expressions["date_noun_zh_rx"]
# a date and a word for what it is (the prefilter's look at `dates`)
DATES_EN_REQUIRES = all_of(_DATE_NOUN_EN, _DATE_EN_RX)
DATES_ZH_REQUIRES = all_of(ME_ZH, _DATE_NOUN_ZH_RX, _DATE_ZH_RX)


def dates(t: str, lang_zh: bool) -> list[Found]:
    if lang_zh:
        if "我" not in t or not _DATE_NOUN_ZH_RX.search(t):
            return []
        m = _DATE_ZH_RX.search(t)
        if not m:
            return []
        who = re.search(
            r"我(?:的|们的?|家)?(" + REL_ZH + r"|俩孩子|两个孩子)?(?:的)?(生日|[" + CJK + r"]{0,4}纪念日|忌日)", t
        )
        label = (who.group(1) or "") + (who.group(2) if who else "") if who else _DATE_NOUN_ZH_RX.search(t).group(0)  # type: ignore[union-attr]
        return [("profile.dates", f"{label or '纪念日'}: {m.group(0)}", False)]
    if not _DATE_NOUN_EN.search(t):
        return []
    m = _DATE_EN_RX.search(t)
    if not m:
        return []
    if not re.search(r"(?i)\b(?:my|our|I|I'm|we|me)\b|^(?:\w+'s|b-?day)", t):
        return []
    who = re.search(
        r"(?i)\b((?:my|our)\s+(?:[\w-]+(?:'s?)?\s+){0,2}?(?:birthday|b-?day|anniversary|sobriety\s+date|wedding\s+day))",
        t,
    ) or re.search(r"(?i)^([\w-]+'s?\s+birthday)", t)
    label = who.group(1) if who else ("birthday" if re.search(r"(?i)born|birthday|b-?day|baby", t) else "anniversary")
    return [("profile.dates", f"{label}: {m.group(0)}", False)]

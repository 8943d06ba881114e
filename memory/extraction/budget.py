"""Budgets and spending limits: `preference.budget.<category>` ("under $200 a night" -> hotel,
"礼物不超过500块" -> gifts).

The patterns and categories are in `memory/data/families/budget.toml`; here is how a sentence is read
with them."""

from __future__ import annotations

import re

from .everyday_shared import FIRST_EN, Found
from .prefilter import all_of
from .spec import Spec
from .text import clean

SPEC = Spec("budget")

_AMOUNT_EN = SPEC.expressions["amount_en"]
_LIMIT_EN = SPEC.expressions["limit_en"]

_CATEGORIES = SPEC.pairs("categories")


def _category(t: str) -> str:
    for p, cat in _CATEGORIES:
        if p.search(t):
            return cat
    return "general"


BUDGET_EN_REQUIRES = all_of(_AMOUNT_EN, _LIMIT_EN)  # the prefilter's look at `budget_en`


def budget_en(t: str) -> list[Found]:
    m = _AMOUNT_EN.search(t)
    if not m or not _LIMIT_EN.search(t):
        return []
    if not (
        FIRST_EN.search(t)
        or re.match(
            r"(?i)^(?:please\s+)?keep\b|^for\s+\w+|^[\w\s]{2,20}:\s*(?:max|under|up\s+to|no\s+more\s+than|budget)", t
        )
    ):
        return []
    if re.search(
        r"(?i)\b(?:spent|paid|cost\s+me|was|were|costs?|bill\s+at|tip|calculate|convert)\b", t
    ) and not re.search(r"(?i)budget|won't|don't|no\s+more", t):
        return []
    cat = _category(t)
    return [(f"preference.budget.{cat}", _budget_value(t, m), False)]


def _budget_value(t: str, m: re.Match[str]) -> str:
    tail = t[m.start() :]
    tail = re.split(r"[,.;!?](?!\d)", tail, maxsplit=1)[0]
    lead = re.search(
        r"(?i)\b(under|below|less\s+than|no\s+more\s+than|up\s+to|at\s+most|around|about)\s*$", t[: m.start()]
    )
    return clean(((lead.group(1) + " ") if lead else "") + tail)


_NUM_ZH = SPEC.part("num_zh")


BUDGET_LIMIT_ZH = SPEC.expressions["limit_zh_rx"]
_MONEY_ZH_RX = SPEC.expressions["money_zh_rx"]
BUDGET_ZH_REQUIRES = all_of(BUDGET_LIMIT_ZH, _MONEY_ZH_RX)  # the prefilter's look at `budget_zh`


def budget_zh(t: str) -> list[Found]:
    if not BUDGET_LIMIT_ZH.search(t) or not _MONEY_ZH_RX.search(t):
        return []
    m = None
    for c in re.finditer(
        r"(?<![一二两三四五六七八九十百千万\d])"
        + _NUM_ZH
        + r"(?![\d]*(?:字|句|分钟|小时|个字|条|页|公里|斤|岁|度|点|号|月|年|天|次|%|倍|人|口|件|只|个|周))",
        t,
    ):
        if re.search(
            r"\d{2,}|[二两三四五六七八九十][十百千万]|[百千万]|[一二两三四五六七八九]{2}百|[一二两三四五六七八九][百千]",
            c.group(0),
        ):
            m = c
            break
    if m is None:
        return []
    if re.search(r"多少|几|吗", t):
        return []
    return [(f"preference.budget.{_category(t)}", clean(t[max(0, m.start() - 6) : m.end() + 4]), False)]

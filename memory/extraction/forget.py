"""Forget commands: "forget that I live in Beijing" (the attribute and value said), "forget my
timezone" (a noun names the attribute: every value)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from .analyze import analyze
from .text import clean, rx, zh

_FORGET_EN = rx(
    r"""
    ^(?:please\s+|can\ you\s+|could\ you\s+|would\ you\s+|you\ can\s+|you\ may\s+)?(?:forget|delete|
    remove|erase|clear|drop|stop\ remembering|don'?t\ remember|
    no\ need\ to\ remember)\s+(?:about\s+)?(?:the\ fact\s+)?(?:that\s+|
    what\ I\ (?:said|told\ you)\ about\s+)?(.+)
    """
)
_FORGET_ZH = zh(
    r"""
    ^(?:请|麻烦)?(?:你)?(?:帮我)?(?:把)?(?:忘掉|忘记|忘了|删除|删掉|清除|抹掉|不要再记(?:住)?|
    别再记(?:住)?|不用记(?:住)?)(?:关于)?(.+)
    """
)
_FORGET_TAIL = zh(
    r"""
    (?i)\s*(?:from|in)\s+(?:your\s+)?(?:memory|memories|records?)\b.*$|
    (?:的)?(?:这条|这件事|这个)?(?:记忆|记录|信息|偏好)$
    """
)
_FORGET_NOUNS: list[tuple[re.Pattern[str], str]] = [
    (
        rx(r"\b(?:home\s*city|city|location|address|where\ I\ live)\b|住址|住在哪|住哪|城市|居住地|所在地"),
        "profile.home_city",
    ),
    (rx(r"\btime\s?zone\b|时区"), "profile.timezone"),
    (rx(r"\blanguage(?:\s+preference)?\b|语言"), "preference.language"),
    (
        rx(
            r"""
            \b(?:answer|response|reply)\s+(?:length|detail|style)\b|
            \b(?:verbosity|detail\s+preference|length\s+preference)\b|回答(?:长度|详细程度|长短)|
            详细程度
            """
        ),
        "preference.response.detail",
    ),
    (rx(r"\bexplanation\s+style\b|讲解(?:方式|风格)|解释(?:方式|风格)"), "preference.explanation_style"),
    (rx(r"\b(?:expertise|skill\ level|experience\ level)\b|水平|专业程度|技能水平"), "profile.expertise"),
    (rx(r"\bgoals?\b|目标"), "goal.main"),
    (rx(r"\b(?:priority|priorities|focus)\b|优先级|重点|优先事项"), "priority.focus"),
    (rx(r"\b(?:confirmation|approval)\s+rules?\b|确认规则"), "rule.confirm_before"),
]
_FORGET_PREFIX = zh(r"(?i)^(?:my|the|that|about|我的|我|关于)\s*")


def forget_command(text: str, at: datetime) -> tuple[str, Any] | None:
    m = _FORGET_EN.match(text) or _FORGET_ZH.match(text)
    if not m:
        return None
    target = _FORGET_TAIL.sub("", m.group(1)).strip()
    target = clean(target)
    if not target:
        return None
    # "forget that I live in Beijing": the target says what (and which value) to forget
    hits = analyze(target, at)
    if hits:
        return hits[0].attribute, hits[0].value
    # "forget my home city": a noun names the attribute (every value)
    noun = _FORGET_PREFIX.sub("", target)
    goal = re.match(r"(?i)^(?:my\s+)?goal\s+(?:to|of)\s+(.+)$", target)
    if goal:
        return "goal.main", clean(goal.group(1))
    for noun_rx, attribute in _FORGET_NOUNS:
        if noun_rx.search(noun) and len(noun) <= 40:
            return attribute, None
    return None

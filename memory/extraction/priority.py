"""Time-boxed priorities: `priority.focus`, valid from the turn's time until the end of the period it
names (this week, today, this month, next week, tomorrow); "for now" takes the registry's default lifetime."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..models import Kind
from .family import Hit
from .text import Pattern, captured, clean, day_end, month_end, rx, scan, week_end, zh

_TM_EN = rx(
    r"""
    \b(this\ week|today|tonight|this\ month|next\ week|tomorrow|for\ now|right\ now|
    for\ the\ time\ being|at\ the\ moment|for\ the\ rest\ of\ the\ (?:week|day))\b
    """
)
_TM_ZH = zh(
    r"""
    (这周|本周|这个星期|这星期|本星期|这礼拜|这个礼拜|今天|今日|今晚|本月|这个月|下周|下个星期|
    下礼拜|明天|目前|眼下|当前|现阶段|暂时|这几天)
    """
)
_PRIORITY_WORD = rx(r"\bpriorit(?:y|ies|i[sz]e|i[sz]ing)\b|优先|重点|首要")


def _window(marker: str, at: datetime) -> tuple[datetime | None, datetime | None]:
    k = marker.casefold()
    if k in (
        "this week",
        "for the rest of the week",
        "这周",
        "本周",
        "这个星期",
        "这星期",
        "本星期",
        "这礼拜",
        "这个礼拜",
    ):
        return at, week_end(at)
    if k in ("today", "tonight", "for the rest of the day", "今天", "今日", "今晚"):
        return at, day_end(at)
    if k in ("this month", "本月", "这个月"):
        return at, month_end(at)
    if k in ("next week", "下周", "下个星期", "下礼拜"):
        start = week_end(at)
        return start, start + timedelta(days=7)
    if k in ("tomorrow", "明天"):
        start = day_end(at)
        return start, start + timedelta(days=1)
    return None, None  # "for now / 目前": the registry's default lifetime


_PRIORITY_EN = [
    Pattern(
        rx(
            r"""
            \b(?:my|our|the)\s+(?:top\s+|main\s+|first\s+|biggest\s+|\#1\s+|
            number\ one\s+)?priorit(?:y|
            ies)\b(?:\s+(?:this\ week|today|tonight|this\ month|next\ week|tomorrow|for\ now|
            right\ now))?\s+(?:is|are|will\ be)\s+(.{1,80})
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
            (?:^|
            \b(?:let'?s|let\ us|please|we\s+(?:should|need\ to|will|must|'ll)|I\s+(?:want\ to|need\ to|
            will|must|should|'ll|plan\ to)|I'm\s+going\s+to|I'm|you\s+(?:should|need\ to))\s+|
            [,:]\s*|
            \b(?:this\ week|today|tonight|this\ month|next\ week|tomorrow|for\ now|right\ now)\s*,?\s*)
            (?:\w+\s+)?(?:focus(?:ing)?\s+on|
            prioriti[sz]e|prioriti[sz]ing|concentrate\s+on|work(?:ing)?\s+on|deal(?:ing)?\s+with|
            tackle|tackling|handle|handling|finish(?:ing)?|ship(?:ping)?)\s+(.{1,80})
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
            ^(?:focus(?:ing)?\s+on|prioriti[sz]e|concentrate\s+on|work\s+on|deal\s+with|tackle|
            handle|finish|ship)\s+(.{1,80})
            """
        ),
        captured(1, clean),
    ),
    Pattern(rx(r"^(.{1,60}?)\s+is\s+(?:my|our|the)\s+(?:top\s+|main\s+|first\s+)?priority\b"), captured(1, clean)),
]
_PRIORITY_ZH = [
    Pattern(
        zh(
            r"""
            (?:我|我们)?(?:的)?(?:首要|最重要|主要|头号)?(?:的)?(?:任务|重点|优先级最高的|
            优先事项)(?:是|为)\s*(.{1,40})
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        zh(
            r"""
            (?:先|优先|重点|主要|集中精力|集中|全力|专心|要|得|需要|必须)\s*(?:处理|做|搞|忙|推进|
            完成|解决|关注|攻克|搞定|跟进)\s*(?!了|过)(.{1,40})
            """
        ),
        captured(1, clean),
    ),
    Pattern(zh(r"(?:专注|聚焦|集中)(?:于|在)?\s*(.{1,40})"), captured(1, clean)),
    Pattern(zh(r"(?:先|优先)\s*把\s*(.{1,40})"), captured(1, clean)),
    Pattern(zh(r"(?:处理|推进|解决|搞定|主攻|跟进)\s*(?!了|过)(.{1,40})"), captured(1, clean)),
]


def priority_hits(text: str, at: datetime) -> list[Hit]:
    tm = _TM_EN.search(text) or _TM_ZH.search(text)
    if not tm and not _PRIORITY_WORD.search(text):
        return []
    # the value must not carry the time marker: match on the text with the marker blanked out
    body = text if not tm else (text[: tm.start()] + " " * (tm.end() - tm.start()) + text[tm.end() :])
    body = body.strip()
    found = scan(_PRIORITY_EN, body) or scan(_PRIORITY_ZH, body)
    if not found:
        return []
    value = re.sub(r"^(?:把|一下|下)", "", clean(found[0]))
    value = clean(re.sub(r"\s+first$", "", value, flags=re.I))
    if not value or re.fullmatch(r"(?:it|this|that|things|stuff|什么|啥|这个|那个)", value, re.I):
        return []
    vf, vu = _window(tm.group(1), at) if tm else (None, None)
    return [Hit("priority", Kind.PRIORITY, "priority.focus", value, confidence=0.85, valid_from=vf, valid_until=vu)]

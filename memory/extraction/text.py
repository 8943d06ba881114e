"""Text helpers shared by the rule families: pattern scanning with negation, cleaning values,
numbers, sentences, and the time windows of event time (UTC)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any


def rx(pattern: str) -> re.Pattern[str]:
    """A case-insensitive pattern, written in verbose mode: layout and comments are free, a literal
    space is `\\ ` and a literal `#` is `\\#`."""
    return re.compile(pattern, re.VERBOSE | re.IGNORECASE)


def zh(pattern: str) -> re.Pattern[str]:
    """A case-sensitive pattern (Chinese phrasings; `(?i:...)` marks an English part), verbose mode."""
    return re.compile(pattern, re.VERBOSE)


_CLAUSE_BREAK = rx(
    r"[,，、:：()（）]|\s[-–—]\s|\bbut\b|\band\b|\binstead\b|\bwhile\b|但是|可是|而是|不过|而且|并且|同时"
)
_NEG_EN = rx(
    r"""
    \b(?:not|never|no|no\ longer|don'?t|do\ not|doesn'?t|does\ not|didn'?t|won'?t|isn'?t|aren'?t|
    wasn'?t|can'?t|cannot|needn'?t|stop|neither|nor)\b
    """
)
_NEG_ZH = zh(
    r"不(?!管|论|对|错|过|仅|但|久|少|同|断|怕)|别(?!人|的|怕)|没有(?!多久|关系|问题)|没(?!多久|关系|问题|事)|无需"
    r"|甭|并非"
)


# "能不能 / 可不可以 / 要不要": a question form, not a negation
_A_NOT_A = re.compile(r"([\u4e00-\u9fff])不\1")


def _clause(text: str, start: int, end: int) -> str:
    a = 0
    for m in _CLAUSE_BREAK.finditer(text, 0, start):
        a = m.end()
    m2 = _CLAUSE_BREAK.search(text, end)
    b = m2.start() if m2 else len(text)
    return text[a:b]


def _negated(text: str, m: re.Match[str]) -> bool:
    clause = _A_NOT_A.sub("", _clause(text, m.start(), m.end()))
    return bool(_NEG_EN.search(clause) or _NEG_ZH.search(clause))


Value = Any
Getter = Callable[[re.Match[str]], Value]


@dataclass(frozen=True, slots=True)
class Pattern:
    rx: re.Pattern[str]
    value: Value | Getter
    neg_ok: bool = False  # the negation is part of the pattern's meaning ("don't be so verbose")


def scan(patterns: list[Pattern], text: str) -> tuple[Value, re.Match[str]] | None:
    for p in patterns:
        for m in p.rx.finditer(text):
            if not p.neg_ok and _negated(text, m):
                continue
            v = p.value(m) if callable(p.value) else p.value
            if v:
                return v, m
    return None


_EN_FILLER = rx(
    r"""
    (?:\s*[,;:.!]*\s*\b(?:please|now|instead|then|first|as\ well|too|again|thanks|thank\ you|ok|okay|
    this\ week|today|tonight|this\ month|next\ week|tomorrow|for\ now|right\ now|from\ now\ on|
    going\ forward|for\ the\ time\ being|at\ the\ moment|for\ the\ rest\ of\ the\ (?:week|day)|
    from\ here\ on|by\ default|always|anymore|any\ more)\b\s*[,;:.!]*)+$
    """
)
_ZH_TAIL = zh(r"(?:[了吧啊呢哦呀嘛啦的哈]|就好|就行|即可|一下|一点|可以吗|好吗|谢谢|先|上)+$")
ZH_TIME = zh(
    r"""
    这周|本周|这个星期|这星期|本星期|这礼拜|这个礼拜|今天|今日|今晚|本月|这个月|下周|下个星期|下礼拜|
    明天|目前|眼下|当前|现阶段|暂时|这几天|以后|今后|从现在开始|从现在起
    """
)


def clean(value: str) -> str:
    v = unicodedata.normalize("NFKC", value).strip()
    v = v.strip(" \t\"'“”‘’「」『』《》<>`")
    for _ in range(3):
        before = v
        v = _EN_FILLER.sub("", v).strip()
        v = v.rstrip(" ,，。.!！?？;；:：、…").strip()
        v = _ZH_TAIL.sub("", v).strip()
        if v == before:
            break
    return v.strip(" \t\"'“”‘’「」『』《》<>`")


def slugify(text: str, limit: int = 40) -> str:
    t = unicodedata.normalize("NFKC", text).casefold().strip()
    t = t.replace("c++", "cpp").replace("c#", "csharp").replace("f#", "fsharp").replace(".net", "dotnet")
    t = re.sub(r"[^\w]+", "_", t).strip("_")
    return t[:limit].strip("_")


_EN_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "fifty": 50,
    "hundred": 100,
    "a hundred": 100,
    "a few": 3,
    "a couple of": 2,
    "a couple": 2,
}
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}


def to_int(token: str) -> int | None:
    t = unicodedata.normalize("NFKC", token).strip().casefold()
    if t.isdigit():
        return int(t)
    if t in _EN_NUMBERS:
        return _EN_NUMBERS[t]
    total, digit = 0, None
    for ch in t:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            total += (1 if digit is None else digit) * _ZH_UNITS[ch]
            digit = None
        else:
            return None
    total += digit or 0
    return total or None


def captured(group: int, fn: Callable[[str], str | None]) -> Getter:
    return lambda m: fn(m.group(group))


def _midnight(at: datetime) -> datetime:
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def week_end(at: datetime) -> datetime:
    """Monday 00:00 UTC of the ISO week after the one containing `at`."""
    return _midnight(at) - timedelta(days=at.weekday()) + timedelta(days=7)


def day_end(at: datetime) -> datetime:
    return _midnight(at) + timedelta(days=1)


def month_end(at: datetime) -> datetime:
    first = _midnight(at).replace(day=1)
    return first.replace(year=first.year + 1, month=1) if first.month == 12 else first.replace(month=first.month + 1)


_HARD_STOPS = "。！？；!?;\n"
TRAIL = "。！？；!?;.…"


@dataclass(frozen=True, slots=True)
class Sentence:
    start: int
    end: int
    text: str  # stripped, with its terminator
    question: bool


def _asks(tail: str) -> bool:
    """A Chinese sentence without "？" that still asks: "…吗", "…么"; not "再说为什么" (explain why)."""
    if not re.search(r"[吗么]\s*$", tail):
        return False
    return not re.search(r"(?:说|讲|解释|告诉我|分析|写|搞清楚|弄清楚)\s*为什么\s*$", tail)


def split_sentences(text: str) -> list[Sentence]:
    """EN . ! ? ; and ZH 。！？； (and newlines). A '.' ends a sentence only before whitespace/end."""
    out: list[Sentence] = []
    n, i, start = len(text), 0, 0

    def emit(a: int, b: int) -> None:
        seg = text[a:b]
        stripped = seg.strip()
        if not stripped:
            return
        lead = len(seg) - len(seg.lstrip())
        tail = stripped.rstrip(TRAIL + " ")
        question = "?" in stripped[len(tail) :] or "？" in stripped[len(tail) :] or _asks(tail)
        out.append(Sentence(a + lead, a + lead + len(stripped), stripped, question))

    while i < n:
        ch = text[i]
        if (ch in _HARD_STOPS and not (ch == ";" and i + 1 < n and not text[i + 1].isspace())) or (
            ch == "." and (i + 1 == n or text[i + 1].isspace())
        ):
            j = i + 1
            while j < n and text[j] in TRAIL:
                j += 1
            emit(start, j)
            start = i = j
            continue
        i += 1
    emit(start, n)
    return out

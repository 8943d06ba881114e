"""Timezone: `profile.timezone` ("UTC+8", "PST", "Asia/Shanghai"; 东八区 and 北京时间 are UTC+8)."""

from __future__ import annotations

import re
import unicodedata

from ..models import Kind
from .family import Family
from .text import Getter, Pattern, to_int, zh

_TZ_ABBR = r"""
        (?:PST|PDT|PT|EST|EDT|ET|CST|CDT|CT|MST|MDT|MT|CET|CEST|BST|GMT|UTC|JST|KST|IST|HKT|SGT|
        AEST|AEDT|WET|EET|EEST)
    """
_TZ = (
    r"((?:UTC|GMT)\s*[+\-−]\s*\d{1,2}(?::?\d{2})?|[A-Z][a-z]+/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?|" + _TZ_ABBR + r")\b"
)
_ZH_TZ = (
    r"((?:东|西)[一二三四五六七八九十]{1,2}区|北京时间|零时区|中时区|(?:UTC|GMT)\s*[+\-−]\s*\d{1,2}(?::?\d{2})?|"
    + _TZ_ABBR
    + r")"
)


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
    if t in ("北京时间",):
        return "UTC+8"
    if t in ("零时区", "中时区") or t.upper() in ("UTC", "GMT"):
        return "UTC"
    if "/" in t:
        return t
    return t.upper()


def _tz(group: int) -> Getter:
    return lambda m: _norm_tz(m.group(group))


_TIMEZONE = [
    Pattern(zh(r"(?i:\btime\s?zone\b(?:\s+is(?:\s+now)?|\s*[:=]|\s+to)?)\s*" + _TZ), _tz(1)),
    Pattern(
        zh(
            r"(?i:\bI(?:'m|\s+am)\s+(?:now\s+|currently\s+)?(?:in|on|using)\s+(?:the\s+)?)"
            + _TZ
            + r"(?i:(?:\s+time(?:\s?zone)?)?)"
        ),
        _tz(1),
    ),
    Pattern(zh(r"时区\s*(?:是|为|改成|改为|换成|设为|设成|[:：])?\s*" + _ZH_TZ), _tz(1)),
    Pattern(zh(r"我(?:现在|目前)?(?:在|用|按|使用)\s*" + _ZH_TZ), _tz(1)),
]


TIMEZONE = Family("timezone", Kind.PREFERENCE, "profile.timezone", _TIMEZONE)

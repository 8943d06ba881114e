"""Timezone: `profile.timezone` ("UTC+8", "PST", "Asia/Shanghai"; 东八区 and 北京时间 are UTC+8;
named zones keep their usual abbreviation, "<city> time" its IANA name when the city is known)."""

from __future__ import annotations

import re
import unicodedata

from ..models import Kind
from .family import Family
from .text import Getter, Pattern, to_int, zh

_TZ_ABBR = r"""
        (?:PST|PDT|PT|EST|EDT|ET|CST|CDT|CT|MST|MDT|MT|CET|CEST|BST|GMT|UTC|JST|KST|IST|HKT|SGT|
        AEST|AEDT|WET|EET|EEST|NZST|NZDT|AKST|HST|MSK|WIB|ICT|PHT)
    """
# named zones, English and Chinese -> the value kept
_NAMED = {
    "eastern": "ET",
    "central": "CT",
    "mountain": "MT",
    "pacific": "PT",
    "alaska": "AKST",
    "hawaii": "HST",
    "atlantic": "AST",
    "eastern standard": "EST",
    "central standard": "CST",
    "mountain standard": "MST",
    "pacific standard": "PST",
    "eastern daylight": "EDT",
    "pacific daylight": "PDT",
    "central european": "CET",
    "central european summer": "CEST",
    "western european": "WET",
    "eastern european": "EET",
    "greenwich mean": "UTC",
    "greenwich": "UTC",
    "coordinated universal": "UTC",
    "universal": "UTC",
    "india standard": "IST",
    "indian standard": "IST",
    "japan standard": "JST",
    "china standard": "UTC+8",
    "british summer": "BST",
    "australian eastern": "AEST",
    "太平洋": "PT",
    "美西": "PT",
    "美国西部": "PT",
    "美东": "ET",
    "美国东部": "ET",
    "东部": "ET",
    "美中": "CT",
    "美国中部": "CT",
    "山地": "MT",
    "中欧": "CET",
    "西欧": "WET",
    "东欧": "EET",
    "格林尼治": "UTC",
    "格林威治": "UTC",
    "世界标准": "UTC",
    "协调世界": "UTC",
    "印度": "IST",
    "日本": "JST",
}
_CITIES = {
    "beijing": "UTC+8",
    "shanghai": "UTC+8",
    "china": "UTC+8",
    "hong kong": "Asia/Hong_Kong",
    "taipei": "Asia/Taipei",
    "tokyo": "Asia/Tokyo",
    "seoul": "Asia/Seoul",
    "singapore": "Asia/Singapore",
    "bangkok": "Asia/Bangkok",
    "jakarta": "Asia/Jakarta",
    "manila": "Asia/Manila",
    "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata",
    "mumbai": "Asia/Kolkata",
    "bangalore": "Asia/Kolkata",
    "dubai": "Asia/Dubai",
    "moscow": "Europe/Moscow",
    "istanbul": "Europe/Istanbul",
    "london": "Europe/London",
    "dublin": "Europe/Dublin",
    "lisbon": "Europe/Lisbon",
    "paris": "Europe/Paris",
    "berlin": "Europe/Berlin",
    "madrid": "Europe/Madrid",
    "rome": "Europe/Rome",
    "amsterdam": "Europe/Amsterdam",
    "zurich": "Europe/Zurich",
    "stockholm": "Europe/Stockholm",
    "athens": "Europe/Athens",
    "new york": "America/New_York",
    "toronto": "America/Toronto",
    "chicago": "America/Chicago",
    "denver": "America/Denver",
    "los angeles": "America/Los_Angeles",
    "la": "America/Los_Angeles",
    "san francisco": "America/Los_Angeles",
    "seattle": "America/Los_Angeles",
    "vancouver": "America/Vancouver",
    "mexico city": "America/Mexico_City",
    "sao paulo": "America/Sao_Paulo",
    "são paulo": "America/Sao_Paulo",
    "buenos aires": "America/Argentina/Buenos_Aires",
    "sydney": "Australia/Sydney",
    "melbourne": "Australia/Melbourne",
    "perth": "Australia/Perth",
    "auckland": "Pacific/Auckland",
    "北京": "UTC+8",
    "上海": "UTC+8",
    "中国": "UTC+8",
    "香港": "Asia/Hong_Kong",
    "台北": "Asia/Taipei",
    "东京": "Asia/Tokyo",
    "首尔": "Asia/Seoul",
    "新加坡": "Asia/Singapore",
    "曼谷": "Asia/Bangkok",
    "雅加达": "Asia/Jakarta",
    "迪拜": "Asia/Dubai",
    "莫斯科": "Europe/Moscow",
    "伦敦": "Europe/London",
    "巴黎": "Europe/Paris",
    "柏林": "Europe/Berlin",
    "马德里": "Europe/Madrid",
    "罗马": "Europe/Rome",
    "阿姆斯特丹": "Europe/Amsterdam",
    "纽约": "America/New_York",
    "多伦多": "America/Toronto",
    "芝加哥": "America/Chicago",
    "洛杉矶": "America/Los_Angeles",
    "旧金山": "America/Los_Angeles",
    "西雅图": "America/Los_Angeles",
    "温哥华": "America/Vancouver",
    "悉尼": "Australia/Sydney",
    "墨尔本": "Australia/Melbourne",
    "珀斯": "Australia/Perth",
    "奥克兰": "Pacific/Auckland",
}


def _alt(names: list[str]) -> str:
    return "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in sorted(names, key=len, reverse=True))


_EN_KEYS = [k for k in _NAMED if k.isascii()]
_ZH_KEYS = [k for k in _NAMED if not k.isascii()]
_EN_CITY_KEYS = [k for k in _CITIES if k.isascii()]
_ZH_CITY_KEYS = [k for k in _CITIES if not k.isascii()]
_OFFSET = r"(?:UTC|GMT)\s*[+\-−]\s*\d{1,2}(?::?\d{2})?"
# a zone as written in English: "UTC+8", "Asia/Shanghai", "PST", "Eastern (Standard) Time", "London time"
_TZ = (
    r"(" + _OFFSET + r"|[A-Z][a-z]+/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?|(?<![A-Za-z])" + _TZ_ABBR + r"(?![a-z])|"
    r"(?i:(?:" + _alt(_EN_KEYS) + r")(?:\s+(?:standard|daylight))?\s+time)|"
    r"(?i:(?:" + _alt(_EN_CITY_KEYS) + r")\s+time)|"
    r"(?i:(?:the\s+)?(?:" + _alt(_EN_KEYS) + r")(?=\s+(?:time\s?zone|zone)\b)))\b"
)
_ZH_TZ = (
    r"((?:东|西)[一二三四五六七八九十]{1,2}区|零时区|中时区|" + _OFFSET + r"|"
    r"(?:"
    + _alt(_ZH_KEYS + _ZH_CITY_KEYS)
    + r")(?:标准)?时间|美西|美东|(?<![A-Za-z])"
    + _TZ_ABBR
    + r"(?![A-Za-z]))(?:时间)?"
)


_ZH_END = (
    r"(?:开会|安排|来定|约|排)?(?=$|[，,。！!；;、\s～~]|的(?=$|[，,。！!])|吧|哈|啊|呢|了|哦|呀|啦|算|来|为准|为主|就"
    r"行|就好)"
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
    if t in ("零时区", "中时区") or t.upper() in ("UTC", "GMT"):
        return "UTC"
    key = re.sub(r"\s+", " ", t.casefold())
    key = re.sub(r"^the ", "", key)
    key = re.sub(r"(?: time| time ?zone| zone|(?:标准)?时间)$", "", key)
    if key in _NAMED:
        return _NAMED[key]
    if key in _CITIES:
        return _CITIES[key]
    key = re.sub(r" (?:standard|daylight)$", "", key)
    if key in _NAMED:
        return _NAMED[key]
    if "/" in t:
        return t
    return t.upper() if re.fullmatch(_TZ_ABBR, t, re.X | re.I) else None


def _offset(n_raw: str, direction: str) -> str | None:
    n = to_int(n_raw)
    if not n or n > 14:
        return None
    return f"UTC{'+' if direction.casefold().startswith('ahead') else '-'}{n}"


def _tz(group: int) -> Getter:
    return lambda m: _norm_tz(m.group(group))


_SUBJ_EN = r"(?i:\b(?:I|we|my\s+team|our\s+team|the\s+team|our\s+office|our\s+company|my\s+office))"
_BE_EN = r"(?i:(?:'m|\s+am|'re|\s+are|\s+is|'ve\s+been|\s+have\s+been)?)"
_ADV = r"(?:\s+(?:now|currently|usually|mostly|still|actually|based|living|working|all|probably)){0,2}"
_ADV_EN = r"(?i:" + _ADV + r")"
_TIMEZONE = [
    Pattern(zh(r"(?i:\btime\s?zone\b(?:'s|\s+is(?:\s+now)?|\s*[:=]|\s+to)?)\s*" + _TZ), _tz(1)),
    Pattern(zh(r"(?i:\bmy\s+time\s?zone\b[^.;]{0,20}?(?:which|that)\s+is\s+)" + _TZ), _tz(1)),
    # "my time zone is Pacific"
    Pattern(
        zh(r"(?i:\btime\s?zone\b(?:'s|\s+is(?:\s+now)?|\s*[:=])\s*(?:the\s+)?(" + _alt(_EN_KEYS) + r"))\b"), _tz(1)
    ),
    # "I'm on Pacific time", "my team is on Eastern time", "I live in the UTC+5:30 time zone", "I'm UTC+2"
    Pattern(
        zh(
            _SUBJ_EN + _BE_EN + _ADV_EN + r"(?i:\s+(?:in|on|using|use|keep|follow|work\s+(?:in|on)|live\s+in|"
            r"switched\s+to|moved\s+to|changed\s+to|run\s+on|operate\s+on|live\s+on|live\s+by|work\s+on|operating\s"
            r"+on|working\s+on|"
            r"living\s+on|running\s+on|sticking\s+to|going\s+by)\s+)(?i:(?:the\s+)?)" + _TZ
        ),
        _tz(1),
    ),
    Pattern(zh(r"(?i:\b(?:I'm|I\s+am|we're|we\s+are)" + _ADV + r"\s+)(" + _OFFSET + r"|" + _TZ_ABBR + r")\b"), _tz(1)),
    Pattern(zh(r"(?i:\bassume\s+(?:I'm|I\s+am|we're|we\s+are)\s+(?:on|in)\s+)" + _TZ), _tz(1)),
    Pattern(
        zh(
            r"(?i:\bmy\s+(?:clock|calendar|computer|laptop|phone|watch|system)\s+is\s+(?:set\s+)?(?:to|on|in)\s+)("
            r"?i:(?:the\s+)?)" + _TZ
        ),
        _tz(1),
    ),
    Pattern(
        zh(
            r"(?i:\b(?:use|assume|go\s+by|stick\s+to|keep)\s+(?:the\s+)?)"
            + _TZ
            + r"(?i:(?=\s+(?:for\s+me|when|with\s+me|for\s+(?:my|all|any|everything)|from\s+now\s+on|please|going\s+"
            r"forward)\b|\s*[.,!]|$))"
        ),
        _tz(1),
    ),
    Pattern(zh(r"(?i:\bI\s+(?:keep|use|go\s+by|follow|live\s+by|run\s+on)\s+(?:the\s+)?)" + _TZ), _tz(1)),
    Pattern(zh(r"时间\s*(?:就|都|一律)?(?:按|以|用|按照)\s*" + _ZH_TZ + _ZH_END), _tz(1)),
    Pattern(
        zh(
            r"(?i:\b(?:I'm|I\s+am|we're|we\s+are|my\s+time\s+is)\s+)(\d{1,2}|one|two|three|four|five|six|seven|eig"
            r"ht|nine|ten|eleven|twelve)"
            r"(?i:(?:\s+and\s+a\s+half)?\s+hours?\s+)(ahead\s+of|behind)(?i:\s+)(?:UTC|GMT)\b"
        ),
        lambda m: _offset(m.group(1), m.group(2)),
    ),
    Pattern(
        zh(
            r"(?i:\bmy\s+(?:working\s+|work\s+|office\s+|business\s+)?hours\s+are\s+(?:in|on|based\s+on)\s+(?:the\s+)?)"
            + _TZ
        ),
        _tz(1),
    ),
    Pattern(zh(r"(?i:\bmy\s+(?:local\s+)?time\s+is\s+(?:in\s+|on\s+)?)" + _TZ), _tz(1)),
    Pattern(zh(r"我(?:的|这边的|这里的)(?:时间|钟点)\s*(?:是|为|按)\s*" + _ZH_TZ + _ZH_END), _tz(1)),
    Pattern(zh(r"时区\s*(?:是|为|改成|改为|换成|设为|设成|按|用|跟着|以|[:：])?\s*" + _ZH_TZ), _tz(1)),
    # "我用的是北京时间", "我这边按伦敦时间算", "我们现在统一用北京时间", "我大概是东一区吧"
    Pattern(
        zh(
            r"我们?(?:团队|公司|组|家|这边|这里|那边|所在地)?(?:这边|这里)?(?:现在|目前|平时|一般|大概|基本|都|也|"
            r"统一|主要|一直)*"
            r"[^，,。]{0,12}?(?:[，,]\s*)?(?:用的是|用|按|使用|采用|在|是|算|属于|走|跟着|按照|遵循)\s*(?:的是)?"
            + _ZH_TZ
            + r"(?:的?时区)?"
            + _ZH_END
        ),
        _tz(1),
    ),
]


# --- cue fallback: a zone named in a sentence about the user's own time ----------------------------
_ANY_TZ = zh(_TZ + r"|" + _ZH_TZ)
_OWN_TIME = zh(
    r"(?i:\b(?:I|I'm|I've|my|me|we|we're|our|us)\b|\b(?:use|go\s+by|stick\s+(?:to|with)|assume|schedule|scheduling)\b)|"
    r"我|咱|按|以[^，,。]{0,8}为准|安排"
)
# "at 3pm Eastern", "下午三点北京时间", "convert 5pm PST": a moment, not where the user is
_CLOCK_BEFORE = zh(
    r"(?i:\d(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock|h)?\s*$|\b(?:noon|midnight|morning|evening|tonight)\s*$|\b"
    r"(?:convert|from|to)\s+$)|[点时分钟]\s*$|上午\s*$|下午\s*$|晚上\s*$"
)
_CLOCK_AFTER = zh(r"^(?i:\s*\d)|^\s*(?:的)?(?:上午|下午|早上|晚上|中午|凌晨|[零一二两三四五六七八九十\d]+点)")


_CONVERSION = zh(
    r"(?i:\bconver(?:t|sion)|\bwhat\s+time\b|\bdifference\b|\bahead\s+of\b|\bbehind\b)|换算|转换|换成|折算|几点|时差"
)


def _timezone_cue(m: re.Match[str]) -> str | None:
    text = m.string
    if not _OWN_TIME.search(text) or _CONVERSION.search(text):
        return None
    for tz in _ANY_TZ.finditer(text):
        raw = next(g for g in tz.groups() if g)
        if _CLOCK_BEFORE.search(text[: tz.start()]) or _CLOCK_AFTER.search(text[tz.end() :]):
            continue
        value = _norm_tz(raw)
        if value:
            return value
    return None


_TIMEZONE += [Pattern(zh(r"^.+$"), _timezone_cue, gate=_OWN_TIME)]  # (the cue needs the user's own time)


# every pattern names a zone (an offset, an abbreviation, "<city> time", 东八区, 北京时间)
TIMEZONE = Family(
    "timezone", Kind.PREFERENCE, "profile.timezone", _TIMEZONE, trigger=zh(_ANY_TZ.pattern + r"|(?i:zone)|时区")
)

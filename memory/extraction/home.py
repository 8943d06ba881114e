"""Home city: `profile.home_city`, the city as written; "I moved to …" states a change."""

from __future__ import annotations

import re

from ..models import Kind
from .family import Family
from .text import Getter, Pattern, clean, rx, zh

_CITY_EN = r"([A-Z][\w'\-]*(?:\s+(?:[A-Z][\w'\-]*|de|del|da|am|upon|on|la|le)){0,3})"
_CITY_ZH = r"([\u4e00-\u9fffA-Za-z·]{2,12}?)"
_ZH_CITY_END = r"(?=了|啦|呢|啊|吧|住|生活|工作|定居|上班|这边|那边|[，,。！!？?；;、\s]|$)"
_NOT_A_PLACE = zh(
    r"公司|新家|家里|房子|宿舍|办公室|楼|这|那|附近|隔壁|对面|一个|一家|学校|酒店|宾馆|朋友|父母|我|你|他|她|医院"
)
_NOT_A_CITY_EN = {"the", "a", "an", "my", "our", "this", "that", "it", "here", "there", "i"}


def _city_en(group: int) -> Getter:
    def get(m: re.Match[str]) -> str | None:
        city = m.group(group).strip()
        words = city.split()
        while words and words[-1].casefold() in ("de", "del", "da", "am", "upon", "on", "la", "le"):
            words.pop()
        if not words or words[0].casefold() in _NOT_A_CITY_EN:
            return None
        return " ".join(words)

    return get


def _city_zh(m: re.Match[str]) -> str | None:
    city = clean(m.group(1))
    if len(city) > 2 and city.endswith("市"):
        city = city[:-1]
    if len(city) < 2 or _NOT_A_PLACE.search(city):
        return None
    return city


_HOME = [
    Pattern(
        zh(
            r"(?i:\bI(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|now\s+)?(?:moved|relocated)\s+)"
            r"(?:(?i:from)\s+" + _CITY_EN + r"\s+)?(?i:(?:back\s+)?to\s+)" + _CITY_EN
        ),
        _city_en(2),
    ),
    Pattern(
        zh(
            r"""
                (?i:\bI(?:'m|\s+am)?\s+(?:now\s+|currently\s+|still\s+|actually\s+|really\s+|
                also\s+)*(?:live|living|based|residing|reside|located|settled)\s+
            """
            r"(?:now\s+)?in\s+)" + _CITY_EN
        ),
        _city_en(1),
    ),
    Pattern(zh(r"(?i:\bmy\s+(?:home\s*city|city|home)\s+is\s+(?:now\s+)?(?:in\s+)?)" + _CITY_EN), _city_en(1)),
    Pattern(
        zh(
            r"我(?:现在|目前|已经|刚|刚刚|最近|如今|今年|去年)?(?:已经|刚)?(?:搬到|搬去|搬家到|搬回|搬回到|迁到|定居(?:在|到|于)?|"
            r"住在|居住在|生活在|常住(?:在)?)(?:了)?\s*" + _CITY_ZH + _ZH_CITY_END
        ),
        _city_zh,
    ),
    Pattern(zh(r"我(?:现在|目前)?(?:在|于)" + _CITY_ZH + r"(?:住|生活|定居|安家)"), _city_zh),
    Pattern(zh(r"我(?:的)?家在" + _CITY_ZH + _ZH_CITY_END), _city_zh),
]
_MOVE = rx(r"\b(?:moved|relocated)\b|搬到|搬去|搬家|搬回|迁到")


HOME_CITY = Family("home_city", Kind.PREFERENCE, "profile.home_city", _HOME, changes=_MOVE)

"""Home city: `profile.home_city`, the city as written; "I moved to …" states a change."""

from __future__ import annotations

import re

from ..models import Kind
from . import prefilter
from .family import Family
from .prefilter import one_of
from .text import Getter, Pattern, clean, rx, zh

_CITY_EN = r"([A-Z][\w'\-]*(?:\s+(?:[A-Z][\w'\-]*|de|del|da|am|upon|on|la|le)){0,3})"
_CITY_ZH = r"([\u4e00-\u9fffA-Za-z·]{2,12}?)"
_ZH_CITY_END = r"(?=了|啦|呢|啊|吧|哈|哦|呀|嘛|住|生活|工作|定居|上班|这边|那边|[，,。！!？?；;、\s～~]|$)"
_NOT_A_PLACE = zh(
    r"公司|新家|家里|房子|宿舍|办公室|楼|这|那|附近|隔壁|对面|一个|一家|学校|酒店|宾馆|朋友|父母|我|你|他|她|医院|哪|"
    r"什么|怎么|忘|删|信息|记录|地址|城市|国外|外地|老家|乡下|农村|郊区|一起|一块|里面|外面|"
    r"小区|老破小|出租屋|单间|公寓|合租|一楼|顶楼|平房|别墅"
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


_SUBJ_EN = r"""
    (?:I|we|my\s+(?:family|wife|husband|partner)\s+and\s+I|our\s+family|my\s+family\s+and\s+I|
    the\s+family\s+and\s+I)
"""
_TIME_EN = r"(?:\s+(?:just|recently|finally|now|actually|already|also|eventually|officially|all|both)){0,2}"
_HOME = [
    # "I moved to X", "we relocated to X", "I've just moved from A to B"
    Pattern(
        zh(
            r"(?i:\b" + _SUBJ_EN + r"(?:'ve|\s+have|'d|\s+had)?" + _TIME_EN + r"\s+(?:moved|relocated)\s+)"
            r"(?:(?i:from)\s+" + _CITY_EN + r"\s+)?(?i:(?:back\s+)?to\s+)" + _CITY_EN
        ),
        _city_en(2),
    ),
    Pattern(
        zh(
            r"""
                (?i:\b(?:I|we|our\s+family|my\s+family\s+and\s+I|
                (?<=\ )(?:and|but)(?=\s+(?:(?:now|currently|still|actually)\s+)?(?:live|living|based|reside)\b))
                (?:'m|\s+am|'re|\s+are|'ve\s+been|\s+have\s+been|
                \s+lives?|'ve|\s+have)?\s+(?:now\s+|currently\s+|still\s+|actually\s+|really\s+|
                also\s+|all\s+|happily\s+)*(?:live|lives|lived|living|based|residing|reside|resides|located|
                settled|staying\ put)\s+
            """
            r"(?:now\s+|out\s+of\s+|full[- ]time\s+)?(?:just\s+|right\s+)?(?:in|outside(?:\s+of)?|near|close\s+to|"
            r"in\s+the\s+suburbs\s+of|on\s+the\s+outskirts\s+of|in\s+(?:downtown|central|greater|north(?:ern)?|south(?:ern)?|"
            r"east(?:ern)?|west(?:ern)?))\s+)" + _CITY_EN
        ),
        _city_en(1),
    ),
    Pattern(zh(r"(?i:\b(?:I|we)(?:'re|'m|\s+are|\s+am)\s+based\s+out\s+of\s+)" + _CITY_EN), _city_en(1)),
    Pattern(
        zh(
            r"(?i:\b(?:my|our)\s+(?:home\s*city|city|home|hometown\ now|current\ city|base)\s+is\s+(?:now\s+)?(?:i"
            r"n\s+)?)" + _CITY_EN
        ),
        _city_en(1),
    ),
    Pattern(zh(r"(?i:\bhome\s+(?:for\s+(?:me|us)\s+)?is\s+(?:now\s+)?(?:in\s+)?)" + _CITY_EN), _city_en(1)),
    Pattern(zh(r"(?i:\b(?:I|we)\s+(?:now\s+)?call\s+)" + _CITY_EN + r"(?i:\s+home)\b"), _city_en(1)),
    Pattern(zh(r"^" + _CITY_EN + r"(?i:\s+is\s+(?:now\s+)?(?:my|our)\s+home(?:\s+(?:now|base))?)\b"), _city_en(1)),
    # "I'm a Chicago resident"
    Pattern(
        zh(
            r"(?i:\b(?:I'm|I\s+am|we're|we\s+are)\s+(?:an?\s+)?)" + _CITY_EN + r"(?i:\s+(?:residents?|locals?|based))\b"
        ),
        _city_en(1),
    ),
    # "Just moved to Madrid last month", "Boston is home for me": the subject left out, or the city first
    Pattern(
        zh(r"^(?i:(?:(?:just|recently|finally|newly)\s+)?(?:moved|relocated)\s+(?:back\s+)?to\s+)" + _CITY_EN),
        _city_en(1),
    ),
    Pattern(
        zh(
            r"^"
            + _CITY_EN
            + r"(?i:\s+is\s+(?:now\s+|still\s+)?home(?:\s+(?:for\s+(?:me|us)|now|these\s+days|base))?)\b"
        ),
        _city_en(1),
    ),
    # "Live in Portland, Oregon, if that matters": the subject left out
    Pattern(zh(r"^(?i:(?:currently\s+|now\s+)?(?:live|living|based)\s+(?:in|out\s+of)\s+)" + _CITY_EN), _city_en(1)),
    # "I grew up in Boston and still live there", "I'm from Melbourne and still live there"
    Pattern(
        zh(
            r"(?i:\b(?:I|we)\b.{0,30}?\b(?:in|from)\s+)"
            + _CITY_EN
            + r"(?i:.{0,40}?\b(?:still\s+|now\s+|currently\s+)?(?:live|living|based|reside)\s+(?:there|here)\b)"
        ),
        _city_en(1),
    ),
    Pattern(
        zh(
            # (a space between Chinese words parts clauses as a comma does: "搬家啦 现在住苏州园区了")
            r"(?:我们?|[，,]|(?<=[\u4e00-\u9fff])\s+|^)(?:家|一家|全家|一家人|一家子|两口子|俩)?(?:现在|目前|已经|刚|刚刚|最近|如今|今年|去年|上个?月|前几天|前段时间|"
            r"上周|上礼拜|年初|年底|这几年|一直|也|还|都|长期|常年|前年|大前年|[一两三四五六七八九十\d]+(?:年|个月"
            r")前|几年前|年前)*(?:已经|刚)?(?:从\s*[\u4e00-\u9f"
            r"ff]{2,8}?)?"
            r"(?:搬到|搬去|搬来|搬过来|搬家到|搬回|搬回到|迁到|迁居|定居(?:在|到|于)?|住在|居住在|生活在|常住(?:在"
            r")?|长住(?:在)?|"
            r"现居|现住|居于|常驻|住(?!址|哪|户|宿|院|手|口|嘴|店|酒店|宾馆|得|着|过|不|的|民宿|公寓|青旅|旅馆|一晚|几晚|两晚|一天|几天)(?=[\u4e00-\u9fff]{2})|(?i:base)\s*在|"
            r"落户(?:在)?|安家(?:在)?)(?:了)?\s*" + _CITY_ZH + _ZH_CITY_END
        ),
        _city_zh,
    ),
    Pattern(
        zh(
            r"我们?(?:人)?(?:现在|目前)?(?:在|于)" + _CITY_ZH + r"(?:工作|上班)?(?:和|、|跟)?(?:住|生活|定居|安家|常住)"
        ),
        _city_zh,
    ),
    Pattern(zh(r"我们?(?:的)?家(?:现在|目前|一直|也)?(?:住)?在" + _CITY_ZH + _ZH_CITY_END), _city_zh),
    Pattern(
        zh(r"我们?(?:现在|目前)?(?:住|生活|定居)的(?:城市|地方)(?:现在|目前)?(?:是|在)" + _CITY_ZH + _ZH_CITY_END),
        _city_zh,
    ),
    # "我人在厦门，长期住这边": the place, then "live here"
    Pattern(
        zh(
            r"我们?(?:现在|目前)?(?:人)?(?:现在|目前)?(?:在|于)"
            + _CITY_ZH
            + r"[，,、]?[^。！？]{0,10}?(?:住|生活|定居|待)(?:在)?"
            r"(?:这边|这里|这儿|那边|那里)"
        ),
        _city_zh,
    ),
]
_MOVE = rx(r"\b(?:moved|relocated)\b|搬到|搬去|搬家|搬回|迁到")


HOME_CITY = Family("home_city", Kind.PREFERENCE, "profile.home_city", _HOME, changes=_MOVE)


# A move told without its place ("big news, we moved!", "we finally did the move"): the place said
# beside it, or in the next sentence, as where the user is now ("we're in Bristol now") is the new
# home. (A move to a place is read by HOME_CITY itself: "moved to Bristol".)
MOVE_TOLD = rx(
    r"\b(?:moved|relocated)\b(?!\s+(?:it|that|them|this|my|our|the|your|his|her|their|to|back|on|up|in|into|from)\b)"
    r"|\b(?:the|our|my)\s+move\b|\bmoving\s+day\b|搬家|搬完家|家搬完"
)
_WHERE_NOW = [
    Pattern(
        zh(
            r"(?i:(?<![\w'])(?:I'm|I\s+am|we're|we\s+are)\s+(?:now\s+|officially\s+|finally\s+|all\s+)?"
            r"(?:in|living\s+in|based\s+in|settled\s+in)\s+)" + _CITY_EN
        ),
        _city_en(1),
    ),
    # "搬家了哈 现在在上海浦东": where the user is now, after the move
    Pattern(
        zh(
            r"(?:^|[，,]|(?<=[\u4e00-\u9fff])\s+)(?:我们?)?(?:人)?(?:现在|目前|如今)(?:人)?(?:在|住在?)"
            + _CITY_ZH
            + _ZH_CITY_END
        ),
        _city_zh,
    ),
]
# (read only beside or after a move: every match states a change)
HOME_AFTER_A_MOVE = Family("home_city", Kind.PREFERENCE, "profile.home_city", _WHERE_NOW, changes=re.compile(r"\S"))
prefilter.tested(MOVE_TOLD)
# what a turn cannot hold such a home without: a move told, and a place said as where the user is
AFTER_A_MOVE_REQUIRES = one_of(MOVE_TOLD) & HOME_AFTER_A_MOVE.requires

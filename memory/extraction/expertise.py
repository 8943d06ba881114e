"""Expertise: `profile.expertise` = beginner | intermediate | advanced | expert, or
`profile.expertise.<domain slug>` when a domain is named, so each domain is its own slot."""

from __future__ import annotations

import re

from ..models import Kind
from .family import Family, Hit
from .text import Getter, Pattern, clean, rx, slugify, zh

_LEVELS = {
    "beginner": "beginner",
    "novice": "beginner",
    "newbie": "beginner",
    "noob": "beginner",
    "junior": "beginner",
    "intermediate": "intermediate",
    "advanced": "advanced",
    "experienced": "advanced",
    "seasoned": "advanced",
    "senior": "advanced",
    "proficient": "advanced",
    "expert": "expert",
    "pro": "expert",
    "新手": "beginner",
    "初学者": "beginner",
    "小白": "beginner",
    "菜鸟": "beginner",
    "新人": "beginner",
    "入门者": "beginner",
    "中级": "intermediate",
    "老手": "advanced",
    "资深": "advanced",
    "熟手": "advanced",
    "熟悉": "advanced",
    "很熟": "advanced",
    "擅长": "advanced",
    "专家": "expert",
    "高手": "expert",
    "大牛": "expert",
    "行家": "expert",
    "精通": "expert",
    "不熟": "beginner",
    "不太熟": "beginner",
    "不熟悉": "beginner",
    "不太熟悉": "beginner",
}
_NO_DOMAIN = {
    "this",
    "that",
    "it",
    "here",
    "this stuff",
    "all this",
    "things",
    "the field",
    "the topic",
    "这个",
    "这方面",
    "这",
    "这块",
    "这一块",
    "方面",
}
_ROLE = r"""
            (?:developer|programmer|engineer|user|learner|student|coder|designer|data\ scientist|
            analyst|researcher|dev)
        """
_DOMAIN_EN = r"([A-Za-z0-9+#.][\w+#.\-]*(?:\s+[\w+#.\-]+){0,3}?)"
_LEVEL_NOUN = r"(beginner|novice|newbie|noob|expert|pro)"
_LEVEL_ADJ = r"(beginner|novice|intermediate|advanced|expert|experienced|senior|junior|seasoned)"
_MODIFIER = r"(?:(?:complete|total|absolute|real|true|bit\ of\ an?|bit\ of\ a|relative|pretty|very|quite)\s+)*"


def _expertise(level_group: int | str, domain_group: int | None) -> Getter:
    def get(m: re.Match[str]) -> tuple[str, str | None] | None:
        level = _LEVELS.get(m.group(level_group).casefold()) if isinstance(level_group, int) else level_group
        if not level:
            return None
        domain = None
        if domain_group is not None and m.group(domain_group):
            domain = clean(m.group(domain_group))
            domain = re.sub(r"^(?:the|a|an)\s+", "", domain, flags=re.I)
            domain = re.sub(r"的$", "", domain)
            if domain.casefold() in _NO_DOMAIN or not slugify(domain):
                domain = None
        return level, domain

    return get


_EXPERTISE = [
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:an?\s+)?"
            + _MODIFIER
            + _LEVEL_NOUN
            + r"\b(?:\s+(?:in|at|with|on)\s+"
            + _DOMAIN_EN
            + r"(?=$|[,.;!?]|\s+(?:and|but)\b))?"
        ),
        _expertise(1, 2),
    ),
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:an?\s+)?"
            + _MODIFIER
            + _LEVEL_ADJ
            + r"\s+(?:([\w+#.]+(?:\s+[\w+#.]+)?)\s+)??"
            + _ROLE
            + r"\b"
        ),
        _expertise(1, 2),
    ),
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:an?\s+)?"
            + _MODIFIER
            + r"([A-Z][\w+#.]*(?:\s+[A-Z][\w+#.]*)?)\s+"
            + _LEVEL_NOUN
            + r"\b"
        ),
        _expertise(2, 1),
    ),
    Pattern(
        rx(
            r"""
                \bI(?:'m|\s+am)\s+(?:completely\s+|totally\s+|very\s+|pretty\s+|quite\s+|fairly\s+|
                really\s+|still\s+)?new\s+to\s+
            """
            + _DOMAIN_EN
            + r"(?=$|[,.;!?]|\s+(?:and|but)\b)"
        ),
        _expertise("beginner", 1),
    ),
    Pattern(
        rx(
            r"""
                \bI(?:\s+have)?\s+(?:just|only\ just|recently)\s+(?:started|begun|
                began)\s+(?:learning|to\ learn|with|using)\s+
            """
            + _DOMAIN_EN
            + r"(?=$|[,.;!?]|\s+(?:and|but)\b)"
        ),
        _expertise("beginner", 1),
    ),
    Pattern(
        rx(
            r"""
                \bI(?:'m|\s+am)\s+(?:very\s+|highly\s+|quite\s+|pretty\s+)?(experienced|proficient|
                fluent|seasoned)\s+(?:in|with|at)\s+
            """
            + _DOMAIN_EN
            + r"(?=$|[,.;!?]|\s+(?:and|but)\b)"
        ),
        _expertise(1, 2),
    ),
    Pattern(
        zh(r"我(?:对|在)\s*([\w+#.\- ]{1,20}?)\s*(?:方面|上)?(?:还|比较|很|非常|特别)?(不太熟悉|不熟悉|不太熟|不熟)"),
        _expertise(2, 1),
        True,
    ),
    Pattern(
        zh(
            r"""
            我(?:是|算是|算)(?:一个|一名|个|名|纯|完全的|彻底的|
            纯纯的)*\s*([\w+#.\- ]{1,20}?)?\s*(?:的|方面的|领域的)?(新手|初学者|小白|菜鸟|新人|
            入门者|专家|高手|老手|大牛|行家)
            """
        ),
        _expertise(2, 1),
    ),
    Pattern(
        zh(
            r"""
            我(?:是|算是)?(?:一个|一名)?(中级|资深)\s*([\w+#.\- ]{1,20}?)?\s*(?:的)?(?:工程师|开发者|
            开发|程序员|用户|设计师|分析师)
            """
        ),
        _expertise(1, 2),
    ),
    Pattern(zh(r"我(?:刚|才|刚刚)(?:开始)?(?:学习?|接触|入门)\s*([\w+#.\- ]{1,20})"), _expertise("beginner", 1)),
    Pattern(zh(r"我(精通|擅长)\s*([\w+#.\- ]{1,20})"), _expertise(1, 2)),
    Pattern(zh(r"我对\s*([\w+#.\- ]{1,20}?)\s*(?:非常|很|比较|特别)?(熟悉|很熟|精通)"), _expertise(2, 1)),
]


def _expertise_hit(value: tuple[str, str | None], match: re.Match[str]) -> Hit:
    level, domain = value
    attribute = "profile.expertise" + (f".{slugify(domain)}" if domain else "")
    return Hit("expertise", Kind.PREFERENCE, attribute, level, confidence=0.85)


EXPERTISE = Family("expertise", Kind.PREFERENCE, "profile.expertise", _EXPERTISE, build=_expertise_hit)

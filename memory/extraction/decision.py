"""Project decisions: `knowledge.decision.<topic slug>` when the sentence names a topic, else
`knowledge.decision`; project knowledge, so project-scoped whenever the turn has a project."""

from __future__ import annotations

import re

from ..models import Kind
from .family import Family, Hit
from .markers import PROJECT
from .text import Pattern, clean, rx, slugify, zh

_LABEL_EN = rx(r"^(?:the\s+|our\s+)?(.+?)\s+([A-Z]|\d+|v\d+(?:\.\d+)*)$")
_LABEL_ZH = zh(r"^(.+?)\s*([A-Za-z]|\d+|v\d+(?:\.\d+)*)$")
_GENERIC_TOPIC = zh(r"^(?:我们|团队|大家|项目|最后|最终|已经|就|我)+")


def _decision(value: str, topic: str | None) -> tuple[str, str] | None:
    v = clean(PROJECT.sub("", value))
    if not v:
        return None
    t = clean(topic) if topic else ""
    t = _GENERIC_TOPIC.sub("", t) if t else ""
    t = re.sub(r"^(?:the|our|this)\s+", "", t, flags=re.I)
    if not t:
        m = (_LABEL_EN if re.match(r"[A-Za-z]", v) else _LABEL_ZH).match(v)
        if m and len(m.group(1).strip()) >= 2 and (v.isascii() or not m.group(1).isascii()):
            t = m.group(1)
    slug = slugify(t) if t else ""
    return (f"knowledge.decision.{slug}" if slug else "knowledge.decision"), v


def _decision_en(m: re.Match[str]) -> tuple[str, str] | None:
    value, topic = m.group("v"), m.groupdict().get("t")
    split = re.match(r"^(.*?)\s+(?:for|as)\s+(?:the\s+|our\s+|this\s+)?(.+)$", value, re.I)
    if (
        split
        and not PROJECT.fullmatch(" ".join(split.group(0).split()[-3:]))
        and not re.fullmatch(r"(?:this\s+)?(?:project|repo|now|the\ project)", split.group(2), re.I)
    ):
        value, topic = split.group(1), topic or split.group(2)
    return _decision(value, topic)


_DECIDE_EN = (
    r"""
        (?:chose|choose|picked|selected|decided\s+(?:on|to\s+go\s+with|to\s+use|to\s+adopt)|
        settled\s+on|went\s+with|
    """
    r"""
        are\s+going\s+with|will\s+go\s+with|agreed\s+(?:on|to\s+use)|opted\s+for|adopted|
        (?:are\s+)?going\s+to\s+use|will\s+use)
    """
)
_DECISIONS = [
    Pattern(
        rx(
            r"""
                ^for\s+(?:the\s+|our\s+)?(?P<t>[^,]{2,40}),\s*(?:we|the\ team|our\ team)(?:'ve|'ll|
                \s+have|\s+will)?\s+
            """
            r"(?:finally\s+|eventually\s+|just\s+|already\s+)?" + _DECIDE_EN + r"\s+(?P<v>.{1,60})"
        ),
        _decision_en,
    ),
    Pattern(
        rx(
            r"""
                \b(?:we|the\ team|our\ team)(?:'ve|'ll|\s+have|\s+will)?\s+(?:finally\s+|
                eventually\s+|just\s+|already\s+)?
            """
            + _DECIDE_EN
            + r"\s+(?P<v>.{1,80})"
        ),
        _decision_en,
    ),
    Pattern(
        rx(
            r"""
            \b(?:we|the\ team|our\ team)(?:'ve|\s+have)?\s+(?:finally\s+|just\s+|
            already\s+)?decided\s+(?:to\s+|that\s+)(?P<v>.{2,80})
            """
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(rx(r"\bthe\s+decision\s+(?:is|was)\s+(?:to\s+)?(?P<v>.{2,80})"), lambda m: _decision(m.group("v"), None)),
    Pattern(
        zh(
            r"""
            (?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)\s*(?:最终|最后|已经|就)?\s*(?:采用|选用|选定|
            定为|确定为|确定用|决定用|决定采用|选择了?|用的是)\s*(?P<v>.{1,30})
            """
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    Pattern(
        zh(
            r"""
            (?:我们|团队|大家)?(?:最终|最后|已经|刚刚)?(?:决定|确定|商定|敲定)(?:了)?(?:采用|使用|用|
            选择|选用|走)?\s*(?P<v>.{1,30})
            """
        ),
        lambda m: _decision(m.group("v"), None),
    ),
]


def _decision_hit(value: tuple[str, str], match: re.Match[str]) -> Hit:
    attribute, decided = value
    return Hit("decision", Kind.KNOWLEDGE, attribute, decided, confidence=0.85, project_default=True)


DECISION = Family("decision", Kind.KNOWLEDGE, "knowledge.decision", _DECISIONS, build=_decision_hit)

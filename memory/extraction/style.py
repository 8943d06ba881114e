"""How to explain: example or theory first (`preference.explanation_style`), conclusion first
(`preference.response.order`)."""

from __future__ import annotations

from ..models import Kind
from .family import Family
from .text import Pattern, rx, zh

_EXAMPLE = r"""
               (?:an?\s+|some\s+)?(?:concrete\s+|small\s+|simple\s+|runnable\s+|working\s+|
               code\s+)*(?:examples?|samples?|sample\ code)
           """
_STYLE = [
    Pattern(
        rx(
            r"\b(?:examples?|code\ examples?|sample\ code|"
            + _EXAMPLE
            + r")\s+(?:first|before\s+(?:the\s+)?(?:theory|explanation|concepts?|principles?))\b"
        ),
        "example first",
    ),
    Pattern(rx(r"\b(?:start|begin|lead|open)\s+with\s+" + _EXAMPLE + r"\b"), "example first"),
    Pattern(
        rx(r"\b(?:show|give)\s+(?:me\s+)?" + _EXAMPLE + r"\s+(?:first|before)\b|\bexamples?[- ]first\b"),
        "example first",
    ),
    Pattern(
        rx(
            r"""
            \b(?:theory|principles?|concepts?|the\ why)\s+(?:first|before\s+(?:the\s+)?examples?)\b|
            \b(?:start|begin|lead)\s+with\s+(?:the\s+)?(?:theory|concepts?|principles?)\b|
            \bexplain\s+the\s+(?:concept|theory|principle)s?\s+(?:first|before)\b
            """
        ),
        "theory first",
    ),
    Pattern(
        zh(
            r"""
            先(?:给|举|看|上|来|写|放|讲)?(?:我)?(?:一个|个|几个|一些)?(?:可运行的|具体的|
            简单的)?(?:小)?(?:代码)?(?:例子|示例|样例|实例|案例)|示例优先|例子优先|先示例
            """
        ),
        "example first",
    ),
    Pattern(zh(r"先(?:讲|说|解释|介绍)?(?:原理|理论|概念)(?:再|后|，再|,再)"), "theory first"),
]
_ORDER = [
    Pattern(
        rx(
            r"""
            \b(?:the\s+)?(?:conclusion|bottom\ line|summary|tl;?dr|short\ answer)\s+first\b|
            \b(?:lead|start|begin|open)\s+with\s+(?:the\s+)?(?:conclusion|bottom\ line|answer|
            summary|tl;?dr)\b
            """
        ),
        "conclusion first",
    ),
    Pattern(zh(r"先(?:说|给|讲|看|写|下)?结论|结论先行|结论放(?:在)?(?:最)?前(?:面)?"), "conclusion first"),
]


EXPLANATION_STYLE = Family("explanation_style", Kind.PREFERENCE, "preference.explanation_style", _STYLE, temporal=True)
ORDER = Family("order", Kind.PREFERENCE, "preference.response.order", _ORDER, temporal=True)

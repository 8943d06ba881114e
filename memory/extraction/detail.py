"""Answer detail: one slot, `preference.response.detail` = "concise" | "detailed"."""

from __future__ import annotations

from ..models import Kind
from .family import Family
from .text import Pattern, rx, zh

_DETAIL = [
    # the negation is the meaning
    Pattern(
        rx(
            r"""
            \b(?:don'?t|do\ not|never|stop)\s+(?:be\s+|being\s+)?(?:so\s+|too\s+|that\s+)?(?:verbose|
            wordy|long[- ]winded|rambling)\b
            """
        ),
        "concise",
        True,
    ),
    Pattern(
        rx(
            r"""
            \bno\ need\ for\ (?:so\ much\ |much\ |long\ |lengthy\ |all\ the\ |the\ )?(?:detail|
            details|explanations?|elaboration)\b
            """
        ),
        "concise",
        True,
    ),
    Pattern(
        rx(
            r"""
            \b(?:don'?t|do\ not)\s+(?:need|want)\s+(?:so\ much\ |much\ |a\ lot\ of\ |lots\ of\ |
            all\ the\ |the\ |long\ )?(?:detail|details|explanations?)\b
            """
        ),
        "concise",
        True,
    ),
    Pattern(rx(r"\bnot\ so\ (?:long|verbose|wordy|detailed)\b|\bless\ (?:verbose|wordy)\b"), "concise", True),
    Pattern(
        rx(
            r"""
            \b(?:don'?t|do\ not|never|stop)\s+(?:be\s+|being\s+)?(?:so\s+|too\s+|that\s+)?(?:brief|
            terse|curt|short)\b|\bnot\ so\ (?:brief|short|terse)\b
            """
        ),
        "detailed",
        True,
    ),
    Pattern(
        zh(
            r"""
            (?:别|不要|不用|不必|无需|不需要)(?:再)?(?:写|说|讲|回答)?(?:得)?(?:太|那么|这么|
            过于)?(?:啰嗦|啰唆|冗长|长篇大论|详细|展开|长)
            """
        ),
        "concise",
        True,
    ),
    Pattern(
        zh(r"(?:别|不要|不用)(?:再)?(?:写|说|讲|回答)?(?:得)?(?:太|那么|这么|过于)?(?:简短|简略|简单|短)"),
        "detailed",
        True,
    ),
    # plain
    Pattern(
        rx(
            r"""
            \b(?:short|shorter|brief|briefer|concise|succinct|terse|compact|crisp|
            to[- ]the[- ]point)\s+(?:\w+\s+){0,2}?(?:answers?|responses?|replies|reply|explanations?|
            ones|output|summaries)\b
            """
        ),
        "concise",
    ),
    Pattern(
        rx(
            r"""
            \b(?:answer|reply|respond|explain|
            keep(?:\s+(?:it|things|them|your\s+\w+|the\s+\w+|answers?|responses?|
            replies))?)\s+(?:\w+\s+)?(?:briefly|concisely|succinctly|to\ the\ point|
            (?:short|brief|concise|succinct|
            tight)(?=\s*(?:$|[,.;!?)]|(?:please|from\ now\ on|going\ forward|this\ time|for\ now|and|
            always|thanks|again|now)\b)))
            """
        ),
        "concise",
    ),
    Pattern(
        rx(
            r"""
            \bbe\s+(?:more\s+|very\s+)?(?:brief|concise|succinct|terse)\b|
            \b(?:less|fewer)\s+(?:detail|details|words|text)\b
            """
        ),
        "concise",
    ),
    Pattern(
        rx(
            r"""
            \b(?:detailed|thorough|in[- ]depth|comprehensive|longer|elaborate|
            fuller)\s+(?:\w+\s+){0,2}?(?:answers?|responses?|replies|reply|explanations?|ones|
            walkthroughs?)\b
            """
        ),
        "detailed",
    ),
    Pattern(
        rx(
            r"""
            \bin\ (?:more\ |full\ |great\ |much\ more\ |greater\ )?detail\b|
            \b(?:answer|reply|respond|explain|write|go|describe|
            cover)\s+(?:\w+\s+){0,2}?(?:thoroughly|in\ depth|at\ length|fully)\b
            """
        ),
        "detailed",
    ),
    Pattern(
        rx(
            r"""
            \b(?:explain|show|include|give|walk\ (?:me\ )?through|spell\ out|lay\ out|write\ out|
            write\ down)\s+(?:me\s+)?(?:the\s+|your\s+|all\s+the\s+|each\s+|every\s+)?(?:full\s+|
            whole\s+|complete\s+)?(?:reasoning|derivations?|steps|work|working|thought\ process|
            logic)\b|\bstep[- ]by[- ]step\b
            """
        ),
        "detailed",
    ),
    Pattern(zh(r"简短|简洁|简明|简要|精简|简练|短一[点些]|短点|言简意赅|长话短说|少说废话|少废话"), "concise"),
    Pattern(
        zh(
            r"""
            详细(?!地址|的地址|资料|清单|名单)|详尽|具体一?[点些]|(?:写|讲|说)(?:得)?清楚|
            (?:推导|推理|计算|解题)(?:过程|步骤)|展开(?:讲|说|解释|来)|一步一步|一步步|逐步|分步骤?
            """
        ),
        "detailed",
    ),
]


DETAIL = Family("detail", Kind.PREFERENCE, "preference.response.detail", _DETAIL, temporal=True)

"""Goals: `goal.main` (multi-valued: goals add up), the goal phrase as the value."""

from __future__ import annotations

from ..models import Kind
from .family import Family
from .text import Pattern, captured, clean, rx, zh

_GOAL_BLOCK = (
    r"""
        (?!(?:know|ask|see|check|say|tell|mention|add|confirm|clarify|make\ sure|try|go\ back|
        continue|stop|remind|
    """
    r"""
        point\ out|note|share|show|thank|double[- ]check|verify|start\ with|begin\ with|discuss|
        talk|understand\ why|
    """
    r"be\ clear|repeat|change|update|correct|fix\ this|look\ at|read|hear|let\ you|focus|prioriti|review|forget|"
    r"""
        delete|remove|use|switch|get\ (?:a|an|the|this|that|some)|have\ (?:a|an|the)|do\ this|
        do\ that|go|leave|sleep|eat)\b)
    """
)
_GOAL_VERB_ZH = (
    r"(?:把|学会|学好|学习|学(?!一下|下)|掌握|成为|当上?|完成|实现|发布|上线|做出|做成|开发|写完|写出|写一本|出版|通过|考上|考过|"
    r"考取|拿到|获得|找到|转行|创业|开一家|跑完|跑一个|减肥|减掉|提高|提升|改善|建立|搭建|养成|存够|攒够|移民|申请|进入|加入)"
)
_GOALS = [
    Pattern(
        rx(
            r"""
            \b(?:my|our)\s+(?:main\s+|long[- ]term\s+|primary\s+|ultimate\s+|big\s+|biggest\s+|
            top\s+|personal\s+|career\s+|real\s+|
            overall\s+)?goal\s+(?:(?:this|next)\s+year\s+)?(?:is|will\ be)\s+(?:to\s+)?(.{2,100})
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
                \bI\s+(?:really\s+|eventually\s+|ultimately\s+|someday\s+|one\ day\s+|
                still\s+)?(?:want|hope|plan|aim|intend|wish)\s+to\s+
            """
            + _GOAL_BLOCK
            + r"(.{2,100})"
        ),
        captured(1, clean),
    ),
    Pattern(
        zh(r"我(?:的)?(?:长期|主要|最终|终极|首要|人生|职业|今年的?|明年的?)?目标是\s*(.{2,60})"),
        captured(1, clean),
    ),
    Pattern(
        zh(
            r"我(?:一直|真的|很|特别|非常)?(?:想要|想|希望|打算|计划|梦想)(?:能够?|可以)?(?:在[^，,]{1,10}?)?\s*("
            + _GOAL_VERB_ZH
            + r".{1,60})"
        ),
        captured(1, clean),
    ),
]


GOAL = Family("goal", Kind.GOAL, "goal.main", _GOALS, confidence=0.85)

"""Goals: `goal.main` (multi-valued: goals add up), the goal phrase as the value."""

from __future__ import annotations

import re

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
        do\ that|go(?!\s+(?:public|pro|viral|abroad|freelance|back\s+to\s+school|full[- ]time|independent))|leave|
        sleep|eat|drink|order|book|grab|watch|call|text|rent|print|download|install|
        cancel|return|reply|send|post|play|listen)\b)
    """
)
_GOAL_VERB_ZH = (
    r"(?:把|学会|学好|学习|学(?!一下|下)|掌握|成为|当上?|完成|实现|发布|上线|做出|做成|开发|写完|写出|写一本|出版|"
    r"通过|考上|考过|"
    r"考取|考研|考公|考博|考到|考个|考|拿到|拿下|获得|找到|转行|转岗|创业|开一家|开个|开家|跑完|跑一个|跑个|减肥|减"
    r"掉|瘦|减|提高|"
    r"提升|改善|建立|搭建|养成|存够|攒够|攒|存|赚|移民|申请|进入|加入|买|升到|升职|升为|晋升|出国|留学|读博|读研|读"
    r"|退休|"
    r"财务自由|环游|去做|做|去|边|持续|坚持|练成|练到|突破|达到|过上|拥有|写|出|学完|毕业|去读)"
)
# a horizon that makes "want / plan / try to" a goal rather than a request ("by summer", "两年内")
_HORIZON_EN = r"""
    (?:\blong[- ]term\b|\beventually\b|\bsomeday\b|\bsome\ day\b|\bone\ day\b|\bultimately\b|\bin\ the\ long\ run\b|
    \bby\s+(?:the\s+end\s+of\s+)?(?:the\s+)?(?:summer|spring|fall|autumn|winter|year|\d{4}|next\s+\w+|my\s+\w+|
    age\s+\d+|
    \d+|thirty|forty|fifty)\b|\bwithin\s+(?:the\s+next\s+)?(?:a|an|one|two|three|four|five|six|\d+)\s+(?:years?|
    months?)\b|
    \bnext\s+year\b|\bin\s+the\s+next\s+(?:\w+\s+)?(?:years?|months?|decade)\b|\bbefore\s+(?:I'm|I\ am|I\ turn)\b|
    \bthis\s+year\b|\bin\s+(?:a\s+few|\d+|two|three|five|ten)\s+years\b|\bbefore\s+I\s+(?:turn|retire|die)\b|
    \blife\s?goal\b|\bdream\b)
"""
_WHEN_ZH = r"""
    (?:以后|将来|未来|今年|明年|后年|这两年|这几年|近两年|近几年|接下来几年|(?:今年|明年)?年底|(?:今年|明年)?年内|
    长期来看|长远来看|长期|这辈子|有生之年|有一天|
    有朝一日|早晚|迟早|(?:今年|明年)?年底前|(?:今年|明年)?年前|[一两三四五六七八九十\d]+(?:年|个月)(?:内|之内|以内)|
    [一两三四五六七八九十\d]+岁(?:前|之前|以前))
"""
_LIGHT_EN = rx(
    r"""
    ^(?:buy|pay|write|make|visit|see|try|do|have|build|start|fix|finish|read|cook|plan|
    get(?!\s+(?:into|a\s+(?:degree|job|promotion|phd|master'?s|certification|license|raise)|my\s+(?:degree|license|
    certification|phd|master'?s)|promoted|certified|fit|better|in\s+shape|hired))|
    go(?!\s+(?:public|pro|viral|abroad|freelance|back\s+to\s+school|full[- ]time|independent)))\b
    """
)


def _goal_en(m: re.Match[str]) -> str | None:
    value = clean(m.group(1))
    if _LIGHT_EN.match(value) and not re.search(_HORIZON_EN, m.string, re.I | re.X):
        return None  # "I want to write a function", "I want to buy milk": a request, not a goal
    return value or None


_GOALS_ZH_EXTRA = [
    Pattern(
        zh(
            r"我们?(?:的)?(?:长期|长远|人生|职业|未来|以后|今年|明年|下半年|这几年)的?(?:打算|计划|规划)(?:嘛|呢)?"
            r"[，,]?\s*(?:就)?是"
            r"\s*(.{2,60})"
        ),
        captured(1, clean),
    ),
    Pattern(
        zh(r"(?:给自己)?(?:定|立|设)(?:了|下)?(?:一)?个(?:小)?(?:目标|flag|计划)[：:，,]\s*(.{2,60})"),
        captured(1, clean),
    ),
    # "我正在为考CPA做准备", "我在为买房攒钱"
    Pattern(
        zh(
            r"我们?(?:正在|在|一直在|目前在)?(?:努力)?为了?\s*([^，,。]{2,30}?)\s*(?:做准备|作准备|准备|而努力|努力"
            r"|奋斗|攒钱|存钱|打基础)"
        ),
        captured(1, clean),
    ),
]
_GOALS = [
    Pattern(
        rx(
            r"""
            \b(?:my|our|(?:our|my)\s+(?:company|team|family|startup|lab|group)'s|one\s+of\s+my|one\s+of\s+our)\s+
            (?:main\s+|long[- ]term\s+|primary\s+|ultimate\s+|big\s+|biggest\s+|top\s+|personal\s+|career\s+|
            real\s+|overall\s+|life\s+|lifelong\s+|final\s+|number\ one\s+|north[- ]star\s+)*(?:goals?|dreams?|
            ambitions?|aims?|aspirations?|objectives?|life\s?goals?|mission|target|plan)\s+(?:(?:for\s+)?(?:this|next|
            the)\s+
            (?:year|quarter|decade|few\ years)\s+|(?:in\s+)?life\s+)?(?:is|are|will\ be|has\ always\ been|has\ been|
            :)\s+(?:to\s+)?(.{2,100})
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
                \bI(?:\s+(?:really\s+|eventually\s+|ultimately\s+|someday\s+|one\ day\s+|
                still\s+|also\s+|definitely\s+|seriously\s+|always\s+)?(?:(?:want|hope|plan|aim|intend|wish)\s+to|
                dream\s+(?:of|about))|
                (?:'m|\s+am)\s+(?:really\s+|seriously\s+)?(?:planning|hoping|aiming|determined)\s+to)\s+
            """
            + _GOAL_BLOCK
            + r"(.{2,100})"
        ),
        _goal_en,
    ),
    Pattern(
        rx(
            r"\b(?:we|our\s+(?:team|company|startup))(?:'re|\s+are|\s+is)\s+(?:really\s+)?(?:aiming|hoping|plannin"
            r"g|determined)\s+to\s+" + _GOAL_BLOCK + r"(.{2,100})"
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"\bwe\s+(?:really\s+|eventually\s+|ultimately\s+)?(?:want|hope|plan|aim|intend)\s+to\s+"
            + _GOAL_BLOCK
            + r"(.{2,100})"
        ),
        lambda m: clean(m.group(1)) if re.search(_HORIZON_EN, m.string, re.I | re.X) else None,
    ),
    # "I'm working toward becoming fluent", "we're working towards profitability"
    Pattern(
        rx(
            r"\b(?:I'm|I\s+am|we're|we\s+are)\s+(?:\w+\s+)?working\s+(?:toward|towards|hard\s+toward|hard\s+toward"
            r"s)\s+(.{2,100})"
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"^what\s+(?:I|we)\s+(?:really\s+|ultimately\s+|eventually\s+)?(?:want|hope|aim|dream\s+of)(?:\s+to\s+"
            r"do)?\s+is\s+(?:to\s+)?(.{2,100})"
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"\b(?:I'm|I\s+am|we're|we\s+are)\s+(?:currently\s+|really\s+|slowly\s+)?(?:saving\s+up|saving|studyin"
            r"g|training|preparing|"
            r"practicing|practising|working\s+hard|grinding|gearing\s+up)\s+(?:to|for)\s+" + _GOAL_BLOCK + r"(.{2,100})"
        ),
        _goal_en,
    ),
    Pattern(
        rx(
            r"^(.{3,80}?)\s+is\s+(?:a|one|my|our)\s+(?:\w+\s+){0,2}?(?:goals?|dreams?|ambitions?|aims?|aspirations"
            r"?)(?:\s+of\s+(?:mine|ours))?\b"
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(r"^the\s+(?:\w+\s+)?(?:dream|goal|ambition|aim|long[- ]term\s+plan)\s+is\s+(?:to|that\s+I)\s+(.{2,100})"),
        captured(1, clean),
    ),
    # "the goal is for me to become a team lead"
    Pattern(
        rx(r"^(?:the|my|our)\s+(?:\w+\s+)?(?:goal|plan|aim|idea|dream)\s+is\s+for\s+(?:me|us)\s+to\s+(.{2,100})"),
        captured(1, clean),
    ),
    # "the plan is to eventually open a bakery"
    Pattern(
        rx(
            r"^(?:the|my|our)\s+(?:long[- ]term\s+|big\s+|master\s+|5-year\s+|five-year\s+)?plan\s+is\s+to\s+(.{2,100})"
        ),
        captured(1, clean),
    ),
    # "I'd like to / I'm trying to" + a horizon: a goal, not a request for now
    Pattern(
        rx(
            r"""
                (?:\bI(?:'d|\s+would)\s+(?:really\s+)?(?:like|love)\s+to\s+|\bI(?:'m|
                \s+am)\s+(?:really\s+)?trying\s+to\s+|
                \bwe(?:'d|\s+would)\s+(?:like|love)\s+to\s+|\bwe(?:'re|\s+are)\s+trying\s+to\s+)
            """
            + _GOAL_BLOCK
            + r"(.{2,100})"
        ),
        lambda m: clean(m.group(1)) if re.search(_HORIZON_EN, m.string, re.I | re.X) else None,
    ),
    Pattern(
        zh(
            r"""
            (?:^|我们?)(?:公司|团队|家|组|部门)?(?:的)?(?:这辈子|这一生|一生|人生|今年|明年)?(?:的)?(?:长期|长远|主要|
            最终|终极|首要|人生|职业|今年|
            明年|个人|最大|小|大|近期|短期|阶段性|新年|年度|下一个|唯一)?(?:的)?
            (?:目标|梦想|理想|愿望|心愿|志向|追求|职业规划|规划|愿景|使命)(?:之一)?(?:嘛|呢|啊|的话)?[，,]?\s*(?:大概|
            就|一直|其实|很简单)?[，,]?\s*(?:是|就是)
            \s*(.{2,60})
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        zh(
            r"(?:^|我们?|[，,])(?:团队|公司|家|组|一家)?(?:"
            + _WHEN_ZH
            + r"\s*)*(?:我们?)?(?:一直|真的|很|特别|非常|还|也|都)?"
            r"(?P<intent>想要|想|希望|打算|计划|梦想|准备|立志|决心|争取|力争|努力|正在努力|在努力|要)"
            r"(?:着)?(?:"
            + _WHEN_ZH
            + r"\s*)*(?:能够?|可以)?(?:早日|尽快|早点|早些|尽早|快点)?(?:在[^，,]{1,10}?(?:之前|以前|前|内|里))?\s*"
            r"(?:" + _WHEN_ZH + r"\s*)*(?:能够?|可以)?\s*(?P<v>[^，,。；;]{2,60})"
        ),
        lambda m: _goal_zh(m),
    ),
]
_WHEN = zh(_WHEN_ZH)
_HORIZON_ZH = zh(
    r"""
    以后|将来|未来|今年|明年|后年|年底|年内|[一两三四五六七八九十\d]+年|[一两三四五六七八九十\d]+个月|长期|长远|
    有一天|有朝一日|
    这辈子|早日|之前|以前|[岁前内]|退休|考研|考公|考博|创业|转行|目标|梦想|努力
    """
)
_LIGHT_ZH = zh(
    r"^(?:去(?!读|留学|做)|去做|做|边|写(?!完|出|一本)|出(?!国|版)|读(?!博|研)|学(?!会|好|完)|考(?!研|公|博|上|过|"
    r"取|到|个|一个|下)|存|攒|赚|减(?!肥|掉)|买|当|开个|持续|坚持)"
)
_ZH_NOT_GOAL = zh(
    r"^(?:去|做|边|写|出|读|学|考|存|攒|赚|减|买)(?:一下|下|个饭|饭|点|吃|喝|玩|看看|问|睡|厕所|超市|外面)"
)


def _goal_zh(m: re.Match[str]) -> str | None:
    value = clean(m.group("v"))
    if not value or re.match(
        r"^(?:你|您|问|知道|了解|看看|听听|说|聊|吃|喝|睡|休息|这样|那样|应该|可能|是不是)", value
    ):
        return None
    if m.group("intent") == "要" and not _WHEN.search(m.string):
        return None  # "我要一杯咖啡": wanting now, not a goal
    if re.match(_GOAL_VERB_ZH, value):
        # light verbs ("想去…", "想做…", "想买…") are goals only with a horizon ("明年", "两年内", "以后")
        if _ZH_NOT_GOAL.match(value):
            return None
        if _LIGHT_ZH.match(value) and not _HORIZON_ZH.search(m.string):
            return None
        return value
    # "我们希望明年年底用户破百万": hoping / planning with a horizon, whatever the verb
    if m.group("intent") not in ("想", "想要", "要") and _HORIZON_ZH.search(m.string):
        return value
    return None


GOAL = Family("goal", Kind.GOAL, "goal.main", _GOALS + _GOALS_ZH_EXTRA, confidence=0.85)

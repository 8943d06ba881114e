"""Goals: `goal.main` (multi-valued: goals add up), the goal phrase as the value."""

from __future__ import annotations

import re

from ..models import Kind
from .family import Family
from .text import Pattern, captured, clean, rx, zh

_GOAL_BLOCK = (
    r"""
        (?!(?:know|ask|see|check|say|tell|mention|add|confirm|clarify|make\ sure|try|
        go\ back(?!\s+to\s+(?:school|college|university|uni))|
        continue|stop|remind|
    """
    r"""
        point\ out|note|share|show|thank|double[- ]check|verify|start\ with|begin\ with|discuss|
        talk|understand\ why|
    """
    r"be\ clear|repeat|change\ (?!careers|jobs|fields)|update|correct|fix\ this|look\ at|read\ (?!more|\d)|hear|"
    r"let\ you|focus|"
    r"prioriti|review|forget|"
    r"""
        delete|remove|use|
        switch\ (?!careers|jobs|fields|industries|roles|into|to\s+(?:a\s+)?(?:new\s+|remote\s+|different\s+|better\s+|
        full[- ]time\s+|part[- ]time\s+)?(?:job|role|career|position|field))|
        get\ (?:a|an|the|this|that|some)(?!\s+(?:degree|job|promotion|phd|master'?s|certification|license|licence|raise|
        black\s+belt|house|home|dog))|have\ (?:a|an|the)(?!\s+(?:family|house|kid|baby|career|business))|do\ this|
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
    [一两三四五六七八九十\d]+岁(?:前|之前|以前)|(?<![之以从])(?:[一两三四五六七八九十\d]{1,3}(?:岁|年)|毕业|婚礼|结婚|退休|夏天|冬天|
    春天|秋天|年底|明年|下半年|上半年|三十|四十|五十)(?:之)?前|长远(?:来看|看)?|长期(?:来看|看)?|这一生|一辈子|下半年|明年年底|
    [一两三四五六七八九十\d]{1,3}(?:年|岁)(?:后|以后|之后)|退休(?:后|以后|之后))
"""
_LIGHT_EN = rx(
    r"""
    ^(?:buy|pay|write|make|visit|see|try|do|have|build|start|fix|finish|read|cook|plan|
    get(?!\s+(?:into|a\s+(?:degree|job|promotion|phd|master'?s|certification|license|raise)|my\s+(?:degree|license|
    certification|phd|master'?s)|promoted|certified|fit|better|in\s+shape|hired))|
    go(?!\s+(?:public|pro|viral|abroad|freelance|back\s+to\s+school|full[- ]time|independent)))\b
    """
)


# what makes a plain "want to / plan to …" a goal: something one works toward (a degree, a licence, a
# company of one's own, a marathon, fluency, a measurable target), or a verb of becoming and mastering
_GOAL_OBJECT_EN = rx(
    r"""
    \b(?:degree|diploma|ph\.?d|doctorate|master'?s|mba|bachelor'?s|certificat(?:e|ion)|certified|license|licence|
    belt|exam|bar|marathon|half[- ]marathon|triathlon|ironman|ultra|summit|everest|kilimanjaro|career|careers|
    promotion|promoted|senior|staff|principal|partner|manager|director|founder|cto|ceo|vp|tenure|
    my\s+own|our\s+own|own\s+(?:company|business|startup|house|home|place|shop|bakery|restaurant)|
    company|business|startup|nonprofit|non-profit|charity|bakery|restaurant|cafe|café|shop|store|studio|practice|
    house|home|apartment|condo|flat|property|farm|
    fluent|fluency|native[- ]level|bilingual|financially\ independent|financial\ independence|debt[- ]free|
    retire(?:ment)?|early\ retirement|book|novel|memoir|album|podcast|channel|paper|thesis|
    pounds|kilos|kg|lbs|weight|in\ shape|fit|six[- ]pack|pull-?ups|push-?ups|
    users|customers|subscribers|followers|revenue|arr|mrr|profitable|profitability|ipo|unicorn|
    \$\s?\d|\d+\s?k\b|\d+\s?(?:million|thousand)|a\s+month|per\s+month|a\s+year|
    country|countries|continents|world|abroad|antarctica|
    piano|guitar|violin|cello|drums|instrument|language|japanese|mandarin|chinese|spanish|french|german|italian|
    korean|arabic|portuguese|russian|hindi)\b
    """
)
_STRONG_VP_EN = rx(
    r"""
    ^(?:become|be\s+(?:a|an|fluent|able|financially|debt-free|more|better|the\s+first|in\s+shape|someone)|
    learn|master|get\s+(?:better|good|really\s+good|fluent|fit|in\s+shape|into|promoted|certified|hired|published|
    my|our)|improve|finish|complete|pass|earn|achieve|reach|hit|found|launch|open|own|retire|move\s+(?:to|into|abroad|
    up)|switch\s+(?:careers|jobs|fields|industries|into|to)|change\s+careers|transition\s+(?:into|to)|pivot\s+(?:into|to)|
    publish|travel|visit|climb|hike|lose|save|pay\s+off|make\s+(?:senior|partner|staff|principal|director|it|a\s+living)|
    grow|scale|double|triple|speak|study\s+abroad|go\s+back\s+to\s+school|qualify|compete|win|graduate|
    run\s+(?:a|an|my|the|\d)|start\s+(?:my\s+own|our\s+own|a|an)|build\s+(?:my\s+own|our\s+own|a|an)|
    write\s+(?:a|my)\s+(?:book|novel|memoir|screenplay|thesis)|buy\s+(?:a|my\s+own|our\s+own)\s+(?:house|home|
    apartment|flat|condo|car|place)|work\s+(?:remotely|abroad|for\s+myself|at\s+a|as\s+a|in)|live\s+(?:in|abroad|by|on)|
    contribute|volunteer|teach|coach|mentor|help\s+(?:people|others|kids))\b
    """
)


def _goal_vp_en(raw: str, text: str) -> str | None:
    """A want / plan / hope to VP is a goal when the VP is one (or a horizon says so)."""
    value = clean(raw)
    if not value:
        return None
    if _STRONG_VP_EN.match(value) or _GOAL_OBJECT_EN.search(value) or re.search(_HORIZON_EN, text, re.I | re.X):
        return value
    if _LIGHT_EN.match(value):
        return None  # "I want to write a function", "I want to buy milk": a request, not a goal
    return value


def _goal_en(m: re.Match[str]) -> str | None:
    return _goal_vp_en(m.group(1), m.string)


_GOALS_ZH_EXTRA = [
    # "拿到黑带是我的一个大目标"
    Pattern(
        zh(
            r"^(?P<v>[^，,。；;]{2,40}?)(?:是|算是|一直是)(?:我|我们)(?:的|一直以来的|这辈子的|今年的|长期的)?(?:一个|一大|一项|最大的|唯一的)?"
            r"(?:大|小|长期|终极|人生|最大的?)?(?:目标|梦想|心愿|愿望|理想)"
        ),
        lambda m: clean(m.group("v")),
    ),
    # "我正在往网络安全方向发展"
    Pattern(
        zh(
            r"我们?(?:正在|在|一直在|慢慢|努力)*往\s*(?P<v>[^，,。；;]{2,20}?)(?:方向|领域|这条路)?(?:发展|转型|转|努力|走)"
        ),
        lambda m: "往" + clean(m.group("v")) + "方向发展",
    ),
    # "我在攒钱买房", "我在为买房存钱", "我在备考注册会计师", "我在准备考研"
    Pattern(
        zh(
            r"我们?(?:正在|在|一直在|目前在|最近在|现在在)?(?:努力|拼命|使劲)?(?:攒钱|存钱|省钱)(?:准备|打算|想|为了)?(?:今年|明年|以后|将来|年底)?"
            r"(?P<v>(?:买|去|读|出国|留学|"
            r"结婚|创业|开|换)[^，,。；;]{1,30})"
        ),
        lambda m: clean(m.group("v")),
    ),
    Pattern(
        zh(r"我们?(?:正在|在|一直在|目前在|最近在|现在在)(?:努力)?(?:备考|准备考|复习考|冲刺)(?P<v>[^，,。；;]{2,30})"),
        lambda m: "考" + clean(m.group("v")),
    ),
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
            real\s+|overall\s+|life\s+|lifelong\s+|final\s+|number\ one\s+|north[- ]star\s+|new\ year'?s\s+|
            (?:\w+|\d+)[- ]year\s+|professional\s+|personal\s+|fitness\s+|financial\s+|current\s+|secret\s+|
            childhood\s+|one\s+|only\s+|single\s+|true\s+|ultimate\s+|wildest\s+)*(?:goals?|dreams?|
            ambitions?|aims?|aspirations?|objectives?|life\s?goals?|mission|target|plan|resolutions?|
            bucket[- ]list\s+item|
            wish|hope|intention)\s+(?:(?:for\s+)?(?:this|next|the)\s+
            (?:year|quarter|decade|few\ years|next\ \w+\ years)\s+|(?:in\s+)?life\s+|right\s+now\s+|
            at\s+the\s+moment\s+|currently\s+|for\s+(?:\d{4}|the\s+year|now)\s+|these\s+days\s+)?
            (?:is|are|will\ be|has\ always\ been|has\ been|
            was\ always|:)\s+(?:to\s+)?(.{2,100})
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
                \bI(?:\s+(?:really\s+|eventually\s+|ultimately\s+|someday\s+|one\ day\s+|
                still\s+|also\s+|definitely\s+|seriously\s+|always\s+|really\s+really\s+|desperately\s+|badly\s+)*
                (?:(?:want|wanna|hope|plan|aim|intend|wish|mean|need|expect|resolve|vow|promise(?:d)?\s+myself)\s+to|
                dream\s+(?:of|about)|have\s+always\s+wanted\s+to|'ve\s+always\s+wanted\s+to|always\s+wanted\s+to|
                'd\s+(?:really\s+)?(?:like|love)\s+to|would\s+(?:really\s+)?(?:like|love)\s+to)|
                (?:'m|\s+am)\s+(?:really\s+|seriously\s+|still\s+|currently\s+|now\s+)*(?:planning|hoping|aiming|determined|
                set|resolved|committed|going|trying|working\s+hard|striving|saving\s+up|saving|studying(?:\s+hard)?|
                training(?:\s+hard)?|preparing|practi[cs]ing|working)\s+to)\s+
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
        _goal_en,
    ),
    Pattern(
        rx(
            r"\bwe\s+(?:really\s+|eventually\s+|ultimately\s+)?(?:want|hope|plan|aim|intend)\s+to\s+"
            + _GOAL_BLOCK
            + r"(.{2,100})"
        ),
        lambda m: (
            clean(m.group(1))
            if re.search(_HORIZON_EN, m.string, re.I | re.X) or _GOAL_OBJECT_EN.search(m.group(1))
            else None
        ),
    ),
    # "I'm working on becoming a better speaker", "I'm saving up for a house", "I'm studying for the bar"
    Pattern(
        rx(
            r"\b(?:I'm|I\s+am|we're|we\s+are)\s+(?:\w+\s+)?(?:working\s+on|focused\s+on)\s+(?P<v>(?:becoming|getting|improving|"
            r"learning|mastering|building\s+(?:my|our)|growing|losing|saving|paying\s+off|earning|finishing\s+my|"
            r"writing\s+(?:a|my)\s+(?:book|novel)|training\s+for)\b.{2,100})"
        ),
        lambda m: clean(m.group("v")),
    ),
    Pattern(
        rx(
            r"\b(?:I'm|I\s+am|we're|we\s+are)\s+(?:\w+\s+)?(?:saving(?:\s+up)?|studying(?:\s+hard)?|training(?:\s+hard)?|"
            r"preparing|prepping|cramming|practi[cs]ing)\s+for\s+(?P<v>(?:a|an|the|my|our)\s+.{2,80})"
        ),
        lambda m: clean(m.group("v")) if _GOAL_OBJECT_EN.search(m.group("v")) else None,
    ),
    # "I'm aiming for a promotion to senior", "we're going for a Series A next year"
    Pattern(
        rx(
            r"\b(?:I'm|I\s+am|we're|we\s+are)\s+(?:\w+\s+)?(?:aiming|going|gunning|pushing|shooting|reaching|striving|"
            r"headed|heading)\s+(?:for|toward|towards)\s+(?P<v>(?:a|an|the|my|our)\s+.{2,80})"
        ),
        lambda m: (
            clean(m.group("v"))
            if _GOAL_OBJECT_EN.search(m.group("v")) or re.search(_HORIZON_EN, m.string, re.I | re.X)
            else None
        ),
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
            r"^(.{3,80}?)\s+is\s+(?:a|one|my|our)\s+(?:\w+\s+){0,3}?(?:goals?|dreams?|ambitions?|aims?|aspirations"
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
        lambda m: (
            clean(m.group(1))
            if re.search(_HORIZON_EN, m.string, re.I | re.X)
            or _GOAL_OBJECT_EN.search(m.group(1))
            or _STRONG_VP_EN.match(clean(m.group(1)))
            else None
        ),
    ),
    Pattern(
        zh(
            r"""
            (?:^|我们?)(?:公司|团队|家|组|部门)?(?:一直|从小|最|真正|其实|心里)?(?:以来)?(?:的)?(?:这辈子|这一生|一生|人生|今年|明年|现在|目前|眼下|接下来|未来|
            [一两三四五六七八九十\d]+年)?(?:的)?(?:长期|长远|主要|最终|终极|首要|人生|职业|今年|明年|个人|最大|小|大|近期|短期|
            阶段性|新年|年度|下一个|唯一|[一两三四五六七八九十\d]+年)?(?:的)?
            (?:目标|梦想|理想|愿望|心愿|志向|追求|职业规划|规划|愿景|使命|新年愿望|新年目标|小目标|大目标)(?:之一)?(?:嘛|呢|啊|的话)?[，,]?\s*(?:大概|
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
            + r"\s*)*(?:我们?)?(?:一直|真的|很|特别|非常|还|也|都|一定|始终|其实|确实|超|好|蛮|挺)*"
            r"(?P<intent>想要|想|希望|打算|计划|梦想|准备|立志|下定决心要?|下决心要?|决心要|决心|发誓要|争取|力争|努力|正在努力|在努力|"
            r"一定要|必须要|要)"
            r"(?:着)?(?:" + _WHEN_ZH + r"\s*)*(?:能够?|可以)?(?:早日|尽快|早点|早些|尽早|快点)?"
            r"(?:在[^，,]{1,10}?(?:之前|以前|前|内|里|上|中))?\s*"
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
# what one works toward: a degree, a licence, an exam, a house, a company, a career move, a skill
_GOAL_OBJECT_ZH = zh(
    r"""
    学位|硕士|博士|研究生|本科|大学|MBA|(?i:mba|phd|cpa|cfa|pmp|aws|gre|gmat|toefl|ielts)|雅思|托福|证书|证|执照|驾照|资格|
    认证|会计师|律师|医生|教师|工程师|经理|总监|主管|专家|架构师|科学家|设计师|老师|教练|作家|CTO|CEO|合伙人|高级|资深|主任|
    房|车|公寓|(?:开|经营|拥有)[^，,。]{0,8}店|公司|工作室|生意|事业|品牌|创业|自由|退休|移民|出国|留学|马拉松|全马|半马|铁人三项|黑带|段位|论文|书|小说|专辑|
    钢琴|吉他|小提琴|大提琴|乐器|鼓|语|流利|母语|斤|公斤|体重|腹肌|身材|粉丝|用户|营收|收入|盈利|上市|年薪|月入|万|
    世界|环游|南极|北极|珠峰|岗|行业|方向|领域|远程|技能|手艺|厨艺|能力|水平
    """
)
# "靠摄影谋生", "经营自己的工作室", "往网络安全方向发展"
_LIVING_ZH = zh(
    r"靠[^，,。]{1,10}(?:谋生|为生|养活|吃饭|赚钱|生活|养家)|自己的[^，,。]{1,10}|往[^，,。]{1,12}?(?:方向)?(?:发展|转|走|努力)|"
    r"(?:扩张|扩大|拓展|做大|翻倍|增长)(?:到)?"
)
_GOAL_VERB_STRONG_ZH = zh(
    r"""
    ^(?:成为|当上|做一名|做一个|当一名|当个|变成|学会|学好|练好|练成|练到|掌握|精通|考上|考过|考下|考取|考到|拿到|拿下|获得|取得|
    通过|完成|实现|达到|突破|转行|转岗|转做|转到|转型|转成|转去|转(?=[^，,。]{0,6}(?:岗|行|管理|方向|产品|技术|开发|设计|运营|销售))|
    换(?:一份|个|份)?[^，,。]{0,6}(?:工作|行业|岗位|城市|职业)|创业|创办|开一家|开家|
    开个|开一个|出版|发表|发(?:一篇|篇)|写完|写出|写一本|移民|出国|留学|读博|读研|考研|考公|考博|升职|升到|升为|晋升|
    减掉|瘦到|瘦下|减肥|跑完|走完|徒步|环游|游遍|去一次|买(?:套|一套|个|一个)?(?:房|车|公寓)|攒够|存够|还清|还完|
    退休|财务自由|回(?:学校|校)|重返校园|进入|加入|搬到|住到|定居|读(?:一个|个)?(?:硕士|博士|研究生|MBA|大学|本科)|
    考(?!虑|考|一下|试一下|你)[^，,。]{2,})
    """
)
_ZH_NOT_GOAL = zh(
    r"^(?:去|做|边|写|出|读|学|考|存|攒|赚|减|买)(?:一下|下|个饭|饭|点|吃|喝|玩|看看|问|睡|厕所|超市|外面)|^考(?:虑|考)|"
    r"^(?:学|了解|看|问|知道)(?:一下|下)?(?:怎么|如何|为什么|什么)|^去?(?:试试|尝尝|看看|逛逛|玩玩|吃|喝|买点|买个|买杯|遛)"
)


def _goal_zh(m: re.Match[str]) -> str | None:
    value = clean(m.group("v"))
    value = re.sub(r"^在[^，,。]{1,12}?(?:上|里|中)(?=[\u4e00-\u9fff])", "", value)  # "希望能在NeurIPS上发一篇论文"
    if not value or re.match(
        r"^(?:你|您|问|知道|了解|看看|听听|说(?!一口|得?流利|好)|聊|吃|喝|睡|休息|这样|那样|应该|可能|是不是)", value
    ):
        return None
    if m.group("intent") == "要" and not _WHEN.search(m.string):
        return None  # "我要一杯咖啡": wanting now, not a goal
    # "想五十五岁退休", "希望能一口气跑完十公里": the verb after a time and an adverb
    bare = re.sub(
        r"^(?:(?:在)?[一两三四五六七八九十\d]{1,4}(?:岁|年)(?:前|之前|以前|后|以后|之后|内|之内)?|今年|明年|后年|年底前?|以后|将来|"
        r"早日|尽快|早点|尽早|顺利|成功|真正|彻底|一口气|好好|再|多|真的|能够?|可以|把)+",
        "",
        value,
    )
    if _GOAL_VERB_STRONG_ZH.match(value) or (bare and bare != value and _GOAL_VERB_STRONG_ZH.match(bare)):
        return value
    if _LIVING_ZH.search(value):
        return value
    if _ZH_NOT_GOAL.match(value):
        return None
    if (
        re.match(_GOAL_VERB_ZH, value)
        and _GOAL_OBJECT_ZH.search(value)
        and not re.match(r"(?:学|考|读|写|做)(?:一下|下|点)", value)
    ):
        return value  # "想考注册会计师", "想学小提琴", "计划读一个经济学硕士"
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
    if _WHEN.search(m.string) and not _ZH_NOT_GOAL.match(bare or value) and not _LIGHT_ZH.match(bare or value):
        return value  # "长期来看我们想再扩张三个城市": wanting, with a horizon
    return None


GOAL = Family("goal", Kind.GOAL, "goal.main", _GOALS + _GOALS_ZH_EXTRA, confidence=0.85)

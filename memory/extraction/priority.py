"""Time-boxed priorities: `priority.focus`, valid from the turn's time until the end of the period it
names (this week, today, this month, this quarter, next week, tomorrow); "for now", "these days",
"this sprint", "until the deadline" take the registry's default lifetime."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..models import Kind
from . import prefilter
from .family import Hit
from .prefilter import one_of, rewritten
from .text import Pattern, captured, clean, day_end, matched_by, month_end, rx, scan, tables, week_end, zh

_TM_EN = rx(
    r"""
    \b(this\ week|today(?!'s)|tonight|this\ month|this\ quarter|(?:for\ )?the\ (?:rest\ of\ the\ )?quarter|
    next\ week|tomorrow|for\ now|right\ now|for\ the\ time\ being|at\ the\ moment|currently|these\ days|
    lately|this\ sprint|(?:for\ )?the\ (?:rest\ of\ the\ )?sprint|this\ iteration|this\ cycle|
    for\ the\ rest\ of\ the\ (?:week|day|month|year|quarter|sprint)|this\ weekend|for\ this\ sprint|
    (?:for|over)\ the\ next\ (?:few|couple\ of|two|three|\d+)\ (?:days|weeks|months)|these\ next\ (?:few\ )?(?:days|
    weeks)|
    (?:until|till|through|before|by)\ (?:the\ )?(?:deadline|release|launch|demo|review|audit|conference|holidays?|
    end\ of\ (?:the\ )?(?:day|week|month|quarter|sprint|year)|(?:next\ )?(?:monday|tuesday|wednesday|thursday|friday|
    saturday|sunday|weekend)|eod|eow|[\w-]+\ ships|further\ notice|(?:the\ )?(?:board\ meeting|offsite|exam|interview|
    trip|move|wedding|trade\ show|summit|beta|ga|cutover|migration|freeze|code\ freeze))|
    this\ (?:morning|afternoon|evening)|all\ (?:day|week|month|sprint|quarter)|
    (?:for|over)\ the\ (?:next|coming)\ (?:few|couple\ of|two|three|\d+|several)?\s*(?:days|weeks|months|hours)|
    for\ the\ foreseeable\ future|for\ the\ next\ (?:week|month|day|sprint)|
    this\ (?:phase|stretch|season|term|semester))\b
    """
)
_TM_ZH = zh(
    r"""
    (这周|本周|这个星期|这星期|本星期|这礼拜|这个礼拜|今天|今日|今晚|本月|这个月|下周|下个星期|
    下礼拜|明天|目前|眼下|当前|现阶段|暂时|这几天|这两天|这两周|这几周|近几天|最近|这阵子|这段时间|这段日子|近期|
    接下来(?:的)?(?:[一两三四五六七八九十\d]+(?:周|天|个月|个星期|礼拜))?|这个?迭代|本迭代|这个?冲刺|
    这个?(?i:sprint)|这季度|本季度|这个季度|这个礼拜|近期|这段时间|
    (?:周[一二三四五六日天]|下周[一二三四五六日天]?|月底|年底|季度末|发版|上线|发布|交付|截止日期|截止|演示|评审|考试|出差|放假|假期|过年|
    春节|国庆|月中|周末|deadline|ddl|DDL|答辩|面试|开学|汇报|路演|大促|双十一|封版)(?:之)?前|
    这个?(?:上午|下午|晚上|周末|阶段|学期)|今明两天|这一周|这一个月|接下来(?:这段时间|一段时间|几天|几周|这几天|一个月|一周|两周)|现在|这一阵|这些天|
    今年(?:剩下的时间|下半年|接下来)?|年内|明天一?(?:上午|下午|整天)?|这周末)
    """
)
_PRIORITY_WORD = rx(
    r"""
    \bpriorit(?:y|ies|i[sz]e|i[sz]ing)\b|'s\s+(?:top\s+|main\s+)?focus\b|\bbefore\s+(?:everything|anything)\s+else\b|
    \babove\s+(?:everything|anything)\s+else\b|
    \ball\s+about\b|\bwhat\s+I'?m\s+focus|\bprecedence\b|\baside\s+to\b|\bdedicating\b|\bdevoting\b|\ball\s+in\s+on\b|
    焦点|一件事|只关心|为主|为重|\bswamped\b|\bslammed\b|\bburied\b|一门心思|一心|全身心|\b(?:my|
    our)\s+(?:\w+\s+)?focus\b|\bcomes?\s+first\b|
\b(?:focus(?:ed|ing)?|concentrat(?:e|ed|ing))\s+on\b|
    优先|重点|首要|重心|精力|最重要|最要紧|头等|专心|专注|全力|聚焦
    """
)


_REQUEST = zh(
    r"""
    (?i:^(?:please\s+|can\s+you|could\s+you|would\s+you|will\s+you|help\s+me|write|draft|make|give\s+me|tell\s+me|
    show\s+me|explain|summari[sz]e|translate|list|suggest|recommend|find|create|generate|plan\s+(?:my|a|the))\b)|
    ^(?:请|麻烦|帮我|帮忙|给我|你|能不能|可不可以|可以帮|写|列|翻译|总结|解释|推荐|生成)
    """
)
_GOAL_NOUN = rx(
    r"\b(?:goals?|dreams?|ambitions?|aspirations?|resolutions?|life\s?goals?)\b|目标|梦想|愿望|理想|志向|心愿"
)
_SHORT_WINDOW = rx(
    r"\b(?:today|tonight|tomorrow|this\s+(?:week|sprint|morning|afternoon|evening|weekend)|next\s+week|right\s+now|"
    r"for\s+now|at\s+the\s+moment|until)\b|今天|今晚|明天|这周|本周|这个星期|这礼拜|下周|这个?迭代|这个?冲刺|目前|眼下|当前|现在"
)
# a past time said, and no current window: narration ("last month I was mostly traveling")
_PAST_ONLY = rx(
    r"\b(?:yesterday|last\s+(?:night|week|month|year|sprint|quarter|time)|the\s+other\s+day|earlier\s+today|"
    r"(?:a\s+(?:few|couple\s+of)|two|three|\d+)\s+(?:days|weeks|months|years)\s+ago|back\s+then|used\s+to)\b|"
    r"昨天|前天|上周|上个月|上礼拜|去年|前几天|那时候|以前|当时|刚才"
)
_NOW_WINDOW = rx(
    r"this|today|tonight|now|current|these|next|tomorrow|until|till|before|for|over|all|"
    r"这|本|今|目前|眼下|当前|现|暂时|接下来|明天|下周|前"
)


def _quarter_end(at: datetime) -> datetime:
    q_month = 3 * ((at.month - 1) // 3) + 1
    first = at.replace(month=q_month, day=1, hour=0, minute=0, second=0, microsecond=0)
    month = q_month + 3
    return first.replace(year=first.year + 1, month=month - 12) if month > 12 else first.replace(month=month)


def _window(marker: str, at: datetime) -> tuple[datetime | None, datetime | None]:
    k = " ".join(marker.casefold().split())
    if k in (
        "this week",
        "for the rest of the week",
        "这周",
        "本周",
        "这个星期",
        "这星期",
        "本星期",
        "这礼拜",
        "这个礼拜",
        "this weekend",
    ):
        return at, week_end(at)
    if k in ("today", "tonight", "for the rest of the day", "今天", "今日", "今晚"):
        return at, day_end(at)
    if k in ("this month", "for the rest of the month", "本月", "这个月"):
        return at, month_end(at)
    if k in (
        "this quarter",
        "the quarter",
        "for the quarter",
        "the rest of the quarter",
        "for the rest of the quarter",
    ):
        return at, _quarter_end(at)
    if k in ("这季度", "本季度", "这个季度"):
        return at, _quarter_end(at)
    if k in ("next week", "下周", "下个星期", "下礼拜"):
        start = week_end(at)
        return start, start + timedelta(days=7)
    if k in ("tomorrow", "明天"):
        start = day_end(at)
        return start, start + timedelta(days=1)
    return None, None  # "for now / 目前 / these days / this sprint": the registry's default lifetime


_FOCUS_VERB_EN = r"""
    (?:focus(?:ed|ing)?\s+(?:on|upon)|prioriti[sz](?:e|ed|ing)|concentrat(?:e|ed|ing)\s+on|
    work(?:ing)?\s+on|deal(?:ing)?\s+with|tackl(?:e|ing)|handl(?:e|ing)|finish(?:ing)?|ship(?:ping)?|
    busy\s+with|tied\s+up\s+with|heads[- ]down\s+on|all\s+hands\s+on|all\s+in\s+on|(?:swamped|buried|slammed|
    snowed\s+under)\s+with|
    (?:laser[- ])?focused\s+on|zero(?:ing)?\s+in\s+on|hom(?:e|
    ing)\s+in\s+on|
    doubl(?:e|ing)\s+down\s+on|locked\s+in\s+on|hyper-?focused\s+on|pour(?:ing)?\s+(?:everything|all\s+(?:my|
    our)\s+\w+)\s+into|
    throw(?:ing)?\s+(?:everything|ourselves|myself)\s+(?:at|into)|knee[- ]deep\s+in|grinding\s+(?:on|through)|
    spending\s+(?:(?:my|our|all\s+my|most\s+of\s+my|most\s+of\s+our|the)\s+(?:time|energy|days?|week)\s+)?
    (?:mostly\s+|mainly\s+|primarily\s+|entirely\s+)?on)
"""
_ADV_EN = (
    r"(?:(?:mostly|mainly|primarily|currently|really|fully|just|only|all(?!\s+hands)|entirely|heavily|basically)\s+)*"
)
_PRIORITY_EN = [
    Pattern(
        rx(
            r"""
            \b(?:my|our|the(?:\ team'?s)?|team|our\ team'?s|my\ team'?s|team's)\s+(?:top\s+|main\s+|first\s+|
            biggest\s+|only\s+|\#1\s+|
            number[-\ ]one\s+|no\.?\s*1\s+|current\s+|primary\s+|one\s+)?(?:priorit(?:y|ies)|focus|main\ thing|
            one\ thing)\b
            (?:\s+(?:for\s+(?:the\s+)?(?:quarter|sprint|week|month|day)|for\s+me|for\s+us))?\s*(?:is|are|will\ be|:)
            \s+(.{1,80})
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
            \b(?:the\s+)?(?:most\s+important|biggest|main|top|number\ one|first|only)\s+(?:thing|task|job|item)
            (?:\s+(?:for|on\ the\ list\ for)\s+(?:me|us))?(?:\s+(?:on\ my\ plate|on\ my\ list))?\s+(?:is|will\ be)
            \s+(.{1,80})
            """
        ),
        captured(1, clean),
    ),
    Pattern(rx(r"\bpriority\s*:\s*(.{1,80})"), captured(1, clean)),
    Pattern(
        rx(
            r"\b(?:today|tonight|tomorrow|this\ week|this\ month|next\ week|the\ week|the\ day)'s\s+(?:top\s+|main"
            r"\s+|big\s+)?(?:priority|focus|goal)\s+(?:is|will\ be)\s+(.{1,80})"
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
            (?:^|
            \b(?:let'?s|let\ us|please|I'll|I\ will|we'll|we\ will|we\s+(?:should|need\ to|will|must|'ll)|
            I\s+(?:want\ to|need\ to|
            will|must|should|'ll|plan\ to)|I'm\s+going\s+to|you\s+(?:should|need\ to)|
            (?:I|we|the\ team|my\ team|our\ team)(?:'m|'re|'ve\ been|\s+am|\s+are|\s+is|\s+have\s+been|
            \s+has\s+been)?)\s+|
            [,:]\s*|
            \b(?:this\ week|today|tonight|this\ month|next\ week|tomorrow|for\ now|right\ now)\s*,?\s*)
            """
            + _ADV_EN
            + _FOCUS_VERB_EN
            + r"\s+(.{1,80})"
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
            ^(?:focus(?:ing)?\s+on|prioriti[sz]e|concentrate\s+on|work\s+on|deal\s+with|tackle|
            handle|finish|ship)\s+(.{1,80})
            """
        ),
        captured(1, clean),
    ),
    # "this week I'm mostly doing customer interviews"
    Pattern(
        rx(r"\b(?:I|we)(?:'m|'re|\s+am|\s+are)\s+(?:mostly|mainly|primarily|only|just)\s+(?:doing|on)\s+(.{1,80})"),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
            ^(.{1,60}?)\s+(?:is|are)\s+(?:my|our|the)\s+(?:top\s+|main\s+|first\s+|only\s+|biggest\s+|
            number\ one\s+|sole\s+)?(?:priority|focus)\b
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"^(.{1,60}?)\s+(?:comes?|goes|gets\ done)\s+(?:first|before\s+(?:everything|anything)(?:\s+else)?|abo"
            r"ve\s+all(?:\s+else)?)\b"
        ),
        captured(1, clean),
    ),
    # "the demo is what I'm focused on", "X is the thing I'm focusing on", "X takes priority"
    Pattern(
        rx(
            r"""
            ^(.{1,60}?)\s+(?:is|are)\s+(?:what|the\ (?:one\ )?thing|all|the\ only\ thing)\s+(?:I|we)(?:'m|'re|\s+am|
            \s+are)?\s+
            (?:\w+\s+)?(?:focus(?:ed|ing)?\s+on|working\s+on|thinking\s+about|care\s+about|caring\s+about|doing)\b
            """
        ),
        captured(1, clean),
    ),
    Pattern(rx(r"^(.{1,60}?)\s+(?:takes|has|gets)\s+(?:top\s+)?(?:priority|precedence)\b"), captured(1, clean)),
    Pattern(
        rx(
            r"^(.{2,60}?)\s+(?:should|must|needs\ to|has\ to|will)\s+be\s+(?:my|our|the)\s+(?:main\s+|top\s+|first"
            r"\s+)?(?:focus|priority)\b"
        ),
        captured(1, clean),
    ),
    Pattern(
        rx(r"\bmake\s+(.{2,60}?)\s+(?:the|my|our|a|top)\s+(?:top\s+|main\s+|number\ one\s+)?(?:priority|focus)\b"),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"""
            \b(?:putting|setting|pushing|leaving)\s+(?:everything|all)\s+else\s+aside\s+to\s+(.{2,60})|
            \bdropping\s+everything(?:\s+else)?\s+to\s+(.{2,60})
            """
        ),
        lambda m: clean(m.group(1) or m.group(2)),
    ),
    Pattern(
        rx(
            r"\b(?:dedicating|devoting|giving)\s+(?:all\s+)?(?:(?:my|our)\s+)?(?:time|energy|attention|days?|week|"
            r"focus)\s+to\s+(.{2,60})"
        ),
        captured(1, clean),
    ),
    Pattern(rx(r"\bis\s+all\s+about\s+(.{1,60}?)(?:\s+for\s+(?:me|us))?$"), captured(1, clean)),
    Pattern(
        rx(r"\b(?:I|we)\s+(?:mostly|mainly|only|just|really)?\s*(?:care|caring)\s+about\s+(.{1,80})"),
        captured(1, clean),
    ),
    Pattern(
        rx(
            r"\b(?:I|we)\s+(?:need|have|want)\s+to\s+(?:get\s+)?(.{2,60}?)(?:\s+done)?\s+(?:above|before)\s+(?:eve"
            r"rything|anything)\s+else\b"
        ),
        captured(1, clean),
    ),
]
# light verbs ("处理B" -> "B") and content verbs kept in the value ("写API文档")
_LIGHT_ZH = r"(?:处理|做|搞|弄|忙|忙着|推进|完成|解决|关注|攻克|搞定|跟进|负责|盯|抓)"
_CONTENT_ZH = (
    r"(?:写|修|复习|准备|重构|优化|赶|招聘|面试|调研|测试|整理|学习|学|练|备考|清理|迁移|开发|设计|筹备|保|冲|拼|抓|攻)"
)
_PRIORITY_ZH = [
    Pattern(
        zh(
            r"""
            (?:我|我们)?(?:的)?(?:首要|最重要|主要|头号|核心)?(?:的)?(?:任务|重点|优先级最高的|
            优先事项|重心|焦点|中心)(?:就)?(?:是|为|在|放在)\s*([^，,。；;]{1,40})
            """
        ),
        captured(1, clean),
    ),
    Pattern(
        zh(
            r"(?:最重要|最优先|最要紧|最紧急|最关键|头等大事|第一要务)(?:的)?(?:事|事情|任务)?(?:是|就是)\s*([^，,"
            r"。；;]{1,40})"
        ),
        captured(1, clean),
    ),
    Pattern(zh(r"以\s*([^，,。；;]{1,30}?)\s*为(?:主|重|先|首要|第一)"), captured(1, clean)),
    Pattern(
        zh(r"(?:就|只)(?:干|做|搞|忙)(?:一件事|这一件事)[:：，,]\s*(?:就是)?(?:把)?([^，,。；;]{1,40})"),
        captured(1, clean),
    ),
    Pattern(
        zh(
            r"(?:只|主要|就|一心|最)(?:关心|在意|在乎|惦记|想着|盯着|操心)\s*([^，,。；;]{1,40}?)(?:的事|这件事|这事)?$"
        ),
        captured(1, clean),
    ),
    Pattern(
        zh(r"(?:一门心思|一心一意|专心致志|全身心)(?:地)?(?:扑在|投入|放在|在)?\s*([^，,。；;]{1,40}?)(?:上)?$"),
        captured(1, clean),
    ),
    Pattern(
        zh(r"(?:精力|时间|心思)(?:都|主要|全部|基本|全)?(?:放|花|集中|用)?在\s*([^，,。；;]{1,40}?)(?:上面|上)?$"),
        captured(1, clean),
    ),
    Pattern(
        zh(
            r"(?:先|优先|重点|主要|集中精力|集中|全力|专心|要|得|需要|必须|都|一直|大部分时间都?|我们?|团队|只)\s*"
            r"(?:在)?\s*" + _LIGHT_ZH + r"\s*(?!了|过)([^，,。；;]{1,40})"
        ),
        captured(1, clean),
    ),
    Pattern(
        zh(
            r"(?:先|优先|重点|主要|集中精力|集中|全力|专心|都|一直|大部分时间都?|忙着|忙于|在忙|我们?|团队|只)\s*("
            r"?:在)?\s*((?:" + _CONTENT_ZH + r")\s*(?!了|过)[^，,。；;]{1,40})"
        ),
        captured(1, clean),
    ),
    Pattern(zh(r"(?:专注|聚焦|集中)(?!模式|力|度|点)(?:于|在)?\s*([^，,。；;]{1,40})"), captured(1, clean)),
    Pattern(zh(r"(?:先|优先)\s*把\s*([^，,。；;]{1,40})"), captured(1, clean)),
    Pattern(zh(r"(?:处理|推进|解决|搞定|主攻|跟进)\s*(?!了|过)([^，,。；;]{1,40})"), captured(1, clean)),
]


# --- the general shapes of "this comes first now" ------------------------------------------------------
# (1) a priority noun and what it is ("my top priority today is X", "Job one this week: X", "这季度的优先级是X")
# (2) the other way round ("X is my only focus", "X takes priority", "X是我唯一的重点", "X排第一位")
# (3) where the user's time / energy / attention goes ("putting all our energy into X", "all my attention
#     goes to X", "把时间都投入到X上", "精力都砸在X上")
# (4) a focus verb with the user or the team as subject ("heads down on X", "死磕X", "埋头做X")
# (5) nothing else counts ("nothing matters more than X", "没有什么比X更重要", "X优先，其他的先不管")
_PNOUN_EN = r"""
    (?:priorit(?:y|ies)|focus|main\ thing|one\ thing|thing|job|task|mission|push|concern|order\ of\ business|
    objective|big\ rock|headline|item|deliverable|target|work|project)
"""
_PADJ_EN = r"""
    (?:(?:top|main|number[-\ ]one|\#1|no\.?\s*1|first|biggest|big|only|one|current|primary|key|core|sole|single|
    overriding|immediate|real|absolute|highest|most\ important|most\ urgent|urgent|major|whole)\s+)*
"""
_OWNER_EN = r"""
    (?:(?:my|our|the\ team'?s|my\ team'?s|our\ team'?s|the|today'?s|tonight'?s|tomorrow'?s|this\ week'?s|'s|
    this\ month'?s|this\ sprint'?s|this\ quarter'?s|next\ week'?s|the\ week'?s|the\ day'?s)\s+)?
"""
_RESOURCE_EN = r"""
    (?:(?:all|most|much|the\ bulk|nearly\ all|almost\ all|every\ bit|the\ majority|a\ lot|every\ minute|every\ hour)
    (?:\s+of)?\s+)?(?:(?:my|our|the\ team'?s|the|a|an)\s+)?(?:(?:free|spare|working|whole|entire|full|full\ working|
    waking)\s+)?(?:(?:time|energy|effort|
    efforts|attention|focus|bandwidth|brainpower|hours|days|day|week|cycles|evenings|mornings|resources|capacity|
    afternoon|morning|evening|weekend|month|sprint))
"""
_GENERAL_EN = [
    # (1)
    Pattern(
        rx(
            r"(?:^|[,;:]\s*|\b(?:and|so|but)\s+)"
            + _OWNER_EN
            + _PADJ_EN
            + r"(?:"
            + _PNOUN_EN
            + r"|job\ (?:one|\#?1)|first\ thing(?:\s+on\s+(?:my|our|the)\s+(?:list|agenda|plate))?|"
            r"top\s+of\s+(?:my|our|the)\s+(?:list|agenda|to-?do\s+list)|"
            r"first\s+(?:order\s+of\s+business|item\s+on\s+the\s+agenda))"
            r"(?:\s+(?:for\s+(?:me|us|the\s+(?:team|quarter|sprint|week|month|day))|right\s+now|now))*"
            r"\s*(?:is|are|will\s+be|remains|stays|=|:|—|–|-)\s+(?:to\s+)?(?P<v>.{2,80})"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    # (2)
    Pattern(
        rx(
            r"^(?P<v>.{2,60}?)\s+(?:is|are|will\s+be|remains)\s+(?:now\s+|still\s+|definitely\s+|clearly\s+)?"
            r"(?:my|our|the(?:\s+team'?s)?|priority|job|top|number)\s*"
            + _PADJ_EN
            + r"(?:priorit(?:y|ies)|focus|thing|job|one|1|concern|order\s+of\s+business|mission)\b"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        rx(
            r"^(?P<v>.{2,60}?)\s+(?:comes?\s+first|takes?\s+(?:top\s+)?(?:priority|precedence)|gets?\s+(?:top\s+)?priority|"
            r"(?:is|are)\s+(?:top|first|high(?:est)?)\s+priority|matters?\s+most|(?:is|are)\s+what\s+matters(?:\s+most)?|"
            r"(?:is|are)\s+(?:all|the\s+only\s+thing)\s+that\s+(?:matters|counts)|"
            r"(?:is|are)\s+(?:at\s+the\s+)?top\s+of\s+(?:my|our|the)\s+(?:list|agenda)|(?:is|are)\s+first\s+"
            r"(?:on\s+(?:my|our|the)\s+list|in\s+line)|(?:is|are)\s+(?:job|priority)\s+(?:one|number\s+one|\#?1))\b"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    # (3)
    Pattern(
        rx(
            r"\b(?:putting|put|throwing|throw|pouring|pour|giving|give|devoting|devote|dedicating|dedicate|spending|spend|"
            r"focusing|focus|investing|invest|channel(?:l)?ing|channel|directing|direct|sinking|sink|concentrating)\s+"
            + _RESOURCE_EN
            + r"\s+(?:in(?:to)?|on|to|toward|towards|at)\s+(?P<v>.{2,80})"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        rx(
            r"\b(?:giving|give|devoting|dedicating|handing)\s+(?P<v>.{2,60}?)\s+"
            + _RESOURCE_EN
            + r"(?=\s*(?:$|[,.;!]|\s+(?:this|today|for|until|right|now)\b))"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        rx(
            r"\b"
            + _RESOURCE_EN
            + r"(?:\s+(?:this\s+\w+|today|right\s+now|for\s+now|these\s+days))?\s+(?:goes|go|is\s+going|are\s+going|"
            r"is|are|will\s+go|gets\s+poured|'s\s+going)\s+(?:(?:mostly|mainly|entirely|all|only)\s+)?"
            r"(?:in(?:to)?|on|to|toward|towards)\s+(?P<v>.{2,80})"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    # (4)
    Pattern(
        rx(
            r"\b(?:I|we|the\s+(?:whole\s+)?team|my\s+team|our\s+team|everyone|everybody|all\s+of\s+us|we\s+all)"
            r"(?:'m|'re|\s+am|\s+are|\s+is|'ll\s+be|\s+will\s+be|'ve\s+been|\s+have\s+been|\s+has\s+been)?\s+"
            r"(?:(?:mostly|mainly|primarily|currently|really|fully|just|only|all|entirely|heavily|basically|totally|"
            r"completely|100%|firmly|squarely)\s+)*"
            r"(?:heads[- ]down\s+(?:on|with)|all\s+in\s+on|all\s+hands\s+on|knee[- ]deep\s+in|deep\s+in|buried\s+in|"
            r"locked\s+in\s+on|hyper[- ]?focused\s+on|laser[- ]focused\s+on|"
            r"focused\s+(?:solely\s+|entirely\s+|only\s+)?on|"
            r"on|grinding\s+(?:on|through|away\s+at)|hammering\s+(?:on|away\s+at)|plugging\s+away\s+at|"
            r"chipping\s+away\s+at|cranking\s+(?:on|through|out)|knocking\s+out|working\s+through|"
            r"pushing\s+(?:on|hard\s+on)|sprinting\s+on|buckling\s+down\s+on|fighting\s+fires\s+(?:in|on|with)|"
            r"firefighting\s+(?:in|on)|putting\s+out\s+fires\s+(?:in|on)|tied\s+up\s+(?:with|in)|"
            r"booked\s+(?:solid\s+)?with|consumed\s+(?:by|with)|(?:mostly|mainly|only|just)\s+(?:doing|working\s+on|on))"
            r"\s+(?P<v>.{2,80})"
        ),
        lambda m: _focus_value(m.group("v"), strict=True),
    ),
    Pattern(
        rx(
            r"\b(?:it'?s|it\s+is)\s+(?P<v>(?!all\b).{2,60}?)\s+(?:above|before|over|ahead\s+of)\s+(?:everything|anything|all)"
            r"(?:\s+else)?\b"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        rx(r"\b(?:it'?s|it\s+is)\s+all\s+(?:hands\s+on(?:\s+deck)?(?:\s+(?:for|on|with))?|about)\s+(?P<v>.{2,80})"),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        rx(
            r"\b(?:putting|put|placing)\s+(?P<v>.{2,60}?)\s+(?:first|ahead\s+of\s+(?:everything|anything)(?:\s+else)?|"
            r"above\s+(?:everything|all)(?:\s+else)?|at\s+the\s+top(?:\s+of\s+(?:the|my|our)\s+list)?)\b"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    # (5)
    Pattern(
        rx(
            r"\bnothing\s+(?:else\s+)?(?:matters|is\s+more\s+important|comes\s+before|takes\s+priority\s+over)"
            r"(?:\s+(?:to\s+me|for\s+me|for\s+us|this\s+\w+|today|right\s+now))*\s+(?:more\s+)?(?:than|except|but|over)\s+"
            r"(?P<v>.{2,80})"
        ),
        lambda m: _focus_value(m.group("v")),
        True,
    ),
    Pattern(
        rx(
            r"\b(?:the\s+only\s+thing|all|everything)\s+(?:I|we)(?:'m|'re|\s+am|\s+are)?\s+(?:really\s+)?(?:care\s+about|"
            r"caring\s+about|think(?:ing)?\s+about|work(?:ing)?\s+on|do(?:ing)?|focus(?:ed|ing)?\s+on)"
            r"(?:\s+(?:this\s+\w+|today|right\s+now|now))?\s+(?:is|are)\s+(?P<v>.{2,80})"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        rx(
            r"(?:^|[,;:]\s*)(?P<v>.{2,60}?)\s+first\s*[,;]\s*(?:everything|anything|all)\s+else\s+(?:can\s+wait|later|after|"
            r"comes\s+(?:later|second|after))|"
            r"(?:everything|anything|all)\s+else\s+(?:can|will|has\s+to|must)\s+wait\s*(?:until|till|for|[,;:—–-])\s*"
            r"(?:after\s+)?(?P<w>.{2,60}?)(?:\s+(?:comes|goes|is)\s+first|\s+is\s+done|$)"
        ),
        lambda m: _focus_value(m.group("v") or m.group("w")),
        True,
    ),
]

_PNOUN_ZH = r"""
    (?:重点|重心|焦点|首要任务|主要任务|核心任务|头号任务|任务|优先级|优先事项|第一优先级|最高优先级|要务|第一要务|
    头等大事|大事|重头戏|注意力|精力|心思|主线|中心|工作重点|当务之急|第一件事|头一件事|最重要的事情?|最要紧的事情?|
    最紧急的事情?|主攻方向|主攻|攻坚|关注点|着力点|侧重点|主要工作|首要工作|主要精力)
"""
_GENERAL_ZH = [
    # (1)
    Pattern(
        zh(
            r"(?:^|[，,：:])(?:[^，,。；;]{0,12}?的)?(?:我|我们|团队|咱们|我自己)?(?:的)?"
            + _PNOUN_ZH
            + r"(?:都|就|主要|全|还)?(?:是|为|在|放在|就是|：|:)\s*(?P<v>[^，,。；;]{2,40})"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    # (2)
    Pattern(
        zh(
            r"(?:^|[，,])(?:[^，,。；;]{0,8}?(?:我|我们|团队)(?:来说|而言)?[，,]?)?(?P<v>[^，,。；;]{2,30}?)(?:是|为|算是|才是|就是)"
            r"(?:我|我们|团队)?(?:[^，,。；;]{0,6}?)的?(?:唯一|首要|第一|头等|最大|最重要|最要紧|核心|主要)的?(?:重点|要务|大事|"
            r"优先级|优先事项|任务|事|事情|重心|焦点)"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        zh(
            r"(?:^|[，,])(?:[^，,。；;]{0,8}?(?:我|我们|团队)(?:来说|而言)[，,]?)?(?P<v>[^，,。；;]{2,30}?)(?:最)?(?:优先|排(?:在)?"
            r"(?:第一位?|首位|最前面?|最前头)|放(?:在)?(?:第一位|首位|最前面)|最重要|最要紧|最急|压倒一切|是第一位的|是头等大事|"
            r"是重中之重|优先(?:于|级最高)[^，,。；;]*|第一)(?:了|吧|啊)?(?=$|[，,。；;])"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    # (3)
    Pattern(
        zh(
            r"把(?:[^，,。；;]{0,6}?的)?(?:所有|全部|大部分|主要|大半|绝大部分)?(?:的)?(?:时间|精力|心思|注意力|心血|力气|资源|人力)"
            r"(?:都|全|全部|主要|基本)?(?:投入|投|花|放|砸|用|集中|押|扑)(?:到|在)?\s*(?P<v>[^，,。；;]{2,30}?)(?:上面|上|身上)?"
            r"(?:了|去)?$"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        zh(
            r"(?:所有|全部|大部分|主要|大半)?(?:的)?(?:时间|精力|心思|注意力|心血|力气)(?:都|全|全部|主要|基本)?(?:在|放在|花在|投在|"
            r"砸在|集中在|用在|给了|押在|扑在|留给)\s*(?P<v>[^，,。；;]{2,30}?)(?:上面|上|身上)?(?:了)?$"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        zh(
            r"(?:一整天|一天|整天|全天|整周|这一周|一周)(?:都|全)?(?:用来|拿来|花在|留给|给了)\s*(?P<v>[^，,。；;]{2,30})"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    # (4)
    Pattern(
        zh(
            r"(?:我|我们|团队|全员|大家|全组|整个团队)?(?:都|全|也)?(?:在)?(?:埋头|死磕|猛攻|主攻|专攻|一心|一门心思|全心全意|"
            r"全身心|扎进|钻进|泡在|扑在|闷头|集中火力|全力以赴|火力全开|all\s*in)(?:地)?\s*(?:在)?(?:搞|做|弄|写|准备|备考|攻|"
            r"推进|处理|冲|赶|忙)?\s*(?P<v>[^，,。；;]{2,30})"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        zh(
            r"(?:全员|大家|全组|整个团队|团队|我们)(?:都|全)(?:在)?(?:搞|做|弄|忙|处理|推进|冲|赶)\s*(?P<v>[^，,。；;]{2,30})"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    # (5)
    Pattern(
        zh(
            r"只(?:要|需要|想)?把\s*(?P<v>[^，,。；;]{2,30}?)\s*(?:做完|搞定|弄完|完成|写完|发出去|处理完|清掉|修好)(?:就(?:行|好|可以))?"
        ),
        lambda m: _focus_value(m.group("v")),
    ),
    Pattern(
        zh(r"没有(?:什么|啥|任何事)?(?:事情?)?比\s*(?P<v>[^，,。；;]{2,30}?)\s*更(?:重要|要紧|优先|急)"),
        lambda m: _focus_value(m.group("v")),
        True,
    ),
    Pattern(
        zh(
            r"^(?:[^，,。；;]{0,6}?)(?P<v>[^，,。；;]{2,30}?)(?:优先|先做|先来|第一)[，,]\s*(?:其他|其它|别的|剩下)的?(?:事情?)?"
            r"(?:都)?(?:先)?(?:不管|往后放|放一放|往后排|靠边|先放|后面再说|以后再说|再说)"
        ),
        lambda m: _focus_value(m.group("v")),
        True,
    ),
    Pattern(
        zh(
            r"(?:其他|其它|别的|剩下)的?(?:事情?|都)?(?:都)?(?:先)?(?:放一放|往后放|往后排|靠边|先放|放下|不管)[了吧]?[，,]\s*"
            r"(?:先|只|就)?(?:把)?(?P<v>[^，,。；;]{2,30})"
        ),
        lambda m: _focus_value(m.group("v")),
        True,
    ),
]
# shapes that say "first" by themselves, without a time window ("X takes priority over everything")
_GENERAL_NEEDS_NO_TIME = rx(
    r"""
    \bpriorit(?:y|ies)\b|\bfocus\b|\bcomes?\s+first\b|\btakes?\s+precedence\b|\bjob\s+(?:one|\#?1)\b|
    \btop\s+of\s+(?:my|our|the)\s+(?:list|agenda)\b|\bnothing\s+(?:else\s+)?matters\b|\bheads[- ]down\b|
    \ball\s+hands\b|\b(?:energy|attention|bandwidth|effort)\b|\bahead\s+of\s+everything\b|\bcan\s+wait\b|
    重点|重心|焦点|优先|首要|要务|头等|重头戏|当务之急|精力|注意力|心思|排第一|第一位|首位|埋头|死磕|一心|全力|更重要|放一放|往后放
    """
)


_VALUE_JUNK = rx(
    r"^(?:it|this|that|them|these|those|things|stuff|everything|anything|something|nothing|what|which|me|us|you|"
    r"here|there|now|today|a\s+(?:lot|bit|mess)|fine|ok|okay|good|bad|great|terrible|same|wrong)\b|"
    r"^(?:什么|啥|这个|那个|哪个|怎么|这些|那些|一切)"
)


def _focus_value(raw: str | None, strict: bool = False) -> str | None:
    """What comes first, from a shape above: not a pronoun or a judgement, not a question."""
    if not raw:
        return None
    v = clean(raw)
    v = re.sub(r"(?i)^(?:to\s+|on\s+|is\s+|the\s+thing\s+is\s+)", "", v).strip()
    v = re.sub(r"^(?:的是|是|在|把|就是)", "", v)
    if not v or _VALUE_JUNK.match(v) or _NOT_A_FOCUS.fullmatch(v) or re.search(r"[?？吗]$", v):
        return None
    if strict and re.match(
        r"(?i)(?:the\s+)?(?:phone|way|bus|train|plane|call|line|board|road|track|vacation|holiday|leave|break|site|"
        r"premises|hold|fire|drugs|meds|medication|my\s+way|a\s+(?:call|trip|break|walk|date))\b",
        v,
    ):
        return None  # "I'm on the phone", "we're on vacation": not a focus
    return v


_NOT_A_FOCUS = rx(
    r"""
    (?:(?:really|pretty|so|very|quite|a\ bit|kind\ of|totally|completely)\s+)?(?:terrible|awful|bad|good|great|poor|
    low|high|
    shot|gone|off|weak|strong|better|worse|fine|ok|okay|scattered|all\ over\ the\ place|nonexistent|lacking|elsewhere)
    """
)
_FOR_ME = rx(r"\s+(?:for\s+(?:me|us)|on\s+my\s+(?:plate|list)|right\s+now|for\s+now)\s*$")
# "I'm focusing on X" (the user's own current state) is a priority without a time marker
_OWN_FOCUS = rx(
    r"""
    \b(?:I|we|the\ team|my\ team|our\ team)(?:'m|'re|\s+am|\s+are|\s+is)\s+"""
    + _ADV_EN
    + r"""
    (?:focus(?:ed|ing)\s+on|concentrat(?:ed|ing)\s+on|prioriti[sz]ing)\b
    """
)


# --- cue fallback: a time window, the user, and wording that says "this comes first" ------------------
_FOCUS_CUE_EN = rx(
    r"""
    \b(?:matters?\s+(?:most|more)|most\s+important|top\s+of\s+(?:my|our|the)\s+(?:list|agenda)|ahead\s+of\s+everything|
    before\s+anything\s+else|number\s+one\s+(?:thing|task|item)|the\s+one\s+thing|main(?:ly)?|mostly|primarily|
    heads[- ]down|tied\s+up|doubl\w+\s+down|zero\w*\s+in|concentrat\w+|dedicat\w+|devot\w+|crunch\w*|
    get\s+through|wrap(?:ping)?\s+up|just\s+want\s+to|only\s+(?:want|need)\s+to|need\s+to\s+get|got\s+to\s+get|
    (?:is|are|'s|'re|'m|am)\s+(?:all\s+)?about|reserved\s+for|set\s+aside\s+for|blocked\s+(?:off|out)\s+for|
    exclusively|nothing\s+but|secondary|can\s+wait|(?:all|most)\s+(?:of\s+)?my\s+(?:attention|time|energy)|
    going\s+to\s+be|gonna\s+be|mostly\s+going|on\s+my\s+plate|the\s+big\s+one|key\s+thing|
    big\s+(?:focus|thing|push)|focus|priority|(?:comes?|goes|is|are)\s+first|first\s+(?:thing|priority|order)|
    \w+\s+first(?=\s*(?:[,;.!]|$)))\b
    """
)
_PAST_EN = rx(
    r"\b(?:was|were|had|did|went|ran|ate|saw|got\s+back|yesterday|last\s+(?:week|night|month))\b|"
    r"\b(?:I|we)\s+(?:(?:mainly|mostly|just|only|really|also|finally)\s+)?(?!(?:need|feed|speed|proceed|succeed|exceed|"
    r"heed|seed|embed)\b)\w+ed\b"
)
_VALUE_SPOTS_EN = [
    rx(
        r"^(.{2,60}?)\s+(?:is|are)\s+(?:what\s+matters|top\s+of|the\s+number\s+one|the\s+one\s+thing|my\s+|our\s+|"
        r"the\s+main)"
    ),
    rx(r"\bnothing\s+matters\s+more\s+than\s+(.{2,60})"),
    rx(r"\bputting\s+(.{2,60}?)\s+ahead\s+of\s+everything"),
    rx(r"\bget\s+(.{2,60}?)\s+done\b"),
    rx(r"\b(?:on|with|through|into|up\s+with|down\s+on|in\s+on)\s+(.{2,60})"),
    rx(r"\b(?:just|only)\s+(?:want|need)\s+to\s+(.{2,60})"),
]
_FOCUS_CUE_ZH = zh(
    r"重点|优先|首要|最要紧|最重要|主要|全力|专心|集中|精力|心思|盯着|一件事|投在|放在|跑|忙|搞定|只|专门|留给|用来|占了|主攻|一心|"
    r"次要|往后放|先(?:做|搞|把|弄|忙)|全员|都在|投入|就是(?=[^，,。]{2,})|第一(?:位|优先|要务|件事|重要)"
)
_PAST_ZH = zh(r"昨天|上周|上个月|刚才|之前|以前|去年")
_VALUE_SPOTS_ZH = [
    zh(r"(?:首要任务|主要任务|任务|重点)[：:]\s*([^，,。；;]{2,30})"),
    zh(r"(?:投在|放在|花在|用在)\s*([^，,。；;]{2,30}?)(?:上面|上|身上)?$"),
    zh(r"盯着\s*([^，,。；;]{2,30}?)(?:这一?件事|这事)?$"),
    zh(
        r"(?:主要|只|全力|专心|优先|先|就)(?:在)?\s*((?:跑|做|弄|搞|忙|回复|回|处理|写|改|修|盯|推|跟|准备)[^，,。"
        r"；;]{1,30})"
    ),
]


# the rest of a clause, once the subject, the auxiliaries and the cue words are gone, is what comes first
_STRIP_ZH = zh(
    r"""
    ^(?:说实话|老实说|其实|反正|总之|基本上|我觉得|感觉|计划|安排|打算|我们?|团队|全员|大家|咱们|全组|我自己|自己|手上|手头|的|
    都|也|就|还|会|要|得|必须|需要|在|正在|一直|主要|重点|优先|只|专门|全力|一心|专心|集中精力|集中|最主要的?|最重要的?|
    是|就是|大部分时间|所有时间|全部时间|一整天|一上午|一下午|一晚上|整天|留给|用来|拿来|先|去|地|来|
    剩下的时间|的时间|时间|精力)+
    """
)
_STRIP_EN = rx(
    r"""
    ^(?:(?:honestly|basically|frankly|really|so|and|but|well|ok|okay|anyway|for\s+me|it'?s|it\s+is|
    (?:I|we|the\s+(?:whole\s+)?team|my\s+team|our\s+team|everyone)(?:'m|'re|'ll|\s+am|\s+are|\s+is|\s+will)?|
    (?:is|are|'s|'re|'m|am)\s+(?:all\s+)?about|about|reserved\s+for|set\s+aside\s+for|blocked\s+(?:off|out)\s+for|
    (?:really\s+)?(?:need|have|want|got)\s+to|must|gotta|going\s+to\s+be|gonna\s+be|going\s+to|gonna|
    mostly|mainly|primarily|only|just|exclusively|all|nothing\s+but|be|first|focus(?:ed|ing)?\s+on|
    working\s+on|doing)\s*,?\s*)+
    """
)
_NOT_A_TASK = rx(
    r"""
    ^(?:free|busy|available|off|away|out|around|at\b|in\b|home|sick|tired|fine|good|ok|okay|here|there|back|
    on\s+(?:vacation|leave|holiday|call|the\s+phone)|traveling|travelling|visiting|staying|hanging|chilling|relaxing|
    sleeping|resting|relax(?:ing)?|rest\b|chill(?:ing)?|sleep\b|nothing|休假|在家|出差|生病|有空|没空|放假|请假|放松|休息|躺平|睡觉|
    玩|摸鱼|发呆|(?:太|很|好|真|超|特别|非常|有点|比较|挺)(?:忙|累|闲|多|少|难|烦))
    """
)


def _residue(clause: str, zh_text: bool) -> str | None:
    v = clause.strip(" ,，;；:：")
    for _ in range(3):
        before = v
        v = (_STRIP_ZH if zh_text else _STRIP_EN).sub("", v).strip(" ,，;；:：")
        v = clean(v)
        if v == before:
            break
    if zh_text:
        v = re.sub(r"(?:上面|上|这一?件事|这事|再说)$", "", v)
    if len(v) < 2 or _NOT_A_TASK.match(v) or _VALUE_JUNK.match(v):
        return None
    return v


def _cue_clause(text: str, cue: re.Pattern[str]) -> str | None:
    """The clause that carries the cue (or, for "everything else can wait", the other one)."""
    clauses = [c for c in re.split(r"\s*[,，;；:：]\s*|\s+[—–-]\s+", text) if c.strip()]
    for i, c in enumerate(clauses):
        if cue.search(c):
            if re.search(r"(?i)secondary|can\s+wait|次要|往后放|先放|不管", c) and len(clauses) > 1:
                return clauses[i - 1] if i else clauses[i + 1]
            return c
    return None


# the residue is read only next to a cue that says "first / mainly / only" (not "跑", "忙", which
# narrate as often as they prioritise), and not from a clause that reports something done ("跑了个步")
_RESIDUE_CUE_ZH = zh(
    r"重点|优先|首要|最要紧|最重要|主要|全力|专心|集中精力|一心|专门|留给|用来|占了|主攻|次要|往后放|先(?:做|搞|把|弄|忙)|全员|"
    r"都在|投入|第一(?:位|优先|要务|件事|重要)|只(?:做|搞|弄|忙|干|管|盯|修|写|准备)|就是(?=[^，,。]{2,})"
)
_DONE_ZH = zh(r"[\u4e00-\u9fff]了(?:个|一|这|那|[\u4e00-\u9fff]{1,2}[，,。]|$)|看到|听说|遇到|碰到|发现")


def _priority_cue(text: str) -> str | None:
    if re.search(r"[\u4e00-\u9fff]", text):
        if not _FOCUS_CUE_ZH.search(text) or _PAST_ZH.search(text):
            return None
        for spot in _VALUE_SPOTS_ZH:
            m = spot.search(text)
            if m:
                return clean(re.sub(r"(?:这一?件事|这事|再说|这块)$", "", clean(m.group(1))))
        clause = _cue_clause(text, _RESIDUE_CUE_ZH)
        return _residue(clause, True) if clause and not _DONE_ZH.search(clause) else None
    text = text.strip(" ,;:")
    if not _FOCUS_CUE_EN.search(text) or _PAST_EN.search(text):
        return None
    for spot in _VALUE_SPOTS_EN:
        m = spot.search(text)
        if m:
            v = clean(
                re.sub(r"(?i)^(?:for\s+this\s+sprint|for\s+now|right\s+now)\s*,?\s*", "", m.group(1)).lstrip(" ,")
            )
            if v and not re.match(r"(?i)(?:it|this|that|me|us|them|everything|anything)\b", v):
                return v
    clause = _cue_clause(text, _FOCUS_CUE_EN)
    return _residue(clause, False) if clause else None


# what the family cannot fire without (the prefilter's look): a time marker, or one of the words
# `priority_hits` checks for before anything else when there is none; and a value read by one of
# the patterns or, next to a time marker, by the cue (in the sentence with the marker blanked out)
PRIORITY_REQUIRES = rewritten(
    one_of(_TM_EN, _TM_ZH, _PRIORITY_WORD, _OWN_FOCUS, _GENERAL_NEEDS_NO_TIME)
    & one_of(*matched_by(_PRIORITY_EN + _PRIORITY_ZH + _GENERAL_EN + _GENERAL_ZH), _FOCUS_CUE_EN, _FOCUS_CUE_ZH)
)


# the words of the sentence are looked for only where the prefilter finds them (`prefilter.search`, `test`)
prefilter.indexed(_REQUEST)
tables(_PRIORITY_EN, _PRIORITY_ZH, _GENERAL_EN, _GENERAL_ZH)
prefilter.tested(_GOAL_NOUN, _SHORT_WINDOW, _PAST_ONLY, _PRIORITY_WORD, _OWN_FOCUS, _GENERAL_NEEDS_NO_TIME)


def priority_hits(text: str, at: datetime) -> list[Hit]:
    tm = prefilter.search(_TM_EN, text) or prefilter.search(_TM_ZH, text)
    if prefilter.may_match(_REQUEST, text) and _REQUEST.match(text):
        return []  # "帮我写封邮件，今天…", "help me plan today": a request to the assistant
    if prefilter.test(_GOAL_NOUN, text) and not prefilter.test(_SHORT_WINDOW, text):
        return []  # "今年我的主要目标是…", "my goal this year is …": a goal, not a time-boxed focus
    if (
        not tm
        and not prefilter.test(_PRIORITY_WORD, text)
        and not prefilter.test(_OWN_FOCUS, text)
        and not prefilter.test(_GENERAL_NEEDS_NO_TIME, text)
    ):
        return []
    if prefilter.test(_PAST_ONLY, text) and not (tm and _NOW_WINDOW.search(tm.group(0))):
        return []  # "I focused on the wrong thing yesterday": narration, not a current focus
    # the value must not carry the time marker: match on the text with the marker blanked out
    body = text if not tm else (text[: tm.start()] + " " * (tm.end() - tm.start()) + text[tm.end() :])
    body = body.strip()
    found = scan(_PRIORITY_EN, body) or scan(_PRIORITY_ZH, body)
    if not found and (tm or _GENERAL_NEEDS_NO_TIME.search(body)):
        found = scan(_GENERAL_EN, body) or scan(_GENERAL_ZH, body)
    if not found and tm:
        cue = _priority_cue(body)
        found = (cue, re.match(r".*", body)) if cue else None  # type: ignore[assignment]
    if not found:
        return []
    value = re.sub(r"^(?:把|一下|下|在)", "", clean(found[0]).lstrip(" ,，;；:："))
    value = re.sub(r"^.*[,，]\s*(?=\S)", "", value) if re.search(r"(?i)can\s+wait|先不管|放一放|先放", value) else value
    value = clean(re.sub(r"(?:这一?件事|这事|再说)$", "", value))
    value = clean(_FOR_ME.sub("", re.sub(r"\s+first$", "", value, flags=re.I)))
    if _NOT_A_FOCUS.fullmatch(value):
        return []  # "my focus is terrible today"
    value = re.sub(r"(?:身上|上面|上)$", "", value) if re.search(r"在", found[1].group(0)) else value
    if not value or re.fullmatch(
        r"(?:it|this|that|things|stuff|attention|energy|time|focus|什么|啥|这个|那个|注意力|精力|心思|时间|力气)",
        value,
        re.I,
    ):
        return []
    if re.search(
        r"(?i)\b(?:takeaways?|conclusions?|bottom\s+line|answers?|summary|examples?|theory)\s+(?:should|must|needs"
        r"?\s+to)\b",
        value,
    ):
        return []  # "the key takeaway should come first": an answer order, not a focus
    if re.match(
        r"(?i)(?:these|those|the\s+following|this\s+list|them|my\s+(?:tasks|list|to-?dos?))\b|这几个|下面|以下", value
    ):
        return []  # "prioritize these tasks for me: …": a request to sort, not a focus
    vf, vu = _window(tm.group(1), at) if tm else (None, None)
    return [Hit("priority", Kind.PRIORITY, "priority.focus", value, confidence=0.85, valid_from=vf, valid_until=vu)]

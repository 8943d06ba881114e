"""Time-boxed priorities: `priority.focus`, valid from the turn's time until the end of the period it
names (this week, today, this month, this quarter, next week, tomorrow); "for now", "these days",
"this sprint", "until the deadline" take the registry's default lifetime."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..models import Kind
from .family import Hit
from .text import Pattern, captured, clean, day_end, month_end, rx, scan, week_end, zh

_TM_EN = rx(
    r"""
    \b(this\ week|today(?!'s)|tonight|this\ month|this\ quarter|(?:for\ )?the\ (?:rest\ of\ the\ )?quarter|
    next\ week|tomorrow|for\ now|right\ now|for\ the\ time\ being|at\ the\ moment|currently|these\ days|
    lately|this\ sprint|(?:for\ )?the\ (?:rest\ of\ the\ )?sprint|this\ iteration|this\ cycle|
    for\ the\ rest\ of\ the\ (?:week|day|month)|this\ weekend|for\ this\ sprint|
    (?:for|over)\ the\ next\ (?:few|couple\ of|two|three|\d+)\ (?:days|weeks|months)|these\ next\ (?:few\ )?(?:days|
    weeks)|
    until\ (?:the\ )?(?:deadline|release|launch|demo|end\ of\ the\ (?:week|month|quarter|sprint)|
    (?:next\ )?(?:monday|tuesday|wednesday|thursday|friday)|[\w-]+\ ships)|
    before\ the\ (?:release|launch|deadline|demo|review|audit|conference|holidays?))\b
    """
)
_TM_ZH = zh(
    r"""
    (这周|本周|这个星期|这星期|本星期|这礼拜|这个礼拜|今天|今日|今晚|本月|这个月|下周|下个星期|
    下礼拜|明天|目前|眼下|当前|现阶段|暂时|这几天|这两天|这两周|这几周|近几天|最近|这阵子|这段时间|这段日子|近期|
    接下来(?:的)?(?:[一两三四五六七八九十\d]+(?:周|天|个月|个星期|礼拜))?|这个?迭代|本迭代|这个?冲刺|
    这个?(?i:sprint)|这季度|本季度|这个季度|这个礼拜|近期|这段时间|发版前|上线前|发布前|月底前|年底前|截止前|周末前)
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
    Pattern(zh(r"(?:专注|聚焦|集中)(?:于|在)?\s*([^，,。；;]{1,40})"), captured(1, clean)),
    Pattern(zh(r"(?:先|优先)\s*把\s*([^，,。；;]{1,40})"), captured(1, clean)),
    Pattern(zh(r"(?:处理|推进|解决|搞定|主攻|跟进)\s*(?!了|过)([^，,。；;]{1,40})"), captured(1, clean)),
]
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
    get\s+through|wrap(?:ping)?\s+up|just\s+want\s+to|only\s+(?:want|need)\s+to|need\s+to\s+get|got\s+to\s+get)\b
    """
)
_PAST_EN = rx(
    r"\b(?:was|were|had|did|went|ran|ate|saw|got\s+back|yesterday|last\s+(?:week|night|month))\b|"
    r"\b(?:I|we)\s+(?:(?:mainly|mostly|just|only|really|also|finally)\s+)?\w+ed\b"
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
_FOCUS_CUE_ZH = zh(r"重点|优先|首要|最要紧|最重要|主要|全力|专心|集中|精力|心思|盯着|一件事|投在|放在|跑|忙|搞定|只")
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


def _priority_cue(text: str) -> str | None:
    if re.search(r"[\u4e00-\u9fff]", text):
        if not _FOCUS_CUE_ZH.search(text) or _PAST_ZH.search(text):
            return None
        for spot in _VALUE_SPOTS_ZH:
            m = spot.search(text)
            if m:
                return clean(re.sub(r"(?:这一?件事|这事|再说|这块)$", "", clean(m.group(1))))
        return None
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
    return None


def priority_hits(text: str, at: datetime) -> list[Hit]:
    tm = _TM_EN.search(text) or _TM_ZH.search(text)
    if not tm and not _PRIORITY_WORD.search(text) and not _OWN_FOCUS.search(text):
        return []
    # the value must not carry the time marker: match on the text with the marker blanked out
    body = text if not tm else (text[: tm.start()] + " " * (tm.end() - tm.start()) + text[tm.end() :])
    body = body.strip()
    found = scan(_PRIORITY_EN, body) or scan(_PRIORITY_ZH, body)
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
    if not value or re.fullmatch(r"(?:it|this|that|things|stuff|什么|啥|这个|那个)", value, re.I):
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

"""Project decisions: `knowledge.decision.<topic slug>` when the sentence names a topic, else
`knowledge.decision`; project knowledge, so project-scoped whenever the turn has a project."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..models import Kind
from .family import Family, Hit
from .markers import PROJECT
from .text import _NEG_EN, _NEG_ZH, Pattern, clean, rx, slugify, zh

_LABEL_EN = rx(r"^(?:the\s+|our\s+)?(.+?)\s+([A-Z]|\d+|v\d+(?:\.\d+)*)$")
_LABEL_ZH = zh(r"^(.+?)\s*((?<![A-Za-z])[A-Za-z]|\d+|v\d+(?:\.\d+)*)$")
_GENERIC_TOPIC = zh(
    r"""
    ^(?:我们|团队|大家|项目|最后|最终|已经|就|我|还是|也|都|这个|那个|这边|现在|目前|今天|平时|一般|之前|刚刚|刚才|继续|
    其实|终于|总算)+|(?:我们|团队|大家|我|最后|最终|已经|就|还是|也|都|这边|现在|目前|终于|总算)+$
    """
)
# "Go写", "Hugo搭", "Terraform管": the tool, not the verb after it
_ZH_TRAILING_VERB = zh(r"(?<=[A-Za-z0-9])\s*(?:来)?(?:写|做|搭|管|开发|实现|部署|搭建|搞|跑|弄)$")
_EN_ASIDE = rx(
    r"""
    \s*[,;—–-]\s*(?:that'?s|it'?s|this\ is)\s+(?:settled|decided|final|official|done|locked\ in)\b.*$|
    \s*[,;—–-]\s*(?:final(?:ly)?|done|settled|decided)\s*$|\s+(?:last\ (?:week|month)|yesterday|today)\s*$
    """
)
# the topic said inside the value: "移动端用Flutter", "React做前端"
_ZH_INNER = zh(r"^(?P<t>[\u4e00-\u9fffA-Za-z]{2,8}?)(?:就|也|都)?(?:用|采用|选|选用|上)(?P<v>.+)$")
_ZH_INNER_DO = zh(r"^(?P<v>[A-Za-z0-9][\w .+#\-]*?)\s*(?:来)?(?:做|写|搭|搞)(?P<t>[\u4e00-\u9fff]{2,6})$")


# "我决定先睡一会儿": a personal next step, not project knowledge
_ZH_NOT_A_DECISION = zh(
    r"^(?:先|马上|立刻|现在就|今晚|今天|去睡|睡|吃|回家|休息|不去|去吃|出去|很|太|真|挺|非常|有点|好难|难|不容易|是"
    r"什么|怎么|对不对|好不好)"
)
# everyday choices are not project decisions ("we chose pizza for dinner")
_LEISURE = zh(
    r"""
    (?i:\b(?:dinner|lunch|breakfast|brunch|a\ walk|a\ nap|(?:a|the)\ movie|film|restaurant|pizza|takeout|vacation|
    holiday|
    drinks|coffee|the\ beach|a\ drive)\b)|晚饭|午饭|早饭|晚餐|午餐|早餐|夜宵|吃饭|电影|餐厅|散步|火锅|外卖|奶茶|咖啡
    """
)


def _decision(value: str, topic: str | None) -> tuple[str, str] | None:
    v = clean(PROJECT.sub("", value))
    v = clean(_EN_ASIDE.sub("", v))
    if not v or _LEISURE.search(v) or (topic and _LEISURE.search(topic)):
        return None
    t = clean(topic) if topic else ""
    t = _GENERIC_TOPIC.sub("", t) if t else ""
    t = re.sub(r"^(?:the|our|this)\s+", "", t, flags=re.I)
    if not t and not v.isascii():
        inner = _ZH_INNER.match(v) or _ZH_INNER_DO.match(v)
        if inner and not _GENERIC_TOPIC.fullmatch(inner.group("t")):
            t, v = inner.group("t"), clean(inner.group("v"))
        elif inner:  # "继续用MySQL": no topic, the tool is the value
            v = clean(inner.group("v"))
    v = clean(_ZH_TRAILING_VERB.sub("", v))
    if not v or _ZH_NOT_A_DECISION.match(v) or re.search(r"目标|梦想|心愿", v):
        return None
    if not t:
        m = (_LABEL_EN if re.match(r"[A-Za-z]", v) else _LABEL_ZH).match(v)
        if m and len(m.group(1).strip()) >= 2 and (v.isascii() or not m.group(1).isascii()):
            t = m.group(1)
    slug = slugify(t) if t else ""
    return (f"knowledge.decision.{slug}" if slug else "knowledge.decision"), v


def decision_attribute(value: str | None, topic: str | None) -> str:
    """The attribute a decision with this value / topic would land in (retractions name it)."""
    found = _decision(value or topic or "", topic)
    return found[0] if found else "knowledge.decision"


_NOT_A_CHOICE_EN = rx(
    r"""
    ^(?:it|that|this|them|him|her|us|me|you|one|something|anything|nothing|some|friends?|family|the\ flow|
    (?:the|a|our|my)\s+\w+'s\s+(?:recommendation|suggestion|advice|idea|choice|pick)|
    the\ crowd|the\ kids|my\ (?:friends?|family|gut|heart|wife|husband|partner))\b
    """
)
# verbs that say a choice only when the value names something ("JWT", "Tailwind", "Python 3.11")
_WEAK_EN = rx(
    r"(?:\bbe\s+using|\bwill\s+use|\bgoing\s+to\s+use|'ll\s+use|\bforward\s+with|\bproceed(?:ing)?\s+with|\bahead\s"
    r"+with)\s+$"
)


def _decision_en(m: re.Match[str]) -> tuple[str, str] | None:
    value, topic = _EN_ASIDE.sub("", m.group("v")), m.groupdict().get("t")
    if _NOT_A_CHOICE_EN.match(value.strip()):
        return None
    weak = bool(_WEAK_EN.search(m.string[: m.start("v")]))
    split = re.match(r"^(.*?)\s+(?:for|as)\s+(?:the\s+|our\s+|this\s+)?(.+)$", value, re.I)
    if (
        split
        and not PROJECT.fullmatch(" ".join(split.group(0).split()[-3:]))
        and not re.fullmatch(r"(?:this\s+)?(?:project|repo|now|the\ project|good|real|sure)", split.group(2), re.I)
    ):
        value, topic = split.group(1), topic or re.split(r"[,;]", split.group(2))[0]
    if weak and not topic and not re.search(r"(?-i:\b[A-Z][\w.+#-]*)", value):
        return None  # "we'll be using the conference room at 3"
    return _decision(value, topic)


_MEETING = zh(r"^(?:会上|开会|讨论后|讨论|最后|最终|大家|我们|团队|老板|领导)+$")


def _decision_zh_topic(m: re.Match[str]) -> tuple[str, str] | None:
    """A loose verb ("选了", "定了", "就用") counts only after a real topic ("数据库最后选了 Postgres")."""
    topic = _GENERIC_TOPIC.sub("", clean(m.group("t")))
    if len(topic) < 2 or re.search(r"[我你他她它]|自己|^把|^将|^(?:以后|今后|之后|现在|目前|今天|明天|这次)$", topic):
        return None
    return _decision(m.group("v"), topic)


_WE = r"(?:we|the\ team|our\ team|my\ team|the\ company|our\ company|everyone|we\ all)"
_HAVE = r"(?:'ve|'ll|'re|'d|\s+have|\s+will|\s+are|\s+had|\s+would|\s+is|\s+has)?"
_ADV = r"(?:(?:finally|eventually|just|already|officially|now|all|ultimately|collectively|basically|pretty\ much)\s+)*"
_DECIDE_EN = r"""
    (?:chose|chosen|choose|picked(?!\s+up)|selected|gone\s+with|decided\s+(?:on|to\s+go\s+with|to\s+use|to\s+adopt|
    to\s+stick\s+with|
    to\s+switch\s+to|to\s+move\s+to)|settled\s+on|went\s+with|went\s+for|(?:are\s+|'re\s+)?going\s+with|
    will\s+go\s+with|go\s+with|ended\s+up\s+(?:picking|choosing|going\s+with|using|with|selecting)|
    agreed\s+(?:on|to\s+use|to\s+go\s+with|to\s+adopt)|opted\s+for|adopted|(?:are\s+)?going\s+to\s+use|
    will\s+use|(?<=ll\ )use|(?:are\s+|'re\s+)?going\s+to\s+go\s+with|(?:will\s+)?be\s+using|locked\s+in|finali[sz]ed|
    committed\s+to|standardi[sz]ed\s+on|
    (?:are\s+)?sticking\s+with|mov(?:e|ing)\s+forward\s+with|mov(?:e|ing)\s+ahead\s+with|proceed(?:ing)?\s+with|
    go(?:ing)?\s+ahead\s+with|
    standardi[sz]ing\s+on|switch(?:ed|ing)\s+(?:over\s+)?to|migrat(?:ed|ing)\s+to|stick\s+with|stay(?:ing)?\s+with|
    landed\s+on|signed\s+off\s+on|
    voted\s+for|greenlit|approved)
"""
_DECISIONS = [
    Pattern(
        rx(
            r"^for\s+(?:the\s+|our\s+)?(?P<t>[^,]{2,40}),\s*"
            + _WE
            + _HAVE
            + r"\s+"
            + _ADV
            + _DECIDE_EN
            + r"\s+(?P<v>.{1,60})"
        ),
        _decision_en,
    ),
    Pattern(rx(r"\b" + _WE + _HAVE + r"\s+" + _ADV + _DECIDE_EN + r"\s+(?P<v>.{1,80})"), _decision_en),
    # "we decided against microservices and went with a monolith"
    Pattern(
        rx(r"\b" + _WE + r"\b.{0,60}?\band\s+(?:then\s+|so\s+)?" + _ADV + _DECIDE_EN + r"\s+(?P<v>.{1,80})"),
        _decision_en,
    ),
    Pattern(
        rx(
            r"\b"
            + _WE
            + r"(?:'ve|\s+have|\s+has)?\s+"
            + _ADV
            + r"(?:decided|agreed)\s+(?:to\s+|that\s+)(?!(?:the|our)\s+\w+(?:\s+\w+)?\s+(?:will|is|should)\b)(?P<v>."
            r"{2,80})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "we agreed the pricing will be $12 a month"
    Pattern(
        rx(
            r"\b"
            + _WE
            + r"(?:'ve|\s+have|\s+has)?\s+"
            + _ADV
            + r"""(?:decided|agreed|settled)\s+(?:that\s+)?(?:the\s+|our\s+)(?P<t>\w+(?:\s+\w+)?)\s+
            (?:will\s+be|is|should\s+be|would\s+be|is\s+going\s+to\s+be)\s+(?P<v>.{1,60})"""
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    # "I decided we'll write the backend in Go"
    Pattern(
        rx(
            r"\bI(?:'ve|\s+have)?\s+"
            + _ADV
            + r"decided\s+(?:that\s+)?(?:we|the\ team)(?:'ll|\s+will|'re\s+going\s+to|\s+should)\s+(?P<v>.{2,80})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "Postgres it is", "Option B won the vote", "The redesign has been approved"
    Pattern(
        rx(
            r"^(?:ok(?:ay)?,?\s+|so\s+|then\s+|alright,?\s+)?(?P<v>(?!(?:it|that|this|so|what|which|there)\b)[\w.+"
            r"#\- ]{1,40}?)\s+it\s+is$"
        ),
        lambda m: None if re.search(r"(?i)\b(?:is|was|are|it|what)\b", m.group("v")) else _decision(m.group("v"), None),
    ),
    Pattern(
        rx(r"^(?P<v>.{1,40}?)\s+won\s+(?:the\s+)?(?:vote|poll|debate|bake-?off|comparison|shoot-?out|evaluation)\b"),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        rx(
            r"^(?P<v>(?:the|our)\s+.{1,50}?)\s+(?:has|have)\s+(?:now\s+|finally\s+|officially\s+)?been\s+(?:approv"
            r"ed|chosen|selected|picked|greenlit|green-lit|signed\s+off|finali[sz]ed|locked\s+in)\b"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        rx(
            r"\b(?:management|leadership|the\s+board|the\s+client|the\s+exec(?:utive)?s?|the\s+CTO|the\s+CEO|my\s+"
            r"boss|my\s+manager|our\s+lead)\s+(?:has\s+|have\s+)?(?:signed\s+off\s+on|approved|chose|picked|decide"
            r"d\s+on|went\s+with|greenlit)\s+(?P<v>.{1,60})"
        ),
        _decision_en,
    ),
    Pattern(
        zh(r"(?:投票|讨论|会议|评审|最终|最后的?)(?:结果|结论)(?:是|为)\s*(?:用|选|采用)?\s*(?P<v>[^，,。]{1,30})"),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        zh(
            r"(?:讨论|开会|评审|商量)(?:完了?|后|过后|下来)[，,]?\s*(?:结论|结果|决定)(?:是|为)\s*(?P<v>[^，,。]{1,30})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "这次我们就按方案二来"
    Pattern(
        zh(
            r"(?:我们|团队|大家)(?:这次|最后|最终|还是)?(?:就|决定)?按(?:照)?\s*(?P<v>[^，,。]{1,20}?)\s*(?:来|走|"
            r"执行|办)(?:吧|了)?$"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        zh(
            r"(?:老板|领导|上面|公司|甲方|客户|经理|总监|大家)(?:已经)?(?:批了|同意了|拍板了|定了|决定了|点头了|通"
            r"过了)[，,：:]\s*(?P<v>[^。]{2,30})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "we're dropping the mobile app for now": a decision to stop something
    Pattern(
        rx(
            r"\b"
            + _WE
            + _HAVE
            + r"\s+"
            + _ADV
            + r"(?P<verb>dropping|dropped|cutting|cut|killing|killed|sunsetting|sunset|deprecating|deprecated|discon"
            r"tinuing|"
            r"discontinued|postponing|postponed|delaying|delayed|pausing|paused|shelving|shelved)\s+(?P<v>.{2,60})"
        ),
        lambda m: _decision(_STOP_VERBS.get(m.group("verb").casefold(), m.group("verb")) + " " + m.group("v"), None),
    ),
    # "Final answer on the database: Postgres"
    Pattern(
        rx(
            r"\bfinal\s+(?:answer|decision|call|word|choice|pick)\s+(?:on|for|about|regarding)\s+(?:the\s+|our\s+)"
            r"?(?P<t>[^:—–]{2,40}?)\s*[:—–-]\s*(?P<v>.{1,60})"
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    # "Going with Next.js for the website, that's decided."
    Pattern(
        rx(
            r"""
            ^(?:(?:we'?re|we\ are|so)\s+)?(?:going|sticking|staying)\s+with\s+(?P<v>.{1,60}?)\s*[,;—–-]\s*(?:that'?s|
            it'?s|this\ is)\s+
            (?:decided|settled|final|official|locked\ in|the\ plan)\b
            """
        ),
        _decision_en,
    ),
    # "Decided: …", "I've made up my mind: …", "we've settled it: …", "it's settled: …"
    Pattern(
        rx(
            r"""
            (?:^(?:decided|decision|final\ decision|settled|verdict)|
            \bthe\s+(?:verdict|decision|conclusion|outcome|result)\s+(?:from|of)\s+(?:the\s+)?(?:meeting|call|review|
            discussion|vote)|
            \bsettled\s+(?:the\s+)?(?:debate|question|matter|argument|it)|\b(?:the\s+)?(?:call|decision)\s+(?:was|
            has\s+been|is|got)\s+made|
            \b(?:I|we)(?:'ve|\s+have)?\s+(?:made\s+up\s+(?:my|our)\s+minds?|settled\s+it|decided|
            made\s+(?:a|the|our|my)\s+(?:call|decision))|\b(?:it'?s|that'?s)\s+(?:settled|decided|final|
            official)(?=\s*[,:—–-]\s*(?:we|the|our|it)\b))
            \s*[:—–,-]\s*(?P<v>.{2,80})
            """
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        rx(
            r"\bthe\s+decision\s+(?:is|was)\s+(?:to\s+|that\s+|:\s*|(?:final|made|official|in)\s*[:—–-]\s*)(?P<v>."
            r"{2,80})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        rx(
            r"\bit\s+(?:was|has\s+been|'s\s+been|is)\s+(?:officially\s+|finally\s+)?(?:decided|agreed|settled)\s+("
            r"?:that\s+)?(?:we(?:'d|'ll|\s+will|\s+would)\s+)?(?P<v>.{2,80})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        rx(
            r"\b(?:our|the|my\s+team'?s|the\s+team'?s)\s+(?:final\s+)?(?:choice|pick|selection|decision)\s+(?:for|"
            r"on)\s+(?:the\s+|our\s+)?(?P<t>.{2,40}?)\s+(?:is|was|will\s+be)\s+(?P<v>.{1,60})"
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    Pattern(
        zh(
            r"""
            (?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)\s*(?:我们|团队|大家)?(?:最终|最后|已经|就|还是)*\s*(?:采用|选用|
            选定|
            定为|确定为|确定用|决定用|决定采用|选择了?|确定了|敲定了?|拍板(?:了)?(?:用)?|统一用)\s*(?P<v>.{1,30})
            """
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    # a loose verb after a topic: "数据库最后选了Postgres", "后端定用Go写", "支付我们最后选了Stripe"
    Pattern(
        zh(
            r"""
            (?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)\s*(?:我们|团队|大家|我)?(?:最终|最后|已经|就|还是|也)*\s*
            (?:选了|选的是|定了(?:用)?|定用|定的是|用的是|就用|最后用|定在|定于|安排在|
            定成)\s*(?![，,。])(?P<v>[^，,。]{1,30})
            """
        ),
        _decision_zh_topic,
    ),
    # "鉴权方案就用JWT，已经定了", "logo用蓝色那版，大家投票定的", "定价定了，每月九十九"
    Pattern(
        zh(
            r"""
            ^(?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)\s*(?:就|也|还是)?(?:用|选|采用|走|放|放在|
            上)\s*(?P<v>[^，,。]{1,30}?)(?:上)?[，,]\s*
            [^，,。]{0,10}?(?:定了|定下来了|敲定了|决定了|拍板了|定的|决定的|拍板的|选的)
            """
        ),
        _decision_zh_topic,
    ),
    Pattern(
        zh(r"^(?P<t>[\u4e00-\u9fffA-Za-z0-9]{2,10}?)\s*(?:定了|敲定了|确定了|拍板了|决定了)[，,：:]\s*(?P<v>.{1,30})"),
        lambda m: _decision_zh_topic(m) or (_decision(m.group("v"), None) if _MEETING.match(m.group("t")) else None),
    ),
    # "数据库选型最后还是MongoDB"
    Pattern(
        zh(
            r"(?P<t>[\u4e00-\u9fffA-Za-z0-9]{2,10}?)\s*(?:选型|的选择|方案|技术栈|框架)(?:最后|最终|已经)?(?:还是|"
            r"是|定为|定了|用|选了)\s*"
            r"(?P<v>[^，,。]{1,30})"
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    Pattern(
        zh(
            r"""
            (?:我们|团队|大家)?(?:最终|最后|已经|刚刚|还是)*(?:决定|确定|商定|敲定|商量好|讨论好|定好|说好|拍板|
            定下来(?=了|[，,：:]|用|采用)|^定(?=了)|
            (?:一致)?同意(?=用|采用|使用|选))(?:了)?[，,：:]?\s*(?:就)?(?:采用|使用|用|
            选择|选用|走)?\s*(?P<v>.{1,30})
            """
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        zh(
            r"(?:我们|团队|大家)(?:最终|最后|已经|刚刚|还是|就)*(?:选了|用了|采用了|选定了|换成了|改用了|选(?!哪|什"
            r"么|谁|择题))\s*(?P<v>[^，,。？?]{1,30})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
]


_STOP_VERBS: dict[str, str] = {
    "dropping": "drop",
    "dropped": "drop",
    "cutting": "cut",
    "killing": "kill",
    "killed": "kill",
    "sunsetting": "sunset",
    "deprecating": "deprecate",
    "deprecated": "deprecate",
    "discontinuing": "discontinue",
    "discontinued": "discontinue",
    "postponing": "postpone",
    "postponed": "postpone",
    "delaying": "delay",
    "delayed": "delay",
    "pausing": "pause",
    "paused": "pause",
    "shelving": "shelve",
    "shelved": "shelve",
}


def _not_negated(
    get: Callable[[re.Match[str]], tuple[str, str] | None],
) -> Callable[[re.Match[str]], tuple[str, str] | None]:
    """Negation counts only before the decided value ("we didn't pick X"), not inside it ("GraphQL, not REST")."""

    def checked(m: re.Match[str]) -> tuple[str, str] | None:
        if re.search(r"把[^，,。]*$", m.string[: m.start()]):
            return None  # "把需求文档定下来": an action, not a decision made
        head = m.string[: m.start("v")]
        head = re.split(r"[,;:，；：。]", head)[-1]
        if _NEG_EN.search(head) or _NEG_ZH.search(head):
            return None
        return get(m)

    return checked


_DECISIONS = [Pattern(p.rx, _not_negated(p.value), True) for p in _DECISIONS]


def _decision_hit(value: tuple[str, str], match: re.Match[str]) -> Hit:
    attribute, decided = value
    return Hit("decision", Kind.KNOWLEDGE, attribute, decided, confidence=0.85, project_default=True)


DECISION = Family("decision", Kind.KNOWLEDGE, "knowledge.decision", _DECISIONS, build=_decision_hit)

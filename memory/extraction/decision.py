"""Project decisions: `knowledge.decision.<topic slug>` when the sentence names a topic, else
`knowledge.decision`; project knowledge, so project-scoped whenever the turn has a project."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..models import Kind
from .family import Family, Hit
from .markers import PROJECT
from .text import _NEG_EN, _NEG_ZH, Pattern, clean, gated, rx, slugify, zh

_LABEL_EN = rx(r"^(?:the\s+|our\s+)?(.+?)\s+([A-Z]|\d+|v\d+(?:\.\d+)*)$")
_LABEL_ZH = zh(r"^(.+?)\s*((?<![A-Za-z])[A-Za-z]|\d+|v\d+(?:\.\d+)*)$")
_GENERIC_TOPIC = zh(
    r"""
    ^(?:我们|团队|大家|项目|最后|最终|已经|就|我|还是|也|都|这个|那个|这边|现在|目前|今天|平时|一般|之前|刚刚|刚才|继续|以后|今后|
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
    r"^(?:(?:先|马上|立刻|现在就|今晚|今天|明天|待会|等下)*(?:去)?(?:睡|吃|喝|回家|休息|洗澡|出门|躺|玩|逛|看电影|看剧|打游戏)|"
    r"不去|去吃|出去|很|太|真|挺|非常|有点|好难|难|不容易|是什么|怎么|对不对|好不好)"
)
# everyday choices are not project decisions ("we chose pizza for dinner")
_LEISURE = zh(
    r"""
    (?i:\b(?:dinner|lunch|breakfast|brunch|a\ walk|a\ nap|nap|(?:a|the)\ movie|film|restaurant|pizza|takeout|vacation|
    holiday|sushi|tacos|burgers?|ice\ cream|dessert|wine|beer|party|picnic|shirt|dress|shoes|outfit|haircut|
    bed|sleep|gym|hike|trip|weekend|birthday|wedding|
    drinks|coffee|the\ beach|a\ drive)\b)|晚饭|午饭|早饭|晚餐|午餐|早餐|夜宵|吃饭|电影|餐厅|散步|火锅|外卖|奶茶|咖啡|
    披萨|烧烤|聚餐|旅游|度假|唱歌|逛街|看剧|睡觉|睡一会|午睡|衣服|衬衫|裙子|鞋|发型|爬山|健身|生日|婚礼|周末|放假|
    出去玩|喝酒|蛋糕
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
    r"(?:\bbe\s+using|\bwill\s+use|\bgoing\s+to\s+use|'ll\s+use|\bforward\s+with|\bproceed(?:ing)?\s+with|"
    r"\b(?<!went\s)(?<!pushed\s)(?<!moved\s)ahead\s+with)\s+$"
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


# "央行决定加息": a subject that is not the user's side (a topic only before "决定用 / 采用 …")
_OUR_SIDE_ZH = zh(
    r"""
    ^(?:我们|咱们|团队|大家|公司|我|老板|领导|组里|部门|项目组|全组|管理层|上面|甲方|客户|产品|技术|我和[\u4e00-\u9fff]{1,4}|
    [\u4e00-\u9fff]{1,4}和我)?(?:的)?(?:最终|最后|已经|刚刚|还是|一致|正式|这边|也|都|就|昨天|今天|开会|讨论后|商量后)*$
    """
)


def _we_decided_zh(m: re.Match[str]) -> bool:
    before = re.split(r"[，,。；;：:！!]", m.string[: m.start()])[-1]
    before = re.sub(r"^(?:谢谢|好的|嗯|对了|另外|所以|然后|那|那就)+", "", before)
    if _OUR_SIDE_ZH.match(before):
        return True
    return bool(re.match(r"(?:就)?(?:采用|使用|用|选|上|走|按|改用|换成)", m.group("v")))  # "接口方案决定用B": a topic


def _decision_zh_topic(m: re.Match[str]) -> tuple[str, str] | None:
    """A loose verb ("选了", "定了", "就用") counts only after a real topic ("数据库最后选了 Postgres")."""
    if re.search(r"我$", m.string[: m.start("t")]) or re.match(r"的|我(?!们)", m.group("t")):
        return None  # "我浏览器用的是Edge", "我的闹钟定在六点": the user's own things, not the project's
    verb = m.string[m.end("t") : m.start("v")]
    if re.search(r"只用", verb) and not re.search(r"我们|团队|大家", verb):
        return None  # "听歌我只用正版", "网购只用京东": how the user lives, not a decision of the team's
    topic = _GENERIC_TOPIC.sub("", clean(m.group("t")))
    if len(topic) < 2 or re.search(
        r"[我你他她它]|自己|^把|^将|答案|版本|^的|心愿|梦想|目标|打算|^(?:以后|今后|之后|现在|目前|今天|明天|这次)$|这次|以后|今后|从现在|每次|回答|回复|说话|讲解|解释",
        topic,
    ):
        return None
    return _decision(m.group("v"), topic)


_WE = r"""(?:we|the\ team|our\ team|my\ team|the\ company|our\ company|everyone|we\ all|the\ group|
    (?:my|our)\ (?:co-?founders?|partners?|cto|lead|tech\ lead|manager|boss)\ and\ I|\w+\ and\ I|both\ of\ us|
    the\ two\ of\ us)"""
_HAVE = r"""(?:'ve|'ll|'re|'d|\s+have|\s+will|\s+are|\s+had|\s+would|\s+is|\s+has)?
    (?:\s+(?:be|been|going\ to|gonna|going\ to\ be|have|probably|definitely|now))*"""
_ADV = r"""(?:(?:finally|eventually|just|already|officially|now|all|ultimately|collectively|basically|pretty\ much|
    unanimously|formally|also|then|quickly|happily|reluctantly|provisionally|tentatively)\s+)*"""
_DECIDE_EN = r"""
    (?:chose|chosen|choose|picked(?!\s+up)|selected|gone\s+with|decided\s+(?:on|to\s+go\s+with|to\s+use|to\s+adopt|
    to\s+stick\s+with|
    to\s+switch\s+to|to\s+move\s+to)|settled\s+on|went\s+with|went\s+for|(?:are\s+|'re\s+)?going\s+with|
    will\s+go\s+with|go\s+with|ended\s+up\s+(?:picking|choosing|going\s+with|using|with|selecting)|
    agreed\s+(?:on|to\s+use|to\s+go\s+with|to\s+adopt)|opted\s+for|adopted|(?:are\s+)?going\s+to\s+use|
    will\s+use|(?<=ll\ )use|(?:are\s+|'re\s+)?going\s+to\s+go\s+with|(?:will\s+)?be\s+using|locked\s+in|finali[sz]ed|
    committed\s+to|standardi[sz]ed\s+on|
    (?:are\s+)?sticking\s+with|mov(?:e|ing)\s+forward\s+with|mov(?:e|ing)\s+ahead\s+with|proceed(?:ing)?\s+with|
    go(?:ing)?\s+ahead\s+with|went\s+ahead\s+with|push(?:ed|ing)?\s+ahead\s+with|mov(?:ed|ing)\s+ahead\s+with|
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
            + r"(?:decided|agreed|resolved)\s+(?:to\s+|that\s+|(?=not\s+to\b|against\b))"
            r"(?!(?:the|our)\s+\w+(?:\s+\w+)?\s+(?:will|is|should)\b)(?P<v>.{2,80})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "we decided the MVP will ship without payments": the decision is the whole clause
    Pattern(
        rx(
            r"\b"
            + _WE
            + r"(?:'ve|\s+have|\s+has)?\s+"
            + _ADV
            + r"""(?:decided|agreed|settled|concluded|determined|resolved)\s+(?:that\s+)?
            (?P<v>(?:the|our|we|all|every|each|
            no|this|these|v?\d|(?-i:[A-Z]))\S*\s(?:\S+\s){0,6}?(?:will|'ll|should|shall|must|would|is|are|gets?|goes|stays?|
            happens?|ships?|launch(?:es)?|needs?|won'?t|can'?t)\b.{2,80})"""
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
        zh(
            r"(?:投票|讨论|会议|评审|复盘|开会|周会|例会|最终|最后的?)[^，,。]{0,4}?的?(?:结果|结论|决定)(?:是|为)\s*(?:用|选|采用)?"
            r"\s*(?P<v>[^，,。]{1,30})"
        ),
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
            r"(?:我们|团队|大家|^那|^那就|^就)(?:这次|最后|最终|还是)?(?:就|决定)?按(?:照)?\s*(?P<v>[^，,。]{1,20}?)\s*(?:来|走|"
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
            \bthe\s+(?:verdict|decision|conclusion|outcome|result)\s+(?:from|of)\s+(?:the\s+|our\s+)?(?:[\w\-]+\s+){0,2}?
            (?:meeting|call|review|discussion|vote|retro|retrospective|sync|standup|workshop|offsite|planning|kickoff|
            debate|session)|
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
    gated(
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
        "采用|选用|选定|定为|确定|决定|选择|敲定|拍板|统一用",
    ),
    # a loose verb after a topic: "数据库最后选了Postgres", "后端定用Go写", "支付我们最后选了Stripe" (not
    # the "定成" of "决定成败", a saying)
    gated(
        Pattern(
            zh(
                r"""
            (?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)\s*(?:我们|团队|大家|我)?(?:最终|最后|已经|就|还是|也)*\s*
            (?:选了|选的是|定了(?:用)?|定用|定的是|用的是|就用|最后用|定在|定于|安排在|买的是|订的是|签的是|采购的是|
            继续用|接着用|沿用|仍然用|照旧用|只用|一律用|(?:应该|大概|基本上?)?(?:就)?定(?=\s*[A-Za-z0-9])|
            (?<!决)定成)\s*(?![，,。])(?P<v>[^，,。]{1,30})
            """
            ),
            _decision_zh_topic,
        ),
        "选|定|用的是|就用|最后用|安排在|买的是|订的是|签的是|采购的是|继续用|接着用|沿用|只用|一律用",
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
        zh(
            r"^(?P<t>[\u4e00-\u9fffA-Za-z0-9]{2,10}?)\s*(?:已经|也|都)?(?:定了|敲定了|确定了|拍板了|决定了|定下来了|选好了|定好了|选定了)[，,：:]\s*(?P<v>.{1,30})"
        ),
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
            (?:我们|团队|大家)?(?:最终|最后|已经|刚刚|还是)*(?:决定|确定|商定|敲定|商量好|讨论好|定好|说好|约定|说定|拍板|
            定下来(?=了|[，,：:]|用|采用)|^定(?=了)|
            (?:一致)?同意(?=用|采用|使用|选))(?:了)?[，,：:]?\s*(?:就)?(?:采用|使用|用|
            选择|选用|走)?\s*(?P<v>.{1,30})
            """
        ),
        lambda m: _decision(m.group("v"), None) if _we_decided_zh(m) else None,
    ),
    Pattern(
        zh(
            r"(?:我们|团队|大家)(?:最终|最后|已经|刚刚|还是|就)*(?:选了|用了|采用了|选定了|换成了|改用了|选(?!哪|什"
            r"么|谁|择题))\s*(?P<v>[^，,。？?]{1,30})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
]


# --- the general shapes (any subject the user speaks for, a choice verb in any tense, or a sentence
# that says a choice was made next to what was chosen) ------------------------------------------------

# project wording that makes "I chose / I decided to" a project decision rather than a personal one
_PROJECT_WORDS = rx(
    r"""
    \b(?:app|apps|backend|back-end|frontend|front-end|api|apis|database|db|server|servers|service|feature|
    features|sprint|project|product|team|client|clients|design|pricing|roadmap|vendor|vendors|stack|framework|
    library|build|deploy|deployment|repo|repository|infra|infrastructure|hosting|ci|cd|pipeline|tests?|testing|qa|
    contractor|budget|mvp|beta|version|platform|release|launch|wiki|docs|documentation|tracker|tooling|tool|
    architecture|schema|auth|authentication|login|payments?|billing|storage|cache|caching|queue|monitoring|
    logging|analytics|cloud|cluster|language|editor|ide|bundler|linter|formatter|runtime|engine|provider|
    website|site|blog|dashboard|mobile|ios|android|web|desktop|cli|sdk|plugin|module|component|ui|ux|
    onboarding|checkout|search|domain|store|shop|newsletter|crm|erp|support|offsite|meeting|standups?|
    sprints|releases|reviews?|process|workflow|policy|model|data|dataset|pilot|rollout)\b
    """
)
_TECHISH = re.compile(r"(?:^|[\s(])(?:[A-Z][\w.+#-]*|[\w.+#-]*\d[\w.+#-]*|option\s+\w+|plan\s+[A-Z\d]\w*)")


def _mine_en(m: re.Match[str]) -> tuple[str, str] | None:
    """ "I chose Notion as our wiki": the user's own choice counts when it is about the work."""
    found = _decision_en(m)
    if found is None:
        return None
    text = m.string
    if _PROJECT_WORDS.search(text) or PROJECT.search(text) or _TECHISH.search(m.group("v")):
        return found
    return None


_I_CHOICE_EN = r"""
    (?:chose|chosen|picked(?!\s+up)|selected|went\s+(?:with|for)|(?:am\s+|'m\s+)?going\s+(?:with|for)|settled\s+on|
    opted\s+for|landed\s+on|locked\s+in|decided\s+(?:on|to\s+(?:use|go\s+with|adopt|switch\s+to|move\s+to|
    migrate\s+to|stick\s+with|standardi[sz]e\s+on|build|write|rewrite|launch|ship|host|deploy|run|drop|deprecate|
    postpone|delay|outsource|hire|cancel|sunset|retire|replace|keep|pick|choose|go\s+for))|
    made\s+the\s+(?:call|decision)\s+to|(?:will|'ll)\s+go\s+with|stick(?:ing)?\s+with)
"""
_SWITCH_EN = r"""
    (?:(?:switch(?:ed|ing)?|migrat(?:e|ed|ing)|port(?:ed|ing)?|convert(?:ed|ing)?)\s+(?:over\s+)?
    (?:(?:our|the|all\s+(?:of\s+)?our|my)\s+(?P<t>[\w\-]+(?:\s+[\w\-]+){0,2}?)\s+)?|
    (?:mov(?:e|ed|ing)|chang(?:e|ed|ing))\s+(?:over\s+)?(?:our|the|all\s+(?:of\s+)?our|my)\s+(?P<t2>[\w\-]+(?:\s+[\w\-]+){0,2}?)\s+)
    (?:over\s+)?(?:from\s+[\w.+#\-]+(?:\s+[\w.+#\-]+)?\s+)?to
"""
_GENERAL_EN = [
    # "I chose Notion as our project wiki", "I've decided to use Flutter for the mobile app"
    Pattern(rx(r"\bI(?:'ve|\s+have|'m|\s+am|'ll|\s+will)?\s+" + _ADV + _I_CHOICE_EN + r"\s+(?P<v>.{1,80})"), _mine_en),
    # "Let's go with option C for the onboarding flow"
    Pattern(
        rx(
            r"\blet'?s\s+(?:just\s+)?(?:go\s+with|go\s+for|pick|choose|stick\s+with|settle\s+on|standardi[sz]e\s+on|"
            r"lock\s+in|adopt|switch\s+to|move\s+to|migrate\s+to)\s+(?P<v>.{1,80})"
        ),
        _mine_en,
    ),
    # "We've opted to outsource QA", "we're adopting trunk-based development"
    Pattern(
        rx(
            r"\b"
            + _WE
            + _HAVE
            + r"\s+"
            + _ADV
            + r"(?:opted|opting|elected|electing|chosen|chose|resolved|voted)\s+to\s+(?P<v>.{2,80})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        rx(
            r"\b"
            + _WE
            + _HAVE
            + r"\s+"
            + _ADV
            + r"(?:adopting|adopted|introducing|rolling\s+out|standardi[sz]ing\s+on)"
            r"\s+(?P<v>.{2,80})"
        ),
        _decision_en,
    ),
    # "We're switching our CI to GitHub Actions", "we moved the blog to Hugo"
    Pattern(
        rx(r"\b(?:" + _WE + r"|I)" + _HAVE + r"\s+" + _ADV + _SWITCH_EN + r"\s+(?P<v>.{1,60})"),
        lambda m: (
            _decision(m.group("v"), m.group("t") or m.group("t2"))
            if (_mine_en(m) is not None and (m.group("t") or m.group("t2")))
            or re.match(r"(?i)\s*(?:we|the\s+team|our\s+team)", m.group(0))
            else None
        ),
    ),
    # "We're going to build the admin tool in-house": a plan for the work (project wording needed)
    Pattern(
        rx(
            r"\b" + _WE + r"(?:'re|\s+are|'ll|\s+will)\s+(?:going\s+to\s+|gonna\s+)?(?:be\s+)?"
            r"(?P<verb>build|building|write|writing|"
            r"rewrite|rewriting|ship|shipping|launch|launching|host|hosting|run|running|adopt|adopting|migrate|"
            r"migrating|drop|dropping|hire|hiring|outsource|outsourcing|deprecate|deprecating|support|supporting|"
            r"open-source|release|releasing|deploy|deploying|license|licensing|self-host|self-hosting|split|splitting|"
            r"merge|merging|replace|replacing|retire|retiring|sunset|sunsetting|freeze|freezing|charge|charging|"
            r"price|pricing|keep|keeping)\s+(?P<v>.{2,80})"
        ),
        lambda m: _mine_en(m) and _decision(m.group("verb") + " " + m.group("v"), None),
    ),
    # "Going forward, Postgres is our only database"
    Pattern(
        rx(
            r"(?:^|,\s*)(?P<v>(?!(?:it|this|that|what|which|there)\b)[\w.+#\-]+(?:\s+[\w.+#\-]+){0,2}?)\s+(?:is|are)\s+"
            r"(?:now\s+|officially\s+)?(?:our|the\s+team'?s)\s+(?:only|new|official|default|standard|chosen|go-to|single|"
            r"sole)\s+(?P<t>[\w\-]+(?:\s+[\w\-]+)?)\b"
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    # "We voted and Figma won", "after testing both, Tauri came out on top"
    Pattern(
        rx(
            r"\b(?:voted|compared|tested|evaluated|benchmarked|tried|trialed|trialled|reviewed|debated)\b.{0,60}?"
            r"(?:\band\s+|,\s*)(?P<v>(?!it\b|that\b|this\b)[\w.+#\-]+(?:\s+[\w.+#\-]+){0,2}?)\s+(?:won|wins|came\s+out\s+"
            r"(?:on\s+top|ahead)|took\s+it|got\s+the\s+nod|was\s+the\s+winner|is\s+the\s+winner)\b"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "We're using Stripe for billing from now on", "going forward we use pnpm for the monorepo"
    Pattern(
        rx(
            r"\b" + _WE + r"(?:'re|\s+are|'ll|\s+will)?\s+(?:be\s+)?(?:using|use)\s+(?P<v>.{1,40}?\s+for\s+.{2,40}?)"
            r"\s*,?\s*(?:from\s+now\s+on|going\s+forward|moving\s+forward|from\s+here\s+on(?:\s+out)?|"
            r"as\s+of\s+(?:today|now|this\s+sprint)|starting\s+(?:today|now|this\s+sprint|next\s+sprint))\b"
        ),
        _decision_en,
    ),
    # "The team locked in March 15 as the launch date", "we picked X as the Y"
    Pattern(
        rx(
            r"\b"
            + _WE
            + _HAVE
            + r"\s+"
            + _ADV
            + r"(?:locked\s+in|set|fixed|pinned|confirmed|finali[sz]ed)\s+(?P<v>.{1,40}?)"
            r"\s+as\s+(?:the\s+|our\s+)(?P<t>.{2,40})"
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    # "So the verdict is Django for the admin panel", "consensus is we keep Python 3.9 as the floor"
    Pattern(
        rx(
            r"\b(?:the\s+|our\s+)?(?:final\s+)?(?:verdict|consensus|choice|pick|winner|outcome|decision|agreement)\s+"
            r"(?:is|was|has\s+been)\s+(?:that\s+|to\s+)?(?:we(?:'ll|\s+will|'d|\s+would)?\s+)?(?P<v>.{2,80})"
        ),
        _decision_en,
    ),
    # "The stack is settled: Next.js, Prisma and Postgres"
    Pattern(
        rx(
            r"\b(?:the|our)\s+(?P<t>[\w\-]+(?:\s+[\w\-]+)?)\s+(?:is|has\s+been|was)\s+(?:now\s+|finally\s+|officially\s+)?"
            r"(?:settled|decided|finali[sz]ed|locked\s+in|chosen|picked|agreed)\s*[:—–-]\s*(?P<v>.{2,80})"
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    # "Our database will be MongoDB, that's been decided" (with a marker: below), "Kafka will be our queue"
    Pattern(
        rx(
            r"^(?P<v>(?-i:[A-Z][\w.+#\-]*)(?:\s+[\w.+#\-]+){0,2})\s+(?:will\s+be|is\s+going\s+to\s+be|is\s+now)\s+"
            r"(?:our|the)\s+(?:new\s+|official\s+|default\s+)?(?P<t>[\w\-]+(?:\s+[\w\-]+){0,2})\s*$"
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
]

# a sentence that says a choice has been made, beside the clause saying what it is
_MARKER_EN = rx(
    r"""
    ^(?:final\s+(?:call|decision|answer|word|verdict|choice|pick)|decided|decision|settled|verdict|it'?s\s+official|
    official(?:ly)?|consensus|the\s+(?:call|decision)\s+(?:has\s+been|was|is)\s+made|we\s+(?:have\s+|'ve\s+)?(?:made\s+the\s+
    call|decided|agreed|voted|settled\s+it)|(?:it'?s|that'?s|this\s+is)\s+(?:settled|decided|final|official|
    locked\s+in|agreed|the\s+decision|the\s+plan\s+now)|(?:that|it)(?:\s+has|'s)?\s+been\s+(?:decided|agreed|settled|
    approved|signed\s+off)|the\s+team\s+(?:voted|agreed|decided)(?:\s+on\s+it)?|everyone\s+agreed|(?:we|the\s+team)\s+
    voted\s+on\s+it|after\s+(?:a\s+long\s+|much\s+|some\s+|a\s+lot\s+of\s+)?(?:debate|discussion|back\s+and\s+forth|deliberation|
    review|testing|comparing|the\s+(?:review|meeting|vote|call|discussion|retro|retrospective)|testing\s+both|
    trying\s+both))\b[^,:;—–]*$
    """
)
_CONTENT_LEAD_EN = rx(
    r"""
    ^(?:(?:so|ok(?:ay)?|and|then|alright)\s*,?\s+)*(?:(?:we|I)(?:'re|'ll|'ve|\s+are|\s+will|\s+have|\s+am|'m)?\s+)?
    (?:(?:going\s+to\s+|gonna\s+)?(?:go(?:ing)?\s+with|use|using|stick(?:ing)?\s+with|be\s+using|pick(?:ing)?|choose|
    chose|picked|went\s+with|adopt(?:ing)?)\s+)?
    """
)


def _marker_decision_en(text: str) -> tuple[str, str] | None:
    clauses = [c.strip() for c in re.split(r"\s*(?:[,;:]|\s[—–-]\s)\s*", text) if c.strip()]
    if len(clauses) < 2:
        return None
    marked = [i for i, c in enumerate(clauses) if _MARKER_EN.match(c)]
    if not marked:
        return None
    rest = [c for i, c in enumerate(clauses) if i not in marked]
    if not rest:
        return None
    content = rest[0]
    if re.match(r"(?i)(?:what|which|who|how|why|should|shall|do|does|did|is|are|can|could)\b", content):
        return None
    if re.match(r"(?i)(?:he|she|they|his|her|their|my\s+(?:friend|wife|husband|brother|sister|mom|dad))\b", content):
        return None
    value = _CONTENT_LEAD_EN.sub("", content).strip()
    split = re.match(
        r"(?i)^(?:our|the)\s+(?P<t>[\w\-]+(?:\s+[\w\-]+)?)\s+(?:will\s+be|is|is\s+going\s+to\s+be)\s+(?P<v>.+)$", value
    )
    if split:
        return _decision(split.group("v"), split.group("t"))
    split = re.match(r"(?i)^(?P<v>.+?)\s+for\s+(?:the\s+|our\s+)?(?P<t>[\w\-]+(?:\s+[\w\-]+){0,2})$", value)
    if split and not re.search(r"(?i)\b(?:now|good|this\s+year|the\s+time\s+being|a\s+while)$", split.group("t")):
        return _decision(split.group("v"), split.group("t"))
    return _decision(value, None)


_MARKER_ZH = zh(
    r"""
    ^(?:(?:这个|这事|这件事|这点|这一点|都|也)?(?:已经|都|也|就|算是)?(?:定了|定下来了|敲定了|拍板了|决定了|确定了|说好了|商量好了|
    讨论好了|定好了|通过了|批了|落定了|定稿了|就这么定了?|这么定了|就这样定了?|就这么办|就这样吧|没得改了|不改了|不再讨论了)|
    (?:大家|团队|我们)?(?:投票|一致)(?:通过|决定|同意)?(?:的|了)?|(?:大家|团队|我们)?投票定的|(?:最终|最后|正式)(?:决定|定了|敲定|拍板)|
    (?:讨论|评审|商量|开会|比较|对比|测试|试用|试|研究|权衡|争论|纠结|合计)(?:了)?(?:很久|半天|来讨论去|来去|一番|一下|好久|几轮|一下午|
    一上午|一晚上|完了?|过了?|后|过后|下来|之后)|(?:这|这个|这点|这事|这些)?(?:是|都是)?(?:已经)?(?:定下来|决定|拍板|商量好|说好|敲定|定好|
    定|投票定|开会定|讨论定)的|
    (?:两个|几个|都)(?:都)?(?:试过了|比较过了|对比过了|评估过了)|(?:争论|纠结|讨论)了(?:很久|半天|好久|一下午))[了吧啊的]*$
    """
)
_CONTENT_LEAD_ZH = zh(
    r"^(?:(?:我们|团队|大家|我)(?:的)?)?(?:最终|最后|还是|就|也|都|已经|正式|决定|统一|一律)*(?:(?:用|采用|选|选了|选用|走|上|改用|换成|就用)\s*)?"
)


def _marker_decision_zh(text: str) -> tuple[str, str] | None:
    clauses = [c.strip() for c in re.split(r"[，,：:；;]", text) if c.strip()]
    if len(clauses) < 2:
        return None
    marked = [i for i, c in enumerate(clauses) if _MARKER_ZH.match(c)]
    rest = [c for i, c in enumerate(clauses) if i not in marked]
    if not marked or not rest:
        return None
    content = rest[0]
    if re.search(r"[吗呢？?]$|什么|怎么|哪|要不要|是否", content) or re.match(r"(?:他|她|他们|她们|别人)", content):
        return None
    topic_first = re.match(
        r"^(?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,10}?)(?:我们|团队|大家|我)?(?:最终|最后|还是|就|也|都)*"
        r"(?:用|采用|选|选了|走|上|定|定为|定在)\s*(?P<v>.+)$",
        content,
    )
    if topic_first and not _GENERIC_TOPIC.fullmatch(topic_first.group("t")):
        found = _decision_zh_topic(topic_first)
        if found:
            return found
    value = _CONTENT_LEAD_ZH.sub("", content).strip()
    return _decision(value, None) if value else None


# what a change of the work's tools is never about: the user, the answer ("把刚才的答案改成…"), a wish
# ("今年的心愿是把阳台改成…")
_NOT_A_WORK_TOPIC_ZH = re.compile(
    r"[我你他她]|以后|今后|这次|回答|回复|答案|刚才|上面|说话|讲解|语言|心愿|梦想|目标|打算"
    # a question word asks how to change it ("时区不对，怎么改成北京时间"): nothing was decided
    r"|怎么|怎样|如何|咋|为什么|为啥|什么|啥|能不能|要不要"
)


def _switched_zh(m: re.Match[str]) -> tuple[str, str] | None:
    """ "我们CI换成GitHub Actions了", "后端迁到Rust": a change of what the work uses (not "改成英文", a preference)."""
    topic = m.group("t")
    we = bool(topic and re.match(r"(?:我们|团队|大家)", topic))
    if topic:
        topic = _GENERIC_TOPIC.sub("", topic)
    if topic and (_NOT_A_WORK_TOPIC_ZH.search(topic) or len(topic) < 2):
        topic = None
    if (
        not topic
        and not we
        and m.group("who") not in ("我们", "团队", "大家")
        and not (m.group("who") in ("，", ",") and re.search(r"我们|团队|大家", m.string[: m.start()]))
    ):
        return None
    return _decision(m.group("v"), topic)


_GENERAL_ZH = [
    # "我们CI换成GitHub Actions了", "后端迁到Rust", "团队把数据库换成了Postgres"
    Pattern(
        zh(
            r"""
            (?P<who>^|[，,]|我们|团队|大家|我)(?:的)?(?:把)?(?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)?\s*
            (?:已经|正式|都|也|就|最后|最终|统一)*
            (?:换成|改成|改用|换用|切到|切换到|切换成|迁到|迁移到|转到|迁去|升级到)了?\s*(?P<v>[^，,。；;]{1,30}?)(?:了|吧)?$
            """
        ),
        lambda m: _switched_zh(m),
    ),
    # "代码格式统一用Prettier", "以后计费统一走Stripe", "团队默认用深色主题"
    gated(
        Pattern(
            zh(
                r"(?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)?\s*(?:以后|今后|从现在起|从今天起)?(?:都|全部|一律)?"
                r"(?:统一|一律|默认|全面|全部|正式)"
                r"(?:改)?(?:用|走|采用|使用|上|切到|迁到)\s*(?P<v>[^，,。；;]{1,30})"
            ),
            lambda m: (
                _decision(m.group("v"), m.group("t"))
                if m.group("t") and not re.search(r"[我你他她]|^(?:以后|今后|团队|我们|大家)$", m.group("t"))
                else _decision(m.group("v"), None)
            ),
        ),
        "统一|一律|默认|全面|全部|正式",
    ),
    # "引导流程就按方案C来"
    Pattern(
        zh(
            r"^(?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)\s*(?:我们|团队|大家)?(?:就|还是|最终|最后|统一)*按(?:照)?\s*"
            r"(?P<v>[^，,。]{1,20}?)\s*(?:来|走|执行|办|做)(?:吧|了)?$"
        ),
        _decision_zh_topic,
    ),
    # "管理后台最终用Django", "公开API最后用GraphQL", "我最后用Tauri，不用Electron"
    gated(
        Pattern(
            zh(
                r"(?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)\s*(?:我们|团队|大家|我)?"
                r"(?:最终|最后|最后还是|终于|还是决定)\s*"
                r"(?:就|还是)?(?:用|选|选了|采用|上|定|定了|选定|选择了?)\s*"
                r"(?![，,。])(?P<v>[^，,。；;]{1,30})"
            ),
            lambda m: (
                _decision_zh_topic(m)
                or (
                    _decision(m.group("v"), None)
                    if re.fullmatch(r"(?:我们|团队|大家|我|[^，,]*了)", m.group("t") or "")
                    or re.search(r"(?:我们|团队|大家|我)$", m.group("t") or "")
                    else None
                )
            ),
        ),
        "最终|最后|终于|还是决定",
    ),
    Pattern(
        zh(
            r"(?:^|[，,])(?:我们|团队|大家|我)?(?:最终|最后)(?:还是)?(?:选了|用了|采用了|定了|选定了|选择了)\s*(?P<v>[^，,。；;]{1,30})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "新的引导设计我们通过了"
    Pattern(
        zh(
            r"^(?P<v>[\u4e00-\u9fffA-Za-z0-9 ]{2,20}?)\s*(?:我们|团队|大家|老板|领导|公司)?(?:已经|也|都)?"
            r"(?:通过了|批了|批准了|定稿了|签字了|拍板了|敲定了)$"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "我们正式放弃支持Python 2", "团队决定砍掉周报"
    Pattern(
        zh(
            r"(?:我们|团队|大家|公司)(?:已经|正式|决定|最终|最后|这边)*(?P<verb>放弃|砍掉|砍了|停掉|下线|废弃|推迟|延期|暂停|不再|取消|停止|关掉)"
            r"(?:了)?\s*(?P<v>[^，,。；;]{2,30})"
        ),
        lambda m: _decision(m.group("verb") + m.group("v"), None),
    ),
    # "评审后团队同意按季度发版": the team agreeing is the decision
    Pattern(
        zh(
            r"(?:我们|团队|大家|全组|双方)(?:最终|最后|已经|都)?(?:一致)?(?:同意|赞成|认可)(?:了)?\s*(?P<v>[^，,。；;]{2,40})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "大家一致同意最低支持Python 3.9", "我们一致决定…"
    Pattern(
        zh(r"(?:大家|我们|团队|全组)?(?:一致|全票|投票)(?:同意|通过|决定|赞成|选了?)\s*(?P<v>[^，,。；;]{2,40})"),
        lambda m: _decision(m.group("v"), None),
    ),
    # "团队批准把站会改到周二", "那就维持现在的定价"
    Pattern(
        zh(
            r"(?:我们|团队|大家|公司|老板|领导)(?:已经|最终|最后)?(?:批准|批了|批准了|通过了)\s*(?P<v>[^，,。；;]{2,40})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    Pattern(
        zh(
            r"(?:^那就|^就|我们|团队|大家)(?:还是|继续|先)?(?:维持|保持|保留|沿用)(?P<v>(?:现在|现有|原来|目前|当前)的?[^，,。；;]{2,30})"
        ),
        lambda m: _decision("维持" + m.group("v"), None),
    ),
    # "我们团队定了用Jira管需求"
    Pattern(
        zh(
            r"(?:我们|团队|大家)+(?:已经|最后|最终|刚刚)?(?:定了|定下了|选定了|敲定了)(?:用|采用|走)?\s*(?P<v>[^，,。；;]{2,30})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    # "我们开始采用主干开发"
    Pattern(
        zh(
            r"(?:我们|团队|大家)(?:已经|正式|从现在起|从今天起|以后)*(?:开始|全面)(?:采用|使用|用|推行|实行)\s*(?P<v>[^，,。；;]{2,30})"
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


# Deciding against something: the negation is the decision (not wrapped in `_not_negated`)
_AGAINST = [
    # "We're not renewing the Heroku contract", "we won't support Windows": deciding against something
    Pattern(
        rx(
            r"\b" + _WE + r"(?:'re|\s+are|'ll|\s+will|'ve|\s+have)?\s+(?:not|no\s+longer|never)\s+"
            r"(?:going\s+to\s+|gonna\s+)?(?:be\s+)?"
            r"(?P<verb>renew(?:ing)?|continu(?:e|ing)|extend(?:ing)?|support(?:ing)?|offer(?:ing)?|pursu(?:e|ing)|"
            r"maintain(?:ing)?|ship(?:ping)?|launch(?:ing)?|releas(?:e|ing)|build(?:ing)?|hir(?:e|ing)|keep(?:ing)?)\s+"
            r"(?P<v>.{2,60})"
        ),
        lambda m: _mine_en(m) and _decision("not " + m.group("verb") + " " + m.group("v"), None),
    ),
    Pattern(
        rx(
            r"\b(?:we|the\s+team)\s+won'?t\s+(?:be\s+)?(?P<verb>renew|continue|extend|support|offer|pursue|maintain|ship|"
            r"launch|release|build|hire|keep)\s+(?P<v>.{2,60})"
        ),
        lambda m: _mine_en(m) and _decision("not " + m.group("verb") + " " + m.group("v"), None),
    ),
]


# Chinese patterns that read a topic before the verb would be tried at every position of every
# sentence: each is gated on its verbs (and on Chinese text at all)
_ZH_TOPIC_GATE = re.compile(r"[\u4e00-\u9fff]")


def _gate_for(p: Pattern) -> re.Pattern[str] | None:
    src = p.rx.pattern.lstrip()
    if not (
        src.startswith("(?P<t>[\\u4e00")
        or src.startswith("(?P<who>")
        or src.startswith("^(?P<t>[\\u4e00")
        or src.startswith("(?P<v>")
        or src.startswith("^(?P<v>[\\u4e00")
    ):
        return None
    return _ZH_TOPIC_GATE


_DECISIONS = [
    Pattern(p.rx, _not_negated(p.value), True, p.gate or _gate_for(p)) for p in _DECISIONS + _GENERAL_EN + _GENERAL_ZH
]
_DECISIONS += [Pattern(p.rx, p.value, True) for p in _AGAINST]


def _decision_hit(value: tuple[str, str], match: re.Match[str]) -> Hit:
    attribute, decided = value
    return Hit("decision", Kind.KNOWLEDGE, attribute, decided, confidence=0.85, project_default=True)


def _marker_fallback(text: str) -> tuple[tuple[str, str], re.Match[str]] | None:
    zh_text = bool(re.search(r"[\u4e00-\u9fff]", text))
    found = _marker_decision_zh(text) if zh_text else _marker_decision_en(text)
    if not found:
        return None
    m = re.match(r".*", text, re.S)
    assert m is not None
    return found, m


# a request to the assistant ("help me choose", "你能帮我选一个吗") or someone else's choice
_NOT_MINE = zh(
    r"""
    (?i:^(?:please\s+)?(?:help\s+me|can\s+you|could\s+you|would\s+you|should\s+(?:we|I)|shall\s+we|which|what|how|why)\b|
    \b(?:the\s+)?(?:city(?:\s+council)?|government|council|school|university|landlord|hospital|state|country|
    neighbou?rs?|my\s+(?:friend|brother|sister|wife|husband|partner|parents?|mom|dad|kids?|son|daughter))\s+
    (?:has\s+|have\s+)?(?:decided|chose|picked|agreed|voted|opted|went\s+with|settled))|
    ^(?:请你|你能|你可以|能不能|可不可以|帮我|麻烦你|你帮我|你觉得|你说)|上一份工作|上一家公司|上家公司|前公司|老东家|以前的公司|
    (?i:\b(?:my|our)\s+(?:last|previous|old|former)\s+(?:job|company|employer|team|startup)\b)|(?:市里|市政府|政府|国家|学校|医院|小区|物业|街道|官方|法院|警方|
    城管|交警|银行|航空公司|邻居|房东|苹果|谷歌|微软|央行|美联储|联合国|欧盟|法院|市场|股市)(?:已经|最终|刚刚)?(?:决定|宣布|选了|定了)
    """
)

# every pattern and the marker fallback need one of these (a verb of choosing, changing, stopping, agreeing,
# or a word that says a choice was made): most sentences stop here
_TRIGGER = zh(
    r"""
    (?i:\b(?:cho(?:se|sen|ose|osing)|pick|picked|picking|select|selected|selecting|decid\w*|decision|settle\w*|went|
    going|go|gone|agree\w*|opt\w*|adopt\w*|lock\w*|finali[sz]\w*|commit\w*|standardi[sz]\w*|stick\w*|stay\w*|mov\w+|
    proceed\w*|ahead|switch\w*|migrat\w*|land\w*|sign\w*|vot\w*|greenlit|green-lit|approv\w*|drop\w*|cut\w*|kill\w*|
    sunset\w*|deprecat\w*|discontinu\w*|postpon\w*|delay\w*|paus\w*|shelv\w*|final|verdict|consensus|call|won|wins|
    winner|came|using|use|build\w*|writ\w*|rewrit\w*|ship\w*|launch\w*|host\w*|run\w*|hir\w*|outsourc\w*|support\w*|
    deploy\w*|licens\w*|self-host\w*|split\w*|merg\w*|replac\w*|retir\w*|freez\w*|charg\w*|pric\w*|keep\w*|it\s+is|
    official\w*|elect\w*|resolv\w*|port\w*|convert\w*|chang\w*|set|fixed|pinned|confirmed|only|new|default|standard|
    go-to|sole|single|debate|let'?s|ruled|introduc\w*|roll\w*|done|made\s+up|mind|compared|tested|evaluated|
    benchmarked|tried|trialed|trialled|reviewed|debated|leadership|management|board|client)\b)|
    决|定|选|用|采|拍板|换|改|迁|切|升级|放弃|砍|停|下线|废弃|推迟|延期|暂停|取消|关掉|通过|批|按|统一|一律|默认|同意|赞成|认可|约定|
    商定|结论|结果|投票|讨论|评审|一致|最终|最后|全面|开始|走|上|买的是|订的是|签的是|采购|继续|沿用|照旧|只
    """
)

DECISION = Family(
    "decision",
    Kind.KNOWLEDGE,
    "knowledge.decision",
    _DECISIONS,
    build=_decision_hit,
    trigger=_TRIGGER,
    guard=_NOT_MINE,
    fallback=_marker_fallback,
    fallback_needs=(_MARKER_EN, _MARKER_ZH),  # a clause that says a choice was made
)

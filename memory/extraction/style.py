"""How to explain: example or theory first (`preference.explanation_style`), conclusion first
(`preference.response.order`).

Both are an order between two kinds of content, so one small grammar serves both: "A first", "A,
then B", "A before B", "start / lead with A", "put A at the top", "B after / afterwards / 放后面"
(when an A-kind word is there too), "先 A（再 B）", "从 A 入手", "A 优先 / 先行 / 放前面".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from ..models import Kind
from . import prefilter
from .family import Hit
from .markers import ASKING
from .prefilter import one_of
from .text import _negated, rx, zh

# --- the kinds of content -------------------------------------------------------------------------

_EX_ADJ = r"""
    (?:(?:an?|some|the|any|one|a\ few|few|more|lots\ of|plenty\ of|your)\s+)?(?:(?:concrete|small|simple|
    runnable|working|practical|real|real-world|real\ world|quick|short|specific|worked|actual|toy|tiny|good|
    live|hands-on|relatable|everyday|code)\s+)*
"""
_EX_EN = r"""
    (?:examples?|samples?|sample\ code|code\ samples?|code\ snippets?|snippets?|demos?|
    code(?=\s+first\b|\s*,\s*then\b|$)|
    (?:real|concrete|
    practical|specific|real-world|worked|actual)\ (?:cases?|instances?|scenarios?)|use\ cases?|
    illustrations?|show(?=,)|the\ how|(?:some|a\ bit\ of|a\ little)\s+code)
"""
_TH_ADJ = r"(?:(?:the|a|an|some|any|your)\s+)?(?:(?:underlying|general|basic|core|key|formal|abstract|big|main)\s+)*"
_TH_EN = r"""
    (?:theory|theories|theoretical\ (?:part|side|background|bits?)|principles?|concepts?|conceptual\ (?:part|
    side|overview|explanation)|conceptually|the\ why|fundamentals|definitions?|formal\ (?:idea|definitions?|
    side)|idea|ideas|general\ rule|picture|overview|framework|mental\ models?|rules?|abstract\ (?:stuff|part|ideas?|
    bits?)|background|
    how\ (?:it|things|something|stuff)\ works?|intuition|math|rationale|explanations?|explaining|
    explain(?:ing)?\ (?:the\ )?(?:concept|theory|idea|principle)s?)
"""
_ANS_EN = r"""
    (?:(?:the|your|a|an)\s+)?(?:(?:short|final|direct|actual|main|key|overall|quick|one-line|headline)\s+)?
    (?:conclusions?|bottom\ line|summary|tl;?dr|answers?|recommendations?|results?|verdict|headlines?|
    takeaways?|key\ points?|main\ point|yes\ or\ no|yes/no|punchline|outcome|decision|gist|upshot|
    what\ to\ do|what\ I\ should\ do|what\ you\ recommend|your\ take|what\ I\ need\ to\ know|what\ matters|
    the\ important\ (?:part|stuff|bit)|the\ key\ (?:part|thing|info))
"""
_EXPL_EN = r"""
    (?:(?:the|your|a|an|any)\s+)?(?:(?:supporting|full|detailed|whole)\s+)?(?:reasoning|explanations?|details?|
    why|steps|working|work|analysis|justification|supporting\ points|points|derivation|reasons?|background|
    context|elaboration|how\ you\ got\ there|the\ rest|proof|evidence|walkthrough|process|logic|
    explain(?:ing)?|elaborat(?:e|ing)|justify(?:ing)?|walk(?:ing)?\ (?:me\ )?through)
"""
_EX_ZH = (
    r"(?:具体的?|简单的?|实际的?|真实的?|可运行的?|小|一点|点|一个|个|几个|一些|一段|段)*(?:例子|示例|样例|实例|案例|举例|例题|代码示例|"
    r"示例代码|代码|(?i:"
    r"demo))"
)
_TH_ZH = r"""
    (?:背后的原理|原理|理论推导|理论|概念框架|概念|定义|道理|一般规律|规律|为什么|抽象的(?:东西|概念|部分)|
    本质|推导|底层逻辑|机制)
"""
_ANS_ZH = (
    r"(?:重点|核心|最终|关键)?(?:结论|结果|答案|观点|建议|该怎么做|怎么做|做法|判断|是还是不是|是或不是|总结|概要|摘要|"
    r"行不行|能不能|可不可以|要不要|可不可行|好不好|对不对|是不是|选哪个|底线)"
)
_EXPL_ZH = r"(?:为什么|原因|理由|过程|分析|推理|论证|论据|细节|解释|推导|依据|背景)"

_FIRST = r"""
    (?:first|up\ front|upfront|up\ top|at\ the\ (?:very\ )?(?:beginning|start|top)|on\ top|to\ start(?:\ with)?|
    right\ away|
    straight\ away|immediately|at\ once|in\ the\ first\ (?:line|sentence|paragraph)|
    (?:should|must|needs?\ to|has\ to)\s+(?:come|go|be)\s+(?:first|at\ the\ top|up\ front))
"""
_THEN = r"(?:then|and\ then|followed\ by|before|ahead\ of|prior\ to|and\ only\ then|with\ .{1,20}?\ after)"
_AFTER = r"""
    (?:(?:only\s+|can\s+come\s+|should\s+come\s+|come\s+|comes\s+)?(?:after(?:wards?)?|later|second|below|
    underneath|at\ the\ (?:end|bottom)))
"""
_LEAD = (
    r"(?:front-?load(?:ing)?(?=\s)(?:\s+with)?|(?:start(?:ing|s)?|beginning|begins|leading|leads|opening|opens|start|b"
    r"egin|lead|open|kick\ off|kick\ things\ off|front-?load)(?:\s+(?:every|each|all|your|any|things|it|off|the|replie"
    r"s|reply|answers?|responses?|explanations?|with\ me|out)){0,3}\s+(?:with|from))"
)


# words after which the first kind is what the user asks for ("give me examples first", "I prefer the
# conclusion first", "teach me the fundamentals first"), not a narration ("I read the summary first")
_ASKING = r"""
    (?:so|and|but|just|please|always|also|usually|generally|give|giving|show|showing|put|putting|tell|state|present|
    want|prefer|like|love|need|rather|see|seeing|get|have|with|teach|explain|cover|walk\ me\ through|go\ over)
"""
_STUDYING = r"""
    (?:explaining|covering|teaching|describe|describing|lay\ out|do|doing|understand|understanding|learn|learning|
    know|knowing|grasp|hear|read|study|start\ with)
"""
_FILLERS = r"(?:(?:me|us|you|to|the|your|an?|some|always|please)\s+){0,3}"


def _ordered_en(a_any: str, b_any: str) -> list[tuple[str, str]]:
    """English (pattern, group it reads the value from) pairs for `_ordered`."""
    out: list[tuple[str, str]] = []
    # the first kind opens the sentence or follows a verb of asking / preferring ("give me examples
    # first", "I prefer the conclusion first"): not a narration ("I read the summary first")
    lead_in = r"(?:^|[,;:]\s*|\b" + _ASKING + r"\s+" + _FILLERS + r")"
    verb_in = r"(?:\b(?:" + _ASKING + r"|" + _STUDYING + r")\s+" + _FILLERS + r")"
    b_after = r"\s+(?:\w+\s+){0,5}?" + b_any.replace("(?P<b>", "(?:", 1) + r"\b"
    out.append(((lead_in + a_any + r"(?:\s*-\s*|\s+)(?:first|driven|led)\b"), "a"))
    out.append(((lead_in + a_any + r"\s+" + _FIRST + r"\b"), "a"))
    out.append(((r"\b" + _LEAD + r"\s+" + a_any + r"\b"), "a"))
    out.append(
        (
            (
                r"\b(?:show|give|put|present|tell|state|share|hand)(?:\s+(?:me|us))?\s+"
                + a_any
                + r"\s+(?:\w+\s+){0,2}?(?:first|up\ front|upfront|at\ the\ (?:very\ )?(?:beginning|start|top)|"
                r"on\ top)\b"
            ),
            "a",
        )
    )
    out.append(((verb_in + a_any + r"\b[^.;!?]{0,40}?\b" + _THEN + b_after), "a"))
    out.append(((r"(?:^|[,;:]\s*)(?:first(?:ly)?\s*,?\s*)?" + a_any + r"\s*,?\s*(?:and\s+)?" + _THEN + b_after), "a"))
    out.append(((r"\b" + b_any + r"\b[^.;!?]{0,40}?\b" + _AFTER + r"\b"), "b"))
    return out


def _ordered_zh(a_any: str, b_any: str) -> list[tuple[str, str]]:
    """Chinese (pattern, group it reads the value from) pairs for `_ordered`."""
    out: list[tuple[str, str]] = []
    out.append(
        (
            (
                r"(?<!我|们|咱)(?:先|首先)\s*(?:直接|马上|就|简单)?\s*(?:给我|给|来|举|看|上|写|放|讲|说|解释|"
                r"介绍|理解|学|搞懂|弄懂|了解|拿|摆|亮|抛出|"
                r"告诉我|列|出|下|看到|了解到|弄清|搞清|回答){0,2}(?:清楚|明白|透|完)?(?:出)?(?:我)?(?:讲讲|说"
                r"说|看看|一下|一个|个|几个|一些|些|段|一段|句|一句|句话|一句话)?\s*(?:"
                r"把)?\s*(?:[\u4e00-\u9fff]{1,5}的)?" + a_any + r"(?![:：]|\s*比如)"
            ),
            "a",
        )
    )
    out.append(((a_any + r"\s*(?:要|得)?(?:先|首先)\s*(?:讲|说|讲清楚|说清楚|讲明白|来|给|上|介绍|解释)"), "a"))
    out.append(((r"从\s*" + a_any + r"\s*(?:入手|开始|讲起|切入|说起|引入)"), "a"))
    out.append(
        (
            (
                a_any + r"\s*(?:优先|在前|先行|前置|打头|(?:放|写|摆|列)(?:在)?(?:回答|回复|答案|每次回答)?(?:的)?(?:最"
                r")?前(?:面|头)?|(?:放|写|摆|列)(?:"
                r"在)?(?:回答|回复|答案)?(?:的)?"
                r"(?:最)?(?:开头|第一句|第一段|第一行|首行|最开始|最上面|顶部|最前|开始))"
            ),
            "a",
        )
    )
    out.append(
        (
            (
                r"(?:开头|一开始|第一句话?|第一段话?|第一行|最开始)(?:就)?(?:把|先)?(?:要|能)?(?:说|给|讲|写|放"
                r"|看到|看见|给出|写出|说出|列出|是)?"
                r"(?:出)?\s*" + a_any
            ),
            "a",
        )
    )
    out.append(
        (
            (b_any + r"(?:就)?(?:放|写|说|讲|补|留)?(?:在)?(?:后面|后头|下面|最后|之后|后边)(?:补|说|讲|再说|再讲)?"),
            "b",
        )
    )
    return out


def _ordered(
    first: dict[str, str], later: dict[str, str], en: bool
) -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]]:
    """Patterns that say which kind comes first. `first` maps value -> the kind it puts first;
    `later` maps value -> the kind that, said to come after, puts the value first."""
    comp = rx if en else zh
    a_any = "(?P<a>" + "|".join(first.values()) + ")"
    b_any = "(?P<b>" + "|".join(later.values()) + ")"
    values = list(first)

    def by_a(m: re.Match[str]) -> str | None:
        for v in values:
            if re.fullmatch(first[v], m.group("a"), re.I | re.X):
                return v
        return None

    def by_b(m: re.Match[str]) -> str | None:
        for v in values:
            if re.fullmatch(later[v], m.group("b"), re.I | re.X):
                return v
        return None

    pairs = _ordered_en(a_any, b_any) if en else _ordered_zh(a_any, b_any)
    return [(comp(pattern), by_a if group == "a" else by_b) for pattern, group in pairs]


_STYLE_EN = _ordered(
    {"example first": _EX_ADJ + _EX_EN, "theory first": _TH_ADJ + _TH_EN},
    {"example first": _TH_ADJ + _TH_EN, "theory first": _EX_ADJ + r"(?:" + _EX_EN + r"|code|any\ code)"},
    True,
)
_STYLE_ZH = _ordered(
    {"example first": _EX_ZH, "theory first": _TH_ZH}, {"example first": _TH_ZH, "theory first": _EX_ZH}, False
)
_ORDER_EN = _ordered({"conclusion first": _ANS_EN}, {"conclusion first": _EXPL_EN}, True)
_ORDER_ZH = _ordered({"conclusion first": _ANS_ZH}, {"conclusion first": _EXPL_ZH}, False)
_SEE_LATER = zh(r"先(?:看看|看)[^，,。]{0,8}再说")  # "先看看结果再说": let's see first, not an order

# A later-kind word ("… explanation after") needs the first kind in the sentence too.
_NEEDS = {
    "example first": (rx(r"\b" + _EX_EN), zh(_EX_ZH)),
    "theory first": (rx(r"\b" + _TH_EN), zh(_TH_ZH)),
    "conclusion first": (rx(r"\b" + _ANS_EN), zh(_ANS_ZH)),
}
# "I learn best from examples", "看例子才懂", "show, then tell"
_STYLE_EXTRA = [
    (
        rx(
            r"\b(?:learn|understand\ things|understand|get\ it|get\ things)\s+(?:\w+\s+)?(?:best|better|most\ easi"
            r"ly|faster)\s+(?:from|with|through|via|by\ seeing)\s+" + _EX_ADJ + _EX_EN
        ),
        "example first",
    ),
    (rx(r"\bshow,?\s+(?:then|and\ then|before\ you|don'?t\ just)\s+tell\b"), "example first"),
    (
        rx(
            r"\b(?:use|give|put)\s+"
            + _EX_ADJ
            + _EX_EN
            + r"\s+(?:to\s+(?:open|start|begin|kick\ off|lead)|at\s+the\s+(?:start|beginning|top))"
        ),
        "example first",
    ),
    (zh(r"先\s*(?:上|给|写|贴|放|看)\s*(?:段|一段|点|些)?代码\s*[，,]?\s*(?:再|然后|之后)"), "example first"),
    (
        zh(r"(?:一上来|上来|开篇|开场|一开头)(?:就|先)?(?:给|举|上|来|讲|放)(?:我)?(?:一个|个|几个)?\s*" + _EX_ZH),
        "example first",
    ),
    (rx(r"\bexamples?\s+(?:help|work)\s+(?:me\s+|for\s+me\s+)?(?:most|best|the\ most|better)\b"), "example first"),
    (zh(r"(?:看|通过|靠|有)" + _EX_ZH + r"(?:才|更容易|更好|最容易)(?:懂|理解|学会|明白|看懂)"), "example first"),
    (rx(r"\bBLUF\b|\bbottom\ line\ up\ front\b"), "conclusion first"),
    (
        rx(r"\banswer\s+(?:the\s+question\s+|my\s+question\s+|it\s+)?(?:directly\s+|straight\s+)?first\b"),
        "conclusion first",
    ),
    (
        zh(r"先(?:直接)?(?:回答|答)(?:是还是不是|是不是|行不行|能不能|要不要|可不可以|yes还是no|对不对)"),
        "conclusion first",
    ),
]
# the negation is the meaning: "don't bury the conclusion at the end", "不要把结论藏在最后"
_NEGATED_ORDER = [
    rx(
        r"\b(?:don'?t|do\ not|never)\s+make\s+me\s+(?:read|scroll|dig|search|hunt|wait|look)\b.{0,40}\b(?:answer|c"
        r"onclusion|point|result)"
    ),
    rx(
        r"\b(?:don'?t|do\ not|never|stop)\s+(?:bury|hide|leave|put|save|keep)(?:ing)?\s+"
        + _ANS_EN
        + r"\s+(?:at|until|till|for)\s+(?:the\s+)?(?:end|bottom|last)\b"
    ),
    zh(r"(?:不要|别|不用)(?:把)?" + _ANS_ZH + r"(?:藏|放|留|写|拖)(?:在|到)?(?:最后|后面|末尾|结尾)"),
]
_MASK = rx(r"\byes\s+or\s+no\b|\byes/no\b")


def _scan(text: str, table: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]]) -> str | None:
    masked = _MASK.sub(lambda m: "x" * len(m.group(0)), text)  # "yes or no" is not a negation
    for pattern, get in table:
        for m in prefilter.finditer(pattern, text):
            value = get(m)
            if not value or _negated(masked, m):
                continue
            if "b" in m.re.groupindex and m.group("b") is not None and "a" not in m.re.groupindex:
                en, zh_ = _NEEDS[value]
                if not (
                    en.search(text[: m.start()] + text[m.end() :]) or zh_.search(text[: m.start()] + text[m.end() :])
                ):
                    continue
            return value
    return None


def _extra(text: str, values: set[str]) -> str | None:
    for pattern, value in _STYLE_EXTRA:
        if value in values and prefilter.test(pattern, text):
            return value
    return None


# --- cue fallback: which of two kinds is said to come first, by position and the words around them ----
_FIRST_BEFORE = zh(
    r"""
    (?i:\b(?:first|firstly|start(?:ing)?\s+(?:with|from|by)|begin(?:ning)?\s+with|lead(?:ing)?\s+with|
    open(?:ing)?\s+with|
    up\s+front\s+with|kick\s+off\s+with)\s+(?:\w+\s+){0,3}$)|(?:先|首先|一上来就?|开头就?|上来就?|从)[^，,。]{0,6}$
    """
)
_FIRST_AFTER = zh(
    r"""
    ^(?i:\s*(?:first|up\s+front|upfront|at\s+the\s+(?:top|start|beginning)|on\s+top|to\s+start|before\b))|
    ^[^，,。]{0,4}?(?:先行|优先|在前|放前|放在前|开头|入手|开始|打头|为先)
    """
)
_LATER_BEFORE = zh(
    r"""
    (?i:\b(?:then|and\s+then|followed\s+by|after\s+that|afterwards?|later|next|before\s+(?:the|any|giving|showing|
    you))\s+
    (?:\w+\s+){0,3}$)|(?:再|然后|之后|后|其次|接着|最后)[^，,。]{0,6}$
    """
)
_LATER_AFTER = zh(
    r"""
    ^(?i:\s*(?:\w+\s+){0,2}(?:after(?:wards?)?|later|second|below|underneath|at\s+the\s+(?:end|bottom)|can\s+wait|
    can\s+come\s+later))|
    ^[^，,。]{0,6}?(?:后面|后头|放后|之后|其次|再说|再讲|最后|靠后|后说|后讲)
    """
)
_CUE_NEG = zh(r"(?i:\b(?:don'?t|do\s+not|never|no\s+need|stop)\b)|别|不要|不用|不必|不需要")


def _first_by_position(text: str, kinds: dict[str, re.Pattern[str]]) -> str | None:
    """The kind said to come first: "A first", "先 A", "start with A", "A … then B", "B later / 放后面"."""
    mentions = sorted(
        (m.start(), m.end(), value) for value, k in kinds.items() for m in k.finditer(text) if m.group(0).strip()
    )
    if not mentions:
        return None
    values = list(kinds)
    other = {values[0]: values[-1], values[-1]: values[0]} if len(values) == 2 else {}
    for start, end, value in mentions:
        before, after = text[:start], text[end:]
        clause = re.split(r"[,，;；。]", before)[-1]
        if _CUE_NEG.search(clause):
            continue
        if _FIRST_BEFORE.search(before) or _FIRST_AFTER.search(after):
            return value
        later = other and (_LATER_BEFORE.search(before) or _LATER_AFTER.search(after))
        if later and any(v == other[value] for _, _, v in mentions):
            return other[value]
    kinds_seen = [v for _, _, v in mentions]
    if other and len(set(kinds_seen)) == 2:
        first = mentions[0]
        between = text[first[1] : next(m[0] for m in mentions if m[2] != first[2])]
        if re.search(r"(?i)\b(?:then|before|followed\s+by|prior\s+to)\b|再|然后|之后|后", between):
            return first[2]
        if re.search(r"(?i)\bafter\b|之前|以前", between):
            return other[first[2]]
    return None


_STYLE_KINDS = {
    "example first": zh(r"(?i:\b" + _EX_EN + r"\b)|" + _EX_ZH),
    "theory first": zh(r"(?i:\b" + _TH_EN + r"\b)|" + _TH_ZH),
}
_ORDER_KINDS = {
    "conclusion first": zh(r"(?i:\b" + _ANS_EN + r"\b)|" + _ANS_ZH),
    "later": zh(r"(?i:\b" + _EXPL_EN + r"\b)|" + _EXPL_ZH),
}


def _style_cue(text: str) -> str | None:
    if not ASKING.search(text) or _SEE_LATER.search(text):
        return None
    return _first_by_position(text, _STYLE_KINDS)


def _order_cue(text: str) -> str | None:
    if not ASKING.search(text) or _SEE_LATER.search(text):
        return None
    value = _first_by_position(text, _ORDER_KINDS)
    return value if value == "conclusion first" else None


# words without which neither family can read an order: a kind of content (style), a word of order (order)
_STYLE_TRIGGER = zh(
    "|".join(p.pattern for p in _STYLE_KINDS.values()) + r"|(?i:\bshow\b|\bcode\b|\bsnippets?\b)|代码|案例"
)
_ORDER_TRIGGER = zh(
    r"""
    (?i:\b(?:BLUF|bottom|first|up\s*front|upfront|top|lead|leads|leading|start|starts|starting|begin|begins|beginning|
    open|opens|opening|then|before|after|afterwards?|later|second|below|underneath|end|next|kick|wait|last|bury|hide|
    scroll|dig|hunt|front-?load\w*)\b)|先|前|后|开头|一上来|上来|开门见山|打头|首先|再|从|其次|最后|靠后|末尾|结尾|藏
    """
)


# what each family cannot fire without (the prefilter's look): the trigger each checks first, and
# what gives it a value: one of its patterns, or the cue (a request, and a kind it puts first)
STYLE_REQUIRES = one_of(_STYLE_TRIGGER) & one_of(
    *(pattern for pattern, _ in _STYLE_EN + _STYLE_ZH),
    *(pattern for pattern, value in _STYLE_EXTRA if value == "example first"),
    *((ASKING, kind) for kind in _STYLE_KINDS.values()),
)
ORDER_REQUIRES = one_of(_ORDER_TRIGGER) & one_of(
    *(pattern for pattern, _ in _ORDER_EN + _ORDER_ZH),
    *(pattern for pattern, value in _STYLE_EXTRA if value == "conclusion first"),
    *_NEGATED_ORDER,
    (ASKING, _ORDER_KINDS["conclusion first"]),
)
# the tables the families search: tried only on a sentence that has their words
prefilter.indexed(*(pattern for table in (_STYLE_EN, _STYLE_ZH, _ORDER_EN, _ORDER_ZH) for pattern, _ in table))
prefilter.tested(_STYLE_TRIGGER, _ORDER_TRIGGER, *(pattern for pattern, _ in _STYLE_EXTRA), *_NEGATED_ORDER)


def style_hits(text: str, at: datetime) -> list[Hit]:
    if not prefilter.test(_STYLE_TRIGGER, text):
        return []
    value = _scan(text, _STYLE_EN) or _scan(text, _STYLE_ZH) or _extra(text, {"example first"}) or _style_cue(text)
    if not value:
        return []
    return [Hit("explanation_style", Kind.PREFERENCE, "preference.explanation_style", value, temporal=True)]


def order_hits(text: str, at: datetime) -> list[Hit]:
    if not prefilter.test(_ORDER_TRIGGER, text):
        return []
    value = _scan(text, _ORDER_EN) or (None if _SEE_LATER.search(text) else _scan(text, _ORDER_ZH))
    value = value or _extra(text, {"conclusion first"})
    if not value and any(prefilter.test(p, text) for p in _NEGATED_ORDER):
        value = "conclusion first"
    value = value or _order_cue(text)
    if not value:
        return []
    return [Hit("order", Kind.PREFERENCE, "preference.response.order", value, temporal=True)]

"""Answer detail: one slot, `preference.response.detail` = "concise" | "detailed"."""

from __future__ import annotations

import re
from datetime import datetime

from ..models import Kind
from .family import Family, Hit
from .markers import ASKING
from .prefilter import rewritten
from .text import Pattern, _negated, rx, zh

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
    Pattern(
        rx(
            r"""
            \b(?:don'?t|do\ not|never|stop|no\ need\ to)\s+(?:over-?explain(?:ing)?|ramble|rambling|
            pad(?:ding)?|writ(?:e|ing)\s+(?:essays|novels|walls\ of\ text|so\ much|that\ much|a\ lot)|
            go\ on\ and\ on|drag\ (?:it|things)\ out)\b
            """
        ),
        "concise",
        True,
    ),
    # "skip the long explanations", "spare me the details": what to leave out
    Pattern(
        rx(
            r"""
            \b(?:avoid|no\ more|enough\ with)\s+(?:the\s+|any\s+|those\s+)?(?:long[- ]winded|lengthy|long|verbose|
            wordy|rambling)\s+
            (?:answers?|responses?|replies|explanations?|essays?|texts?)\b|
            \b(?:skip|drop|cut|cut\ out|spare\ me|leave\ out|lose|ditch|forget)\s+(?:all\s+)?(?:the|your|those|any)?\s*
            (?:long\s+|lengthy\s+|detailed\s+|extra\s+)?(?:explanations?|details?|preambles?|fluff|filler|intros?|
            introductions?|background|small\ talk|caveats|disclaimers|walls?\ of\ text|essays?)\b
            """
        ),
        "concise",
        True,
    ),
    Pattern(
        rx(
            r"""
            \b(?:don'?t|do\ not|never|no\ need\ to)\s+(?:worry|care)\s+about\s+(?:the\s+)?(?:length|being\s+
            (?:long|verbose|wordy)|how\ long)|
            \b(?:don'?t|do\ not|never)\s+(?:hold\ back|skimp|cut\ corners|leave\ (?:anything|things|stuff)\ out|
            (?:over)?simplify|dumb\ it\ down)\b
            """
        ),
        "detailed",
        True,
    ),
    Pattern(
        zh(
            r"""
            (?:别|不要|不用|不必|无需)(?:怕|担心|在意|管|顾虑)(?:写得|说得|讲得)?(?:太)?(?:啰嗦|啰唆|长|多|篇幅|字数|
            长度)|(?:别|不要|不用)(?:只|光)(?:说|讲|给|写)?(?:个)?(?:大概|概括|结论|要点|大意|梗概)|
            (?:越详细越好|越细越好|越全越好|多多益善)|
            (?:细节|步骤)(?:也|都)?(?:别|不要|不能)(?:省略|省|跳过|略过|漏)|(?:别|不要)(?:省略|跳过|略过)(?:细节|步骤)
            """
        ),
        "detailed",
        True,
    ),
    Pattern(
        zh(
            r"""
            (?:不需要|不用|不必|别|不要|无需)(?:讲|说|写|解释)?(?:得)?(?:那么|这么|太|过于)(?:细|多|长|具体|
            复杂|深)|(?:别|不要)(?:写|说|讲)(?:那么|这么|太)多
            """
        ),
        "concise",
        True,
    ),
    # plain
    Pattern(
        rx(
            r"""
            \b(?:short|shorter|brief|briefer|concise|succinct|terse|compact|crisp|quick|
            to[- ]the[- ]point)\s+(?:\w+\s+){0,2}?(?:answers?|responses?|replies|reply|explanations?|
            ones|output|summaries|versions?)\b(?!\s*(?:first|,?\s*then)\b)
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
            tight)(?!\s+(?:of|notes?|list|term|lines?|story|cut)\b))
            """
        ),
        "concise",
    ),
    Pattern(
        rx(
            r"""
            \bbe\s+(?:(?:a\ bit|a\ little|slightly|much|way|more|very|really|super|extra)\s+)*(?:brief|concise|
            succinct|terse)\b|
            \b(?:don'?t|do\ not)\s+need\s+(?:the\s+|a\s+)?(?:whole|full|entire|long|life)\s+(?:story|thing|
            explanation|essay|
            backstory|history)|\bjust\s+(?:give\s+me\s+)?the\s+(?:answer|facts|result|short\ answer)\b|
            \bone[- ]liners?\b(?!\s+(?:to|for|that|which)\b)|\bone[- ]line\s+(?:answers|replies|responses)\b|
            \b(?:give|tell|send|show)\s+(?:me|us)\s+(?:just\s+|only\s+)?(?:the\s+)?(?:gist|highlights|cliff\ ?notes|
            short\ version|tl;?dr(?:\ version)?|key\ points\ only)\b|\bjust\s+the\s+(?:gist|highlights|basics|
            essentials)\b|
            \bas\s+(?:brief|short|concise|succinct)\s+as\s+(?:possible|you\ can)\b|\bless\s+text\b|
            \b(?:short|brief|concise|succinct|to[- ]the[- ]point)(?:\s+(?:and|&)\s+(?:to\ the\ point|sweet|simple|crisp|
            concise|direct))?\s+(?:answers\s+|replies\s+|responses\s+)?(?:works?|is|are|suits?\s+me)\s+(?:best|better|
            great|
            well)\b|
            \b(?:brief|short|shorter|concise|less|succinct)\s+is\s+(?:better|best|fine|good|preferred|
            the\ way\ to\ go)\b|\bget\ (?:straight\ )?to\ the\ point\b|\bkeep\ it\ snappy\b|
            \b(?:less|fewer)\s+(?:detail|details|words|text)\b|\bbrevity\b|\bkeep\s+it\s+short\b
            """
        ),
        "concise",
    ),
    Pattern(
        rx(
            r"""
            \blong\s+(?:answers|responses|replies|explanations|write-?ups)\b|
            \b(?:detailed|thorough|in[- ]depth|comprehensive|longer|long[- ]form|elaborate|exhaustive|
            fuller|full|complete|deep)\s+(?:\w+\s+){0,2}?(?:answers?|responses?|replies|reply|explanations?|ones|
            walkthroughs?|write-?ups|breakdowns?)\b(?!\s+(?:of|about|on|for)\b)|
            \b(?:always|usually|generally|really)\s+(?:want|like|prefer)\s+(?:the|a)\s+deep[- ]dive\b|
            \bdeep[- ]dives\b|\bthe\s+extra\s+mile\b|\b(?:appreciate|enjoy|value|love)\b.{0,30}\b(?:details|depth|
            thoroughness|nuance)\b|
            \b(?:more|extra)\s+(?:detail|details|depth)\s+is\s+(?:always\s+)?(?:better|good|welcome|fine)\b|
            \bthe\s+more\s+(?:detail|details|detailed|thorough)\b|\belaborate\b(?!\s+on\b)|\bas\s+(?:detailed|
            thorough|comprehensive|complete|in[- ]depth)\s+as\s+(?:possible|you\ can)\b|\ball\ the\ (?:details|nuance|
            detail)\b|
            \bbe\s+(?:more\s+|very\s+)?(?:verbose|thorough|detailed|exhaustive|comprehensive)\b|
            \bover-?explain\b|\b(?:like|love|want|prefer|appreciate|need)\s+(?:the\s+|lots\ of\s+|
            a\ lot\ of\s+|more\s+)?(?:detail|details|depth|nuance)\b(?!\s+(?:in|of|on|about)\b)
            """
        ),
        "detailed",
    ),
    Pattern(
        rx(
            r"""
            \bin\ (?:more\ |full\ |great\ |much\ more\ |greater\ )?detail\b|
            \bgo\s+(?:into|in)\s+(?:as\ much\ |more\ |lots\ of\ |a\ lot\ of\ |great\ |full\ )?
            (?:depth|detail)\b|
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
    Pattern(
        zh(
            r"""
            (?:一|两|一两|两三|几|三)句话?(?:就)?(?:说|讲)(?:清楚|完|明白)|
            (?:简短|简洁|简明|简要|精简|简练)(?!一?[点些]?的(?!回答|回复|答案|说明|解释|讲解|表达|版本|
            风格)[\u4e00-\u9fff])|
            短一[点些]|能短就短|废话少说|少说废话|直接上干货|只要干货|说干货|上干货|越短越好|越简单越好|越简洁越好|
            短点|言简意赅|长话短说|少说废话|少废话|短小精悍|一针见血|开门见山|干脆利落|干脆点|利落点|直截了当|痛快点|
            (?:几|一两|两三)(?:行|句)(?:话)?就(?:够|行|好|可以)|(?:只|就)(?:说|讲|给)?要点|要点就(?:行|好|够)|
            简单(?:一)?[点些]|简单说说|简单讲讲|简单(?:地)?(?:说|讲)(?:一下|下)?就(?:行|好|可以)|
            (?:大概|大致|粗略)(?:说|讲)(?:一下|下|说|讲)?就(?:行|好|可以)|只(?:看|要|需要)重点|挑重点(?:说|讲)|
            说重点(?!结论)|讲重点(?!结论)|直接(?:说|给)(?:重点|答案)
            """
        ),
        "concise",
    ),
    Pattern(
        zh(
            r"""
            (?<!很|挺)(?<!非常|特别)详细(?=$|[，,。！!；;？?\s]|一?[点些]|地(?!址|点)|的(?:回答|解释|说明|讲解|步骤|
            过程|推导|答案|分析|版本)|回答|解释|说明|讲解|
            讲|说|写|分析|展开|介绍|吧|哈|啊|呢|啦|了|就好|就行|到|得|程度|些)|详尽|具体一?[点些]|(?:写|讲|
            说)(?:得)?清楚(?!的)|
            (?:长|细|全|深入)一?[点些](?:的|、)|写全一?[点些]|完整的(?:解释|回答|说明|讲解)|
            (?:讲|说|写|解释)得?(?:细|详细|具体|透|透彻|全面)一?[点些]|(?:尽量|尽可能)?全面(?:一?[点些]|的(?:回答|
            解释|说明))|
            (?:尽量|尽可能)(?:全面|完整|详尽)|细致|(?:长|多)(?:一点|一些|点)?(?:也)?没(?:关系|事)|不怕长|讲透|说透|
            讲透彻|
            讲明白|说明白|掰开揉碎|多(?:写|讲|说|给|加)(?:一)?[点些]?(?:细节|例子|解释)|细节多一?[点些]|
            细节(?:也|都)?(?:给我|要)?(?:讲|说|写)|(?:讲|说)(?:讲|说)?细节|面面俱到|深入(?:讲|说|解释|分析)|
            (?:推导|推理|计算|解题)(?:过程|步骤)|展开(?:讲|说|解释|来)|一步一步|一步步|逐步|分步骤?
            """
        ),
        "detailed",
    ),
]


# --- cue fallback: a length/detail word said about the answers, in a request ---------------------------
_CONCISE_CUE = zh(
    r"""
    (?i:\b(?:short|shorter|brief|briefer|briefly|concise|concisely|succinct|succinctly|terse|compact|condensed|crisp|
    to\ the\ point|straight\ to\ the\ point|bite-sized|skimmable|tl;?dr|less\ (?:detail|text|words)|fewer\ words|
    summar(?:y|ies)\ only|bullets?\ only)\b)|简短|简洁|简单|精简|简要|简明|扼要|精炼|短(?!信|期|视频)|直接点|要点就行|
    概括一下就
    """
)
_DETAILED_CUE = zh(
    r"""
    (?i:\b(?:detail|details|detailed|thorough|thoroughly|in[- ]depth|comprehensive|elaborate|exhaustive|deep|depth|
    full|fuller|complete|step[- ]by[- ]step|verbose|nuance|nuanced|long|longer|lengthy|extensive)\b)|详细|详尽|具体|
    细致|细一|细点|
    深入|完整|全面|展开|透彻|讲透|长一|长点|完备
    """
)
_ANSWER_TARGET = zh(
    r"""
    (?i:\b(?:answers?|repl(?:y|ies)|responses?|explanations?|explain|explaining|write-?ups?|you\ write|
    your\ (?:writing|style)|
    it|things|everything|output|messages?|summar(?:y|ies)|walkthroughs?|breakdowns?)\b)|回答|回复|答复|解释|讲|说|写|
    内容|答案|版本
    """
)
_TOO = zh(r"(?i:\btoo\s+(?P<en>\w+)|\bway\s+too\s+(?P<en2>\w+))|太(?P<zh>长|短|简单|简略|啰嗦|详细|多|少)")


def _detail_cue(m: re.Match[str]) -> str | None:
    text = m.string
    too = _TOO.search(text)
    complaint = bool(
        too
        and re.search(
            r"(?i)\byour\s+(?:\w+\s+)?(?:answers?|repl(?:y|ies)|responses?|explanations?)\b|你的?回答|你的?回复", text
        )
    )
    if not complaint and not (ASKING.search(text) and _ANSWER_TARGET.search(text)):
        return None
    if too:  # "your answers are too long" asks for the opposite
        word = (too.group("en") or too.group("en2") or too.group("zh") or "").casefold()
        if word in ("long", "wordy", "verbose", "detailed", "much", "lengthy", "长", "啰嗦", "详细", "多"):
            return "concise"
        if word in ("short", "brief", "terse", "vague", "simple", "短", "简单", "简略", "少"):
            return "detailed"
    concise = [c for c in _CONCISE_CUE.finditer(text) if not _negated(text, c)]
    detailed = [c for c in _DETAILED_CUE.finditer(text) if not _negated(text, c)]
    if concise and not detailed:
        return "concise"
    if detailed and not concise:
        return "detailed"
    return None


_DETAIL.insert(
    0,
    Pattern(
        zh(r"(?:少|别|不要|不用)(?:点|些)?(?:铺垫|绕弯子?|兜圈子|客套|寒暄|废话|小作文|写小作文)"), "concise", True
    ),
)
# (the cue gives nothing without a cue word or a "too …": the gate says so to the prefilter)
_CUE_GATE = zh("|".join((_CONCISE_CUE.pattern, _DETAILED_CUE.pattern, _TOO.pattern)))
_DETAIL.append(Pattern(zh(r"^.+$"), _detail_cue, True, _CUE_GATE))


# the words without which no pattern (or the cue fallback) can read a detail preference
_TRIGGER = zh(
    _CONCISE_CUE.pattern
    + "|"
    + _DETAILED_CUE.pattern
    + r"""|(?i:verbose|wordy|ramble|rambling|essay|novel|wall|fluff|filler|intro|preamble|small\s+talk|caveat|
    disclaimer|skip|spare|gist|highlights|cliff|one-?liner|snappy|brevity|less|fewer|step|reasoning|derivation|working|logic|simplif|
    dumb|hold\s+back|skimp|cut\s+corners|leave|worry|care|length|how\s+long|facts|result|point|essentials|basics|
    deep-?dive|extra\s+mile|over-?explain|pad|drag|go\s+on|backstory|history|story|spell\s+out|lay\s+out|write\s+out|
    walk|thorough|depth|nuance|detail|elaborat|tight)|啰|唆|冗长|长篇|废话|干货|重点|要点|简|短|详|细|展开|透|深入|具体|
    明白|清楚|全面|完整|一步|逐步|分步|推导|过程|步骤|大概|大致|粗略|概括|结论|梗概|大意|篇幅|字数|长度|怕|担心|多|少|
    铺垫|绕|兜圈|客套|寒暄|小作文|几行|几句|句话|掰开|面面俱到|干脆|利落|直截了当|痛快|开门见山|一针见血|言简意赅|长"""
)
_FAMILY = Family("detail", Kind.PREFERENCE, "preference.response.detail", _DETAIL, temporal=True, trigger=_TRIGGER)
# "I prefer long, in-depth answers over quick summaries": what is preferred, not what it is preferred to
_PREFERS = rx(r"\b(?:prefer|like|love|want|favou?r|rather)\b")
_OVER = rx(r"\s+(?:over|rather\s+than|instead\s+of|as\s+opposed\s+to|more\s+than|not)\s+[^,;.]*")


class _Detail:
    rule = "detail"
    # the prefilter's look: the family's trigger, in the sentence as given (the family reads it
    # with the "over …" part cut out, gluing the rest together)
    requires = rewritten(_FAMILY.requires)

    @staticmethod
    def hits(text: str, at: datetime) -> list[Hit]:
        pref = _PREFERS.search(text)
        if pref:
            over = _OVER.search(text, pref.end())
            if over:
                text = text[: over.start()] + text[over.end() :]
        return _FAMILY.hits(text, at)


DETAIL = _Detail()

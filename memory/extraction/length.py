"""Answer length: quantitative limits (`preference.response.length`, "3 sentences", "at most 100 words")."""

from __future__ import annotations

import re

from ..models import Kind
from .family import Family
from .text import Pattern, rx, to_int, zh

_UNITS_EN = {
    "word": "words",
    "sentence": "sentences",
    "line": "lines",
    "paragraph": "paragraphs",
    "bullet": "bullet points",
    "bullet point": "bullet points",
    "point": "points",
    "character": "characters",
}
_UNITS_ZH = {
    "字符": "characters",
    "bullet point": "bullet points",
    "bullet points": "bullet points",
    "bullet": "bullet points",
    "bullets": "bullet points",
    "句": "sentences",
    "句话": "sentences",
    "字": "characters",
    "个字": "characters",
    "行": "lines",
    "行字": "lines",
    "段": "paragraphs",
    "段话": "paragraphs",
    "个要点": "points",
    "要点": "points",
    "条": "points",
    "点": "points",
}
_NUM_EN = r"""
              (\d+|a\ single|single|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|
              thirty|fifty|a\ hundred|hundred|a\ few|a\ couple\ of|a\ couple)
          """
_NUM_ZH = r"(\d+|[一二两三四五六七八九十百千]+)"


_UNIT_EN = r"""
    (?:words?|sentences?|lines?|paragraphs?|paras?|bullet\ points?|bullets?|points?|characters?|chars?))
"""
_ADJ_EN = r"(?:(?:short|brief|concise|small|tight|quick)\s+)?"
_ALIASES_EN = {"char": "character", "para": "paragraph", "paragraph": "paragraph"}


def _unit_en(raw: str) -> str | None:
    u = " ".join(raw.casefold().split())
    u = u[:-1] if u.endswith("s") else u
    return _UNITS_EN.get(_ALIASES_EN.get(u, u))


def _value(n: int | None, unit: str | None, mode: str) -> str | None:
    if not n or not unit:
        return None
    if n == 1 and unit.endswith("s"):
        unit = unit[:-1]
    if mode == "exact":
        return f"{n} {unit}"
    if mode == "about":
        return f"about {n} {unit}"
    return f"at most {n} {unit}"


def _len_en(m: re.Match[str]) -> str | None:
    lead = (m.group("lead") or "").casefold().strip()
    tail = (m.group("tail") or "").casefold().strip() if "tail" in m.re.groupindex else ""
    if tail:
        mode = "max"
    elif lead in ("in", "use", "using"):
        mode = "exact"
    elif re.search(r"\b(?:around|about|roughly|approximately)$|\bfor$", lead):
        mode = "about"
    else:
        mode = "max"
    n_raw = m.group("n").casefold()
    if n_raw in ("a", "an"):
        if mode == "exact":
            return None  # "in a word", "in a sentence": a figure of speech
        n_raw = "one"
    return _value(to_int(n_raw), _unit_en(m.group("u")), mode)


def _len_en_about(m: re.Match[str]) -> str | None:
    return _value(to_int(m.group("n")), _unit_en(m.group("u")), "about")


def _len_zh(m: re.Match[str]) -> str | None:
    n = to_int(m.group(2))
    unit = _UNITS_ZH.get(m.group(3))
    if not n or not unit:
        return None
    if n == 1 and unit.endswith("s"):
        unit = unit[:-1]
    exact = not (m.group(1) and m.group(1) not in ("用", "在")) and not m.group(4)
    return f"{n} {unit}" if exact else f"at most {n} {unit}"


def _len_zh_about(m: re.Match[str]) -> str | None:
    return _value(to_int(m.group(2)), _UNITS_ZH.get(m.group(3)), "about")


# at most / no more than / under / cap ... at / limit ... to / keep ... to
_LIMIT_EN = r"""
    (?P<lead>in|use|using|within|under|at\ most|at\ the\ most|no\ more\ than|not\ more\ than|no\ longer\ than|
    no\s+(?:answers?|repl(?:y|ies)|responses?)\s+(?:longer|more)\s+than|
    not\ longer\ than|shorter\ than|less\ than|fewer\ than|max(?:imum)?(?:\ of)?|up\ to|
    (?:never|don'?t|do\ not|not|never\ ever)\s+(?:go|be|run|write|get)\s+(?:over|beyond|past|above|longer\ than|
    more\ than)|(?:don'?t|do\ not|never|not)\s+(?:to\s+)?exceed|
    (?:capped|limited|restricted|kept)\s+(?:to|at|under|within)|
    (?:aim|shoot|go|target)(?:ing)?\s+for(?:\s+(?:about|around|roughly|approximately))?|
    (?:limit|cap|restrict|keep|hold|trim|cut)\s+(?:\w+\s+){0,3}?(?:to|under|within|at|below)
    (?:\s+(?:around|about|roughly|approximately|a\ maximum\ of|max|at\ most))?)
"""
_NUM_EN_N = _NUM_EN.replace("(", "(?P<n>", 1).replace("a\\ couple)", "a\\ couple|a|an|one)")
_LENGTH = [
    # "Just a single line, please", "one paragraph is enough", "一行字就够了"
    Pattern(
        rx(
            r"^(?:(?:just|only|please|keep\s+it\s+to)\s+)*(?P<n>a\s+single|one|two|three|four|five|\d+)\s+(?:short\s+)?"
            r"(?P<u>lines?|sentences?|paragraphs?|bullet\s+points?|bullets?)\b(?:\s*,?\s*(?:please|is\s+(?:enough|fine|plenty)|"
            r"will\s+do|max|tops|each\s+time|every\s+time|from\s+now\s+on))*$"
        ),
        lambda m: _value(to_int(m.group("n")), _unit_en(m.group("u")), "exact"),
    ),
    Pattern(
        zh(
            r"(?:最多|至多|顶多|不超过|别超过|不要超过)(?:给我|给|写|说|列|用|回)?\s*"
            + _NUM_ZH
            + r"\s*(个要点|要点|条|句话?|段话?|行|个字|字)"
        ),
        lambda m: _value(to_int(m.group(1)), _UNITS_ZH.get(m.group(2)), "max"),
    ),
    Pattern(
        zh(
            r"^(?:只要|就)?"
            + _NUM_ZH
            + r"\s*(行字?|句话?|段话?|个要点|条)(?:就)?(?:够了|够|行了|行|好了|可以了|足够了|足矣)"
        ),
        lambda m: _value(to_int(m.group(1)), _UNITS_ZH.get(m.group(2)), "max"),
    ),
    Pattern(
        rx(
            r"\b"
            + _LIMIT_EN
            + r"\s+"
            + _NUM_EN_N
            + r"[\s-]+"
            + _ADJ_EN
            + r"(?P<u>"
            + _UNIT_EN
            + r"(?P<tail>\s+or\s+(?:fewer|less|under|shorter|so))?\b(?!\s+of\b)"
        ),
        _len_en,
        True,
    ),
    # "five sentences max", "two bullet points tops", "3 paragraphs or fewer", "a 100-word limit"
    Pattern(
        rx(
            r"\b"
            + _NUM_EN_N
            + r"[\s-]+"
            + _ADJ_EN
            + r"(?P<u>"
            + _UNIT_EN
            + r"""(?P<tail>\s*,?\s*(?:max(?:imum)?|tops|at\ most|at\ the\ most|or\ (?:fewer|less|under|shorter)|
            (?:is|are)\s+(?:the|my)\s+(?:max(?:imum)?|limit|cap|ceiling)|limit|cap|ceiling|
            (?:should\s+be|is|are|will\s+be)\s+(?:more\s+than\s+|plenty\s+|quite\s+)?(?:enough|plenty|
            sufficient)))\b(?P<lead>)
            """
        ),
        _len_en,
    ),
    # "150 words is about the right length"
    Pattern(
        rx(
            r"\b"
            + _NUM_EN_N
            + r"[\s-]+(?P<u>"
            + _UNIT_EN
            + r"""\s+(?:is|are|sounds|feels|seems)\s+(?:about\s+|roughly\s+|probably\s+)?(?:the\s+|a\s+)?
            (?:right|good|ideal|perfect|sweet\ spot|sweet-spot|enough|plenty)\b
            """
        ),
        _len_en_about,
    ),
    Pattern(
        zh(
            r"(用|在|控制在|不超过|不要超过|别超过|最多|至多|少于|限制在|不能超过|不得超过|不许超过|上限(?:就)?(?:"
            r"是|为|定|设)?(?:为|在|成)?)"
            r"\s*(?:列|写|给|用|说|放|分)?\s*"
            + _NUM_ZH
            + r"\s*(?:个|条)?\s*(句话|句|个字|字符|字|行|段话|段|个要点|要点|条|(?i:bullet\s*points?|bullets?))\s*(以"
            r"内|之内|内)?"
        ),
        _len_zh,
        True,
    ),
    Pattern(
        zh(
            r"()"
            + _NUM_ZH
            + r"\s*(句话|句|个字|字符|字|行|段话|段|个要点|要点|条)\s*(以内|之内|内|为限|封顶|就够了?|就行|就好|即可"
            r"|足够)"
        ),
        _len_zh,
    ),
    # "字数别超过三百"
    Pattern(
        zh(
            r"(字数|篇幅|长度)\s*(?:尽量|最好)?(?:别|不要|不能|不得|不许)?(?:超过|控制在|限制在|在|不超过|最多)\s*"
            + _NUM_ZH
            + r"\s*(?:个)?(?:字|字符)?\s*(?:以内|之内|内)?"
        ),
        lambda m: _value(to_int(m.group(2)), "characters", "max"),
        True,
    ),
    Pattern(
        zh(
            r"()"
            + _NUM_ZH
            + r"\s*(句话|句|个字|字符|字|行|段话|段|个要点|要点|条)\s*(?:左右|上下)\s*(?:刚好|就好|就行|正好|合适|最"
            r"好|差不多)"
        ),
        _len_zh_about,
    ),
    # inverted: "要点列三个就够了", "字数上限就定200字"
    Pattern(
        zh(
            r"(要点|字数|句子|段落|篇幅)\s*(?:上限)?\s*(?:就)?(?:列|写|给|控制在|定|定为|定在|设为)?\s*"
            + _NUM_ZH
            + r"\s*(?:个|条|句|段|字)?\s*()(?=就够|就行|就好|即可|足够|封顶|为限|以内|之内)"
        ),
        lambda m: _value(
            to_int(m.group(2)),
            {"要点": "points", "字数": "characters", "句子": "sentences", "段落": "paragraphs", "篇幅": "characters"}[
                m.group(1)
            ],
            "max",
        ),
    ),
    Pattern(
        zh(
            r"()" + _NUM_ZH + r"\s*(句话|句|个字|字|段话|段)\s*()(?=(?:来|就)?(?:回答|说完|讲完|概括|总结|说明|讲清楚))"
        ),
        _len_zh,
    ),
]


# "Summarize the report in three bullet points", "用三个要点总结一下这份报告": a task's format, not a preference
_TASK = zh(
    r"""
    (?i:^(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:summari[sz]e|explain|describe|write|list|outline|draft|translate|
    rewrite|condense|give\s+me|tell\s+me|answer|compare|review)\s+(?:\w+\s+){0,2}?(?:the|this|that|these|those|my|our|
    it|them)\b)|
    (?:总结|概括|解释|翻译|改写|写|列|描述|回答|讲讲|说说)(?:一下)?(?:这|那|上面|下面|我的)
    """
)
_SCOPED = zh(
    r"""
    (?i:\b(?:from\ now\ on|going\ forward|always|every\ time|in\ general|by\ default|this\ time|all\ (?:your\ )?
    (?:answers|replies|responses)|each\ (?:answer|reply|response)|every\ (?:answer|reply|response))\b)|
    以后|今后|每次|一律|这次|本次|默认|所有回答|都
    """
)


def _not_a_task(get):  # type: ignore[no-untyped-def]
    def checked(m: re.Match[str]) -> str | None:
        if _TASK.search(m.string) and not _SCOPED.search(m.string):
            return None
        return get(m)

    return checked


_LENGTH = [Pattern(p.rx, _not_a_task(p.value), p.neg_ok) for p in _LENGTH]


LENGTH = Family("length", Kind.PREFERENCE, "preference.response.length", _LENGTH, temporal=True)

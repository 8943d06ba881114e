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
    "句": "sentences",
    "句话": "sentences",
    "字": "characters",
    "个字": "characters",
    "行": "lines",
    "段": "paragraphs",
    "段话": "paragraphs",
    "个要点": "points",
    "要点": "points",
    "条": "points",
    "点": "points",
}
_NUM_EN = r"""
              (\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|
              thirty|fifty|a\ hundred|hundred|a\ few|a\ couple\ of|a\ couple)
          """
_NUM_ZH = r"(\d+|[一二两三四五六七八九十百千]+)"


def _len_en(m: re.Match[str]) -> str | None:
    n = to_int(m.group(2))
    unit = _UNITS_EN.get(m.group(3).casefold().rstrip("s"))
    if not n or not unit:
        return None
    exact = m.group(1).casefold().strip() in ("in", "use", "using")
    return f"{n} {unit}" if exact else f"at most {n} {unit}"


def _len_zh(m: re.Match[str]) -> str | None:
    n = to_int(m.group(2))
    unit = _UNITS_ZH.get(m.group(3))
    if not n or not unit:
        return None
    exact = not (m.group(1) and m.group(1) not in ("用", "在")) and not m.group(4)
    return f"{n} {unit}" if exact else f"at most {n} {unit}"


_LENGTH = [
    Pattern(
        rx(
            r"""
                \b(in|use|using|within|under|at\ most|no\ more\ than|less\ than|fewer\ than|
                max(?:imum)?(?:\ of)?|up\ to|
            """
            r"keep\ (?:it|them|answers?|responses?|replies)\ (?:to|under|within|at))\s+"
            + _NUM_EN
            + r"\s+(words?|sentences?|lines?|paragraphs?|bullet\ points?|bullets?|points?|characters?)\b"
        ),
        _len_en,
    ),
    Pattern(
        zh(
            r"(用|在|控制在|不超过|不要超过|别超过|最多|少于|限制在)\s*"
            + _NUM_ZH
            + r"\s*(句话|句|个字|字|行|段话|段|个要点|要点|条)\s*(以内|之内|内)?"
        ),
        _len_zh,
        True,
    ),
    Pattern(zh(r"()" + _NUM_ZH + r"\s*(句话|句|个字|字|行|段话|段|个要点|要点|条)\s*(以内|之内|内)"), _len_zh),
    Pattern(
        zh(
            r"()" + _NUM_ZH + r"\s*(句话|句|个字|字|段话|段)\s*()(?=(?:来|就)?(?:回答|说完|讲完|概括|总结|说明|讲清楚))"
        ),
        _len_zh,
    ),
]


LENGTH = Family("length", Kind.PREFERENCE, "preference.response.length", _LENGTH, temporal=True)

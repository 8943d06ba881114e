"""Languages spoken: `profile.languages` ("Spanish (fluent)", "日语" -> "Japanese"), not the language to
answer in (`preference.language`).

The patterns, languages and levels are in `memory/data/families/languages_spoken.toml`; here is how
a sentence is read with them."""

from __future__ import annotations

import re

from . import prefilter
from .everyday_shared import CJK, ME_ZH, Found
from .prefilter import one_of
from .spec import Spec

SPEC = Spec("languages_spoken")

_LANG_EN = SPEC.maps["lang_en"]

_LANGS_EN = SPEC.pairs("langs_en")
_LEVEL_WORD = SPEC.maps["level_word"]


_SPEAKS_IT_EN = SPEC.expressions["speaks_it_en"]
# every statement about a language spoken is one of these (the prefilter's look at `languages_en`)
LANGUAGES_EN_REQUIRES = one_of(*(pattern for pattern, _ in _LANGS_EN), _SPEAKS_IT_EN)


def languages_en(t: str) -> list[Found]:
    if re.search(r"(?i)\b(?:answer|reply|respond|write\s+to\s+me|talk\s+to\s+me|translate)\b", t):
        return []
    for r, fixed in _LANGS_EN:
        m = prefilter.search(r, t)
        if not m:
            continue
        lang = _LANG_EN.get(re.sub(r"\s+", " ", m.group("lang").casefold()), m.group("lang"))
        lvl = fixed or (m.groupdict().get("lvl") or "").strip().casefold()
        if m.groupdict().get("tail"):
            lvl = "fluent"
        lvl = _LEVEL_WORD.get(lvl, lvl)
        if lvl in ("speak", "sign", "understand", ""):
            lvl = (
                "only"
                if re.search(r"(?i)\bonly\s+speak\b", t)
                else ("understand only" if "understand" in m.group(0).casefold() else "")
            )
        return [("profile.languages", f"{lang} ({lvl})" if lvl else lang, False)]
    m = _SPEAKS_IT_EN.search(t)
    if m:
        return [("profile.languages", _LANG_EN.get(m.group(1).casefold(), m.group(1)), False)]
    return []


LANGUAGES_SPOKEN_ZH = SPEC.maps["lang_zh"]
_LEVEL_ZH = SPEC.expressions["level_zh"]


_LANGUAGE_NAMED_ZH = SPEC.expressions["language_named_zh"]
_LANGUAGE_SPOKEN_ZH = SPEC.expressions["language_spoken_zh"]
# every statement about a language spoken in Chinese names one (the prefilter's look at `languages_zh`)
LANGUAGES_ZH_REQUIRES = one_of(ME_ZH) & one_of(_LANGUAGE_NAMED_ZH, _LANGUAGE_SPOKEN_ZH)


def languages_zh(t: str) -> list[Found]:
    # (我们 is not the user alone: "我们家阿姨只会说粤语"; 帮我翻 asks for a translation)
    if not re.search(r"我(?!们)", t) or re.search(
        r"回答|回复|用[" + CJK + r"]{1,4}(?:回|跟我|和我|写)|翻|跟我说|和我说", t
    ):
        return []
    m = _LANGUAGE_NAMED_ZH.search(t) or _LANGUAGE_SPOKEN_ZH.search(t)
    if m and re.search(r"我(?:会|只会)" + re.escape(m.group(1)), t):
        return [("profile.languages", LANGUAGES_SPOKEN_ZH.get(m.group(1), m.group(1)), False)]
    if not m or not _LEVEL_ZH.search(t):
        return []
    if re.search(r"我(?:的)?(?:朋友|笔友|同事|同学|老婆|老公|孩子|儿子|女儿)", t):
        return []
    name = LANGUAGES_SPOKEN_ZH.get(m.group(1), m.group(1))
    lvl = _LEVEL_ZH.search(t)
    return [("profile.languages", f"{name} ({lvl.group(0)})" if lvl else name, False)]

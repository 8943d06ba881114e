"""Allergies and intolerances: `profile.allergies`, `profile.intolerances` (special categories: the
user's own explicit statement only).

The patterns are in `memory/data/families/allergy.toml`; here is how a sentence is read with them."""

from __future__ import annotations

import re

from . import prefilter
from .everyday_shared import CJK, FIRST_EN, ME_ZH, Found, phrase_value
from .prefilter import one_of
from .spec import Spec

SPEC = Spec("allergy")

_ALLERGY_EN = SPEC.searches("allergy_en")
_INTOL_EN = SPEC.searches("intol_en")
_NOT_ALLERGEN = SPEC.expressions["not_allergen"]
_CLAUSE_NOT_ALLERGEN = SPEC.expressions["clause_not_allergen"]


_HAY_FEVER = SPEC.expressions["hay_fever"]
_ALLERGIC_EN = SPEC.expressions["allergic_en"]
# every allergy or intolerance statement is one of these (the prefilter's look at `allergy_en`)
ALLERGY_EN_REQUIRES = one_of(_HAY_FEVER, *_INTOL_EN, *_ALLERGY_EN, _ALLERGIC_EN)


def allergy_en(t: str) -> list[Found]:
    if not FIRST_EN.search(t) and not re.match(r"(?i)^[\w\s-]{2,25}\s+allergy\b|^hay\s+fever\b", t):
        return []
    out: list[Found] = []
    if _HAY_FEVER.search(t):
        return [("profile.allergies", "pollen (hay fever)", False)]
    for r in _INTOL_EN:
        m = prefilter.search(r, t)
        if m and not _NOT_ALLERGEN.match(m.group("x")):
            out.append(("profile.intolerances", phrase_value(m.group("x")).casefold() + " intolerance", False))
            break
    for r in _ALLERGY_EN:
        m = prefilter.search(r, t)
        if not m:
            continue
        x = m.groupdict().get("x") or m.group(1)
        x = phrase_value(x)
        x = re.sub(r"(?i)^(?:pretty\s+bad|bad|severe|mild|serious|really\s+bad|an?)\s+", "", x)
        if not x or _NOT_ALLERGEN.match(x) or _CLAUSE_NOT_ALLERGEN.search(x):
            continue
        if x.casefold() in ("celiac", "coeliac"):
            x = "gluten (celiac disease)"
        out.append(("profile.allergies", x, False))
        break
    if not out and _ALLERGIC_EN.search(t):
        out.append(("profile.allergies", phrase_value(t), False))
    return out


_INTOLERANT_ZH = SPEC.expressions["intolerant_zh"]
_FAVISM_ZH = SPEC.expressions["favism_zh"]
_ALLERGIC_ZH = SPEC.expressions["allergic_zh"]
_REACTION_ZH = SPEC.expressions["reaction_zh"]
ALLERGY_ZH_REQUIRES = one_of(ME_ZH) & one_of(_INTOLERANT_ZH, _FAVISM_ZH, _ALLERGIC_ZH, _REACTION_ZH)


def allergy_zh(t: str) -> list[Found]:
    if "我" not in t:
        return []
    out: list[Found] = []
    m = _INTOLERANT_ZH.search(t)
    if m:
        x = re.sub(r"^(?:我|有|应该是|可能是|是)+", "", m.group(1))
        out.append(("profile.intolerances", (x or m.group(1)) + "不耐受", False))
    m = _FAVISM_ZH.search(t)
    if m and "蚕豆" in m.group(1):
        out.append(("profile.allergies", "蚕豆", False))
    if "过敏" in t or _REACTION_ZH.search(t):
        m = (
            re.search(r"对([" + CJK + r"A-Za-z]{1,10}?)(?:特别|有点|很|都|也)?过敏", t)
            or re.search(r"我(?:有|从小就|从小|一直)?(?:有)?([" + CJK + r"A-Za-z]{1,8}?)过敏", t)
            or re.search(r"^([" + CJK + r"A-Za-z]{1,8}?)我(?:吃了|一吃|一碰|碰了|不能吃)", t)
            or re.search(r"我(?:吃|喝|碰)(?:了)?([" + CJK + r"]{1,6}?)(?:就|会)", t)
            or re.search(r"([" + CJK + r"]{2,8}?)一飞我", t)
            or re.search(r"^([" + CJK + r"]{1,8}?)我不能(?:吃|用|碰)", t)
            or re.search(r"^([" + CJK + r"A-Za-z]{1,8}?)过敏", t)
        )
        if m:
            x = re.sub(r"^(?:是|有|被|对|好像|可能|应该|从小就|从小)+", "", m.group(1))
            x = re.sub(r"(?:特别容易|容易|咬了|的药)$", "", x) or m.group(1)
            out.append(("profile.allergies", x, False))
        elif "过敏" in t and re.search(
            r"我.{0,12}?(?:就|会|也|有点|特别|容易|都)过敏|我(?:就|会|也)?过敏|我是过敏体质", t
        ):
            out.append(("profile.allergies", phrase_value(t), False))
    return out


def reports_own_allergy_en(user: str, full: str) -> bool:
    """Someone else's clause that reports the user's own allergy ("my doctor confirmed I have a nut
    allergy"): the allergy is read from the whole sentence."""
    return bool(
        re.search(r"(?i)\bI'm\s+allergic\b", user)
        or re.search(r"(?i)\b(?:says|said|told\s+me|confirmed|diagnosed)\b.*\bI\s+(?:have|'ve\s+got|am|'m)\b", full)
    )

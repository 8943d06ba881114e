"""Diet: `profile.diet` (vegetarian, keto, "no pork", …) and `profile.diet.religious` (halal, kosher).

Canonical values, so that a later retraction names the stored value: English, lower case, "no <food>"
for an avoided food with a known English name ("I don't eat pork", "我不吃猪肉" -> "no pork"; 辣 -> "no
spicy food"); 吃素/素食 -> vegetarian, 纯素/全素 -> vegan, 蛋奶素 -> lacto-ovo vegetarian, 生酮 -> keto,
清真 -> halal. "I eat meat again", "我现在吃肉了" retract the diet.

The patterns, diets and foods are in `memory/data/families/diet.toml`; here is how a sentence is read
with them."""

from __future__ import annotations

import re

from . import prefilter
from .everyday_shared import REQUEST_EN, REQUEST_ZH, Found, phrase_value
from .prefilter import one_of
from .spec import Reader, Spec

SPEC = Spec("diet")
_DIET_TERMS = SPEC.maps["diet_terms"]
_ZH_FOOD = SPEC.maps["foods_zh"]
_RELIGIOUS = frozenset(SPEC.words["religious"])
_OWN_DIET_EN = SPEC.expressions["own_diet_en"]
_ZH_NOT_DIET = SPEC.expressions["zh_not_diet"]
_EATS_AGAIN_ZH = SPEC.expressions["eats_again_zh"]
_CAN_EAT_ZH = SPEC.expressions["can_eat_zh"]
_NO_LONGER_VEG_ZH = SPEC.expressions["no_longer_veg_zh"]
_PESCATARIAN_ZH = SPEC.expressions["pescatarian_zh"]
_QUIT_FOOD_ZH = SPEC.expressions["quit_food_zh"]
_CANNOT_EAT_ZH = SPEC.expressions["cannot_eat_zh"]
_NOT_EAT_LEAD_ZH = SPEC.expressions["not_eat_lead_zh"]
_NOT_ADD_ZH = SPEC.expressions["not_add_zh"]
_NOT_EAT_ZH = SPEC.expressions["not_eat_zh"]
_FOOD_FIRST_ZH = SPEC.expressions["food_first_zh"]


def _diet_attr(value: str) -> str:
    return "profile.diet.religious" if value in _RELIGIOUS else "profile.diet"


def _food_en(raw: str) -> str:
    food = phrase_value(raw)
    food = re.sub(r"(?i)^anything\s+with\s+", "", food)
    food = re.sub(r"(?i)\s+at\s+all$|\s+either$|\s+anymore$|\s+any\s+more$", "", food)
    food = re.sub(r"(?i)^(?:spicy\s+(?:stuff|things)|anything\s+spicy|spice)$", "spicy food", food)
    return food.casefold()


def _diet_term(m: re.Match[str]) -> Found | None:
    """ "I'm vegetarian", "I went vegan", "I'm not vegan any more" (a retraction)."""
    term = _DIET_TERMS.get(re.sub(r"\s+", " ", m.group("term").casefold()))
    if term is None:
        return None
    before = m.string[: m.start("term")]
    retract = bool(
        re.search(
            r"(?i)\b(?:not|no\s+longer|n't|used\s+to\s+be|stopped\s+being|quit\s+being|gave\s+up\s+being)\b", before
        )
        or re.search(r"(?i)\b(?:any\s*more|no\s+more)\b", m.string[m.end("term") :])
    )
    return _diet_attr(term), term, retract


def _found(m: re.Match[str], attribute: str, value: str) -> Found:
    return attribute, value, False


def _eats_again(m: re.Match[str]) -> Found:
    """ "I eat meat again": the vegetarian diet (or "no <food>") ends."""
    food = m.group("food")
    return "profile.diet", "vegetarian" if food.casefold() == "meat" else "no " + _food_en(food), True


def _avoids(m: re.Match[str]) -> Found:
    """ "I don't eat red meat", "Raw fish is something I never eat"."""
    return "profile.diet", "no " + _food_en(m.group("food")), False


def _not_for_me(m: re.Match[str]) -> Found | None:
    """ "No beef for me", "Pork's a no-go for me" (not "Coffee is for me")."""
    if re.match(r"(?i)no\b", m.string) or re.search(r"(?i)no-?\s?go|off|out", m.group(0)):
        return "profile.diet", "no " + _food_en(m.group("food")), False
    return None


_READERS: dict[str, Reader] = {
    "diet_term": _diet_term,
    "found": _found,
    "eats_again": _eats_again,
    "avoids": _avoids,
    "not_for_me": _not_for_me,
}
_DIET_EN = SPEC.pairs("diets_en", _READERS)
_ZH_TERM_RX = SPEC.pairs("diets_zh", _READERS)
# what an English diet statement cannot be without (the prefilter's look at `diet_en`)
DIET_EN_REQUIRES = one_of(*(pattern for pattern, _ in _DIET_EN))
# every diet statement in Chinese is one of these (the prefilter's look at `diet_zh`)
DIET_ZH_REQUIRES = one_of(
    _EATS_AGAIN_ZH,
    _CAN_EAT_ZH,
    _NO_LONGER_VEG_ZH,
    *(pattern for pattern, _ in _ZH_TERM_RX),
    _PESCATARIAN_ZH,
    _QUIT_FOOD_ZH,
    _CANNOT_EAT_ZH,
    _NOT_EAT_LEAD_ZH,
    _NOT_ADD_ZH,
    _NOT_EAT_ZH,
    _FOOD_FIRST_ZH,
)


def diet_en(t: str) -> list[Found]:
    if REQUEST_EN.search(t) and not _OWN_DIET_EN.search(t):
        return []
    for r, fn in _DIET_EN:
        m = prefilter.search(r, t)
        if m:
            found = fn(m)
            if found:
                return [found]
    return []


def _zh_food(raw: str) -> str:
    raw = re.sub(r"^(?:任何|一点|什么)", "", raw)
    return "no " + _ZH_FOOD[raw] if raw in _ZH_FOOD else "不吃" + raw


def diet_zh(t: str) -> list[Found]:
    out: list[Found] = []
    # "我现在吃肉了", "我开始吃肉了", "我不吃素了", "我不再是素食者"
    m = _EATS_AGAIN_ZH.search(t) or _CAN_EAT_ZH.search(t)
    if m:
        food = m.group(1)
        value = "vegetarian" if food in ("肉", "荤") else _zh_food(food)
        return [("profile.diet", value, True)]
    if _NO_LONGER_VEG_ZH.search(t):
        return [("profile.diet", "vegetarian", True)]
    if REQUEST_ZH.search(t) and not re.search(r"我(?:是|一直|已经|现在|在)", t):
        return []
    for r, value in _ZH_TERM_RX:
        if r.search(t) and (value != "calorie-controlled" or re.search(r"减脂|每天|控制", t)):
            if value == "light diet" and not re.search(r"吃得|饮食|口味", t):
                continue
            if re.search(r"(?:餐厅|菜谱|食谱|馆|版本|做法|菜)(?![\u4e00-\u9fff]*吃)", t[r.search(t).end() :][:4]):  # type: ignore[union-attr]
                continue
            attr = _diet_attr(value)
            out.append((attr, value, False))
            return out
    if _PESCATARIAN_ZH.search(t):
        return [("profile.diet", "pescatarian", False)]
    m3 = _QUIT_FOOD_ZH.search(t)
    if m3:
        return [("profile.diet", _zh_food(m3.group(1)), False)]
    m3 = _CANNOT_EAT_ZH.search(t)
    if m3:
        return [("profile.diet", _zh_food(m3.group(1)), False)]
    m3 = _NOT_EAT_LEAD_ZH.search(t) or _NOT_ADD_ZH.search(t)
    if m3 and ("我" in t or t.startswith("不")):
        return [
            (
                "profile.diet",
                ("no " + _ZH_FOOD[m3.group(2)]) if m3.group(2) in _ZH_FOOD else "不" + m3.group(1) + m3.group(2),
                False,
            )
        ]
    # "我不吃辣", "我们家不吃猪肉", "鸡蛋我是不吃的", "辣的我真吃不了", "我不吃生的，刺身什么的都不碰"
    m = _NOT_EAT_ZH.search(t)
    m2 = _FOOD_FIRST_ZH.search(t)
    for mm in (m, m2):
        if mm is None:
            continue
        food = mm.group(1)
        if not _ZH_NOT_DIET.search(food) and food not in ("了", "的"):
            return [
                ("profile.diet", _zh_food(food.rstrip("的") if food.endswith("的") and food != "辣的" else food), False)
            ]
    return out

"""Goals: `goal.main` (multi-valued: goals add up), the goal phrase as the value.

The patterns and word lists are in `memory/data/families/goal.toml`; here are the readers that
decide whether what a user wants is a goal (a want / plan / hope to do something one works toward)."""

from __future__ import annotations

import re

from .spec import InGroup, Reader, Spec
from .text import clean

SPEC = Spec("goal")
_HORIZON_EN = SPEC.expressions["horizon_en"]
_GOAL_VERB_ZH = SPEC.expressions["goal_verb_zh"]
_LIGHT_EN = SPEC.expressions["light_en"]
_GOAL_OBJECT_EN = SPEC.expressions["goal_object_en"]
_STRONG_VP_EN = SPEC.expressions["strong_vp_en"]
_WHEN = SPEC.expressions["when"]
_HORIZON_ZH = SPEC.expressions["horizon_zh"]
_LIGHT_ZH = SPEC.expressions["light_zh"]
_GOAL_OBJECT_ZH = SPEC.expressions["goal_object_zh"]
_LIVING_ZH = SPEC.expressions["living_zh"]
_GOAL_VERB_STRONG_ZH = SPEC.expressions["goal_verb_strong_zh"]
_ZH_NOT_GOAL = SPEC.expressions["zh_not_goal"]


def _goal_vp_en(raw: str, text: str) -> str | None:
    """A want / plan / hope to VP is a goal when the VP is one (or a horizon says so)."""
    value = clean(raw)
    if not value:
        return None
    if _STRONG_VP_EN.match(value) or _GOAL_OBJECT_EN.search(value) or _HORIZON_EN.search(text):
        return value
    if _LIGHT_EN.match(value):
        return None  # "I want to write a function", "I want to buy milk": a request, not a goal
    return value


def _goal_en(m: re.Match[str]) -> str | None:
    return _goal_vp_en(m.group(1), m.string)


def _with_object(m: re.Match[str], group: int | str) -> str | None:
    """ "I'm saving up for a house": a goal when what is prepared for is one."""
    return clean(m.group(group)) if _GOAL_OBJECT_EN.search(m.group(group)) else None


def _with_horizon_or_object(m: re.Match[str], group: int | str) -> str | None:
    """ "we want to …", "I'm aiming for …": a goal with a horizon or an object one works toward."""
    if _HORIZON_EN.search(m.string) or _GOAL_OBJECT_EN.search(m.group(group)):
        return clean(m.group(group))
    return None


def _with_horizon_object_or_strong_vp(m: re.Match[str], group: int | str) -> str | None:
    """ "I'd like to / I'm trying to …": as above, or with a verb that is a goal by itself."""
    if (
        _HORIZON_EN.search(m.string)
        or _GOAL_OBJECT_EN.search(m.group(group))
        or _STRONG_VP_EN.match(clean(m.group(group)))
    ):
        return clean(m.group(group))
    return None


def _direction_zh(m: re.Match[str], group: int | str) -> str:
    """ "我正在往网络安全方向发展"."""
    return "往" + clean(m.group(group)) + "方向发展"


def _exam_zh(m: re.Match[str], group: int | str) -> str:
    """ "我在备考注册会计师"."""
    return "考" + clean(m.group(group))


def _goal_zh(m: re.Match[str]) -> str | None:
    value = clean(m.group("v"))
    value = re.sub(r"^在[^，,。]{1,12}?(?:上|里|中)(?=[\u4e00-\u9fff])", "", value)  # "希望能在NeurIPS上发一篇论文"
    if not value or re.match(
        r"^(?:你|您|问|知道|了解|看看|听听|说(?!一口|得?流利|好)|聊|吃|喝|睡|休息|这样|那样|应该|可能|是不是)", value
    ):
        return None
    if m.group("intent") == "要" and not _WHEN.search(m.string):
        return None  # "我要一杯咖啡": wanting now, not a goal
    # "想五十五岁退休", "希望能一口气跑完十公里": the verb after a time and an adverb
    bare = re.sub(
        r"^(?:(?:在)?[一两三四五六七八九十\d]{1,4}(?:岁|年)(?:前|之前|以前|后|以后|之后|内|之内)?|今年|明年|后年|年底前?|以后|将来|"
        r"早日|尽快|早点|尽早|顺利|成功|真正|彻底|一口气|好好|再|多|真的|能够?|可以|把)+",
        "",
        value,
    )
    if _GOAL_VERB_STRONG_ZH.match(value) or (bare and bare != value and _GOAL_VERB_STRONG_ZH.match(bare)):
        return value
    if _LIVING_ZH.search(value):
        return value
    if _ZH_NOT_GOAL.match(value):
        return None
    if (
        _GOAL_VERB_ZH.match(value)
        and _GOAL_OBJECT_ZH.search(value)
        and not re.match(r"(?:学|考|读|写|做)(?:一下|下|点)", value)
    ):
        return value  # "想考注册会计师", "想学小提琴", "计划读一个经济学硕士"
    if _GOAL_VERB_ZH.match(value):
        # light verbs ("想去…", "想做…", "想买…") are goals only with a horizon ("明年", "两年内", "以后")
        if _ZH_NOT_GOAL.match(value):
            return None
        if _LIGHT_ZH.match(value) and not _HORIZON_ZH.search(m.string):
            return None
        return value
    # "我们希望明年年底用户破百万": hoping / planning with a horizon, whatever the verb
    if m.group("intent") not in ("想", "想要", "要") and _HORIZON_ZH.search(m.string):
        return value
    if _WHEN.search(m.string) and not _ZH_NOT_GOAL.match(bare or value) and not _LIGHT_ZH.match(bare or value):
        return value  # "长期来看我们想再扩张三个城市": wanting, with a horizon
    return None


_READERS: dict[str, Reader] = {
    "clean": InGroup(clean),
    "goal_en": _goal_en,
    "goal_zh": _goal_zh,
    "with_object": _with_object,
    "with_horizon_or_object": _with_horizon_or_object,
    "with_horizon_object_or_strong_vp": _with_horizon_object_or_strong_vp,
    "direction_zh": _direction_zh,
    "exam_zh": _exam_zh,
}
GOAL = SPEC.family("goal", _READERS)

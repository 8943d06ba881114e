"""How to explain: example or theory first (`preference.explanation_style`), conclusion first
(`preference.response.order`).

Both are an order between two kinds of content, so one small grammar serves both: "A first", "A,
then B", "A before B", "start / lead with A", "put A at the top", "B after / afterwards / 放后面"
(when an A-kind word is there too), "先 A（再 B）", "从 A 入手", "A 优先 / 先行 / 放前面".

The shapes of order, the kinds and the words are in `memory/data/families/style.toml`; here each
family reads the shapes with its own kinds, and the cue fallback.
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
from .spec import Spec
from .text import _negated

SPEC = Spec("style")
_EX = SPEC.part("ex_adj") + SPEC.part("ex_en")
_TH = SPEC.part("th_adj") + SPEC.part("th_en")


def _ordered(
    first: dict[str, str], later: dict[str, str], en: bool
) -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]]:
    """The shapes of order, read with these kinds. `first` maps value -> the kind it puts first;
    `later` maps value -> the kind that, said to come after, puts the value first."""
    a_any = "(?P<a>" + "|".join(first.values()) + ")"
    b_any = "(?P<b>" + "|".join(later.values()) + ")"
    b_plain = "(?:" + "|".join(later.values()) + ")"
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

    shapes = SPEC.tagged("shapes_en" if en else "shapes_zh", slots={"a": a_any, "b": b_any, "b_plain": b_plain})
    return [(pattern, by_a if group == "a" else by_b) for group, pattern in shapes]


_STYLE_EN = _ordered(
    {"example first": _EX, "theory first": _TH},
    {"example first": _TH, "theory first": SPEC.part("later_example_en")},
    True,
)
_STYLE_ZH = _ordered(
    {"example first": SPEC.part("ex_zh"), "theory first": SPEC.part("th_zh")},
    {"example first": SPEC.part("th_zh"), "theory first": SPEC.part("ex_zh")},
    False,
)
_ORDER_EN = _ordered({"conclusion first": SPEC.part("ans_en")}, {"conclusion first": SPEC.part("expl_en")}, True)
_ORDER_ZH = _ordered({"conclusion first": SPEC.part("ans_zh")}, {"conclusion first": SPEC.part("expl_zh")}, False)
_SEE_LATER = SPEC.expressions["see_later"]

# A later-kind word ("… explanation after") needs the first kind in the sentence too.
_NEEDS = {
    "example first": (SPEC.expressions["needs_example_en"], SPEC.expressions["needs_example_zh"]),
    "theory first": (SPEC.expressions["needs_theory_en"], SPEC.expressions["needs_theory_zh"]),
    "conclusion first": (SPEC.expressions["needs_conclusion_en"], SPEC.expressions["needs_conclusion_zh"]),
}
_STYLE_EXTRA = SPEC.tagged("extra")
_NEGATED_ORDER = SPEC.searches("negated_order")
_MASK = SPEC.expressions["mask"]
_FIRST_BEFORE = SPEC.expressions["first_before"]
_FIRST_AFTER = SPEC.expressions["first_after"]
_LATER_BEFORE = SPEC.expressions["later_before"]
_LATER_AFTER = SPEC.expressions["later_after"]
_CUE_NEG = SPEC.expressions["cue_neg"]
_STYLE_KINDS = {"example first": SPEC.expressions["kind_example"], "theory first": SPEC.expressions["kind_theory"]}
_ORDER_KINDS = {"conclusion first": SPEC.expressions["kind_conclusion"], "later": SPEC.expressions["kind_later"]}
_STYLE_TRIGGER = SPEC.expressions["style_trigger"]
_ORDER_TRIGGER = SPEC.expressions["order_trigger"]


def _blanked(m: re.Match[str]) -> str:
    return "x" * len(m.group(0))


def _scan(text: str, table: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]]) -> str | None:
    masked = _MASK.sub(_blanked, text)  # "yes or no" is not a negation
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
    for value, pattern in _STYLE_EXTRA:
        if value in values and prefilter.test(pattern, text):
            return value
    return None


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


def _style_cue(text: str) -> str | None:
    if not ASKING.search(text) or _SEE_LATER.search(text):
        return None
    return _first_by_position(text, _STYLE_KINDS)


def _order_cue(text: str) -> str | None:
    if not ASKING.search(text) or _SEE_LATER.search(text):
        return None
    value = _first_by_position(text, _ORDER_KINDS)
    return value if value == "conclusion first" else None


# what each family cannot fire without (the prefilter's look): the trigger each checks first, and
# what gives it a value: one of its patterns, or the cue (a request, and a kind it puts first)
STYLE_REQUIRES = one_of(_STYLE_TRIGGER) & one_of(
    *(pattern for pattern, _ in _STYLE_EN + _STYLE_ZH),
    *(pattern for value, pattern in _STYLE_EXTRA if value == "example first"),
    *((ASKING, kind) for kind in _STYLE_KINDS.values()),
)
ORDER_REQUIRES = one_of(_ORDER_TRIGGER) & one_of(
    *(pattern for pattern, _ in _ORDER_EN + _ORDER_ZH),
    *(pattern for value, pattern in _STYLE_EXTRA if value == "conclusion first"),
    *_NEGATED_ORDER,
    (ASKING, _ORDER_KINDS["conclusion first"]),
)
# the tables the families search: tried only on a sentence that has their words
prefilter.indexed(*(pattern for table in (_STYLE_EN, _STYLE_ZH, _ORDER_EN, _ORDER_ZH) for pattern, _ in table))
prefilter.tested(_STYLE_TRIGGER, _ORDER_TRIGGER, *(pattern for _, pattern in _STYLE_EXTRA), *_NEGATED_ORDER)


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

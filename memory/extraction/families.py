"""The rule families, in precedence order: the table the extractor runs over each sentence."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from . import prefilter
from .confirm import CONFIRM_BEFORE
from .decision import DECISION
from .detail import DETAIL
from .expertise import EXPERTISE
from .family import Hit
from .goal import GOAL
from .home import HOME_CITY
from .language import LANGUAGE
from .length import LENGTH
from .prefilter import Trigger
from .priority import PRIORITY_REQUIRES, priority_hits
from .style import ORDER_REQUIRES, STYLE_REQUIRES, order_hits, style_hits
from .timezone import TIMEZONE

# each family with what it cannot fire without (the prefilter skips it on a sentence without that)
RULE_FAMILIES: list[tuple[Callable[[str, datetime], list[Hit]], Trigger]] = [
    (CONFIRM_BEFORE.hits, CONFIRM_BEFORE.requires),
    (DETAIL.hits, DETAIL.requires),
    (LENGTH.hits, LENGTH.requires),
    (LANGUAGE.hits, LANGUAGE.requires),
    (style_hits, STYLE_REQUIRES),
    (order_hits, ORDER_REQUIRES),
    (HOME_CITY.hits, HOME_CITY.requires),
    (TIMEZONE.hits, TIMEZONE.requires),
    (EXPERTISE.hits, EXPERTISE.requires),
    (DECISION.hits, DECISION.requires),
    (priority_hits, PRIORITY_REQUIRES),
]
# a goal is considered only when nothing more specific matched
FAMILIES: list[Callable[[str, datetime], list[Hit]]] = [family for family, _ in RULE_FAMILIES]
GOAL_REQUIRES = GOAL.requires
# (on a sentence, the quick look: each family checks its trigger first and looks its patterns up)
_TRIGGERS = prefilter.Triggers([*(requires for _, requires in RULE_FAMILIES), GOAL_REQUIRES], quick=True)


def analyze(text: str, at: datetime) -> list[Hit]:
    """Every family's hit on one sentence, one per attribute, the first family winning. A family the
    prefilter shows cannot fire on `text` is not run (it would give nothing)."""
    firing = _TRIGGERS.firing(prefilter.seen(text))
    hits: list[Hit] = []
    attributes: set[str] = set()
    for family, requires in RULE_FAMILIES:
        if requires not in firing:
            continue
        for h in family(text, at):
            if h.attribute not in attributes:
                attributes.add(h.attribute)
                hits.append(h)
    if not hits and GOAL_REQUIRES in firing:
        hits = GOAL.hits(text, at)
    return hits

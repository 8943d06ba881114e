"""The rule families, in precedence order: the table the extractor runs over each sentence."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from .confirm import CONFIRM_BEFORE
from .decision import DECISION
from .detail import DETAIL
from .expertise import EXPERTISE
from .family import Hit
from .goal import GOAL
from .home import HOME_CITY
from .language import LANGUAGE
from .length import LENGTH
from .priority import priority_hits
from .style import order_hits, style_hits
from .timezone import TIMEZONE

# a goal is considered only when nothing more specific matched
FAMILIES: list[Callable[[str, datetime], list[Hit]]] = [
    CONFIRM_BEFORE.hits,
    DETAIL.hits,
    LENGTH.hits,
    LANGUAGE.hits,
    style_hits,
    order_hits,
    HOME_CITY.hits,
    TIMEZONE.hits,
    EXPERTISE.hits,
    DECISION.hits,
    priority_hits,
]


def analyze(text: str, at: datetime) -> list[Hit]:
    """Every family's hit on one sentence, one per attribute, the first family winning."""
    hits: list[Hit] = []
    seen: set[str] = set()
    for family in FAMILIES:
        for h in family(text, at):
            if h.attribute not in seen:
                seen.add(h.attribute)
                hits.append(h)
    if not hits:
        hits = GOAL.hits(text, at)
    return hits

"""A rule family: the patterns that recognise it, and how a match becomes a hit."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from ..models import Kind
from . import prefilter
from .prefilter import ANYTHING, Trigger, one_of
from .text import Pattern, matched_by, scan, tables


@dataclass(slots=True)
class Hit:
    rule: str
    kind: Kind
    attribute: str
    value: Any
    confidence: float = 0.9
    temporal: bool = False  # "this time" may scope it to the session (preferences, rules)
    current_item: bool = False  # its wording points at the request at hand
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    project_default: bool = False  # project knowledge: project scope whenever the turn has one
    change: bool = False  # the wording itself states a change (moved, switch to, 改成)
    retract: bool = False  # the sentence negates this value ("I'm not vegetarian any more"): take it out


@dataclass(frozen=True)
class Family:
    """Most families are one attribute recognised by patterns: the first match (not negated)
    gives the value. `build` turns a match into a hit when the value also decides the attribute."""

    rule: str
    kind: Kind
    attribute: str
    patterns: list[Pattern]
    temporal: bool = False
    confidence: float = 0.9
    changes: re.Pattern[str] | None = None  # wording in the match that states a change ("moved to")
    build: Callable[[Any, re.Match[str]], Hit] | None = None
    # a cheap test first: without any of these words no pattern of the family can match
    trigger: re.Pattern[str] | None = None
    # wording that rules the family out whatever matches (a request to the assistant, someone else)
    guard: re.Pattern[str] | None = None
    # tried when no pattern matched: the family's general shapes, text -> (value, match) or None
    fallback: Callable[[str], tuple[Any, re.Match[str]] | None] | None = None
    # patterns of which the fallback cannot give a value without one matching (none: it may on anything)
    fallback_needs: tuple[re.Pattern[str], ...] = ()

    def __post_init__(self) -> None:
        # (only tested for a match: each of their alternatives is tried only where its words are)
        prefilter.tested(self.trigger, self.guard)
        tables(self.patterns)

    @cached_property
    def requires(self) -> Trigger:
        """What the family cannot fire without: its trigger, and one of its patterns (with its gate)
        or, with a fallback, one of what the fallback needs."""
        ways: list[re.Pattern[str] | tuple[re.Pattern[str], ...]] = list(matched_by(self.patterns))
        if self.fallback is not None:
            ways += self.fallback_needs
        matched = ANYTHING if self.fallback is not None and not self.fallback_needs else one_of(*ways)
        return one_of(self.trigger) & matched if self.trigger is not None else matched

    def hits(self, text: str, at: datetime) -> list[Hit]:
        if self.trigger is not None and not prefilter.test(self.trigger, text):
            return []
        if self.guard is not None and prefilter.test(self.guard, text):
            return []
        found = scan(self.patterns, text)
        if not found and self.fallback is not None:
            found = self.fallback(text)
        if not found:
            return []
        value, match = found
        if self.build is not None:
            return [self.build(value, match)]
        change = bool(self.changes and self.changes.search(match.group(0)))
        return [
            Hit(
                self.rule,
                self.kind,
                self.attribute,
                value,
                confidence=self.confidence,
                temporal=self.temporal,
                change=change,
            )
        ]

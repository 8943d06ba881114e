"""Attribute registry: what the engine knows about each attribute before it sees a value.

Each known attribute declares cardinality, kind, default lifetime (valid_until) or review period
(review_at), consequence, importance and sensitivity. Unknown attributes are allowed and treated
as single-valued, medium consequence. Families (`goal.`, `knowledge.`, ...) match by prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from .models import Cardinality, Consequence, Kind, Sensitivity

DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class AttributeSpec:
    name: str
    kind: Kind | None
    cardinality: Cardinality = Cardinality.SINGLE
    lifetime: timedelta | None = None  # default valid_until = observed + lifetime
    review: timedelta | None = None  # default review_at = observed + review
    consequence: Consequence = Consequence.MEDIUM
    importance: float = 0.5
    actionability: float = 0.5
    sensitivity: Sensitivity = Sensitivity.NORMAL
    label: str = ""
    # the request topics (memory/topic_lexicon.py) it matters to: ranking counts a match as relevance (a
    # `related` one as half); a special category is used for its `topics` only
    topics: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    # incidental to most requests: used only for a request related to it by meaning
    # (memory/semantics/relevance.py), never shown indiscriminately
    gated: bool = False
    # a safety-relevant record of it reaches the areas its own areas bear on (topics.json `safety`:
    # a health matter bears on food); an accessibility need does not (deafness has no bearing on
    # a recipe), it reaches its own areas and its `related` topics
    safety_reach: bool = True


# fmt: off
_SPECS = [
    # how to answer
    AttributeSpec("preference.response.detail", Kind.PREFERENCE, label="answer detail",
                  consequence=Consequence.LOW, importance=0.6, actionability=0.9),
    AttributeSpec("preference.response.length", Kind.PREFERENCE, label="answer length",
                  consequence=Consequence.LOW, importance=0.5, actionability=0.9),
    AttributeSpec("preference.response.format", Kind.PREFERENCE, label="answer format",
                  consequence=Consequence.LOW, importance=0.5, actionability=0.8),
    AttributeSpec("preference.response.order", Kind.PREFERENCE, label="what comes first",
                  consequence=Consequence.LOW, importance=0.5, actionability=0.8),
    AttributeSpec("preference.language", Kind.PREFERENCE, label="answer language",
                  consequence=Consequence.MEDIUM, importance=0.7, actionability=0.9),
    AttributeSpec("preference.explanation_style", Kind.PREFERENCE, label="explanation style",
                  consequence=Consequence.LOW, importance=0.5, actionability=0.8),
    AttributeSpec("preference.tone", Kind.PREFERENCE, label="tone",
                  consequence=Consequence.LOW, importance=0.4, actionability=0.7),
    AttributeSpec("preference.payment_terms", Kind.PREFERENCE, label="payment terms",
                  consequence=Consequence.MEDIUM, importance=0.5),
    # facts about the person: true for a while, then worth re-checking
    AttributeSpec("profile.home_city", Kind.PREFERENCE, label="home city", review=180 * DAY,
                  sensitivity=Sensitivity.PERSONAL, importance=0.5),
    AttributeSpec("profile.timezone", Kind.PREFERENCE, label="timezone", review=180 * DAY,
                  importance=0.6, actionability=0.7),
    AttributeSpec("profile.expertise", Kind.PREFERENCE, label="expertise level", review=365 * DAY,
                  importance=0.6, actionability=0.7),
    AttributeSpec("profile.expertise.", Kind.PREFERENCE, label="expertise level", review=365 * DAY,
                  importance=0.6, actionability=0.7, gated=True),
    AttributeSpec("profile.languages", Kind.PREFERENCE, Cardinality.MULTI, label="languages spoken",
                  importance=0.5, review=365 * DAY, topics=("language", "media"), related=("travel",), gated=True),
    # everyday personal memory (docs/concepts.md): what a user tells an assistant about their life;
    # `topics` say which requests it matters to (memory/topic_lexicon.py)
    AttributeSpec("profile.diet", Kind.PREFERENCE, Cardinality.MULTI, label="diet", review=365 * DAY,
                  consequence=Consequence.HIGH, importance=0.8, actionability=0.8,
                  sensitivity=Sensitivity.PERSONAL, topics=("food",), gated=True),
    AttributeSpec("profile.diet.religious", Kind.PREFERENCE, Cardinality.MULTI, label="religious diet",
                  consequence=Consequence.HIGH, importance=0.8, actionability=0.8,
                  sensitivity=Sensitivity.SPECIAL, topics=("food", "religion"), gated=True),
    AttributeSpec("profile.likes", Kind.PREFERENCE, Cardinality.MULTI, label="likes", review=365 * DAY,
                  consequence=Consequence.LOW, importance=0.6, actionability=0.8,
                  gated=True),
    AttributeSpec("profile.dislikes", Kind.PREFERENCE, Cardinality.MULTI, label="dislikes and avoids",
                  review=365 * DAY, importance=0.6, actionability=0.7, gated=True),
    AttributeSpec("profile.family", Kind.PREFERENCE, Cardinality.MULTI, label="family",
                  importance=0.6, actionability=0.5, sensitivity=Sensitivity.PERSONAL,
                  topics=("family",), related=("leisure", "travel", "shopping", "dates"), gated=True),
    AttributeSpec("profile.pets", Kind.PREFERENCE, Cardinality.MULTI, label="pets", importance=0.5,
                  actionability=0.5, topics=("pets", "home"), related=("travel", "leisure"), gated=True),
    AttributeSpec("profile.work.", Kind.PREFERENCE, label="work", review=365 * DAY, importance=0.6,
                  actionability=0.6, sensitivity=Sensitivity.PERSONAL, topics=("work",), related=("schedule",),
                  gated=True),
    AttributeSpec("profile.routine", Kind.PREFERENCE, Cardinality.MULTI, label="routine", review=180 * DAY,
                  importance=0.5, actionability=0.6, topics=("schedule",), gated=True),
    AttributeSpec("profile.devices", Kind.PREFERENCE, Cardinality.MULTI, label="devices and tools",
                  review=365 * DAY, importance=0.5, actionability=0.8, topics=("tech",), gated=True),
    AttributeSpec("preference.travel.", Kind.PREFERENCE, label="travel preference", review=365 * DAY,
                  importance=0.6, actionability=0.8, topics=("travel",), gated=True),
    AttributeSpec("profile.travel_fears", Kind.PREFERENCE, Cardinality.MULTI, label="travel fears",
                  consequence=Consequence.MEDIUM, importance=0.7, actionability=0.7,
                  sensitivity=Sensitivity.PERSONAL, topics=("travel",), gated=True),
    AttributeSpec("profile.hobbies", Kind.PREFERENCE, Cardinality.MULTI, label="hobbies", review=365 * DAY,
                  consequence=Consequence.LOW, importance=0.6, actionability=0.8, gated=True),
    AttributeSpec("profile.sports_teams", Kind.PREFERENCE, Cardinality.MULTI, label="sports teams",
                  consequence=Consequence.LOW, importance=0.4, topics=("leisure",), gated=True),
    AttributeSpec("profile.music", Kind.PREFERENCE, Cardinality.MULTI, label="music",
                  consequence=Consequence.LOW, importance=0.4, topics=("media",), related=("leisure",), gated=True),
    AttributeSpec("profile.dates", Kind.PREFERENCE, Cardinality.MULTI, label="important dates",
                  importance=0.7, actionability=0.6, sensitivity=Sensitivity.PERSONAL,
                  topics=("dates",), related=("family", "schedule", "shopping"), gated=True),
    AttributeSpec("preference.budget.", Kind.PREFERENCE, label="budget", importance=0.7, actionability=0.8,
                  topics=("shopping", "travel"), related=("food",), gated=True),
    AttributeSpec("profile.accessibility", Kind.PREFERENCE, Cardinality.MULTI, label="accessibility needs",
                  consequence=Consequence.HIGH, importance=0.9, actionability=0.9,
                  sensitivity=Sensitivity.PERSONAL, topics=("visual",), related=("travel",), gated=True,
                  safety_reach=False),
    # what a user says of themself in any phrasing (memory/extraction/open_statement.py), kept
    # verbatim; a safety-relevant one is `health.stated.<area>` (the special `health.` family)
    AttributeSpec("preference.stated.", Kind.PREFERENCE, Cardinality.MULTI, label="stated", review=365 * DAY,
                  consequence=Consequence.LOW, importance=0.6, actionability=0.7, gated=True),
    # special categories: only the user's own statement is stored, used only on its topics
    AttributeSpec("profile.allergies", Kind.PREFERENCE, Cardinality.MULTI, label="allergies",
                  consequence=Consequence.HIGH, importance=0.9, sensitivity=Sensitivity.SPECIAL,
                  topics=("food", "health"), gated=True),
    AttributeSpec("profile.intolerances", Kind.PREFERENCE, Cardinality.MULTI, label="intolerances",
                  consequence=Consequence.HIGH, importance=0.9, sensitivity=Sensitivity.SPECIAL,
                  topics=("food", "health"), gated=True),
    AttributeSpec("health.", Kind.PREFERENCE, Cardinality.MULTI, label="health",
                  consequence=Consequence.HIGH, importance=0.8, sensitivity=Sensitivity.SPECIAL,
                  topics=("health",), gated=True),
    AttributeSpec("profile.religion", Kind.PREFERENCE, label="religion", importance=0.5,
                  sensitivity=Sensitivity.SPECIAL, topics=("religion", "food")),
    AttributeSpec("profile.political_opinion", Kind.PREFERENCE, label="political opinion", importance=0.3,
                  sensitivity=Sensitivity.SPECIAL, topics=("politics",)),
    AttributeSpec("profile.sexual_orientation", Kind.PREFERENCE, label="sexual orientation", importance=0.3,
                  sensitivity=Sensitivity.SPECIAL, topics=("relationships",)),
    AttributeSpec("profile.ethnicity", Kind.PREFERENCE, label="ethnicity", importance=0.3,
                  sensitivity=Sensitivity.SPECIAL, topics=("ethnicity",)),
    AttributeSpec("profile.union_membership", Kind.PREFERENCE, label="union membership", importance=0.3,
                  sensitivity=Sensitivity.SPECIAL, topics=("labour",)),
    AttributeSpec("profile.biometrics", Kind.PREFERENCE, label="biometrics", importance=0.3,
                  sensitivity=Sensitivity.SPECIAL, topics=("health",)),
    AttributeSpec("profile.travel_status", Kind.PREFERENCE, label="travel status", lifetime=14 * DAY,
                  sensitivity=Sensitivity.PERSONAL),
    AttributeSpec("profile.name", Kind.PREFERENCE, label="name", importance=0.4),
    # goals, priorities, rules, knowledge: families
    AttributeSpec("goal.", Kind.GOAL, Cardinality.MULTI, label="goal", review=90 * DAY,
                  importance=0.6, actionability=0.6, topics=("schedule", "work"), gated=True),
    AttributeSpec("priority.focus", Kind.PRIORITY, label="current focus", lifetime=7 * DAY,
                  consequence=Consequence.MEDIUM, importance=0.8, actionability=0.9),
    AttributeSpec("priority.", Kind.PRIORITY, label="priority", lifetime=7 * DAY,
                  importance=0.8, actionability=0.9),
    AttributeSpec("rule.confirm_before", Kind.RULE, Cardinality.MULTI, label="confirm before",
                  consequence=Consequence.HIGH, importance=0.9, actionability=1.0),
    AttributeSpec("rule.", Kind.RULE, Cardinality.MULTI, label="collaboration rule",
                  consequence=Consequence.HIGH, importance=0.8, actionability=0.9),
    AttributeSpec("knowledge.", Kind.KNOWLEDGE, label="project knowledge", review=180 * DAY,
                  importance=0.6, actionability=0.6),
    AttributeSpec("fact.", Kind.FACT, label="fact", consequence=Consequence.HIGH, importance=0.8,
                  actionability=0.8),
    AttributeSpec("session.", Kind.SESSION_CONTEXT, label="current task", lifetime=1 * DAY,
                  importance=0.7, actionability=0.8),
]
# fmt: on

_EXACT = {s.name: s for s in _SPECS if not s.name.endswith(".")}
_FAMILIES = sorted((s for s in _SPECS if s.name.endswith(".")), key=lambda s: -len(s.name))

# Defaults per kind when the attribute is unknown.
KIND_LIFETIME = {Kind.PRIORITY: 7 * DAY, Kind.SESSION_CONTEXT: 1 * DAY}
# "this time / 这次": a session-scoped record lives this long unless told otherwise.
TEMPORARY_LIFETIME = timedelta(hours=4)


def lookup(attribute: str) -> AttributeSpec | None:
    spec = _EXACT.get(attribute)
    if spec is not None:
        return spec
    for fam in _FAMILIES:
        if attribute.startswith(fam.name):
            return fam
    return None


def resolve(attribute: str, kind: Kind | None) -> AttributeSpec:
    """The spec for an attribute; unknown ones get single-valued, medium-consequence defaults."""
    spec = lookup(attribute)
    if spec is not None:
        return spec
    return AttributeSpec(
        attribute,
        kind,
        lifetime=KIND_LIFETIME.get(kind) if kind else None,
        label=attribute.rsplit(".", 1)[-1].replace("_", " "),
    )


def known_attributes() -> list[AttributeSpec]:
    return list(_SPECS)

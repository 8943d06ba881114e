"""Attribute registry: cardinality, kind, lifetime/review, consequence for the attributes the examples use."""

from __future__ import annotations

from datetime import timedelta

import pytest

from slotstream.memory.models import Cardinality, Consequence, Kind, Sensitivity
from slotstream.memory.registry import (
    KIND_LIFETIME,
    TEMPORARY_LIFETIME,
    AttributeSpec,
    known_attributes,
    lookup,
    resolve,
)

DAY = timedelta(days=1)


@pytest.mark.parametrize(
    "name",
    [
        "preference.response.detail",
        "preference.language",
        "profile.home_city",
        "profile.allergies",
        "profile.timezone",
        "priority.focus",
        "rule.confirm_before",
    ],
)
def test_seed_examples_are_registered(name):
    spec = lookup(name)
    assert spec is not None and spec.kind is not None


def test_single_and_multi_valued():
    assert lookup("preference.response.detail").cardinality == Cardinality.SINGLE
    assert lookup("preference.language").cardinality == Cardinality.SINGLE
    assert lookup("profile.allergies").cardinality == Cardinality.MULTI
    assert lookup("profile.languages").cardinality == Cardinality.MULTI
    assert lookup("rule.never_push_to_main").cardinality == Cardinality.MULTI
    assert lookup("goal.learn_rust").cardinality == Cardinality.MULTI


def test_lifetimes_and_reviews():
    assert lookup("priority.focus").lifetime == 7 * DAY
    assert lookup("profile.travel_status").lifetime == 14 * DAY
    assert lookup("profile.home_city").review == 180 * DAY
    assert lookup("preference.response.detail").lifetime is None
    assert lookup("preference.response.detail").review is None
    assert lookup("session.task").lifetime == DAY
    assert KIND_LIFETIME[Kind.PRIORITY] == 7 * DAY and KIND_LIFETIME[Kind.SESSION_CONTEXT] == DAY
    assert timedelta(0) < TEMPORARY_LIFETIME <= DAY


def test_consequence_and_sensitivity():
    assert lookup("profile.allergies").consequence == Consequence.HIGH
    assert lookup("profile.allergies").sensitivity == Sensitivity.SPECIAL
    assert lookup("profile.home_city").sensitivity == Sensitivity.PERSONAL
    assert lookup("rule.confirm_before").consequence == Consequence.HIGH
    assert lookup("preference.response.detail").consequence == Consequence.LOW
    assert lookup("fact.price").kind == Kind.FACT


def test_families_match_by_prefix_and_exact_names_win():
    assert lookup("priority.focus").name == "priority.focus"
    assert lookup("priority.release").name == "priority."
    assert lookup("rule.confirm_before").name == "rule.confirm_before"
    assert lookup("rule.other").name == "rule."
    assert lookup("knowledge.db.engine").kind == Kind.KNOWLEDGE
    assert lookup("goalkeeper") is None  # a family needs its dot


def test_unknown_attribute_defaults():
    assert lookup("hobby.colour") is None
    spec = resolve("hobby.favourite_colour", None)
    assert isinstance(spec, AttributeSpec)
    assert spec.cardinality == Cardinality.SINGLE and spec.consequence == Consequence.MEDIUM
    assert spec.kind is None and spec.label == "favourite colour"
    assert resolve("sprint.goal", Kind.PRIORITY).lifetime == 7 * DAY
    assert resolve("hobby.x", Kind.PREFERENCE).lifetime is None
    # a registered attribute resolves to its spec whatever kind is passed
    assert resolve("priority.focus", Kind.GOAL).kind == Kind.PRIORITY


def test_known_attributes_are_well_formed():
    specs = known_attributes()
    names = [s.name for s in specs]
    assert len(names) == len(set(names))
    for s in specs:
        assert s.kind is not None
        assert 0.0 <= s.importance <= 1.0 and 0.0 <= s.actionability <= 1.0
        if s.kind == Kind.PRIORITY:
            assert s.lifetime is not None  # priorities are always time-boxed

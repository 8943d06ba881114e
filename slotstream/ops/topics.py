"""Kafka topics for operators: create them with the configs the settings choose, and show what the
broker holds. Each prints what it did; none prints data."""

from __future__ import annotations

from slotstream.config.settings import Settings
from slotstream.streams.admin import apply_topic_configs, create_topics, describe_topics


def topics_create(settings: Settings) -> int:
    assert settings.kafka_bootstrap
    specs = settings.topic_specs().values()
    created = create_topics(settings.kafka_bootstrap, specs)
    print("created: " + (", ".join(created) or "nothing (all exist)"))
    changed = apply_topic_configs(settings.kafka_bootstrap, specs)
    for name, diff in changed.items():
        print(f"updated {name}: " + ", ".join(f"{k} {was} -> {now}" for k, (was, now) in diff.items()))
    return 0


def topics_describe(settings: Settings) -> int:
    """Each topic's partitions and the configs the settings choose, as the broker holds them."""
    assert settings.kafka_bootstrap
    states = describe_topics(settings.kafka_bootstrap, settings.topic_specs().values())
    print(f"{'topic':<34} {'partitions':>10}  configs (broker value; * differs from the settings)")
    mismatches = 0
    for state in states:
        if not state.exists:
            print(f"{state.spec.name:<34} {'-':>10}  missing: `slotstream topics create` creates it")
            mismatches += 1
            continue
        differs = state.differs
        mismatches += bool(differs) or state.partitions != state.spec.partitions
        shown = ", ".join(
            f"{k}={state.config.get(k)}" + (f" * (settings: {v})" if k in differs else "")
            for k, v in state.spec.config.items()
        )
        parts = f"{state.partitions}" + ("" if state.partitions == state.spec.partitions else "*")
        print(f"{state.spec.name:<34} {parts:>10}  {shown}")
    if mismatches:
        print("\n* `slotstream topics create` sets the configs; partition counts are not changed by it")
    return 0

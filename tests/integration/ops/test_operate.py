"""The operator commands on real servers: topics create applies retention and compaction settings
to existing topics and describe shows them; namespaces are listed with their roles and sizes, and
the serving one cannot be dropped."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from slotstream.config.settings import Settings
from slotstream.state.deployment import Pointer, write_pointer
from slotstream.state.keys import Keys, deploy_pointer
from slotstream.state.namespaces import drop_namespace
from slotstream.streams.admin import describe_topics

pytestmark = [pytest.mark.kafka, pytest.mark.integration]


def slotstream(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "slotstream.cli", *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def settings(kafka_bootstrap: str, redis_url: str) -> Iterator[Settings]:
    name = f"op{uuid.uuid4().hex[:6]}"
    yield Settings(redis_url=redis_url, kafka_bootstrap=kafka_bootstrap, namespace=name, topic_prefix=name)


def env_of(settings: Settings, **extra: Any) -> dict[str, str]:
    import os

    base = {k: v for k, v in os.environ.items() if not k.startswith("SLOTSTREAM_")}
    return {**base, **settings.to_env(), **{f"SLOTSTREAM_{k.upper()}": str(v) for k, v in extra.items()}}


def test_topics_create_then_a_changed_retention_is_applied_and_described(settings: Settings) -> None:
    created = slotstream(env_of(settings), "topics", "create")
    assert created.returncode == 0, created.stderr
    assert f"{settings.topic_prefix}.keys" in created.stdout and f"{settings.topic_prefix}.control" in created.stdout
    described = slotstream(env_of(settings), "topics", "describe")
    assert described.returncode == 0 and "*" not in described.stdout.split("\n", 1)[1], described.stdout
    assert "cleanup.policy=compact" in described.stdout and "retention.ms=-1" in described.stdout
    # a setting changed later: describe marks the difference, create applies it
    changed = env_of(settings, turns_retention_ms=3_600_000)
    assert "retention.ms=604800000 * (settings: 3600000)" in slotstream(changed, "topics", "describe").stdout
    again = slotstream(changed, "topics", "create")
    assert f"updated {settings.topic_prefix}.turns: retention.ms 604800000 -> 3600000" in again.stdout
    states = describe_topics(
        settings.kafka_bootstrap or "", settings.replace(turns_retention_ms=3_600_000).topic_specs().values()
    )
    assert all(state.exists and not state.differs for state in states)


def test_namespaces_are_listed_with_their_roles_and_the_serving_one_is_not_dropped(
    settings: Settings, redis_client: redis.Redis
) -> None:
    base, other = settings.namespace, f"{settings.namespace}-v2"
    for name in (base, other):
        redis_client.set(Keys(name).marker(), "new")
    write_pointer(redis_client, base, Pointer(other, "active", None, base))
    try:
        listed = slotstream(env_of(settings), "namespace", "list")
        lines = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
        assert lines[other].endswith(f"serves {base}") and lines[base].endswith("previous"), listed.stdout
        refused = slotstream(env_of(settings), "namespace", "drop", other, "--yes")
        assert refused.returncode == 1 and "serves" in refused.stderr
        unsure = slotstream(env_of(settings), "namespace", "drop", base)
        assert unsure.returncode == 2 and redis_client.exists(Keys(base).marker())
        dropped = slotstream(env_of(settings), "namespace", "drop", base, "--yes")
        assert dropped.returncode == 0 and not redis_client.exists(Keys(base).marker())
        digest = slotstream(env_of(settings), "state", "digest")
        assert f"namespace {other}:" in digest.stdout  # the serving namespace by default
    finally:
        drop_namespace(redis_client, base)
        drop_namespace(redis_client, other)
        redis_client.delete(deploy_pointer(base))

"""`slotstream bench capacity` at a tiny scale, on a server and on a cluster of three it starts
itself: the report's counts add up (every record and correction planned was applied, every lookup
timed), its memory figures grew with the load, and the bytes by key kind cover the users loaded.
The sampled bytes by key kind are checked against the exact count on the same namespace."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from slotstream.bench import capacity
from slotstream.bench.capacity import CapacityArgs, load, run_capacity_bench, sampled_bytes_by_kind
from slotstream.bench.memory import bytes_by_kind
from slotstream.config.settings import Settings
from slotstream.state.engine import Engine

pytestmark = pytest.mark.integration

USERS, PER_USER = 200, 5


def test_the_capacity_report_adds_up_on_a_server_and_on_a_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings.from_env().replace(redis_url=None)  # the bench starts both deployments
    args = CapacityArgs(users=USERS, records_per_user=PER_USER, baseline_users=40, lookups=60)
    reports = run_capacity_bench(settings, "both", args)
    out = capsys.readouterr().out
    assert [r.deployment for r in reports] == ["single", "cluster of 3"], out
    for r in reports:
        full = r.full
        assert full.records == full.applied == USERS * PER_USER, (r.deployment, full.outcomes)
        assert full.corrections == full.corrections_applied == USERS * PER_USER // 5, (r.deployment, full.outcomes)
        assert sum(full.outcomes.values()) == full.records + full.corrections
        assert r.baseline.records == r.baseline.applied == 40 * PER_USER
        assert r.memory_before < r.memory_loaded < r.memory_corrected, r
        # used_memory grew by at least most of what the keys hold, on every master of the cluster
        assert r.memory_corrected - r.memory_before > 0.6 * sum(r.kind_bytes.values()), r
        # the state is written in its compact forms: the pass finds nothing to rewrite
        assert r.compacted == 0 and r.memory_trimmed > r.memory_before
        assert len(r.full_ms) == len(r.baseline_ms) == 60
        assert r.keys_sampled_share == 1.0
        # one meta and one record hash a user; every record's lineage and ledger entry counted
        assert r.kind_keys["meta"] == r.kind_keys["rec"] == USERS, r.kind_keys
        assert {"rec", "ops", "lin", "log", "act"} <= set(r.kind_bytes), r.kind_bytes
        line = f"{USERS * PER_USER:,} records, {USERS * PER_USER:,} applied"
        assert f"== {r.deployment}: " in out and line in out, out
    assert out.count("after the compaction pass (0 users rewritten)") == 2, out
    assert "B/record" in out, out  # the side-by-side summary of the two deployments


@pytest.fixture
def loaded_namespace(redis_client: redis.Redis, namespace: str) -> Iterator[str]:
    load(Engine(redis_client, namespace=namespace), USERS, PER_USER, "test", seed=1)
    yield namespace


def test_sampled_bytes_by_kind_scale_a_sample_of_users_to_the_whole(
    redis_client: redis.Redis, loaded_namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    exact_size, exact_count = bytes_by_kind(redis_client, loaded_namespace)
    monkeypatch.setattr(capacity, "EXACT_USERS_UP_TO", 0)
    monkeypatch.setattr(capacity, "SAMPLED_USERS", USERS // 4)
    size, count, share = sampled_bytes_by_kind(redis_client, loaded_namespace, USERS)
    assert 0.1 < share < 0.5, share
    # the users are alike: a quarter of them scaled up is close to the whole
    assert sum(size.values()) == pytest.approx(sum(exact_size.values()), rel=0.2)
    assert count["meta"] == pytest.approx(exact_count["meta"], abs=1)
    assert count["rec"] == pytest.approx(exact_count["rec"], abs=1)

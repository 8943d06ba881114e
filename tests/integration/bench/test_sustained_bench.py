"""`slotstream bench sustained` for half a minute on the session's broker and Redis, with a real
worker process: it samples as asked, the worker applies the stream, every op on the topic is
applied once it caught up, and the summary is printed."""

from __future__ import annotations

import pytest

from slotstream.bench.sustained import SustainedArgs, run_sustained_bench
from slotstream.config.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.kafka, pytest.mark.long]


def test_the_sustained_bench_samples_memory_and_lag_while_the_worker_applies_the_stream(
    redis_url: str, kafka_bootstrap: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings.from_env().replace(redis_url=redis_url, kafka_bootstrap=kafka_bootstrap)
    args = SustainedArgs(minutes=0.5, rate=40, users=40, records_per_user=5, every=5)
    report = run_sustained_bench(settings, args)
    out = capsys.readouterr().out
    assert report.seeded == 40 * 5
    # a sample at the start, every 5 s, and at the end
    assert len(report.samples) == 7, out
    assert [round(s.seconds / 5) for s in report.samples] == list(range(7)), out
    assert all(s.used_memory > 0 and s.lag >= 0 for s in report.samples), out
    assert report.sent > 0.5 * args.rate * args.minutes * 60, out
    assert report.applied_during > 0, out
    # caught up: everything on the ops topic applied, the seed and the stream among it
    assert report.applied_total == report.produced_total >= report.seeded + report.sent, out
    # the worker counted an outcome for each op it applied
    assert sum(report.outcomes.values()) == report.applied_total, report.outcomes
    assert "growth over the second half" in out and "ops/s" in out, out

"""What the inspector shows, from records alone: sections, the lineage timeline, health figures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from slotstream.memory.models import Record, Status
from slotstream.sidecar.inspector.views import pipeline_figures, sections, shown_value, timeline

from support import stored_record

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def rec(status: Status = Status.ACTIVE, at: datetime = T0, **kw: Any) -> Record:
    record: Record = stored_record(status, at, **kw)
    return record


def test_records_fall_into_the_context_sections_and_ended_ones_apart() -> None:
    now = T0 + timedelta(hours=1)  # a session's context holds a day by default
    stated = rec()
    goal = rec(kind="goal", attribute="goal.run", value="a 10k")
    guess = rec(Status.CANDIDATE, attribute="profile.city", value="Paris", kind="preference")
    session = rec(kind="session_context", attribute="session.topic", value="taxes", scope="session:s1")
    old = rec(Status.SUPERSEDED, value="vegan")
    forgotten = rec(Status.DELETED, attribute="profile.pet", value="cat", kind="preference")
    lapsed = rec(attribute="priority.focus", kind="priority", value="launch", valid_until=T0 + timedelta(minutes=30))
    got = {
        s.name: [r.id for r in s.records] for s in sections([stated, goal, guess, session, old, forgotten, lapsed], now)
    }
    assert got["stated"] == [stated.id]
    assert got["goals"] == [goal.id]
    assert got["assumptions"] == [guess.id]
    assert got["session"] == [session.id]
    # superseded, forgotten, and past its validity though no sweep has marked it: not used
    assert set(got["ended"]) == {old.id, forgotten.id, lapsed.id}
    assert "priorities" not in got, "an empty section is not listed"
    assert list(got)[-1] == "ended"


def test_a_value_is_shown_as_one_bounded_line_of_text() -> None:
    assert shown_value("<script>x</script>") == "<script>x</script>", "escaping is the template's, not altered here"
    assert shown_value({"b": 1, "a": [2]}) == '{"a":[2],"b":1}'
    assert shown_value("x" * 500, limit=10) == "x" * 9 + "…"


def test_the_timeline_has_a_row_per_version_ending_where_each_stopped_holding() -> None:
    first = rec(value="concise", at=T0)
    second = rec(value="detailed", at=T0 + timedelta(hours=10))
    first = first.model_copy(update={"status": Status.SUPERSEDED, "superseded_by": second.id})
    gone = rec(Status.DELETED, value="terse", at=T0 + timedelta(hours=15))
    now = T0 + timedelta(hours=20)
    picture = timeline([second, gone, first], now, width=1000)
    rows = {b.record.id: b for b in picture.bars}
    assert [b.record.value for b in sorted(picture.bars, key=lambda b: b.row)] == ["concise", "detailed", "terse"]
    assert rows[first.id].ending == "superseded" and rows[first.id].successor_row == rows[second.id].row
    assert rows[first.id].x == 0 and rows[first.id].width == 500.0, "it held until its successor was said"
    assert rows[second.id].ending == "" and rows[second.id].x + rows[second.id].width == 1000, "still holds: to now"
    assert rows[gone.id].ending == "forgotten"
    assert picture.ticks[0].at == T0 and picture.ticks[-1].at == now


def test_an_expiry_ends_a_version_at_its_validity_even_before_a_sweep() -> None:
    temporary = rec(value="English", at=T0, valid_until=T0 + timedelta(hours=4))
    bar = timeline([temporary], T0 + timedelta(hours=8), width=800).bars[0]
    assert bar.ending == "expired" and bar.end_at == T0 + timedelta(hours=4) and bar.width == 400.0


def test_no_versions_no_bars() -> None:
    assert timeline([], T0).bars == []


def _family(name: str, samples: list[tuple[str, dict[str, str], float]]) -> Any:
    return SimpleNamespace(name=name, samples=[SimpleNamespace(name=n, labels=lab, value=v) for n, lab, v in samples])


def test_pipeline_figures_read_lag_counters_and_how_far_behind() -> None:
    families = [
        _family("slotstream_ops_applied", [("slotstream_ops_applied_total", {"outcome": "applied"}, 40.0)]),
        _family("slotstream_dead_letters", [("slotstream_dead_letters_total", {"reason": "invalid_json"}, 2.0)]),
        _family(
            "slotstream_consumer_lag",
            [
                ("slotstream_consumer_lag", {"topic": "p.turns", "partition": "1"}, 5.0),
                ("slotstream_consumer_lag", {"topic": "p.turns", "partition": "0"}, 0.0),
                ("slotstream_consumer_lag", {"topic": "p.ops", "partition": "0"}, 0.0),
            ],
        ),
    ]
    got = pipeline_figures(families, {"p.turns": {0: 10_000, 1: 12_000}, "p.ops": {0: 1_000}}, now_ms=20_000)
    assert got["applied"] == {"applied": 40.0} and got["dead_letters"] == {"invalid_json": 2.0}
    assert [(r["topic"], r["partition"]) for r in got["lag"]] == [("p.ops", 0), ("p.turns", 0), ("p.turns", 1)]
    # turns wait: 8 s behind the newest event processed; ops are caught up, however old their last event
    assert got["behind_seconds"] == {"p.turns": 8.0, "p.ops": 0.0}

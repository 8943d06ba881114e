"""`slotstream eval secrets` on the shipped dev corpus (written blind to the detector).

A regression guard: the floors sit a little under what the detector reached when they were set
(docs/evaluation.md has the figures), so a change that lets secrets through again, or starts
flagging ordinary hashes and ids, fails here. They are not targets to tune the detector to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slotstream.eval.corpus import LANGS
from slotstream.eval.secrets import WHERES, Report, evaluate, main, shipped_corpus

CAUGHT_FLOOR = 0.96  # measured 149/150
CELL_CAUGHT_FLOOR = 0.85  # each language and place: lowest measured 11/12
FLAGGED_CEILING = 0.03  # measured 1/110
CELL_FLAGGED_CEILING = 0.15  # lowest cell 1/8


@pytest.fixture(scope="module")
def report() -> Report:
    return evaluate(shipped_corpus())


def test_the_shipped_corpus_covers_every_language_and_place(report: Report) -> None:
    for lang in LANGS:
        for where in WHERES:
            assert report.caught[(lang, where)].n >= 10 and report.flagged[(lang, where)].n >= 5


def test_secrets_caught_do_not_fall_below_the_floor(report: Report) -> None:
    assert report.total(report.caught).rate >= CAUGHT_FLOOR, report.misses
    for cell, count in report.caught.items():
        assert count.rate >= CELL_CAUGHT_FLOOR, (cell, report.misses)


def test_ordinary_tokens_flagged_do_not_rise_above_the_ceiling(report: Report) -> None:
    assert report.total(report.flagged).rate <= FLAGGED_CEILING, report.false_flags
    for cell, count in report.flagged.items():
        assert count.rate <= CELL_FLAGGED_CEILING, (cell, report.false_flags)


def test_any_corpus_path_is_measured_and_its_misses_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {"id": "a", "lang": "en", "kind": "secret", "where": "value", "text": "hunter2", "secret": "hunter2"},
        {"id": "b", "lang": "zh", "kind": "ordinary", "where": "match", "text": "订单 112-2761416", "secret": None},
        {"id": "c", "lang": "en", "kind": "secret", "where": "sentence", "text": "pwd: s3cr3t!", "secret": "s3cr3t!"},
    ]
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n", encoding="utf-8")
    assert main(path) == 0
    out = capsys.readouterr().out
    assert "missed  [a en value] hunter2" in out and "[c " not in out
    assert "en sentence" in out and "1/1 = 100.0%" in out and "0/1 = 0.0%" in out


HELD_OUT_CAUGHT_FLOOR = 0.88  # measured 123/135 when it was first run
HELD_OUT_FLAGGED_CEILING = 0.10  # measured 8/105


def test_the_held_out_corpus_stays_where_it_was_measured() -> None:
    # the held-out corpus was never used to set a rule; this keeps its figure from sliding back
    held_out = evaluate(shipped_corpus().parent / "fresh.jsonl")
    assert held_out.total(held_out.caught).rate >= HELD_OUT_CAUGHT_FLOOR, held_out.misses
    assert held_out.total(held_out.flagged).rate <= HELD_OUT_FLAGGED_CEILING, held_out.false_flags

"""Relevance weighted by inverse document frequency (docs/concepts.md, "Read path"): a ranking test set
(slotstream/eval/corpora/ranking/budget.jsonl) of requests whose answer is one record among many more
important ones that share only common words with the request; the record must make a small budget.
Plus the weights themselves: a word every row holds carries almost nothing, a rare one most."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from slotstream.eval.corpus import corpus_path
from slotstream.memory.models import ContextRequest, Status
from slotstream.memory.selection import DocFrequency, from_record, relevance_weights, select
from slotstream.memory.validation import build_record, parse_record

CASES = corpus_path("ranking") / "budget.jsonl"
T0 = datetime(2024, 1, 1, tzinfo=UTC)


def _cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]


def _records(case: dict[str, Any]) -> list[Any]:
    bodies = list(case["records"])
    filler = case["filler"]
    for i in range(filler["count"]):
        bodies.append(
            {
                "attribute": filler["attribute"].format(i=i),
                "value": filler["statement"].format(i=i),
                "statement": filler["statement"].format(i=i),
                "importance": filler["importance"],
            }
        )
    out = []
    for n, body in enumerate(bodies):
        data = {"tenant": "t1", "user": "u1", "kind": "knowledge", **body}
        if not data["attribute"].startswith("knowledge"):
            data.pop("kind")
        record = build_record(parse_record(data), op_id=f"rank-{n}", at=T0)
        out.append(from_record(record.model_copy(update={"status": Status.ACTIVE})))
    return out


def test_the_ranking_set_is_not_trivial():
    cases = _cases()
    assert len(cases) >= 10 and sum(1 for c in cases if c["case"].startswith("zh")) >= 3
    assert all(c["filler"]["count"] >= 4 * c["max_items"] for c in cases)


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["case"])
def test_the_record_the_request_is_about_makes_a_small_budget(case):
    req = ContextRequest(tenant="t1", user="u1", text=case["request"], max_items=case["max_items"])
    out = select(req, _records(case), T0 + timedelta(days=1))
    used = [item.value for item in out.items]
    assert all(value in used for value in case["must"]), (case["case"], used)


def test_a_word_every_row_holds_carries_almost_nothing():
    weights = relevance_weights(["project", "postgres"], DocFrequency({"project": 100, "postgres": 1}, 100))
    assert weights["postgres"] > 0.99 and weights["project"] < 0.001


def test_a_word_no_row_holds_does_not_dilute_the_words_that_match():
    frequency = DocFrequency({"vegetarian": 1}, 10)
    alone = relevance_weights(["vegetarian"], frequency)
    diluted = relevance_weights(["vegetarian", "tonight", "recipe", "suggest"], frequency)
    assert diluted["vegetarian"] == alone["vegetarian"] == 1.0 and diluted["tonight"] == 0.0


def test_rare_words_together_weigh_at_most_one():
    weights = relevance_weights(
        ["kafka", "orders", "partitions"], DocFrequency({"kafka": 1, "orders": 1, "partitions": 2}, 50)
    )
    assert abs(sum(weights.values()) - 1) < 1e-12 and weights["kafka"] > weights["partitions"]

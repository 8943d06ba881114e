"""Topic-aware relevance: an everyday memory reaches a request that shares no word with it (the
issue's own examples), and the blind request set stays above the floor measured when the lexicon
was built (docs/concepts.md); without the topic term the same set scores far lower."""

from __future__ import annotations

import pytest

import slotstream.memory.selection as selection
from slotstream.eval.ranking import AT, evaluate, load_requests, user_records
from slotstream.memory.models import ContextRequest
from slotstream.memory.selection import from_record, select


@pytest.mark.parametrize(
    "lang, text, family",
    [
        ("en", "Suggest a dinner recipe", "diet"),
        ("en", "Suggest a dinner recipe", "allergy"),
        ("en", "Book me a flight to Rome", "travel"),
        ("zh", "帮我找个酒店", "budget"),
        ("zh", "推荐点零食", "allergy"),
    ],
)
def test_a_request_on_the_topic_gets_the_memory_without_sharing_a_word(lang: str, text: str, family: str) -> None:
    records = user_records(lang)
    out = select(
        ContextRequest(tenant="t", user="u", text=text, max_items=3),
        [from_record(r) for r in records.values()],
        AT,
    )
    assert records[family].id in out.used_ids


def test_the_blind_request_set_stays_above_its_floor_and_the_topic_term_is_what_carries_it(monkeypatch) -> None:
    requests = load_requests()
    with_topics = evaluate(requests, "all", budgets=(5,))
    for lang in ("en", "zh"):
        assert with_topics.total(5, lang).rate >= 0.72, lang
    monkeypatch.setattr(selection, "TOPIC_RELEVANCE", 0.0)
    without = evaluate(requests, "all", budgets=(5,))
    for lang in ("en", "zh"):
        assert with_topics.total(5, lang).rate - without.total(5, lang).rate >= 0.4, lang

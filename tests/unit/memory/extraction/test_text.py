"""`alternation`: phrases as a tree of characters match exactly where, and as far as, a
longest-first list of the same phrases does. `split_sentences`: a Chinese sentence without a
question mark that asks."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotstream.memory.extraction.text import alternation, split_sentences

_WORDS = st.sampled_from(["i", "im", "i'm", "a", "an", "and", "no", "not", "never", "new", "ne", "on", "one"])
_PHRASES = st.lists(st.lists(_WORDS, min_size=1, max_size=3).map(" ".join), min_size=1, max_size=12)
_TEXTS = st.lists(
    st.sampled_from(["i", "im", "i'm", "a", "an", "and", "no", "not", "never", "new", "one", "x"]), max_size=10
).flatmap(lambda ws: st.sampled_from([" ", "  ", ", "]).map(lambda sep: sep.join(ws)))


def _longest_first(phrases: list[str]) -> re.Pattern[str]:
    ordered = sorted(set(phrases), key=len, reverse=True)
    body = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in ordered)
    return re.compile(rf"(?<![\w'])(?:{body})(?![\w'])")


@settings(max_examples=400, deadline=None)
@given(_PHRASES, _TEXTS)
def test_same_matches_as_the_longest_first_list(phrases: list[str], text: str) -> None:
    tree = re.compile(rf"(?<![\w'])(?:{alternation(sorted(set(phrases)))})(?![\w'])")
    expected = [m.span() for m in _longest_first(phrases).finditer(text)]
    assert [m.span() for m in tree.finditer(text)] == expected


def test_a_space_matches_any_whitespace_and_nothing_matches_no_phrases() -> None:
    pattern = re.compile(alternation(["hard no", "hard"]))
    assert pattern.fullmatch("hard \t no") is not None
    assert pattern.match("hardly").group() == "hard"
    assert re.search(alternation([]), "anything") is None


@pytest.mark.parametrize(
    "text,asks",
    [
        ("Vue3里怎么让导航栏一直固定在页面顶部", True),
        ("这个怎么弄", True),
        ("帮我看看正手老下网是怎么回事", True),
        # a question after a clause that states something leaves the clause to be read
        ("今年目标是网球打到NTRP 3.5 现在大概2.5 帮我看看正手老下网是怎么回事", False),
        ("不管怎么样我都不吃香菜", False),
        ("超讨厌指甲油那个味道 美甲店我都不怎么进", False),
        ("周末就怎么舒服怎么来", False),
        ("以后先告诉我该怎么做，再说为什么。", False),
    ],
)
def test_a_chinese_sentence_asks_how_in_its_only_or_first_clause(text: str, asks: bool) -> None:
    assert split_sentences(text)[0].question is asks

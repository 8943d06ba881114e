"""Request and statement topics: which areas of everyday life a text is about, from the word
lists in `memory/data/topics.json` (English words and phrases matched as whole words, Chinese
words matched as substrings).

A topic may include others ("leisure" includes games, music, books, screen, sports, outdoors and
social): a text about one of them is about the including topic too.
"""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from importlib import resources
from typing import Any

# English words: letters and digits, an inner apostrophe or hyphen ("don't", "e-reader")
_EN_WORD = re.compile(r"[a-z0-9]+(?:['’\-][a-z0-9]+)*")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class Lexicon:
    """The topic word lists, indexed for lookups: English single words, English phrases by their
    first word, Chinese words by their text."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.topics = tuple(data)
        # the areas of everyday life (food, travel, work, ...): what relevance compares; the other
        # topics are umbrellas over them ("leisure") or categories a record's attribute names
        self.areas = tuple(topic for topic, spec in data.items() if spec.get("area"))
        self.area_index = {area: i for i, area in enumerate(self.areas)}
        self.about = {topic: str(spec.get("about", "")) for topic, spec in data.items()}
        self.includes = {topic: tuple(spec.get("includes", ())) for topic, spec in data.items()}
        # the topics including others ("leisure": games, music, outdoors, ...), and the areas a
        # request about one in general may name too ("what should I do this weekend?": travel)
        self.umbrellas = frozenset(topic for topic, children in self.includes.items() if children)
        self.alongside = {topic: frozenset(spec.get("alongside", ())) for topic, spec in data.items()}
        self.word: dict[str, set[str]] = {}
        # phrases by their first two words: many share a first word ("my", "how")
        self.phrase: dict[tuple[str, str], list[tuple[tuple[str, ...], str]]] = {}
        self.zh: dict[str, set[str]] = {}
        self.zh_prefixes: set[str] = set()  # every beginning of a Chinese entry: where a look stops
        self.longest_zh = 1  # the longest Chinese entry, in characters
        for topic, spec in data.items():
            for entry in spec.get("en", ()):
                words = tuple(_EN_WORD.findall(entry.lower()))
                if len(words) == 1:
                    self.word.setdefault(words[0], set()).add(topic)
                elif words:
                    self.phrase.setdefault((words[0], words[1]), []).append((words, topic))
            for entry in spec.get("zh", ()):
                if _CJK.search(entry):
                    self.zh.setdefault(entry, set()).add(topic)
                    self.zh_prefixes.update(entry[:end] for end in range(1, len(entry) + 1))
                    self.longest_zh = max(self.longest_zh, len(entry))
                else:  # a Latin brand in the Chinese list ("switch", "steam"): a whole word
                    for word in _EN_WORD.findall(entry.lower())[:1]:
                        self.word.setdefault(word, set()).add(topic)
        self.english = {topic: tuple(spec.get("en", ())) for topic, spec in data.items()}
        # the areas a safety-relevant statement in an area bears on (a health matter: food, ...)
        self.safety = {topic: tuple(spec.get("safety", ())) for topic, spec in data.items()}
        self.parents: dict[str, set[str]] = {}
        for parent, children in self.includes.items():
            for child in children:
                self.parents.setdefault(child, set()).add(parent)

    def english_entries(self, topic: str) -> tuple[str, ...]:
        return self.english.get(topic, ())

    def counts(self, text: str) -> dict[str, int]:
        """How many entries of each topic the text holds."""
        found: dict[str, int] = {}
        folded = text.casefold()
        words = _EN_WORD.findall(folded)
        last = len(words) - 1
        for i, word in enumerate(words):
            for topic in self.word.get(word, ()):
                found[topic] = found.get(topic, 0) + 1
            if i < last:
                for phrase, topic in self.phrase.get((word, words[i + 1]), ()):
                    if tuple(words[i : i + len(phrase)]) == phrase:
                        found[topic] = found.get(topic, 0) + 1
        if _CJK.search(folded):
            prefixes, longest = self.zh_prefixes, self.longest_zh
            for start in range(len(folded)):
                for size in range(1, longest + 1):
                    piece = folded[start : start + size]
                    if piece not in prefixes or start + size > len(folded):
                        break
                    for topic in self.zh.get(piece, ()):
                        found[topic] = found.get(topic, 0) + 1
        return found

    def with_parents(self, topics: set[str]) -> frozenset[str]:
        out = set(topics)
        for topic in topics:
            out |= self.parents.get(topic, set())
        return frozenset(out)

    def areas_of(self, text: str) -> dict[str, int]:
        """How many entries of each area the text holds."""
        return {topic: n for topic, n in self.counts(text).items() if topic in self.areas}

    def expanded(self, topics: set[str]) -> frozenset[str]:
        """The topics, the areas an including one covers, and the topics including them."""
        out = set(topics)
        for topic in topics:
            out |= set(self.includes.get(topic, ()))
        return self.with_parents(out)

    def safety_reach(self, topics: set[str] | frozenset[str]) -> frozenset[str]:
        return frozenset(area for topic in topics for area in self.safety.get(topic, ()))

    def topics_of(self, text: str) -> frozenset[str]:
        """The topics a text is about (with the topics that include them)."""
        return self.with_parents(set(self.counts(text)))


@cache
def lexicon() -> Lexicon:
    raw = resources.files("slotstream.memory").joinpath("data", "topics.json").read_text(encoding="utf-8")
    return Lexicon(json.loads(raw))


@lru_cache(maxsize=4096)
def topics_of(text: str) -> frozenset[str]:
    """The topics a text is about, from the word lists (empty for an empty or unrelated text)."""
    return lexicon().topics_of(text) if text else frozenset()


def main_area(text: str) -> str | None:
    """The area of life a text's words name most (the first in the lists' order on a tie), or None."""
    counts = lexicon().areas_of(text)
    if not counts:
        return None
    order = lexicon().areas
    return max(counts, key=lambda area: (counts[area], -order.index(area)))

"""Whether a remembered statement is related to a request, by meaning.

Both sides are placed in the areas of everyday life (`topics.json`'s areas: food, travel, work, ...):
the areas their words name, and the area the embedded model places the whole text nearest to. A
record is related to a request when they share an area (or a topic its attribute names: a diet is
about food). A safety-relevant record (an allergy, a condition, a disability, a hard never) reaches
every request of its areas and of the areas they bear on (`safety` in `topics.json`: a health
matter bears on food, fitness, travel, ...).

A record's similarity to the request is also scored against its similarity to ordinary requests
(`memory/data/background_*.txt`): the mean and spread of its cosine over that background are worked
out once, when the record is stored, and a request's score is how many spreads above that mean its
cosine lies. `explain` reports it; ranking uses it among related records.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray

from . import gloss, vectors
from .topics import lexicon

NEAREST_AREAS = 1  # areas the model places a text nearest to, beside those its words name


@dataclass(frozen=True, slots=True)
class Meaning:
    """What relevance needs of a text: its areas and topics, its vector (int8), and for a stored
    record the mean and spread of its similarity to ordinary requests."""

    topics: frozenset[str]
    vector: NDArray[np.float32]
    mean: float = 0.0
    spread: float = 1.0
    # topics it only bears on (its attribute's related topics, a safety matter's reach): related
    # through one of these, it counts half in ranking
    reach: frozenset[str] = frozenset()


@cache
def _prototypes() -> tuple[tuple[str, ...], NDArray[np.float32]]:
    """Each area's direction: the mean vector of its English entries."""
    lex = lexicon()
    names, rows = [], []
    for area in lex.areas:
        entries = lex.english_entries(area)
        if not entries:
            continue
        mean = np.mean([vectors.embed(e) for e in entries], axis=0)
        rows.append(mean / (np.linalg.norm(mean) or 1.0))
        names.append(area)
    return tuple(names), np.stack(rows).astype(np.float32)


@cache
def _background(language: str) -> NDArray[np.float32]:
    raw = resources.files("slotstream.memory").joinpath("data", f"background_{language}.txt").read_text("utf-8")
    return np.stack([vectors.embed(line) for line in raw.splitlines() if line.strip()])


def nearest_areas(vector: NDArray[np.float32], k: int = NEAREST_AREAS) -> frozenset[str]:
    if not vector.any():
        return frozenset()
    names, matrix = _prototypes()
    order = np.argsort(-(matrix @ vector))
    return frozenset(names[i] for i in order[:k])


def topics_of(text: str, vector: NDArray[np.float32]) -> frozenset[str]:
    """The topics a text's words name, and the area nearest its meaning. A topic that includes
    others ("leisure") is one only when the words name it: "music" does not make a text about
    leisure in general, or a record about hiking would be related to every music request."""
    return frozenset(set(lexicon().counts(text)) | set(nearest_areas(vector)))


def request_meaning(text: str) -> Meaning:
    vector = vectors.embed(text)
    return Meaning(topics_of(text, vector), vector)


def record_meaning(
    text: str, named: tuple[str, ...] = (), related: tuple[str, ...] = (), safety: bool = False
) -> Meaning:
    """A stored record's meaning: its text's topics and those its attribute is about (`named`); the
    topics it bears on (its attribute's `related`, and for a safety-relevant record the areas its
    areas bear on); calibrated against ordinary requests."""
    lex = lexicon()
    vector = vectors.embed(text)
    # a record about an area is about the topic including it too ("hiking": outdoors, leisure), so a
    # request about leisure in general finds it; a request names only its own topics
    topics = set(lex.with_parents(set(topics_of(text, vector)))) | set(named)
    reach = set(related)
    if safety:
        reach |= lex.safety_reach(topics)
    background = _background("zh" if gloss.is_chinese(text) else "en") @ vector
    spread = float(background.std()) or 1.0
    return Meaning(frozenset(topics), vector, float(background.mean()), spread, frozenset(reach - topics))


def pack(meaning: Meaning) -> tuple[str, str, float, float]:
    """A record's meaning as stored in its read-model row: its topics (space-separated, those it
    only bears on marked `~`), its vector (int8, base64) and its calibration."""
    data = base64.b64encode(vectors.quantize(meaning.vector)).decode()
    topics = sorted(meaning.topics) + [f"~{t}" for t in sorted(meaning.reach)]
    return " ".join(topics), data, round(meaning.mean, 4), round(meaning.spread, 4)


def unpack(topics: str, data: str, mean: float, spread: float) -> Meaning:
    words = topics.split()
    own = frozenset(t for t in words if not t.startswith("~"))
    reach = frozenset(t[1:] for t in words if t.startswith("~"))
    return Meaning(own, vectors.dequantize(base64.b64decode(data)), mean, spread, reach)


def all_topics(meaning: Meaning) -> frozenset[str]:
    """Every topic a record is on or bears on: the read index lists it under each."""
    return meaning.topics | meaning.reach


@dataclass(frozen=True, slots=True)
class Relation:
    related: bool
    score: float  # spreads above the record's mean similarity to ordinary requests
    shared: frozenset[str]  # the topics both are about
    strength: float = 0.0  # 1: a topic the record is about; 0.5: one it only bears on


def relation(record: Meaning, request: Meaning) -> Relation:
    similarity = float(record.vector @ request.vector)
    score = round((similarity - record.mean) / record.spread, 3)
    shared = record.topics & request.topics
    if shared:
        return Relation(True, score, shared, 1.0)
    reached = record.reach & request.topics
    return Relation(bool(reached), score, reached, 0.5 if reached else 0.0)

"""Which areas of everyday life a text is about, as probabilities: a linear model over the text's
vector (vectors.py) and the counts of each area's words in it (topics.json), trained on short
texts users write, each labelled with its areas (`training/areas/`, written for training, apart
from every evaluation corpus). The weights ship as data (`memory/data/area_model.json`); training
them again from the same texts gives the same file (`training/train_areas.py`).

A request is placed by the same model at lookup time: about 10 µs beside its embedding.

A stored record is placed once, when it is written, and can afford more: its areas are those of
the model, mixed with the areas of its nearest training texts in its language
(`record_probabilities`). A linear model over a mean of word vectors lets one strong word decide
("Autotune makes my skin crawl" reads as beauty); the texts nearest in meaning place it by what
they are about as a whole (about 50 µs, from `memory/data/area_neighbours_{en,zh}.npy`: the texts'
vectors, a byte a dimension, and their areas). A Chinese record's neighbours are the Chinese
texts: glossed vectors are near glossed vectors, not English ones. A request is placed by the model
alone, within the lookup's budget.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray

from . import gloss, neighbours, vectors
from .adam import Adam
from .topics import lexicon

LEXICON_WEIGHT = 0.5  # the area-word counts beside the vector, as log(1 + count) x this
L2 = 1.0  # the weights' penalty, per training text (the inverse of the usual C)
SECONDARY_WEIGHT = 0.5  # a text's second and third areas count this much of its first
NEIGHBOURS = 25  # a record borrows the areas of this many nearest training texts
NEIGHBOUR_SHARE = 0.2  # ... for this share of its area probabilities
NEIGHBOUR_SPREAD = 0.05  # a neighbour at cosine c counts exp((c - 1) / this)
NEIGHBOURS_FILES = {"en": "area_neighbours_en.npy", "zh": "area_neighbours_zh.npy"}


def features(
    text: str, vector: NDArray[np.float32] | None = None, counts: dict[str, int] | None = None
) -> NDArray[np.float32]:
    """The model's input for a text: its vector, then its area-word counts (log scale). `counts`:
    `lexicon().counts(text)`, when the caller has it."""
    lex = lexicon()
    found = lex.counts(text) if counts is None else counts
    lexical = np.zeros(len(lex.areas), dtype=np.float32)
    for topic, n in found.items():
        index = lex.area_index.get(topic)
        if index is not None:
            lexical[index] = np.log1p(n) * LEXICON_WEIGHT
    v = vectors.embed(text) if vector is None else vector
    return np.concatenate([v.astype(np.float32), lexical])


@dataclass(frozen=True)
class AreaModel:
    areas: tuple[str, ...]
    weights: NDArray[np.float32]  # (features, areas)
    bias: NDArray[np.float32]

    def probabilities(self, x: NDArray[np.float32]) -> NDArray[np.float32]:
        z = x @ self.weights + self.bias
        z = np.exp(z - z.max())
        return (z / z.sum()).astype(np.float32)


@cache
def model() -> AreaModel:
    raw = resources.files("slotstream.memory").joinpath("data", "area_model.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    if tuple(data["areas"]) != lexicon().areas:
        raise ValueError("area_model.json was trained for other areas than topics.json names: train it again")
    return AreaModel(
        tuple(data["areas"]),
        np.asarray(data["weights"], dtype=np.float32),
        np.asarray(data["bias"], dtype=np.float32),
    )


def probabilities(
    text: str, vector: NDArray[np.float32] | None = None, counts: dict[str, int] | None = None
) -> NDArray[np.float32]:
    """How much a text is about each area (summing to 1), in `lexicon().areas` order."""
    return model().probabilities(features(text, vector, counts))


def language(text: str) -> str:
    return "zh" if gloss.is_chinese(text) else "en"


def neighbour_areas(vector: NDArray[np.float32], language: str) -> NDArray[np.float32]:
    """The areas of a language's training texts nearest a vector, weighed by how near each is (a
    distribution)."""
    found, _ = neighbours.weighed(*neighbours.load(NEIGHBOURS_FILES[language]), vector, NEIGHBOURS, NEIGHBOUR_SPREAD)
    out: NDArray[np.float32] = (found / found.sum()).astype(np.float32)
    return out


def record_probabilities(
    text: str, vector: NDArray[np.float32] | None = None, counts: dict[str, int] | None = None
) -> NDArray[np.float32]:
    """A stored record's areas: the model's, mixed with those of its nearest training texts."""
    v = vectors.embed(text) if vector is None else vector
    own = probabilities(text, v, counts)
    if not v.any():
        return own  # no word the model knows: nothing is near it
    mixed = (1.0 - NEIGHBOUR_SHARE) * own + NEIGHBOUR_SHARE * neighbour_areas(v, language(text))
    return mixed.astype(np.float32)


# --- training ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    text: str
    areas: tuple[str, ...]  # the first is the main one


def train(examples: Sequence[Example], iterations: int = 1500) -> AreaModel:
    """Multinomial logistic regression, full batch, deterministic: each example's main area counts
    1, its others `SECONDARY_WEIGHT`; an L2 penalty of `L2` per example."""
    areas = lexicon().areas
    rows, targets, weights = [], [], []
    for ex in examples:
        x = features(ex.text)
        for rank, area in enumerate(a for a in ex.areas if a in areas):
            rows.append(x)
            targets.append(areas.index(area))
            weights.append(1.0 if rank == 0 else SECONDARY_WEIGHT)
    x_all = np.asarray(rows, dtype=np.float64)
    y = np.zeros((len(rows), len(areas)))
    y[np.arange(len(rows)), targets] = 1.0
    w = np.asarray(weights)[:, None]
    total = float(w.sum())
    penalty = L2 / total
    coef = np.zeros((x_all.shape[1], len(areas)))
    bias = np.zeros(len(areas))
    adam_c, adam_b = Adam(), Adam()
    for _ in range(iterations):
        z = x_all @ coef + bias
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - y) * w / total
        coef = adam_c.step(coef, x_all.T @ g + penalty * coef)
        bias = adam_b.step(bias, g.sum(axis=0))
    return AreaModel(areas, coef.astype(np.float32), bias.astype(np.float32))


def neighbours_table(examples: Sequence[Example], language_of_texts: str) -> NDArray[np.int8]:
    """A language's shipped neighbours: each of its texts' vector and areas (main 1, others
    `SECONDARY_WEIGHT`, summing to one), as int8."""
    areas = lexicon().areas
    rows = []
    for ex in examples:
        if language(ex.text) != language_of_texts:
            continue
        labels = np.zeros(len(areas), dtype=np.float32)
        for rank, area in enumerate(a for a in ex.areas if a in areas):
            labels[areas.index(area)] += 1.0 if rank == 0 else SECONDARY_WEIGHT
        rows.append((vectors.embed(ex.text), labels / labels.sum()))
    return neighbours.table(rows)


def digest(examples: Iterable[Example]) -> str:
    """What a model was trained on: its texts and labels, the area word lists, the settings."""
    h = hashlib.sha256()
    for ex in examples:
        h.update(json.dumps([ex.text, list(ex.areas)], ensure_ascii=False).encode())
    lex = resources.files("slotstream.memory").joinpath("data", "topics.json").read_bytes()
    h.update(lex)
    h.update(f"{LEXICON_WEIGHT} {L2} {SECONDARY_WEIGHT} {NEIGHBOURS} {NEIGHBOUR_SHARE} {NEIGHBOUR_SPREAD}".encode())
    return h.hexdigest()[:16]


def to_json(trained: AreaModel, trained_on: str, n: int) -> str:
    """The shipped form: weights rounded to 4 decimals (far below what changes a probability)."""
    data = {
        "about": "Weights of memory/semantics/area_model.py, trained by training/train_areas.py; do not edit.",
        "areas": list(trained.areas),
        "trained_on": {"examples": n, "digest": trained_on},
        "bias": [round(float(b), 4) for b in trained.bias],
        "weights": [[round(float(v), 4) for v in row] for row in trained.weights],
    }
    return json.dumps(data, separators=(",", ":")) + "\n"

"""How related a remembered statement is to a request, from what their meanings say together: a
logistic model over four features of the pair, per language, and the bearing of each area on the
others, trained together on statement-and-request pairs written for training (`training/pairs/`,
apart from every evaluation corpus). The weights, the bearing and each language's threshold ship as
data (`memory/data/relation_model.json`); training them again from the same pairs gives the same
file (`training/train_relation.py`).

The bearing: what a user says about one area matters to requests in others (a heart condition to a
trek, a toddler at home to a restaurant). A record is not compared with a request by the areas it
is about but by those it bears on: its area probabilities spread by a learned matrix whose rows
sum to one (each area bears mostly on itself), so a record's bearing is again a distribution over
the areas and the read index's guarantee holds (relevance.py). Faint bearings are dropped, so a
record is listed under few areas more than those it is about. A matrix says how an area bears on
another for every statement about it; a statement also borrows up to `BORROWED_SHARE` of its
bearing from the training statements nearest it in meaning: the areas of the requests they matter
for ("I get carsick on long bus rides" is near statements of motion sickness that mattered for
trips), from `memory/data/bearing_neighbours_{en,zh}.npy`. Each neighbour counts by
how near it is, against the matrix's own bearing counted as one at `BORROWED_NEAR`: a statement no
training statement is near keeps the matrix's. In training, a pair's statement borrows from the
others only.

The features:
- how much the record's bearing and the request's areas agree (the sum of their products), log
  scale;
- the record's calibrated similarity to the request: spreads above its mean cosine to a
  background of ordinary requests;
- how sure the record's bearing is (its largest probability): a statement about no area in
  particular agrees a little with everything;
- the agreement and the similarity together (each makes the other count more).

A language's threshold is the score above which only `UNRELATED_PASSING` of the training pairs'
unrelated requests lie.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray

from . import area_model, neighbours
from .adam import Adam

LANGUAGES = ("en", "zh")
UNRELATED_PASSING = 0.08  # the share of unrelated training pairs a language's threshold lets through
L2 = 0.01  # the weights' penalty
_EPS = 1e-3  # agreement is read on a log scale from here
# the bearing starts as each area bearing on itself (this logit against 0 for every other), and
# is kept near that by a penalty: the pairs say where an area bears on another, not every cell
BEARING_START = 4.0
BEARING_L2 = 0.003
# a bearing below this is dropped (the row renormalised): a record is listed in the read index under
# every area it bears on from AREA_LISTED, and the many faint bearings would list it under most
BEARING_FLOOR = 0.035
BORROWED = 10  # a statement borrows from this many nearest training statements
BORROWED_SHARE = 0.1  # ... this share of its bearing
BORROWED_SPREAD = 0.1  # a neighbour at cosine c counts exp((c - 1) / this)
BORROWED_NEAR = 0.6  # ... and the matrix's own bearing as one at this cosine
BORROWED_FILES = {"en": "bearing_neighbours_en.npy", "zh": "bearing_neighbours_zh.npy"}


def features(agreement: float, similarity: float, peak: float) -> NDArray[np.float64]:
    log_agreement = float(np.log(agreement + _EPS))
    return np.array([log_agreement, similarity, peak, log_agreement * similarity])


@dataclass(frozen=True)
class Scorer:
    """One language's model: standardised features, weights, bias, the threshold that relates."""

    mean: NDArray[np.float64]
    scale: NDArray[np.float64]
    weights: NDArray[np.float64]
    bias: float
    threshold: float

    def score(self, x: NDArray[np.float64]) -> float:
        return float(((x - self.mean) / self.scale) @ self.weights + self.bias)


@cache
def model() -> dict[str, Scorer]:
    raw = resources.files("slotstream.memory").joinpath("data", "relation_model.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    return {
        lang: Scorer(
            np.asarray(m["mean"]),
            np.asarray(m["scale"]),
            np.asarray(m["weights"]),
            float(m["bias"]),
            float(m["threshold"]),
        )
        for lang, m in data["languages"].items()
    }


@cache
def bearing_matrix() -> NDArray[np.float32]:
    """(areas, areas): how much each area a record is about bears on each area a request is about."""
    raw = resources.files("slotstream.memory").joinpath("data", "relation_model.json").read_text(encoding="utf-8")
    matrix = np.asarray(json.loads(raw)["bearing"], dtype=np.float64)
    # rows summing to exactly one, whatever the rounding of the shipped figures
    out: NDArray[np.float32] = (matrix / matrix.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def bearing(areas: NDArray[np.float32]) -> NDArray[np.float32]:
    """The areas a text about `areas` bears on: a distribution again (the matrix's rows sum to 1)."""
    out: NDArray[np.float32] = (areas @ bearing_matrix()).astype(np.float32)
    return out


def borrowing(
    vector: NDArray[np.float32],
    language: str,
    table: tuple[NDArray[np.float32], NDArray[np.float32]] | None = None,
    leave_out: int | None = None,
) -> tuple[float, NDArray[np.float32]]:
    """(the share of its bearing a statement keeps from the matrix, the areas it borrows, already
    weighed) from the training statements nearest `vector` (`table`: the shipped one by default)."""
    texts, areas = table if table is not None else neighbours.load(BORROWED_FILES[language])
    found, weight = neighbours.weighed(texts, areas, vector, BORROWED, BORROWED_SPREAD, leave_out)
    prior = math.exp((BORROWED_NEAR - 1.0) / BORROWED_SPREAD)
    share = BORROWED_SHARE / (prior + weight)
    return 1.0 - BORROWED_SHARE + share * prior, (share * found).astype(np.float32)


def record_bearing(areas: NDArray[np.float32], vector: NDArray[np.float32], language: str) -> NDArray[np.float32]:
    """What a statement about `areas` bears on: the matrix's bearing, and a share borrowed from the
    training statements near its vector (none for a vector of no known word)."""
    own = bearing(areas)
    if not vector.any():
        return own
    kept, borrowed = borrowing(vector, language)
    out: NDArray[np.float32] = (kept * own + borrowed).astype(np.float32)
    return out


@cache
def _linear(language: str) -> tuple[float, float, float, float, float]:
    """A language's model folded into one weight a feature and a constant (the threshold taken off),
    in plain floats: a lookup scores every candidate related by meaning, a few hundred at most."""
    s = model()[language]
    a = s.weights / s.scale
    constant = s.bias - float(a @ s.mean) - s.threshold
    return float(a[0]), float(a[1]), float(a[2]), float(a[3]), constant


def related(language: str, agreement: float, similarity: float, peak: float) -> tuple[bool, float]:
    """(whether the pair is related by meaning, its score above the language's threshold)."""
    a0, a1, a2, a3, constant = _linear(language)
    log_agreement = math.log(agreement + _EPS)
    margin = a0 * log_agreement + a1 * similarity + a2 * peak + a3 * log_agreement * similarity + constant
    return margin >= 0, round(margin, 3)


# --- training ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """A request of a pair: its area probabilities and the record's calibrated similarity to it."""

    areas: NDArray[np.float64]
    similarity: float


@dataclass(frozen=True)
class Pair:
    language: str
    areas: NDArray[np.float64]  # the record's own area probabilities (before its bearing)
    related: Side  # the request where it matters
    unrelated: Side  # one where it does not
    kept: float  # the share of its bearing it keeps from the matrix
    borrowed: NDArray[np.float64]  # what it borrows from the other training statements near it (weighed)


@dataclass(frozen=True)
class Trained:
    scorers: dict[str, Scorer]
    bearing: NDArray[np.float64]


def _rows_softmax(logits: NDArray[np.float64]) -> NDArray[np.float64]:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: NDArray[np.float64] = e / e.sum(axis=1, keepdims=True)
    return out


def _pruned(matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    kept = np.where((matrix >= BEARING_FLOOR) | np.eye(len(matrix), dtype=bool), matrix, 0.0)
    out: NDArray[np.float64] = kept / kept.sum(axis=1, keepdims=True)
    return out


class _Language:
    """One language's pairs as arrays: both requests of every pair stacked (related first)."""

    def __init__(self, pairs: Sequence[Pair]) -> None:
        self.records = np.vstack([np.stack([p.areas for p in pairs])] * 2)
        self.kept = np.r_[[p.kept for p in pairs], [p.kept for p in pairs]]
        self.borrowed = np.vstack([np.stack([p.borrowed for p in pairs])] * 2)
        self.requests = np.vstack(
            [np.stack([p.related.areas for p in pairs]), np.stack([p.unrelated.areas for p in pairs])]
        )
        self.similarity = np.r_[[p.related.similarity for p in pairs], [p.unrelated.similarity for p in pairs]]
        self.y = np.r_[np.ones(len(pairs)), np.zeros(len(pairs))]
        self.n = len(pairs)

    def features(self, matrix: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(the features of every example, each example's agreement) under a bearing matrix."""
        bearing = self.kept[:, None] * (self.records @ matrix) + self.borrowed
        agreement = np.einsum("ij,ij->i", bearing, self.requests)
        log_agreement = np.log(agreement + _EPS)
        peak = bearing.max(axis=1)
        x = np.c_[log_agreement, self.similarity, peak, log_agreement * self.similarity]
        return x, agreement


def train(pairs: Sequence[Pair], iterations: int = 3000) -> Trained:
    """Logistic regression per language and one bearing matrix for all, full batch, deterministic
    (Adam from fixed starting points, a fixed number of steps)."""
    data = {lang: _Language([p for p in pairs if p.language == lang]) for lang in LANGUAGES}
    n_areas = next(iter(data.values())).records.shape[1]
    start = np.diag(np.full(n_areas, BEARING_START))
    logits = start.copy()
    weights = {lang: np.zeros(5) for lang in LANGUAGES}
    optimisers = {lang: Adam() for lang in LANGUAGES}
    standard: dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]] = {}
    for lang, d in data.items():
        x, _ = d.features(_rows_softmax(start))
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale[scale == 0] = 1.0
        standard[lang] = (mean, scale)
    bearing_adam = Adam()
    for _ in range(iterations):
        matrix = _rows_softmax(logits)
        grad_matrix = np.zeros_like(matrix)
        for lang, d in data.items():
            mean, scale = standard[lang]
            x, agreement = d.features(matrix)
            z = np.c_[(x - mean) / scale, np.ones(len(x))]
            w = weights[lang]
            residual = (1 / (1 + np.exp(-(z @ w))) - d.y) / len(d.y)
            g = z.T @ residual
            g[:-1] += L2 * w[:-1]
            # through the agreement only: the peak moves with the matrix too, slowly, and is read
            # as it is at each step
            by_agreement = residual * (w[0] / scale[0] + w[3] / scale[3] * d.similarity) / (agreement + _EPS)
            grad_matrix += np.einsum("i,ia,ib->ab", by_agreement * d.kept, d.records, d.requests)
            weights[lang] = optimisers[lang].step(w, g)
        grad_logits = matrix * (grad_matrix - (grad_matrix * matrix).sum(axis=1, keepdims=True))
        logits = bearing_adam.step(logits, grad_logits + BEARING_L2 * (logits - start))
    matrix = _pruned(_rows_softmax(logits))
    scorers = {}
    for lang, d in data.items():
        mean, scale = standard[lang]
        x, _ = d.features(matrix)
        w = weights[lang]
        unrelated = np.c_[(x[d.n :] - mean) / scale, np.ones(d.n)] @ w
        threshold = float(np.quantile(unrelated, 1 - UNRELATED_PASSING))
        scorers[lang] = Scorer(mean, scale, w[:-1], float(w[-1]), threshold)
    return Trained(scorers, matrix)


def pair_features(pair: Pair, trained: Trained) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(the related request's features, the unrelated one's) under a trained bearing."""
    bearing = pair.kept * (pair.areas @ trained.bearing) + pair.borrowed
    peak = float(bearing.max())
    related, unrelated = (
        features(float(bearing @ s.areas), s.similarity, peak) for s in (pair.related, pair.unrelated)
    )
    return related, unrelated


def digest(texts: Iterable[str]) -> str:
    """What a model was trained on: the pairs' texts, what places them (the area model, the
    background requests), the settings."""
    h = hashlib.sha256()
    for text in texts:
        h.update(text.encode())
    data = resources.files("slotstream.memory").joinpath("data")
    for name in ("area_model.json", *area_model.NEIGHBOURS_FILES.values(), "background_en.txt", "background_zh.txt"):
        h.update(data.joinpath(name).read_bytes())
    h.update(f"{UNRELATED_PASSING} {L2} {_EPS} {BEARING_START} {BEARING_L2} {BEARING_FLOOR}".encode())
    h.update(f"{BORROWED} {BORROWED_SHARE} {BORROWED_SPREAD} {BORROWED_NEAR}".encode())
    return h.hexdigest()[:16]


def to_json(trained: Trained, trained_on: str, n: int) -> str:
    def rounded(values: Iterable[float]) -> list[float]:
        return [round(float(x), 6) for x in values]

    data = {
        "about": "Weights of memory/semantics/relation_model.py, trained by training/train_relation.py; do not edit.",
        "trained_on": {"pairs": n, "digest": trained_on},
        "languages": {
            lang: {
                "mean": rounded(s.mean),
                "scale": rounded(s.scale),
                "weights": rounded(s.weights),
                "bias": round(s.bias, 6),
                "threshold": round(s.threshold, 6),
            }
            for lang, s in trained.scorers.items()
        },
        # rows: the areas a record is about; columns: those of a request (topics.json's order)
        "bearing": [rounded(row) for row in trained.bearing],
    }
    return json.dumps(data, indent=1) + "\n"

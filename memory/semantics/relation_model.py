"""How related a remembered statement is to a request, from what their meanings say together: a
logistic model over four features of the pair, per language, trained on statement-and-request
pairs written for training (`training/pairs/`, apart from every evaluation corpus). The weights
and each language's threshold ship as data (`memory/data/relation_model.json`); training them again
from the same pairs gives the same file (`training/train_relation.py`).

The features:
- how much the two agree in areas (the sum of their area probabilities' products), log scale;
- the record's calibrated similarity to the request: spreads above its mean cosine to a
  background of ordinary requests;
- how sure the record's own placement is (its most likely area's probability): a statement about
  no area in particular agrees a little with everything;
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

from .adam import Adam

LANGUAGES = ("en", "zh")
UNRELATED_PASSING = 0.11  # the share of unrelated training pairs a language's threshold lets through
L2 = 0.01  # the weights' penalty
_EPS = 1e-3  # agreement is read on a log scale from here


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
class Pair:
    language: str
    related: NDArray[np.float64]  # the features with the related request
    unrelated: NDArray[np.float64]  # with the unrelated one


def fit(pairs: Sequence[Pair], iterations: int = 4000) -> Scorer:
    """Logistic regression, full batch, deterministic (Adam from zero, a fixed number of steps)."""
    x = np.vstack([np.stack([p.related for p in pairs]), np.stack([p.unrelated for p in pairs])])
    y = np.r_[np.ones(len(pairs)), np.zeros(len(pairs))]
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    adam = Adam()
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-(z @ w)))
        g = z.T @ (p - y) / len(y)
        g[:-1] += L2 * w[:-1]
        w = adam.step(w, g)
    unrelated = np.hstack([(x[len(pairs) :] - mean) / scale, np.ones((len(pairs), 1))]) @ w
    threshold = float(np.quantile(unrelated, 1 - UNRELATED_PASSING))
    return Scorer(mean, scale, w[:-1], float(w[-1]), threshold)


def train(pairs: Sequence[Pair]) -> dict[str, Scorer]:
    return {lang: fit([p for p in pairs if p.language == lang]) for lang in LANGUAGES}


def digest(texts: Iterable[str]) -> str:
    """What a model was trained on: the pairs' texts, what places them (the area model, the
    background requests), the settings."""
    h = hashlib.sha256()
    for text in texts:
        h.update(text.encode())
    data = resources.files("slotstream.memory").joinpath("data")
    for name in ("area_model.json", "background_en.txt", "background_zh.txt"):
        h.update(data.joinpath(name).read_bytes())
    h.update(f"{UNRELATED_PASSING} {L2} {_EPS}".encode())
    return h.hexdigest()[:16]


def to_json(trained: dict[str, Scorer], trained_on: str, n: int) -> str:
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
            for lang, s in trained.items()
        },
    }
    return json.dumps(data, indent=1) + "\n"

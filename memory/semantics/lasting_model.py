"""How likely a turn is to say something lasting about its user, rather than to be ordinary chat:
a request about the task at hand, a question, pasted material, a role-play, someone else's
preferences, a state of the moment ("I've only got 5 minutes", "宝宝刚睡着，你回短一点").

A linear model over the turn's words and word pairs (Chinese: its characters and character pairs),
trained on turns users write, each labelled lasting or chat (`training/lasting/`, written for
training, apart from every evaluation corpus). The weights ship as data
(`memory/data/lasting_model.json`); training them again from the same texts gives the same file
(`training/train_lasting.py`).

The extractor's rules decide what a turn says; this model only vetoes: a turn it reads as chat
keeps no new lasting record, unless the words that record keeps read as clearly lasting on their
own (`CLEARLY_LASTING`). Each language's threshold is set in training so that about
`KEPT_LOSS` of the lasting turns held out of each fold fall below it: a false memory is worse than
a missed one, but a lost allergy is a miss too. A few µs a turn, and only for a turn that would
keep something.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from . import gloss
from .adam import Adam

L2 = 1.0  # the weights' penalty, per training text (the inverse of the usual C)
MIN_COUNT = 2  # a feature seen in fewer training texts is left out (it says nothing general)
KEPT_LOSS = 0.01  # the share of held-out lasting turns each language's threshold may veto
CLEARLY_LASTING = 0.9  # words this likely lasting on their own are kept whatever the turn around them
# words no rule reads as a statement are kept when this likely lasting on their own; Chinese
# statements run terser ("大油皮，夏天俩小时就脱妆") and the model is less sure of them
STATED_IN_OTHER_WORDS = {"en": 0.9, "zh": 0.85}
FOLDS = 5
ITERATIONS = 600
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)*|\d+|[\u3400-\u9fff\uf900-\ufaff]|[?？!！:：\"“”]|\n")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "＇": "'"})
_FIRST_CLAUSE = re.compile(r"[,.;!?，。；！？\n]")
_LENGTH_STEP, _LENGTH_MAX = 5, 12  # the length in tokens, in buckets of 5, up to 60


def features(text: str) -> list[str]:
    """The model's input: the turn's tokens (words, numbers as one token, Chinese characters, the
    marks of a question, a quote or a pasted block), adjacent pairs, the first token, the length."""
    folded = text.lower().translate(_APOSTROPHES)
    tokens = ["0" if t.isdigit() else t for t in _TOKEN.findall(folded)]
    out = {f"^{tokens[0]}" if tokens else "^", f"#{min(len(tokens) // _LENGTH_STEP, _LENGTH_MAX)}"}
    out.update(tokens)
    out.update(f"{a} {b}" for a, b in itertools.pairwise(tokens))
    # the first clause's words apart: a stance said before a question ("受不了排队，附近有啥…吗")
    first = _FIRST_CLAUSE.split(folded, maxsplit=1)[0]
    out.update(f"1:{t}" for t in _TOKEN.findall(first) if not t.isdigit())
    return sorted(out)


def language(text: str) -> str:
    return "zh" if gloss.is_chinese(text) else "en"


@dataclass(frozen=True)
class LastingModel:
    weights: dict[str, float]
    bias: float
    thresholds: dict[str, float]  # per language: below it, the turn is chat

    def chance(self, text: str) -> float:
        z = self.bias + sum(self.weights.get(f, 0.0) for f in features(text))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@cache
def model() -> LastingModel:
    raw = resources.files("slotstream.memory").joinpath("data", "lasting_model.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    return LastingModel(dict(data["weights"]), float(data["bias"]), dict(data["thresholds"]))


def chance(text: str) -> float:
    """How likely the turn says something lasting about its user, 0..1."""
    return model().chance(text)


def reads_as_chat(text: str) -> bool:
    """The turn reads as chat: what it holds is for the task or the moment, not about its user."""
    trained = model()
    return trained.chance(text) < trained.thresholds[language(text)]


def stated_in_other_words(words: str) -> bool:
    """Words the rules found no stance in that read as lasting almost surely ("I do all my grocery
    shopping online", "蘑菇类的吃不惯"): a statement about the user all the same."""
    return model().chance(words) >= STATED_IN_OTHER_WORDS[language(words)]


def clearly_lasting(words: str) -> bool:
    """Words that read as lasting on their own, whatever the turn around them asks ("I'm vegetarian
    btw" before "what should I cook tonight?")."""
    return model().chance(words) >= CLEARLY_LASTING


# --- training ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    text: str
    lasting: bool


def _fit(rows: list[list[int]], y: np.ndarray, size: int) -> tuple[np.ndarray, float]:
    """Logistic regression on sparse binary features, full batch, classes weighed equally
    (`Adam`: the same texts give the same weights)."""
    n = len(rows)
    owner = np.concatenate([np.full(len(r), i) for i, r in enumerate(rows)]).astype(np.int64)
    column = np.concatenate([np.asarray(r, dtype=np.int64) for r in rows])
    share = float(y.mean())
    weight = np.where(y == 1, 0.5 / share, 0.5 / (1 - share)) / n
    penalty = L2 / n
    coef, bias = np.zeros(size), 0.0
    adam_c, adam_b = Adam(), Adam()
    for _ in range(ITERATIONS):
        z = np.bincount(owner, weights=coef[column], minlength=n) + bias
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        g = (p - y) * weight
        coef = adam_c.step(coef, np.bincount(column, weights=g[owner], minlength=size) + penalty * coef)
        bias = float(adam_b.step(bias, float(g.sum())))
    return coef, bias


def _vocabulary(examples: Sequence[Example]) -> dict[str, int]:
    seen: dict[str, int] = {}
    for ex in examples:
        for f in features(ex.text):
            seen[f] = seen.get(f, 0) + 1
    kept = sorted(f for f, n in seen.items() if n >= MIN_COUNT)
    return {f: i for i, f in enumerate(kept)}


def _rows(examples: Sequence[Example], vocabulary: dict[str, int]) -> list[list[int]]:
    return [[vocabulary[f] for f in features(ex.text) if f in vocabulary] for ex in examples]


def train(examples: Sequence[Example]) -> LastingModel:
    """The weights from every example; each language's threshold from scores held out: each fifth
    of the examples scored by a model trained on the other four."""
    vocabulary = _vocabulary(examples)
    rows = _rows(examples, vocabulary)
    y = np.asarray([1.0 if ex.lasting else 0.0 for ex in examples])
    held_out = np.zeros(len(examples))
    for fold in range(FOLDS):
        inside = [i for i in range(len(examples)) if i % FOLDS != fold]
        coef, bias = _fit([rows[i] for i in inside], y[inside], len(vocabulary))
        for i in range(fold, len(examples), FOLDS):
            held_out[i] = bias + float(coef[rows[i]].sum()) if rows[i] else bias
    thresholds = {}
    for lang in ("en", "zh"):
        scores = sorted(held_out[i] for i, ex in enumerate(examples) if ex.lasting and language(ex.text) == lang)
        z = scores[int(len(scores) * KEPT_LOSS)] if scores else -30.0
        thresholds[lang] = round(1.0 / (1.0 + math.exp(-z)), 4)
    coef, bias = _fit(rows, y, len(vocabulary))
    names = sorted(vocabulary, key=vocabulary.__getitem__)
    weights = {f: round(float(coef[i]), 4) for i, f in enumerate(names) if abs(coef[i]) >= 5e-4}
    return LastingModel(weights, round(float(bias), 4), thresholds)


def digest(examples: Iterable[Example]) -> str:
    """What a model was trained on: its texts and labels, and the settings."""
    h = hashlib.sha256()
    for ex in examples:
        h.update(json.dumps([ex.text, ex.lasting], ensure_ascii=False).encode())
    h.update(f"{L2} {MIN_COUNT} {KEPT_LOSS} {FOLDS} {ITERATIONS} {_TOKEN.pattern}".encode())
    return h.hexdigest()[:16]


def to_json(trained: LastingModel, trained_on: str, n: int) -> str:
    data = {
        "about": "Weights of memory/semantics/lasting_model.py, trained by training/train_lasting.py; do not edit.",
        "trained_on": {"examples": n, "digest": trained_on},
        "thresholds": trained.thresholds,
        "bias": trained.bias,
        "weights": dict(sorted(trained.weights.items())),
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"

"""The one harness every corpus evaluation uses: where the shipped corpora are, reading a corpus
file, the deterministic dev / holdout split, and the counts a report prints.

The corpora ship with the package (`slotstream/eval/corpora/<name>/*.jsonl`), so the evaluation
commands work from an installed wheel as from a checkout. Each was written blind to the code it
measures; docs/evaluation.md says who wrote what, and which one is held out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

SPLITS = ("all", "dev", "holdout")
LANGS = ("en", "zh")


def corpus_path(name: str) -> Path:
    """The folder of a shipped corpus (`phrasings`, `everyday`, `ranking`, ...)."""
    return Path(str(resources.files("slotstream.eval").joinpath("corpora", name)))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """A corpus file's lines as objects (blank lines skipped)."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(raw) for raw in f if raw.strip()]


def split_of(index: int) -> str:
    """The deterministic split: every third line (0-based index % 3 == 2) is held out."""
    return "holdout" if index % 3 == 2 else "dev"


def check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}")


@dataclass
class Cell:
    """A rate's count: how many lines, how many hits."""

    n: int = 0
    hits: int = 0

    def add(self, hit: bool) -> None:
        self.n += 1
        self.hits += int(hit)

    def merge(self, other: Cell) -> None:
        self.n += other.n
        self.hits += other.hits

    @property
    def rate(self) -> float:
        return self.hits / self.n if self.n else 0.0


def pct(c: Cell) -> str:
    """A cell's rate for a table: `87.5%`, or `-` when it counted nothing."""
    return f"{100 * c.rate:5.1f}%" if c.n else "    -"


def fraction(c: Cell) -> str:
    """A cell as `hits/n = rate`."""
    return f"{c.hits}/{c.n} = {pct(c).strip()}"

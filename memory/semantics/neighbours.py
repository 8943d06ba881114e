"""Nearest texts: a table of texts' vectors, each with an area distribution, and the areas of the
texts nearest a vector, each weighed by how near it is (exp((cosine - 1) / spread)). Tables ship in
`memory/data/` as int8 (a byte a dimension and a byte an area), written by the training scripts:
the area model's texts (what a text is about) and the relation model's pairs (what a statement
matters for).
"""

from __future__ import annotations

import io
from functools import cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray

from . import vectors

_BYTE = 127.0  # stored as int8, x this


@cache
def load(name: str) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """A shipped table's vectors (rows) and area distributions."""
    raw = resources.files("slotstream.memory").joinpath("data", name).read_bytes()
    return unpack(np.load(io.BytesIO(raw), allow_pickle=False))


def unpack(table: NDArray[np.int8]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """A table's vectors and its area distributions, each summing to one again after rounding."""
    values = table.astype(np.float32) / _BYTE
    areas = values[:, vectors.DIMENSIONS :]
    areas = areas / np.maximum(areas.sum(axis=1, keepdims=True), 1e-6)
    return np.ascontiguousarray(values[:, : vectors.DIMENSIONS]), np.ascontiguousarray(areas)


def weighed(
    texts: NDArray[np.float32],
    areas: NDArray[np.float32],
    vector: NDArray[np.float32],
    count: int,
    spread: float,
    leave_out: int | None = None,
) -> tuple[NDArray[np.float32], float]:
    """The areas of the `count` rows nearest `vector`, each weighed by exp((cosine - 1) / spread)
    whatever the others' (far rows count for little), and the weights' sum: (the weighed sum of
    their areas, the sum of the weights)."""
    cosines = texts @ vector
    if leave_out is not None:
        cosines[leave_out] = -np.inf
    count = min(count, len(cosines) - 1)
    nearest = np.argpartition(-cosines, count)[:count]
    weights = np.exp((cosines[nearest] - 1.0) / spread)
    return (weights @ areas[nearest]).astype(np.float32), float(weights.sum())


def table(rows: list[tuple[NDArray[np.float32], NDArray[np.float32]]]) -> NDArray[np.int8]:
    """Vectors and area distributions as a shipped table."""
    values = np.asarray([np.concatenate([vector, areas]) for vector, areas in rows])
    return np.clip(np.rint(values * _BYTE), -127, 127).astype(np.int8)

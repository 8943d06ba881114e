"""Nearest texts (memory/semantics/neighbours.py): the areas of the rows nearest a vector, weighed
by nearness; a row left out is nobody's neighbour; a table is stored a byte a value."""

from __future__ import annotations

import numpy as np

from slotstream.memory.semantics import neighbours, vectors


def _unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(vectors.DIMENSIONS).astype(np.float32)
    return v / np.linalg.norm(v)


def test_the_nearest_rows_decide_by_nearness_and_a_row_left_out_is_no_neighbour() -> None:
    texts = np.stack([_unit(1), _unit(2), _unit(3)])
    areas = np.eye(3, dtype=np.float32)
    near_first = texts[0] * 0.9 + texts[1] * 0.1
    near_first /= np.linalg.norm(near_first)
    found, weight = neighbours.weighed(texts, areas, near_first, count=2, spread=0.05)
    assert abs(float(found.sum()) - weight) < 1e-6  # each row's areas sum to one
    assert found[0] / weight > 0.99 and found[2] == 0.0  # the third row is not among the two nearest
    assert weight > 0.5  # a near row counts nearly one
    left, _ = neighbours.weighed(texts, areas, near_first, count=2, spread=0.05, leave_out=0)
    assert left[0] == 0.0 and left[1] > 0.0
    # a vector near no row: its neighbours count for almost nothing, whatever they are
    _, far = neighbours.weighed(texts, areas, _unit(9), count=2, spread=0.05)
    assert far < 1e-6


def test_a_table_is_a_byte_a_value_and_reads_back_close() -> None:
    rows = [(_unit(4), np.array([0.5, 0.5, 0.0], dtype=np.float32)), (_unit(5), np.array([0, 0, 1], dtype=np.float32))]
    table = neighbours.table(rows)
    assert table.dtype == np.int8 and table.shape == (2, vectors.DIMENSIONS + 3)
    back = table.astype(np.float32) / 127.0
    assert np.abs(back[0, : vectors.DIMENSIONS] - rows[0][0]).max() < 0.5 / 127 + 1e-6
    assert np.abs(back[:, vectors.DIMENSIONS :] - np.stack([r[1] for r in rows])).max() < 0.5 / 127 + 1e-6

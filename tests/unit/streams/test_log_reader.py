"""Range bounds as `slotstream replay` takes them."""

from __future__ import annotations

import pytest

from slotstream.streams.log_reader import Bound


@pytest.mark.parametrize("text", [None, "beginning", "now", []])
def test_the_log_edges(text: object) -> None:
    assert Bound.parse(text) == Bound("edge")  # type: ignore[arg-type]


def test_a_time_with_a_timezone() -> None:
    assert Bound.parse("2026-12-01T10:00:00Z") == Bound("time", time_ms=1_796_119_200_000)
    assert Bound.parse("2026-12-01T11:00:00+01:00").time_ms == 1_796_119_200_000


def test_offsets_per_role_and_partition_repeatable() -> None:
    bound = Bound.parse(["ops:0=120,1=98", "turns:3=7"])
    assert bound.kind == "offsets" and bound.offsets == {"ops": {0: 120, 1: 98}, "turns": {3: 7}}


@pytest.mark.parametrize(
    "text", ["2026-12-01T10:00:00", "ops:", "ops:x=1", "ops:0=", "ops:0=1,1", "yesterday:noon", "ops"]
)
def test_anything_else_is_a_clear_error(text: str) -> None:
    with pytest.raises(ValueError):
        Bound.parse(text)

"""The optimiser the shipped models are trained with: Adam from zero, with fixed settings, for a
fixed number of steps, so the same texts give the same weights."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

RATE, B1, B2, EPS = 0.05, 0.9, 0.999, 1e-8


@dataclass
class Adam:
    """One parameter's moments (an array, or a number for a bias)."""

    m: Any = 0.0
    v: Any = 0.0
    steps: int = field(default=0)

    def step(self, param: Any, grad: Any) -> Any:
        """`param` moved one step against `grad` (a new array or number)."""
        self.steps += 1
        self.m = B1 * self.m + (1 - B1) * grad
        self.v = B2 * self.v + (1 - B2) * grad * grad
        return param - RATE * (self.m / (1 - B1**self.steps)) / (np.sqrt(self.v / (1 - B2**self.steps)) + EPS)

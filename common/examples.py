"""Example inputs that each op declares, so the test-suite can check it.

An example is ``Example(args, attrs)``; each arg is either a shape (random
normal float64 data), ``pos(shape)`` (random positive data, for log/sqrt/pow),
``ints(shape, high)`` (integer data, e.g. labels or indices) or a literal array.
Registering an op without examples fails the suite.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = ["Example", "pos", "ints", "materialize"]


class Example(NamedTuple):
    args: tuple
    attrs: dict = {}


class pos(NamedTuple):
    shape: tuple


class ints(NamedTuple):
    shape: tuple
    high: int
    low: int = 0


def materialize(example: Example, rng: np.random.Generator) -> tuple[list[Any], dict]:
    """Concrete float64/int64 arrays for an example."""
    args = []
    for a in example.args:
        if isinstance(a, pos):
            args.append(rng.uniform(0.5, 2.0, a.shape))
        elif isinstance(a, ints):
            args.append(rng.integers(a.low, a.high, a.shape))
        elif isinstance(a, tuple):
            args.append(rng.standard_normal(a))
        else:
            args.append(np.asarray(a))
    return args, dict(example.attrs)

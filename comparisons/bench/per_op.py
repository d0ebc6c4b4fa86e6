"""Per-op overhead of define-by-run: ``python -m comparisons.bench.per_op``.

A chain of ``y = y + c`` on a (16, 16) float32 tensor, timed per op: plain numpy,
dyngraph with nothing requiring grad (the fast path: compute and return), while
recording a tape, and recording plus ``backward()``.  The difference between the
rows is what the eager engine's bookkeeping costs per op.
"""
from __future__ import annotations

import numpy as np

import dyngraph as torch

from .timing import best_of

__all__ = ["chain_times"]


def chain_times(n: int = 100, reps: int = 200) -> dict[str, float]:
    """Microseconds per ``y = y + c`` for each way of running the chain."""
    rng = np.random.default_rng(0)
    a, ca = rng.random((16, 16), np.float32), rng.random((16, 16), np.float32)
    x, c, plain = torch.tensor(a, requires_grad=True), torch.tensor(ca), torch.tensor(a)

    def numpy_chain():
        y = a
        for _ in range(n):
            y = y + ca

    def chain(start):
        y = start
        for _ in range(n):
            y = y + c
        return y

    runs = {"numpy": numpy_chain,
            "dyngraph, no grad": lambda: chain(plain),
            "dyngraph, forward (recording)": lambda: chain(x),
            "dyngraph, forward + backward": lambda: chain(x).sum().backward()}
    return {name: best_of(fn, reps) / n * 1e6 for name, fn in runs.items()}


if __name__ == "__main__":
    for name, us in chain_times().items():
        print(f"{name:32s} {us:6.2f} us/op")

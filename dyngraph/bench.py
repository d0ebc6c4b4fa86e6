"""Per-op overhead of define-by-run: ``python -m dyngraph.bench``.

A chain of 100 ``y = y + c`` on a (16, 16) float32 tensor, timed per op:
plain numpy, dyngraph with nothing requiring grad (the fast path), dyngraph
recording (input requires grad), and recording plus ``backward()``.  All in
the same run, best of several repeats, so the ratios are meaningful even on a
busy machine.  Not a test: figures go in the README.
"""
from __future__ import annotations

import time

import numpy as np

import dyngraph as torch

__all__ = ["chain_times"]


def _best(f, n_ops: int, reps: int, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        times.append((time.perf_counter() - t0) / reps / n_ops * 1e6)
    return min(times)


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

    return {
        "numpy": _best(numpy_chain, n, reps),
        "dyngraph, no grad": _best(lambda: chain(plain), n, reps),
        "dyngraph, forward (recording)": _best(lambda: chain(x), n, reps),
        "dyngraph, forward + backward": _best(lambda: chain(x).sum().backward(), n, reps),
    }


if __name__ == "__main__":
    for name, us in chain_times().items():
        print(f"{name:32s} {us:6.2f} us/op")

"""Central finite differences: the one reference every gradient test compares against."""
from __future__ import annotations

import numpy as np


def numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of scalar ``f()`` w.r.t. float64 array ``x`` (changed in place, restored)."""
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for j in range(flat.size):
        old = flat[j]
        flat[j] = old + eps
        hi = f()
        flat[j] = old - eps
        lo = f()
        flat[j] = old
        gflat[j] = (hi - lo) / (2 * eps)
    return grad

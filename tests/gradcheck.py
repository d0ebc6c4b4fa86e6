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


def results(op, value) -> list:
    """An op's result(s) as a list: one item, or one per output of a multi-output op
    (works for arrays, Specs, engine tensors alike)."""
    return list(value) if op.multi_output else [value]


def cotangents(op, outs: list, rng: np.random.Generator):
    """A random cotangent per float result (None for others, and for a workspace whose
    missing cotangent the rules take as None -- ``undefined_grads``: the first-order case;
    the second-order tests give it one), shaped as the op's rule takes them: bare for a
    one-output op, a tuple for a multi-output one; and the list."""
    gs = [rng.standard_normal(np.shape(o))
          if np.asarray(o).dtype.kind == "f" and k not in op.undefined_grads else None
          for k, o in enumerate(outs)]
    return (tuple(gs) if op.multi_output else gs[0]), gs


def weighted(gs: list, outs: list) -> float:
    """sum_k <g_k, out_k> over the results that have a cotangent: the scalar whose gradient
    the rule computes."""
    return float(sum(np.sum(g * np.asarray(o)) for g, o in zip(gs, outs) if g is not None))

"""``gradcheck``: compare the analytic Jacobian with central finite differences.

Use float64 inputs (PyTorch warns otherwise: float32's differences are too
coarse for the default tolerances).

>>> import dyngraph as torch
>>> gradcheck(torch.sin, (torch.randn(3, dtype=torch.float64, requires_grad=True),))
True
"""
from __future__ import annotations

import warnings

import numpy as np

from ..grad_mode import no_grad
from ..tensor import Tensor, make
from .functional import jacobian, vjp

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the Jacobians disagree."""


def _numeric(func, xs: tuple, j: int, k_out: int, eps: float) -> np.ndarray:
    x = xs[j]
    flat = x._data.reshape(-1)
    cols = []
    for i in range(flat.size):
        old = flat[i]
        with no_grad():
            flat[i] = old + eps
            hi = _outputs(func(*xs))[k_out]._data.astype(np.float64)
            flat[i] = old - eps
            lo = _outputs(func(*xs))[k_out]._data.astype(np.float64)
        flat[i] = old
        cols.append(((hi - lo) / (2 * eps)).reshape(-1))
    return np.stack(cols, axis=1) if cols else np.zeros((0, 0))


def _outputs(out) -> tuple:
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, **_ignored) -> bool:
    """True when every d output / d input agrees with finite differences."""
    xs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [j for j, x in enumerate(xs) if isinstance(x, Tensor) and x.requires_grad]
    for j in diff:
        if xs[j]._data.dtype != np.float64:
            warnings.warn(f"Input #{j} requires gradient and is not a double precision floating "
                          f"point or complex. This check will likely fail if all the inputs are "
                          f"not of double precision floating point or complex. ", UserWarning,
                          stacklevel=2)
    outs = _outputs(func(*xs))
    for k, o in enumerate(outs):
        if not isinstance(o, Tensor) or not o.requires_grad:
            continue
        for j in diff:
            def fk(x, j=j, k=k):
                args = list(xs)
                args[j] = x
                return _outputs(func(*args))[k]
            analytic = jacobian(fk, xs[j])._data.reshape(o.numel(), -1).astype(np.float64)
            numeric = _numeric(func, xs, j, k, eps)
            if not np.allclose(analytic, numeric, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(f"Jacobian mismatch for output {k} with respect to input "
                                     f"{j},\nnumerical:{numeric}\nanalytical:{analytic}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, raise_exception: bool = True, **_ignored) -> bool:
    """gradcheck of the function ``inputs -> vjp(func, inputs, v)`` (second derivatives)."""
    xs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    out = _outputs(func(*xs))
    vs = grad_outputs
    if vs is None:
        rng = np.random.default_rng(0)
        vs = tuple(make(rng.standard_normal(o._data.shape)) for o in out)

    def first(*ys):
        _, g = vjp(func, ys, vs if len(vs) > 1 else vs[0], create_graph=True)
        return g
    return gradcheck(first, xs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)

"""Gradient clipping, in place on ``.grad``, as ``torch.nn.utils`` does it.

>>> import dyngraph as torch
>>> p = torch.nn.Parameter(torch.zeros(2)); p.grad = torch.tensor([3.0, 4.0])
>>> clip_grad_norm_([p], max_norm=1.0)
tensor(5.)
>>> p.grad
tensor([0.6000, 0.8000])
"""
from __future__ import annotations

import math

import numpy as np

from ...tensor import Tensor, make

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Scale all gradients together so their joint norm is at most ``max_norm``; return the norm."""
    grads = _grads(parameters)
    if not grads:
        return make(np.array(0.0, np.float32))
    norm_type = float(norm_type)
    if math.isinf(norm_type):
        total = max(float(np.max(np.abs(g._data))) if g._data.size else 0.0 for g in grads)
    else:
        total = float(sum(np.sum(np.abs(g._data.astype(np.float64)) ** norm_type) for g in grads)
                      ) ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           f"is non-finite, so it cannot be clipped. To disable this error and "
                           f"scale the gradients by the non-finite norm anyway, set "
                           f"`error_if_nonfinite=False`")
    coef = min(max_norm / (total + 1e-6), 1.0)
    for g in grads:
        g._data *= np.asarray(coef, dtype=g._data.dtype)
        g._vc[0] += 1
    return make(np.array(total, dtype=grads[0]._data.dtype))


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]``."""
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._vc[0] += 1

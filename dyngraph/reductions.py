"""Reductions beyond sum/mean/max: prod, cumsum, any/all, logsumexp, std/var, norm, sort, topk.

``std``/``var``/``norm`` are composites of registry ops (their gradients come
from the primitives); the others are one registry op each.  ``topk`` and
``sort`` are ``argsort`` (no gradient) followed by ``take_along_axis`` (whose
gradient scatters back), returning PyTorch's ``(values, indices)`` pairs.

>>> import dyngraph as torch
>>> torch.topk(torch.tensor([1., 5., 3.]), 2)
torch.return_types.topk(
values=tensor([5., 3.]),
indices=tensor([1, 2]))
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from common import REGISTRY
from common.indexing import Slice

from .engine import apply, node_class_for
from .functions import (_RETURN_TYPES, _ValuesIndices, _axis, _t, eq, mean, mul, reduced_dims,
                        reshape, sub, sum, to, wrap_dim)
from .node import torch_node
from .tensor import Tensor, make

__all__ = ["prod", "cumsum", "cumprod", "any", "all", "logsumexp", "var", "std", "var_mean", "std_mean",
           "equal", "allclose", "isclose", "topk", "sort", "argsort", "amax", "amin",
           "unique"]

_R = REGISTRY

for _name in ("topk", "sort"):
    _RETURN_TYPES[_name] = type(_name, (_ValuesIndices,), {"__slots__": (), "fname": _name})


_PROD, _MAX, _MIN = _R["Prod"], _R["Max"], _R["Min"]
_PROD_ALL = node_class_for(_PROD, "all")
_AMAX, _AMIN = node_class_for(_MAX, "amax"), node_class_for(_MIN, "amin")


def prod(input, dim=None, keepdim: bool = False, *, dtype=None):
    x = input if dtype is None else to(input, dtype)
    return apply(_PROD, (x,), {"axis": reduced_dims(x, dim), "keepdims": keepdim},
                 cls=_PROD_ALL if dim is None else None)


def _running(op: str, x, dim: int, attrs: dict):
    """``op`` (Cumsum, Cumprod) along ``dim``; a 0-d tensor is its own running total, shape
    ``[]`` (numpy's scans would return shape ``[1]``)."""
    dim = wrap_dim(dim, x.dim())   # PyTorch's IndexError (the kernel's check is in TF's words)
    if x.dim() == 0:
        return reshape(apply(_R[op], (reshape(x, (1,)),), {**attrs, "axis": 0}), ())
    return apply(_R[op], (x,), {**attrs, "axis": dim})


def cumsum(input, dim: int, *, dtype=None):
    x = input if dtype is None else to(input, dtype)
    return _running("Cumsum", x, dim, {})


def cumprod(input, dim: int, *, dtype=None):
    """Running products along ``dim``; at a zero input the gradient is the product of the
    other factors, as PyTorch's (``exact_at_zeros``: TF's rule gives 0 there)."""
    x = input if dtype is None else to(input, dtype)
    return _running("Cumprod", x, dim, {"exact_at_zeros": True})


def any(input, dim=None, keepdim: bool = False):  # noqa: A001  (PyTorch's name)
    return apply(_R["Any"], (input,), {"axis": _axis(dim), "keepdims": keepdim})


def all(input, dim=None, keepdim: bool = False):  # noqa: A001
    return apply(_R["All"], (input,), {"axis": _axis(dim), "keepdims": keepdim})


def logsumexp(input, dim, keepdim: bool = False):
    return apply(_R["ReduceLogSumExp"], (input,), {"axis": reduced_dims(input, dim),
                                                   "keepdims": keepdim})


def amax(input, dim=(), keepdim: bool = False):
    return apply(_MAX, (input,), {"axis": reduced_dims(input, dim) if dim != () else None,
                                  "keepdims": keepdim}, cls=_AMAX)


def amin(input, dim=(), keepdim: bool = False):
    return apply(_MIN, (input,), {"axis": reduced_dims(input, dim) if dim != () else None,
                                  "keepdims": keepdim}, cls=_AMIN)


def _correction(unbiased, correction) -> float:
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


@torch_node("VarBackward0")
def var(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """Sum of squared deviations over ``N - correction`` (Bessel's correction by default)."""
    if isinstance(dim, builtins.bool):  # var(x, False): the old positional ``unbiased``
        dim, unbiased = None, dim
    axis = _axis(dim)
    d = sub(input, mean(input, axis, True))
    n = input._data.size if axis is None else math.prod(
        input._data.shape[a] for a in ((axis,) if isinstance(axis, builtins.int) else axis))
    return apply(_R["RealDiv"], (sum(mul(d, d), axis, keepdim),
                                 builtins.max(n - _correction(unbiased, correction), 0)), cls=var.node)


def _root(s, cls: type):
    """``sqrt(s)`` whose gradient is 0 (not NaN) where ``s == 0``, as PyTorch's norm and std."""
    zero = eq(s, 0)
    root = apply(_R["Sqrt"], (apply(_R["Select"], (zero, 1.0, s)),))
    return apply(_R["Select"], (zero, 0.0, root), cls=cls)


@torch_node("StdBackward0")
def std(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    return _root(var(input, dim, unbiased, keepdim, correction=correction), std.node)


def var_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    if isinstance(dim, builtins.bool):  # var_mean(x, True): the old positional ``unbiased``
        dim, unbiased = None, dim
    return (var(input, dim, unbiased, keepdim, correction=correction),
            mean(input, _axis(dim), keepdim))


def std_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    if isinstance(dim, builtins.bool):  # std_mean(x, True): the old positional ``unbiased``
        dim, unbiased = None, dim
    return (std(input, dim, unbiased, keepdim, correction=correction),
            mean(input, _axis(dim), keepdim))


def unique(input, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim=None):
    """The distinct values (sorted), optionally with each element's position among them and counts."""
    if dim is not None:
        raise RuntimeError("unique: dim= is not supported; flatten or use index ops")
    values, inverse, counts = np.unique(input._data, return_inverse=True, return_counts=True)
    out = [make(values)]
    if return_inverse:
        out.append(make(inverse.reshape(input._data.shape).astype(np.int64)))
    if return_counts:
        out.append(make(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def equal(input, other) -> builtins.bool:
    """True when both have the same shape and the same values."""
    a, b = _t(input), _t(other)
    return a.shape == b.shape and builtins.bool(np.array_equal(a._data, b._data))


def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    return make(np.isclose(input._data, _t(other)._data, rtol, atol, equal_nan))


def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> builtins.bool:
    return builtins.bool(np.allclose(input._data, _t(other)._data, rtol, atol, equal_nan))


# --- sorting ---------------------------------------------------------------------------------


def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    return apply(_R["ArgSort"], (input,), {"axis": dim, "descending": descending})


def _indices(input: Tensor, dim: int, descending: bool, k: int | None) -> Tensor:
    idx = argsort(input, dim, descending)
    if k is not None:
        lead = (Slice(None, None, None),) * (dim % builtins.max(input.dim(), 1))
        key = lead + (Slice(0, k, None),)
        idx = apply(_R["GetItem"], (idx,), {"key": key})
    return make(idx._data.astype(np.int64))


_TAKE = _R["TakeAlongAxis"]
_SORT, _TOPK = node_class_for(_TAKE, "sort"), node_class_for(_TAKE, "topk")


def sort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    """``(values, indices)`` sorted along ``dim`` (ties keep their order)."""
    idx = _indices(input, dim, descending, None)
    values = apply(_TAKE, (input, idx), {"axis": dim}, cls=_SORT)
    return _RETURN_TYPES["sort"](values, idx)


def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The ``k`` largest (or smallest) elements along ``dim`` and their positions."""
    size = input._data.shape[dim] if input.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.dim() == 0:   # torch: a scalar is its own top 1 (and, oddly, its own top 0)
        wrap_dim(dim, 0)
        values = apply(_TAKE, (reshape(input, (1,)), make(np.zeros(1, np.int64))), {"axis": 0},
                       cls=_TOPK)
        return _RETURN_TYPES["topk"](reshape(values, ()), make(np.array(0, np.int64)))
    idx = _indices(input, dim, largest, k)
    values = apply(_TAKE, (input, idx), {"axis": dim}, cls=_TOPK)
    return _RETURN_TYPES["topk"](values, idx)


METHODS = ["prod", "cumsum", "cumprod", "any", "all", "logsumexp", "var", "std", "equal",
           "allclose", "isclose", "topk", "sort", "argsort", "amax", "amin", "unique"]

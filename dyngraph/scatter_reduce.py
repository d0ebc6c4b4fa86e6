"""``scatter_reduce`` and ``index_reduce``: ``src`` combined into ``input`` at ``index`` along ``dim``
with a sum, product, mean, max or min -- with the gradients torch derives for each.

``sum`` and ``mean`` are composites of ``scatter_add`` (their gradients are its own). The other
three pick or multiply values, so their result is computed in numpy and given its gradient as a
*linear stand-in* of exact value 0::

    out = where(hit, result + (T - T.detach()), input),   T = c_self * input + scatter(c_src * src)

whose derivative is the constant coefficients ``c``: for ``prod`` the product of the other
members of each group (what torch's ``scatter_reduce_backward`` computes, zeros included), for
``amax``/``amin`` ``1/N`` at the ``N`` members equal to the result (torch splits it evenly).

>>> import dyngraph as torch
>>> torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1., 2., 3.]), "amax")
tensor([2., 0., 3.])
"""
from __future__ import annotations

import builtins

import numpy as np

from common.ops.gather_scatter import along_axis_index

from .composite import _along
from .functions import _t, add, div, mul, reshape, sub
from .selection import _as_vector, _cut, _dim, _index_tensor, scatter_add, where
from .tensor import Tensor, make

__all__ = ["scatter_reduce", "index_reduce"]
METHODS = ["scatter_reduce", "index_reduce"]

_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_IDENTITY = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "amax": -np.inf, "amin": np.inf}
_UFUNC = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def scatter_reduce(input, dim: int, index, src, reduce: str, *, include_self: bool = True):
    """``input`` with each ``src[i][j]`` combined (``reduce``) into ``input[index[i][j]][j]``
    (for ``dim=0``); ``include_self=False`` leaves out ``input``'s own values where ``index``
    writes."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)   # torch's older spellings
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    index = _index_tensor(index, input, "scatter_reduce")
    d = _dim(dim, input.dim())
    if input.dim() == 0:   # as a vector of one element
        return reshape(scatter_reduce(_as_vector(input), d, _as_vector(index), _as_vector(_t(src)),
                                      reduce, include_self=include_self), ())
    src = _cut(_t(src), index._data.shape, d)
    where_ = along_axis_index(index._data.astype(np.int64), d)
    hits = np.zeros(input._data.shape, np.int64)
    np.add.at(hits, where_, 1)
    hit = hits > 0
    kept = input if include_self else where(make(hit), make(np.zeros((), input._data.dtype)),
                                            input)
    if reduce in ("sum", "mean"):
        out = scatter_add(kept, d, index, src)
        if reduce == "sum":
            return out
        count = np.where(hit, hits + builtins.int(include_self), 1).astype(input._data.dtype)
        if input._data.dtype.kind in "iu":
            return make(np.floor_divide(out._data, count).astype(input._data.dtype))
        return div(out, make(count))
    return _picked_or_multiplied(input, src, index._data, where_, d, hit, reduce, include_self)


def _picked_or_multiplied(input: Tensor, src: Tensor, index: np.ndarray, where_: tuple, d: int,
                          hit: np.ndarray, reduce: str, include_self: bool) -> Tensor:
    """``prod``/``amax``/``amin``: the numpy result, differentiable through its coefficients."""
    x, s = input._data, src._data
    start = x.copy() if include_self else np.where(hit, _IDENTITY[reduce], x).astype(x.dtype)
    result = start.copy()
    _UFUNC[reduce].at(result, where_, s)
    if x.dtype.kind != "f":   # no gradient to carry
        return make(result)
    if reduce == "prod":
        c_self, c_src = _exclusive_products(start, s, where_, include_self)
    else:
        at_self = (x == result) & (hit if include_self else False)
        at_src = s == result[where_]
        count = at_self.astype(x.dtype)
        np.add.at(count, where_, at_src.astype(x.dtype))
        share = 1 / np.where(count > 0, count, 1)
        c_self, c_src = at_self * share, at_src * share[where_]
    linear = add(mul(input, make(c_self.astype(x.dtype))),
                 scatter_add(make(np.zeros_like(x)), d, make(index.astype(np.int64)),
                             mul(src, make(c_src.astype(x.dtype)))))
    return where(make(hit), linear_stand_in(result, linear), input)


def linear_stand_in(result: np.ndarray, linear: Tensor) -> Tensor:
    """``result`` (computed in numpy) as a tensor whose first derivative is ``linear``'s:
    ``result + (linear - linear.detach())`` -- the difference is exactly 0 for finite values.
    (its second derivative is not carried)."""
    return add(make(result), sub(linear, linear.detach()))


def _exclusive_products(start: np.ndarray, s: np.ndarray, where_: tuple,
                        include_self: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each group member's coefficient in a product: the product of the other members (exact
    when members are 0: one zero gives the others' product to it and 0 to the rest)."""
    zeros = (start == 0).astype(np.int64) if include_self else np.zeros(start.shape, np.int64)
    np.add.at(zeros, where_, (s == 0).astype(np.int64))
    nonzero = np.where(start == 0, 1, start) if include_self else np.ones_like(start)
    np.multiply.at(nonzero, where_, np.where(s == 0, 1, s))

    def coefficient(value: np.ndarray, group_zeros: np.ndarray, group_nonzero: np.ndarray):
        others_zero = group_zeros - (value == 0)
        safe = np.where(value == 0, 1, value)
        return np.where(others_zero > 0, 0, group_nonzero / safe)
    c_self = coefficient(start, zeros, nonzero) if include_self else np.zeros_like(start)
    c_src = coefficient(s, zeros[where_], nonzero[where_])
    return c_self, c_src


def index_reduce(input, dim: int, index, source, reduce: str, *, include_self: bool = True):
    """``input`` with each slice ``source[i]`` (along ``dim``) combined into slice ``index[i]``
    (``reduce`` one of prod, mean, amax, amin)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index")
    d, full = _along(index, input, dim, source)
    return scatter_reduce(input, d, full, source, reduce, include_self=include_self)

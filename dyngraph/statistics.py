"""torch's order statistics, NaN-aware reductions, running extremes, differences, integrals,
covariances and histograms: ``median``/``nanmedian``/``kthvalue``/``mode``/``quantile``,
``nansum``/``nanmean``, ``aminmax``/``count_nonzero``, ``cummax``/``cummin``, ``diff``/
``gradient``, ``trapezoid``/``cumulative_trapezoid``, ``cov``/``corrcoef``, ``histc``/
``histogram``/``histogramdd``, ``unique_consecutive``.

Which element an order statistic picks is decided in numpy (it has no gradient); its value is
then *gathered* from the input, so the gradient flows to exactly that element, as torch's
(``median``'s gradient goes to the median element). The smooth ones are composites of
registry ops. Histograms and counts have no gradient.

>>> import dyngraph as torch
>>> torch.median(torch.tensor([3., 1., 2., 5.]))
tensor(2.)
"""
from __future__ import annotations

import bisect
import builtins
from collections import namedtuple

import numpy as np

from common import REGISTRY

from .engine import apply
from .functions import (_RETURN_TYPES, _ValuesIndices, _t, cat, div, matmul, mul, ne,
                        reduced_dims, reshape, sub, sum as _sum, t as _transpose2d, to, unsqueeze,
                        wrap_dim)
from .pointwise import isnan
from .reductions import amax, amin, sort
from .selection import diag, gather, narrow, where
from .tensor import Tensor, make

__all__ = ["median", "nanmedian", "kthvalue", "mode", "quantile", "nanquantile", "nansum",
           "nanmean", "aminmax", "count_nonzero", "cummax", "cummin", "diff", "gradient",
           "trapezoid", "trapz", "cumulative_trapezoid", "cov", "corrcoef", "histc", "histogram",
           "histogramdd", "unique_consecutive"]

METHODS = ["median", "nanmedian", "kthvalue", "mode", "quantile", "nanquantile", "nansum",
           "nanmean", "aminmax", "count_nonzero", "cummax", "cummin", "diff", "cov", "corrcoef",
           "histc", "histogram", "unique_consecutive"]

_R = REGISTRY

for _name in ("median", "nanmedian", "kthvalue", "mode", "cummax", "cummin"):
    _RETURN_TYPES[_name] = type(_name, (_ValuesIndices,), {"__slots__": (), "fname": _name})

_aminmax = namedtuple("aminmax", ["min", "max"])
_histogram = namedtuple("histogram", ["hist", "bin_edges"])
_histogramdd = namedtuple("histogramdd", ["hist", "bin_edges"])


# --- picking one element per slice: median, kthvalue, mode ---------------------------------------


def _picked(input, dim: int, keepdim: bool, index: np.ndarray, name: str):
    """``(values, indices)``: ``input`` gathered at ``index`` (shape of ``input`` with ``dim``
    of size 1), so the gradient reaches the picked elements only."""
    if input.dim() == 0:
        return _RETURN_TYPES[name](input.clone(), make(np.array(0, np.int64)))
    idx = make(index.astype(np.int64))
    values = gather(input, dim, idx)
    if not keepdim:
        values, idx = reshape(values, _without(values, dim)), reshape(idx, _without(idx, dim))
    return _RETURN_TYPES[name](values, idx)


def _without(x: Tensor, dim: int) -> tuple:
    return x._data.shape[:dim] + x._data.shape[dim + 1:]


def _rank_index(data: np.ndarray, dim: int, rank: np.ndarray | int) -> np.ndarray:
    """The position along ``dim`` of the element of order ``rank`` (NaN sorts last; equal
    values keep their order)."""
    order = np.argsort(data, axis=dim, kind="stable")
    r = np.broadcast_to(np.expand_dims(np.asarray(rank), dim) if np.ndim(rank) else rank,
                        _keep_shape(data.shape, dim)).astype(np.int64)
    return np.take_along_axis(order, r, axis=dim)


def _keep_shape(shape: tuple, dim: int) -> tuple:
    return shape[:dim] + (1,) + shape[dim + 1:]


def _median(input, dim, keepdim: bool, name: str, skip_nan: bool):
    data = input._data
    if dim is None:
        if data.size == 0:
            return make(np.array(np.nan, data.dtype))
        flat = reshape(input, (-1,))
        return _median(flat, 0, False, name, skip_nan).values
    d = wrap_dim(dim, input.dim())
    if input.dim() == 0:
        return _picked(input, d, keepdim, np.zeros(()), name)
    if data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    nan = np.isnan(data) if data.dtype.kind == "f" else np.zeros(data.shape, bool)
    count = data.shape[d] - nan.sum(axis=d) if skip_nan else np.full(
        np.delete(data.shape, d), data.shape[d])
    index = _rank_index(data, d, np.maximum((count - 1) // 2, 0))
    if not skip_nan and nan.any():   # a slice with a NaN: its (first) NaN is the median
        first_nan = np.expand_dims(np.argmax(nan, axis=d), d)
        index = np.where(np.expand_dims(nan.any(axis=d), d), first_nan, index)
    return _picked(input, d, keepdim, index, name)


def median(input, dim=None, keepdim: bool = False):
    """The lower median (of all elements, or ``(values, indices)`` along ``dim``); NaN if the
    slice holds one."""
    return _median(input, dim, keepdim, "median", False)


def nanmedian(input, dim=None, keepdim: bool = False):
    """``median`` of the non-NaN elements."""
    return _median(input, dim, keepdim, "nanmedian", True)


def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """The ``k``-th smallest element along ``dim`` (counting from 1) and its position."""
    d = wrap_dim(dim, input.dim())
    n = input._data.shape[d] if input.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.dim() == 0:
        return _picked(input, d, keepdim, np.zeros(()), "kthvalue")
    return _picked(input, d, keepdim, _rank_index(input._data, d, k - 1), "kthvalue")


def mode(input, dim: int = -1, keepdim: bool = False):
    """The most frequent value along ``dim`` (the smallest among equally frequent ones) and the
    position of its last occurrence."""
    d = wrap_dim(dim, input.dim())
    if input.dim() == 0:
        return _picked(input, d, keepdim, np.zeros(()), "mode")
    data = np.moveaxis(input._data, d, -1)
    rows = data.reshape(-1, data.shape[-1])
    index = np.empty(rows.shape[0], np.int64)
    for i, row in enumerate(rows):
        values, counts = np.unique(row, return_counts=True)
        best = values[np.argmax(counts)]
        index[i] = np.flatnonzero(row == best)[-1] if not np.isnan(best) else \
            np.flatnonzero(np.isnan(row))[-1]
    index = np.moveaxis(index.reshape(data.shape[:-1] + (1,)), -1, d)
    return _picked(input, d, keepdim, index, "mode")


# --- quantiles ---------------------------------------------------------------------------------


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim: bool, interpolation: str, name: str, skip_nan: bool):
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest. Got {interpolation}")
    qs = np.asarray(q._data if isinstance(q, Tensor) else q, np.float64)
    if qs.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    bad = qs[(qs < 0) | (qs > 1)]
    if bad.size:   # torch's two wordings: a tensor q, a number q
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]" if qs.ndim else
                           f"{name}() q must be in the range [0, 1] but got {bad.flat[0]:g}")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if dim is None:
        x, d = reshape(input, (-1,)), 0
    else:
        d = wrap_dim(dim, input.dim())
        x = input if input.dim() else reshape(input, (1,))
    n = x._data.shape[d]
    if n == 0:
        raise IndexError(f"{name}() input tensor must be non-empty")
    ordered = sort(x, d).values                      # NaN last; its gradient reaches the input
    nan = np.isnan(x._data)
    count = n - nan.sum(axis=d, keepdims=True) if skip_nan else np.full(_keep_shape(
        x._data.shape, d), n)
    outs = []
    for qv in qs.reshape(-1).astype(x._data.dtype):   # ranks in the input's precision, as torch
        pos = qv * np.maximum(count - 1, 0).astype(x._data.dtype)
        lo = np.floor(pos).astype(np.int64)
        hi = np.ceil(pos).astype(np.int64)
        if interpolation == "nearest":
            lo = hi = np.round(pos).astype(np.int64)   # half to even, as torch
        elif interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        a, b = gather(ordered, d, make(lo)), gather(ordered, d, make(hi))
        w = 0.5 if interpolation == "midpoint" else (pos - lo).astype(x._data.dtype)
        out = a if interpolation in ("nearest", "lower", "higher") else \
            apply(_R["Add"], (a, mul(sub(b, a), make(np.asarray(w, x._data.dtype)))))
        bad = (count == 0) if skip_nan else nan.any(axis=d, keepdims=True)
        if bad.any():
            out = where(make(bad), make(np.array(np.nan, x._data.dtype)), out)
        outs.append(_quantile_shape(out, input, dim, d, keepdim))
    if qs.ndim == 0:
        return outs[0]
    return cat([unsqueeze(o, 0) for o in outs], 0)


def _quantile_shape(out, input, dim, d: int, keepdim: bool):
    if dim is None:
        return reshape(out, (1,) * input.dim() if keepdim else ())
    if input.dim() == 0:
        return reshape(out, ())
    return out if keepdim else reshape(out, _without(out, d))


def quantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
    """The ``q``-quantiles along ``dim`` (of all elements by default), interpolated between the
    two nearest ranks; NaN where a slice holds a NaN. A 1-D ``q`` adds a leading dim."""
    return _quantile(input, q, dim, keepdim, interpolation, "quantile", False)


def nanquantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
    """``quantile`` of the non-NaN elements (NaN where a slice has none)."""
    return _quantile(input, q, dim, keepdim, interpolation, "nanquantile", True)


# --- NaN-aware sums; pairs of extremes; counts ---------------------------------------------------


def _nan_to_zero(input):
    if input._data.dtype.kind != "f":
        return input
    return where(isnan(input), make(np.zeros((), input._data.dtype)), input)


def nansum(input, dim=None, keepdim: bool = False, *, dtype=None):
    """The sum with NaNs counted as zero (their gradient is 0)."""
    return _sum(_nan_to_zero(input), dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim: bool = False, *, dtype=None):
    """The mean of the non-NaN elements (NaN where there are none)."""
    x = input if dtype is None else to(input, dtype)
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {x.dtype.scalar_name}")
    kept = to(ne(x, x), x._data.dtype)   # 1 at NaN
    count = sub(_sum(make(np.ones_like(x._data)), dim, keepdim), _sum(kept, dim, keepdim))
    return div(nansum(x, dim, keepdim), count)


def aminmax(input, *, dim=None, keepdim: bool = False):
    """``(min, max)`` of all elements or along ``dim``."""
    if dim is None and input._data.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is None:
        lo, hi = amin(input), amax(input)
        if keepdim:
            lo, hi = (reshape(v, (1,) * input.dim()) for v in (lo, hi))
        return _aminmax(lo, hi)
    return _aminmax(amin(input, dim, keepdim), amax(input, dim, keepdim))


def count_nonzero(input, dim=None):
    """How many elements are not zero (along ``dim``), as int64."""
    axis = reduced_dims(input, dim)
    return make(np.asarray(np.count_nonzero(input._data, axis=axis), np.int64))


# --- running extremes --------------------------------------------------------------------------


def _running_extreme(input, dim: int, larger: bool, name: str):
    """``(values, indices)`` of the running max (min) along ``dim``: a NaN, once met, stays;
    ties move the index to the later element (torch's ``>=``)."""
    d = wrap_dim(dim, input.dim())
    if input.dim() == 0:
        return _RETURN_TYPES[name](input.clone(), make(np.array(0, np.int64)))
    data = np.moveaxis(input._data, d, 0)
    index = np.zeros(data.shape, np.int64)
    best = data[0].copy() if data.shape[0] else data[:0]
    arg = np.zeros(data.shape[1:], np.int64)
    for i in range(data.shape[0]):
        x = data[i]
        better = (x >= best) if larger else (x <= best)
        take = np.isnan(x) | (~np.isnan(best) & better)
        best = np.where(take, x, best)
        arg = np.where(take, i, arg)
        index[i] = arg
    idx = make(np.ascontiguousarray(np.moveaxis(index, 0, d)))
    return _RETURN_TYPES[name](gather(input, d, idx), idx)


def cummax(input, dim: int):
    return _running_extreme(input, dim, True, "cummax")


def cummin(input, dim: int):
    return _running_extreme(input, dim, False, "cummin")


# --- differences and integrals -------------------------------------------------------------------


def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first)."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.dim())
    parts = [p for p in (prepend, input, append) if p is not None]
    x = cat([_t(p) if not isinstance(p, (builtins.int, builtins.float)) else
             make(np.full(_keep_shape(input._data.shape, d), p, input._data.dtype))
             for p in parts], d) if len(parts) > 1 else input
    for _ in range(n):
        m = x._data.shape[d]
        if m == 0:
            break
        if x._data.dtype == np.bool_:
            x = ne(narrow(x, d, 1, m - 1), narrow(x, d, 0, m - 1))
        else:
            x = sub(narrow(x, d, 1, m - 1), narrow(x, d, 0, m - 1))
    return x


def _integral_terms(y, x, dx, dim: int):
    """The trapezoids' areas along ``dim``: ``(x[i+1] - x[i]) * (y[i+1] + y[i]) / 2``."""
    d = wrap_dim(dim, y.dim())
    m = y._data.shape[d]
    if m == 0:
        return None, d
    mean = mul(apply(_R["Add"], (narrow(y, d, 1, m - 1), narrow(y, d, 0, m - 1))), 0.5)
    if x is None:
        return mul(mean, 1.0 if dx is None else dx), d
    x = _t(x)
    if x.dim() == 1:
        if x._data.shape[0] != m:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        view = [1] * y.dim()
        view[d] = m
        x = reshape(x, view)
        steps = diff(x, dim=d)
    else:
        steps = diff(x, dim=dim)
    return mul(steps, mean), d


def trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """The trapezoid rule's integral of ``y`` along ``dim`` (points ``x``, or spacing ``dx``)."""
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments")
    terms, d = _integral_terms(y, x, dx, dim)
    if terms is None:
        return _sum(make(np.zeros(y._data.shape, y._data.dtype)), d)
    return _sum(terms, d)


def trapz(y, x=None, *, dx=None, dim: int = -1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """The running trapezoid-rule integral (one fewer element along ``dim``)."""
    terms, d = _integral_terms(y, x, dx, dim)
    if terms is None:
        return narrow(y, d, 0, 0) * 0
    return apply(_R["Cumsum"], (terms,), {"axis": d})


def gradient(input, *, spacing=1, dim=None, edge_order: int = 1):
    """The central-difference estimate of ``input``'s derivative along each of ``dim`` (all dims
    by default): one tensor per dim; one-sided differences of order ``edge_order`` at the ends.
    ``spacing`` is one step for all dims, one per dim, or the coordinates of each dim."""
    dims = list(range(input.dim())) if dim is None else \
        [dim] if isinstance(dim, builtins.int) else list(dim)
    dims = [wrap_dim(x, input.dim()) for x in dims]
    if spacing is None:
        spacing = 1
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's "
                           f"spacing and dim arguments to have the same length, but got a "
                           f"spacing argument of length {len(steps)} and a dim argument of "
                           f"length {len(dims)}.")
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    return tuple(_gradient_along(input, d, h, edge_order) for d, h in zip(dims, steps))


def _gradient_along(f, d: int, h, edge_order: int):
    """One dim of :func:`gradient`, uniform step ``h`` (a number) or coordinates (a tensor)."""
    n = f._data.shape[d]

    def part(start: int, length: int):
        return narrow(f, d, start, length)
    if isinstance(h, Tensor):
        return _gradient_coordinates(f, d, h, edge_order)
    h = builtins.float(h.item() if hasattr(h, "item") else h)
    interior = mul(sub(part(2, n - 2), part(0, n - 2)), 1.0 / (2 * h))
    if edge_order == 1:
        first = mul(sub(part(1, 1), part(0, 1)), 1.0 / h)
        last = mul(sub(part(n - 1, 1), part(n - 2, 1)), 1.0 / h)
    else:
        first = mul(apply(_R["Add"], (apply(_R["Add"], (mul(part(0, 1), -1.5), mul(part(1, 1), 2.0))),
                                      mul(part(2, 1), -0.5))), 1.0 / h)
        last = mul(apply(_R["Add"], (apply(_R["Add"], (mul(part(n - 3, 1), 0.5), mul(part(n - 2, 1),
                                                                                     -2.0))),
                                     mul(part(n - 1, 1), 1.5))), 1.0 / h)
    return cat([first, interior, last], d)


def _gradient_coordinates(f, d: int, x, edge_order: int):
    """Non-uniform :func:`gradient` (numpy's second-order formula inside, as torch's)."""
    if x.dim() != 1 or x._data.shape[0] != f._data.shape[d]:
        raise RuntimeError("torch.gradient expected each tensor to be on the same device and to "
                           "match the size of the dimension")
    xs = x._data.astype(f._data.dtype)
    n = xs.shape[0]
    dx = np.diff(xs)
    view = [1] * f.dim()

    def coef(v):
        view[d] = v.shape[0]
        return make(v.reshape(view).astype(f._data.dtype))

    def part(start: int, length: int):
        return narrow(f, d, start, length)
    h1, h2 = dx[:-1], dx[1:]
    a, b, c = -h2 / (h1 * (h1 + h2)), (h2 - h1) / (h1 * h2), h1 / (h2 * (h1 + h2))
    interior = apply(_R["Add"], (apply(_R["Add"], (mul(part(0, n - 2), coef(a)),
                                                   mul(part(1, n - 2), coef(b)))),
                                 mul(part(2, n - 2), coef(c))))
    if edge_order == 1:
        first = div(sub(part(1, 1), part(0, 1)), builtins.float(dx[0]))
        last = div(sub(part(n - 1, 1), part(n - 2, 1)), builtins.float(dx[-1]))
    else:
        p, q = dx[0], dx[1]
        first = apply(_R["Add"], (apply(_R["Add"], (
            mul(part(0, 1), builtins.float(-(2 * p + q) / (p * (p + q)))),
            mul(part(1, 1), builtins.float((p + q) / (p * q))))),
            mul(part(2, 1), builtins.float(-p / (q * (p + q))))))
        p, q = dx[-1], dx[-2]
        last = apply(_R["Add"], (apply(_R["Add"], (
            mul(part(n - 3, 1), builtins.float(p / (q * (p + q)))),
            mul(part(n - 2, 1), builtins.float(-(p + q) / (p * q))))),
            mul(part(n - 1, 1), builtins.float((2 * p + q) / (p * (p + q))))))
    return cat([first, interior, last], d)


# --- covariance, correlation ---------------------------------------------------------------------


def cov(input, *, correction: int = 1, fweights=None, aweights=None):
    """The covariance matrix of the variables in ``input``'s rows (observations in columns),
    with frequency and importance weights, as torch computes it."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    x = reshape(input, (1, -1)) if input.dim() < 2 else input
    n_obs = x._data.shape[1]
    w = None
    if fweights is not None:
        w = to(fweights, x._data.dtype)
    if aweights is not None:
        w = aweights if w is None else mul(w, aweights)
    if w is None:
        w_sum = n_obs
        avg = div(_sum(x, 1), n_obs)
    else:
        w_sum = _sum(w)
        avg = div(_sum(mul(x, w), 1), w_sum)
    if w is not None and aweights is not None and correction != 0:
        norm = sub(w_sum, div(mul(_sum(mul(w, aweights)), correction), w_sum))
    else:
        norm = sub(w_sum, correction) if isinstance(w_sum, Tensor) else w_sum - correction
    norm_value = builtins.float(norm._data if isinstance(norm, Tensor) else norm)
    if norm_value <= 0:
        norm = make(np.zeros((), x._data.dtype)) if isinstance(norm, Tensor) else 0
    xm = sub(x, unsqueeze(avg, 1))
    c = matmul(xm, _transpose2d(xm if w is None else mul(xm, w)))
    out = div(c, norm) if not isinstance(norm, builtins.int) or norm else div(
        c, make(np.zeros((), x._data.dtype)))
    return reshape(out, ()) if out._data.shape == (1, 1) else out


def corrcoef(input):
    """Pearson's correlation coefficients of ``input``'s rows, clipped to [-1, 1]."""
    c = cov(input)
    if c.dim() == 0:
        return div(c, c)
    std = apply(_R["Sqrt"], (diag(c),))
    c = div(div(c, unsqueeze(std, 1)), unsqueeze(std, 0))
    return apply(_R["ClipByValue"], (c,), {"lo": -1, "hi": 1})


# --- histograms, runs (no gradient) --------------------------------------------------------------


def histc(input, bins: int = 100, min=0, max=0):  # noqa: A002  (torch's names)
    """Counts of ``input``'s elements in ``bins`` equal bins over [min, max] (the data's range
    when both are 0); elements outside are left out."""
    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError(f'"histogram_cpu" not implemented for \'{input.dtype.scalar_name}\'')
    lo, hi = builtins.float(min), builtins.float(max)
    if lo == hi and data.size:
        lo, hi = builtins.float(data.min()), builtins.float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    counts, _ = np.histogram(data, bins=bins, range=(lo, hi))
    return make(counts.astype(data.dtype))


def histogram(input, bins=100, *, range=None, weight=None, density: bool = False):  # noqa: A002
    """``(hist, bin_edges)``: counts (or weights, or a density) in ``bins`` bins over ``range``
    (the data's by default), or between the given edges."""
    data = input._data
    w = None if weight is None else weight._data
    if isinstance(bins, Tensor):
        hist = _binned(data.reshape(-1, 1), [bins._data], w, density)
        return _histogram(make(hist), bins.clone())
    hist, bin_edges = np.histogram(data, bins=builtins.int(bins), range=range, weights=w,
                                   density=density)
    return _histogram(make(hist.astype(data.dtype)), make(np.asarray(bin_edges, data.dtype)))


def _binned(points: np.ndarray, edges: list, weight, density: bool) -> np.ndarray:
    """torch's histogram over given edges: a point outside [first edge, last edge] is left out,
    else its bin is found by binary search (``std::upper_bound``: edges need not increase),
    and the last bin holds its right edge."""
    hist = np.zeros([len(e) - 1 for e in edges], points.dtype)
    lists = [e.tolist() for e in edges]
    for i, p in enumerate(points.tolist()):
        pos = []
        for x, e in zip(p, lists):
            if not e[0] <= x <= e[-1]:
                break
            k = bisect.bisect_right(e, x) - 1
            pos.append(k - 1 if k == len(e) - 1 else k)
        else:
            hist[tuple(pos)] += 1 if weight is None else weight.reshape(-1)[i]
    if density:
        widths = np.ones(hist.shape, points.dtype)
        for axis, e in enumerate(edges):
            view = [1] * len(edges)
            view[axis] = len(e) - 1
            widths = widths * np.diff(e).reshape(view)
        hist = hist / (hist.sum() * widths)
    return hist.astype(points.dtype)


def histogramdd(input, bins=10, *, range=None, weight=None, density: bool = False):  # noqa: A002
    """The histogram of the rows of ``input`` (N points in D dims): ``(hist, bin_edges)``."""
    data = input._data
    points = data.reshape(-1, data.shape[-1])
    w = None if weight is None else weight._data.reshape(-1)
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        hist = _binned(points, [b._data for b in bins], w, density)
        return _histogramdd(make(hist), tuple(b.clone() for b in bins))
    edges = bins
    rng = None if range is None else [tuple(range[2 * i:2 * i + 2]) for i in
                                      builtins.range(len(range) // 2)]
    hist, bin_edges = np.histogramdd(points, bins=edges, range=rng, weights=w, density=density)
    return _histogramdd(make(hist.astype(data.dtype)),
                        tuple(make(np.asarray(e, data.dtype)) for e in bin_edges))


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False,
                       dim=None):
    """``input`` with each run of equal consecutive elements (or slices along ``dim``) kept once;
    optionally each element's run number and the runs' lengths."""
    data = input._data
    if dim is None:
        flat = data.reshape(-1)
        start = np.ones(flat.shape[0], bool)
        start[1:] = flat[1:] != flat[:-1]
        values, shape = flat[start], data.shape
    else:
        d = wrap_dim(dim, input.dim())
        moved = np.moveaxis(data, d, 0)
        start = np.ones(moved.shape[0], bool)
        start[1:] = np.any((moved[1:] != moved[:-1]).reshape(moved.shape[0] - 1, -1), axis=1) \
            if moved.shape[0] > 1 else []
        values, shape = np.moveaxis(moved[start], 0, d), (moved.shape[0],)
    out = [make(np.ascontiguousarray(values))]
    if return_inverse:
        out.append(make((np.cumsum(start) - 1).astype(np.int64).reshape(shape)))
    if return_counts:
        bounds = np.append(np.flatnonzero(start), start.shape[0])
        out.append(make(np.diff(bounds).astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


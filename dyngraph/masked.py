"""``torch.masked``: reductions and normalizations that see only the elements where ``mask`` is True.

As torch does it for strided tensors: the masked-out elements are replaced by the operation's
*identity* (0 for sums and norms, 1 for products, -inf for ``amax``/``logsumexp``/``softmax``,
+inf for ``amin``/``softmin``, NaN for ``median``, whose kernel is ``nanmedian``), then the plain
operation runs. So a fully masked-out slice gives the identity (``sum`` 0, ``amax`` -inf), and
``mean``/``var``/``std`` divide by the count of kept elements (NaN for none). ``mask`` broadcasts
to the input's shape; ``None`` keeps everything. The replacement is a ``where``, so masked-out
elements get gradient 0.

>>> import dyngraph as torch
>>> x = torch.tensor([[1., 2.], [3., 4.]])
>>> torch.masked.sum(x, 1, mask=torch.tensor([[True, False], [True, True]]))
tensor([1., 7.])
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from .creation import as_tensor
from .dtypes import np_dtype_of
from .functions import (add, argmax as _argmax, argmin as _argmin, div, exp, log,
                        log_softmax as _log_softmax, maximum, mul, neg, reshape,
                        softmax as _softmax, sub, sum as _sum, to, wrap_dim)
from .linalg import vector_norm
from .pointwise import isfinite
from .reductions import (amax as _amax, amin as _amin, cumprod as _cumprod, cumsum as _cumsum,
                         logsumexp as _logsumexp, prod as _prod)
from .selection import where
from .statistics import nanmedian
from .tensor import Tensor, make

__all__ = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "argmax", "argmin", "mean",
           "median", "logsumexp", "logaddexp", "norm", "var", "std", "softmax", "log_softmax",
           "softmin", "normalize"]


def _canonical_dims(dim, ndim: int) -> tuple:
    """``dim`` as a sorted tuple of non-negative dims (all of them for ``None`` or ``()``)."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    dims: list[int] = []
    for d in (dim,) if isinstance(dim, builtins.int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        dims.append(wrap_dim(d, ndim))
    return tuple(sorted(dims))


def _input_mask(input: Tensor, mask) -> Tensor:
    """``mask`` as a bool tensor of ``input``'s shape."""
    mask = as_tensor(mask)
    if mask._data.shape != input._data.shape:
        if mask.dim() > input.dim():
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        return make(np.broadcast_to(mask._data, input._data.shape).astype(bool))
    return make(mask._data.astype(bool, copy=False))


def _identity(input: Tensor, value: float) -> Tensor:
    if input._data.dtype.kind == "f" or math.isfinite(value):
        return make(np.array(value, input._data.dtype))
    info = np.iinfo(input._data.dtype)
    return make(np.array(info.min if value < 0 else info.max, input._data.dtype))


def _combine(input: Tensor, mask, identity: float) -> Tensor:
    """``input`` with the masked-out elements replaced by ``identity``."""
    if mask is None:
        return input
    return where(_input_mask(input, mask), input, _identity(input, identity))


def _axis(dims: tuple):
    """dyngraph's ``dim`` for a canonical tuple (a 0-d tensor's ``()`` is "all")."""
    return dims if dims else None


def sum(input, dim=None, *, keepdim: bool = False, dtype=None, mask=None):  # noqa: A001
    if dtype is None and input._data.dtype.kind in "biu" and input._data.dtype.itemsize < 8:
        dtype = np.int64
    dims = _canonical_dims(dim, input.dim())
    return _sum(_combine(input, mask, 0), _axis(dims), builtins.bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim: bool = False, dtype=None, mask=None):
    out = _combine(input, mask, 1)
    if dtype is not None:
        out = to(out, dtype)
    dims = _canonical_dims(dim, input.dim())
    if not dims:
        return _prod(out)
    for d in reversed(dims):
        out = _prod(out, d, builtins.bool(keepdim))
    return out


def cumsum(input, dim: int, *, dtype=None, mask=None):
    d = _canonical_dims(dim, input.dim())
    return _cumsum(_combine(input, mask, 0), d[0] if d else 0, dtype=dtype)


def cumprod(input, dim: int, *, dtype=None, mask=None):
    d = _canonical_dims(dim, input.dim())
    return _cumprod(_combine(input, mask, 1), d[0] if d else 0, dtype=dtype)


def _cast(out: Tensor, dtype) -> Tensor:
    return out if dtype is None else to(out, dtype)


def amax(input, dim=None, *, keepdim: bool = False, dtype=None, mask=None):
    dims = _canonical_dims(dim, input.dim())
    return _cast(_amax(_combine(input, mask, -math.inf), dims, builtins.bool(keepdim)), dtype)


def amin(input, dim=None, *, keepdim: bool = False, dtype=None, mask=None):
    dims = _canonical_dims(dim, input.dim())
    return _cast(_amin(_combine(input, mask, math.inf), dims, builtins.bool(keepdim)), dtype)


def argmax(input, dim=None, *, keepdim: bool = False, dtype=None, mask=None):
    """The position of the largest kept element, in ``input``'s dtype (as torch.masked)."""
    out = _argmax(_combine(input, mask, -math.inf), dim, builtins.bool(keepdim))
    return to(out, input._data.dtype if dtype is None else dtype)


def argmin(input, dim=None, *, keepdim: bool = False, dtype=None, mask=None):
    out = _argmin(_combine(input, mask, math.inf), dim, builtins.bool(keepdim))
    return to(out, input._data.dtype if dtype is None else dtype)


def _count(input: Tensor, dim, keepdim: bool, mask) -> Tensor:
    kept = make(np.ones(input._data.shape, np.int64)) if mask is None else \
        to(_input_mask(input, mask), np.int64)
    return sum(kept, dim, keepdim=keepdim)


def mean(input, dim=None, *, keepdim: bool = False, dtype=None, mask=None):
    """The mean of the kept elements (NaN where there are none)."""
    target = input._data.dtype if dtype is None else np_dtype_of(dtype)
    if target.kind != "f":
        raise ValueError(f"mean(): Could not infer output dtype. Input dtype must be either a "
                         f"floating point or complex dtype. Got: {input.dtype}")
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    return div(total, _count(input, dim, keepdim, mask))


def median(input, dim: int = -1, *, keepdim: bool = False, dtype=None, mask=None):
    """The lower median of the kept elements along ``dim`` (NaN where there are none)."""
    d = _canonical_dims(dim, input.dim())
    x = input if input._data.dtype.kind == "f" else to(input, np.float32)
    return nanmedian(_combine(x, mask, math.nan), d[0] if d else 0, keepdim).values


def logsumexp(input, dim=None, *, keepdim: bool = False, dtype=None, mask=None):
    dims = _canonical_dims(dim, input.dim())
    return _cast(_logsumexp(_combine(input, mask, -math.inf), dims, keepdim), dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """``log(exp(input) + exp(other))`` of the kept elements (a masked-out one counts as -inf)."""
    a, b = _combine(input, input_mask, -math.inf), _combine(other, other_mask, -math.inf)
    top = maximum(a, b).detach()
    shift = where(isfinite(top), top, make(np.zeros((), top._data.dtype)))
    out = add(log(add(exp(sub(a, shift)), exp(sub(b, shift)))), shift)
    return _cast(out, dtype)


def norm(input, ord=2.0, dim=None, *, keepdim: bool = False, dtype=None, mask=None):
    """The ``ord``-norm of the kept elements (masked-out ones count as 0; as +inf for
    ``ord=-inf``)."""
    fill = math.inf if ord == -math.inf else 0
    dims = _canonical_dims(dim, input.dim())
    return vector_norm(_combine(input, mask, fill), ord, dims, builtins.bool(keepdim),
                       dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt: bool):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    corr = 1.0 if unbiased is None else (1.0 if unbiased else 0.0)
    if correction is not None:
        corr = builtins.float(correction)
    x = input if input._data.dtype.kind == "f" else to(input, np.float32)
    count = _count(x, dim, True, mask)
    sample_mean = div(sum(x, dim, keepdim=True, dtype=dtype, mask=mask), count)
    d = sub(x, sample_mean)
    total = sum(mul(d, d), dim, keepdim=keepdim, mask=mask)
    if not keepdim:
        count = reshape(count, total._data.shape)
    if corr != 0:
        count = to(count, total._data.dtype)
        count = maximum(sub(count, corr), make(np.zeros((), total._data.dtype)))
    out = div(total, count)
    return out.sqrt() if take_sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim: bool = False, dtype=None,
        mask=None):
    """The sample variance of the kept elements (NaN where too few are kept)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim: bool = False, dtype=None,
        mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def _one_dim(input: Tensor, dim: int) -> int:
    d = _canonical_dims(dim, input.dim())
    return d[0] if d else 0


def softmax(input, dim: int, *, dtype=None, mask=None):
    """softmax over the kept elements (masked-out ones get 0; a fully masked slice NaN)."""
    return _softmax(_combine(input, mask, -math.inf), _one_dim(input, dim), dtype)


def log_softmax(input, dim: int, *, dtype=None, mask=None):
    return _log_softmax(_combine(input, mask, -math.inf), _one_dim(input, dim), dtype)


def softmin(input, dim: int, *, dtype=None, mask=None):
    return _softmax(neg(_combine(input, mask, math.inf)), _one_dim(input, dim), dtype)


def normalize(input, ord: float, dim: int, *, eps: float = 1e-12, dtype=None, mask=None):
    """The kept elements divided by their ``ord``-norm along ``dim`` (at least ``eps``)."""
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denom = maximum(nrm, make(np.array(eps, nrm._data.dtype)))
    return div(_combine(input, mask, 0), denom)

"""torch functions that are compositions of other ones: the fused multiply-adds (``addmm``,
``baddbmm``, ``addcmul``, ``lerp`` ...), the stacks (``hstack`` ...), ``meshgrid``,
``repeat_interleave``, the ``index_*`` updates, ``cdist``, ``nan_to_num``, ``logit``, and the
integer look-ups (``bincount``, ``searchsorted``, ``bucketize``, ``isin``), which have no gradient.

A differentiable one is written over registry ops, so its gradient is theirs; its last node is
named as PyTorch names the whole call (``torch.addmm(...).grad_fn`` is ``AddmmBackward0``).
Values, gradients, dtypes and messages are checked against PyTorch 2.13 in
``tests/test_more_ops.py``.

>>> import dyngraph as torch
>>> torch.addcmul(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([3., 4.]), value=0.5)
tensor([2.5000, 5.0000])
"""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from .functions import (_t, abs as _abs, add, cat, clamp, div, expand, flatten, log, matmul,
                        mul, reshape, sub, sum as _sum, transpose, unsqueeze)
from .linalg import vector_norm
from .node import renamed, torch_node
from .pointwise import isfinite
from .selection import bmm, index_select, masked_fill, mv, outer, scatter, scatter_add, where
from .tensor import Tensor, make

__all__ = ["addmm", "addmv", "addr", "baddbmm", "addbmm", "addcmul", "addcdiv", "lerp",
           "hstack", "vstack", "dstack", "column_stack", "row_stack", "atleast_1d", "atleast_2d",
           "atleast_3d", "meshgrid", "repeat_interleave", "index_add", "index_copy",
           "index_fill", "nan_to_num", "cdist", "logit", "isin", "bincount", "searchsorted",
           "bucketize", "reshape_as"]

METHODS = ["addmm", "addmv", "addr", "baddbmm", "addbmm", "addcmul", "addcdiv", "lerp",
           "repeat_interleave", "index_add", "index_copy", "index_fill", "nan_to_num", "logit",
           "bincount", "reshape_as"]


# --- fused multiply-adds: beta * input + alpha * product ---------------------------------------

def _fma(input, product, beta, alpha, cls):
    """``beta * input + alpha * product``; with ``beta == 0`` the input is ignored (its NaNs
    too), as PyTorch documents."""
    scaled = product if alpha == 1 else mul(product, alpha)
    if beta == 0:  # still broadcast with input, and give it a zero gradient (no NaN)
        inp = _t(input)
        return renamed(add(scaled, mul(where(isfinite(inp), inp, 0.0), 0.0)), cls)
    return renamed(add(_t(input) if beta == 1 else mul(_t(input), beta), scaled), cls)


def _matrix(t, name: str, what: str = "matrix") -> None:
    """PyTorch's rank check of a matrix (or, ``what="batch"``, a batch of them) argument."""
    if what == "batch" and t.dim() != 3:
        raise RuntimeError(f"{name} must be a 3D tensor")
    if what == "matrix" and t.dim() != 2:
        raise RuntimeError(f"{name} must be a matrix, got {t.dim()}-D tensor")


@torch_node("AddmmBackward0")
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    _matrix(mat1, "mat1")
    _matrix(mat2, "mat2")
    return _fma(input, matmul(mat1, mat2), beta, alpha, addmm.node)


@torch_node("AddmvBackward0")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    if mat.dim() != 2 or vec.dim() != 1 or _t(input).dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {_t(input).dim()}, "
                           f"{mat.dim()}, {vec.dim()}")
    return _fma(input, mv(mat, vec), beta, alpha, addmv.node)


@torch_node("AddrBackward0")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    return _fma(input, outer(vec1, vec2), beta, alpha, addr.node)


@torch_node("BaddbmmBackward0")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)``, matrix by matrix."""
    _matrix(batch1, "batch1", "batch")
    _matrix(batch2, "batch2", "batch")
    return _fma(input, bmm(batch1, batch2), beta, alpha, baddbmm.node)


@torch_node("AddbmmBackward0")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    _matrix(batch1, "batch1", "batch")
    _matrix(batch2, "batch2", "batch")
    return _fma(input, _sum(bmm(batch1, batch2), 0), beta, alpha, addbmm.node)


@torch_node("AddcmulBackward0")
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``."""
    return renamed(add(input, mul(mul(tensor1, tensor2), value)), addcmul.node)


@torch_node("AddcdivBackward0")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``."""
    if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future "
                           "release addcdiv will perform a true division of tensor1 and tensor2. "
                           "The historic addcdiv behavior can be implemented as "
                           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float "
                           "inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    return renamed(add(input, mul(div(tensor1, tensor2), value)), addcdiv.node)


@torch_node(scalar="LerpBackward0", tensor="LerpBackward1")
def lerp(input, end, weight):
    """``input + weight * (end - input)``."""
    step = mul(sub(end, input), weight)
    return renamed(add(input, step), lerp.nodes["tensor" if isinstance(weight, Tensor) else "scalar"])


# --- stacks -------------------------------------------------------------------------------------

def _atleast(n: int, tensors):
    """PyTorch's ``atleast_nd``: 0-d -> ``[1]*n``, 1-d ``[k]`` -> ``[1, k]`` / ``[1, k, 1]``,
    2-d ``[a, b]`` -> ``[a, b, 1]`` (for ``n == 3``)."""
    one = len(tensors) == 1 and not isinstance(tensors[0], (list, tuple))
    items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = []
    for t in items:
        t = _t(t)
        if t.dim() == 0:
            t = reshape(t, *([1] * n))
        elif n >= 2 and t.dim() == 1:
            t = unsqueeze(t, 0)
            if n == 3:
                t = unsqueeze(t, 2)
        elif n == 3 and t.dim() == 2:
            t = unsqueeze(t, 2)
        out.append(t)
    return out[0] if one else tuple(out)


def atleast_1d(*tensors):
    return _atleast(1, tensors)


def atleast_2d(*tensors):
    return _atleast(2, tensors)


def atleast_3d(*tensors):
    return _atleast(3, tensors)


def _sequence(tensors, name: str) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return list(tensors)


def hstack(tensors):
    """Concatenate along dim 1 (dim 0 when the inputs are 1-D)."""
    ts = [atleast_1d(t) for t in _sequence(tensors, "hstack")]
    return cat(ts, 0 if ts[0].dim() == 1 else 1)


def vstack(tensors):
    """Concatenate the inputs made at least 2-D along dim 0."""
    return cat([atleast_2d(t) for t in _sequence(tensors, "vstack")], 0)


row_stack = vstack


def dstack(tensors):
    """Concatenate the inputs made at least 3-D along dim 2."""
    return cat([atleast_3d(t) for t in _sequence(tensors, "dstack")], 2)


def column_stack(tensors):
    """1-D (and 0-d) inputs become columns; the rest are concatenated along dim 1."""
    cols = [reshape(_t(t), _t(t).numel(), 1) if _t(t).dim() <= 1 else _t(t)
            for t in _sequence(tensors, "column_stack")]
    return cat(cols, 1)


# --- grids and repeats --------------------------------------------------------------------------

def meshgrid(*tensors, indexing: str | None = None):
    """Coordinate grids: output ``i`` varies along dim ``i`` (``'ij'``), or with the first two
    dims swapped (``'xy'``, numpy's default)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    ts = [reshape(t, -1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = shape[i]
        grids.append(expand(reshape(t, *view), *shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@torch_node(view="ViewBackward0")  # an int count: PyTorch expands, clones and views
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along ``dim``) repeated ``repeats`` times (one count, or one per
    element); with only a count tensor, the indices ``0, 0, 1, ...`` it describes."""
    if repeats is None:
        counts = input._data
        if counts.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if counts.size and counts.min() < 0:
            raise RuntimeError("repeats can not be negative")
        return make(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    x = flatten(input) if dim is None else input
    d = 0 if dim is None else dim % builtins.max(x.dim(), 1)
    n = x.shape[d] if x.dim() else 1
    counts = repeats._data if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if counts.size and counts.min() < 0:
        raise RuntimeError("repeats can not be negative")
    if counts.ndim == 1 and counts.size not in (1, n):
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.size} and input.size({d}) = {n}")
    index = make(np.repeat(np.arange(n, dtype=np.int64), counts.reshape(-1)
                           if counts.size != 1 else int(counts.reshape(-1)[0])))
    out = index_select(x if x.dim() else reshape(x, 1), d, index)
    return out if isinstance(repeats, Tensor) else renamed(out, repeat_interleave.nodes["view"])


def _matrix_transpose(name: str):
    def swap(input):
        if input.dim() < 2:
            raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                               f"matrices. Got {input.dim()}-D tensor.")
        return transpose(input, -2, -1)
    swap.__name__ = swap.__qualname__ = name
    swap.__doc__ = f"``x.{name}``: the last two dims swapped (the conjugate is the same: no complex dtypes)."
    return swap


mT, mH = _matrix_transpose("mT"), _matrix_transpose("mH")


def reshape_as(input, other):
    return reshape(input, *other.shape)


# --- index_* updates ----------------------------------------------------------------------------

def _along(index, input, dim: int, source) -> tuple[int, Tensor]:
    """``dim`` made non-negative and ``index`` expanded to the source's shape along it (the form
    ``scatter`` takes)."""
    d = dim % builtins.max(input.dim(), 1)
    idx = index._data
    shape = list(source.shape)
    if input.dim():
        shape[d] = idx.size
    view = [1] * builtins.max(input.dim(), 1)
    view[d] = idx.size
    full = np.broadcast_to(idx.astype(np.int64).reshape(view), shape or [idx.size])
    return d, make(np.ascontiguousarray(full))


@torch_node("IndexAddBackward0")
def index_add(input, dim: int, index, source, *, alpha=1):
    """``input`` with ``alpha * source[i]`` added at ``index[i]`` along ``dim``."""
    if index.dim() > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: "
                         f"{index.dim()} with type: {index.dtype.scalar_name} and size: "
                         f"{list(index.shape)}")
    if index._data.dtype.kind not in "iu":
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype.scalar_name}")
    d, full = _along(index, input, dim, source)
    return renamed(scatter_add(input, d, full, source if alpha == 1 else mul(source, alpha)),
                   index_add.node)


@torch_node("IndexCopyBackward0")
def index_copy(input, dim: int, index, source):
    """``input`` with ``source[i]`` written at ``index[i]`` along ``dim``."""
    if index.dim() > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    if index._data.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{index.dtype.scalar_name}")
    d, full = _along(index, input, dim, source)
    return renamed(scatter(input, d, full, source), index_copy.node)


@torch_node("IndexFillBackward0")
def index_fill(input, dim: int, index, value):
    """``input`` with the slices at ``index`` along ``dim`` set to ``value``."""
    if _t(index).dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    d = dim % builtins.max(input.dim(), 1)
    mask = np.zeros(input.shape[d] if input.dim() else 1, dtype=bool)
    mask[_t(index)._data.reshape(-1)] = True
    view = [1] * input.dim()
    if input.dim():
        view[d] = mask.size
    return renamed(masked_fill(input, make(mask.reshape(view)), value), index_fill.node)


# --- elementwise --------------------------------------------------------------------------------

@torch_node("NanToNumBackward0")
def nan_to_num(input, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None):
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (by default the
    dtype's largest and lowest finite values); the gradient is 0 at the replaced places."""
    if input._data.dtype.kind != "f":
        return input.clone()
    info = np.finfo(input._data.dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    data = input._data
    fill = np.where(np.isnan(data), nan, np.where(data > 0, hi, lo)).astype(data.dtype)
    return renamed(where(isfinite(input), input, make(fill)), nan_to_num.node)


@torch_node("LogitBackward0")
def logit(input, eps: float | None = None):
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    p = input if eps is None else clamp(input, eps, 1 - eps)
    return renamed(log(div(p, sub(1.0, p))), logit.node)


@torch_node("CdistBackward0")
def cdist(x1, x2, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"):
    """Pairwise ``p``-norm distances between the rows of ``x1`` ``(.., P, M)`` and ``x2``
    ``(.., R, M)``: ``(.., P, R)``.  The gradient at a zero distance is 0 (PyTorch's)."""
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
                           f"X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    diff = _abs(sub(unsqueeze(x1, -2), unsqueeze(x2, -3)))
    return renamed(vector_norm(diff, p, -1), cdist.node)


# --- integer look-ups (no gradient) -------------------------------------------------------------

def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False):
    """Whether each element of ``elements`` is among ``test_elements``."""
    a, b = _t(elements)._data, _t(test_elements)._data
    return make(np.isin(a, b, invert=invert))


def bincount(input, weights=None, minlength: int = 0):
    """How often each value ``0..max`` occurs in a 1-d non-negative int tensor (summing
    ``weights`` instead of counting, when given)."""
    data = input._data
    if data.dtype.kind not in "iu":
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    if data.ndim != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return make(np.bincount(data, minlength=minlength).astype(np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != data.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = w.dtype if w.dtype.kind == "f" else np.float64
    return make(np.bincount(data, w.astype(np.float64), minlength).astype(dtype))


def _boundary_side(right: bool, side: str | None) -> str:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        return side
    return "right" if right else "left"


def searchsorted(sorted_sequence, input, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter=None):
    """Where each value of ``input`` would be inserted into ``sorted_sequence`` (along its
    last dim, row by row when it has several) to keep it sorted."""
    seq = _t(sorted_sequence)._data
    values = _t(input)._data
    how = _boundary_side(right, side)
    if sorter is not None:
        seq = np.take_along_axis(seq, _t(sorter)._data, -1)
    dtype = np.int32 if out_int32 else np.int64
    if seq.ndim <= 1:
        return make(np.asarray(np.searchsorted(seq, values, side=how)).astype(dtype))
    if seq.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           f"first N-1 dimensions of boundaries tensor and input value tensor "
                           f"must match, but we got boundaries tensor {list(seq.shape)} and "
                           f"input value tensor {list(values.shape)}")
    rows_s, rows_v = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
    out = np.stack([np.searchsorted(s, v, side=how) for s, v in zip(rows_s, rows_v)])
    return make(out.reshape(values.shape).astype(dtype))


def bucketize(input, boundaries, *, out_int32: bool = False, right: bool = False):
    """The bucket of each value: ``i`` with ``boundaries[i-1] < x <= boundaries[i]`` (``<=``
    and ``<`` swapped with ``right=True``)."""
    b = _t(boundaries)._data
    if b.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    out = np.searchsorted(b, _t(input)._data, side="right" if right else "left")
    return make(np.asarray(out).astype(np.int32 if out_int32 else np.int64))

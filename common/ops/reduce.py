"""Reductions: sum, mean, max, min over ``axis`` (None = all) with ``keepdims``.

Their gradients all start the same way: put the reduced dims back as size-1
dims (:func:`keep`), then broadcast to the input's shape.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError, invalid
from ..fastpath import jit_module_if_loaded
from ..examples import Example as E
from ..registry import Spec, defop
from ..shapes import EXTENDED_FLOATS, dtype_kind, normalize_axes, reduced_shape, result_dtype

__all__ = ["keep"]

REDUCE = (E(((4,),)), E(((2, 3),)), E(((2, 3),), {"axis": 0}), E(((2, 3),), {"axis": 1}),
          E(((2, 3),), {"axis": -1, "keepdims": True}), E(((2, 3, 4),), {"axis": (0, 2)}),
          E(((),)))


def reduction(dtype_rule):
    def infer(x: Spec, axis=None, keepdims=False, initial=None) -> Spec:
        return Spec(reduced_shape(x.shape, axis, keepdims), dtype_rule(x.dtype))
    return infer


def _sum_dtype(dtype):
    """numpy sums small ints and bools in the platform int (uint for unsigned)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_ or np.issubdtype(dtype, np.signedinteger):
        return np.dtype(np.int_)
    if np.issubdtype(dtype, np.unsignedinteger):
        return np.dtype(np.uint)
    return dtype


def _mean_dtype(dtype):
    return np.dtype(dtype) if dtype_kind(dtype) in "fc" else result_dtype(dtype, np.float64)


def keep(F, t, x_ref, axis, keepdims):
    """``t`` (a reduction's result or gradient) with the reduced dims as size-1 dims."""
    if keepdims or axis is None:
        return t
    rank = F.rank(x_ref)
    if rank == 0:  # torch reduces a 0-d tensor "along" dim 0 or -1: the result is 0-d too
        return t
    if rank is None and all(a < 0 for a in ((axis,) if isinstance(axis, int) else axis)):
        return F.expand_dims(t, axis=axis)  # negative axes name the same dims in x and in the result
    return F.expand_dims(t, axis=normalize_axes(axis, rank))


def _sum_grad(F, g, x_shape, axis, keepdims):
    return F.broadcast_like(keep(F, g, x_shape, axis, keepdims), x_shape)


def _mean_grad(F, g, x_shape, axis, keepdims):
    return F.div(_sum_grad(F, g, x_shape, axis, keepdims), F.reduce_size(x_shape, axis=axis))


def _extreme_grad(F, g, x, out, axis, keepdims):
    """Gradient flows to the elements equal to the max (min), split evenly between ties."""
    hit = F.cast(F.eq(x, keep(F, out, x, axis, keepdims)), dtype=F.dtype(g))
    share = F.div(hit, F.sum(hit, axis=axis, keepdims=True))
    return F.mul(keep(F, g, x, axis, keepdims), share)


def _sum(x, axis=None, keepdims=False):
    """``np.sum`` without its Python-level dispatch (it calls exactly this): same bits, ~2x less
    overhead; arguments by position (``axis, dtype, out, keepdims``), cheaper than keywords.

    The result dtype is numpy's (:func:`_sum_dtype`: an int32 or bool sum is int64), which is
    PyTorch's (``torch.sum`` of int32 is int64).  TF keeps the integer dtype; that stays a
    surface choice, made where ``tf.reduce_sum``/``reduce_mean`` build the op
    (``staticgraph.ops.core_ops._reduce`` casts the result back, inside the op's scope), because the two
    frameworks disagree on one op: declaring it here would take an attribute (``dtype``) that
    only one surface sets, for the same values -- integer sums wrap the same way whether cast
    before or after adding (arithmetic modulo 2**32 commutes with the cast)."""
    if axis.__class__ is tuple and x.__class__ is np.ndarray and x.size >= LEADING_SUM_MIN:
        return _leading_sum(x, axis, keepdims)
    return np.add.reduce(x, axis, None, None, keepdims)


LEADING_SUM_MIN = 1 << 15
"""Elements from which :func:`_sum` over every axis but the last (a bias's gradient) runs
numba's loop once numba is loaded (:mod:`common.ops_jit`, the same bits): 64x28x28x32 float32
1.05 -> 0.24 ms alone; in the bench CNN's compiled step (thread CPU time) 0.98 -> 0.26 ms, and
0.32 -> 0.14 ms at 64x14x14x64; below, numpy's call costs about what numba's does."""


def _leading_sum(x: np.ndarray, axis: tuple, keepdims: bool):
    """``np.add.reduce(x, axis)``; over the leading axes of a C-contiguous float32/float64
    array whose kept last axis has 8 elements or more, numba's row-by-row loop (numpy's own
    order there: the kept axis innermost, the rows added in turn into zeros -- a kept axis
    of one element would be a whole-array pairwise sum instead)."""
    c = x.shape[-1] if x.ndim >= 2 else 0
    if (c >= 8 and x.dtype.char in "fd" and x.flags.c_contiguous
            and axis == tuple(range(x.ndim - 1))
            and (jit := jit_module_if_loaded("common.ops_jit")) is not None):
        out = np.empty(c, x.dtype)
        jit.leading_sum(x.reshape(-1, c), out)
        return out.reshape((1,) * (x.ndim - 1) + (c,)) if keepdims else out
    return np.add.reduce(x, axis, None, None, keepdims)


def _mean(x, axis=None, keepdims=False):
    """``np.mean``; over all elements of a non-empty float32/float64 array, its very steps
    (``add.reduce``, then the division by the count as ``intp``) without its Python-level
    dispatch: same bits, about a third of the time on small arrays (a loss's mean)."""
    if axis is None and type(x) is np.ndarray and x.size and x.dtype.char in "fd":
        total = np.add.reduce(x, None, None, None, keepdims)
        if type(total) is np.ndarray:
            return np.true_divide(total, np.intp(x.size), out=total, casting="unsafe")
        return total.dtype.type(total / np.intp(x.size))
    return np.mean(x, axis=axis, keepdims=keepdims)


def _max(x, axis=None, keepdims=False, initial=None):
    """``initial`` (TF's empty-reduction value, the dtype's lowest) makes an empty max defined;
    without it an empty max is an error, as in PyTorch."""
    if initial is None:
        return np.max(x, axis=axis, keepdims=keepdims)
    return np.max(x, axis=axis, keepdims=keepdims, initial=initial)


def _min(x, axis=None, keepdims=False, initial=None):
    if initial is None:
        return np.min(x, axis=axis, keepdims=keepdims)
    return np.min(x, axis=axis, keepdims=keepdims, initial=initial)


def _reduce_size(x, axis=None):
    """How many elements a reduction over ``axis`` combines (mean's divisor), as x's float dtype."""
    if axis is None:
        n = math.prod(x.shape)  # Python ints: exact, no array round trip
    else:
        n = math.prod([x.shape[a] for a in normalize_axes(axis, x.ndim)])
    dtype = x.dtype
    # a float dtype is its own promotion with float16 (np.result_type, ~1 us, says the same)
    float_dtype = isinstance(dtype, np.dtype) and (dtype.kind == "f" or dtype in EXTENDED_FLOATS)
    return np.array(n, dtype=dtype if float_dtype else result_dtype(dtype, np.float16))


defop("Sum", _sum, reduction(_sum_dtype), inputs=("x",), fname="sum", examples=REDUCE,
      torch_names={"dim": "SumBackward1", "trace": "TraceBackward0"},
      grads=(_sum_grad,))
defop("Mean", _mean, reduction(_mean_dtype), inputs=("x",), fname="mean", examples=REDUCE,
      torch_names={"dim": "MeanBackward1"},
      grads=(_mean_grad,))
defop("Max", _max, reduction(np.dtype), inputs=("x",), fname="max", torch_name="MaxBackward1",
      torch_names={"dim": "MaxBackward0", "amax": "AmaxBackward0"},
      examples=REDUCE + (E((np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]]),), {"axis": 1}),
                         E(((2, 3),), {"axis": 0, "initial": -np.inf})),
      grads=(_extreme_grad,))
defop("Min", _min, reduction(np.dtype), inputs=("x",), fname="min", torch_name="MinBackward1",
      torch_names={"dim": "MinBackward0", "amin": "AminBackward0"},
      examples=REDUCE + (E((np.array([[1.0, 1.0, 3.0], [0.5, 2.0, 0.5]]),), {"axis": 1}),),
      grads=(_extreme_grad,))
defop("ReduceSize", _reduce_size,
      lambda x, axis=None: Spec((), result_dtype(x.dtype, np.float16)),
      inputs=("x",), fname="reduce_size", shape_only=(0,), examples=(E(((2, 3),), {"axis": 1}),))

# --- arg-reductions: integer positions, no gradient ---------------------------------------


def _arg_infer(x: Spec, axis=None, keepdims=False) -> Spec:
    """Positions of the extreme: over all elements (flat index) or along one axis."""
    if axis is None:
        shape = None if x.shape is None else ((1,) * len(x.shape) if keepdims else ())
    else:
        shape = reduced_shape(x.shape, axis, keepdims)
    return Spec(shape, np.dtype(np.intp))


def _argmax(x, axis=None, keepdims=False):
    return np.asarray(np.argmax(x, axis=axis, keepdims=keepdims))


def _argmin(x, axis=None, keepdims=False):
    return np.asarray(np.argmin(x, axis=axis, keepdims=keepdims))


ARG = (E(((4,),)), E(((2, 3),), {"axis": 1}), E(((2, 3),), {"axis": 0, "keepdims": True}))
defop("ArgMax", _argmax, _arg_infer, inputs=("x",), fname="argmax", examples=ARG)
defop("ArgMin", _argmin, _arg_infer, inputs=("x",), fname="argmin", examples=ARG)


# --- product, logical reductions, log-sum-exp --------------------------------------------


def _prod(x, axis=None, keepdims=False):
    return np.multiply.reduce(x, axis=axis, keepdims=keepdims)


def _prod_grad(F, g, x, out, axis, keepdims):
    """d prod / d x_i = product of the other elements -- right when some are zero, too.

    No zero in the slice: ``out / x``.  Exactly one zero: that element gets the
    product of the others (the product of the non-zeros), the rest get 0.  Two
    or more: every such product contains a zero.
    """
    is_zero = F.eq(x, 0.0)
    zeros = F.sum(F.cast(is_zero, dtype=F.dtype(x)), axis=axis, keepdims=True)
    nonzero_prod = F.prod(F.where(is_zero, 1.0, x), axis=axis, keepdims=True)
    safe_x = F.where(is_zero, 1.0, x)
    kept_out = keep(F, out, x, axis, keepdims)
    others = F.where(F.eq(zeros, 0.0), F.div(kept_out, safe_x),
                     F.where(F.logical_and(F.eq(zeros, 1.0), is_zero), nonzero_prod, 0.0))
    return F.mul(keep(F, g, x, axis, keepdims), others)


defop("Prod", _prod, reduction(_sum_dtype), inputs=("x",), fname="prod", torch_name="ProdBackward1",
      torch_names={"all": "ProdBackward0"},
      examples=REDUCE + (E((np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [0.5, 2.0, -1.0]]),),
                          {"axis": 1}),),
      grads=(_prod_grad,))


def _any(x, axis=None, keepdims=False):
    return np.any(x, axis=axis, keepdims=keepdims)


def _all(x, axis=None, keepdims=False):
    return np.all(x, axis=axis, keepdims=keepdims)


LOGICAL = (E((np.array([[True, False], [False, False]]),), {"axis": 1}),
           E((np.array([True, True]),)), E(((2, 3),), {"axis": 0, "keepdims": True}))
defop("Any", _any, reduction(lambda _: np.dtype(bool)), inputs=("x",), fname="reduce_any",
      examples=LOGICAL)
defop("All", _all, reduction(lambda _: np.dtype(bool)), inputs=("x",), fname="reduce_all",
      examples=LOGICAL)


def _logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` shifted by the max, so large inputs do not overflow."""
    x = np.asarray(x)
    if x.size == 0:   # nothing to shift by: log(sum of no terms) = log(0) = -inf, as torch
        with np.errstate(divide="ignore"):
            return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _logsumexp_grad(F, g, x, out, axis, keepdims):
    """softmax(x) along the reduced dims, times the gradient."""
    return F.mul(keep(F, g, x, axis, keepdims), F.exp(F.sub(x, keep(F, out, x, axis, keepdims))))


defop("ReduceLogSumExp", _logsumexp, reduction(_mean_dtype), inputs=("x",), fname="logsumexp",
      torch_name="LogsumexpBackward0", examples=REDUCE, grads=(_logsumexp_grad,))

def _euclidean_norm(x, axis=None, keepdims=False):
    """TF's ``EuclideanNorm``: ``sqrt(sum(x * conj(x)))``; integer inputs give the root truncated
    to their own dtype (TF's kernel: ``reduce_euclidean_norm([[1, 2], [3, 4]])`` is 5)."""
    x = np.asarray(x)
    squares = (x * np.conj(x) if x.dtype.kind == "c"     # |z|^2, kept complex (TF's dtype)
               else np.square(x, dtype=np.float64 if x.dtype.kind in "iub" else x.dtype))
    out = np.sqrt(np.sum(squares, axis=axis, keepdims=keepdims))
    return out.astype(x.dtype) if x.dtype.kind in "iub" else out


def _euclidean_norm_grad(F, g, x, out, axis, keepdims):
    """``g * x / norm`` (NaN where the norm is 0, as TF's)."""
    return F.mul(keep(F, g, x, axis, keepdims), F.div(x, keep(F, out, x, axis, keepdims)))


defop("EuclideanNorm", _euclidean_norm, reduction(np.dtype), inputs=("x",),
      fname="reduce_euclidean_norm", examples=REDUCE, grads=(_euclidean_norm_grad,))

# --- scans and sorting -------------------------------------------------------------------------


def _scan_axis(x: np.ndarray, axis) -> int:
    """``axis`` checked as TF's ``ScanOp`` kernel checks it when it runs (the graph builds
    with any axis): a scalar in ``[-rank, rank)``, returned non-negative."""
    if np.ndim(axis) != 0:
        raise invalid(f"ScanOp: axis must be a scalar, not {list(np.shape(axis))}")
    rank, axis = x.ndim, int(axis)
    if not -rank <= axis < rank:   # TF's words show the axis after adding rank to a negative one
        raise invalid(f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), "
                      f"but got {axis + rank if axis < 0 else axis}")
    return axis % rank


def _shifted(out: np.ndarray, axis: int, first) -> np.ndarray:
    """``out`` moved one place along ``axis`` with ``first`` entering: an inclusive scan
    made exclusive without undoing a step (``cumsum - x`` would turn the sums after a NaN
    or inf into NaN, and lose float16's precision)."""
    moved = np.empty_like(out)
    into, src = [slice(None)] * out.ndim, [slice(None)] * out.ndim
    into[axis], src[axis] = slice(1, None), slice(None, -1)
    moved[tuple(into)] = out[tuple(src)]
    into[axis] = slice(0, 1)
    moved[tuple(into)] = first
    return moved


def _cumsum(x, axis=0, exclusive=False, reverse=False):
    """Running sums along ``axis`` (TF's ``exclusive``/``reverse`` options)."""
    x = np.asarray(x)
    axis = _scan_axis(x, axis)
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=_sum_dtype(x.dtype))
    if exclusive:
        out = _shifted(out, axis, 0)
    return np.flip(out, axis) if reverse else out


defop("Cumsum", _cumsum,
      lambda x, axis=0, exclusive=False, reverse=False: Spec(x.shape, _sum_dtype(x.dtype)),
      inputs=("x",), fname="cumsum",
      examples=(E(((4,),)), E(((2, 3),), {"axis": 1}), E(((2, 3),), {"axis": 0, "reverse": True}),
                E(((2, 3),), {"axis": -1, "exclusive": True})),
      grads=(lambda F, g, axis, exclusive, reverse:
             F.cumsum(g, axis=axis, exclusive=exclusive, reverse=not reverse),))


def _cumprod(x, axis=0, exclusive=False, reverse=False, exact_at_zeros=False):
    """Running products along ``axis`` (TF's ``exclusive``/``reverse`` options;
    ``exact_at_zeros`` only chooses the gradient's convention, see :func:`_cumprod_grad`)."""
    x = np.asarray(x)
    axis = _scan_axis(x, axis)
    if reverse:
        x = np.flip(x, axis)
    out = np.cumprod(x, axis=axis, dtype=_sum_dtype(x.dtype))
    if exclusive:
        out = _shifted(out, axis, 1)
    return np.flip(out, axis) if reverse else out


def _cumprod_grad(F, g, x, out, axis, exclusive, reverse, exact_at_zeros):
    """``cumsum(out * g, reversed) / x`` (TF's rule), exact at zeros as PyTorch's when
    ``exact_at_zeros`` (dyngraph sets it; TF 2.x returns 0 there -- ``div_no_nan``, its own
    "fails when x contains 0" TODO -- and staticgraph keeps TF's answer).

    The quotient is right wherever ``x`` is not 0, and 0 is right at every zero but the
    first of its line (each product it enters holds that first zero). At the first zero
    the gradient is the sum of ``g`` times the products of the *other* factors: the same
    reversed cumsum over the cumprod of ``x`` with that one zero replaced by 1."""
    def scan(v):
        return F.cumsum(F.mul(v, g), axis=axis, exclusive=exclusive, reverse=not reverse)
    zero = F.eq(x, 0.0)
    ones = F.ones_like(x)
    s = scan(out)
    quotient = F.where(zero, F.zeros_like(s), F.div(s, F.where(zero, ones, x)))
    if not exact_at_zeros:
        return quotient
    zeros_before = F.cumsum(F.where(zero, ones, F.zeros_like(x)), axis=axis, exclusive=True,
                            reverse=reverse)
    first = F.logical_and(zero, F.eq(zeros_before, 0.0))
    at_first = scan(F.cumprod(F.where(first, ones, x), axis=axis, exclusive=exclusive,
                              reverse=reverse))
    return F.where(first, at_first, quotient)


defop("Cumprod", _cumprod,
      lambda x, axis=0, exclusive=False, reverse=False, exact_at_zeros=False:
          Spec(x.shape, _sum_dtype(x.dtype)),
      inputs=("x",), fname="cumprod",
      examples=(E(((4,),)), E(((2, 3),), {"axis": 1}), E(((2, 3),), {"axis": 0, "reverse": True}),
                E(((2, 3),), {"axis": -1, "exclusive": True}),
                E(((3, 2),), {"axis": 0, "exclusive": True, "reverse": True}),
                E(((2, 3),), {"axis": 1, "reverse": True, "exact_at_zeros": True})),
      grads=(_cumprod_grad,))

def _argsort(x, axis=-1, descending=False):
    """Positions that sort ``x`` along ``axis``; stable, so ties keep their order."""
    x = np.asarray(x)
    return np.argsort(-x if descending and x.dtype != np.bool_ else
                      (~x if descending else x), axis=axis, kind="stable")


defop("ArgSort", _argsort, lambda x, axis=-1, descending=False: Spec(x.shape, np.dtype(np.intp)),
      inputs=("x",), fname="argsort",
      examples=(E(((5,),)), E(((2, 4),), {"axis": 0, "descending": True})))


def _top_k(x, k=1, sorted=True):  # noqa: A002  (TF's attribute name)
    """The ``k`` largest entries along the last axis, largest first (ties: lower index first),
    and their positions as int32 -- TF's ``TopKV2``."""
    idx = np.argsort(-x if x.dtype != np.bool_ else ~x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)


def _top_k_infer(x: Spec, k=1, sorted=True) -> tuple[Spec, Spec]:  # noqa: A002
    if x.shape is not None and not x.shape:
        raise ShapeError("input must have at least 1 dimensions")
    if x.shape is not None and x.shape[-1] is not None and x.shape[-1] < k:
        raise ShapeError(f"top_k: k = {k} is more than the last dimension {x.shape[-1]}",
                         tf=f"input must have last dimension >= k = {k} but is {x.shape[-1]}")
    shape = None if x.shape is None else x.shape[:-1] + (k,)
    return Spec(shape, x.dtype), Spec(shape, np.dtype(np.int32))


defop("TopKV2", _top_k, _top_k_infer, inputs=("x",), fname="top_k", outputs=2,
      torch_name="TopkBackward0",
      examples=(E(((5,),), {"k": 2}), E(((3, 4),), {"k": 3})),
      grads=(lambda F, g, x_shape, out: F.scatter_add_along_axis(g[0], x_shape, out[1], axis=-1),))

"""More of ``tf`` / ``tf.math``: trig, rounding, floor division, remainders, scans, sorting, einsum.

Thin front ends over registry ops, named as TF names their nodes (``Sin``,
``floordiv``, ``FloorMod``, ``Cumsum``, ``Prod``...).  Integer reductions and
scans keep the input's dtype, as TF does (numpy would widen int32).

>>> import staticgraph as tf
>>> with tf.Session() as s:
...     s.run([tf.constant([-7, 7]) // 2, tf.constant([-7, 7]) % 3])
[array([-4,  3], dtype=int32), array([2, 1], dtype=int32)]
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from common import REGISTRY
from common.ops.linalg import einsum_equation

from ..framework import dtypes as _dtypes
from ..framework.build import apply, constant, convert_to_tensor
from ..framework.graph import Tensor, name_scope, tensor_of
from ..framework.shape_values import constant_value
from .core_ops import (_axis, _binary, _operands, _reduce, _unary, abs, cast, equal, greater, less,
                       logical_and, maximum, minimum, multiply, negative, not_equal, one_hot,
                       ones_like, realdiv, reduce_sum, subtract, where, zeros_like)

__all__ = ["sin", "cos", "tan", "rsqrt", "log1p", "expm1", "floor", "ceil", "round", "erf",
           "floordiv", "floor_div", "floormod", "mod", "truncatemod", "cumsum", "reduce_prod",
           "reduce_any", "reduce_all", "reduce_logsumexp", "top_k", "sort", "argsort", "einsum",
           "to_float", "to_double", "to_int32", "to_int64", "is_nan", "is_inf", "is_finite",
           "div_no_nan", "truncatediv", "saturate_cast", "log_sigmoid", "scalar_mul",
           "count_nonzero", "eye", "div", "in_top_k", "asin", "acos", "atan", "sinh", "cosh",
           "asinh", "acosh", "atanh", "atan2", "lgamma", "digamma", "polygamma", "xlogy", "xdivy", "erfinv",
           "cumprod"]

_R = REGISTRY


def sin(x, name=None): return _unary("Sin", x, name)
def cos(x, name=None): return _unary("Cos", x, name)
def tan(x, name=None): return _unary("Tan", x, name)
def rsqrt(x, name=None): return _unary("Rsqrt", x, name)
def log1p(x, name=None): return _unary("Log1p", x, name)
def expm1(x, name=None): return _unary("Expm1", x, name)
def floor(x, name=None): return _unary("Floor", x, name)
def ceil(x, name=None): return _unary("Ceil", x, name)
def round(x, name=None): return _unary("Round", x, name)  # noqa: A001  (half to even, as TF)
def erf(x, name=None): return _unary("Erf", x, name)
def asin(x, name=None): return _unary("Asin", x, name)
def acos(x, name=None): return _unary("Acos", x, name)
def atan(x, name=None): return _unary("Atan", x, name)
def sinh(x, name=None): return _unary("Sinh", x, name)
def cosh(x, name=None): return _unary("Cosh", x, name)
def asinh(x, name=None): return _unary("Asinh", x, name)
def acosh(x, name=None): return _unary("Acosh", x, name)
def atanh(x, name=None): return _unary("Atanh", x, name)
def lgamma(x, name=None): return _unary("Lgamma", x, name)
def erfinv(x, name=None): return _unary("Erfinv", x, name)
def digamma(x, name=None): return _unary("Digamma", x, name)


def atan2(y, x, name=None):
    """The angle of the point ``(x, y)``, in ``[-pi, pi]``."""
    return _binary("Atan2", y, x, name)


def polygamma(a, x, name=None):
    """``psi^(a)(x)``, the ``a``-th derivative of digamma; ``a`` has ``x``'s dtype, as TF."""
    return _binary("Polygamma", a, x, name)


def xlogy(x, y, name=None):
    """``x * log(y)``, 0 where ``x == 0``."""
    return _binary("Xlogy", x, y, name)


def xdivy(x, y, name=None):
    """``x / y``, 0 where ``x == 0`` (TF's node: ``xdivy/Xdivy``)."""
    with name_scope(name, "xdivy"):
        return _binary("Xdivy", x, y, None)


def floordiv(x, y, name=None):
    """``floor(x / y)``: Python's ``//``."""
    return _binary("FloorDiv", x, y, name or "floordiv")


def floor_div(x, y, name=None):
    """The raw ``FloorDiv`` op (``tf.math.floor_div``): TF names it ``FloorDiv``, where its
    ``floordiv`` wrapper is named ``floordiv``."""
    return _binary("FloorDiv", x, y, name)


def floormod(x, y, name=None):
    """Python's ``%``: the remainder has the sign of ``y``."""
    return _binary("FloorMod", x, y, name)


mod = floormod


def truncatemod(x, y, name=None):
    """C's fmod: the remainder has the sign of ``x``."""
    return _binary("TruncateMod", x, y, name)


def _keep_dtype(out, x):
    return cast(out, x.dtype) if out.dtype != x.dtype else out


def _scan(kind: str, x, axis, exclusive: bool, reverse: bool, name) -> Tensor:
    """``Cumsum``/``Cumprod`` of ``x``; ``axis`` (an int or a tensor the graph fixes) is checked
    when the graph runs, as TF's kernel checks it (a bad one still builds)."""
    x = convert_to_tensor(x)
    value = constant_value(axis)
    if value is None:
        raise ValueError(f"{kind}'s axis must be known when the graph is built (ints, or tensors "
                         f"whose value the graph fixes); {axis} is only known at run time")
    value = np.asarray(value)
    axis = int(value) if value.ndim == 0 else _nested_tuple(value.tolist())
    out = apply(_R[kind], (x,), {"axis": axis, "exclusive": bool(exclusive),
                                 "reverse": bool(reverse)}, name=name)
    return _keep_dtype(out, x)


def _nested_tuple(value):
    """A nested list as nested tuples (an attr is hashable; the kernel reads its shape)."""
    return tuple(_nested_tuple(v) for v in value) if isinstance(value, list) else value


def cumsum(x, axis=0, exclusive: bool = False, reverse: bool = False, name=None):
    return _scan("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive: bool = False, reverse: bool = False, name=None):
    """Running products along ``axis``.  Its gradient is TF's: 0 at an ``x`` that is 0."""
    return _scan("Cumprod", x, axis, exclusive, reverse, name)


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None,
               keep_dims=None):
    x = convert_to_tensor(input_tensor)
    return _keep_dtype(_reduce("Prod", x, _axis(axis, reduction_indices), keepdims, keep_dims, name), x)


def reduce_any(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("Any", input_tensor, _axis(axis, reduction_indices), keepdims, keep_dims, name)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("All", input_tensor, _axis(axis, reduction_indices), keepdims, keep_dims, name)


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("ReduceLogSumExp", input_tensor, _axis(axis, reduction_indices), keepdims, keep_dims, name)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """``sqrt(sum(x * x))`` over ``axis`` (TF's ``EuclideanNorm`` node; ints stay ints)."""
    return _reduce("EuclideanNorm", input_tensor, axis, keepdims, None, name)


def _check_direction(direction) -> None:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f'`direction` must be one of ["ASCENDING", "DESCENDING"]. Received: '
                         f"direction={direction}")


def _sort_positions(x: Tensor, axis, direction: str) -> Tensor:
    """The ArgSort node both ``argsort`` and ``sort`` build (inside their own name scope)."""
    return apply(_R["ArgSort"], (x,), {"axis": int(axis), "descending": direction == "DESCENDING"})


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """Positions that sort ``values`` (int32, as TF)."""
    _check_direction(direction)
    with name_scope(name, "argsort"):
        return cast(_sort_positions(convert_to_tensor(values), axis, direction), "int32")


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``.  TF sorts by ``top_k`` (of the negated values when
    ascending, negated back): its result is ``sort/Neg_1:0`` (``sort/TopKV2:0`` descending)."""
    _check_direction(direction)
    with name_scope(name, "sort"):
        x = convert_to_tensor(values)
        return apply(_R["TakeAlongAxis"], (x, _sort_positions(x, axis, direction)), {"axis": int(axis)},
                     name="Neg_1" if direction == "ASCENDING" else "TopKV2")


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002
    """``(values, indices)`` of the ``k`` largest entries along the last axis (``tf.nn.top_k``):
    ONE ``TopKV2`` node, ``TopKV2:0`` (values) and ``TopKV2:1`` (int32 indices)."""
    values, indices = apply(_R["TopKV2"], (convert_to_tensor(input),),
                            {"k": int(k), "sorted": bool(sorted)}, name=name or "TopKV2")
    return TopKV2(values, indices)


TopKV2 = namedtuple("TopKV2", ["values", "indices"])
"""What ``top_k`` returns, as TF's (``TopKV2(values=<tf.Tensor 'TopKV2:0' ...>, indices=...)``)."""


def einsum(equation: str, *inputs, name=None, **_):
    """``tf.einsum("ij,jk->ik", a, b)`` (``...`` and implicit outputs spelled out first)."""
    xs = tuple(convert_to_tensor(x) for x in inputs)
    if any(x.ndim is None for x in xs):
        raise ValueError("einsum needs operands of known rank")
    eq = einsum_equation(equation, [x.ndim for x in xs])
    with name_scope(name, "einsum"):       # TF: the Einsum op inside an ``einsum`` scope
        return apply(_R["Einsum"], xs, {"equation": eq})



# --- TF1's conveniences: casts by name, float predicates, safe division -----------------

def to_float(x, name="ToFloat"): return cast(x, "float32", name=name)
def to_double(x, name="ToDouble"): return cast(x, "float64", name=name)
def to_int32(x, name="ToInt32"): return cast(x, "int32", name=name)
def to_int64(x, name="ToInt64"): return cast(x, "int64", name=name)


def is_nan(x, name=None):
    """True where ``x`` is NaN (the only value unequal to itself)."""
    with name_scope(name, "IsNan") as scope:   # TF's one op: our parts live in its scope
        x = convert_to_tensor(x)
        return not_equal(x, x, name=scope)


def is_inf(x, name=None):
    with name_scope(name, "IsInf") as scope:
        x = convert_to_tensor(x)
        return equal(abs(x), float("inf"), name=scope)


def is_finite(x, name=None):
    """Neither inf nor NaN (``|x| < inf`` is false for both)."""
    with name_scope(name, "IsFinite") as scope:
        x = convert_to_tensor(x)
        return less(abs(x), float("inf"), name=scope)


def div_no_nan(x, y, name=None):
    """``x / y``, and 0 where ``y`` is 0 (the divisor is replaced there, so the gradient is
    finite too)."""
    with name_scope(name, "div_no_nan") as scope:
        x, y = _operands("RealDiv", x, y)
        x, y = convert_to_tensor(x), convert_to_tensor(y)
        zero = equal(y, 0)
        safe = where(zero, ones_like(y), y)
        return where(zero, zeros_like(realdiv(x, safe)), realdiv(x, safe), name=scope)


def truncatediv(x, y, name=None):
    """Division rounded toward zero (C's ``/``): ``(x - truncatemod(x, y)) // y``."""
    with name_scope(name, "TruncateDiv") as scope:
        x, y = _operands("FloorDiv", x, y)
        return floordiv(subtract(x, truncatemod(x, y)), y, name=scope)


def saturate_cast(value, dtype, name=None):
    """``cast`` that clamps to the target type's range first (no wrap-around)."""
    with name_scope(name, "saturate_cast") as scope:
        x = convert_to_tensor(value)
        dt = _dtypes.as_dtype(dtype)
        if dt._np.kind in "iu" and x.dtype._np.kind in "iuf":
            info = np.iinfo(dt._np)
            lo = max(info.min, np.iinfo(x.dtype._np).min) if x.dtype._np.kind in "iu" else info.min
            hi = min(info.max, np.iinfo(x.dtype._np).max) if x.dtype._np.kind in "iu" else info.max
            x = minimum(maximum(x, lo), hi)
        return cast(x, dt, name=scope)


def softplus(features, name=None):
    """``log(1 + exp(x))``, stable, with gradient ``sigmoid(x)`` (the registry's Softplus);
    ``tf.nn.softplus`` and ``tf.math.softplus``, here for :func:`log_sigmoid`."""
    return apply(REGISTRY["Softplus"], (convert_to_tensor(features),), {}, name=name or "Softplus")


def log_sigmoid(x, name=None):
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``."""
    with name_scope(name, "LogSigmoid") as scope:
        x = convert_to_tensor(x)
        return negative(softplus(negative(x)), name=scope)


def scalar_mul(scalar, x, name=None):
    return multiply(scalar, x, name=name)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype="int64", name=None,
                  reduction_indices=None, keep_dims=None, input=None):  # noqa: A002
    """How many entries are non-zero (along ``axis``), as ``dtype`` (int64 by default)."""
    axis = axis if axis is not None else reduction_indices
    with name_scope(name, "count_nonzero"):    # TF's result: ``count_nonzero/Sum:0`` (int64)
        x = convert_to_tensor(input_tensor if input_tensor is not None else input)
        zero = "" if x.dtype == _dtypes.string else np.zeros((), x.dtype._np)   # TF: zeros([], dtype)
        nz = cast(not_equal(x, zero), "int64")
        total = reduce_sum(nz, axis, keepdims=bool(keepdims or keep_dims))
        return total if _dtypes.as_dtype(dtype) == _dtypes.int64 else cast(total, dtype)


def eye(num_rows, num_columns=None, batch_shape=None, dtype="float32", name=None):
    """The identity matrix (or a batch of them) as a constant."""
    cols = num_rows if num_columns is None else num_columns
    value = np.eye(int(num_rows), int(cols), dtype=_dtypes.as_dtype(dtype)._np)
    if batch_shape is not None:
        value = np.broadcast_to(value, (*[int(d) for d in batch_shape], *value.shape))
    return constant(value, name=name or "eye")


def div(x, y, name=None):
    """TF1's ``tf.div``: Python 2 division -- floor division for integers, else ``x / y``."""
    x, y = _operands("RealDiv", x, y)
    t = tensor_of(x) if tensor_of(x) is not None else convert_to_tensor(y)
    if t.dtype._np.kind in "iu":
        return floordiv(x, y, name=name or "div")
    return realdiv(x, y, name=name or "div")


def in_top_k(predictions=None, targets=None, k=None, name=None):
    """Whether each row's ``targets`` entry is among its ``k`` largest ``predictions`` (ties
    count in its favour, as TF; a row with a non-finite prediction gives False)."""
    with name_scope(name, "in_top_k"):        # TF's result: ``in_top_k/InTopKV2:0``
        p = convert_to_tensor(predictions)
        t = convert_to_tensor(targets)
        depth = p.shape[-1]
        target = reduce_sum(multiply(p, one_hot(t, depth, dtype=p.dtype)), 1, keepdims=True)
        above = reduce_sum(cast(greater(p, target), "int32"), 1)
        finite = reduce_all(is_finite(p), 1)
        return logical_and(less(above, int(k)), finite, name="InTopKV2")

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

from common import REGISTRY
from common.ops.linalg import einsum_equation

from .build import apply, convert_to_tensor
from .ops import _binary, _reduce, _unary, cast

__all__ = ["sin", "cos", "tan", "rsqrt", "log1p", "expm1", "floor", "ceil", "round", "erf",
           "floordiv", "floor_div", "floormod", "mod", "truncatemod", "cumsum", "reduce_prod",
           "reduce_any", "reduce_all", "reduce_logsumexp", "top_k", "sort", "argsort", "einsum"]

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


def floordiv(x, y, name=None):
    """``floor(x / y)``: Python's ``//``."""
    return _binary("FloorDiv", x, y, name or "floordiv")


floor_div = floordiv


def floormod(x, y, name=None):
    """Python's ``%``: the remainder has the sign of ``y``."""
    return _binary("FloorMod", x, y, name)


mod = floormod


def truncatemod(x, y, name=None):
    """C's fmod: the remainder has the sign of ``x``."""
    return _binary("TruncateMod", x, y, name)


def _keep_dtype(out, x):
    return cast(out, x.dtype) if out.dtype != x.dtype else out


def cumsum(x, axis=0, exclusive: bool = False, reverse: bool = False, name=None):
    x = convert_to_tensor(x)
    out = apply(_R["Cumsum"], (x,), {"axis": int(axis), "exclusive": bool(exclusive),
                                     "reverse": bool(reverse)}, name=name)
    return _keep_dtype(out, x)


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None, keep_dims=None):
    x = convert_to_tensor(input_tensor)
    return _keep_dtype(_reduce("Prod", x, axis, keepdims, keep_dims, name), x)


def reduce_any(input_tensor, axis=None, keepdims=False, name=None, keep_dims=None):
    return _reduce("Any", input_tensor, axis, keepdims, keep_dims, name)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None, keep_dims=None):
    return _reduce("All", input_tensor, axis, keepdims, keep_dims, name)


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None, keep_dims=None):
    return _reduce("ReduceLogSumExp", input_tensor, axis, keepdims, keep_dims, name)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """Positions that sort ``values`` (int32, as TF)."""
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f'`direction` must be one of ["ASCENDING", "DESCENDING"]. Received: '
                         f"direction={direction}")
    x = convert_to_tensor(values)
    idx = apply(_R["ArgSort"], (x,), {"axis": int(axis), "descending": direction == "DESCENDING"},
                name=name or "argsort")
    return cast(idx, "int32")


def sort(values, axis=-1, direction="ASCENDING", name=None):
    x = convert_to_tensor(values)
    idx = argsort(x, axis, direction, name=name or "sort")
    return apply(_R["TakeAlongAxis"], (x, idx), {"axis": int(axis)}, name=name or "sort")


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
    return apply(_R["Einsum"], xs, {"equation": eq}, name=name or "einsum")


"""Algebraic simplification: rewrites that give bit-identical results, NaN and Inf included.

::

    x * 1, 1 * x, x / 1           -> x     (when the 1 neither broadcasts x larger nor promotes it)
    x + (-0.0), x - (+0.0)        -> x     (floats; any zero for integers)
    Identity(x), StopGradient(x)  -> x     (forward values are the same object anyway)
    Neg(Neg(x)), Cast(x, x.dtype) -> x
    Transpose(Transpose(x, p), q) -> Transpose(x, p∘q), or x when that is the identity
    Reshape(<reshape-like>(x), s) -> Reshape(x, s);   a reshape to x's own known shape -> x
    BroadcastLike / SumLike / ReshapeLike / BroadcastTo / Squeeze / ExpandDims whose input
    already has the output's fully known shape                                  -> x

Why ``x + 0.0 -> x`` is *not* done for floats: ``-0.0 + 0.0`` is ``+0.0``, so
dropping the add would return ``x = -0.0`` where the unoptimised plan gives
``+0.0``.  Adding ``-0.0`` is exact for every float
(``+0.0 + -0.0 = +0.0``, ``-0.0 + -0.0 = -0.0``, NaN and Inf pass through),
and so is subtracting ``+0.0``.  ``x * 1`` is exact for every IEEE value.
Commutative operands are not reordered (two NaNs' payloads could swap).

"Ones" are a Const of all ones, an ``OnesLike``, or a broadcast/reshape of
either; "zeros" likewise with ``ZerosLike`` (whose zeros are ``+0.0``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from common.shapes import is_known

from ...graph import Operation, Tensor
from .program import Program, is_pure, new_op, static_value

__all__ = ["simplify", "keeps_shape"]

_RESHAPES = frozenset({"Reshape", "ReshapeLike", "ExpandDims", "Squeeze"})
_SPREADS = frozenset({"BroadcastLike", "BroadcastTo", "Reshape", "ReshapeLike", "ExpandDims"})
_SAME_SHAPE_NOOPS = frozenset({"BroadcastLike", "SumLike", "ReshapeLike", "BroadcastTo",
                               "Squeeze", "ExpandDims", "Reshape"})


def keeps_shape(x: Tensor, other: Tensor) -> bool:
    """Is ``broadcast(x, other)`` provably shaped like ``x`` at run time (for any fed sizes)?

    Each dim of ``other`` must be 1, or a known size equal to ``x``'s known size;
    ``other`` may not have more dims than ``x``.
    """
    if other is x:
        return True
    xs, os_ = x._shape, other._shape
    if xs is None or os_ is None or len(os_) > len(xs):
        return False
    return all(o == 1 or (o is not None and o == d) for o, d in zip(os_, xs[len(xs) - len(os_):]))


def _filled(t: Tensor, producers: dict, like: str, test: Callable[[np.ndarray], bool]) -> bool:
    """``t`` is all ``like``-values: a Const passing ``test``, a ``like`` op, or a broadcast of one."""
    op = producers.get(t)
    while op is not None and op.type in _SPREADS and op.op_def is not None:
        op = producers.get(op.inputs[0])
    if op is None:
        return False
    value = static_value(op)
    if value is not None:
        return value.size > 0 and bool(test(np.asarray(value)))
    return op.type == like


def _ones(t, P) -> bool:
    return _filled(t, P, "OnesLike", lambda v: np.all(v == 1))


def _zeros(t, P, negative: bool) -> bool:
    """All zeros whose sign makes ``x + zero`` (negative) or ``x - zero`` exact for t's dtype."""
    if t.np_dtype.kind in "iub":
        return _filled(t, P, "ZerosLike", lambda v: np.all(v == 0))
    if t.np_dtype.kind != "f":
        return False
    if negative:   # ZerosLike gives +0.0: never a negative zero
        return _filled(t, P, "", lambda v: np.all((v == 0) & np.signbit(v)))
    return _filled(t, P, "ZerosLike", lambda v: np.all((v == 0) & ~np.signbit(v)))


def _neutral(op: Operation, x: Tensor, c: Tensor, ok: bool) -> Tensor | None:
    """``x`` if ``c`` is the neutral element (``ok``) and changes neither x's shape nor dtype."""
    out = op.outputs[0]
    if ok and out.np_dtype == x.np_dtype and keeps_shape(x, c):
        return x
    return None


def _either(first: Tensor | None, second: Tensor | None) -> Tensor | None:
    return first if first is not None else second


def _mul(op, a, b, P):
    return _either(_neutral(op, a, b, _ones(b, P)), _neutral(op, b, a, _ones(a, P)))


def _add(op, a, b, P):
    return _either(_neutral(op, a, b, _zeros(b, P, True)), _neutral(op, b, a, _zeros(a, P, True)))


def _sub(op, a, b, P):
    """(numpy refuses ``-`` on bools: that error belongs to the run, so bools are left alone)"""
    return None if a.np_dtype.kind == "b" else _neutral(op, a, b, _zeros(b, P, False))


def _div(op, a, b, P):
    return _neutral(op, a, b, _ones(b, P))


def _pass_through(op, x, P):
    return x


def _neg(op, x, P):
    """-(-x) is x bit for bit (ints wrap both ways); numpy refuses Neg on bools: left alone."""
    inner = P.get(x)
    if inner is None or inner.type != "Neg" or x.np_dtype.kind == "b":
        return None
    return inner.inputs[0]


def _cast(op, x, P):
    return x if x.np_dtype == op.outputs[0].np_dtype else None


def _perm(p, rank: int) -> tuple[int, ...]:
    return tuple(range(rank - 1, -1, -1)) if p is None else tuple(p)


def _transpose(op, x, P):
    rank = x.ndim
    if rank is None:
        return None
    p = _perm(op.attrs.get("perm"), rank)
    inner = P.get(x)
    if inner is not None and inner.type == "Transpose" and is_pure(inner):
        q = _perm(inner.attrs.get("perm"), rank)
        x, p = inner.inputs[0], tuple(q[i] for i in p)
    if p == tuple(range(rank)):
        return x
    if x is op.inputs[0]:
        return None
    out = op.outputs[0]
    return new_op(op, "Transpose", (x,), {"perm": p}, (out._shape, out.np_dtype), "merged")


def _same_shape(op, x, P):
    """A shape op that does nothing: its input already has the output's fully known shape."""
    out = op.outputs[0]
    if is_known(x._shape) and tuple(x._shape) == out._shape and x.np_dtype == out.np_dtype:
        return x
    return None


def _reshape(op, x, P):
    done = _same_shape(op, x, P)
    if done is not None:
        return done
    inner = P.get(x)
    if inner is None or inner.type not in _RESHAPES or not is_pure(inner):
        return None
    out = op.outputs[0]
    return new_op(op, "Reshape", (inner.inputs[0],), dict(op.attrs), (out._shape, out.np_dtype),
                  "merged")


_BINARY = {"Mul": _mul, "Add": _add, "Sub": _sub, "RealDiv": _div}
_UNARY = {"Identity": _pass_through, "StopGradient": _pass_through, "Neg": _neg, "Cast": _cast,
          "Transpose": _transpose, "Reshape": _reshape,
          **{t: _same_shape for t in _SAME_SHAPE_NOOPS - {"Reshape"}}}


def _rewrite(op: Operation, P: dict) -> Tensor | Operation | None:
    if op.type in _BINARY:
        return _BINARY[op.type](op, *op.inputs, P)
    if op.type in _UNARY:
        return _UNARY[op.type](op, op.inputs[0], P)
    return None


def simplify(prog: Program) -> Program:
    """Apply the rules above once, front to back (a rewrite can enable one further down)."""
    producers = prog.producers()
    for i, op in prog.live():
        if op.op_def is None or not is_pure(op):
            continue
        op = prog.ops[i] = prog.resolved(op)
        new = _rewrite(op, producers)
        if new is None:
            continue
        if isinstance(new, Operation):
            prog.ops[i] = new
            producers[new.outputs[0]] = new
            new = new.outputs[0]
        prog.pending[op.outputs[0]] = new
        prog.note(f"simplify: {op.type} '{op.name}' -> {new.name}")
    prog.substitute()
    return prog


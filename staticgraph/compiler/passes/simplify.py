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

Which rule applies to an op is read off its declaration (``OpDef.algebra``:
its neutral elements, ``passthrough``, ``involution``, ``reshape``...), never
from a list of op names here.  "Ones" are a Const of all ones, an op that
``fills`` ones (``OnesLike``), or a broadcast/reshape of either; "zeros"
likewise (``ZerosLike`` fills ``+0.0``).
"""
from __future__ import annotations

import numpy as np

from common.registry import NO_ALGEBRA
from common.shapes import is_known

from ...framework.graph import Operation, Tensor
from .program import Program, is_pure, new_op, static_value

__all__ = ["simplify", "keeps_shape"]


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
    if os_ == xs:                 # the common case, decided without the loop
        return None not in xs
    return all(o == 1 or (o is not None and o == d) for o, d in zip(os_, xs[len(xs) - len(os_):]))


def _algebra(op: Operation | None):
    return op.op_def.algebra if op is not None and op.op_def is not None else NO_ALGEBRA


def _all_equal(t: Tensor, producers: dict, value) -> bool:
    """``t`` is all ``value``: a Const holding only it, an op that ``fills`` it, or a
    broadcast/reshape of either.  A zero matches with its sign for floats (``-0.0 + x``
    is exact, ``+0.0 + x`` is not when x is -0.0); integers have one zero."""
    op = producers.get(t)
    if op is None:                # fed, or computed outside: not known
        return False
    alg = _algebra(op)
    while alg.replicate or alg.reshape:
        op = producers.get(op.inputs[0])
        if op is None:
            return False
        alg = _algebra(op)
    v = static_value(op)
    if v is None:
        v = alg.fills
        if v is None:
            return False
    kind = t.np_dtype.kind
    if kind not in "iuf":
        return False   # bools: numpy refuses some of these ops on them; that error belongs to the run
    v = np.asarray(v)
    if v.size == 0 or not np.all(v == value):
        return False
    return kind != "f" or value != 0 or bool(np.all(np.signbit(v) == np.signbit(value)))


def _neutral(op: Operation, a: Tensor, b: Tensor, P: dict) -> Tensor | None:
    """``x op e`` or ``e op x`` -> ``x`` when ``e`` is the op's identity element on that side
    and changes neither x's shape nor its dtype."""
    left, right = op.op_def.algebra.neutral
    out = op.outputs[0]
    for x, e, value in ((a, b, right), (b, a, left)):
        if value is not None and _all_equal(e, P, value) and out.np_dtype == x.np_dtype \
                and keeps_shape(x, e):
            return x
    return None


def _involution(op, x, P):
    """f(f(x)) is x bit for bit (ints wrap both ways); bools are left alone (numpy refuses Neg)."""
    inner = P.get(x)
    if inner is None or inner.kind != op.kind or x.np_dtype.kind == "b":
        return None
    return inner.inputs[0]


def _same_dtype(op, x, P):
    return x if x.np_dtype == op.outputs[0].np_dtype else None


def _perm(p, rank: int) -> tuple[int, ...]:
    return tuple(range(rank - 1, -1, -1)) if p is None else tuple(p)


def _transpose(op, x, P):
    """Two permutations compose into one; the identity permutation disappears."""
    rank = x.ndim
    if rank is None:
        return None
    p = _perm(op.attrs.get("perm"), rank)
    inner = P.get(x)
    if inner is not None and inner.kind == op.kind and is_pure(inner):
        q = _perm(inner.attrs.get("perm"), rank)
        x, p = inner.inputs[0], tuple(q[i] for i in p)
    if p == tuple(range(rank)):
        return x
    if x is op.inputs[0]:
        return None
    out = op.outputs[0]
    return new_op(op, op.kind, (x,), {"perm": p}, (out._shape, out.np_dtype), "merged")


def _same_shape(op, x, P):
    """A shape op that does nothing: its input already has the output's fully known shape."""
    out = op.outputs[0]
    if is_known(x._shape) and tuple(x._shape) == out._shape and x.np_dtype == out.np_dtype:
        return x
    return None


def _reshape(op, x, P):
    """A reshape of a reshape is one reshape of the original (the outer op's target shape)."""
    done = _same_shape(op, x, P)
    if done is not None or "shape" not in op.attrs:
        return done
    inner = P.get(x)
    if inner is None or not _algebra(inner).reshape or not is_pure(inner):
        return None
    out = op.outputs[0]
    return new_op(op, op.kind, (inner.inputs[0],), dict(op.attrs), (out._shape, out.np_dtype),
                  "merged")


def _rewrite(op: Operation, P: dict) -> Tensor | Operation | None:
    """The rule the op's declared algebra allows (the first that applies)."""
    alg = op.op_def.algebra
    if alg.neutral != (None, None):
        return _neutral(op, *op.inputs, P)
    x = op.inputs[0] if op.inputs else None
    if alg.passthrough:
        return x
    if alg.involution:
        return _involution(op, x, P)
    if alg.same_dtype_noop:
        return _same_dtype(op, x, P)
    if alg.permutes:
        return _transpose(op, x, P)
    if alg.reshape and alg.replicate:     # a true reshape: the target shape is an attribute
        return _reshape(op, x, P)
    if alg.same_shape_noop:
        return _same_shape(op, x, P)
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


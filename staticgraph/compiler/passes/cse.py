"""Common-subexpression elimination: the same pure op on the same inputs is computed once.

::

    %a = Mul(%x, %y)  ...  %b = Mul(%x, %y)    -->    %a = Mul(%x, %y);  uses of %b read %a

Two ops match when their type, input tensors (by identity, in order),
attributes (value *and* type: ``1`` and ``1.0`` differ) and output specs are
equal.  Small constants match by dtype, shape and bytes.  Operand order is
kept as written: ``Add(x, y)`` and ``Add(y, x)`` are not merged (with two NaN
operands the result's payload depends on the order).  Ops are visited in
order, so the kept op always comes first and dominates the merged ones.
"""
from __future__ import annotations

from typing import Any, Hashable

import numpy as np

from ...framework.graph import Operation
from .program import Program, is_pure

__all__ = ["cse"]

MAX_CONST_BYTES = 1024
"""Constants larger than this are not compared byte by byte (the cost outweighs the gain)."""


def _attr_key(v: Any) -> Hashable:
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, tuple(_attr_key(i) for i in v))
    hash(v)
    return (type(v).__name__, v)


def _key(op: Operation) -> Hashable | None:
    """What makes two ops interchangeable, or None when ``op`` must not be merged."""
    outs = tuple([(t._shape, id(t._dtype)) for t in op.outputs])   # DTypes are interned
    if op.kind == "Const":
        v = op.attrs["value"]
        if not isinstance(v, np.ndarray) or v.nbytes > MAX_CONST_BYTES:
            return None
        return ("Const", v.dtype, v.shape, v.tobytes(), outs)
    try:
        attrs = tuple(sorted([(k, _attr_key(v)) for k, v in op.attrs.items()])) if op.attrs else ()
    except TypeError:
        return None
    return (op.kind, tuple([id(t) for t in op.inputs]), attrs, outs)


def cse(prog: Program) -> Program:
    """Merge every op into the first earlier op with the same key."""
    seen: dict[Hashable, Operation] = {}
    for i, op in prog.live():
        op = prog.ops[i] = prog.resolved(op)
        if not is_pure(op):
            continue
        key = _key(op)
        if key is None:
            continue
        first = seen.setdefault(key, op)   # every part is hashable (_attr_key checked)
        if first is not op:
            for old, new in zip(op.outputs, first.outputs):
                prog.pending[old] = new
            prog.note(f"cse: {op.type} '{op.name}' = '{first.name}'")
    prog.substitute()
    return prog

"""Constant folding: a pure op whose inputs are all known now is computed now, once.

::

    %c = Const(2.0)   %d = Const(3.0)   %e = Mul(%c, %d)   -->   %e/folded = Const(6.0)
    %o = OnesLike(%y)        # y: float32[20, 1], fully known   -->   Const(ones (20, 1))

"Known now" means a Const input, or an input the kernel reads only for its
shape and dtype (the ``*Like`` refs, ``OnesLike``'s argument...) whose static
shape is fully known: it is stood in for by a :class:`common.ShapeRef`.

Folding must not change what a run does, so an op is left alone when its
result would exceed the size cap (a big constant costs memory for the
plan's lifetime), when numpy would warn or raise while computing it (the
warning or error belongs to the run, as before), or when the computed dtype
or shape disagrees with the op's static spec.
"""
from __future__ import annotations

import math

import numpy as np

from common import ShapeRef
from common.shapes import is_known, refines

from ...framework.graph import Operation, Tensor
from .program import Program, frozen, is_pure, new_op, static_value

__all__ = ["fold"]


def _known_input(op: Operation, i: int, t: Tensor, producers: dict):
    """The value to fold ``t`` with, or None when it is not known at compile time."""
    if op.op_def.reads_shape_only(i) and is_known(t._shape):
        return ShapeRef(tuple(t._shape), t.np_dtype)
    return static_value(producers.get(t))


def _known_inputs(op: Operation, prog: Program, producers: dict) -> list | None:
    """Every input's value to fold ``op`` with, or None as soon as one is not known."""
    args = []
    for k, t in enumerate(op.inputs):
        a = _known_input(op, k, prog.resolve(t), producers)
        if a is None:
            return None
        args.append(a)
    return args


def _compute(op: Operation, args: list, cap: int) -> np.ndarray | None:
    """``op``'s kernel on ``args``; None when it warns, raises or breaks its static spec.

    Called inside ``np.errstate(all="raise")`` (see :func:`fold`): a warning is an error here.
    """
    out = op.outputs[0]
    if out._shape is not None and None not in out._shape and math.prod(out._shape) > cap:
        return None
    try:
        value = np.asarray(op.op_def.impl(*args, **op.attrs))
    except Exception:  # noqa: BLE001  (whatever it is, the run raises it, not the compiler)
        return None
    if value.dtype != out.np_dtype or value.size > cap or (
            value.shape != out._shape and not refines(value.shape, out._shape)):
        return None
    if op.op_def.aliases or not value.flags.owndata:
        return frozen(value)     # it may share memory with an input: a private copy
    value.setflags(write=False)  # a new array (an op declaring no aliases returns one)
    return value


_DTYPE_TEXT: dict = {}


def _text(dtype: np.dtype) -> str:
    """``str(dtype)``, remembered (numpy computes it in Python on every call)."""
    text = _DTYPE_TEXT.get(dtype)
    if text is None:
        text = _DTYPE_TEXT[dtype] = str(dtype)
    return text


def fold(prog: Program) -> Program:
    """Replace every foldable op by a Const holding its (read-only) value."""
    producers = prog.producers()
    # np.errstate is context-local: other threads' runs keep their warnings.
    with np.errstate(all="raise"):
        for i, op in prog.live():
            if op.op_def is None or not is_pure(op) or len(op.outputs) != 1:
                continue
            args = _known_inputs(op, prog, producers)
            if args is None:
                continue
            value = _compute(op, args, prog.max_fold_elements)
            if value is None:
                continue
            const = new_op(op, "Const", (), {"value": value}, (value.shape, value.dtype), "folded")
            prog.ops[i] = const
            producers[const.outputs[0]] = const
            prog.pending[op.outputs[0]] = const.outputs[0]
            prog.note(f"fold: {op.type} '{op.name}' -> constant {_text(value.dtype)}{list(value.shape)}")
    prog.substitute()
    return prog

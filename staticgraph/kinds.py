"""How each node type becomes a run-time function (its *kernel*).

A registry op's kernel is its numpy ``impl`` with the attributes bound.  The
engine's structural kinds (Placeholder, Const, VariableV2, Assign*, NoOp,
Print...) have their own lowerings here, registered by type name.  Control
flow (issue 5) registers its kinds the same way: a ``While`` lowering compiles
its body sub-graph into a plan once (``compiler.compile_plan``) and returns a
kernel that calls it; captured outer tensors are ordinary extra inputs.

A lowering is ``lower(op, state) -> kernel | CONST | None``:

* a kernel is ``kernel(*input_values) -> value`` (a tuple for several
  outputs; None for no outputs);
* ``Const(value)`` tells the planner the output is a constant, no step;
* ``None``: nothing to run (NoOp: it only orders its control inputs).
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable, NamedTuple

import numpy as np

from .errors import FailedPreconditionError, InvalidArgumentError
from .graph import Operation

__all__ = ["register_kind", "lower", "SessionState", "Constant"]


class SessionState:
    """What kernels share across runs of one Session: variable values by variable name, and
    each random op's generator (so every plan that runs the op continues one sequence)."""

    __slots__ = ("variables", "generators")

    def __init__(self):
        self.variables: dict[str, np.ndarray] = {}
        self.generators: dict = {}

    def generator(self, op: Operation) -> np.random.Generator:
        key = (op.graph, op.name)  # a pass's clone of the op shares its generator
        gen = self.generators.get(key)
        if gen is None:
            from common.ops.random import generator  # noqa: PLC0415
            gen = self.generators[key] = generator(op.attrs.get("seed"), op.attrs.get("seed2"))
        return gen


class Constant(NamedTuple):
    value: Any


_LOWERINGS: dict[str, Callable] = {}


def register_kind(type_name: str):
    """Decorator: ``@register_kind("While") def lower(op, state): ...``."""
    def deco(fn):
        _LOWERINGS[type_name] = fn
        return fn
    return deco


def lower(op: Operation, state: SessionState):
    """The kernel for ``op`` (see module docstring for the three possible answers)."""
    if op.op_def is not None:
        if op.op_def.stateful and "rng" in op.op_def.defaults:
            return functools.partial(op.op_def.impl, rng=state.generator(op), **op.attrs)
        return functools.partial(op.op_def.impl, **op.attrs) if op.attrs else op.op_def.impl
    try:
        return _LOWERINGS[op.type](op, state)
    except KeyError:
        raise NotImplementedError(f"no lowering for node type {op.type!r} ({op.name})") from None


# --- sources -------------------------------------------------------------------------

@register_kind("Const")
def _const(op, state):
    return Constant(op.attrs["value"])


@register_kind("Placeholder")
def _placeholder(op, state):
    """Runs only when not fed (a fed tensor is pruned away): always an error."""
    out = op.outputs[0]
    shape = "" if out._shape is None else " and shape [" + ",".join(
        "?" if d is None else str(d) for d in out._shape) + "]"
    msg = (f"You must feed a value for placeholder tensor '{op.name}' with dtype "
           f"{out.dtype.tf_name}{shape}\n\t [[{{{{node {op.name}}}}}]]")

    def unfed():
        raise InvalidArgumentError(None, op, msg)
    return unfed


@register_kind("PlaceholderWithDefault")
def _placeholder_with_default(op, state):
    return _identity


def _identity(x):
    return x


@register_kind("NoOp")
def _no_op(op, state):
    return None


# --- variables -------------------------------------------------------------------

def _reader(op, var_name: str, store: dict):
    msg = f"Attempting to use uninitialized value {var_name}\n\t [[{{{{node {op.name}}}}}]]"

    def read():
        try:
            return store[var_name]
        except KeyError:
            raise FailedPreconditionError(None, op, msg) from None
    return read


@register_kind("VariableV2")
def _variable(op, state):
    return _reader(op, op.name, state.variables)


@register_kind("ReadVariableOp")
def _read_variable(op, state):
    return _reader(op, op.attrs["var"], state.variables)


@register_kind("Assign")
def _assign(op, state):
    store, name, dtype = state.variables, op.attrs["var"], op.outputs[0].np_dtype

    def assign(value):
        value = np.array(value, dtype=dtype)  # a private copy: fetched values never alias state
        store[name] = value
        return value
    return assign


def _update(ufunc):
    def lowering(op, state):
        store, name = state.variables, op.attrs["var"]
        read = _reader(op, name, store)

        def update(delta):
            value = ufunc(read(), delta)
            store[name] = value
            return value
        return update
    return lowering


register_kind("AssignAdd")(_update(np.add))
register_kind("AssignSub")(_update(np.subtract))


# --- printing ----------------------------------------------------------------------

@register_kind("Print")
def _print(op, state):
    """tf.Print: passes ``input_`` through, printing ``message`` and ``data`` to stderr."""
    message, summarize = op.attrs["message"], op.attrs["summarize"]
    first_n, count = op.attrs["first_n"], [0]

    def kernel(x, *data):
        count[0] += 1
        if first_n is None or first_n < 0 or count[0] <= first_n:
            items = " ".join(_summary(d, summarize) for d in data)
            print(f"{message}{items}", file=sys.stderr)
        return x
    return kernel


def _summary(value, summarize: int | None) -> str:
    a = np.asarray(value)
    n = 3 if summarize is None else summarize
    flat = a.reshape(-1)
    items = " ".join(str(v) for v in flat[:n]) + ("..." if flat.size > n else "")
    return f"[{items}]" if a.ndim else str(a)


@register_kind("PrintV2")
def _print_v2(op, state):
    """tf.print: formats its inputs (tensors and Python values) like numpy and prints them."""
    template, stream, end = op.attrs["template"], op.attrs["output_stream"], op.attrs["end"]

    def kernel(*values):
        parts = iter(np.array2string(np.asarray(v), separator=" ") if np.ndim(v) else str(v)
                     for v in values)
        text = " ".join(next(parts) if t is None else t for t in template)
        print(text, file=sys.stdout if stream == "stdout" else sys.stderr, end=end)
    return kernel

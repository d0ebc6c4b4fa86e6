"""What converted code calls: one helper per statement kind, deciding at trace time.

::

    while first < second:        (first, second) = _ag__.while_stmt(
        first += 2          ->        test, body, (first, second), ("first", "second"), ...)
        second += 1

    test(*vars) is a symbolic Tensor?  yes -> ONE while_loop node (body built once)
                                       no  -> a plain Python loop, run now (at trace time)

``if_stmt`` does the same with ``cond``, ``for_range`` with a counter loop,
``for_stmt`` with a loop over a tensor's first dimension.
A variable not yet defined when the statement starts is passed as
:data:`UNDEFINED`; a graph loop or branch cannot carry it, so if it is used
afterwards the helper raises :class:`AutoGraphError` saying what to write.
"""
from __future__ import annotations

import builtins
from typing import Any, Callable, Sequence

import numpy as np

from common import REGISTRY

from ..framework import dtypes as _dtypes
from ..framework.build import apply, convert_to_tensor
from ..control.control_flow import cond, while_loop
from ..framework.graph import SubGraph, Tensor, get_default_graph
from ..ops.core_ops import cast, logical_and, logical_not, logical_or

__all__ = ["AutoGraphError", "LoopTypeChangedError", "UNDEFINED", "ld", "while_stmt", "if_stmt", "for_range", "for_stmt",
           "py_test", "is_symbolic", "and_", "or_", "not_"]


class AutoGraphError(ValueError):
    """A Python construct that cannot become graph control flow; the message says what to rewrite."""


class LoopTypeChangedError(AutoGraphError, NotImplementedError):
    """A Python loop whose condition became a tensor (TF raises ``NotImplementedError``)."""


class _Undefined:
    """The value of a variable that has no value yet when a statement starts.

    If it is still undefined afterwards (the Python branch or loop that would
    assign it did not run), using it fails as Python would have.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "<undefined>"

    def _used(self, *args: Any) -> Any:
        raise UnboundLocalError("a variable is used before it is assigned: the branch or loop "
                                "that assigns it did not run (AutoGraph keeps it undefined)")

    __bool__ = __array__ = __iter__ = __len__ = __call__ = __getitem__ = _used
    __float__ = __int__ = __index__ = __neg__ = __abs__ = _used
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _used
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _used
    __lt__ = __le__ = __gt__ = __ge__ = _used


UNDEFINED = _Undefined()


def ld(thunk: Callable[[], Any]) -> Any:
    """The current value of a variable (``lambda: x``), or UNDEFINED if it has none yet."""
    try:
        return thunk()
    except NameError:  # includes UnboundLocalError
        return UNDEFINED


def is_symbolic(x: Any) -> bool:
    return isinstance(x, Tensor) or hasattr(x, "_as_graph_element")


RETURN_IN_LOOP = ("a return statement cannot be placed inside this TensorFlow loop; this may "
                  "happen if a return statement depends on a static Python condition such as a "
                  "hyperparameter")
"""TF AutoGraph's NotImplementedError for ``return`` inside a loop over tensors."""


def py_test(value: Any, reason: str, where: str, loop: bool = False) -> Any:
    """The test of a statement left as Python: fine on Python values, an error on a tensor.

    A loop over tensors with a ``return`` in it is refused as TF refuses it
    (``NotImplementedError``, TF's wording, then where and what to write).
    """
    if is_symbolic(value):
        if loop and "contains `return`" in reason:
            raise NotImplementedError(f"{RETURN_IN_LOOP}\n  at {where}: {reason}.")
        raise AutoGraphError(f"{where}: this statement's condition is a tensor, so it would have "
                             f"to become graph control flow, but {reason}.")
    return value


# --- and / or / not in a converted test -------------------------------------------------------

def and_(left: Any, right: Callable[[], Any]) -> Any:
    """``a and b``: ``logical_and`` if ``a`` is a tensor, Python's short circuit otherwise."""
    if is_symbolic(left):
        return logical_and(left, right())
    return left and right()


def or_(left: Any, right: Callable[[], Any]) -> Any:
    """``a or b``: ``logical_or`` if ``a`` is a tensor, Python's short circuit otherwise."""
    if is_symbolic(left):
        return logical_or(left, right())
    return left or right()


def not_(x: Any) -> Any:
    return logical_not(x) if is_symbolic(x) else not x


# --- loop state: the variables a graph loop carries -----------------------------------------

def _carried(kind: str, names: Sequence[str], init: Sequence[Any], needed: Sequence[bool],
             where: str) -> list[int]:
    """Indices of the variables the graph loop carries; refuse a needed one that has no value."""
    keep = []
    for i, (n, v, need) in enumerate(zip(names, init, needed)):
        if v is not UNDEFINED:
            keep.append(i)
        elif need:
            raise AutoGraphError(
                f"{where}: '{n}' is first assigned inside the {kind} body but is used after the "
                f"loop or in its condition; a graph loop needs every loop variable to have a "
                f"value (and a dtype and shape) before it starts: initialize '{n}' before the "
                f"loop (e.g. {n} = tf.zeros_like(...)).")
    return keep


def _tensor(name: str, v: Any, where: str) -> Tensor:
    """A loop variable as a tensor: tensors as they are, numbers (and arrays of them) as constants."""
    if is_symbolic(v):
        return v
    try:
        numeric = np.asarray(v).dtype.kind in "biuf"
    except (TypeError, ValueError):
        numeric = False
    if not numeric:
        raise AutoGraphError(f"{where}: loop variable '{name}' holds {type(v).__name__} {v!r}, "
                             f"which a graph loop cannot carry (only tensors and numbers); "
                             f"compute it outside the loop, or make it a tensor.")
    return convert_to_tensor(v)


def _go_on(extra: Callable | None, state: Sequence[Any], where: str) -> bool:
    """A Python for loop's extra test (its break flag): refused once it is a tensor, as TF does."""
    if extra is None:
        return True
    ok = extra(*state)
    if is_symbolic(ok):
        raise LoopTypeChangedError(
            f"break and return statements which depend on a TF condition are not supported in "
            f"Python for loops. Did you intend to make it a TF loop?\n  at {where}: this loop "
            f"runs in Python (it iterates over a Python value) but its `break` depends on a "
            f"tensor; iterate over a tensor (tf.range / a tensor bound) so it becomes a graph "
            f"loop, or move the exit test out of the loop.")
    return ok


def _expand(n: int, keep: list[int], vals: Sequence[Any]) -> list[Any]:
    full = [UNDEFINED] * n
    for i, v in zip(keep, vals):
        full[i] = v
    return full


def _graph_loop(test: Callable, body: Callable, init: Sequence[Any], names: Sequence[str],
                keep: list[int], where: str, extra: Sequence[Any] = ()) -> list[Any]:
    """``while_loop`` over the kept variables (+ ``extra`` leading ones); UNDEFINED elsewhere.

    ``test(extra, vars)`` and ``body(extra, vars) -> (extra', vars')`` see all variables.
    """
    n, k = len(names), len(extra)
    if not keep and not extra:
        raise AutoGraphError(f"{where}: the loop's condition is a tensor but the loop changes no "
                             f"variable, so as a graph loop it could never stop.")
    carried = [*extra, *(_tensor(names[i], init[i], where) for i in keep)]

    def g_test(*vals):
        return test(vals[:k], _expand(n, keep, vals[k:]))

    def g_body(*vals):
        new_extra, new = body(vals[:k], _expand(n, keep, vals[k:]))
        return (*new_extra, *(new[i] for i in keep))

    out = while_loop(g_test, g_body, carried, return_same_structure=True)
    result = list(init)
    for i, v in zip(keep, out[k:]):
        result[i] = v
    return [*out[:k], *result]


# --- while ---------------------------------------------------------------------------------

def while_stmt(test: Callable, body: Callable, init: tuple, names: tuple, needed: tuple,
               where: str) -> tuple:
    """A converted ``while``: a graph loop if the test is a tensor, a Python loop otherwise.

    The test is first evaluated in a throwaway sub-graph (as TF does, to see
    what it returns), so deciding adds no dead comparison node to the graph.
    """
    with SubGraph(get_default_graph(), "probe").as_default():  # the probe adds no node here
        first = test(*init)
    if is_symbolic(first):
        keep = _carried("while loop", names, init, needed, where)
        return tuple(_graph_loop(lambda _, v: test(*v), lambda _, v: ((), body(*v)),
                                 init, names, keep, where))
    state, ok = init, first
    while ok:
        state = body(*state)
        ok = test(*state)
        if is_symbolic(ok):
            raise LoopTypeChangedError(
                f"The condition of while loop started as non-Tensor, then changed to Tensor. This "
                f"may happen either because variables changed type, or when a break or return "
                f"statement inside the loop depends on a Tensor condition. In both cases, "
                f"changing to a TF loop should remove the error.\n  at {where}: the while "
                f"condition was a Python value when the loop started but became a tensor inside "
                f"it (a loop variable was assigned a tensor in the body, or a `break` depends on "
                f"a tensor); make the loop variables tensors before the loop (or write the exit "
                f"test into the while condition) so the whole loop becomes a graph loop.")
    return state


# --- if ------------------------------------------------------------------------------------

def if_stmt(pred: Any, true_fn: Callable, false_fn: Callable, init: tuple, names: tuple,
            live: tuple, where: str) -> tuple:
    """A converted ``if``: ``cond`` if ``pred`` is a tensor, a Python ``if`` otherwise.

    Only the variables used after the ``if`` (``live``) become outputs of the
    graph ``cond``; both branches must give each of them a value.
    """
    if not is_symbolic(pred):
        return true_fn(*init) if pred else false_fn(*init)
    outs = [i for i, flag in enumerate(live) if flag]

    def branch(fn: Callable, label: str) -> Callable:
        def build():
            result = fn(*init)
            for i in outs:
                if result[i] is UNDEFINED:
                    raise AutoGraphError(
                        f"{where}: '{names[i]}' is assigned only in the {_other(label)} branch of "
                        f"this if (its condition is a tensor), but is used after it; in a graph "
                        f"both branches must produce it: assign '{names[i]}' in the {label} "
                        f"branch too, or before the if.")
            return tuple(result[i] for i in outs)
        return build

    if not outs:
        raise AutoGraphError(f"{where}: this if's condition is a tensor but neither branch "
                             f"assigns a variable used after it (side effects such as print() "
                             f"run only once, at trace time); compute a value in both branches "
                             f"and use it, or use tf.print.")
    values = cond(pred, branch(true_fn, "if"), branch(false_fn, "else"), strict=True)
    result = list(init)
    for i, v in zip(outs, values):
        result[i] = v
    return tuple(result)


def _other(label: str) -> str:
    return "if" if label == "else" else "else"


# --- for i in range(...) -------------------------------------------------------------------

def for_range(rng: Callable, args: tuple, extra: Callable | None, body: Callable, init: tuple,
              names: tuple, needed: tuple, where: str) -> tuple:
    """A converted ``for i in range(*args)``: a counter while_loop if a bound is a tensor.

    ``extra(*vars)``, when given, is tested before each iteration too (a
    ``break`` flag).  Returns the final variables followed by the last index
    (None if the loop never ran, in Python; the start value in a graph loop
    that never ran).
    """
    if rng is not builtins.range or not any(is_symbolic(a) for a in args):
        state, last = init, None
        for i in rng(*args):
            if not _go_on(extra, state, where):
                break
            state, last = body(i, *state), i
        return (*state, last)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    if is_symbolic(step) or not isinstance(step, int) or step == 0:
        raise AutoGraphError(f"{where}: a tensor range's step must be a nonzero Python int "
                             f"(got {step!r}); the loop direction is decided at trace time.")
    bound = stop if is_symbolic(stop) else start
    start, stop = (convert_to_tensor(a, dtype=bound.dtype) if not is_symbolic(a) else a
                   for a in (start, stop))
    keep = _carried("for loop", names, init, needed, where)

    def test(counters, v):
        more = counters[0] < stop if step > 0 else counters[0] > stop
        return more if extra is None else and_(more, lambda: extra(*v))

    def step_body(counters, v):
        return (counters[0] + step, counters[0]), body(counters[0], *v)

    out = _graph_loop(test, step_body, init, names, keep, where, extra=(start, start))
    return (*out[2:], out[1])


# --- for x in xs ---------------------------------------------------------------------------

def for_stmt(iterable: Any, extra: Callable | None, body: Callable, init: tuple, names: tuple,
             needed: tuple, where: str, item_after: bool = False) -> tuple:
    """A converted ``for x in xs``: over a tensor, one while_loop along its first dimension
    (``x = xs[i]`` for ``i`` from 0 while ``i < xs.shape[0]``); anything else, Python's loop.

    Returns the final variables followed by the last item (UNDEFINED when a
    Python loop never ran).  After a graph loop the last item is
    ``xs[iterations - 1]``, built only if the code after the loop reads it
    (``item_after``), as TF gives it.
    """
    if not is_symbolic(iterable):
        state, last = init, UNDEFINED
        for item in iterable:
            if not _go_on(extra, state, where):
                break
            state, last = body(item, *state), item
        return (*state, last)
    xs = convert_to_tensor(iterable)
    if xs._shape is not None and len(xs._shape) == 0:
        raise AutoGraphError(f"len requires a non-scalar tensor, got one of shape {xs.shape}\n"
                             f"  at {where}: a loop over a tensor runs along its first "
                             f"dimension; {xs.name} is a scalar.")
    n = xs._shape[0] if xs._shape is not None and xs._shape[0] is not None else \
        cast(apply(REGISTRY["ReduceSize"], (xs,), {"axis": 0}), _dtypes.int32)
    keep = _carried("for loop", names, init, needed, where)

    def test(counters, v):
        more = counters[0] < n
        return more if extra is None else and_(more, lambda: extra(*v))

    def step_body(counters, v):
        i = counters[0]
        return (i + 1,), body(xs[i], *v)

    out = _graph_loop(test, step_body, init, names, keep, where,
                      extra=(convert_to_tensor(0, dtype=_dtypes.int32),))
    return (*out[1:], xs[out[0] - 1] if item_after else UNDEFINED)

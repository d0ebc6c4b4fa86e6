"""Stage 1: keep only the operations the fetches need.

Walks backwards from the fetched tensors and operations along data inputs and
control inputs, stopping at fed tensors (any tensor may be fed, and a fed
tensor's producer is then not needed -- also as a control input: its value is
given, so nothing remains to wait for, as when a loop body's op depends on a
loop variable with ``control_dependencies``).  Iterative, so deep graphs are fine.

A ``while_loop`` or ``cond`` node computes each of its outputs separately, as TF's lowered
form does (a loop variable is its own ``Enter -> Merge -> Switch -> Exit`` chain, a cond
result its own ``Merge``), so a fetch of one loop variable needs only that variable's chain
-- through the body, across iterations -- and what the condition reads::

    s0 = v.assign_add(1.)                      fetch i:  the loop computes i only (its
    with control_dependencies([s0]):                     condition reads i alone), so the
        a0 = tf.identity(v)                              initial a -- and s0 -- never run:
    i, a = while_loop(lambda i, a: i < n,                TF 2.21 leaves v alone too
                      lambda i, a: [i + 1, 1.], [0, a0])

:func:`prune` keeps such a node whole (cheap, one walk); :func:`narrowed` then replaces it
by a clone computing only the outputs needed (its kind's ``narrow``) and drops the ops
only its other outputs needed.  :func:`pruned_order` does both (:func:`pruned`: as a set).
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

from ..framework.graph import Operation, Tensor
from ..framework.kinds import KINDS
from .order import topological_order

__all__ = ["prune", "narrowed", "pruned_order", "pruned"]


def prune(fetches: Iterable[Tensor | Operation], fed: set[Tensor]) -> set[Operation]:
    """The set of operations that must run to produce ``fetches`` given ``fed`` (a control-flow
    node whole: see :func:`narrowed` for what it needs of its inputs)."""
    needed: set[Operation] = set()
    stack = [f.op if isinstance(f, Tensor) else f for f in fetches
             if not (isinstance(f, Tensor) and f in fed)]
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        for t in op.inputs:
            if t not in fed and t.op not in needed:
                stack.append(t.op)
        if op.control_inputs:
            stack.extend(c for c in op.control_inputs if c not in needed and not _given(c, fed))
    return needed


def _given(op: Operation, fed: set[Tensor]) -> bool:
    """Is every output of ``op`` fed?  Then nothing waits for it (see the module docstring)."""
    return bool(op.outputs) and all(t in fed for t in op.outputs)


def _narrowing() -> dict[str, Callable[[Operation, frozenset], Operation]]:
    """Node kind -> its ``narrow``, for the kinds that compute their outputs separately."""
    return {name: kind.narrow for name, kind in KINDS.items() if kind.narrow is not None}


def _any_narrowable(ops: Iterable[Operation], narrowing: dict) -> bool:
    return any(op.kind in narrowing for op in ops)


def narrowed(order: list[Operation], fetches: Sequence[Tensor | Operation],
             fed: set[Tensor]) -> list[Operation]:
    """``order`` (pruned for ``fetches``, topological) with each control-flow node narrowed to
    the outputs something needs, and without the ops only its unneeded outputs needed.

    One backward sweep: when a node is reached every consumer of it has been seen, so
    which of its outputs are needed is known.  A node fetched as an operation, or waited
    for with ``control_dependencies``, is needed whole (TF: it then waits for every Exit),
    and narrowed still (to the inputs its outputs read).  Without a narrowable node in
    ``order`` (the common case: one look at each op's kind), ``order`` itself.
    """
    narrowing = _narrowing()
    if not _any_narrowable(order, narrowing):
        return order
    wanted = {f for f in fetches if isinstance(f, Tensor) and f not in fed}
    whole = {f for f in fetches if isinstance(f, Operation)}
    kept: list[Operation] = []
    for op in reversed(order):
        if op in whole:
            outs = frozenset(range(len(op.outputs)))
        else:
            outs = frozenset(k for k, t in enumerate(op.outputs) if t in wanted)
            if not outs:
                continue                # only what a narrowed node no longer reads needed it
        narrow = narrowing.get(op.kind)
        if narrow is not None:
            op = narrow(op, outs)
        kept.append(op)
        wanted.update(t for t in op.inputs if t not in fed)
        whole.update(c for c in op.control_inputs if not _given(c, fed))
    kept.reverse()
    return kept


def pruned_order(fetches: Sequence[Tensor | Operation], fed: set[Tensor]) -> list[Operation]:
    """What must run for ``fetches`` given ``fed``, in execution order, control-flow nodes
    narrowed to the outputs needed: :func:`prune`, :func:`.order.topological_order`,
    :func:`narrowed`."""
    return narrowed(topological_order(prune(fetches, fed)), fetches, fed)


def pruned(fetches: Sequence[Tensor | Operation], fed: set[Tensor]) -> set[Operation]:
    """What must run for ``fetches`` given ``fed``, as a set (control-flow nodes narrowed):
    :func:`pruned_order` without ordering when no narrowable node is among them."""
    needed = prune(fetches, fed)
    if not _any_narrowable(needed, _narrowing()):
        return needed
    return set(narrowed(topological_order(needed), fetches, fed))

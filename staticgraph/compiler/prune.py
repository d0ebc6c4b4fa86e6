"""Stage 1: keep only the operations the fetches need.

Walks backwards from the fetched tensors and operations along data inputs and
control inputs, stopping at fed tensors (any tensor may be fed, and a fed
tensor's producer is then not needed -- also as a control input: its value is
given, so nothing remains to wait for, as when a loop body's op depends on a
loop variable with ``control_dependencies``).  Iterative, so deep graphs are fine.
"""
from __future__ import annotations

from typing import Iterable

from ..graph import Operation, Tensor

__all__ = ["prune"]


def prune(fetches: Iterable[Tensor | Operation], fed: set[Tensor]) -> set[Operation]:
    """The set of operations that must run to produce ``fetches`` given ``fed``."""
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
            stack.extend(c for c in op.control_inputs
                         if c not in needed and not (c.outputs and all(t in fed for t in c.outputs)))
    return needed

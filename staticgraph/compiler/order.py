"""Stage 2: a deterministic topological order (Kahn's algorithm, ties by creation order).

Creation order is already topological for graphs built front to back, but
passes may add nodes later; Kahn's algorithm stays correct and also reports a
cycle instead of looping.  The heap keyed by creation index makes the order
reproducible (no hash-ordered sets decide what runs first).
"""
from __future__ import annotations

import heapq

from ..graph import Operation

__all__ = ["topological_order"]


def _deps(op: Operation, ops: set[Operation]) -> set[Operation]:
    return {t.op for t in op.inputs if t.op in ops} | {c for c in op.control_inputs if c in ops}


def topological_order(ops: set[Operation]) -> list[Operation]:
    """``ops`` sorted so every op comes after the ops it depends on (inside ``ops``)."""
    waiting = {op: len(_deps(op, ops)) for op in ops}
    users: dict[Operation, list[Operation]] = {op: [] for op in ops}
    for op in ops:
        for d in _deps(op, ops):
            users[d].append(op)
    ready = [(op.index, op) for op, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, op = heapq.heappop(ready)
        order.append(op)
        for u in users[op]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, (u.index, u))
    if len(order) != len(ops):
        stuck = sorted(op.name for op, n in waiting.items() if n > 0)
        raise ValueError(f"the graph has a cycle through: {stuck}")
    return order

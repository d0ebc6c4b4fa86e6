"""Stage 2: a deterministic topological order (Kahn's algorithm, ties by creation order).

An op comes after everything it depends on:

* its data inputs and its control inputs (``control_dependencies``);
* **read/write hazards**: two ops touching the same variable, at least one of
  them writing it, that no edge orders run in the order they were created --
  the order of the program text.  (TF leaves such a pair unordered; a program
  that needs an order states it with ``control_dependencies``, and then both
  engines agree.)  Which variables an op reads and writes is declared on its
  kind (:func:`..kinds.effects`); a ``while_loop`` or ``cond`` has the effects
  of the ops in its bodies.

Creation order is already topological for graphs built front to back, but
passes may add nodes later; Kahn's algorithm stays correct and also reports a
cycle instead of looping.  The heap keyed by creation index makes the order
reproducible (no hash-ordered sets decide what runs first).
"""
from __future__ import annotations

import heapq
from operator import attrgetter

from ..framework.graph import Operation
from ..framework.kinds import effects

__all__ = ["topological_order", "hazards"]


def _deps(op: Operation, ops: set[Operation]) -> set[Operation]:
    return {t.op for t in op.inputs if t.op in ops} | {c for c in op.control_inputs if c in ops}


def hazards(ops) -> dict[Operation, set[Operation]]:
    """For each op with effects, the earlier-created ops it must follow (same variable, one
    of the two a write): the last writer before it, and -- for a write -- every reader since."""
    after: dict[Operation, set[Operation]] = {}
    last_write: dict[str, Operation] = {}
    readers: dict[str, list[Operation]] = {}
    for op in sorted([op for op in ops if op.op_def is None], key=attrgetter("index")):
        e = effects(op)
        if not (e.reads or e.writes):
            continue
        deps = {last_write[v] for v in e.reads | e.writes if v in last_write}
        for v in e.writes:
            deps.update(readers.pop(v, ()))
        deps.discard(op)
        if deps:
            after[op] = deps
        for v in e.writes:
            last_write[v] = op
        for v in e.reads - e.writes:
            readers.setdefault(v, []).append(op)
    return after


_creation = attrgetter("index", "name")   # op -> (index, name): creation order, ties by name


def _respects(ranked: list[Operation], rank: dict, extra: dict) -> bool:
    """Does every edge (data, control, hazard) inside the set go from a lower rank to a higher?"""
    get = rank.get
    for k, op in enumerate(ranked):
        for t in op.inputs:
            r = get(t.op)
            if r is not None and r >= k:
                return False
        for c in op.control_inputs:
            r = get(c)
            if r is not None and r >= k:
                return False
        for d in extra.get(op, ()):
            if rank[d] >= k:
                return False
    return True


def topological_order(ops: set[Operation]) -> list[Operation]:
    """``ops`` sorted so every op comes after the ops it depends on (inside ``ops``).

    Kahn's algorithm with ties broken by creation order yields the smallest such order in
    creation order; when creation order itself respects every edge (a graph built front to
    back: the common case) that *is* the answer, found by one check instead of the heap.
    """
    extra = hazards(ops)
    ranked = sorted(ops, key=_creation)
    rank = dict(zip(ranked, range(len(ranked))))
    if _respects(ranked, rank, extra):
        return ranked
    deps = {op: _deps(op, ops) | extra.get(op, set()) for op in ops}
    waiting = {op: len(d) for op, d in deps.items()}
    users: dict[Operation, list[Operation]] = {op: [] for op in ops}
    for op, d in deps.items():
        for x in d:
            users[x].append(op)
    ready = [(rank[op], op) for op, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, op = heapq.heappop(ready)
        order.append(op)
        for u in users[op]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, (rank[u], u))
    if len(order) != len(ops):
        stuck = sorted(op.name for op, n in waiting.items() if n > 0)
        raise ValueError(f"the graph has a cycle through: {stuck}")
    return order

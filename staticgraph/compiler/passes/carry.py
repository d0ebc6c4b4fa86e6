"""Loop-carried buffers written in place: a TensorArray's ``write`` in a loop without its copy.

A TensorArray is functional (each ``write`` returns a new buffer), so a loop that
writes one row per iteration would copy the whole ``[T, ...]`` buffer every
iteration: O(T^2).  Yet inside a loop body the *old* buffer is usually dead right
after the write -- the loop variable's next value is the written buffer and nothing
else reads the old one.  The loop kernel then owns one buffer (a copy of the
initial value, made once on entry) and every write goes into it::

    def while_0(x0, x1, ...):
        x1 = _own(x1)                        # the loop's own buffer (copied once)
        while True:
            ...
            b30 = bf21(x1, x0, b27)          # TensorListSetItem: x1[x0] = b27 (op's ``into``)
            x0, x1, ... = b29, b30, ...

Which ops may do this is the op's fact (``into``, declared on ``defop``).  A chain of
such steps from loop variable ``j`` to its next value is written in place when, for
each buffer version of the chain:

* every holder of it (the version and views of it: outputs of ops that ``aliases``
  their input) is read, other than by the write itself, only by registry ops that run
  *before* the write (the write is emitted as late as possible: just before the first
  step that reads its result) -- so no reader ever sees a row written later;
* no holder leaves the iteration (returned, or kept in full for the gradient) except
  the chain's last version as loop variable ``j``'s next value;
* no kernel outside the registry (a nested loop, a print) reads a holder at all.

Otherwise the loop keeps the functional, copying form -- never a wrong alias.
"""
from __future__ import annotations

import functools
from typing import Callable, NamedTuple

from ..plan import Plan

__all__ = ["CarriedWrites", "carried_writes"]


class CarriedWrites(NamedTuple):
    """How to emit a loop body's plan with its carried buffers written in place."""

    kernels: dict[int, Callable]   # step index -> its in-place kernel
    order: list[int]               # step indices in emission order (in-place writes moved late)
    owned: list[int]               # feed positions the kernel copies once, on entry

    @classmethod
    def none(cls, plan: Plan) -> "CarriedWrites":
        return cls({}, list(range(len(plan.steps))), [])


def _into(step) -> Callable | None:
    d = step.op.op_def
    if d is None or d.into is None:
        return None
    return functools.partial(d.into, **step.op.attrs) if step.op.attrs else d.into


class _Uses:
    """Per slot: the steps reading it (index, input position), and the fetch positions."""

    def __init__(self, plan: Plan):
        self.readers: dict[int, list[tuple[int, int]]] = {}
        for k, step in enumerate(plan.steps):
            for i, s in enumerate(step.inputs):
                self.readers.setdefault(s, []).append((k, i))
        self.fetched: dict[int, list[int]] = {}
        for p, s in enumerate(plan.fetches):
            if s is not None:
                self.fetched.setdefault(s, []).append(p)


def _holders(plan: Plan, uses: _Uses, slot: int) -> list[int] | None:
    """``slot`` and every view of it in the plan (None: a non-registry kernel reads one)."""
    out, stack = [], [slot]
    while stack:
        s = stack.pop()
        if s in out:
            continue
        out.append(s)
        for k, i in uses.readers.get(s, ()):
            d = plan.steps[k].op.op_def
            if d is None:
                if getattr(plan.steps[k].kernel, "pure", False):   # a fused chain: reads only
                    continue
                return None
            if d.may_alias(i):
                stack.extend(o for o in plan.steps[k].outputs if o is not None)
    return out


def _chain(plan: Plan, uses: _Uses, feed: int) -> list[int] | None:
    """The in-place-capable steps taking loop variable ``feed``'s buffer version by version."""
    chain, cur = [], feed
    while True:
        writes = [k for k, i in uses.readers.get(cur, ()) if i == 0 and _into(plan.steps[k])]
        if len(writes) != 1:
            return chain if not writes else None
        chain.append(writes[0])
        cur = plan.steps[writes[0]].outputs[0]
        if cur is None:
            return None


def _emission_order(plan: Plan, moved: list[int]) -> list[int]:
    """Steps in plan order, each ``moved`` step placed just before the first step reading it."""
    moved_set = set(moved)
    uses = _Uses(plan)
    before: dict[int, list[int]] = {}
    for k in moved:
        out = plan.steps[k].outputs[0]
        first = min((r for r, _ in uses.readers.get(out, ())), default=len(plan.steps))
        before.setdefault(first, []).append(k)
    order: list[int] = []
    for k in range(len(plan.steps) + 1):
        order += sorted(before.get(k, ()))
        if k < len(plan.steps) and k not in moved_set:
            order.append(k)
    return order


def _valid(plan: Plan, uses: _Uses, feed: int, target: int, chain: list[int],
           pos: dict[int, int], escaping: set[int]) -> bool:
    versions = [feed] + [plan.steps[k].outputs[0] for k in chain]
    for v, (version, write) in enumerate(zip(versions, chain + [None])):
        holders = _holders(plan, uses, version)
        if holders is None:
            return False
        for h in holders:
            for p in uses.fetched.get(h, ()):
                if p in escaping and not (write is None and h == version and p == target):
                    return False
            if write is None:
                continue
            for k, i in uses.readers.get(h, ()):
                d = plan.steps[k].op.op_def
                if k != write and pos[k] > pos[write] and not (d and d.reads_shape_only(i)):
                    return False
    return target in uses.fetched.get(versions[-1], ())


def carried_writes(plan: Plan, carries: dict[int, int], shape_only: set[int] = frozenset()
                   ) -> CarriedWrites:
    """Which steps of a loop body's ``plan`` may write into loop-carried buffers in place.

    ``carries``: feed position of a loop variable -> the fetch position of its next value.
    ``shape_only``: fetch positions kept only for their shape (a gradient's ``ShapeRef``);
    every other fetch position is a value that outlives the iteration.
    """
    uses = _Uses(plan)
    escaping = set(range(len(plan.fetches))) - set(shape_only)
    feeds = {f: plan.slot_of[plan.feeds[f]] for f in carries}
    chains = {f: c for f in carries if (c := _chain(plan, uses, feeds[f]))}
    while chains:
        order = _emission_order(plan, [k for c in chains.values() for k in c])
        pos = {k: n for n, k in enumerate(order)}
        bad = [f for f, c in chains.items()
               if not _valid(plan, uses, feeds[f], carries[f], c, pos, escaping)]
        if not bad:
            kernels = {k: _into(plan.steps[k]) for c in chains.values() for k in c}
            return CarriedWrites(kernels, order, sorted(chains))
        for f in bad:
            del chains[f]
    return CarriedWrites.none(plan)

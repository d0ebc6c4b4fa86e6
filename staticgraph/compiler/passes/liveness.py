"""Liveness, buffer ownership and in-place reuse: how few arrays a plan keeps alive.

Three questions per step of a lowered plan, answered once at compile time:

1. **When does a value die?**  After the last step that reads it (fetched values
   live to the end).  Its local is then reused for a later value or ``del``-eted,
   so the array is released right after its last use.
2. **Which buffers does the plan own?**  Only arrays a *fresh* kernel allocated
   during this run (a ufunc, matmul, a reduction with rank >= 1 ...).  Never a fed
   array, a constant, a variable's value -- and never a *view*: the outputs of
   Identity, Reshape, Transpose, GetItem, BroadcastTo, SumLike, Cast ... may
   alias their inputs, so they are tracked as holders of their inputs' buffers.
3. **Can an elementwise step write into a dead input?**  When its kernel is a
   plain ufunc, the input's buffer is owned, every holder of that buffer (the
   input and all views of it) is dead after this step and none is fetched, no
   non-registry kernel (which might keep a reference: control flow, Print) ever
   read it, and the output provably has the input's shape and dtype, the step
   becomes ``r1 = f(r1, c, out=r1)``.  A chain of elementwise ops
   then runs in one buffer.  A *shape-only* use (the ``ref`` of SumLike,
   BroadcastLike...: the kernel reads ``.shape``/``.dtype`` only) keeps the
   local alive but not the buffer's contents: an in-place write never changes
   a buffer's shape or dtype, so such a reader still sees the right answer.

::

    r0 = add(x, c)          # fresh buffer B0
    r0 = add(r0, c, out=r0) # B0 dead after this step: reused
    r0 = add(r0, c, out=r0) # ... a constant number of live buffers
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...framework.graph import Tensor
from ..plan import Plan, Step
from .simplify import keeps_shape

__all__ = ["Allocation", "allocate"]


class Allocation(NamedTuple):
    """Local names per slot, the buffer each step writes into, and the ``del``s after it."""

    names: dict[int, str]
    out: dict[int, int]            # step index -> input slot whose buffer the step writes
    dels: dict[int, list[str]]     # step index -> locals released after it
    n_registers: int               # distinct locals holding intermediates (max live values)


def _elementwise_ufunc(step: Step) -> bool:
    impl = step.kernel
    return isinstance(impl, np.ufunc) and impl.signature is None and impl.nout == 1 and \
        step.op.op_def is not None and impl is step.op.op_def.impl


def _new_value(step: Step) -> bool:
    """Is the step's result a new object, never a view of an input (rank 0: a numpy scalar)?

    Read off the op's declaration: a registry op that declares no ``aliases`` returns a new,
    writeable array (the registry tests check every op's examples against numpy)."""
    op = step.op
    return op.op_def is not None and not op.op_def.aliases


def _owned(out: Tensor) -> bool:
    """A new value the plan may write into later: an ndarray (rank >= 1), not a numpy scalar."""
    return out._shape is not None and len(out._shape) >= 1


class _Buffers:
    """Which owned buffer each slot is (``owner``) or may view (``roots``); per buffer, the last
    step reading any of its holders (``until``; fetched: never dead) -- O(1) per question."""

    NEVER = 1 << 62

    def __init__(self, last: dict[int, int], fetched: set[int]):
        self.last, self.fetched = last, fetched
        self.owner: dict[int, int] = {}
        self.roots: dict[int, frozenset[int]] = {}
        self.until: dict[int, int] = {}
        self.tainted: set[int] = set()

    def dead_after(self, slot: int, k: int) -> bool:
        b = self.owner.get(slot)
        return b is not None and b not in self.tainted and self.until[b] <= k

    def hold(self, slot: int, bufs: frozenset[int]) -> None:
        self.roots[slot] = bufs
        end = self.NEVER if slot in self.fetched else self.last.get(slot, -1)
        for b in bufs:
            self.until[b] = max(self.until[b], end)

    def own(self, slot: int, buf: int) -> None:
        self.owner[slot] = buf
        self.until.setdefault(buf, -1)
        self.hold(slot, frozenset({buf}))


def _inplace_input(step: Step, k: int, tensors: dict[int, Tensor], bufs: _Buffers) -> int | None:
    """The input slot whose buffer step ``k`` may overwrite with its result, if any."""
    if not _elementwise_ufunc(step) or len(step.outputs) != 1 or step.outputs[0] is None:
        return None
    out = tensors[step.outputs[0]]
    for s in step.inputs:
        t = tensors[s]
        if (bufs.dead_after(s, k) and t.np_dtype == out.np_dtype and
                all(keeps_shape(t, tensors[o]) for o in step.inputs)):
            return s
    return None


_NONE: frozenset[int] = frozenset()


def _held(step: Step, bufs: _Buffers) -> frozenset[int]:
    """Every buffer the step's inputs own or may view."""
    roots = bufs.roots
    return _NONE.union(*[roots.get(s, _NONE) for s in step.inputs])


def _last_data_use(plan: Plan) -> dict[int, int]:
    """Slot -> the last step reading its *contents* (shape-only reads do not count)."""
    return {s: k for k, step in enumerate(plan.steps) for i, s in enumerate(step.inputs)
            if step.op.op_def is None or not step.op.op_def.reads_shape_only(i)}


def allocate(plan: Plan, liveness: bool = True, inplace: bool = True) -> Allocation:
    """Names, in-place targets and releases for every step of ``plan``."""
    tensors = {s: t for t, s in plan.slot_of.items()}
    fixed = set(range(len(plan.feeds))) | set(plan.consts)
    last = {s: k for k, step in enumerate(plan.steps) for s in step.inputs}
    fetched = {s for s in plan.fetches if s is not None}
    bufs = _Buffers(_last_data_use(plan), fetched)
    names = {s: f"v{s}" for s in fixed}
    out_of: dict[int, int] = {}
    dels: dict[int, list[str]] = {}
    free: list[str] = []
    count = 0
    for k, step in enumerate(plan.steps):
        target = _inplace_input(step, k, tensors, bufs) if inplace else None
        if target is not None:
            out_of[k] = target
        inherited = None   # the buffers the inputs hold: only a view or a non-registry step asks
        if step.op.op_def is None:
            inherited = _held(step, bufs)
            bufs.tainted |= inherited
        dying = [] if not liveness else [
            names[s] for s in dict.fromkeys(step.inputs)
            if s not in fixed and last[s] == k and s not in fetched]
        for s in step.outputs:
            if s is None:
                continue
            if target is not None:
                bufs.own(s, bufs.owner[target])
            elif _new_value(step):
                if _owned(tensors[s]):
                    bufs.own(s, s)
                else:
                    bufs.hold(s, frozenset())
            else:
                bufs.hold(s, _held(step, bufs) if inherited is None else inherited)
            if not liveness:
                names[s] = f"v{s}"
            elif s not in last and s not in fetched:
                names[s] = "_"
            elif target is not None and names[target] in dying:
                names[s] = names[target]
                dying.remove(names[s])
            elif dying:
                names[s] = dying.pop(0)
            elif free:
                names[s] = free.pop()
            else:
                names[s], count = f"r{count}", count + 1
        if dying:
            dels[k] = dying
            free += dying
    return Allocation(names, out_of, dels, count if liveness else len(plan.steps))

"""Stage 3: lower ordered operations to a flat plan over integer slots.

::

    slots:  0..k-1  the fed tensors (the plan's arguments, in feed order)
            k..     every other produced tensor, in step order
    steps:  Step(op, kernel, input slots, output slots)   one per op that computes
    consts: slot -> value                                  Const nodes: no step at all

A plan knows nothing about Sessions or fetch structures: it maps fed values
to fetched values, so a control-flow body can be compiled into its own plan
and called from a kernel of the outer plan.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from ..framework.graph import Operation, Tensor
from ..framework.kinds import KINDS, Constant, LowerContext, SessionState, lower

__all__ = ["Step", "Plan", "lower_plan"]


class Step(NamedTuple):
    op: Operation
    kernel: Callable
    inputs: tuple[int, ...]
    outputs: tuple[int | None, ...]  # None: output not needed here (it is fed)


class Plan(NamedTuple):
    feeds: tuple[Tensor, ...]
    steps: list[Step]
    consts: dict[int, Any]
    fetches: tuple[int | None, ...]  # None: an Operation was fetched (result None)
    slot_of: dict[Tensor, int]

    @property
    def n_slots(self) -> int:
        return len(self.slot_of)


def lower_plan(order: list[Operation], feeds: list[Tensor],
               fetches: list[Tensor | Operation], state: SessionState, config,
               kernels: dict | None = None) -> Plan:
    """Give every tensor a slot and every computing op a kernel, in ``order``.

    Each kernel is lowered with the Session's ``state`` and the plan's pass ``config``
    (a loop lowers its body with the same), and knows which tensors the plan uses.
    ``kernels`` (op name -> what :func:`_lowered` keeps) carries the kernels of structural
    nodes from one lowering of a signature to the next: see :func:`_lowered`."""
    used: set[Tensor] = set()
    for op in order:
        used.update(op.inputs)
    used.update([f for f in fetches if isinstance(f, Tensor)])
    ctx = LowerContext(state, config, frozenset(used))
    slot_of: dict[Tensor, int] = {t: i for i, t in enumerate(dict.fromkeys(feeds))}
    n_fed = n = len(slot_of)
    steps: list[Step] = []
    consts: dict[int, Any] = {}
    new_step = tuple.__new__     # Step(...) without NamedTuple's Python-level __new__
    for op in order:
        kernel = lower(op, ctx) if kernels is None or op.op_def is not None else \
            _lowered(op, ctx, kernels)
        outs = []
        for t in op.outputs:
            if t in slot_of:          # fed: the argument wins, the op's value is dropped
                outs.append(None)
            else:
                slot_of[t] = n
                outs.append(n)
                n += 1
        if kernel is None:
            continue
        if kernel.__class__ is Constant:
            consts[outs[0]] = kernel.value
        else:
            ins, kind = op.inputs, KINDS.get(op.kind) if op.op_def is None else None
            if kind is not None and kind.unread_inputs is not None:   # graph-only edges
                ins = ins[:len(ins) - kind.unread_inputs(op)]
            steps.append(new_step(Step, (op, kernel, tuple([slot_of[t] for t in ins]),
                                         tuple(outs))))
    fetch_slots = tuple(slot_of[f] if isinstance(f, Tensor) else None for f in fetches)
    return Plan(tuple(slot_of)[:n_fed], steps, consts, fetch_slots, slot_of)


def _lowered(op: Operation, ctx: LowerContext, kernels: dict):
    """A structural node's kernel, lowered once per signature: a run signature is lowered
    twice (interpreted first, then compiled; see :mod:`.interpret`), and the second lowering
    reuses the first one's kernel when nothing it was lowered from changed -- the node or a
    pass's clone of it (same name, type and attributes) whose outputs the plan uses alike.
    A loop's kernel is then generated once, and a kernel that counts its own calls
    (``Print``'s ``first_n``) keeps counting."""
    flags = tuple(t in ctx.used for t in op.outputs)
    hit = kernels.get(op.name)
    if hit is not None and hit[0] is op.attrs and hit[1] == op.type and hit[2] == flags:
        return hit[3]
    kernel = lower(op, ctx)
    kernels[op.name] = (op.attrs, op.type, flags, kernel)
    return kernel

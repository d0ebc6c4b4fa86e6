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

from ..graph import Operation, Tensor
from ..kinds import Constant, LowerContext, SessionState, lower

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
               fetches: list[Tensor | Operation], state: SessionState, config) -> Plan:
    """Give every tensor a slot and every computing op a kernel, in ``order``.

    Each kernel is lowered with the Session's ``state`` and the plan's pass ``config``
    (a loop lowers its body with the same), and knows which tensors the plan uses."""
    used = frozenset([t for op in order for t in op.inputs] + [f for f in fetches if isinstance(f, Tensor)])
    ctx = LowerContext(state, config, used)
    slot_of: dict[Tensor, int] = {t: i for i, t in enumerate(dict.fromkeys(feeds))}
    steps: list[Step] = []
    consts: dict[int, Any] = {}
    for op in order:
        kernel = lower(op, ctx)
        outs = []
        for t in op.outputs:
            if t in slot_of:          # fed: the argument wins, the op's value is dropped
                outs.append(None)
            else:
                slot_of[t] = len(slot_of)
                outs.append(slot_of[t])
        if isinstance(kernel, Constant):
            consts[outs[0]] = kernel.value
        elif kernel is not None:
            steps.append(Step(op, kernel, tuple(slot_of[t] for t in op.inputs), tuple(outs)))
    fetch_slots = tuple(slot_of[f] if isinstance(f, Tensor) else None for f in fetches)
    return Plan(tuple(slot_of)[:len(set(feeds))], steps, consts, fetch_slots, slot_of)

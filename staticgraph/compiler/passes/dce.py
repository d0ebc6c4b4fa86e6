"""Dead-code elimination: drop pure ops whose results nothing reads any more.

After folding, simplification and CSE, some ops only fed ops that are gone.
Kept: ops producing a fetch, fetched operations, every op with an effect
(anything not pure: variable reads and writes, prints, control flow),
control inputs of kept ops, and -- transitively -- the producers of their
inputs.  One backward sweep suffices because ``ops`` is in execution order.
Ops are matched to control inputs by name (a rewritten clone keeps its name).

One consequence, shared with every optimising graph compiler (TF's Grappler
too): an op whose value no longer matters is not run, so a run-time error it
alone would have raised (say, mismatched run-time sizes feeding ``OnesLike``
of a known-shape tensor) does not surface.  Values never change; with every
pass off (``PassConfig.off()``) the plan runs each pruned node as written.
"""
from __future__ import annotations

from ...framework.graph import Operation, Tensor
from .program import Program, is_pure

__all__ = ["dce", "live_ops", "live_indices"]


def live_indices(prog: Program) -> list[int]:
    """Positions in ``prog.ops`` of the ops a fetch or an effect needs, in order (``prog`` is
    not changed).  One backward sweep; the cheap test (is an output needed?) comes first."""
    needed: set[Tensor] = {f for f in prog.fetches if isinstance(f, Tensor)}
    named: set[str] = {f.name for f in prog.fetches if isinstance(f, Operation)}
    keep: list[int] = []
    ops = prog.ops
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        outs = op.outputs
        used = outs[0] in needed if len(outs) == 1 else any(t in needed for t in outs)
        if not used and op.name not in named and is_pure(op):
            continue
        keep.append(i)
        needed.update(op.inputs)
        if op.control_inputs:
            named.update(c.name for c in op.control_inputs)
    keep.reverse()
    return keep


def live_ops(prog: Program) -> list[Operation]:
    """The ops a fetch or an effect needs, in order (``prog`` is not changed)."""
    return [prog.ops[i] for i in live_indices(prog)]


def dce(prog: Program) -> Program:
    """Keep only what a fetch or an effect needs."""
    keep = prog.live_ops()
    kept = set(map(id, keep))
    for op in prog.ops:
        if id(op) not in kept:
            prog.note(f"dce: {op.type} '{op.name}'")
    prog.ops, prog.alive = keep, None
    return prog

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

from ...framework.graph import Operation
from .program import Program, live_indices

__all__ = ["dce", "live_ops"]


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

"""What a ``while_loop`` or ``cond`` node needs when only some of its outputs are needed.

TF runs a ``While``/``If`` lowered (``Enter/Merge/Switch/NextIteration/Exit``, branches
inlined between ``Switch`` and ``Merge``), and its executor runs only what a fetch reaches
through data and control edges.  So each loop variable and each cond result is computed
only when something needs it::

    loop variable k is computed  <=>  it is fetched (or read by a needed op), or the
                                      condition reads it, or the body's next value of
                                      a computed variable reaches it (data or control
                                      edge, through nested loops and conds) -- a fixed
                                      point over the variables
    cond result k is computed    <=>  it is needed (the predicate always is)

and an input -- a variable's initial value, a captured outer tensor -- is needed only when
what is computed reads it.  A node's control inputs (``control_dependencies`` around it, or
inside its regions on outer ops) are needed whenever the node is.  A stateful op in a
region runs only when a computed output or the node's gradient trace reaches it, as in TF.

The node itself is never changed: :func:`.compiler.prune.narrowed` puts a clone of it in
the plan, reading only the needed inputs, with two attributes rewritten: ``computed`` (the
outputs it computes; see :func:`.control_flow.computed`) and ``captured`` (the outer tensors
it still reads).  The lowering then compiles only that part of the regions.
"""
from __future__ import annotations

from ..compiler.passes.program import clone
from ..compiler.prune import pruned
from .control_flow import Region
from ..framework.graph import Operation, Tensor

__all__ = ["narrow_while", "narrow_cond"]


def _reached(roots: list[Tensor]) -> set[Operation]:
    """The region ops ``roots`` need, arguments and capture placeholders included (nothing is
    fed, so a control edge on an argument counts: TF's body then waits for that variable)."""
    return pruned(roots, set())


def _captures_read(region: Region, ops: set[Operation]) -> set[Tensor]:
    return {t for t, p in zip(region.captured, region.placeholders) if p.op in ops}


def _saved(op: Operation, outs: frozenset, n: int):
    """The gradient program(s) whose kept values the node's trace holds, if the trace (output
    ``n``) is needed."""
    return op.graph.grad_programs.get(op.name) if n in outs else None


def _narrow(op: Operation, computed: tuple[int, ...], n: int, leading: list[Tensor],
            n_leading: int, reads: set[Tensor]) -> Operation:
    """``op`` computing outputs ``computed`` of ``n``: its inputs ``leading`` (for its first
    ``n_leading``), then those of its captures (inputs in the order of ``captured``) that
    are in ``reads``, then the rest (a loop's ``maximum_iterations``)."""
    a = op.attrs
    captured = tuple(t for t in a["captured"] if t in reads)
    if len(computed) == n and len(captured) == len(a["captured"]):
        return op
    rest = op.inputs[n_leading + len(a["captured"]):]
    return clone(op, [*leading, *captured, *rest], {**a, "computed": computed, "captured": captured})


def narrow_while(op: Operation, outs: frozenset) -> Operation:
    """The loop computing loop variables ``outs`` (and its trace, if ``outs`` holds it), what
    its condition reads, and what those need in the body, across iterations."""
    a = op.attrs
    n, cond_r, body_r = a["n_vars"], a["cond"], a["body"]
    grad = _saved(op, outs, n)
    saved = grad.needed if grad is not None else []
    cond_ops = _reached(cond_r.outs)
    live = {k for k in outs if k < n} | {k for k, x in enumerate(cond_r.args) if x.op in cond_ops}
    while True:
        body_ops = _reached([*(body_r.outs[k] for k in sorted(live)), *saved])
        more = {k for k, x in enumerate(body_r.args) if x.op in body_ops} - live
        if not more:
            break
        live |= more
    reads = _captures_read(cond_r, cond_ops) | _captures_read(body_r, body_ops)
    computed = tuple(sorted(live))
    return _narrow(op, computed, n, [op.inputs[k] for k in computed], n, reads)


def narrow_cond(op: Operation, outs: frozenset) -> Operation:
    """The cond computing results ``outs`` (and its trace, if ``outs`` holds it): in each
    branch only what those need; the predicate always."""
    branches = op.attrs["branches"]
    n = len(branches[0].outs)
    grads = _saved(op, outs, n)
    computed = tuple(k for k in sorted(outs) if k < n)
    reads: set[Tensor] = set()
    for which, region in enumerate(branches):
        saved = grads[which].needed if grads is not None else []
        ops = _reached([*(region.outs[k] for k in computed), *saved])
        reads |= _captures_read(region, ops)
    return _narrow(op, computed, n, [op.inputs[0]], 1, reads)

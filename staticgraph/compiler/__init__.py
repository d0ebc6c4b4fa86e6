"""The compile pipeline: small stages, each a plain function, run once per signature.

::

    fetches, feeds --prune--> needed ops --order--> op list
                   --fold/simplify/cse/dce (compiler.passes)--> op list --(passes)--> op list
                   --lower_plan--> Plan (slots, steps) --liveness--> --generate--> Python function

``compile_plan`` is what a Session calls on a cache miss and what control-flow
kernels call to compile a body or branch sub-graph: its result maps
fed values to fetched values and knows nothing about Sessions.  Which
rewrites run is ``optimize`` (a :class:`passes.PassConfig`; default: the
global one, see :mod:`.passes`); ``passes`` is an extra hook (each
``pass(ops) -> ops``).  ``Executable.report`` lists nodes before/after per pass.
"""
from __future__ import annotations

from typing import Callable, Sequence


from ..errors import OpError, graph_execution_error
from ..graph import Operation, Tensor
from ..kinds import SessionState, kind_of
from ..printing import format_kernels
from .codegen import Generated, generate
from .emit import failure
from .order import topological_order
from .passes import PassConfig, PassReport, current, run_passes
from .passes.liveness import Allocation, allocate
from .plan import Plan, Step, lower_plan
from .prune import prune

__all__ = ["compile_plan", "Executable", "Plan", "Step", "prune", "topological_order",
           "lower_plan", "generate", "PassConfig"]


class Executable:
    """A compiled plan: ``fn(*fed_values)`` runs it; ``reraise`` explains a failure."""

    __slots__ = ("fn", "plan", "generated", "report", "allocation")

    def __init__(self, plan: Plan, generated: Generated, report: PassReport | None = None,
                 allocation: Allocation | None = None):
        self.plan = plan
        self.generated = generated
        self.fn = generated.fn
        self.report = report or PassReport()
        self.allocation = allocation   # locals, in-place steps and releases (None: no liveness)

    @property
    def source(self) -> str:
        """The generated Python function (one line per step)."""
        return self.generated.source

    def explain(self) -> str:
        """The pass report, what liveness did, the generated source (a teaching view), and
        under it the generated source of each control-flow kernel it calls (loop bodies)."""
        kernels = format_kernels((f"f{k}", step.kernel) for k, step in enumerate(self.plan.steps))
        return f"{self.report}\n{self._liveness()}\n{self.source}" + (
            f"\n{kernels}" if kernels else "")

    def _liveness(self) -> str:
        a = self.allocation
        if a is None:
            return ""
        values = sum(s is not None for step in self.plan.steps for s in step.outputs)
        return (f"  liveness: {values} step results in {a.n_registers} reused locals, "
                f"{len(a.out)} steps written in place (out=), "
                f"{sum(map(len, a.dels.values()))} released early (del)\n")

    def reraise(self, err: BaseException):
        """Re-raise ``err`` naming the node, its op type, input shapes and creation site."""
        if isinstance(err, OpError):
            laid_out = graph_execution_error(err)
            if laid_out is not err:   # the same failure, TF's layout: keep what caused it
                laid_out.__cause__, laid_out.__suppress_context__ = err.__cause__, True
            raise laid_out
        g = self.generated
        explained = failure(err, g.filename, g.line_step, g.env)
        if explained is None:
            raise err
        raise graph_execution_error(explained) from err


def compile_plan(fetches: Sequence[Tensor | Operation], feeds: Sequence[Tensor],
                 state: SessionState, container: str = "tuple", guards: Sequence | None = None,
                 passes: Sequence[Callable[[list[Operation]], list[Operation]]] = (),
                 optimize: PassConfig | None = None) -> Executable:
    """Prune, order, rewrite, lower and generate: the whole pipeline, once.

    The result's ``fn(*fed_values)`` returns the fetched values in ``container``
    (see :func:`codegen.generate`); ``guards`` validate fed values inline.
    """
    fed, config, report = set(feeds), optimize or current(), PassReport()
    needed = prune(fetches, fed)
    report.add("prune", len(fetches[0].graph._ops) if fetches else 0, len(needed))
    prog = run_passes(topological_order(needed), list(fetches), fed, config, report)
    order = prog.ops
    for p in passes:
        order = p(order)
    plan = lower_plan(order, list(feeds), prog.fetches, state, config)
    ranks = [f.ndim if isinstance(f, Tensor) else None for f in fetches]
    copies = [_copied(f, r, fed) or _merged(k, f, r, fetches, prog.fetches)
              for k, (f, r) in enumerate(zip(fetches, prog.fetches))]
    alloc = allocate(plan, config.liveness, config.inplace) if config.liveness or config.inplace else None
    gen = generate(plan, ranks, container, copies, guards and list(guards), alloc)
    return Executable(plan, gen, report, alloc)


def _merged(k: int, fetch, resolved, fetches: Sequence, resolved_all: list) -> bool:
    """Did a pass make fetch ``k`` the same value as an earlier, *different* fetch?  Then it is
    copied: two results the user asked for separately must not be one array.  (The same
    tensor fetched twice is one array, as without passes.)"""
    earlier = fetches[:k]
    return isinstance(fetch, Tensor) and not any(f is fetch for f in earlier) and any(
        r is resolved for r in resolved_all[:k])


def _copied(fetch, resolved, fed: set) -> bool:
    """Does the caller get a copy?  A variable's array always (state never leaks), and a
    fed array or a constant that a pass substituted for a computed fetch (as unoptimised)."""
    if not isinstance(fetch, Tensor) or fetch in fed:
        return False
    if holds_state(resolved):
        return True
    return resolved is not fetch and (resolved in fed or resolved.op.type == "Const")


def holds_state(t: Tensor) -> bool:
    """May ``t``'s value be a variable's stored array -- read directly (a kind that
    ``returns_state``) or through ops that may return a view of their input (``aliases``)?"""
    stack, seen = [t], set()
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        op = t.op
        if op.op_def is None:
            kind = kind_of(op)
            if kind is not None and kind.returns_state:
                return True
            continue
        stack.extend(x for i, x in enumerate(op.inputs) if op.op_def.may_alias(i))
    return False


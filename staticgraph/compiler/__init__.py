"""The compile pipeline: small stages, each a plain function, run once per signature.

::

    fetches, feeds --prune--> needed ops --order--> op list --(passes)--> op list
                   --lower_plan--> Plan (slots, steps) --generate--> Python function

``compile_plan`` is what a Session calls on a cache miss and what control-flow
kernels (issue 5) call to compile a body or branch sub-graph: its result maps
fed values to fetched values and knows nothing about Sessions.  ``passes`` is
the hook for issue 7's rewrites (each ``pass(ops) -> ops``).
"""
from __future__ import annotations

from typing import Callable, Sequence

from common.shapes import fmt_shape

from ..errors import InvalidArgumentError, OpError
from ..graph import Operation, Tensor
from ..kinds import SessionState
from .codegen import Generated, generate
from .order import topological_order
from .plan import Plan, Step, lower_plan
from .prune import prune

__all__ = ["compile_plan", "Executable", "Plan", "Step", "prune", "topological_order",
           "lower_plan", "generate"]


STATEFUL = frozenset({"VariableV2", "ReadVariableOp", "Assign", "AssignAdd", "AssignSub"})
"""Kinds whose output is a variable's stored array (fetching them returns a copy)."""


class Executable:
    """A compiled plan: ``fn(*fed_values)`` runs it; ``reraise`` explains a failure."""

    __slots__ = ("fn", "plan", "generated")

    def __init__(self, plan: Plan, generated: Generated):
        self.plan = plan
        self.generated = generated
        self.fn = generated.fn

    @property
    def source(self) -> str:
        return self.generated.source

    def reraise(self, err: BaseException):
        """Re-raise ``err`` naming the node, its op type, input shapes and creation site."""
        if isinstance(err, OpError):
            raise err
        step, values = self._failed_step(err)
        if step is None:
            raise err
        shapes = ", ".join(fmt_shape(getattr(values.get(f"v{i}"), "shape", None)) for i in step.inputs)
        raise InvalidArgumentError(
            None, step.op,
            f"{type(err).__name__}: {err}\n  in node '{step.op.name}' ({step.op.type}) with input "
            f"shapes: {shapes}\n  created at {step.op.site}") from err

    def _failed_step(self, err: BaseException) -> tuple[Step | None, dict]:
        tb = err.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.generated.filename:
                k = self.generated.line_step.get(tb.tb_lineno)
                return (None, {}) if k is None else (self.plan.steps[k], tb.tb_frame.f_locals)
            tb = tb.tb_next
        return None, {}


def compile_plan(fetches: Sequence[Tensor | Operation], feeds: Sequence[Tensor],
                 state: SessionState, container: str = "tuple", guards: Sequence | None = None,
                 passes: Sequence[Callable[[list[Operation]], list[Operation]]] = ()) -> Executable:
    """Prune, order, (rewrite), lower and generate: the whole pipeline, once.

    The result's ``fn(*fed_values)`` returns the fetched values in ``container``
    (see :func:`codegen.generate`); ``guards`` validate fed values inline.
    """
    fed = set(feeds)
    order = topological_order(prune(fetches, fed))
    for p in passes:
        order = p(order)
    plan = lower_plan(order, list(feeds), list(fetches), state)
    ranks = [f.ndim if isinstance(f, Tensor) else None for f in fetches]
    copies = [isinstance(f, Tensor) and f not in fed and f.op.type in STATEFUL for f in fetches]
    return Executable(plan, generate(plan, ranks, container, copies, guards and list(guards)))


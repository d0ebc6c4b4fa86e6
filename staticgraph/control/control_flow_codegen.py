"""Generated kernels for control flow: a region's plan inlined into Python source.

A ``While`` kernel is one function in which the cond and body plans' steps
are pasted as lines (each value a local, each kernel a global of the function), written
by the project's one code generator (:mod:`.compiler.emit`)::

    def while_0(x0, x1):              # bk2 = 2.0, bk4 = 1.0 ...: bound globals
        try:
            x0 = x0[()]                 # 0-d values as numpy scalars
            x1 = x1[()]
            while True:
                p2 = x0 < x1            # Less 'Less'
                if not p2: break
                b3 = x0 + bk2           # Add 'add'
                b5 = x1 + bk4           # Add 'add_1'
                x0, x1, = b3, b5,
            return (x0, x1, None)
        except Exception as e:          # a failing step is re-raised naming its node
            _fail(e)

so an iteration costs what the same Python loop over numpy values costs.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from common import ShapeRef

from ..compiler.emit import Emitter, comment
from ..compiler.spell import spelled_step
from ..compiler.passes.carry import CarriedWrites
from ..compiler.passes.loops import HELPERS as _LOOP_HELPERS, LoopRewrite
from ..compiler.plan import Plan
from ..framework.errors import OpError
from ..framework.graph import Operation
from ..framework.kinds import VariableHandle

__all__ = ["Source", "as_tuple"]


_OPERATORS = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/",
              np.less: "<", np.less_equal: "<=", np.greater: ">", np.greater_equal: ">=",
              np.equal: "==", np.not_equal: "!=", np.matmul: "@"}
"""Kernels that *are* these numpy ufuncs are spelled as the operator: the same ufunc,
but numpy scalars then take numpy's scalar fast path (a loop's 0-d values are scalars).
A registry op with an expression form (``defop(expr=...)``: ``x.transpose((1, 0))``,
``xs[i]``) is written as that expression (see :mod:`.compiler.spell`)."""


class Source:
    """A control-flow kernel under construction: regions' plans pasted in as lines.

    Written by the one code generator (:class:`~.compiler.emit.Emitter`); a failing
    inner step is re-raised naming that node, "inside" the control-flow node.
    """

    def __init__(self, owner: Operation):
        self.owner = owner
        self.emitter = Emitter("kernel")
        for name, value in (("_zeros_like", _zeros_like), ("_OpError", OpError), ("_fresh", _fresh),
                            ("_shape_ref", _shape_ref), ("_own", _own), ("_ndarray", np.ndarray)):
            self.emitter.bind(name, value)
        for name, value in _LOOP_HELPERS.items():
            self.emitter.bind(name, value)

    def line(self, text: str) -> None:
        """A line of the kernel's own (not a node's step)."""
        self.emitter.line(text)

    def extend(self, texts) -> None:
        for text in texts:
            self.emitter.line(text)

    def bind(self, name: str, value: Any) -> str:
        return self.emitter.bind(name, value)

    def inline(self, plan: Plan, feeds: list[str], prefix: str, indent: int,
               carried: CarriedWrites | None = None, rewrite: LoopRewrite | None = None
               ) -> list[str]:
        """Emit ``plan``'s steps with its fed slots named ``feeds``; return its fetch names.

        ``carried`` (a loop body's): steps that write into the loop's own buffers, and the
        order to emit the steps in (see :mod:`.compiler.passes.carry`).  ``rewrite`` (a
        loop's): steps emitted as other lines (see :mod:`.compiler.passes.loops`)."""
        names = dict(enumerate(feeds))
        for slot, value in plan.consts.items():
            value = value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value
            names[slot] = self.bind(f"{prefix}k{slot}", value)
        pad = " " * indent
        carried = carried or CarriedWrites.none(plan)
        rewritten = rewrite.steps if rewrite is not None else {}
        for k in carried.order:
            step = plan.steps[k]
            kernel = carried.kernels.get(k, step.kernel)
            args = [names[i] for i in step.inputs]
            for s in step.outputs:
                if s is not None:
                    names[s] = f"{prefix}{s}"
            if k in rewritten:
                for text in rewritten[k](names, pad):
                    self.emitter.line(f"{text}  {comment(step.op, ' (loops pass)', site=False)}",
                                      step=(step.op, args))
                continue
            sym = _OPERATORS.get(kernel) if len(args) == 2 and _hashable(kernel) else None
            spelled = None if k in carried.kernels else spelled_step(step, args)
            call = (f"{args[0]} {sym} {args[1]}" if sym else spelled or
                    f"{self.bind(f'{prefix}f{k}', kernel)}({', '.join(args)})")
            outs = ["_" if s is None else names[s] for s in step.outputs]
            target = (", ".join(outs) + (" = " if len(outs) == 1 else ", = ")) if outs else ""
            note = " (in place)" if k in carried.kernels else ""
            if getattr(kernel, "store_lookup", False) and len(args) == 1 and len(outs) == 1:
                # a variable read: the store lookup itself; the kernel only for its error
                h, runs = args[0], (step.op, args)
                self.emitter.line(f"{pad}try:")
                self.emitter.line(f"{pad}    {target}{h}.store[{h}.name]  "
                                  f"{comment(step.op, site=False)}", step=runs)
                self.emitter.line(f"{pad}except (KeyError, AttributeError):")
                self.emitter.line(f"{pad}    {target}{call}", step=runs)
                continue
            self.emitter.line(f"{pad}{target}{call}  {comment(step.op, note, site=False)}",
                              step=(step.op, args))
        return [names[s] for s in plan.fetches]

    def own(self, names: list[str]) -> None:
        """Lines copying loop variables ``names`` once: the buffers the loop then writes into."""
        self.extend(f"    {n} = _own({n})" for n in names)

    @staticmethod
    def owned(name: str) -> str:
        """Source for a returned value that never aliases an argument or a constant."""
        return f"_fresh({name}, _ins)"

    def compile(self, label: str, params: list[str]) -> Callable:
        """The finished kernel; its text is ``fn.source`` (and shows in tracebacks)."""
        self.emitter.label = label
        self.emitter.lines.insert(0, (f"    _ins = {as_tuple(params)}", None))
        out = self.emitter.compile(params, inside=self.owner)
        fn = out.fn
        fn.source, fn.owner = out.source, self.owner
        return fn


def _fresh(value: Any, args: tuple) -> Any:
    """``value``, copied if it is one of ``args`` or read-only (a constant): a kernel's result
    (e.g. a loop that ran zero times) must not hand out the caller's or the graph's arrays."""
    if isinstance(value, np.ndarray) and (not value.flags.writeable or any(value is a for a in args)):
        return value.copy()
    return value


def _own(value: Any) -> Any:
    """A private copy of an array a loop will write into (its initial value is the caller's)."""
    return value.copy() if isinstance(value, np.ndarray) else value


def _shape_ref(x: Any) -> ShapeRef:
    """Only the shape and dtype of ``x`` (what a loop keeps when its gradient needs no more)."""
    return ShapeRef(np.shape(x), np.asarray(x).dtype if not hasattr(x, "dtype") else x.dtype)


def _zeros_like(x: Any) -> np.ndarray:
    """Zeros shaped like ``x`` -- for a variable's handle, like the variable's value."""
    return np.zeros_like(x.value if isinstance(x, VariableHandle) else x)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def as_tuple(names: list[str]) -> str:
    """Source for a tuple of ``names`` (a trailing comma, so one name is a tuple too)."""
    return "(" + "".join(f"{n}, " for n in names) + ")"

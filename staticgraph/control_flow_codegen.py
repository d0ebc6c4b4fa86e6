"""Generated kernels for control flow: a region's plan inlined into Python source.

A ``While`` kernel is one function in which the cond and body plans' steps
are pasted as lines (each value a local, each kernel a default argument)::

    def while_0(x0, x1, bk2=2.0, bk4=1.0, ...):
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

import functools
import itertools
import linecache
from typing import Any, Callable

import numpy as np

from common.shapes import fmt_shape

from .compiler.plan import Plan
from .errors import InvalidArgumentError, OpError
from .graph import Operation
from .kinds import VariableHandle

__all__ = ["Source", "as_tuple"]


_OPERATORS = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/",
              np.less: "<", np.less_equal: "<=", np.greater: ">", np.greater_equal: ">=",
              np.equal: "==", np.not_equal: "!="}
"""Kernels that *are* these numpy ufuncs are spelled as the operator: the same ufunc,
but numpy scalars then take numpy's scalar fast path (a loop's 0-d values are scalars)."""

_counter = itertools.count()


class Source:
    """A generated kernel under construction: source lines and the objects they name."""

    def __init__(self, owner: Operation):
        self.owner = owner
        self.lines: list[str] = []
        self.env: dict[str, Any] = {"_zeros_like": _zeros_like, "_OpError": OpError,
                                    "_fresh": _fresh}
        self.line_step: dict[int, tuple[Operation, list[str]]] = {}  # index in lines -> step

    def bind(self, name: str, value: Any) -> str:
        self.env[name] = value
        return name

    def inline(self, plan: Plan, feeds: list[str], prefix: str, indent: int) -> list[str]:
        """Emit ``plan``'s steps with its fed slots named ``feeds``; return its fetch names."""
        names = dict(enumerate(feeds))
        for slot, value in plan.consts.items():
            value = value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value
            names[slot] = self.bind(f"{prefix}k{slot}", value)
        pad = " " * indent
        for k, step in enumerate(plan.steps):
            args = [names[i] for i in step.inputs]
            for s in step.outputs:
                if s is not None:
                    names[s] = f"{prefix}{s}"
            sym = _OPERATORS.get(step.kernel) if len(args) == 2 and _hashable(step.kernel) else None
            call = (f"{args[0]} {sym} {args[1]}" if sym else
                    f"{self.bind(f'{prefix}f{k}', step.kernel)}({', '.join(args)})")
            outs = ["_" if s is None else names[s] for s in step.outputs]
            target = (", ".join(outs) + (" = " if len(outs) == 1 else ", = ")) if outs else ""
            self.line_step[len(self.lines)] = (step.op, args)
            self.lines.append(f"{pad}{target}{call}  # {step.op.type} '{step.op.name}'")
        return [names[s] for s in plan.fetches]

    @staticmethod
    def owned(name: str) -> str:
        """Source for a returned value that never aliases an argument or a constant."""
        return f"_fresh({name}, _ins)"

    def compile(self, label: str, params: list[str]) -> Callable:
        """The finished function; its text is ``fn.source`` (and shows in tracebacks).

        The body is wrapped in ``try:`` (free unless something raises): a failing
        inner step is re-raised as ``InvalidArgumentError`` naming that node.
        """
        n = next(_counter)
        name, filename = f"{label}_{n}", f"<staticgraph-{label}-{n}>"
        self.env["_fail"] = functools.partial(self._fail, filename)
        defaults = [f"{k}={k}" for k in self.env]
        source = "\n".join([f"def {name}({', '.join(params + defaults)}):", "    try:",
                            f"        _ins = {as_tuple(params)}",
                            *("    " + line for line in self.lines),
                            "    except _OpError:", "        raise",
                            "    except Exception as e:", "        _fail(e)", ""])
        exec(compile(source, filename, "exec"), self.env)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        fn = self.env[name]
        fn.source = source
        return fn

    def _fail(self, filename: str, err: Exception):
        tb = err.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != filename:
            tb = tb.tb_next
        step = self.line_step.get(tb.tb_lineno - 4) if tb is not None else None
        if step is None:
            raise err
        op, args = step
        shapes = ", ".join(fmt_shape(getattr(tb.tb_frame.f_locals.get(a, self.env.get(a)), "shape", None))
                           for a in args)
        raise InvalidArgumentError(
            None, op, f"{type(err).__name__}: {err}\n  in node '{op.name}' ({op.type}) with input "
                      f"shapes: {shapes}, inside {self.owner.type} '{self.owner.name}'\n"
                      f"  created at {op.site}") from err


def _fresh(value: Any, args: tuple) -> Any:
    """``value``, copied if it is one of ``args`` or read-only (a constant): a kernel's result
    (e.g. a loop that ran zero times) must not hand out the caller's or the graph's arrays."""
    if isinstance(value, np.ndarray) and (not value.flags.writeable or any(value is a for a in args)):
        return value.copy()
    return value


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

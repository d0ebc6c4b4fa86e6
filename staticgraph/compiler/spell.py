"""Registry ops written as Python expressions in generated code (``defop(expr=...)``).

A small op's kernel call costs more than its work: ``xs[i]`` is 0.23 us, the GetItem
kernel (a ``functools.partial`` decoding its index spec) 1.4 us.  An op that declares an
expression form is written as it, by both code generators (a Session's plan and the
control-flow kernels)::

    r1 = v0.T                  # Transpose 'transpose'
    b7 = cap1[x0]              # StridedSlice 'strided_slice'   (inside a loop kernel)

An expression writes its attributes only through ``int()`` or as fixed tokens (``:``, ``...``,
``None``), never as text taken from the graph: attributes may come from a loaded file, and the
expression is compiled.  (A crafted attribute ``int()`` refuses fails the compile, runs nothing.)
"""
from __future__ import annotations

__all__ = ["spelled_step"]


def spelled_step(step, args: list[str]) -> str | None:
    """The step as its registry op's expression over ``args``, or None: only a pure,
    one-result op whose expression form exists for these attributes is written out."""
    d = step.op.op_def
    if d is None or d.expr is None or d.stateful or len(step.outputs) != 1:
        return None
    return d.spelled(args, step.op.attrs)

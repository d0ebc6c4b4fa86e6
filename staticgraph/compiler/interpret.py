"""Tier 0: a lowered plan run one step at a time, without generating any code.

Why it exists: compiling a run signature to Python source (the passes, liveness, the
code generator and Python's own ``compile()``) costs 20-40 µs per graph op -- as much as
50-100 runs of the step it compiles -- and a signature run once or twice (an initializer,
an evaluation, a test) never earns that back.  So with ``COMPILE_AFTER`` above 0 (see
:mod:`staticgraph.compiler`; 0, the default, compiles at once) an
:class:`~staticgraph.compiler.Executable` starts here: the pruned, ordered, lowered plan
(its kernels are the compiled tier's kernels) is run by the plainest loop, ::

    for op, kernel, ins, out, many, dead in steps:
        r = kernel(*[v[i] for i in ins])          # v: one list of slot values
        ...store r (or its parts) in v[out]; forget v[dead] (read for the last time)

and only a signature that keeps running is compiled, like a JIT's tiers.  Both tiers give the same results:
the interpreter runs the unoptimised plan (``PassConfig.off()``'s, which the passes
must match bit for bit), in the same order, with the same feed checks, fetch copies and
error messages; it only never writes a buffer in place.

    >>> import numpy as np, staticgraph as tf, staticgraph.compiler
    >>> staticgraph.compiler.pipeline.COMPILE_AFTER = 2
    >>> x = tf.placeholder(tf.float32, shape=(2,))
    >>> with tf.Session() as s:
    ...     s.run(x * 2.0, {x: np.ones(2, np.float32)})     # interpreted
    array([2., 2.], dtype=float32)
    >>> staticgraph.compiler.pipeline.COMPILE_AFTER = 0
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..framework.errors import InvalidArgumentError
from .codegen import copied, own_result, scalarize
from .emit import explain
from .plan import Plan

__all__ = ["Interpreted", "prepare", "run", "failure"]


class Interpreted:
    """A plan laid out for :func:`run`: per step ``(op, kernel, input slots, output slot(s),
    several outputs?, slots to forget)``, the slot values known before the run, feed checks,
    and how each fetch is handed back."""

    __slots__ = ("steps", "template", "n_feeds", "checks", "results", "container")

    def __init__(self, steps: tuple, template: list, n_feeds: int, checks: tuple,
                 results: tuple, container: str):
        self.steps, self.template, self.n_feeds = steps, template, n_feeds
        self.checks, self.results, self.container = checks, results, container


def prepare(plan: Plan, fetch_ranks: Sequence[int | None], container: str = "tuple",
            copies: Sequence[str | None] | None = None, guards: Sequence | None = None) -> Interpreted:
    """Lay ``plan`` out for :func:`run` (arguments as for :func:`.codegen.generate`).

    A slot is forgotten right after the last step reading it, so intermediates are released
    as early as in generated code; an unread output goes to a scratch slot (``_``)."""
    n = plan.n_slots
    scratch = n
    fixed = len(plan.feeds)
    fetched = {s for s in plan.fetches if s is not None}
    last: dict[int, int] = {}
    for k, step in enumerate(plan.steps):
        for s in step.inputs:
            last[s] = k
    dead: dict[int, list[int]] = {}
    consts = plan.consts
    for s, k in last.items():
        if s >= fixed and s not in consts and s not in fetched:
            dead.setdefault(k, []).append(s)

    def slot(s):    # where an output goes: computed, never read, not fetched -> dropped at once
        return scratch if s is None or (s not in last and s not in fetched) else s
    steps = []
    for k, (op, kernel, ins, outs) in enumerate(plan.steps):
        many = len(outs) > 1
        out = tuple(map(slot, outs)) if many else slot(outs[0]) if outs else scratch
        steps.append((op, kernel, ins, out, many, tuple(dead.get(k, ()))))
    template: list[Any] = [None] * (n + 1)
    for s, value in plan.consts.items():
        if s is not None:   # (a fed constant: the fed value wins)
            template[s] = value
    copies = copies or [None] * len(fetch_ranks)
    results = tuple((s, r, c) for s, r, c in zip(plan.fetches, fetch_ranks, copies))
    checks = tuple(_check(conv) for conv in guards) if guards else ()
    return Interpreted(tuple(steps), template, fixed, checks, results, container)


def _check(conv) -> tuple:
    """What :func:`.codegen._guard` tests inline, as data: (converter, dtype, exact shape,
    rank, known dims, numpy scalar type accepted for a 0-d feed)."""
    shape = conv.shape
    exact = tuple(shape) if shape is not None and None not in shape else None
    rank = len(shape) if shape is not None and exact is None else None
    dims = tuple((k, d) for k, d in enumerate(shape or ()) if d is not None) if rank is not None else ()
    scalar = conv.dtype.type if shape is not None and len(shape) == 0 else None
    return conv, conv.dtype, exact, rank, dims, scalar


def _admit(value: Any, check: tuple) -> Any:
    """A fed value as the generated guard lets it through: an ndarray of the feed's dtype
    and shape as it is (a numpy scalar of the dtype for a 0-d feed), anything else through
    the feed's converter (which converts, or raises TF's feed error)."""
    conv, dtype, exact, rank, dims, scalar = check
    if (value.__class__ is not np.ndarray or value.dtype is not dtype
            or (exact is not None and value.shape != exact)
            or (rank is not None and (value.ndim != rank
                                      or any(value.shape[k] != d for k, d in dims)))):
        if scalar is None or value.__class__ is not scalar:
            return conv(value)
    return value


def _steps(prog: Interpreted, v: list) -> None:
    """The loop itself (kept apart: :func:`failure` finds a failing step in its frame)."""
    for op, kernel, ins, out, many, dead in prog.steps:
        r = kernel(*[v[i] for i in ins])
        if many:
            for s, x in zip(out, r):
                v[s] = x
        else:
            v[out] = r
        for s in dead:
            v[s] = None


def run(prog: Interpreted, fed: tuple) -> Any:
    """Run the plan on the fed values; the fetched values in the plan's container."""
    v = prog.template.copy()
    if prog.checks:
        fed = [_admit(x, c) for x, c in zip(fed, prog.checks)]
    v[:prog.n_feeds] = fed
    _steps(prog, v)
    out = [None if s is None else
           v[s][()] if rank == 0 else
           (scalarize(v[s].copy()) if rank is not None else copied(v[s])) if mode == "copy" else
           own_result(v[s]) if mode == "own" else
           v[s] if rank is not None else scalarize(v[s])
           for s, rank, mode in prog.results]
    if prog.container == "single":
        return out[0]
    return out if prog.container == "list" else tuple(out)


def failure(err: BaseException, prog: Interpreted) -> InvalidArgumentError | None:
    """``err`` explained as the generated code's failures are (:func:`.emit.explain`) when a
    step of ``prog``'s loop raised it; None when it came from elsewhere (a feed's check)."""
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code is _steps.__code__ and frame.f_locals.get("prog") is prog:
            values = frame.f_locals
            return explain(err, values["op"], [values["v"][i] for i in values["ins"]])
        tb = tb.tb_next
    return None

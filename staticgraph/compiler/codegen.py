"""Stage 4: the plan as Python source, compiled once.

One line per step, every value a local (``LOAD_FAST``), kernels and constants
bound as the function's own globals (``v2`` = the Const, ``f3`` = add, ``f4`` = mul)::

    def plan_3(v0, v1):
        v3 = f3(v0, v2)        # Add        (user.py:12)
        v4 = f4(v3, v1)        # mul        (user.py:13)
        return v4[()]

The source is written by the one code generator (:mod:`.emit`): registered with
``linecache`` so tracebacks show the generated line, and a line number maps back
to its node for error messages.  With an
:class:`~.passes.liveness.Allocation`, intermediates live in reused locals
``r0, r1...``, dead ones are ``del``-eted, and in-place steps pass their
output buffer as the ufunc's ``out`` -- positionally, after its inputs (a keyword
costs the ufunc more to parse), named in the comment::

    r0 = f0(v0, v1)          # Add
    r0 = f1(r0, v1, r0)      # Add [out=r0]: written into r0's own (dead) buffer

A registry op with an expression form is written as it (``r1 = v0.transpose((1, 0))``,
``r2 = v1[v3]``: see :mod:`.spell`).  A variable read whose handle is a constant of the
plan is a dict lookup in the Session's store (its kernel runs only to raise TF's error for a
missing variable)::

    try:
        r1 = st1['W']        # ReadVariableOp
    except KeyError:
        r1 = f1(v2)
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .emit import Emitter, comment
from .spell import spelled_step
from .passes.liveness import Allocation
from .plan import Plan
from .rollback import Rollback, late_updates

__all__ = ["generate", "Generated"]

class Generated:
    """The compiled function plus what error reporting needs (source, line -> step)."""

    __slots__ = ("fn", "source", "filename", "line_step", "names", "env")

    def __init__(self, fn: Callable, source: str, filename: str, line_step: dict[int, int],
                 names: dict[int, str], env: dict | None = None):
        self.fn = fn
        self.source = source
        self.filename = filename
        self.line_step = line_step  # line number -> (node, argument names)
        self.names = names          # slot -> the local holding it
        self.env = env or {}        # the bound names (constants, kernels) the source reads


def _result(name: str | None, rank: int | None, mode: str | None) -> str:
    """A fetched value as TF returns it: 0-d results become numpy scalars; what may be state,
    a constant or a fed array is copied, a possible view made a fresh array (``mode``: see
    ``compiler.pipeline._fetch_mode``)."""
    if name is None:
        return "None"
    if rank == 0:
        return f"{name}[()]"
    if mode == "copy":
        return f"_scalarize({name}.copy())" if rank is not None else f"_copied({name})"
    if mode == "own":
        return f"_own({name})"
    return name if rank is not None else f"_scalarize({name})"


# ufuncs whose ``out`` numpy wants as a keyword (a third positional argument is deprecated)
_KEYWORD_OUT = frozenset({np.maximum, np.minimum})


def scalarize(v):
    return v[()] if getattr(v, "ndim", 1) == 0 else v


def copied(v):
    """A fresh copy of a fetch of unknown rank; a bare Python object (the ``bytes`` a string
    scalar may come as) is immutable, returned as it is."""
    return scalarize(v.copy()) if isinstance(v, np.ndarray) else v


def own_result(v):
    """``v`` as a fresh fetch: itself when writable and C-contiguous, else a C-order copy
    (a value that is no array -- a loop's trace, a resource -- as it is)."""
    if not isinstance(v, np.ndarray):
        return v
    if v.ndim == 0:
        return v[()]
    flags = v.flags
    return v if flags.writeable and flags.c_contiguous else v.copy()


def _guard(i: int, conv) -> str:
    """Inline check that fed value ``v{i}`` is already an ndarray of the right dtype and shape.

    Only a value that fails it pays for the general converter ``g{i}`` (which
    converts lists/scalars, or raises TF's feed errors); a rank-0 feed also takes a numpy
    scalar of its dtype (``np.float32(2.0)``) as it is -- ops on 0-d values yield such
    scalars anyway, and nothing writes into a 0-d value in place.
    """
    cond = [f"v{i}.__class__ is not _ndarray", f"v{i}.dtype is not d{i}"]
    shape = conv.shape
    if shape is not None and None not in shape:
        cond.append(f"v{i}.shape != {tuple(int(d) for d in shape)!r}")
    elif shape is not None:
        cond.append(f"v{i}.ndim != {len(shape)}")
        cond += [f"v{i}.shape[{k}] != {int(d)}" for k, d in enumerate(shape) if d is not None]
    if shape is not None and len(shape) == 0:   # a numpy scalar of the dtype is a valid 0-d value
        return (f"    if {' or '.join(cond)}:\n        if v{i}.__class__ is not s{i}:\n"
                f"            v{i} = g{i}(v{i})")
    return f"    if {' or '.join(cond)}:\n        v{i} = g{i}(v{i})"


def _known_handle(step, plan: Plan):
    """The variable handle a ``store_lookup`` kernel (a variable read) is given as a constant:
    then the read is inlined as a dict lookup, ``store[name]`` (the kernel itself runs only
    when the name is missing, to raise TF's error)."""
    if getattr(step.kernel, "store_lookup", False) and len(step.inputs) == 1:
        handle = plan.consts.get(step.inputs[0])
        if hasattr(handle, "store") and hasattr(handle, "name"):
            return handle
    return None


def generate(plan: Plan, fetch_ranks: list[int | None], container: str = "tuple",
             copies: list[str | None] | None = None, guards: list | None = None,
             alloc: Allocation | None = None, rollback: Rollback | None = None) -> Generated:
    """Compile ``plan`` into a function of the fed values.

    ``container``: ``"single"`` returns the one fetched value, ``"list"``/``"tuple"``
    return the values in that container.  ``copies`` says per fetch how the caller gets it
    (``compiler.pipeline._fetch_mode``: ``"copy"`` for state, constants and fed arrays,
    ``"own"`` for possible views), so mutating it cannot change a variable, a constant or a later run.  ``guards`` (one converter per feed, with
    ``.dtype``/``.shape``) validate fed values inline (see :func:`_guard`).
    ``alloc`` (from :func:`~.passes.liveness.allocate`) names, reuses and releases locals.
    ``rollback`` (a plan that writes variables): a run that raises puts them back.
    """
    names = alloc.names if alloc is not None else {s: f"v{s}" for s in plan.slot_of.values()}
    em = Emitter("plan")
    em.bind("_scalarize", scalarize)
    em.bind("_copied", copied)
    em.bind("_own", own_result)
    em.bind("_ndarray", np.ndarray)
    params = [f"v{i}" for i in range(len(plan.feeds))]
    for i, conv in enumerate(guards or []):
        em.bind(f"g{i}", conv)
        em.bind(f"d{i}", conv.dtype)
        if conv.shape is not None and len(conv.shape) == 0:
            em.bind(f"s{i}", conv.dtype.type)
        for text in _guard(i, conv).split("\n"):
            em.line(text)
    for slot, value in plan.consts.items():
        em.bind(f"v{slot}", value)
    env, add = em.env, em.lines.append     # em.bind / em.line, inlined: one pass per step
    out_of = alloc.out if alloc is not None else {}
    dels = alloc.dels if alloc is not None else {}
    late = late_updates(plan) if rollback is not None else set()
    for k, step in enumerate(plan.steps):
        op, kernel = step.op, step.kernel
        f = f"f{k}"
        env[f] = kernel
        args = [names[i] for i in step.inputs]
        call_args, note = args, ""
        if k in out_of:
            buf = names[out_of[k]]
            positional = (len(step.inputs) == getattr(kernel, "nin", -1)
                          and kernel not in _KEYWORD_OUT)
            call_args, note = args + [buf if positional else f"out={buf}"], f" [out={buf}]"
        outs = ["_" if s is None else names[s] for s in step.outputs]
        target = "" if not outs else (outs[0] + " = " if len(outs) == 1 else ", ".join(outs) + " = ")
        handle = _known_handle(step, plan) if op.op_def is None else None   # (kinds only)
        if handle is not None and target:
            em.bind(f"st{k}", handle.store)
            em.line("    try:")
            em.line(f"        {target}st{k}[{handle.name!r}]  {comment(op)}", step=(op, args))
            em.line("    except KeyError:")
            em.line(f"        {target}{f}({', '.join(args)})", step=(op, args))
            continue
        if k in late:   # held back to the end of the run, to be written in place then
            add((f"    _p{k} = {f}.defer({', '.join(args)})  "
                 f"{comment(op, ', applied at the end')}", (op, args)))
        else:
            call = spelled_step(step, args) if call_args is args and target else None
            add((f"    {target}{call or f + '(' + ', '.join(call_args) + ')'}  "
                 f"{comment(op, note)}", (op, args)))
        if k in dels:
            add((f"    del {', '.join(dels[k])}", None))
    for k in sorted(late):
        op = plan.steps[k].op
        add((f"    f{k}.commit(_p{k}, _before)  {comment(op)}",
             (op, [f"_p{k}"])))
    copies = copies or [None] * len(fetch_ranks)
    results = [_result(None if s is None else names[s], r, c)
               for s, r, c in zip(plan.fetches, fetch_ranks, copies)]
    if container == "single":
        ret = results[0]
    elif container == "list":
        ret = "[" + ", ".join(results) + "]"
    else:
        ret = "(" + "".join(r + ", " for r in results) + ")"
    out = em.compile(params, [f"    return {ret}"], rollback=rollback)
    return Generated(out.fn, out.source, out.filename, out.line_step, names, out.env)

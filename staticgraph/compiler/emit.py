"""The one code generator: Python source written line by line, compiled, and explained on failure.

Both kinds of generated function use it -- a Session's plan (:mod:`.codegen`) and a
control-flow kernel with its regions inlined (:mod:`..control_flow_codegen`)::

    em = Emitter("plan")
    em.bind("f0", kernel)                       # an object the source names (a global of it)
    em.line("    v1 = f0(v0)  # Exp 'Exp'", step=(op, ["v0"]))   # a line that runs a node
    fn = em.compile(["v0"], ["    return v1"])  # -> Emitted(fn, source, filename, line_step)

The source is registered with ``linecache``, so tracebacks show the generated
line; ``line_step`` maps each line number *of the final text* to the node it runs
(no offsets to keep in step by hand), and :func:`failure` turns an exception
raised on such a line into TF's ``InvalidArgumentError`` naming the node, its
op type, its input shapes and the user's line that created it.
"""
from __future__ import annotations

import itertools
import linecache
import re
from typing import Any, Callable, NamedTuple

import numpy as np

from common.ops.shape import reshape_size_words
from common.shapes import fmt_shape

from ..framework.errors import InvalidArgumentError, OpError
from ..framework.error_text import at_node, tf_shape
from ..framework.graph import Operation
from .rollback import Rollback

__all__ = ["Emitter", "Emitted", "failure", "explain", "comment"]

_counter = itertools.count()


class Emitted(NamedTuple):
    """A compiled generated function and what explaining its failures needs."""

    fn: Callable
    source: str
    filename: str
    line_step: dict[int, tuple[Operation, list[str]]]   # line number -> (node, its argument names)
    env: dict


class Emitter:
    """Source lines under construction, the objects they name, and the nodes they run."""

    def __init__(self, label: str):
        self.label = label
        self.lines: list[tuple[str, tuple | None]] = []
        self.env: dict[str, Any] = {}

    def bind(self, name: str, value: Any) -> str:
        """Make ``value`` available to the source as ``name`` (a global of the function alone).

        Globals, not default arguments: a plan binds one kernel per step, and thousands of
        defaults make ``compile()`` ~20% slower, while a run reads a global as fast (3.11
        specialises ``LOAD_GLOBAL``).
        """
        self.env[name] = value
        return name

    def line(self, text: str, step: tuple[Operation, list[str]] | None = None) -> None:
        """Append ``text``; ``step`` = (node, argument names) when the line runs a node."""
        self.lines.append((text, step))

    def compile(self, params: list[str], epilogue: list[str] = (),
                inside: Operation | None = None, rollback: Rollback | None = None) -> Emitted:
        """The finished function ``def <label>_<n>(params)`` over the bound names.

        ``inside``: the control-flow node this function is the kernel of.  Its body is then
        wrapped in ``try:`` (free unless something raises), and a failing line's exception
        is re-raised from inside the function as ``InvalidArgumentError`` naming the inner
        node "inside While 'while'" -- the outer plan only sees the kernel's own line.
        ``rollback``: the :class:`.rollback.Rollback` of a plan that writes variables; its
        body is wrapped so that a run that raises puts them back (see :mod:`.rollback`).
        """
        guarded = inside is not None
        n = next(_counter)
        name, filename = f"{self.label}_{n}", f"<staticgraph-{self.label}-{n}>"
        head = f"def {name}({', '.join(params)}):"
        body = [*self.lines, *((e, None) for e in epilogue)]
        if guarded:
            body = ([("    try:", None)] + [("    " + t, s) for t, s in body] +
                    [("    except _OpError:", None), ("        raise", None),
                     ("    except Exception as e:", None), ("        _fail(e)", None)])
        elif rollback is not None:
            self.bind("_snapshot", rollback.store.copy)
            self.bind("_undo", rollback.undo)
            body = ([("    _before = _snapshot()", None), ("    try:", None)] +
                    [("    " + t, s) for t, s in body] +
                    [("    except BaseException:", None), ("        _undo(_before)", None),
                     ("        raise", None)])
        final = [(head, None), *body]
        line_step = {i + 1: s for i, (_, s) in enumerate(final) if s is not None}
        source = "\n".join(t for t, _ in final) + "\n"
        env = dict(self.env)
        if guarded:
            env["_OpError"] = OpError
            env["_fail"] = _Fail(filename, line_step, env, inside)
        exec(compile(source, filename, "exec"), env)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        return Emitted(env[name], source, filename, line_step, env)


def comment(op: Operation, note: str = "", site: bool = True) -> str:
    """The comment ending a node's generated line: ``# AddV2 'add' ('user.py:12')``.

    Every string in it comes from the graph -- a name a program chose, a type and a creation
    site read from a file -- and the line is compiled, so each is written through ``repr()``
    (a type that is a plain ASCII identifier, as nearly all are, as it is): a newline in a
    name ends the string literal it is in, never the comment.  ``note`` is the generator's
    own text (`` [out=r0]``); ``site=False`` leaves the creation site out (loop kernels).
    """
    kind = op.type
    if not (isinstance(kind, str) and kind.isascii() and kind.isidentifier()):
        kind = repr(kind)
    return f"# {kind} {op.name!r}{note} ({op.site!r})" if site else f"# {kind} {op.name!r}{note}"


class _Fail:
    """A guarded kernel's handler: re-raise naming the failing inner node (or as it came)."""

    def __init__(self, filename: str, line_step: dict, env: dict, owner: Operation):
        self.filename, self.line_step, self.env, self.owner = filename, line_step, env, owner

    def __call__(self, err: Exception):
        explained = failure(err, self.filename, self.line_step, self.env, self.owner)
        if explained is None:
            raise err
        raise explained from err


_OUT_OF_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for axis \d+ with size (\d+)")
_RESHAPE = re.compile(r"cannot reshape array of size (\d+) into shape \((.*)\)")


_MATMULS = frozenset({"MatMul", "BatchMatMul", "BatchMatMulV2"})


def _tf_words(err: BaseException, op_type: str, inputs: list) -> str:
    """TF's sentence for a numpy failure TF reports in its own words ('' if none applies)."""
    text = str(err)
    if getattr(err, "tf", None):           # an op's own failure, already in TF's words
        return err.tf
    shapes = [tf_shape(x.shape) for x in inputs if hasattr(x, "shape")]
    if op_type in _MATMULS and len(shapes) == 2:
        if text.startswith("matmul: Input operand"):      # numpy's gufunc: inner dims differ
            return f"Matrix size-incompatible: In[0]: {shapes[0]}, In[1]: {shapes[1]}"
        if "could not be broadcast" in text:
            return f"In[0] and In[1] must have compatible batch dimensions: {shapes[0]} vs. {shapes[1]}"
    if "could not be broadcast" in text:
        return "Incompatible shapes: " + " vs. ".join(shapes)
    m = _OUT_OF_BOUNDS.search(text)
    if m and isinstance(err, IndexError):
        bad, size = int(m.group(1)), int(m.group(2))
        for x in inputs:              # the index array holding the bad value: its flat position
            if isinstance(x, np.ndarray) and x.dtype.kind in "iu" and (x == bad).any():
                at = np.unravel_index(int(np.flatnonzero(x.reshape(-1) == bad)[0]), x.shape)
                where = ",".join(str(int(i)) for i in at)   # TF: indices[0,0] for a 2-d index
                return f"indices[{where}] = {bad} is not in [0, {size})"
        return f"indices = {bad} is not in [0, {size})"
    m = _RESHAPE.search(text)
    if m:
        dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
        known = [int(d) for d in dims if d.lstrip("-").isdigit() and int(d) >= 0]
        wanted = int(np.prod(known)) if known else 1
        return reshape_size_words(int(m.group(1)), wanted, len(known) < len(dims))
    return ""


def failure(err: BaseException, filename: str, line_step: dict, env: dict | None = None,
            owner: Operation | None = None) -> InvalidArgumentError | None:
    """``err`` explained: the node whose generated line (in ``filename``) raised it, its op,
    its input shapes and where the user created it; None when no such line is on the stack."""
    tb = err.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    step = line_step.get(tb.tb_lineno) if tb is not None else None
    if step is None:
        return None
    op, args = step
    values = tb.tb_frame.f_locals
    return explain(err, op, [values.get(a, (env or {}).get(a)) for a in args], owner)


def explain(err: BaseException, op: Operation, inputs: list,
            owner: Operation | None = None) -> InvalidArgumentError:
    """``err``, raised by ``op``'s kernel on ``inputs``, as TF's ``InvalidArgumentError``: TF's
    words first, then the exception, the node, its input shapes and where the user created it
    (the same text whichever tier ran the step: generated code or the interpreter)."""
    shapes = ", ".join(fmt_shape(getattr(x, "shape", None)) for x in inputs)
    inside = f", inside {owner.type} '{owner.name}'" if owner is not None else ""
    lead = _tf_words(err, op.type, inputs)     # TF's words first (a search finds TF's answers)
    if lead:
        lead = at_node(lead, op.name) + "\n"
    return InvalidArgumentError(
        None, op, f"{lead}{type(err).__name__}: {err}\n  in node '{op.name}' ({op.type}) with input "
                  f"shapes: {shapes}{inside}\n  created at {op.site}")

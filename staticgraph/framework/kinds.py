"""The engine's own node kinds (not registry math), each declared once with every fact about it.

A registry op's kernel is its numpy ``impl`` with the attributes bound.  The
structural kinds -- Placeholder, Const, variables and their reads and writes,
NoOp, Print, and control flow (``While``/``If`` and their ``Stateless`` forms, declared in
:mod:`.control_flow_grad` next to their gradients) -- are declared with
:func:`defkind`, in ONE call giving:

* ``lower(op, ctx)``: the run-time function (its *kernel*), ``Constant(value)``
  (no step: the planner stores the value) or ``None`` (nothing to run: NoOp
  only orders its control inputs).  ``ctx`` is the :class:`LowerContext` of the
  plan being compiled: the Session's variable store and pass configuration.
* ``gradient(op, out_grads, wanted)``: input gradients as graph nodes (or none);
* ``effects(op)``: which variables it reads and writes -- the compiler orders
  two accesses to the same variable, one of them a write, as they were created,
  when no data or control edge already orders them;
* ``pure``: passes may fold, merge or drop it (Const); everything else is kept;
* ``stateful``: its value depends on or changes state (reads, writes, prints):
  a gradient never recomputes it, it is saved when needed;
* ``returns_state``: its result is a variable's stored array (fetching it copies);
* ``narrow(op, outs)``: for a node with several outputs that computes each one separately
  (a ``while_loop``'s variables, a ``cond``'s results), a detached clone computing only
  outputs ``outs`` and reading only the inputs those need (see :func:`.compiler.prune.narrowed`);
* ``attrs`` / ``optional_attrs``: the attribute names its builder writes and its lowering,
  gradient and effects read -- always, or only sometimes.  A graph file is checked against
  them (:mod:`.interop.graph_schema`), so a renamed or missing attribute is refused at load
  with a DataLossError instead of a bare KeyError at ``Session.run``.

Variables follow TF 2's resource model (what ``tf.compat.v1`` graph mode builds)::

    VarHandleOp "v"            -> handle (dtype resource): names the variable
    ReadVariableOp(handle)     -> the value *when this op runs*; every use of a
                                  Variable makes one, under the control deps in scope
    AssignVariableOp(handle, value), AssignAdd/AssignSubVariableOp: write, no output
    VarIsInitializedOp(handle) -> bool
"""
from __future__ import annotations

import functools
import sys
import threading
import warnings
from typing import Any, Callable, Iterable, NamedTuple

import numpy as np

from common import REGISTRY, numerics
from common.philox import GuardedPhiloxRandom, default_threads

from .errors import FailedPreconditionError, InvalidArgumentError
from .check_numerics import finite_check
from .error_text import at_node, tf_shape
from .graph import Operation

__all__ = ["intra_op_threads", "defkind", "Kind", "KINDS", "kind_of", "lower", "LowerContext", "SessionState",
           "Constant", "Effects", "effects", "is_stateful", "VariableHandle", "handle_op",
           "uninitialized_message", "handle_variable", "variable_of", "floating_errors_may_raise"]


_POOL_THREADS: list[int] = []


def intra_op_threads(config: Any = None) -> int:
    """The intra-op thread count kernels see (TF's split of ``Multinomial`` depends on it).

    TF 2 has one CPU thread pool per process, sized by the *first* Session's
    ``ConfigProto.intra_op_parallelism_threads`` (0 or unset: the CPUs the process may use);
    every later Session shares it, whatever its own config says.  So is this number."""
    if not _POOL_THREADS:
        _POOL_THREADS.append(getattr(config, "intra_op_parallelism_threads", 0) or default_threads())
    return _POOL_THREADS[0]


class SessionState:
    """What kernels share across runs of one Session: variable values by variable name, and
    each random op's generator (so every plan that runs the op continues one sequence).

    ``threads``: the intra-op thread count (:func:`intra_op_threads`) its random kernels split
    their work by; None (a state that is no Session's): the machine's CPUs."""

    __slots__ = ("variables", "generators", "resources", "threads")

    def __init__(self, threads: int | None = None):
        self.variables: dict[str, np.ndarray] = {}
        self.generators: dict = {}
        self.resources: dict = {}  # other per-Session state (dataset iterators), by node
        self.threads = threads

    def generator(self, op: Operation) -> GuardedPhiloxRandom:
        key = (op.graph, op.name)  # a pass's clone of the op shares its generator
        gen = self.generators.get(key)
        if gen is None:
            gen = self.generators[key] = GuardedPhiloxRandom(
                op.attrs.get("seed"), op.attrs.get("seed2"), self.threads)
        return gen


class LowerContext(NamedTuple):
    """What a lowering may consult: the Session's state, the plan's pass configuration, and
    ``used``: the tensors the plan being compiled reads or fetches (a loop keeps its
    gradient trace only when a gradient node in the same plan reads it)."""

    state: SessionState
    config: Any
    used: frozenset = frozenset()


class Constant(NamedTuple):
    value: Any


class Effects(NamedTuple):
    """Variable names a node reads and writes when it runs."""

    reads: frozenset = frozenset()
    writes: frozenset = frozenset()


NO_EFFECTS = Effects()


class Kind(NamedTuple):
    """Everything the engine knows about one structural node type (see the module docstring)."""

    name: str
    lower: Callable
    gradient: Callable | None = None
    effects: Callable[[Operation], Effects] | None = None
    pure: bool = False
    stateful: bool = False
    returns_state: bool = False
    narrow: Callable[[Operation, frozenset], Operation] | None = None
    attrs: frozenset[str] = frozenset()
    optional_attrs: frozenset[str] = frozenset()
    unread_inputs: Callable[[Operation], int] | None = None


KINDS: dict[str, Kind] = {}


def defkind(name: str, lower: Callable, *, gradient: Callable | None = None,
            effects: Callable[[Operation], Effects] | None = None, pure: bool = False,
            stateful: bool = False, returns_state: bool = False,
            narrow: Callable[[Operation, frozenset], Operation] | None = None,
            attrs: Iterable[str] = (), optional_attrs: Iterable[str] = (),
            unread_inputs: Callable[[Operation], int] | None = None) -> Kind:
    """Declare a structural node type once: its lowering, gradient, effects and properties.

    ``attrs``: every attribute a node of this kind always has; ``optional_attrs``: those it
    may have.  A node read from a graph file with any other attribute, or without one of
    ``attrs``, is refused (:mod:`.interop.graph_schema`): the lowering can rely on them.
    ``unread_inputs(op)``: how many of the node's last inputs its kernel never reads (edges
    for the graph alone, e.g. where a higher-order gradient flows): the plan does not pass
    them, so their buffers are freed as if the edges were not there.

    >>> defkind("MyPrint", _print, attrs=("message", "first_n"))  # doctest: +SKIP
    """
    if name in KINDS or name in REGISTRY:
        raise ValueError(f"node kind {name!r} is already declared (as a kind or a registry op): "
                         f"a node's type names one declaration")
    kind = KINDS[name] = Kind(name, lower, gradient, effects, pure,
                              stateful or effects is not None, returns_state, narrow,
                              frozenset(attrs), frozenset(optional_attrs), unread_inputs)
    return kind


def kind_of(op: Operation) -> Kind | None:
    """The declaration of a structural node (None for registry ops)."""
    return KINDS.get(op.kind)


def effects(op: Operation) -> Effects:
    """The variables ``op`` reads and writes (registry ops: none)."""
    kind = KINDS.get(op.kind) if op.op_def is None else None
    return kind.effects(op) if kind is not None and kind.effects is not None else NO_EFFECTS


def is_stateful(op: Operation) -> bool:
    """Does ``op``'s value depend on or change state (never recomputed, merged or dropped)?"""
    if op.op_def is not None:
        return op.op_def.stateful
    kind = KINDS.get(op.kind)
    return kind is not None and kind.stateful


def lower(op: Operation, ctx: LowerContext):
    """The kernel for ``op`` (see :func:`defkind` for the three possible answers)."""
    if op.op_def is not None:
        if op.op_def.stateful and "rng" in op.op_def.defaults:
            kernel = functools.partial(op.op_def.impl, rng=ctx.state.generator(op), **op.attrs)
        else:
            impl = op.op_def.impl
            if op.op_def.static_impl is not None:   # chosen once for this node's shapes
                impl = op.op_def.static_impl(*[t._shape for t in op.inputs]) or impl
            attrs = _not_default(op.attrs, op.op_def.defaults)
            kernel = functools.partial(impl, **attrs) if attrs else impl
        if op.op_def.outputs is not None and len(op.outputs) == 1:
            return _only_result(kernel)   # a one-piece split: the plan stores one array
        return kernel
    kind = KINDS.get(op.kind)
    if kind is None:
        raise NotImplementedError(f"no lowering for node type {op.type!r} ({op.name})")
    return kind.lower(op, ctx)


def _only_result(kernel):
    """The kernel of a node of an op declaring several outputs that has just one
    (``split(x, 1)``): the op returns a tuple of one, the plan wants the array."""
    def only(*args):
        return kernel(*args)[0]
    return only


def _not_default(attrs: dict, defaults: dict) -> dict:
    """The attributes a kernel must be given: those equal to the impl's default (same type,
    same value) are left out, so ``Transpose(perm=None)`` runs ``impl`` itself, not a partial."""
    return {k: v for k, v in attrs.items()
            if not (k in defaults and type(v) is type(defaults[k]) and type(v) in _PLAIN
                    and v == defaults[k])}


_PLAIN = (type(None), bool, int, float, str)


def _pass_through(op: Operation, out_grads: list, wanted: list[bool]) -> list:
    """The gradient of a node whose first output is its first input."""
    return [out_grads[0]] + [None] * (len(op.inputs) - 1)


# --- sources -------------------------------------------------------------------------

defkind("Const", lambda op, ctx: Constant(op.attrs["value"]), pure=True, attrs=("value",),
        optional_attrs=("dtype",))


def _placeholder(op, ctx):
    """Runs only when not fed (a fed tensor is pruned away): always an error."""
    out = op.outputs[0]
    shape = "" if out._shape is None else f" and shape {tf_shape(out._shape)}"
    msg = (at_node(f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                   f"{out.dtype.tf_name}{shape}", op.name)
           + f"\n  placeholder created at {op.site}")

    def unfed():
        raise InvalidArgumentError(None, op, msg)
    return unfed


def _identity(x):
    return x


defkind("Placeholder", _placeholder, attrs=("dtype", "shape"))
defkind("PlaceholderWithDefault", lambda op, ctx: _identity, gradient=_pass_through,
        attrs=("shape",))
defkind("NoOp", lambda op, ctx: None)


# --- variables (resource model) ------------------------------------------------------

class VariableHandle(NamedTuple):
    """A handle's run-time value: the variable's name and the Session store holding it."""

    name: str
    store: dict

    @property
    def value(self) -> np.ndarray:
        return self.store[self.name]


def handle_op(handle) -> Operation:
    """The VarHandleOp behind a handle tensor (through the placeholders that capture it)."""
    op = handle.op
    while op.kind == "Placeholder" and getattr(op.graph, "captures", None):
        outer = next((o for o, i in op.graph.captures.items() if i is handle), None)
        if outer is None:
            break
        handle, op = outer, outer.op
    if op.kind != "VarHandleOp":
        raise TypeError(f"{handle.name} is not a variable handle (made by {op.type} '{op.name}')")
    return op


def handle_variable(handle) -> str:
    """The name of the variable a handle tensor stands for."""
    return handle_op(handle).attrs["shared_name"]


def uninitialized_message(var: str, node: str, site: str) -> str:
    """TF 2's words for a variable that has no value yet, then where the variable was made."""
    return at_node(f"Could not find variable {var}. This could mean that the variable has been "
                   f"deleted. In TF1, it can also mean the variable is uninitialized. Debug info: "
                   f"container=localhost, status error message=Resource localhost/{var}/"
                   f"N10tensorflow3VarE does not exist.", node) + f"\n  variable created at {site}"


def _uninitialized(op: Operation, var: str) -> FailedPreconditionError:
    """The error for a variable without a value; a TF1 ref variable (``VariableV2``, classic
    mode) says it in TF1's words: ``Attempting to use uninitialized value v``."""
    made = handle_op(op.inputs[0])
    if made.type == "VariableV2":
        return FailedPreconditionError(None, op, at_node(
            f"Attempting to use uninitialized value {var}", op.name)
            + f"\n  variable created at {made.site}")
    return FailedPreconditionError(None, op, uninitialized_message(var, op.name, made.site))


def _read(op, ctx):
    def read(handle):
        try:
            return handle.store[handle.name]
        except KeyError:
            raise _uninitialized(op, handle.name) from None
    read.store_lookup = True   # generated code may inline it as ``store[name]`` (see codegen)
    return read


def _assign(op, ctx):
    dtype = op.attrs["dtype"]._np
    check = finite_check(op, handle_op(op.inputs[0]).site) if numerics.enabled() else None

    def assign(handle, value):
        value = np.array(value, dtype=dtype)  # a private copy: nobody else holds it
        if check is not None:
            check(value)
        value.setflags(write=False)           # reads hand this array out: nobody may change it
        handle.store[handle.name] = value
    return assign


def _unshared_refs() -> int:
    """What ``sys.getrefcount`` says of a stored array that nothing but the store holds, read
    as :func:`_update`'s kernel reads it (a dict entry and one local): measured, not assumed,
    so an interpreter that counts differently only ever makes the check stricter or equal."""
    store = {"v": np.empty(0)}
    old = store["v"]
    return sys.getrefcount(old)


_UNSHARED = _unshared_refs()
IN_PLACE_MIN_SIZE = 16384
"""Elements from which ``assign_add``/``assign_sub`` may write into the variable's own array
(a fresh large array costs ~2x an in-place write, cold memory: 200,704 float32 72 us against
38; below ~16K elements the checks cost what they save).  Only when no one can be looking at
the old value: nothing but the store references it (an earlier read, a view, a fetched,
saved or shipped value, another variable: each holds a reference), it owns its memory, and
no other thread exists that could read it while the write runs (numpy releases the GIL
inside it) -- otherwise, as for every smaller update, the new value is a fresh array that
replaces the old one whole.  ``delta`` has the variable's shape (an update that would
broadcast the value larger keeps the general path).

A run must be able to put back what a variable held when it began (:mod:`.compiler.rollback`):
the run's snapshot holds that array, so the count above keeps every update out of it -- the
first update of a run makes a new array, later ones (a loop's) may write into that.  Except
an update the compiler holds back to the end of the run (``rollback.late_updates``: nothing
after it can see the difference): applied after every other step, when nothing else can
fail, it writes in place if no numpy floating-point error can raise (``np.seterr``, a
warnings filter) -- so a train step still updates its large weights in place."""


def _update(ufunc):
    def lowering(op, ctx):
        if numerics.enabled():
            return _checked_update(op, ufunc)

        def update(handle, delta):
            try:
                old = handle.store[handle.name]
            except KeyError:
                raise _uninitialized(op, handle.name) from None
            # In place only if no one can be looking (see IN_PLACE_MIN_SIZE): the count is
            # _unshared_refs' (this line's shape), the array owns its memory, one thread.
            if (old.size >= IN_PLACE_MIN_SIZE and delta.__class__ is np.ndarray and
                    delta.shape == old.shape and old.base is None and
                    sys.getrefcount(old) == _UNSHARED and threading.active_count() == 1):
                _in_place(ufunc, old, delta)
                return
            value = np.asarray(ufunc(old, delta, dtype=old.dtype))
            value.setflags(write=False)
            handle.store[handle.name] = value

        def defer(handle, delta):
            """The update held back to the end of the run (``compiler.rollback.late_updates``):
            what to apply then, or None when it was applied now (a variable too small to be
            written in place).  Its variable must exist now, as for ``update``."""
            try:
                old = handle.store[handle.name]
            except KeyError:
                raise _uninitialized(op, handle.name) from None
            if (old.size >= IN_PLACE_MIN_SIZE and delta.__class__ is np.ndarray
                    and delta.shape == old.shape):
                return handle, delta
            update(handle, delta)
            return None

        def commit(held, before: dict) -> None:
            """Apply a held update, when nothing else in the run can fail any more: in place
            if no one can be looking but the run's own snapshot (``before``) and no numpy
            floating-point error can raise (else like ``update``: the snapshot then keeps it
            out of the old array, so a failure here is undone too)."""
            if held is None:
                return
            handle, delta = held
            old = handle.store[handle.name]
            snapshotted = before.get(handle.name) is old
            if (old.base is None and sys.getrefcount(old) == _UNSHARED + snapshotted
                    and threading.active_count() == 1 and not floating_errors_may_raise()):
                _in_place(ufunc, old, delta)
            else:
                update(handle, delta)

        shape = handle_op(op.inputs[0]).attrs["shape"]
        if shape is None or None in shape or np.prod(shape, dtype=np.int64) >= IN_PLACE_MIN_SIZE:
            update.defer, update.commit = defer, commit   # (may be written in place)
        return update
    return lowering


def _in_place(ufunc, old: np.ndarray, delta: np.ndarray) -> None:
    """``old`` = ``ufunc(old, delta)`` in ``old``'s own memory (read-only again after)."""
    old.flags.writeable = True
    try:
        ufunc(old, delta, out=old, dtype=old.dtype)
    finally:
        old.flags.writeable = False


def floating_errors_may_raise() -> bool:
    """Can a numpy floating-point error become an exception now -- ``np.seterr`` set to
    ``raise`` (or to ``call``/``log``, which run the user's code), or to ``warn`` with a
    warnings filter that turns a ``RuntimeWarning`` into an error?"""
    modes = np.geterr().values()
    if "raise" in modes or "call" in modes or "log" in modes:
        return True
    return "warn" in modes and any(action == "error" and issubclass(RuntimeWarning, category)
                                   for action, _, category, _, _ in warnings.filters)


def variable_of(op: Operation) -> str | None:
    """The variable ``op`` reads or writes itself (a read, an assignment, an initialized test),
    None for every other node (a loop touching variables too)."""
    kind = KINDS.get(op.kind) if op.op_def is None else None
    return op.attrs["var"] if kind is not None and kind.effects in _VARIABLE_EFFECTS else None


def _checked_update(op: Operation, ufunc):
    """The update with ``enable_check_numerics`` on: a new array, checked before it is stored."""
    check = finite_check(op, handle_op(op.inputs[0]).site)

    def update(handle, delta):
        try:
            old = handle.store[handle.name]
        except KeyError:
            raise _uninitialized(op, handle.name) from None
        with np.errstate(all="ignore"):   # the check reports it, naming the variable
            value = np.asarray(ufunc(old, delta, dtype=old.dtype))
        check(value)
        value.setflags(write=False)
        handle.store[handle.name] = value
    return update


def _reads(op):
    return Effects(reads=frozenset({op.attrs["var"]}))


def _writes(op):
    return Effects(writes=frozenset({op.attrs["var"]}))


def _reads_writes(op):
    return Effects(frozenset({op.attrs["var"]}), frozenset({op.attrs["var"]}))


_VARIABLE_EFFECTS = (_reads, _writes, _reads_writes)


def _is_initialized(op, ctx):
    return lambda handle: np.bool_(handle.name in handle.store)


defkind("VarHandleOp",
        lambda op, ctx: Constant(VariableHandle(op.attrs["shared_name"], ctx.state.variables)),
        pure=True, attrs=("shape", "dtype", "shared_name"))
defkind("ReadVariableOp", _read, gradient=_pass_through, effects=_reads, returns_state=True,
        attrs=("var", "dtype"))
defkind("AssignVariableOp", _assign, effects=_writes, attrs=("var", "dtype"))
defkind("AssignAddVariableOp", _update(np.add), effects=_reads_writes, attrs=("var", "dtype"))
defkind("AssignSubVariableOp", _update(np.subtract), effects=_reads_writes, attrs=("var", "dtype"))
defkind("VarIsInitializedOp", _is_initialized, effects=_reads, attrs=("var",))


# --- printing ----------------------------------------------------------------------

def _print(op, ctx):
    """tf.Print: passes ``input_`` through, printing ``message`` and ``data`` to stderr."""
    message, summarize = op.attrs["message"], op.attrs["summarize"]
    first_n, count = op.attrs["first_n"], [0]

    def kernel(x, *data):
        count[0] += 1
        if first_n is None or first_n < 0 or count[0] <= first_n:
            items = "".join(_summary(d, summarize) for d in data)   # TF1's older layout
            print(f"{message}{items}", file=sys.stderr)
        return x
    return kernel


def _summary(value, summarize: int | None) -> str:
    """TF's tf.Print text for one tensor: nested brackets, the first ``summarize`` (3)
    elements in all, then ``...``; numbers as C++ streams print them (``2``, ``1e-08``)."""
    a = np.asarray(value)
    left = [3 if summarize is None else summarize]

    def fmt(x) -> str:
        if a.dtype.kind == "O":     # strings unquoted here (tf.print quotes them)
            return x.decode("utf-8", "backslashreplace") if isinstance(x, bytes) else str(x)
        return _element(x, a.dtype.kind)

    def rows(x) -> str:
        if x.ndim == 0:
            left[0] -= 1
            return fmt(x[()])
        parts, start = [], left[0]
        for item in x:
            if left[0] <= 0:
                break
            parts.append(rows(item))
        more = "..." if start - left[0] < x.size else ""   # elements of this block left out
        return "[" + ("" if x.ndim > 1 else " ").join(parts) + more + "]"
    return rows(a) if a.ndim else f"[{fmt(a[()])}]"


def _print_v2(op, ctx):
    """tf.print: the template with each placeholder replaced by a tensor in TF's format."""
    parts, stream, end = op.attrs["template"], op.attrs["output_stream"], op.attrs["end"]
    summarize = op.attrs["summarize"]

    def kernel(*values):
        text = parts[0] + "".join(format_v2(v, summarize) + rest for v, rest in zip(values, parts[1:]))
        print(text, file=sys.stdout if stream == "stdout" else sys.stderr, end=end)
    return kernel


def _element(x, kind: str) -> str:
    """One element as TF's C++ prints it: floats in the shortest of %.6g/%.9g (%.15g/%.17g
    for doubles) that reads back exactly, bools as 1/0, strings quoted."""
    if kind == "O":
        raw = x if isinstance(x, bytes) else str(x).encode()
        return '"' + raw.decode("utf-8", "backslashreplace").replace("\\", "\\\\").replace('"', '\\"') + '"'
    if kind == "b":
        return "1" if x else "0"
    if kind == "f":
        if not np.isfinite(x):
            return "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
        short, full = (15, 17) if x.dtype == np.float64 else (6, 9)
        text = f"{float(x):.{short}g}"
        return text if x.dtype.type(text) == x else f"{float(x):.{full}g}"
    return str(x)


def format_v2(value, summarize: int | None = 3) -> str:
    """A tensor as ``tf.print`` shows it: ``[[1 2.5]\n [3 4]]``; along each axis the first and
    last ``summarize`` entries around ``...`` when there are more than twice that many
    (``summarize=-1``: everything)."""
    a = np.asarray(value)
    kind = a.dtype.kind
    if a.ndim == 0:
        return _element(a[()], kind)
    ends = a.size if summarize is None or summarize < 0 else summarize
    rank = a.ndim

    def spacing(dim: int) -> str:
        return " " if dim == rank - 1 else "\n" * (rank - dim - 1) + " " * (dim + 1)

    def dim_text(x, dim: int) -> str:
        if dim == rank:
            return _element(x, kind)
        n = x.shape[0]
        head = [dim_text(x[i], dim + 1) for i in range(min(ends, n))]
        tail = [dim_text(x[i], dim + 1) for i in range(max(ends, n - ends), n)]
        items = head + (["..."] if n > 2 * ends else []) + tail
        return "[" + spacing(dim).join(items) + "]"
    return dim_text(a, 0)


defkind("Print", _print, gradient=_pass_through, stateful=True,
        attrs=("message", "first_n", "summarize"))
defkind("PrintV2", _print_v2, stateful=True, attrs=("template", "output_stream", "end", "summarize"))

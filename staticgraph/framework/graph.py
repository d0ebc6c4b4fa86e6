"""The graph: Operations (nodes) in creation order, symbolic Tensors (edges).

::

    Placeholder "x" --x:0--> Add "Add" --Add:0--> Mul "mul" --mul:0--> (fetch)
                                ^                    ^
    Const "Add/y" --Add/y:0-----+    ReadVariableOp -+ <--w:0-- VarHandleOp "w"

An Operation records its type, its registry OpDef (or None for the engine's
own structural kinds declared in ``kinds.py``: Placeholder, Const, variables, NoOp, Print...),
input Tensors, hashable attrs, output Tensors, control inputs and the user's
``file:line`` that created it.  A Tensor is ``(op, index)`` plus the static
shape/dtype inferred at build time; it holds no value (``bool(t)`` raises).

Every mutation bumps ``graph.version`` so Sessions know their cached plans
are stale; ``finalize()`` forbids further mutation.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from typing import Any, Callable, Iterator

import numpy as np

from . import device as _device
from . import dtypes as _dtypes
from .errors import OperatorNotAllowedInGraphError
from .shape import TensorShape

__all__ = ["Graph", "SubGraph", "Operation", "Tensor", "get_default_graph", "reset_default_graph",
           "name_scope", "control_dependencies", "device", "colocate_with", "creation_site",
           "pinned_site", "tensor_of", "check_name", "session_stack", "get_default_session",
           "default_session"]

_ENGINE_DIRS = tuple(os.path.dirname(os.path.abspath(p)) + os.sep for p in
                     (os.path.join(os.path.dirname(__file__), "..", "x"),
                      os.path.join(os.path.dirname(__file__), "..", "..", "common", "x")))


_ENGINE_FILES: set[str] = set()   # co_filename values seen so far, sorted into engine ...
_USER_FILES: set[str] = set()     # ... and user files (a set test per frame: the walk's cost)
_DTYPES = _dtypes.DType._cache   # numpy dtype -> its interned DType (filled by as_dtype)
_DType = _dtypes.DType           # (looking a DType up among numpy dtypes is slow: numpy converts it)


GRAPH_WRITERS: dict[str, Callable[["Graph"], Any]] = {}
"""How a whole graph is written out, by the module that knows how, registered when it loads:
``"text"`` (``str(graph)``: ``framework/printing.py``) and ``"graph_def"``
(``Graph.as_graph_def``: ``interop/graph_def.py``).  Both read control-flow regions and the
compiler's order, which build on this module, so it cannot import them; the package imports
both before any graph can be printed."""

ITERATING_NOT_ALLOWED = (
    "Iterating over a symbolic `tf.Tensor` is not allowed. You can attempt the following "
    "resolutions to the problem: If you are running in Graph mode, use Eager execution mode or "
    "decorate this function with @tf.function. If you are using AutoGraph, you can try decorating "
    "this function with @tf.function. If that does not work, then you may be using an unsupported "
    "feature or your source code may not be visible to AutoGraph. See https://github.com/"
    "tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/"
    "limitations.md#access-to-source-code for more information.")
"""TF 2.21's words for iterating a tensor (or a variable) in graph mode."""

_pinned = threading.local()   # .site: the site every node made now gets (see pinned_site)

VALID_OP_NAME = re.compile(r"[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*")
"""TF's pattern for a node's full name (and a name given at the top, outside any scope)."""
VALID_SCOPE_NAME = re.compile(r"[A-Za-z0-9_.\\/>-]*")
"""TF's pattern for a name given inside a name scope (may start with ``_``, ``-``, ``/``)."""


def check_name(name: str, nested: bool) -> None:
    """Refuse a name TF refuses, with TF's words: the root pattern at the top of the graph,
    the scope pattern inside a name scope (``nested``).

    Names end up in error messages, exports and -- through ``repr()`` -- in generated source,
    so each is checked where a program gives it (``name=``, ``name_scope``, scopes of
    variables).  The whole name must match: TF's ``re.match(... $)`` also lets one trailing
    newline through (``'a\\n'``), which is refused here.
    """
    if nested:
        if not VALID_SCOPE_NAME.fullmatch(name):
            raise ValueError(f"'{name}' is not a valid scope name. A scope name has to match the "
                             f"following pattern: ^{VALID_SCOPE_NAME.pattern}$")
    elif not VALID_OP_NAME.fullmatch(name):
        raise ValueError(f"'{name}' is not a valid root scope name. A root scope name has to "
                         f"match the following pattern: ^{VALID_OP_NAME.pattern}$")


def creation_site() -> str:
    """``file:line`` of the first stack frame outside staticgraph/ and common/ (the user's line)."""
    site = getattr(_pinned, "site", None)
    if site is not None:
        return site
    frame = sys._getframe(2)   # 1 is the engine function asking (apply, create_op...)
    engine = _ENGINE_FILES
    while frame is not None:
        path = frame.f_code.co_filename
        if path not in engine and (path in _USER_FILES or not _sort_file(path)):
            return f"{path}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


def _sort_file(path: str) -> bool:
    """Is ``path`` the engine's (staticgraph/, common/)?  Remembered in one of the two sets."""
    is_engine = os.path.abspath(path).startswith(_ENGINE_DIRS)
    (_ENGINE_FILES if is_engine else _USER_FILES).add(path)
    return is_engine


@contextlib.contextmanager
def pinned_site(site: str | None) -> Iterator[None]:
    """Every node made inside gets ``site`` without walking the stack again.

    For engine code that makes many nodes on behalf of one user call (``tf.gradients``): the
    caller computes ``creation_site()`` once, on entry, which is what each node would find --
    every frame in between is the engine's.  Per thread; nested pins keep the outer one; None
    pins nothing.
    """
    saved = getattr(_pinned, "site", None)
    _pinned.site = saved or site
    try:
        yield
    finally:
        _pinned.site = saved


class Tensor:
    """A symbolic value: output ``index`` of ``op``.  Shape and dtype are known statically."""

    __slots__ = ("op", "value_index", "_shape", "_dtype", "_tshape", "_spec", "__weakref__")

    def __init__(self, op: "Operation", index: int, shape: tuple | None, dtype: np.dtype):
        self.op = op
        self.value_index = index
        self._shape = shape
        self._dtype = (dtype if type(dtype) is _DType else _DTYPES.get(dtype)
                       or _dtypes.as_dtype(dtype).base_dtype)   # TF: tensors strip a ref dtype
        self._tshape = None
        self._spec = None   # the registry's Spec of it, made once when an op first reads it

    # --- static facts ---------------------------------------------------------
    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self) -> "Graph":
        return self.op.graph

    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def np_dtype(self) -> np.dtype:
        """The numpy dtype (the registry's rules read this through ``F.dtype``)."""
        return self._dtype._np

    @property
    def shape(self) -> TensorShape:
        if self._tshape is None:
            self._tshape = TensorShape(self._shape)
        return self._tshape

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ndim(self) -> int | None:
        return None if self._shape is None else len(self._shape)

    def set_shape(self, shape: Any) -> None:
        """Refine the static shape (TF's rule: the new shape must be compatible)."""
        merged = self.shape.merge_with(shape)
        self._shape, self._tshape, self._spec = merged.dims_tuple, None, None
        self.op.graph.invalidate()

    @property
    def device(self) -> str:
        """The device its op asked for (``tf.device``); "" when none."""
        return self.op._device

    def consumers(self) -> list["Operation"]:
        return [op for op in self.op.graph._ops if any(t is self for t in op.inputs)]

    def eval(self, feed_dict: dict | None = None, session=None):
        return (session or default_session()).run(self, feed_dict)

    # --- Python protocol: a symbolic tensor has no value ----------------------------
    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            f"Using a symbolic `tf.Tensor` as a Python `bool` is not allowed: {self.name} has no "
            f"value while the graph is being built (values exist only inside Session.run). "
            f"A Python `if`/`while` on it would run once, now, at build time. To branch on a "
            f"tensor's value at run time use tf.cond(pred, true_fn, false_fn); to loop, use "
            f"tf.while_loop(cond, body, loop_vars); to pick elementwise, use tf.where.")

    def __iter__(self):
        raise OperatorNotAllowedInGraphError(
            f"{ITERATING_NOT_ALLOWED} ({self.name} has no value at graph-build time: index it, "
            f"t[0], or use tf.unstack / tf.while_loop.)")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}); "
                        f"use t.shape[0] (static) or tf.shape(t) (run time).")

    __hash__ = object.__hash__

    def __str__(self) -> str:
        shape = "" if self._shape is None else f"shape={self.shape}, "
        return f'Tensor("{self.name}", {shape}dtype={self._dtype.name})'

    def __repr__(self) -> str:
        """TF's repr (what ``print`` shows for tensors inside a list, tuple or dict)."""
        shape = "<unknown>" if self._shape is None else str(self.shape)
        return f"<tf.Tensor '{self.name}' shape={shape} dtype={self._dtype.name}>"


ATTR_VIEWS: dict[str, dict[str, Callable[["Operation"], Any]]] = {}
"""Per node kind, attributes TF's op has that this node keeps in another form (an ``If``'s
``then_branch`` is its ``branches[1]``): name -> how to read it from the node."""


class Operation:
    """A node: ``kind`` with registry ``op_def`` (None for structural kinds), inputs, attrs.

    ``kind`` is what the engine runs (a registry op's name, or a structural kind); ``type``
    is what TF 2 calls such a node (``AddV2`` for ``Add``, ``StridedSlice`` for ``GetItem``,
    ``GatherV2`` for a gather made with it): the two differ only where our op set is
    organised differently from TF's, and only ``type`` is shown to users."""

    __slots__ = ("graph", "name", "kind", "type", "op_def", "inputs", "attrs", "outputs",
                 "control_inputs", "site", "index", "_device", "__weakref__")

    def __init__(self, graph: "Graph", name: str, type_: str, op_def, inputs: tuple,
                 attrs: dict, specs: list, control_inputs: tuple, site: str, index: int,
                 tf_type: str | None = None):
        self.graph = graph
        self.name = name
        self.kind = type_
        self.type = tf_type or (op_def.tf_type if op_def is not None else type_)
        self.op_def = op_def
        self.inputs = inputs if type(inputs) is tuple else tuple(inputs)
        self.attrs = attrs
        self.control_inputs = control_inputs if type(control_inputs) is tuple else tuple(control_inputs)
        self.site = site
        self.index = index
        self._device = ""
        self.outputs = ((Tensor(self, 0, *specs[0]),) if len(specs) == 1 else
                        tuple([Tensor(self, i, s, d) for i, (s, d) in enumerate(specs)]))

    @property
    def device(self) -> str:
        """The requested device, as TF reports it (``/job:worker/task:1``; "" when none)."""
        return self._device

    def _set_device(self, device: str) -> None:
        self._device = device
        self.graph.invalidate()

    def get_attr(self, name: str) -> Any:
        try:
            return self.attrs[name]
        except KeyError:
            view = ATTR_VIEWS.get(self.kind, {}).get(name)
            if view is not None:
                return view(self)
            if name == "_class" and self in self.graph._colocation:   # kept beside the attrs
                return list(self.graph._colocation[self])
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.") from None

    def colocation_groups(self) -> list[bytes]:
        """TF's colocation groups: ``[b"loc:@<name>"]`` of the ops a ``tf.colocate_with``
        block made this op beside (sorted), else the op's own group ``[b"loc:@<its name>"]``."""
        return list(self.graph._colocation.get(self, ())) or [b"loc:@" + self.name.encode()]

    def run(self, feed_dict: dict | None = None, session=None) -> None:
        (session or default_session()).run(self, feed_dict)

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type={self.type}>"


class Graph:
    """Operations in creation order, TF-unique names, a name-scope stack and a version."""

    def __init__(self):
        self._ops: list[Operation] = []
        self._by_name: dict[str, Operation] = {}
        self._names_in_use: dict[str, int] = {}
        self._checked_names: tuple[set, set] = (set(), set())   # passed check_name (top, nested)
        self._name_stack = ""
        self._control_stack: list[tuple[list[Operation], set[Operation]]] = []  # (deps, made inside)
        self._device_stack: list = []
        self._colocation_stack: list[list[bytes]] = []   # the groups of each colocate_with block
        self._colocation: dict[Operation, list[bytes]] = {}   # op -> its groups (TF's _class attr)
        self._collections: dict[str, list] = {}
        self._finalized = False
        self._unfeedable: set = set()
        self._unfetchable: set = set()
        self.seed: int | None = None  # graph-level random seed (tf.set_random_seed)
        self.grad_programs: dict = {}   # control-flow node name -> what its gradient reads (never in attrs)
        self.version = 0
        self._gradient_override_map: dict[str, str] = {}   # op type -> RegisterGradient name
        self.gradient_overrides: dict[Operation, str] = {}  # node -> its overriding gradient

    # --- building -----------------------------------------------------------------
    def create_op(self, type_: str, inputs, attrs: dict, specs: list, name: str | None = None,
                  op_def=None, control_inputs=(), site: str | None = None,
                  exact_name: bool = False, tf_type: str | None = None) -> Operation:
        """Add a node; ``specs`` are (shape, dtype) per output. The single way nodes are made.

        ``exact_name``: ``name`` is already unique and scoped (taken by a ``name_scope``);
        a name ending in "/" is such a scope name too (TF's rule: ``group(name=scope)``).
        ``tf_type``: the type TF shows for this node when the op's own ``tf_type`` does not
        say it (one op serving several TF ops: ``GetItem`` as ``GatherV2`` or ``Slice``).
        """
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        for t in inputs:   # the common case (every input made here) builds no new list
            if t.op.graph is not self:
                inputs = [t if t.op.graph is self else self.capture(t, type_, inputs) for t in inputs]
                break
        deps = ()
        if control_inputs or self._control_stack:
            deps = tuple(dict.fromkeys([*control_inputs, *self._control_inputs_for(inputs)]))
            if any(d.graph is not self for d in deps):
                deps = self.capture_control(deps)
        if name and name[-1] == "/":   # TF: a scope name, used exactly
            check_name(name, bool(self._name_stack))
            name = name[:-1]
        elif not exact_name:
            name = self.unique_name(name or type_)
        op = Operation(self, name, type_, op_def, inputs, attrs, specs,
                       deps, site or creation_site(), len(self._ops), tf_type)
        if self._device_stack:
            op._device = _device.device_for(self._device_stack, op)
        if self._colocation_stack:
            groups = sorted({g for groups in self._colocation_stack for g in groups})
            if groups:
                self._colocation[op] = groups
        self._ops.append(op)
        for _, made in self._control_stack:
            made.add(op)
        self._by_name[name] = op
        self.version += 1   # invalidate(), inlined: this runs once per node
        if self._gradient_override_map and op.type in self._gradient_override_map:
            self.gradient_overrides[op] = self._gradient_override_map[op.type]
        return op

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict[str, str]):
        """Nodes of the mapped types made in this block take their gradient from the function
        registered (``tf.RegisterGradient``) under the mapped name -- TF1's way to swap one
        node's gradient (``{"Identity": "MyGrad"}``)."""
        if not isinstance(op_type_map, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    def capture(self, tensor: Tensor, type_: str = "op", inputs=()) -> Tensor:
        """A tensor of another graph used here: an error (a SubGraph captures it instead)."""
        here = next((t for t in inputs if t.op.graph is self), None)
        if here is not None:   # TF's sentence names both tensors
            raise ValueError(f"{tensor} must be from the same graph as {here} (graphs are "
                             f"{tensor.graph} and {self}).")
        raise ValueError(f"Tensor {tensor.name} must be from the same graph as the op "
                         f"being created ({type_}).")

    def _control_inputs_for(self, inputs) -> list:
        """The control inputs in scope, except a block's whose effect an input already carries
        (TF's rule: an input made inside the same ``control_dependencies`` block runs after
        them, so ``identity(read)`` depends on the read only)."""
        deps = []
        for block, made in self._control_stack:
            if not any(t.op in made for t in inputs):
                deps.extend(block)
        return deps

    def capture_control(self, deps: tuple) -> tuple:
        """Control inputs from another graph: an error here (a SubGraph hands them to its node)."""
        other = next(d for d in deps if d.graph is not self)
        raise ValueError(f"Operation {other.name} must be from the same graph as the op being "
                         f"created (control_dependencies).")

    def invalidate(self) -> None:
        """Mark what Sessions compiled from this graph as stale (bumps ``version``).

        Every change to the graph calls it; so does a change to how ops run
        (``tf.debugging.enable_check_numerics``): the next ``run`` recompiles.
        """
        self.version += 1

    def unique_name(self, name: str, mark_as_used: bool = True, check: bool = True) -> str:
        """TF's rule: prefix the scope; add ``_1``, ``_2``... ignoring case.

        ``name`` is checked as TF's ``name_scope(name)`` checks it (:func:`check_name`): every
        name a builder takes passes here, as in TF every op's ``name`` opens such a scope.
        ``check=False``: a name the engine spells as another framework does (see ``name_scope``).
        """
        if check:
            nested = bool(self._name_stack)
            checked = self._checked_names[nested]   # a set lookup: most names recur ("mul")
            if name not in checked:
                check_name(name, nested)
                checked.add(name)
        if self._name_stack:
            name = f"{self._name_stack}/{name}"
        names = self._names_in_use
        key = name.lower()
        i = names.get(key, 0)
        if mark_as_used:
            names[key] = i + 1
        if i:
            taken = f"{key}_{i}"
            while taken in names:
                i += 1
                taken = f"{key}_{i}"
            if mark_as_used:
                names[taken] = 1
            name = f"{name}_{i}"
        return name

    def name_scope(self, name: str | None, check: bool = True) -> "_NameScope":
        """Nest op names under ``name/``; a name ending in ``/`` re-enters a scope exactly.

        ``with graph.name_scope("layer") as scope:`` -- ``scope`` is ``"layer/"`` (made unique
        when entered).  A small class, not a generator: gradients() enters one per node.
        ``name`` must be one TF accepts (:func:`check_name`); ``check=False`` is for the engine's
        bridge from PyTorch, whose traced scopes are PyTorch's ``Linear[0]``.
        """
        return _NameScope(self, name, check)

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs) -> Iterator[None]:
        """Ops created inside run after ``control_inputs`` (None clears the outer ones)."""
        if control_inputs is None:
            saved, self._control_stack = self._control_stack, []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = [c if isinstance(c, Operation) else c.op if hasattr(c, "_to_tensor")
               else _as_graph_element(c).op for c in control_inputs]   # a Variable: its op
        if any(o.graph is not self for o in ops):   # a SubGraph's node waits for them, even
            self.capture_control(tuple(ops))         # if nothing is made inside (TF's FuncGraph)
        self._control_stack.append((ops, set()))
        try:
            yield
        finally:
            self._control_stack.pop()

    @contextlib.contextmanager
    def device(self, device_name_or_function) -> Iterator[None]:
        """Ops created inside ask for this device (see :mod:`staticgraph.framework.device`)."""
        self._device_stack.append(_device.scope_entry(device_name_or_function))
        try:
            yield
        finally:
            self._device_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing: bool = False) -> Iterator[None]:
        """Ops created inside ask for exactly ``op``'s device (outer ``tf.device`` scopes are
        ignored, as TF's colocation does) and join ``op``'s colocation groups (with
        ``ignore_existing``, only those: the groups of outer blocks are set aside)."""
        el = _as_graph_element(op)
        op = el.op if isinstance(el, Tensor) else el
        saved = self._device_stack, self._colocation_stack   # one swap, not three nested blocks:
        self._device_stack = [_device.scope_entry(op.device)] if op.device else []   # gradients
        self._colocation_stack = ([] if ignore_existing else saved[1]) + [op.colocation_groups()]
        try:                                                 # make one per sum they add
            yield
        finally:
            self._device_stack, self._colocation_stack = saved

    @contextlib.contextmanager
    def _colocation_scope(self, groups: list[bytes], ignore_existing: bool = False) -> Iterator[None]:
        """Ops created inside join ``groups`` (TF's ``_class`` attr: ``[b"loc:@v"]``)."""
        saved = self._colocation_stack
        self._colocation_stack = ([] if ignore_existing else list(saved)) + [groups]
        try:
            yield
        finally:
            self._colocation_stack = saved

    @contextlib.contextmanager
    def as_default(self) -> Iterator["Graph"]:
        _default_stack.append(self)
        try:
            yield self
        finally:
            _default_stack.pop()

    def prevent_feeding(self, tensor: "Tensor") -> None:
        """Refuse feeds for ``tensor`` (TF's API; control flow marks its internal outputs)."""
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor: "Tensor") -> bool:
        return tensor not in self._unfeedable

    def prevent_fetching(self, op: "Operation") -> None:
        """Refuse to fetch ``op`` or its outputs (TF's API)."""
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op: Any) -> bool:
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable

    def finalize(self) -> None:
        self._finalized = True

    @property
    def finalized(self) -> bool:
        return self._finalized

    # --- lookup --------------------------------------------------------------------
    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name: str) -> Tensor:
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            what = "refers to an Operation" if name in self._by_name else \
                "looks like an (invalid) Operation name"
            raise ValueError(f"The name '{name}' {what}, not a Tensor. Tensor names must be of the "
                             f"form \"<op_name>:<output_index>\".")
        op = self._by_name.get(op_name)
        if op is None:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The "
                           f"operation, '{op_name}', does not exist in the graph.")
        if int(index) >= len(op.outputs):
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The "
                           f"operation, '{op_name}', exists but only has {len(op.outputs)} outputs.")
        return op.outputs[int(index)]

    def get_name_scope(self) -> str:
        """The current name scope (``"a/b"``; ``""`` at the top)."""
        return self._name_stack

    def as_graph_element(self, obj: Any) -> Tensor | Operation:
        """A Tensor, Operation, or a name of either, resolved in this graph."""
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        el = _as_graph_element(obj)
        if el.graph is not self:
            raise ValueError(f"{obj} is not an element of this graph.")
        return el

    def add_to_collection(self, name: str, value: Any) -> None:
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value: Any) -> None:
        for name in dict.fromkeys([names] if isinstance(names, str) else names):
            self.add_to_collection(name, value)

    def get_collection(self, name: str, scope: str | None = None) -> list:
        """A copy of collection ``name``; with ``scope``, only items whose ``name`` matches it
        from the start (``re.match``, as TF)."""
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        pattern = re.compile(scope)
        return [i for i in items if isinstance(getattr(i, "name", None), str) and pattern.match(i.name)]

    def get_collection_ref(self, name: str) -> list:
        """The collection's list itself (created empty if absent): changing it changes the graph's."""
        return self._collections.setdefault(name, [])

    def get_all_collection_keys(self) -> list[str]:
        """The non-empty collections' names, without the engine's own ("__varscope"...)."""
        return [k for k, v in self._collections.items() if v and isinstance(k, str) and not k.startswith("__")]

    def clear_collection(self, name: str) -> None:
        self._collections.pop(name, None)

    def as_graph_def(self, add_shapes: bool = True):
        """TF's ``GraphDef`` proto of this graph (needs ``tensorboard``; see ``graph_def.py``)."""
        return GRAPH_WRITERS["graph_def"](self)

    def __str__(self) -> str:
        """One node per line in topological order, sub-graphs nested (``printing.py``)."""
        return GRAPH_WRITERS["text"](self)

    def _repr_svg_(self) -> str | None:
        """The picture a notebook shows for ``g`` (IPython's display protocol): the same
        drawing as ``python -m comparisons NAME --out DIR``, loop/branch bodies framed under
        their op, a large graph folded by name scope (None without matplotlib: text then)."""
        from common.display import static_graph, svg_or_none  # networkx, matplotlib: on display
        return svg_or_none(static_graph(self))


class _NameScope:
    """The context manager :meth:`Graph.name_scope` returns (the name is taken on entry)."""

    __slots__ = ("graph", "name", "check", "old")

    def __init__(self, graph: Graph, name: str | None, check: bool = True):
        self.graph, self.name, self.check = graph, name, check

    def __enter__(self) -> str:
        graph, name = self.graph, self.name
        self.old = graph._name_stack
        if not name:
            new = ""
        elif name.endswith("/"):
            if self.check:
                check_name(name, bool(graph._name_stack))
            new = name[:-1]
        else:
            new = graph.unique_name(name, check=self.check)
        graph._name_stack = new
        return (new + "/") if new else ""

    def __exit__(self, *exc) -> None:
        self.graph._name_stack = self.old


class SubGraph(Graph):
    """A body/branch graph (control flow): outer tensors it uses become explicit inputs.

    Using a tensor of an enclosing graph inside ``with sub.as_default():`` creates
    a Placeholder here (once per tensor) and records it in ``captures``
    (outer tensor -> inner placeholder).  A kernel that runs the sub-graph's plan
    feeds those placeholders with the outer values: captured tensors are extra
    inputs of the control-flow node, so pruning and ordering see them.
    """

    is_control_flow_graph = True
    """TF's mark of a loop body's or branch's graph (its FuncGraph attribute)."""

    def __init__(self, outer: Graph, name: str = "body", role: str | None = None):
        super().__init__()
        self.outer = outer
        self.name = name
        self.role = role   # how TF's errors name it: "true_fn", "false_fn" (a cond's branches)
        self.captures: dict[Tensor, Tensor] = {}
        self.captured_from: dict[Tensor, Tensor] = {}   # the inverse: placeholder -> outer tensor
        self.control_captures: list[Operation] = []
        self._device_stack = list(outer._device_stack)   # TF: a body's ops inherit tf.device
        if self.is_control_flow_graph:   # TF: a body or branch reads and adds to its graph's
            self._collections = outer._collections   # collections (the same tables)

    def capture_control(self, deps: tuple) -> tuple:
        """An op here waits for ops of an enclosing graph: the control-flow node waits instead
        (it runs after them, so everything inside does too)."""
        for d in deps:
            if d.graph is not self:
                if d.graph is not self.outer and isinstance(self.outer, SubGraph):
                    self.outer.capture_control((d,))
                    d = None
                if d is not None and d not in self.control_captures:
                    self.control_captures.append(d)
        return tuple(d for d in deps if d.graph is self)

    def capture(self, tensor: Tensor, type_: str = "op", inputs=()) -> Tensor:
        home = tensor.op.graph
        if self.role and getattr(home, "outer", None) is self.outer and getattr(home, "role", None):
            raise ValueError(f"Tensor {tensor.name} in {home.role} is accessed from {self.role}.")
        if home is not self.outer:      # from further out: the outer graph captures first
            if not isinstance(self.outer, SubGraph):
                return super().capture(tensor, type_)
            tensor = self.outer.capture(tensor, type_)
        inner = self.captures.get(tensor)
        if inner is None:
            saved, self._name_stack = self._name_stack, ""
            try:   # outside any control_dependencies block (TF's capture): no waits, and an op
                with self.control_dependencies(None):   # using it still gets the block's deps
                    name = "capture_" + tensor.op.name.replace("/", "_")   # a node's: no check
                    op = self.create_op("Placeholder", (), {"dtype": tensor.dtype, "shape": tensor._shape},
                                        [(tensor._shape, tensor.dtype)],
                                        name=self.unique_name(name, check=False), exact_name=True)
            finally:
                self._name_stack = saved
            inner = self.captures[tensor] = op.outputs[0]
            self.captured_from[inner] = tensor
        return inner


_PLAIN = frozenset({int, float, bool, complex, str, bytes, list, tuple, type(None), np.ndarray,
                    np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                    np.uint8, np.bool_})


def tensor_of(obj: Any) -> Tensor | None:
    """``obj`` as the Tensor an op would use, or None: a Tensor itself, a Variable's read
    made here and now (``_to_tensor``), or another object's graph element."""
    if isinstance(obj, Tensor):
        return obj
    if type(obj) in _PLAIN:   # no conversion hooks to look for (a failed getattr is slow)
        return None
    conv = getattr(obj, "_to_tensor", None) or getattr(obj, "_as_graph_element", None)
    return None if conv is None else conv()


def _as_graph_element(obj: Any) -> Tensor | Operation:
    if isinstance(obj, (Tensor, Operation)):
        return obj
    conv = getattr(obj, "_as_graph_element", None)
    if conv is None:
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")
    return conv()


# --- the default graph --------------------------------------------------------------

_default_stack: list[Graph] = []
_global_graph = Graph()


def get_default_graph() -> Graph:
    return _default_stack[-1] if _default_stack else _global_graph


def entered_graph() -> Graph | None:
    """The graph a ``with g.as_default():`` block (a loop body, a branch, a function's trace)
    has entered, or None at the top level, where only the global default graph is."""
    return _default_stack[-1] if _default_stack else None


def reset_default_graph() -> None:
    """A fresh global default graph (not allowed inside a ``with g.as_default()`` block)."""
    global _global_graph
    if _default_stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If "
                             "you need a cleared graph, exit the nesting and create a new graph.")
    _global_graph = Graph()


# --- the default session (here, as in TF's framework/ops.py: Tensor.eval and Operation.run
# need it, and the Session class, which builds on graphs, cannot be imported by them) ----------

session_stack: list = []
"""The sessions made default, innermost last: ``with sess:``, ``sess.as_default()`` and an
``InteractiveSession`` push onto it (``client/session.py``)."""


def get_default_session():
    return session_stack[-1] if session_stack else None


def default_session():
    """The default session, for ``Tensor.eval()`` / ``Operation.run()`` without ``session=``."""
    if not session_stack:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. "
                         "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    return session_stack[-1]


def name_scope(name: str | None, default_name: str | None = None, values=None):
    """``with tf.name_scope("layer1"):`` on the default graph."""
    return get_default_graph().name_scope(name or default_name)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):
    """``with tf.device("/job:worker/task:1"):`` on the default graph (TF's merging rules)."""
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing: bool = False):
    """``with tf.colocate_with(v):`` on the default graph: new ops ask for ``v``'s device."""
    return get_default_graph().colocate_with(op, ignore_existing)

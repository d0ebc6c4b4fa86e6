"""``Variable``: state that lives in a Session across runs -- TF 2's resource variables.

What ``tf.compat.v1.Variable(1.0, name="v")`` builds (the same nodes as TF)::

    v/Initializer/initial_value   Const
    v                             VarHandleOp            (v.name == "v:0", v.op)
    v/IsInitialized/VarIsInitializedOp
    v/Assign                      AssignVariableOp(v, initial_value)   (v.initializer)
    v/Read/ReadVariableOp         ReadVariableOp(v)      (what fetching ``v`` runs)

**Every use of a variable is a read made where the use is.**  ``v + 1``,
``tf.identity(v)`` or a loop body using ``v`` each get their own
``ReadVariableOp``, created under the control dependencies in scope, so a read
ordered after a write (by ``control_dependencies``) sees it, and a read inside a
``while_loop`` body runs every iteration.  ``assign``/``assign_add``/
``assign_sub`` return an *unread variable*: every use of it reads the variable
again, after the assignment (``read_value=False`` returns the assignment op).

**TF1 classic mode** (``tf.compat.v1.disable_resource_variables()`` or
``disable_v2_behavior()``, :mod:`..framework.behavior`): a new variable is a *ref variable*
as TF 1.x built it -- the same engine nodes, shown as TF shows them::

    v/initial_value               Const
    v                             VariableV2   (a VarHandleOp)       v.dtype: float32_ref
    v/Assign                      Assign       (an AssignVariableOp) (v.initializer)
    v/read                        Identity     (a ReadVariableOp)    (every use of v)

Every use of a ref variable is that one snapshot ``v/read:0`` (TF's ``RefVariable``: a
loop body using ``v`` reads it once, before the loop); ``read_value()`` makes a new read
(``read``).  An uninitialized ref variable raises TF1's words (``Attempting to use
uninitialized value v``).

Values are stored per Session (``SessionState.variables``), keyed by variable
name, as read-only arrays: an assignment stores a new array and never changes
one in place, so a value read earlier in a run keeps it.
"""
from __future__ import annotations

import enum
import inspect
import re
from typing import Any, NamedTuple

import numpy as np

from ..framework import behavior
from ..framework import dtypes as _dtypes
from ..framework.build import F, constant, convert_to_tensor
from ..framework.error_text import input_names, shape_inference_error, tf_shape
from ..framework.errors import OperatorNotAllowedInGraphError
from ..framework.graph import (ITERATING_NOT_ALLOWED, Operation, SubGraph, Tensor, creation_site,
                               default_session, get_default_graph)
from ..framework.kinds import handle_op
from ..framework.sources import group
from ..framework.indexed_slices import IndexedSlices
from ..framework.shape import TensorShape, as_shape_tuple
from ..ops.array_ops import boolean_mask, gather, gather_nd, rank
from ..ops.core_ops import logical_not, stack
from ..ops.state_ops import batch_scatter_update, scatter_node
from ..control.control_flow import cond

__all__ = ["Variable", "global_variables_initializer", "variables_initializer",
           "initialize_all_variables", "global_variables", "trainable_variables",
           "local_variables", "is_variable_initialized", "read_handle", "GLOBAL_VARIABLES", "TRAINABLE_VARIABLES",
           "assign", "assign_add", "assign_sub", "report_uninitialized_variables", "count_up_to",
           "assert_variables_initialized", "VariableSynchronization", "VariableAggregation"]

GLOBAL_VARIABLES = "variables"
TRAINABLE_VARIABLES = "trainable_variables"
LOCAL_VARIABLES = "local_variables"


class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies agree (accepted; one copy here).  ``ON_READ``
    variables are not trainable unless asked (TF)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's copies' updates combine (accepted; one copy here)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def _root(graph):
    """Variables live in the outermost graph (TF's ``init_scope``): a loop body may use one,
    but creating it there would make a new variable per body build.  A traced function's
    graph (not a control-flow graph) keeps the variables its body makes."""
    while getattr(graph, "outer", None) is not None and graph.is_control_flow_graph:
        graph = graph.outer
    return graph


def _unliftable(init: Tensor, name: str | None, scope: str) -> str:
    """TF's words for an initial value made inside a loop body or branch: the variable
    lives in the outermost graph, which cannot compute it (v1 control flow words it
    differently)."""
    if behavior.control_flow_v2_enabled():
        return (f"Argument `initial_value` ({init}) could not be lifted out of a `tf.function`. "
                f"(Tried to create variable with name='{name}'). To avoid this error, when "
                f"constructing `tf.Variable`s inside of `tf.function` you can create the "
                f"`initial_value` tensor in a `tf.init_scope` or pass a callable `initial_value` "
                f"(e.g., `tf.Variable(lambda : tf.truncated_normal([10, 40]))`). Please file a "
                f"feature request if this restriction inconveniences you.")
    return (f"The `initial_value` passed to `tf.Variable` {scope} is from inside a "
            f"control-flow  construct, such as a loop or conditional. When creating a "
            f"`tf.Variable` inside a loop or conditional, use a lambda as the `initial_value`. "
            f"Got: initial_value=({init})")


def read_handle(handle: Tensor, name: str = "ReadVariableOp") -> Tensor:
    """A ``ReadVariableOp`` of any handle tensor (a captured one too) in the default graph."""
    var = handle_op(handle).attrs
    op = get_default_graph().create_op(
        "ReadVariableOp", (handle,), {"var": var["shared_name"], "dtype": var["dtype"]},
        [(var["shape"], var["dtype"]._np)], name=name)
    return op.outputs[0]


CREATORS = ("__variable_creators",)
"""The root graph's collection of ``variable_creator_scope`` creators, outermost first."""


class _CreatedThroughCreators(type):
    """``Variable(...)`` goes through the ``tf.variable_creator_scope`` creators of the graph,
    when there are some (TF's variable metaclass): the innermost is called first, as
    ``creator(next_creator, **kwargs)`` with every constructor argument by name, and the
    outermost's ``next_creator`` builds the variable."""

    def __call__(cls, *args, **kwargs):
        creators = _root(get_default_graph()).get_collection(CREATORS) if cls is Variable else ()
        if not creators:
            return super().__call__(*args, **kwargs)
        bound = _SIGNATURE.bind(None, *args, **kwargs)
        bound.apply_defaults()
        arguments = {k: v for k, v in bound.arguments.items() if k != "self"}

        def build(**kw):
            return type.__call__(cls, **kw)
        create = build
        for creator in creators:
            create = (lambda c, inner: lambda **kw: c(inner, **kw))(creator, create)
        return create(**arguments)


class Variable(metaclass=_CreatedThroughCreators):
    """A named, session-held value; each use in an op reads it there (see the module docstring).

    >>> v = Variable(1.0, name="v")          # doctest: +SKIP
    >>> v                                     # doctest: +SKIP
    <tf.Variable 'v:0' shape=() dtype=float32>
    """

    def __init__(self, initial_value: Any = None, trainable: bool | None = None, collections=None,
                 validate_shape: bool = True, caching_device=None, name: str | None = None,
                 variable_def=None, dtype=None, expected_shape=None, import_scope=None,
                 constraint=None, use_resource=None, synchronization=None, aggregation=None,
                 shape=None):
        if variable_def is not None:   # re-attach to the nodes a VariableDef names (TF)
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            graph = get_default_graph()
            self._attach(graph, variable_def.variable_name.split(":")[0],
                         variable_def.initializer_name, variable_def.initial_value_name,
                         variable_def.snapshot_name, variable_def.trainable)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if constraint is not None and not callable(constraint):   # (TF's words, repeated "a callable")
            raise ValueError(f"Argument `constraint` must be None or a callable. a callable. "
                             f"Got a {type(constraint)}:  {constraint}")
        self._constraint, self._caching_device = constraint, caching_device
        if isinstance(dtype, _dtypes.DType):   # TF1 code passes a ref variable's: float32_ref
            dtype = dtype.base_dtype
        graph = _root(get_default_graph())
        # TF: an explicit use_resource wins over the mode
        ref = not (behavior.resource_variables_enabled() if use_resource is None else use_resource)
        with graph.as_default(), graph.control_dependencies(None), \
                graph.name_scope(name or "Variable") as scope:
            shared = scope[:-1]
            if ref and not callable(initial_value):   # TF's RefVariable: ``v/initial_value``
                init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            else:
                with graph.name_scope("Initializer"):
                    if callable(initial_value):   # TF: made beside the variable, on no device
                        with graph.device(None), graph._colocation_scope([f"loc:@{shared}".encode()]):
                            initial_value = initial_value()
                            init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
                    else:
                        init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            if init.graph is not graph:
                raise ValueError(_unliftable(init, name, scope))
            if dtype is not None and init.dtype != _dtypes.as_dtype(dtype):
                raise ValueError(f"initial value dtype {init.dtype.name} does not match {dtype}")
            if shape is not None:
                var_shape = as_shape_tuple(shape)
                if not init.shape.is_compatible_with(TensorShape(var_shape)):
                    raise ValueError(f"In this `tf.Variable` creation, the initial value's shape "
                                     f"({init.shape}) is not compatible with the explicitly "
                                     f"supplied `shape` argument ({list(var_shape)}).")
            else:
                var_shape = init._shape if validate_shape else None
            self._dtype = init.dtype
            self._shape = var_shape
            self._shared = shared
            site = creation_site()   # the caller's line, found once for the four nodes below
            self._handle = graph.create_op(
                "VarHandleOp", (), {"shape": var_shape, "dtype": init.dtype, "shared_name": shared},
                [((), _dtypes.resource)], name=shared, exact_name=True, site=site,
                tf_type="VariableV2" if ref else None).outputs[0]
            self._is_initialized = None   # a ref variable makes it when asked (TF)
            if not ref:
                with graph.name_scope("IsInitialized"):
                    self._is_initialized = self._is_initialized_op("VarIsInitializedOp", site)
            self.initializer = graph.create_op(
                "AssignVariableOp", (self._handle, init), {"var": shared, "dtype": init.dtype}, [],
                name="Assign", site=site, tf_type="Assign" if ref else None)
            self._initial_value = init
            if ref:
                self._graph_element = self._read("read", site, tf_type="Identity")
            else:
                with graph.name_scope("Read"):
                    self._graph_element = self._read(site=site)
        self._ref = ref
        if trainable is None:   # a variable synchronized on read is not trained unless asked
            trainable = synchronization != VariableSynchronization.ON_READ
        self.trainable = bool(trainable)
        self._parent_op = None
        if collections is None:
            collections = [GLOBAL_VARIABLES] + ([TRAINABLE_VARIABLES] if self.trainable else [])
        for c in collections:
            graph.add_to_collection(c, self)

    @classmethod
    def from_graph(cls, graph, op_name: str, init: str, initial_value: str, read: str,
                   trainable: bool, collections=None) -> "Variable":
        """Re-attach a Variable to nodes that already exist (a graph loaded from JSON)."""
        self = cls.__new__(cls)
        self._attach(graph, op_name, init, initial_value, read, trainable)
        for c in collections or [GLOBAL_VARIABLES] + ([TRAINABLE_VARIABLES] if trainable else []):
            graph.add_to_collection(c, self)
        return self

    def _attach(self, graph, op_name: str, init: str, initial_value: str, read: str,
                trainable: bool) -> None:
        """This Variable's state from nodes already in ``graph`` (no new nodes)."""
        handle_op = graph.get_operation_by_name(op_name)
        self._handle = handle_op.outputs[0]
        self._shared = handle_op.attrs["shared_name"]
        self._shape, self._dtype = handle_op.attrs["shape"], handle_op.attrs["dtype"]
        self._ref = handle_op.type == "VariableV2"
        found = (op.outputs[0] for op in graph._ops
                 if op.kind == "VarIsInitializedOp" and op.inputs[0] is self._handle)
        # a resource variable has one (a file without it is damaged); a ref one may not yet
        self._is_initialized = next(found, None) if self._ref else next(found)
        self.initializer = graph.get_operation_by_name(init)
        self._initial_value = graph.get_tensor_by_name(initial_value)
        self._graph_element = graph.get_tensor_by_name(read)
        self.trainable = trainable
        self._parent_op = None
        self._constraint = self._caching_device = None

    def to_proto(self, export_scope=None) -> "VariableDef":
        """The names of this variable's nodes (TF's ``VariableDef``): ``Variable(variable_def=)``
        and ``Variable.from_proto`` re-attach to them."""
        return VariableDef(self.name, self.initializer.name, self._graph_element.name,
                           self._initial_value.name, self.trainable, not self._ref)

    @staticmethod
    def from_proto(variable_def: "VariableDef", import_scope=None) -> "Variable":
        return Variable(variable_def=variable_def, import_scope=import_scope)

    def __iter__(self):
        raise OperatorNotAllowedInGraphError(ITERATING_NOT_ALLOWED)

    def __deepcopy__(self, memo):
        raise NotImplementedError("__deepcopy__() is only available when eager execution is "
                                  "enabled.")

    # --- reads --------------------------------------------------------------------------
    def _read(self, name: str = "ReadVariableOp", site: str | None = None,
              tf_type: str | None = None) -> Tensor:
        """A new read of the variable in the default graph (a loop body captures the handle)."""
        op = get_default_graph().create_op(
            "ReadVariableOp", (self._handle,), {"var": self._shared, "dtype": self._dtype},
            [(self._shape, self._dtype._np)], name=name, site=site, tf_type=tf_type)
        return op.outputs[0]

    def _is_initialized_op(self, name: str, site: str | None = None,
                           tf_type: str | None = None) -> Tensor:
        op = get_default_graph().create_op(
            "VarIsInitializedOp", (self._handle,), {"var": self._shared},
            [((), _dtypes.bool._np)], name=name, site=site, tf_type=tf_type)
        return op.outputs[0]

    def _to_tensor(self) -> Tensor:
        """What an op using this variable reads: a read made here, now (a ref variable: its
        one snapshot ``v/read``, as TF1)."""
        return self._graph_element if self._ref else self._read()

    def _as_graph_element(self) -> Tensor:
        """What fetching the variable (or depending on it) means: its snapshot read."""
        return self._graph_element

    def value(self) -> Tensor:
        """A read here; with a ``caching_device``, a read placed on that device (TF's cached
        copy: ``<name>/Read/Identity`` there), wherever the variable itself lives."""
        if self._caching_device is None:
            return self._to_tensor()
        graph = get_default_graph()
        with graph.device(None), graph.device(self._caching_device), \
                graph._colocation_scope([], ignore_existing=True):   # TF: colocated with nothing
            return F.identity(self._to_tensor())

    def sparse_read(self, indices: Any, name: str | None = None) -> Tensor:
        """The rows ``indices`` of the variable (a gather of one read: ``Gather``)."""
        return gather(self._to_tensor(), indices, name=name or "Gather")

    def gather_nd(self, indices: Any, name: str | None = None) -> Tensor:
        """``gather_nd`` of one read of the variable."""
        return gather_nd(self._to_tensor(), indices, name=name or "GatherNd")

    def count_up_to(self, limit: int) -> Tensor:
        """Add one per run and return the value before (TF's ``ResourceCountUpTo``); a run
        that finds the value at ``limit`` fails with ``OutOfRangeError: Reached limit of ...``."""
        return count_up_to(self, limit)

    @property
    def constraint(self):
        """The projection an optimizer applies after each update (None: none); kept, as TF."""
        return self._constraint

    def read_value(self) -> Tensor:
        """A fresh read, ordered by the control dependencies in scope (``Read/ReadVariableOp``)."""
        if self._ref:   # TF's RefVariable: ``identity(v, name="read")``
            return self._read("read", tf_type="Identity")
        with get_default_graph().name_scope("Read"):
            read = self._to_tensor()
        return F.identity(read)

    def initialized_value(self) -> Tensor:
        """The initial value if the variable is uninitialized when this runs, else its value."""
        return cond(self.is_initialized(), self.read_value, lambda: self._initial_value)

    def is_initialized(self, name: str | None = None) -> Tensor:
        if self._is_initialized is None:   # a ref variable's, made when first asked (TF)
            graph = _root(get_default_graph())
            with graph.as_default(), graph.control_dependencies(None):
                self._is_initialized = self._is_initialized_op(
                    name or "IsVariableInitialized", tf_type="IsVariableInitialized")
        return self._is_initialized

    def eval(self, session=None):
        return (session or default_session()).run(self)

    def load(self, value: Any, session=None) -> None:
        """Store ``value`` in the variable (TF's ``Variable.load``: no new graph nodes per call)."""
        (session or default_session()).run(self.initializer, {self._initial_value: value})

    # --- static facts ------------------------------------------------------------------
    @property
    def handle(self) -> Tensor:
        return self._handle

    @property
    def op(self) -> Operation:
        return self._handle.op if self._parent_op is None else self._parent_op

    @property
    def name(self) -> str:
        return self._handle.name

    @property
    def graph(self):
        return self._handle.graph

    @property
    def dtype(self) -> _dtypes.DType:
        """The value's dtype; a ref variable's is TF1's reference dtype (``float32_ref``)."""
        return self._dtype._as_ref if self._ref else self._dtype

    @property
    def device(self) -> str:
        return self.op.device

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._shape)

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def initial_value(self) -> Tensor:
        return self._initial_value

    # --- assignment ----------------------------------------------------------------
    def _assign_op(self, kind: str, value: Any, name: str | None, read_value: bool):
        value = convert_to_tensor(value, dtype=self._dtype)
        if kind == "AssignVariableOp":
            self._check_assign_shape(value)
        else:
            self._check_update_shape(kind, value, name)
        op = get_default_graph().create_op(kind, (self._handle, value),
                                           {"var": self._shared, "dtype": self._dtype}, [],
                                           name=name or kind)
        return _UnreadVariable(self, op) if read_value else op

    def _ref_assign_op(self, kind: str, tf_type: str, value: Any, name: str | None):
        """A ref variable's assignment, named and typed as TF1's (``Assign/value``, ``Assign``)."""
        graph = get_default_graph()
        with graph.name_scope(name or tf_type) as scope:
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            self._check_assign_shape(value)
            op = graph.create_op(kind, (self._handle, value),
                                 {"var": self._shared, "dtype": self._dtype}, [],
                                 name=scope, tf_type=tf_type)
        return _RefAssignment(self, op)

    def _check_update_shape(self, kind: str, value: Tensor, name: str | None) -> None:
        """assign_add/assign_sub: the op's own shape function (TF has no Python check there)."""
        if self._shape is None or value.shape.rank is None:
            return
        want, got = list(self._shape), value.shape.as_list()
        if len(want) != len(got):
            reason = f"Shapes must be equal rank, but are {len(want)} and {len(got)}"
        else:
            bad = [(i, a, b) for i, (a, b) in enumerate(zip(want, got))
                   if a is not None and b is not None and a != b]
            if not bad:
                return
            i, a, b = bad[0]
            reason = (f"Dimension {i} in both shapes must be equal, but are {a} and {b}. "
                      f"Shapes are {tf_shape(want)} and {tf_shape(got)}.")
        node = get_default_graph().unique_name(name or kind, mark_as_used=False)
        raise ValueError(shape_inference_error(reason, node, kind, {"dtype": self._dtype},
                                               input_names((self._handle, value)), [(), got]))

    def _check_assign_shape(self, value: Tensor) -> None:
        if self._shape is not None and not value.shape.is_compatible_with(self._shape):
            raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch."
                             f"The variable shape {self.shape}, and the assigned value shape "
                             f"{value.shape} are incompatible.")

    def assign(self, value: Any, use_locking=None, name: str | None = None, read_value: bool = True):
        if self._ref:
            return self._ref_assign_op("AssignVariableOp", "Assign", value, name)
        return self._assign_op("AssignVariableOp", value, name, read_value)

    def assign_add(self, delta: Any, use_locking=None, name: str | None = None, read_value: bool = True):
        if self._ref:
            return self._ref_assign_op("AssignAddVariableOp", "AssignAdd", delta, name)
        return self._assign_op("AssignAddVariableOp", delta, name, read_value)

    def assign_sub(self, delta: Any, use_locking=None, name: str | None = None, read_value: bool = True):
        if self._ref:
            return self._ref_assign_op("AssignSubVariableOp", "AssignSub", delta, name)
        return self._assign_op("AssignSubVariableOp", delta, name, read_value)

    # --- sparse updates (one Resource* scatter node each: ops/state_ops.py) -----------
    def _scatter(self, kind: str, indices: Any, updates: Any, name: str | None) -> "_UnreadVariable":
        return _UnreadVariable(self, scatter_node(kind, self, indices, updates, name))

    def _sparse(self, kind: str, sparse_delta: IndexedSlices, name: str | None):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return self._scatter(kind, sparse_delta.indices, sparse_delta.values, name)

    def _sparse_method(kind: str, what: str):   # (used in the class body below)
        def method(self, sparse_delta: IndexedSlices, use_locking=False, name=None):
            return self._sparse(kind, sparse_delta, name)
        method.__doc__ = f"{what}: ``sparse_delta`` an IndexedSlices (one ``{kind}`` node)."
        return method

    scatter_add = _sparse_method("ResourceScatterAdd", "Add its rows to this variable's rows")
    scatter_sub = _sparse_method("ResourceScatterSub", "Subtract its rows")
    scatter_mul = _sparse_method("ResourceScatterMul", "Multiply by its rows")
    scatter_div = _sparse_method("ResourceScatterDiv", "Divide by its rows")
    scatter_min = _sparse_method("ResourceScatterMin", "The minimum with its rows")
    scatter_max = _sparse_method("ResourceScatterMax", "The maximum with its rows")
    scatter_update = _sparse_method("ResourceScatterUpdate", "Overwrite the rows it names")
    del _sparse_method

    def batch_scatter_update(self, sparse_delta: IndexedSlices, use_locking=False, name=None):
        """Rows picked per batch entry (see :func:`staticgraph.ops.state_ops.batch_scatter_update`)."""
        return batch_scatter_update(self, sparse_delta.indices, sparse_delta.values, name=name)

    def scatter_nd_add(self, indices, updates, name=None):
        """Add ``updates`` at the index tuples along ``indices``' last axis."""
        return self._scatter("ResourceScatterNdAdd", indices, updates, name)

    def scatter_nd_sub(self, indices, updates, name=None):
        return self._scatter("ResourceScatterNdSub", indices, updates, name)

    def scatter_nd_update(self, indices, updates, name=None):
        return self._scatter("ResourceScatterNdUpdate", indices, updates, name)

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    _save_slice_info = None   # a partitioned variable's piece: where it sits (SaveSliceInfo)

    def _set_save_slice_info(self, save_slice_info: "Variable.SaveSliceInfo") -> None:
        """Mark this variable as a piece of a larger one (TF's name; the Saver then writes
        the pieces sharing a ``full_name`` as one whole entry)."""
        self._save_slice_info = save_slice_info

    class SaveSliceInfo:
        """Where a partition lives in the full variable a checkpoint holds: its offset and shape
        in ``full_shape``.  ``spec`` is the checkpoint's text form, ``"2 3 4 0,1:2,1:0,3"``
        (the full shape, then ``offset,size`` per dimension)."""

        def __init__(self, full_name: str | None = None, full_shape=None, var_offset=None,
                     var_shape=None, save_slice_info_def=None, import_scope=None):
            self.full_name, self.full_shape = full_name, full_shape
            self.var_offset, self.var_shape = var_offset, var_shape

        @property
        def spec(self) -> str:
            full = " ".join(str(d) for d in self.full_shape)
            parts = ":".join(f"{o},{n}" for o, n in zip(self.var_offset, self.var_shape))
            return f"{full} {parts}"

        @classmethod
        def from_spec(cls, spec: str) -> "Variable.SaveSliceInfo":
            """The slice a ``spec`` names (no ``full_name``); TF's ValueErrors for a bad one."""
            if " " not in spec:
                raise ValueError("Spec string must contain space-separated full_shape info.")
            *dims, slices = spec.split(" ")
            full_shape = [_spec_int(d, "full_shape must be a sequence of integers") for d in dims]
            offsets, sizes = [], []
            for pair in slices.split(":"):
                if pair.count(",") != 1:
                    raise ValueError("Spec string must contain comma-separated pairs of offsets "
                                     "and shapes.")
                offset, size = pair.split(",")
                offsets.append(_spec_int(offset, "var_offset must be an integer"))
                sizes.append(_spec_int(size, "var_shape must be an integer"))
            return cls(full_shape=full_shape, var_offset=offsets, var_shape=sizes)


def _spec_int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"Spec string {what}. Found '{text}', which is not an integer.") from None


_SIGNATURE = inspect.signature(Variable.__init__)


class VariableDef(NamedTuple):
    """What TF's ``VariableDef`` proto holds: the names of a variable's nodes."""
    variable_name: str
    initializer_name: str
    snapshot_name: str
    initial_value_name: str
    trainable: bool = True
    is_resource: bool = True


class _UnreadVariable(Variable):
    """What an assignment returns: the variable, read *after* that assignment at every use.

    Its ``op`` is the assignment (so ``group``/``control_dependencies`` order on it), and
    fetching it runs the assignment and returns the value written (a read made right after).
    """

    def __init__(self, parent: Variable, assign_op: Operation):  # shares parent's state: no super().__init__
        self._handle, self._shared = parent._handle, parent._shared
        self._shape, self._dtype = parent._shape, parent._dtype
        self._is_initialized, self._ref = parent._is_initialized, parent._ref
        self.initializer, self._initial_value = parent.initializer, parent._initial_value
        self.trainable = parent.trainable
        self._constraint, self._caching_device = parent._constraint, parent._caching_device
        self._parent_op = assign_op
        self._graph_element = None
        if not isinstance(get_default_graph(), SubGraph):   # TF: a function or a loop body
            self._as_graph_element()                         # reads only when asked to

    def _as_graph_element(self) -> Tensor:
        if self._graph_element is None:
            graph = self._parent_op.graph
            with graph.as_default(), graph.control_dependencies([self._parent_op]):
                self._graph_element = self._read()
        return self._graph_element

    def _to_tensor(self) -> Tensor:
        with get_default_graph().control_dependencies([self._parent_op]):
            return self._read()

    @property
    def name(self) -> str:
        return self._parent_op.name

    def __repr__(self) -> str:
        return f"<tf.Variable '{self._parent_op.name}' shape={self.shape} dtype={self.dtype.name}>"


def global_variables(scope: str | None = None) -> list[Variable]:
    return _filtered(GLOBAL_VARIABLES, scope)


def trainable_variables(scope: str | None = None) -> list[Variable]:
    return _filtered(TRAINABLE_VARIABLES, scope)


def local_variables(scope: str | None = None) -> list[Variable]:
    return _filtered(LOCAL_VARIABLES, scope)


def _filtered(key: str, scope: str | None) -> list[Variable]:
    """The collection, or its variables whose name matches ``scope`` from the start (TF)."""
    found = get_default_graph().get_collection(key)
    return found if scope is None else [v for v in found if re.match(scope, v.name)]


def variables_initializer(var_list, name: str = "init") -> Operation:
    return group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer() -> Operation:
    return variables_initializer(global_variables(), name="init")


initialize_all_variables = global_variables_initializer


def is_variable_initialized(variable: Variable) -> Tensor:
    return variable.is_initialized()



def assign(ref: Variable, value: Any, validate_shape=None, use_locking=None, name: str | None = None):
    """``tf.assign(v, value)``: ``v.assign(value)`` (TF1's module-level spelling)."""
    return ref.assign(value, name=name)


def assign_add(ref: Variable, value: Any, use_locking=None, name: str | None = None):
    """``tf.assign_add(v, delta)``: ``v.assign_add(delta)``."""
    return ref.assign_add(value, name=name)


def assign_sub(ref: Variable, value: Any, use_locking=None, name: str | None = None):
    """``tf.assign_sub(v, delta)``: ``v.assign_sub(delta)``."""
    return ref.assign_sub(value, name=name)


def count_up_to(ref: Variable, limit: int, name: str | None = None) -> Tensor:
    """``tf.count_up_to(v, limit)``: one ``ResourceCountUpTo`` node (``CountUpTo`` for a TF1
    ref variable) that adds one to ``v`` per run and returns the value before the addition."""
    graph = get_default_graph()
    op = graph.create_op("ResourceCountUpTo", (ref.handle,),
                         {"var": ref._shared, "limit": int(limit), "T": ref._dtype},
                         [(ref._shape, ref._dtype._np)], name=name or "ResourceCountUpTo",
                         tf_type="CountUpTo" if ref._ref else None)
    return op.outputs[0]


def assert_variables_initialized(var_list=None):
    """TF1's check: the ranks of ``var_list`` (default: global and local variables) stacked,
    None when there are none."""
    if var_list is None:
        var_list = [*global_variables(), *local_variables()]
    if not var_list:
        return None
    return stack([rank(v._to_tensor()) for v in var_list])


def report_uninitialized_variables(var_list=None, name: str = "report_uninitialized_variables") -> Tensor:
    """The names (a 1-D string tensor) of the variables in ``var_list`` (default: global and
    local variables) that are not initialized yet, as TF reports them.

    >>> import staticgraph as tf
    >>> v = tf.Variable(1.0, name="v")
    >>> with tf.Session() as s: print(s.run(tf.report_uninitialized_variables()))
    [b'v']
    """
    graph = get_default_graph()
    if var_list is None:
        var_list = [*global_variables(), *local_variables()]
    with graph.name_scope(name):
        names = np.empty(len(var_list), dtype=object)
        names[:] = [v.op.name.encode() for v in var_list]
        if not var_list:
            return constant(np.array([], dtype=bytes), dtype=_dtypes.string)
        done = stack([v.is_initialized() for v in var_list])
        return boolean_mask(constant(names, dtype=_dtypes.string), logical_not(done))


class _RefAssignment(_UnreadVariable):
    """What a ref variable's assignment returns in classic mode: shown as TF1's ref tensor
    (``<tf.Tensor 'Assign:0' shape=() dtype=float32_ref>``), used as the value written."""

    @property
    def name(self) -> str:
        return f"{self._parent_op.name}:0"

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

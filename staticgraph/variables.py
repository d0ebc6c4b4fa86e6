"""``Variable``: state that lives in a Session across runs (TF1 ref-variable semantics).

::

    Variable "w"  --  VariableV2 node "w" (reads the session's value at run time)
                  --  initializer: Assign "w/Assign" <- initial value ("w/initial_value")
    w.assign(x)   --  Assign node; x's value is stored, the op's output is the new value

Values are stored per Session (``SessionState.variables``), keyed by variable
name; reading before initialization raises ``FailedPreconditionError``.
Assignments store new arrays (never mutate in place), so a read earlier in the
same run keeps its value -- runs are deterministic in the plan's order.
"""
from __future__ import annotations

from typing import Any

from . import dtypes as _dtypes
from .build import convert_to_tensor
from .graph import Operation, Tensor, get_default_graph
from .sources import group
from .shape import as_shape_tuple

__all__ = ["Variable", "global_variables_initializer", "variables_initializer",
           "initialize_all_variables", "global_variables", "trainable_variables",
           "GLOBAL_VARIABLES", "TRAINABLE_VARIABLES"]

GLOBAL_VARIABLES = "variables"
TRAINABLE_VARIABLES = "trainable_variables"


class Variable:
    """A named, session-held tensor value; used in ops as its read tensor."""

    def __init__(self, initial_value: Any = None, trainable: bool = True, name: str | None = None,
                 dtype=None, validate_shape: bool = True, collections=None):
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        graph = get_default_graph()
        with graph.name_scope(name or "Variable") as scope:
            name = scope[:-1]
            if callable(initial_value):
                initial_value = initial_value()
            init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            if dtype is not None and init.dtype != _dtypes.as_dtype(dtype):
                raise ValueError(f"initial value dtype {init.dtype.name} does not match {dtype}")
            shape = init._shape if validate_shape else None
            self._op = graph.create_op("VariableV2", (), {"shape": shape, "dtype": init.dtype},
                                       [(shape, init.np_dtype)], name=name, exact_name=True)
            self._initial_value = init
            self.initializer = self._assign_op("Assign", init, "Assign")
        self.trainable = trainable
        for c in collections or ([GLOBAL_VARIABLES] + ([TRAINABLE_VARIABLES] if trainable else [])):
            graph.add_to_collection(c, self)

    @classmethod
    def from_graph(cls, graph, op_name: str, init: str, initial_value: str,
                   trainable: bool) -> "Variable":
        """Re-attach a Variable to nodes that already exist (a graph loaded from JSON)."""
        self = cls.__new__(cls)
        self._op = graph.get_operation_by_name(op_name)
        self.initializer = graph.get_tensor_by_name(init)
        self._initial_value = graph.get_tensor_by_name(initial_value)
        self.trainable = trainable
        for c in [GLOBAL_VARIABLES] + ([TRAINABLE_VARIABLES] if trainable else []):
            graph.add_to_collection(c, self)
        return self

    # --- the tensor face -------------------------------------------------------------
    def _as_graph_element(self) -> Tensor:
        return self._op.outputs[0]

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def name(self) -> str:
        return self._op.outputs[0].name

    @property
    def graph(self):
        return self._op.graph

    @property
    def dtype(self) -> _dtypes.DType:
        return self._op.outputs[0].dtype

    @property
    def device(self) -> str:
        return self._op.device

    @property
    def shape(self):
        return self._op.outputs[0].shape

    def get_shape(self):
        return self.shape

    @property
    def initial_value(self) -> Tensor:
        return self._initial_value

    def value(self) -> Tensor:
        return self._op.outputs[0]

    def read_value(self) -> Tensor:
        """A fresh read, ordered by control dependencies (sees assignments it depends on)."""
        out = self._op.outputs[0]
        return get_default_graph().create_op("ReadVariableOp", (), {"var": self._op.name},
                                             [(out._shape, out.np_dtype)], name="ReadVariableOp").outputs[0]

    def eval(self, session=None):
        return self.value().eval(session=session)

    # --- assignment ----------------------------------------------------------------
    def _assign_op(self, kind: str, value: Any, name: str | None) -> Tensor:
        out = self._op.outputs[0]
        value = convert_to_tensor(value, dtype=out.dtype)
        if out._shape is not None and not value.shape.is_compatible_with(out._shape):
            raise ValueError(f"Shapes {out.shape} and {value.shape} are incompatible "
                             f"(assigning to variable {self._op.name})")
        op = get_default_graph().create_op(kind, (value,), {"var": self._op.name},
                                           [(out._shape, out.np_dtype)], name=name or kind)
        return op.outputs[0]

    def assign(self, value: Any, use_locking=None, name: str | None = None, read_value: bool = True):
        t = self._assign_op("Assign", value, name)
        return t if read_value else t.op

    def assign_add(self, delta: Any, use_locking=None, name: str | None = None, read_value: bool = True):
        t = self._assign_op("AssignAdd", delta, name)
        return t if read_value else t.op

    def assign_sub(self, delta: Any, use_locking=None, name: str | None = None, read_value: bool = True):
        t = self._assign_op("AssignSub", delta, name)
        return t if read_value else t.op

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}_ref>"


def global_variables() -> list[Variable]:
    return get_default_graph().get_collection(GLOBAL_VARIABLES)


def trainable_variables() -> list[Variable]:
    return get_default_graph().get_collection(TRAINABLE_VARIABLES)


def variables_initializer(var_list, name: str = "init") -> Operation:
    return group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer() -> Operation:
    return variables_initializer(global_variables(), name="init")


initialize_all_variables = global_variables_initializer

"""``print(graph)``: one node per line, in topological order, with its static type.

::

    %x = Placeholder(dtype=float32, shape=(None, 3))  # float32[?, 3]
    %Add/y = Const(value=1.0)  # float32[]
    %Add = Add(%x, %Add/y)  # float32[?, 3]
"""
from __future__ import annotations

import numpy as np

from common.shapes import fmt_shape

__all__ = ["format_graph", "format_op"]


def _ref(t) -> str:
    return f"%{t.op.name}" if t.value_index == 0 else f"%{t.op.name}:{t.value_index}"


def _attr(v) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=6, separator=", ") if v.ndim else repr(v.item())
    if isinstance(v, np.dtype):
        return v.name
    return getattr(v, "name", None) if type(v).__name__ == "DType" else repr(v)


def format_op(op) -> str:
    args = [_ref(t) for t in op.inputs]
    args += [f"{k}={_attr(v)}" for k, v in op.attrs.items()]
    args += [f"^{c.name}" for c in op.control_inputs]
    lhs = ", ".join(_ref(t) for t in op.outputs) or f"%{op.name}"
    types = ", ".join(f"{t.dtype.name}{fmt_shape(t._shape)}" for t in op.outputs)
    line = f"{lhs} = {op.type}({', '.join(args)})"
    return f"{line}  # {types}" if types else line


def format_graph(graph) -> str:
    from .compiler.order import topological_order
    return "\n".join(format_op(op) for op in topological_order(set(graph._ops)))

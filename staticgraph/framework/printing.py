"""``print(graph)``: one node per line, in topological order, with its static type.

::

    %x = Placeholder(dtype=float32, shape=(None, 3))  # float32[?, 3]
    %Add/y = Const(value=1.0)  # float32[]
    %Add = Add(%x, %Add/y)  # float32[?, 3]

A control-flow node's sub-graphs (``while_loop``'s cond and body, ``cond``'s
branches) are printed nested and indented under it, like a jaxpr's
sub-jaxprs: the region's arguments, what it captures from outside
(``%capture_n = %n``: the inner stand-in and the outer tensor), its nodes,
and what it returns::

    %while, %while:1 = StatelessWhile(%Const, %n, n_vars=1, ...)  # int32[], string<unknown>
      cond(%arg_0) captures %capture_n = %n:
        %Less = Less(%arg_0, %capture_n)  # bool[]
        return %Less
      body(%arg_0):
        ...
"""
from __future__ import annotations

from typing import Any

import numpy as np

from common.shapes import fmt_shape
from ..compiler.order import topological_order
from ..control.control_flow import Region
from .graph import GRAPH_WRITERS

__all__ = ["format_graph", "format_op"]

INDENT = "  "


def _ref(t) -> str:
    return f"%{t.op.name}" if t.value_index == 0 else f"%{t.op.name}:{t.value_index}"


def _is_region(v: Any) -> bool:
    return isinstance(v, Region)


def _regions(v: Any) -> list:
    """The sub-graphs an attribute holds: a Region, or a tuple of them (cond's branches)."""
    if _is_region(v):
        return [v]
    if isinstance(v, tuple) and v and all(_is_region(r) for r in v):
        return list(v)
    return []


def _attr(v) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=6, separator=", ") if v.ndim else repr(v.item())
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, tuple) and v and all(hasattr(t, "value_index") for t in v):
        return "(" + ", ".join(_ref(t) for t in v) + ("," if len(v) == 1 else "") + ")"
    if hasattr(v, "outputs") and hasattr(v, "control_inputs"):     # an Operation
        return f"%{v.name}"
    return getattr(v, "name", None) if type(v).__name__ == "DType" else repr(v)


def format_op(op) -> str:
    """One node as ``%out = Type(%in, attr=value, ^control)  # dtype[shape]`` (sub-graphs
    omitted: :func:`format_graph` prints them nested under the node)."""
    args = [_ref(t) for t in op.inputs]
    args += [f"{k}={_attr(v)}" for k, v in op.attrs.items() if not _regions(v)]
    args += [f"^{c.name}" for c in op.control_inputs]
    lhs = ", ".join(_ref(t) for t in op.outputs) or f"%{op.name}"
    types = ", ".join(f"{t.dtype.name}{fmt_shape(t._shape)}" for t in op.outputs)
    line = f"{lhs} = {op.type}({', '.join(args)})"
    return f"{line}  # {types}" if types else line


def _region_lines(region, depth: int) -> list[str]:
    pad = INDENT * depth
    head = f"{pad}{region.graph.name}({', '.join(_ref(t) for t in region.args)})"
    if region.captured:
        head += " captures " + ", ".join(f"{_ref(p)} = {_ref(t)}"
                                         for t, p in zip(region.captured, region.placeholders))
    hidden = {t.op for t in [*region.args, *region.placeholders]}
    lines = [head + ":"]
    lines += _graph_lines(region.graph, depth + 1, hidden)
    lines.append(f"{pad}{INDENT}return {', '.join(_ref(t) for t in region.outs)}")
    return lines


def _graph_lines(graph, depth: int, hidden: set = frozenset()) -> list[str]:
    lines = []
    for op in topological_order(set(graph._ops)):
        if op in hidden:
            continue
        lines.append(INDENT * depth + format_op(op))
        for value in op.attrs.values():
            for region in _regions(value):
                lines += _region_lines(region, depth + 1)
    return lines


def format_graph(graph) -> str:
    """Every node of ``graph`` in topological order; control-flow sub-graphs nested."""
    return "\n".join(_graph_lines(graph, 0))


GRAPH_WRITERS["text"] = format_graph

"""A staticgraph Graph as TensorFlow's ``GraphDef`` proto, for TensorBoard's graph dashboard.

Each Operation becomes a ``NodeDef`` with its TF op type, its inputs in TF's
spelling (``"x"`` for output 0, ``"x:1"``, ``"^init"`` for a control input)
and its attributes (``T``/``dtype``, Const values, ``_output_shapes`` so the
dashboard labels edges with shapes).

Control flow: a ``While``/``If`` node's sub-graphs (its ``Region``
attributes) are written *inline* under the node's name scope, so TensorBoard
shows the loop or branch as one collapsible group that opens onto its
regions::

    while                 the While node itself (TensorBoard: a group holding it)
    while/cond/Less       the condition region's ops
    while/body/add        the body region's ops; ``while/body/arg_0`` takes the
                          loop variable as input, ``capture_*`` the captured tensor

Region outputs are the node's control inputs, so the picture reads
"inputs -> regions -> node -> consumers".

>>> import staticgraph as tf                      # doctest: +SKIP
>>> len(as_graph_def(tf.get_default_graph()).node)  # doctest: +SKIP
"""
from __future__ import annotations

from typing import Any

import numpy as np

from common.tensorboard import data_type, require, tensor_proto, tensor_shape_proto

from ..control.control_flow import CONTROL_FLOW_TYPES, regions_of
from ..framework.dtypes import DType
from ..framework.graph import GRAPH_WRITERS, Graph, Operation, Tensor

__all__ = ["as_graph_def"]

PRODUCER = 2474  # the GraphDef producer version TF 2.21 writes


def _dtype_enum(dtype) -> int:
    """TF's DataType for a staticgraph DType (``resource`` included) or a numpy dtype."""
    if getattr(dtype, "name", None) == "resource":
        return require().types_pb2.DT_RESOURCE
    return data_type(dtype._np if isinstance(dtype, DType) else dtype)


def _input_name(t: Tensor, names: dict) -> str:
    base = names.get(t.op, t.op.name)
    return base if t.value_index == 0 else f"{base}:{t.value_index}"


def _attr(value: Any):
    """An ``AttrValue`` for a plain attribute, or None when it has no GraphDef spelling."""
    av = require().attr_value_pb2.AttrValue
    if isinstance(value, (bool, np.bool_)):
        return av(b=bool(value))
    if isinstance(value, (int, np.integer)):
        return av(i=int(value))
    if isinstance(value, (float, np.floating)):
        return av(f=float(value))
    if isinstance(value, str):
        return av(s=value.encode())
    if isinstance(value, (DType, np.dtype, type)) and not isinstance(value, bool):
        try:
            return av(type=_dtype_enum(value))
        except TypeError:
            return None
    if isinstance(value, tuple) and value and all(isinstance(v, (int, np.integer))
                                                  and not isinstance(v, bool) for v in value):
        return av(list=av.ListValue(i=[int(v) for v in value]))
    if isinstance(value, np.ndarray):
        return av(tensor=tensor_proto(value))
    return None


def _node(op: Operation, name: str, inputs: list[str]):
    """One NodeDef: type, inputs, dtype attrs, plain attrs, output shapes."""
    p = require()
    node = p.node_def_pb2.NodeDef(name=name, op=op.type, input=inputs)
    outs = [t for t in op.outputs if op.graph.is_feedable(t)]   # not control flow's trace
    typed = [t for t in op.inputs if t.np_dtype.kind != "O"]   # TF's "T": the operands' type
    if typed:
        node.attr["T"].CopyFrom(p.attr_value_pb2.AttrValue(type=data_type(typed[0].np_dtype)))
    for key, value in op.attrs.items():
        if key == "shape" and (value is None or isinstance(value, tuple)):
            node.attr[key].CopyFrom(p.attr_value_pb2.AttrValue(shape=tensor_shape_proto(value)))
            continue
        a = _attr(value)
        if a is not None:
            node.attr[key].CopyFrom(a)
    if outs and "dtype" not in node.attr and not op.inputs:
        node.attr["dtype"].CopyFrom(p.attr_value_pb2.AttrValue(type=_dtype_enum(outs[0].dtype)))
    if outs:
        node.attr["_output_shapes"].CopyFrom(p.attr_value_pb2.AttrValue(
            list=p.attr_value_pb2.AttrValue.ListValue(shape=[tensor_shape_proto(t._shape)
                                                             for t in outs])))
    return node


def _emit(graph: Graph, prefix: str, outer: dict, nodes: list) -> None:
    """Append the NodeDefs of ``graph`` (names under ``prefix``); ``outer`` maps feeds to inputs."""
    names: dict[Operation, str] = {op: prefix + op.name for op in graph._ops}
    for op in graph._ops:
        inputs = [_input_name(t, names) for t in op.inputs]
        regions = regions_of(op) if op.kind in CONTROL_FLOW_TYPES else ()
        for r in regions:
            scope = f"{names[op]}/{r.graph.name}/"
            feeds = {a.op: _input_name(x, names) for a, x in zip(r.args, op.inputs)}
            feeds.update({ph.op: _input_name(t, names) for ph, t in zip(r.placeholders, r.captured)})
            _emit(r.graph, scope, feeds, nodes)
            inputs += [f"^{scope}{t.op.name}" for t in r.outs]
        inputs += [f"^{names[c]}" for c in op.control_inputs]
        if op in outer:                       # a region's argument: fed from the outer graph
            inputs.insert(0, outer[op])
        nodes.append(_node(op, names[op], inputs))


def as_graph_def(graph: Graph):
    """``graph`` as a ``GraphDef`` proto (TensorBoard's ``FileWriter(graph=...)`` writes this).

    Needs the ``tensorboard`` package (``pip install 'dyngraph-staticgraph[tensorboard]'``).
    """
    p = require("GraphDef export")
    nodes: list = []
    _emit(graph, "", {}, nodes)
    return p.graph_pb2.GraphDef(node=nodes, versions=p.versions_pb2.VersionDef(producer=PRODUCER))


GRAPH_WRITERS["graph_def"] = as_graph_def

"""Export: the graph as a networkx DiGraph, and as JSON that loads back into an equal graph.

JSON layout (one entry per op, creation order)::

    {"format": "staticgraph/1",
     "ops": [{"name": "Add", "type": "Add", "inputs": ["x:0", "Add/y:0"], "control": [],
              "attrs": {...}, "outputs": [{"shape": [null, 3], "dtype": "float32"}], "site": "...",
              "device": "/job:worker/task:0"}],                     (device: only when set)
     "variables": [{"op": "w", "init": "w/Assign:0", "initial_value": "w/initial_value:0",
                    "trainable": true}]}

Attributes are tagged where JSON has no type of its own (arrays, dtypes,
tuples, index keys), so loading rebuilds them exactly and plans compiled from
the loaded graph compute identical results.
"""
from __future__ import annotations

import json
from typing import Any

import networkx as nx
import numpy as np

from common import REGISTRY
from common.indexing import ARRAY, Slice

from .dtypes import DType
from .graph import Graph
from .variables import GLOBAL_VARIABLES, TRAINABLE_VARIABLES, Variable

__all__ = ["to_networkx", "to_json", "from_json"]


def to_networkx(graph: Graph) -> nx.MultiDiGraph:
    """Ops as nodes (attrs: type, site, device), tensors as edges (attrs: tensor name, shape, dtype).

    A MultiDiGraph (a DiGraph with parallel edges), so ``x * x`` keeps both edges.
    Control dependencies are edges with ``control=True``.
    """
    g = nx.MultiDiGraph()
    for op in graph._ops:
        g.add_node(op.name, type=op.type, site=op.site, device=op.device)
        for t in op.inputs:
            g.add_edge(t.op.name, op.name, tensor=t.name, shape=t._shape, dtype=t.dtype.name,
                       control=False)
        for c in op.control_inputs:
            g.add_edge(c.name, op.name, control=True)
    return g


def _enc(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return {"__ndarray__": v.tolist(), "dtype": v.dtype.str, "shape": list(v.shape)}
    if isinstance(v, np.generic):
        return _enc(np.asarray(v))
    if isinstance(v, np.dtype):
        return {"__dtype__": v.str}
    if isinstance(v, DType):
        return {"__tfdtype__": v._np.str}
    if isinstance(v, Slice):
        return {"__slice__": list(v)}
    if v is ARRAY:
        return {"__array__": True}
    if v is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(v, tuple):
        return {"__tuple__": [_enc(i) for i in v]}
    if isinstance(v, (list, dict)) or (v is not None and not isinstance(v, (bool, int, float, str))):
        raise TypeError(f"cannot serialize attribute value {v!r}")
    return v


def _dec(v: Any) -> Any:
    if not isinstance(v, dict):
        return v
    if "__ndarray__" in v:
        a = np.array(v["__ndarray__"], dtype=np.dtype(v["dtype"])).reshape(v["shape"])
        a.setflags(write=False)
        return a
    if "__dtype__" in v:
        return np.dtype(v["__dtype__"])
    if "__tfdtype__" in v:
        return DType(np.dtype(v["__tfdtype__"]))
    if "__slice__" in v:
        return Slice(*v["__slice__"])
    if "__array__" in v:
        return ARRAY
    if "__ellipsis__" in v:
        return Ellipsis
    return tuple(_dec(i) for i in v["__tuple__"])


def _shape_out(s):
    return None if s is None else list(s)


def to_json(graph: Graph, indent: int | None = None) -> str:
    ops = [{"name": op.name, "type": op.type, "inputs": [t.name for t in op.inputs],
            "control": [c.name for c in op.control_inputs],
            "attrs": {k: _enc(v) for k, v in op.attrs.items()},
            "outputs": [{"shape": _shape_out(t._shape), "dtype": t.np_dtype.str} for t in op.outputs],
            "site": op.site, **({"device": op.device} if op.device else {})} for op in graph._ops]
    trainable = {id(v) for v in graph.get_collection(TRAINABLE_VARIABLES)}
    variables = [{"op": v.op.name, "init": v.initializer.name, "initial_value": v.initial_value.name,
                  "trainable": id(v) in trainable} for v in graph.get_collection(GLOBAL_VARIABLES)]
    return json.dumps({"format": "staticgraph/1", "ops": ops, "variables": variables}, indent=indent)


def from_json(text: str, graph: Graph | None = None) -> Graph:
    """A new Graph equal to the serialized one (names, attrs, shapes, variables).

    ``graph``: an empty Graph to rebuild into instead (``train.import_meta_graph``
    fills the default graph, as TF does).
    """
    data = json.loads(text)
    if data.get("format") != "staticgraph/1":
        raise ValueError(f"not a staticgraph JSON graph (format={data.get('format')!r})")
    graph = Graph() if graph is None else graph
    for d in data["ops"]:
        for k in range(d["name"].count("/") + 1):  # reserve the name and its scopes
            graph._names_in_use.setdefault("/".join(d["name"].split("/")[:k + 1]).lower(), 1)
        graph.create_op(d["type"], [graph.get_tensor_by_name(n) for n in d["inputs"]],
                        {k: _dec(v) for k, v in d["attrs"].items()},
                        [(None if o["shape"] is None else tuple(o["shape"]), np.dtype(o["dtype"]))
                         for o in d["outputs"]],
                        name=d["name"], op_def=REGISTRY.get(d["type"]),
                        control_inputs=[graph.get_operation_by_name(c) for c in d["control"]],
                        site=d["site"], exact_name=True)._device = d.get("device", "")
    for v in data["variables"]:
        Variable.from_graph(graph, v["op"], v["init"], v["initial_value"], v["trainable"])
    return graph

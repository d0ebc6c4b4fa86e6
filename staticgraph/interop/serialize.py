"""Export: the graph as a networkx DiGraph, and as JSON that loads back into an equal graph.

JSON layout (one entry per op, creation order)::

    {"format": "staticgraph/2",
     "ops": [{"name": "Add", "type": "AddV2", "kind": "Add", "inputs": ["x:0", "Add/y:0"], "control": [],
              "attrs": {...}, "outputs": [{"shape": [null, 3], "dtype": "<f4"}], "site": "...",
              "device": "/job:worker/task:0"}],                     (device: only when set)
     "grad_programs": {"while": {...}},
     "variables": [{"op": "w", "init": "w/Assign", "initial_value": "w/Initializer/initial_value:0",
                    "read": "w/Read/ReadVariableOp:0", "trainable": true}]}

Attributes are tagged where JSON has no type of its own (arrays, dtypes,
tuples, index keys), so loading rebuilds them exactly and plans compiled from
the loaded graph compute identical results.  A ``while_loop``/``cond`` body is
an attribute holding a whole sub-graph (``{"__region__": {"ops": [...], ...}}``,
nested to any depth), and what a loop's gradient reads (the graph's
``grad_programs`` table) is saved with the graph it belongs to, so a graph
with loops and their gradients runs the same after a round trip.  A ``tf.data``
iterator's dataset is its chain of dataset ops (``{"__dataset__": {"op": "BatchDataset",
...}}``, see :mod:`staticgraph.data.graph_form`); one that runs Python cannot be written.
"""
from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from common import REGISTRY
from common.indexing import ARRAY, Slice

from ..framework import dtypes as _dtypes
from ..control.control_flow import LOOP_TYPES, Region, regions_of
from ..control.control_flow_grad import GradProgram
from ..data.dataset import Dataset
from ..data.graph_form import describe, rebuild
from ..framework.dtypes import DType
from ..framework.errors import DataLossError
from ..framework.graph import Graph, Operation, SubGraph, Tensor
from .graph_schema import FORMAT, check, parse
from ..training.variables import GLOBAL_VARIABLES, TRAINABLE_VARIABLES, Variable

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["to_networkx", "to_json", "from_json"]


def to_networkx(graph: Graph) -> nx.MultiDiGraph:
    """Ops as nodes (attrs: type, site, device), tensors as edges (attrs: tensor name, shape, dtype).

    A MultiDiGraph (a DiGraph with parallel edges), so ``x * x`` keeps both edges.
    Control dependencies are edges with ``control=True``.
    """
    import networkx as nx  # ~0.5 s to import: only when a graph is exported to it
    g = nx.MultiDiGraph()
    for op in graph._ops:
        g.add_node(op.name, type=op.type, site=op.site, device=op.device)
        for t in op.inputs:
            g.add_edge(t.op.name, op.name, tensor=t.name, shape=t._shape, dtype=t.dtype.name,
                       control=False)
        for c in op.control_inputs:
            g.add_edge(c.name, op.name, control=True)
    return g


_TO_TEXT = np.vectorize(lambda b: b.decode("utf-8", "surrogateescape") if isinstance(b, bytes)
                       else b, otypes=[object])
_TO_BYTES = np.vectorize(lambda s: s.encode("utf-8", "surrogateescape"), otypes=[object])
"""A string tensor's elements (bytes) as JSON strings and back, every byte kept: UTF-8 text
as itself, other bytes as the lone surrogates ``surrogateescape`` maps them to."""


def _enc(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        data = (_TO_TEXT(v) if v.dtype == object and v.size else v).tolist()
        return {"__ndarray__": data, "dtype": v.dtype.str, "shape": list(v.shape)}
    if isinstance(v, np.generic):
        return _enc(np.asarray(v))
    if isinstance(v, np.dtype):
        return {"__dtype__": v.str}
    if isinstance(v, DType):
        return {"__tfdtype__": _dtype_name(v)}
    if isinstance(v, Slice):
        return {"__slice__": list(v)}
    if v is ARRAY:
        return {"__array__": True}
    if v is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(v, tuple):
        return {"__tuple__": [_enc(i) for i in v]}
    if isinstance(v, Tensor):
        return {"__tensor__": v.name}
    if isinstance(v, Operation):
        return {"__op__": v.name}
    if isinstance(v, Region):
        return {"__region__": _region(v)}
    if isinstance(v, Dataset):
        return {"__dataset__": describe(v, _fn_region)}
    if callable(v) and not isinstance(v, type):
        raise TypeError(f"it holds the Python function {getattr(v, '__qualname__', v)!r}, which "
                        f"lives only in this process (TF cannot export a PyFunc's code either)")
    if isinstance(v, (list, dict)) or (v is not None and not isinstance(v, (bool, int, float, str))):
        raise TypeError(f"cannot serialize attribute value {v!r}")
    return v


def _dec(v: Any, graph: Graph) -> Any:
    """An attribute value; tensors, ops and regions are looked up in / built into ``graph``."""
    if not isinstance(v, dict):
        return v
    if "__ndarray__" in v:
        a = np.array(v["__ndarray__"], dtype=np.dtype(v["dtype"])).reshape(v["shape"])
        if a.dtype == object and a.size:
            a = _TO_BYTES(a)
        a.setflags(write=False)
        return a
    if "__dtype__" in v:
        return np.dtype(v["__dtype__"])
    if "__tfdtype__" in v:
        return _dtype(v["__tfdtype__"])
    if "__slice__" in v:
        return Slice(*v["__slice__"])
    if "__array__" in v:
        return ARRAY
    if "__ellipsis__" in v:
        return Ellipsis
    if "__tensor__" in v:
        return graph.get_tensor_by_name(v["__tensor__"])
    if "__op__" in v:
        return graph.get_operation_by_name(v["__op__"])
    if "__region__" in v:
        return _load_region(v["__region__"], graph)
    if "__dataset__" in v:
        return rebuild(v["__dataset__"], graph, lambda d: _fn_parts(_load_region(d, graph)))
    return tuple(_dec(i, graph) for i in v["__tuple__"])


def _dtype_name(d: DType) -> str:
    return "resource" if d == _dtypes.resource else d._np.str


def _dtype(name: str) -> DType:
    return _dtypes.resource if name == "resource" else DType(np.dtype(name))


def _shape_out(s):
    return None if s is None else list(s)


def _attrs(op: Operation) -> dict:
    """``op``'s attributes encoded; a value that cannot be (a tf.py_func's Python function)
    is an error naming the node."""
    try:
        return {k: _enc(v) for k, v in op.attrs.items()}
    except TypeError as e:
        raise TypeError(f"cannot serialize node '{op.name}' (op type: {op.type}): {e}") from None


def _ops(graph: Graph) -> list[dict]:
    return [{"name": op.name, "type": op.type, "kind": op.kind, "inputs": [t.name for t in op.inputs],
             "control": [c.name for c in op.control_inputs],
             "attrs": _attrs(op),
             "outputs": [{"shape": _shape_out(t._shape), "dtype": _dtype_name(t.dtype)}
                         for t in op.outputs],
             "site": op.site, **({"device": op.device} if op.device else {})} for op in graph._ops]


def _names(ts) -> list[str]:
    return [t.name for t in ts]


def _grad_programs(graph: Graph) -> dict:
    def one(p: GradProgram) -> dict:
        return {"dys": _names(p.dys), "grads": _names(p.grads), "needed": _names(p.needed),
                "wrt": _names(p.wrt), **({"late": _names(p.late), "late_inner": _names(p.late_inner)}
                                         if p.late else {})}   # a grad_fn's own captures
    return {name: [one(p) for p in (ps if isinstance(ps, tuple) else (ps,))]
            for name, ps in graph.grad_programs.items()}


def _region(r: Region) -> dict:
    """A region: its sub-graph's ops (nested regions inside), and how it meets the outer graph."""
    return {"name": r.graph.name, "ops": _ops(r.graph), "grad_programs": _grad_programs(r.graph),
            "args": _names(r.args), "outs": _names(r.outs), "captured": _names(r.captured),
            "placeholders": _names(r.placeholders),
            "control_captures": [op.name for op in r.graph.control_captures]}


def to_json(graph: Graph, indent: int | None = None, clear_devices: bool = False) -> str:
    """The whole graph -- loop and branch bodies, gradient programs, variables -- as JSON;
    ``clear_devices``: without the nodes' devices (``export_meta_graph(clear_devices=True)``)."""
    trainable = {id(v) for v in graph.get_collection(TRAINABLE_VARIABLES)}
    variables = [{"op": v.op.name, "init": v.initializer.name, "initial_value": v.initial_value.name,
                  "read": v._graph_element.name, "trainable": id(v) in trainable}
                 for v in graph.get_collection(GLOBAL_VARIABLES)]
    ops = _ops(graph)
    if clear_devices:
        _clear_devices(ops)
    return json.dumps({"format": FORMAT, "ops": ops, "grad_programs": _grad_programs(graph),
                       "variables": variables, "collections": _collections(graph)}, indent=indent)


def _clear_devices(ops: list[dict]) -> None:
    """Drop the devices of these encoded nodes and of every node in their bodies (in place)."""
    def walk(v: Any) -> None:
        if isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            if "__region__" in v:
                _clear_devices(v["__region__"]["ops"])
            else:
                for x in v.values():
                    walk(x)
    for d in ops:
        d.pop("device", None)
        walk(d["attrs"])


def _collections(graph: Graph) -> dict:
    """The named collections' ops, tensors and (global) variables, by name -- as a MetaGraph
    keeps them, so ``get_collection("train_op")`` works after ``import_meta_graph``. Other
    Python objects in a collection are not kept."""
    global_ops = {v.op.name for v in graph.get_collection(GLOBAL_VARIABLES)}
    out = {}
    for key in graph.get_all_collection_keys():
        if key in (GLOBAL_VARIABLES, TRAINABLE_VARIABLES):
            continue
        items = []
        for item in graph.get_collection(key):
            if isinstance(item, Variable) and item.op.name in global_ops:
                items.append(["variable", item.op.name])
            elif isinstance(item, Tensor):
                items.append(["tensor", item.name])
            elif isinstance(item, Operation):
                items.append(["op", item.name])
        if items:
            out[key] = items
    return out


def _fn_region(sub: SubGraph, args: list, outs: list) -> dict:
    """A traced function (a Dataset's map/filter) in a region's form."""
    r = Region.__new__(Region)
    r.graph, r.args, r.outs = sub, args, outs
    r.captured = list(sub.captures)
    r.placeholders = [sub.captures[t] for t in r.captured]
    return _region(r)


def _fn_parts(r: Region) -> tuple:
    return r.graph, r.args, r.outs


def _load_collections(table: dict, graph: Graph) -> None:
    variables = {v.op.name: v for v in graph.get_collection(GLOBAL_VARIABLES)}
    find = {"variable": variables.__getitem__, "tensor": graph.get_tensor_by_name,
            "op": graph.get_operation_by_name}
    for key, items in table.items():
        for kind, name in items:
            graph.add_to_collection(key, find[kind](name))


class _NodeFailed(Exception):
    """Building a checked node failed; the message names it (the innermost one, in a body)."""


def _load_ops(ops: list[dict], graph: Graph) -> None:
    for d in ops:
        try:
            _load_op(d, graph)
        except _NodeFailed:
            raise
        except Exception as e:
            raise _NodeFailed(f"node {d['name']!r}: {type(e).__name__}: {e}") from e


def _load_op(d: dict, graph: Graph) -> None:
    for k in range(d["name"].count("/") + 1):  # reserve the name and its scopes
        graph._names_in_use.setdefault("/".join(d["name"].split("/")[:k + 1]).lower(), 1)
    kind = d.get("kind", d["type"])
    graph.create_op(kind, [graph.get_tensor_by_name(n) for n in d["inputs"]],
                    {k: _dec(v, graph) for k, v in d["attrs"].items()},
                    [(None if o["shape"] is None else tuple(o["shape"]), _dtype(o["dtype"]))
                     for o in d["outputs"]],
                    name=d["name"], op_def=REGISTRY.get(kind), tf_type=d["type"],
                    control_inputs=[graph.get_operation_by_name(c) for c in d["control"]],
                    site=d["site"], exact_name=True)._device = d.get("device", "")


def _load_grad_programs(table: dict, graph: Graph) -> None:
    for name, progs in table.items():
        op = graph.get_operation_by_name(name)
        regions = regions_of(op)[1:] if op.kind in LOOP_TYPES else regions_of(op)   # a loop: its body
        loaded = []
        for p, region in zip(progs, regions):
            g = GradProgram.__new__(GradProgram)
            for field in GradProgram.__slots__:   # "late": tensors of the node's own graph
                home = graph if field == "late" else region.graph
                setattr(g, field, [home.get_tensor_by_name(n) for n in p.get(field, [])])
            region.graph.captures.update(zip(g.late, g.late_inner))
            region.graph.captured_from.update(zip(g.late_inner, g.late))
            loaded.append(g)
        graph.grad_programs[name] = loaded[0] if op.kind in LOOP_TYPES else tuple(loaded)


def _load_region(d: dict, outer: Graph) -> Region:
    sub = SubGraph(outer, d["name"])
    _load_ops(d["ops"], sub)
    _load_grad_programs(d["grad_programs"], sub)
    r = Region.__new__(Region)
    r.graph = sub
    r.args = [sub.get_tensor_by_name(n) for n in d["args"]]
    r.outs = [sub.get_tensor_by_name(n) for n in d["outs"]]
    r.captured = [outer.get_tensor_by_name(n) for n in d["captured"]]
    r.placeholders = [sub.get_tensor_by_name(n) for n in d["placeholders"]]
    sub.captures = dict(zip(r.captured, r.placeholders))
    sub.captured_from = dict(zip(r.placeholders, r.captured))
    sub.control_captures = [outer.get_operation_by_name(n) for n in d["control_captures"]]
    return r


def _prefixed(data: dict, prefix: str) -> dict:
    """The checked document ``data`` with every top-level name under ``prefix`` (``"scope/"``):
    nodes, the tensors and nodes they name (inputs, control inputs, tensor/op attributes, what
    bodies capture), variables, collections, gradient programs -- and the variables' shared
    names (``shared_name``/``var`` attributes, at any depth), which key their values in a
    session.  Names inside bodies are the bodies' own and stay as they are."""
    def tensor(name: str) -> str:
        return prefix + name

    def attr(v: Any, top: bool) -> Any:
        if isinstance(v, list):
            return [attr(x, top) for x in v]
        if not isinstance(v, dict):
            return v
        if top and ("__tensor__" in v or "__op__" in v):
            return {k: tensor(x) for k, x in v.items()}
        if "__region__" in v:
            return {"__region__": region(v["__region__"], top)}
        return {k: attr(x, top) for k, x in v.items()}

    def op(d: dict, top: bool) -> dict:
        d = dict(d)
        d["attrs"] = {k: (prefix + v if k in ("shared_name", "var") and isinstance(v, str)
                          else attr(v, top)) for k, v in d["attrs"].items()}
        if top:
            d["name"] = prefix + d["name"]
            d["inputs"] = [tensor(n) for n in d["inputs"]]
            d["control"] = [tensor(n) for n in d["control"]]
        return d

    def region(r: dict, outer_top: bool) -> dict:
        r = dict(r, ops=[op(d, False) for d in r["ops"]])
        if outer_top:   # what it captures are names of the top-level graph
            r["captured"] = [tensor(n) for n in r["captured"]]
            r["control_captures"] = [tensor(n) for n in r["control_captures"]]
        return r

    data = dict(data, ops=[op(d, True) for d in data["ops"]])
    data["grad_programs"] = {   # "late": tensors of the node's own (top-level) graph
        prefix + name: [{**p, "late": [tensor(n) for n in p["late"]]} if "late" in p else p
                        for p in programs]
        for name, programs in data["grad_programs"].items()}
    data["variables"] = [{k: (tensor(x) if k != "trainable" else x) for k, x in v.items()}
                         for v in data["variables"]]
    data["collections"] = {key: [[kind, tensor(name)] for kind, name in items]
                           for key, items in data.get("collections", {}).items()}
    return data


def from_json(text: str | bytes, graph: Graph | None = None,
              source: str = "the JSON graph", prefix: str = "",
              clear_devices: bool = False) -> Graph:
    """A new Graph equal to the serialized one (names, attrs, shapes, bodies, variables).

    ``graph``: an empty Graph to rebuild into instead (``train.import_meta_graph``
    fills the default graph, as TF does).

    The text may come from anyone: every field is checked before anything is built
    (:mod:`.graph_schema`), and text that is not a whole, valid graph -- damaged, truncated,
    written by hand -- raises ``tf.errors.DataLossError`` ("Cannot parse <source>: ...",
    naming the node and field), TF's error for "a truncated file, a corrupted file, the
    wrong data format".  Nothing is half-built: ``graph`` is then as it was.
    ``source`` names where the text came from in that message (a file, a worker's graph).
    ``prefix`` (``"scope/"``, a scope no node of ``graph`` uses): every name goes under it
    (``import_meta_graph(import_scope=)``), so ``graph`` may already hold other nodes.
    ``clear_devices``: the nodes (bodies' too) are built without the devices they ask for.
    """
    data = parse(text, source)
    check(data, source)
    if prefix:
        data = _prefixed(data, prefix)
    if clear_devices:
        _clear_devices(data["ops"])
    if graph is None:
        graph = Graph()
    elif graph._ops and not prefix:
        raise ValueError("from_json restores op names exactly, so it needs an empty graph.")
    with _all_or_nothing(graph, source):
        _load_ops(data["ops"], graph)
        _load_grad_programs(data["grad_programs"], graph)
        for v in data["variables"]:
            Variable.from_graph(graph, v["op"], v["init"], v["initial_value"], v["read"],
                                v["trainable"])
        _load_collections(data.get("collections", {}), graph)
    return graph


@contextlib.contextmanager
def _all_or_nothing(graph: Graph, source: str) -> Iterator[None]:
    """Build into ``graph``; if anything fails, put back what it held and raise DataLossError.

    The checks catch what a document can get wrong field by field; what only building shows
    (a variable without its ``IsInitialized`` node, a gradient program naming a tensor its
    body lacks) fails here, and leaves no half-built graph behind.
    """
    ops, by_name, used = list(graph._ops), dict(graph._by_name), dict(graph._names_in_use)
    grads = dict(graph.grad_programs)
    collections = {k: (v, list(v)) for k, v in graph._collections.items()}
    try:
        yield
    except BaseException as e:
        graph._ops[:] = ops
        for table, saved in ((graph._by_name, by_name), (graph._names_in_use, used),
                             (graph.grad_programs, grads)):
            table.clear()
            table.update(saved)
        graph._collections.clear()
        for key, (items, saved) in collections.items():
            items[:] = saved
            graph._collections[key] = items
        graph.invalidate()
        if not isinstance(e, Exception):    # KeyboardInterrupt: as it is, the graph put back
            raise
        problem = str(e) if isinstance(e, _NodeFailed) else f"{type(e).__name__}: {e}"
        raise DataLossError(None, None, f"Cannot parse {source}: {problem}") from e

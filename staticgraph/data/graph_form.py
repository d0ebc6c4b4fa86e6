"""A Dataset as data: the chain of TF dataset ops that rebuilds it, for the JSON graph format.

Every Dataset records ``(op, params, parents)`` when it is made -- ``BatchDataset``
``{"batch_size": 32, ...}`` over its parent -- so a graph holding an iterator can be written
(``to_json``, a Saver's meta graph) and read back into a pipeline that yields the same
elements: sources name their graph tensors, ``map``/``filter`` carry their traced sub-graph,
``shuffle`` its seeds.  A pipeline that runs Python (``from_generator``) has no such form:
:func:`describe` refuses it, naming the dataset op and where it was created.

>>> import staticgraph as tf
>>> ds = tf.data.Dataset.range(4).batch(2)
>>> describe(ds, None)["op"]
'BatchDataset'
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..framework.graph import Graph
from .dataset import Dataset
from .structure import pack_as

__all__ = ["describe", "rebuild", "FORMS"]

_SOURCES = ("TensorSliceDataset", "TensorDataset")

_COUNT = {"count": "integer"}
FORMS: dict[str, tuple] = {
    "TensorSliceDataset": (0, ("inputs", "structure"), {}),
    "TensorDataset": (0, ("inputs", "structure"), {}),
    "MapDataset": (1, ("fn", "result"), {}),
    "FilterDataset": (1, ("fn", "result"), {}),
    "RangeDataset": (0, ("params",), {"args": "3 integers", "output_type": "dtype"}),
    "ZipDataset": (None, ("params",), {"datasets": "structure"}),
    "BatchDataset": (1, ("params",), {"batch_size": "integer", "drop_remainder": "bool"}),
    "PaddedBatchDataset": (1, ("params",), {"n": "integer", "targets": "shapes",
                                            "fills": "numbers", "drop_remainder": "bool"}),
    "ShuffleDataset": (1, ("params",), {"size": "integer", "seeds": "seeds"}),
    "RepeatDataset": (1, ("params",), {"count": "integer or null"}),
    "TakeDataset": (1, ("params",), _COUNT),
    "SkipDataset": (1, ("params",), _COUNT),
    "UnbatchDataset": (1, ("params",), {}),
    "ConcatenateDataset": (2, ("params",), {}),
}
"""Every dataset op :func:`describe` writes: how many parents it has (None: one or more), its
fields besides ``op`` and ``parents``, and what :func:`rebuild` reads of its ``params`` (the
kind of each value) -- what a loaded file is checked against (:mod:`..graph_schema`)."""


def describe(ds: Dataset, encode_fn: Callable | None) -> dict:
    """``ds`` as JSON-able data; ``encode_fn(sub, args, outs)`` encodes a traced function."""
    kind, params, parents = ds._desc
    if parents is None:
        raise TypeError(
            f"Cannot serialize the graph: its tf.data pipeline holds a '{kind}' "
            f"(Dataset.from_generator) created at {params['site']}, which runs a Python generator "
            f"and has no graph form. Build the pipeline from tensors (from_tensor_slices, "
            f"from_tensors, range, map/filter of graph functions) to save or ship the graph, or "
            f"rebuild the input pipeline after loading it.")
    d: dict = {"op": kind, "parents": [describe(p, encode_fn) for p in parents]}
    if kind in _SOURCES:
        d["inputs"] = [t.name for t in ds._inputs]
        d["structure"] = _structure(ds._structure)
    elif kind in ("MapDataset", "FilterDataset"):
        sub, result, outs = params["fn"]
        d["fn"] = encode_fn(sub, sub.element_placeholders, outs)
        d["result"] = _structure(result)
    else:
        d["params"] = params
    if kind == "ZipDataset":
        d["params"] = {"datasets": _structure(params["datasets"])}
    return d


def rebuild(d: dict, graph: Graph, decode_fn: Callable) -> Dataset:
    """The Dataset ``d`` describes, reading its tensors from ``graph``; ``decode_fn(fn)`` gives
    a traced function's ``(sub-graph, args, outs)`` back."""
    parents = [rebuild(p, graph, decode_fn) for p in d["parents"]]
    kind = d["op"]
    if kind in _SOURCES:
        tensors = pack_as(_unstructure(d["structure"]), [graph.get_tensor_by_name(n) for n in d["inputs"]])
        return Dataset.from_tensor_slices(tensors) if kind == "TensorSliceDataset" else \
            Dataset.from_tensors(tensors)
    if kind in ("MapDataset", "FilterDataset"):
        sub, args, outs = decode_fn(d["fn"])
        sub.element_placeholders = args
        traced = (sub, _unstructure(d["result"]), outs)
        return parents[0]._map(traced) if kind == "MapDataset" else parents[0]._filter(traced)
    p = d["params"]
    if kind == "RangeDataset":
        return Dataset.range(*p["args"], output_type=np.dtype(p["output_type"]))
    if kind == "ZipDataset":
        return Dataset.zip(pack_as(_unstructure(p["datasets"]), parents))
    up = parents[0]
    build = {"BatchDataset": lambda: up.batch(p["batch_size"], p["drop_remainder"]),
             "PaddedBatchDataset": lambda: up._padded_batch(
                 p["n"], [None if t is None else tuple(t) for t in p["targets"]], p["fills"],
                 p["drop_remainder"]),
             "ShuffleDataset": lambda: up._shuffle(p["size"], p["seeds"], p.get("reshuffle", True)),
             "RepeatDataset": lambda: up.repeat(p["count"]),
             "TakeDataset": lambda: up.take(p["count"]),
             "SkipDataset": lambda: up.skip(p["count"]),
             "UnbatchDataset": lambda: up.unbatch(),
             "ConcatenateDataset": lambda: up.concatenate(parents[1])}
    return build[kind]()


def _structure(s: Any) -> Any:
    """An element nesting (tuples, dicts, int leaves) in JSON terms."""
    if isinstance(s, dict):
        return {"dict": [[k, _structure(v)] for k, v in sorted(s.items())]}
    if isinstance(s, tuple):
        return {"tuple": [_structure(v) for v in s]}
    return s


def _unstructure(s: Any) -> Any:
    if isinstance(s, dict) and "dict" in s:
        return {k: _unstructure(v) for k, v in s["dict"]}
    if isinstance(s, dict):
        return tuple(_unstructure(v) for v in s["tuple"])
    return s

"""Build a staticgraph graph from an ONNX model, for the ONNX ops the registry has.

::

    import_graph("model.onnx")
      1. read the file's bytes and parse them (nothing else is read: no external data)
      2. validate.check_model: every field the importer reads, before anything is built
      3. build, in a new graph:
         graph inputs  -> placeholders (named as in the model, ":0" dropped, characters TF
                          does not allow in an op name as "_")
         initializers  -> Const nodes
         each node     -> registry ops, by reading ``rules.RULES`` backwards (a rule with a
                          ``load``), plus the few ONNX-only forms below (Constant, Cast,
                          Gemm); Loop -> while_loop, If -> cond (sub-graphs become regions)
      4. given a ``graph`` to import into: build again, there.  Graph has no undo, so a
         model is first built where a failure costs nothing; the same build cannot then fail
         half-way into ``graph`` (a finalized one is refused before step 1)

What it promises, for a file from anyone: a model it refuses raises
:class:`ModelImportError` (a ``ValueError``, as TF's ``import_graph_def`` raises for a
bad GraphDef), the message starting with the file's name and saying what is wrong
and where -- a damaged or truncated file, a dangling or duplicate name, an op that
is not ONNX or has no staticgraph counterpart, a wrong attribute, a tensor whose
data does not fill its declared shape (refused before allocating it) -- see
:mod:`.validate` for the full list.  A file that cannot be opened raises
``OSError`` as ``open`` does.  Nothing from the file is executed or becomes source
text: names reach the graph only through :func:`_op_name` (TF's op-name
characters), attribute values only as ints, floats and dtypes.  Memory is
proportional to the file's size (tensors: their declared size, matched to the
bytes the file holds for them).

What it cannot promise: that a model it accepts runs quickly or in little memory
-- a ``Loop`` may run for long, an ``Expand`` may ask for a large result (refused
while building only when larger than this machine's memory) -- nor that run-time
values fit (the Session raises ``InvalidArgumentError``, as for any graph).

>>> imported = import_graph("mlp.onnx")                       # doctest: +SKIP
>>> with tf.Session(graph=imported.graph) as s:               # doctest: +SKIP
...     s.run(imported.outputs["output"], {imported.inputs["input"]: x})
"""
from __future__ import annotations

import os
import re
from collections import ChainMap
from typing import Any, NamedTuple

import numpy as np
import onnx
from google.protobuf.message import DecodeError

from common import REGISTRY

from ...framework.build import apply, constant
from ...control.control_flow import cond, while_loop
from ...framework.errors import ResourceExhaustedError
from ...framework.graph import Graph, Tensor
from ...framework.sources import placeholder
from .export import MIN_OPSET
from .rules import RULES
from .validate import DTYPES, ModelImportError, attribute_value, check_model, tensor_array

__all__ = ["import_graph", "ImportedGraph", "ModelImportError"]


class ImportedGraph(NamedTuple):
    graph: Graph
    inputs: dict          # ONNX input name -> placeholder
    outputs: dict         # ONNX output name -> tensor


def _loaders() -> dict:
    """ONNX op type -> (registry op, load), from the rule table (first rule wins)."""
    table: dict = {}
    for name, rule in RULES.items():
        if rule.load is not None and rule.onnx not in table:
            table[rule.onnx] = (REGISTRY[name], rule.load)
    return table


ONNX_ONLY = ("Constant", "Cast", "Gemm", "Loop", "If")
"""ONNX op types the importer builds itself (no registry op reads back as them)."""


def importable() -> frozenset:
    """Every ONNX op type ``import_graph`` can build."""
    return frozenset(_loaders()) | frozenset(ONNX_ONLY)


def _op_name(name: str, default: str) -> str:
    """An ONNX name as a TF op name (``[A-Za-z0-9.][A-Za-z0-9_./-]*``): ``:0`` dropped, other
    characters as ``_``, empty path segments dropped -- a trailing ``/`` would make
    ``create_op`` take the name as an exact scope, bypassing uniqueness."""
    name = re.sub(r":\d+$", "", name)
    name = re.sub(r"[^A-Za-z0-9_./-]", "_", name)
    name = "/".join(part for part in name.split("/") if part)
    return name.lstrip("/_.-") or default


def _shape(value_info) -> tuple | None:
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim)


_BUILD_ERRORS = (ValueError, TypeError, ResourceExhaustedError)
"""What building a node raises for values it cannot take (shape rules, loaders' checks)."""


class _Importer:
    """Builds a checked model's nodes into the default graph; ``source`` names the file."""

    def __init__(self, source: str):
        self.source = source
        self.loaders = _loaders()

    def nodes(self, nodes, env: dict) -> None:
        """Add each node's ops; ``env`` maps ONNX names to tensors or constant arrays."""
        for node in nodes:
            try:
                attrs = {a.name: attribute_value(a) for a in node.attribute}
                ins = [env[n] if n else None for n in node.input]
                outs = self.node(node, ins, attrs, env)
            except ModelImportError:
                raise
            except _BUILD_ERRORS as e:
                label = node.name or node.output[0]
                raise ModelImportError(f"{self.source}: node '{label}' ({node.op_type}): "
                                       f"{e}") from e
            for name, value in zip(node.output, outs, strict=True):
                env[name] = value

    def node(self, node, ins: list, attrs: dict, env: dict) -> list:
        kind = node.op_type
        if kind == "Constant":
            return [_constant_value(attrs)]
        if kind == "Cast":
            return [apply(REGISTRY["Cast"], ins, {"dtype": DTYPES[attrs["to"]].np})]
        if kind == "Gemm":
            return [self.gemm(ins, attrs)]
        if kind == "Loop":
            return self.loop(node, ins, attrs, env)
        if kind == "If":
            return self.if_(ins, attrs, env)
        op_def, load = self.loaders[kind]
        return [load(node, ins, op_def, attrs)]

    def gemm(self, ins: list, attrs: dict) -> Tensor:
        """``alpha * A' @ B' + beta * C`` with registry ops (``'`` = transposed if asked)."""
        a, b = ins[0], ins[1]
        for name, x in (("A", a), ("B", b)):
            if x.ndim not in (2, None):      # MatMul would batch or dot what Gemm refuses
                raise ValueError(f"Gemm's {name} must have rank 2, not {x.ndim}")
        if attrs.get("transA"):
            a = apply(REGISTRY["Transpose"], [a], {"perm": (1, 0)})
        if attrs.get("transB"):
            b = apply(REGISTRY["Transpose"], [b], {"perm": (1, 0)})
        y = apply(REGISTRY["MatMul"], [a, b], {})
        if attrs.get("alpha", 1.0) != 1.0:
            y = apply(REGISTRY["Mul"], [y, attrs["alpha"]], {})
        if len(ins) > 2 and ins[2] is not None:
            c = ins[2] if attrs.get("beta", 1.0) == 1.0 else apply(REGISTRY["Mul"], [ins[2], attrs["beta"]], {})
            y = apply(REGISTRY["Add"], [y, c], {})
        return y

    def subgraph(self, graph, env: dict, args: list) -> list:
        """The sub-graph's outputs, its inputs bound to ``args`` (outer names stay visible: a
        chain over ``env``, not a copy of it)."""
        inner = ChainMap({}, env)
        for vi, a in zip(graph.input, args, strict=True):
            inner[vi.name] = a
        for init in graph.initializer:
            inner[init.name] = tensor_array(init)
        self.nodes(graph.node, inner)
        return [inner[o.name] for o in graph.output]

    def loop(self, node, ins: list, attrs: dict, env: dict) -> list:
        """ONNX ``Loop`` as ``while_loop`` over ``(i, cond, *vars)``: the body returns the next cond."""
        body = attrs["body"]
        m, first = ins[0], ins[1]
        first = constant(True) if first is None else _scalar(first)
        start = [constant(np.int64(0)), first, *ins[2:]]

        def keep_going(i, c, *vs):
            return c if m is None else apply(REGISTRY["LogicalAnd"], [c, apply(
                REGISTRY["Less"], [i, apply(REGISTRY["Cast"], [_scalar(m)],
                                           {"dtype": np.dtype(np.int64)})], {})], {})

        def step(i, c, *vs):
            nxt, *outs = self.subgraph(body, env, [i, c, *vs])
            return [apply(REGISTRY["Add"], [i, np.int64(1)], {}), _scalar(nxt), *outs]
        return list(while_loop(keep_going, step, start, name=_op_name(node.name, "while")))[2:]

    def if_(self, ins: list, attrs: dict, env: dict) -> list:
        out = cond(_scalar(ins[0]), lambda: self.subgraph(attrs["then_branch"], env, []),
                   lambda: self.subgraph(attrs["else_branch"], env, []), strict=True)
        return list(out)


def _constant_value(attrs: dict) -> np.ndarray:
    """A Constant node's value, from whichever of its forms is given (``check_model``: one)."""
    (form, value), = attrs.items()
    if form == "value":
        return tensor_array(value)
    return np.array(value, np.float32 if form.startswith("value_float") else np.int64)


def _scalar(t: Any) -> Any:
    """A one-element condition as a scalar (ONNX allows shape [1] where cond needs ())."""
    if isinstance(t, np.ndarray):
        if t.size != 1:
            raise ValueError(f"a condition or trip count must hold one value, not shape {list(t.shape)}")
        return constant(t.reshape(()))
    if t.ndim not in (0, None):
        return apply(REGISTRY["Reshape"], [t], {"shape": ()})
    return t


def _read(source: Any) -> tuple[str, onnx.ModelProto]:
    """(the name for messages, the parsed model) of a path, a binary file or a ``ModelProto``."""
    if isinstance(source, onnx.ModelProto):
        return "<ModelProto>", source
    if hasattr(source, "read"):
        name, data = str(getattr(source, "name", "<file>")), source.read()
    else:
        name = os.fspath(source)
        with open(name, "rb") as f:
            data = f.read()
    if not isinstance(data, bytes):
        raise TypeError(f"{name}: an ONNX model is binary; read {type(data).__name__}")
    try:
        return name, onnx.ModelProto.FromString(data)
    except DecodeError as e:
        raise ModelImportError(f"{name}: Protobuf parsing failed: not an ONNX model, or a "
                               f"damaged one ({e})") from None


def _build(model: onnx.ModelProto, source: str, graph: Graph) -> ImportedGraph:
    """Add the checked ``model``'s ops to ``graph``."""
    env: dict = {}
    with graph.as_default():
        for init in model.graph.initializer:
            env[init.name] = tensor_array(init)
        inputs = {}
        for vi in model.graph.input:
            if vi.name in env:
                continue
            dtype = DTYPES[vi.type.tensor_type.elem_type].np
            inputs[vi.name] = env[vi.name] = placeholder(dtype, _shape(vi),
                                                         name=_op_name(vi.name, "input"))
        _Importer(source).nodes(model.graph.node, env)
        outputs = {}
        for vi in model.graph.output:
            v = env[vi.name]
            outputs[vi.name] = constant(v) if isinstance(v, np.ndarray) else v
    return ImportedGraph(graph, inputs, outputs)


def import_graph(path: Any, graph: Graph | None = None) -> ImportedGraph:
    """A staticgraph Graph computing the ONNX model at ``path`` (a path, a binary file object or
    a ``ModelProto``).

    Returns ``ImportedGraph(graph, inputs, outputs)``: placeholders and result
    tensors keyed by the model's input and output names.  ``graph``: add the
    model's ops to this graph instead of a new one.  Raises
    :class:`ModelImportError` for a model it cannot import (see the module's
    docstring), leaving ``graph`` unchanged.
    """
    if graph is not None and graph.finalized:
        raise RuntimeError("Graph is finalized and cannot be modified.")
    source, model = _read(path)
    check_model(model, source, importable(), (MIN_OPSET, onnx.defs.onnx_opset_version()))
    built = _build(model, source, Graph())
    return built if graph is None else _build(model, source, graph)

"""Build a staticgraph graph from an ONNX model, for the ONNX ops the registry has.

::

    import_graph("model.onnx")
      graph inputs  -> placeholders (named as in the model, ":0" dropped)
      initializers  -> Const nodes
      each node     -> registry ops, by reading ``rules.RULES`` backwards (a rule with a
                       ``load``), plus the few ONNX-only forms below (Constant, Cast,
                       Gemm); Loop -> while_loop, If -> cond (sub-graphs become regions)

A node with no way back raises ``NotImplementedError`` naming its op type and
the node.

>>> imported = import_graph("mlp.onnx")                       # doctest: +SKIP
>>> with tf.Session(graph=imported.graph) as s:               # doctest: +SKIP
...     s.run(imported.outputs["output"], {imported.inputs["input"]: x})
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

import numpy as np
import onnx
from onnx import helper, numpy_helper

from common import REGISTRY

from ..build import apply, constant
from ..control_flow import cond, while_loop
from ..graph import Graph, Tensor
from ..sources import placeholder
from .rules import RULES

__all__ = ["import_graph", "ImportedGraph"]


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


def _op_name(name: str) -> str:
    name = re.sub(r":\d+$", "", name)
    return re.sub(r"[^A-Za-z0-9_./-]", "_", name).lstrip("/_.-") or "input"


def _shape(value_info) -> tuple | None:
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim)


def _np_dtype(elem_type: int) -> np.dtype:
    return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))


class _Importer:
    def __init__(self):
        self.loaders = _loaders()

    def nodes(self, nodes, env: dict) -> None:
        """Add each node's ops; ``env`` maps ONNX names to tensors or constant arrays."""
        for node in nodes:
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            ins = [env[n] if n else None for n in node.input]
            outs = self.node(node, ins, attrs, env)
            for name, value in zip(node.output, outs):
                env[name] = value

    def node(self, node, ins: list, attrs: dict, env: dict) -> list:
        kind = node.op_type
        if kind == "Constant":
            return [numpy_helper.to_array(attrs["value"])]
        if kind == "Cast":
            return [apply(REGISTRY["Cast"], ins, {"dtype": _np_dtype(attrs["to"])})]
        if kind == "Gemm":
            return [self.gemm(ins, attrs)]
        if kind == "Loop":
            return self.loop(node, ins, attrs, env)
        if kind == "If":
            return self.if_(ins, attrs, env)
        loader = self.loaders.get(kind)
        if loader is None:
            raise NotImplementedError(f"ONNX op {kind} (node {node.name or node.output[0]}) has no "
                                      f"staticgraph counterpart to import")
        op_def, load = loader
        return [load(node, ins, op_def, attrs)]

    def gemm(self, ins: list, attrs: dict) -> Tensor:
        """``alpha * A' @ B' + beta * C`` with registry ops (``'`` = transposed if asked)."""
        a, b = ins[0], ins[1]
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
        """The sub-graph's outputs, its inputs bound to ``args`` (outer names stay visible)."""
        inner = dict(env)
        for vi, a in zip(graph.input, args):
            inner[vi.name] = a
        for init in graph.initializer:
            inner[init.name] = numpy_helper.to_array(init)
        self.nodes(graph.node, inner)
        return [inner[o.name] for o in graph.output]

    def loop(self, node, ins: list, attrs: dict, env: dict) -> list:
        """ONNX ``Loop`` as ``while_loop`` over ``(i, cond, *vars)``: the body returns the next cond."""
        body = attrs["body"]
        n_vars = len(ins) - 2
        if len(body.output) != n_vars + 1:
            raise NotImplementedError(f"ONNX Loop {node.name}: scan outputs are not imported")
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
        return list(while_loop(keep_going, step, start, name=_op_name(node.name or "while")))[2:]

    def if_(self, ins: list, attrs: dict, env: dict) -> list:
        out = cond(_scalar(ins[0]), lambda: self.subgraph(attrs["then_branch"], env, []),
                   lambda: self.subgraph(attrs["else_branch"], env, []), strict=True)
        return list(out)


def _scalar(t: Any) -> Any:
    """A one-element condition as a scalar (ONNX allows shape [1] where cond needs ())."""
    if isinstance(t, np.ndarray):
        return constant(t.reshape(()))
    if t.ndim not in (0, None):
        return apply(REGISTRY["Reshape"], [t], {"shape": ()})
    return t


def import_graph(path: Any, graph: Graph | None = None) -> ImportedGraph:
    """A staticgraph Graph computing the ONNX model at ``path`` (a file or a ``ModelProto``).

    Returns ``ImportedGraph(graph, inputs, outputs)``: placeholders and result
    tensors keyed by the model's input and output names.
    """
    model = path if isinstance(path, onnx.ModelProto) else onnx.load(str(path))
    graph = Graph() if graph is None else graph
    env: dict = {}
    with graph.as_default():
        for init in model.graph.initializer:
            env[init.name] = numpy_helper.to_array(init)
        inputs = {}
        for vi in model.graph.input:
            if vi.name in env:
                continue
            inputs[vi.name] = env[vi.name] = placeholder(
                _np_dtype(vi.type.tensor_type.elem_type), _shape(vi), name=_op_name(vi.name))
        _Importer().nodes(model.graph.node, env)
        outputs = {}
        for vi in model.graph.output:
            v = env[vi.name]
            outputs[vi.name] = constant(v) if isinstance(v, np.ndarray) else v
    return ImportedGraph(graph, inputs, outputs)

"""Export a staticgraph graph (what some outputs need, given some inputs) as an ONNX model.

::

    export(sess, [y], [x], "model.onnx")
      1. keep the ops y needs along data edges, stopping at x (an inference graph:
         assignments and other control-only ops are not part of it)
      2. each op in topological order -> ONNX nodes (``rules.RULES`` for registry ops;
         here: placeholders -> inputs, Const and variables -> initializers, the
         variables' values read from ``sess``)
      3. (Stateless)While -> Loop, (Stateless)If -> If: their Region attributes become ONNX sub-graphs
         (a region's captured outer tensors are read by name, as ONNX sub-graphs may)

ONNX value names are the TF tensor names (``x:0``, ``MatMul:0``), prefixed by
the control-flow node inside a region (``while/body/add:0``).

Loop semantics differ: ONNX's ``Loop`` takes the first condition as an input
and its body returns the next one, where ``while_loop`` tests ``cond`` before
every iteration.  So the cond region is written twice: once before the loop
(on the initial values), once at the end of the body (on the new values).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ...framework.graph import Operation, Tensor
from ...compiler.order import topological_order
from ...control.control_flow import BRANCH_TYPES, CONTROL_FLOW_TYPES, LOOP_TYPES, regions_of
from .rules import RULES, NOT_EXPORTABLE, ExportError

__all__ = ["export", "to_model", "DEFAULT_OPSET", "ExportError"]

DEFAULT_OPSET = 18
MIN_OPSET = 13


def _data_prune(outputs: Sequence[Tensor], fed: set) -> set[Operation]:
    """The ops ``outputs`` need along data edges (control-only dependencies are not exported)."""
    needed: set[Operation] = set()
    stack = [t.op for t in outputs if t not in fed]
    while stack:
        op = stack.pop()
        if op not in needed:
            needed.add(op)
            stack.extend(t.op for t in op.inputs if t not in fed and t.op not in needed)
    return needed


class Scope:
    """One ONNX graph being written (the model's, or a Loop/If sub-graph): what rules call."""

    def __init__(self, exporter: "_Exporter", parent: "Scope | None", prefix: str):
        self.exporter, self.parent, self.prefix = exporter, parent, prefix
        self.opset = exporter.opset
        self.names: dict[Tensor, str] = {}
        self.nodes: list = []
        self.initializers: list = []

    # --- names ---------------------------------------------------------------------------
    def name(self, t: Tensor) -> str:
        scope = self
        while scope is not None:
            if t in scope.names:
                return scope.names[t]
            scope = scope.parent
        raise ExportError(f"{t.name} is used but not computed in the exported graph (is an input "
                          f"missing from `inputs`?)")

    def fresh(self, hint: str) -> str:
        return self.exporter.unique(self.prefix + hint)

    # --- what rules use ------------------------------------------------------------------
    def node(self, op_type: str, inputs: list[str], outputs: list[str] | None = None,
             **attrs: Any) -> str:
        """Add a node; returns its (first) output name."""
        outputs = outputs or [self.fresh(f"{op_type}:0")]
        self.nodes.append(helper.make_node(op_type, inputs, outputs,
                                           name=self.fresh(op_type), **attrs))
        return outputs[0]

    def tensor(self, value: np.ndarray, name: str = "value") -> TensorProto:
        return numpy_helper.from_array(np.asarray(value), name)

    def const(self, value: Any, hint: str = "const") -> str:
        """A constant: an initializer of the main graph, a Constant node in a sub-graph."""
        name = self.fresh(hint)
        value = np.asarray(value)
        if self.parent is None:
            self.initializers.append(numpy_helper.from_array(value, name))
        else:
            self.nodes.append(helper.make_node("Constant", [], [name], name=self.fresh("Constant"),
                                               value=numpy_helper.from_array(value, name)))
        return name

    def onnx_dtype(self, dtype) -> int:
        return _onnx_dtype(dtype)

    def cast(self, name: str, have, want) -> str:
        """``name`` as dtype ``want`` (a Cast node only when the dtypes differ)."""
        if np.dtype(have) == np.dtype(want):
            return name
        return self.node("Cast", [name], to=_onnx_dtype(want))

    def rank(self, t: Tensor) -> int:
        if t.ndim is None:
            op = self.exporter.current
            raise ExportError(f"{op.name} ({op.type}): the rank of {t.name} is unknown "
                              f"statically and the ONNX form needs it (set_shape or a known "
                              f"placeholder shape helps)")
        return t.ndim

    # --- ops -----------------------------------------------------------------------------
    def emit(self, ops: list[Operation]) -> None:
        for op in ops:
            self.exporter.emit(self, op)


def _onnx_dtype(dtype) -> int:
    dt = np.dtype(getattr(dtype, "_np", dtype))
    if dt.kind == "O":
        raise ExportError("string tensors are not exported")
    return helper.np_dtype_to_tensor_dtype(dt)


def _value_info(name: str, t: Tensor, shape: Any = "static"):
    shape = t._shape if shape == "static" else shape
    return helper.make_tensor_value_info(name, _onnx_dtype(t.np_dtype),
                                         None if shape is None else list(shape))


_NAMED_ELSEWHERE = (*CONTROL_FLOW_TYPES, "Const", "VarHandleOp", "ReadVariableOp", "Placeholder")


class _Exporter:
    """Walks the graph; one per export (owns the global set of value names)."""

    def __init__(self, sess, opset: int):
        self.sess, self.opset = sess, opset
        self.used: set[str] = set()
        self.variables: dict[str, str] = {}
        self.current: Operation | None = None      # the op being exported (for error messages)
        self.main = Scope(self, None, "")

    def unique(self, name: str) -> str:
        base, k = name, 0
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        return name

    def emit(self, scope: Scope, op: Operation) -> None:
        self.current = op
        kind = op.kind
        for t in op.inputs:
            if t.op.kind in CONTROL_FLOW_TYPES and t is t.op.outputs[-1]:
                raise ExportError(f"{op.name} ({kind}) is not exportable to ONNX: it reads the "
                                  f"per-iteration trace of {t.op.name} (a gradient of control "
                                  f"flow); ONNX has no such value -- export the forward graph")
        out = None if kind in _NAMED_ELSEWHERE else scope.fresh(op.outputs[0].name)
        ins = [scope.name(t) for t in op.inputs]
        if op.op_def is not None:
            rule = RULES.get(kind)
            if rule is None:
                why = NOT_EXPORTABLE.get(kind, "no ONNX rule written for it yet")
                raise ExportError(f"{op.name} ({kind}) is not exportable to ONNX: {why}")
            if op.op_def.multi_output:          # the rule names every output
                outs = [out, *(scope.fresh(t.name) for t in op.outputs[1:])]
                rule.export(scope, op, ins, outs)
                scope.names.update(zip(op.outputs, outs))
                return
            rule.export(scope, op, ins, out)
        elif kind == "Const":
            v = np.asarray(op.attrs["value"])
            if v.dtype.kind == "O":
                raise ExportError(f"{op.name}: string constants are not exported")
            scope.names[op.outputs[0]] = scope.const(v, op.outputs[0].name)
            return
        elif kind == "VarHandleOp":             # a handle has no ONNX value; reads use the name
            scope.names[op.outputs[0]] = ""
            return
        elif kind == "ReadVariableOp":
            scope.names[op.outputs[0]] = self.variable(op.attrs["var"], op)
            return
        elif kind in ("PlaceholderWithDefault", "Print"):
            scope.node("Identity", ins[:1], [out])
        elif kind == "Placeholder":
            raise ExportError(f"placeholder {op.name} must be fed: list {op.outputs[0].name} in "
                              f"`inputs`")
        elif kind in LOOP_TYPES:
            self.loop(scope, op, ins, op.outputs[:op.attrs["n_vars"]])
            return
        elif kind in BRANCH_TYPES:
            self.if_(scope, op, ins, op.outputs[:-1])
            return
        else:
            raise ExportError(f"{op.name} ({kind}) is not exportable to ONNX: a stateful or "
                              f"structural node with no inference meaning")
        scope.names[op.outputs[0]] = out

    def variable(self, var: str, op: Operation) -> str:
        """The initializer holding variable ``var``'s value in the Session (one per variable)."""
        if var not in self.variables:
            value = self.sess.state.variables.get(var) if self.sess is not None else None
            if value is None:
                raise ExportError(f"variable {var} has no value in this Session: run its "
                                  f"initializer before exporting (used by {op.name})")
            self.variables[var] = self.main.const(np.asarray(value), f"{var}:0")
        return self.variables[var]

    # --- control flow ------------------------------------------------------------------------
    def region(self, parent: Scope, region, prefix: str, args: list[str]) -> tuple[Scope, list[str]]:
        """Write ``region``'s ops into a new sub-graph scope; its results' names."""
        sub = Scope(self, parent, prefix)
        for a, n in zip(region.args, args):
            sub.names[a] = n
        for ph, t in zip(region.placeholders, region.captured):
            sub.names[ph] = parent.name(t)
        fed = set(region.args) | set(region.placeholders)
        sub.emit(topological_order(_data_prune(region.outs, fed)))
        return sub, [sub.name(t) for t in region.outs]

    def inline(self, scope: Scope, region, prefix: str, args: list[str]) -> list[str]:
        """``region``'s ops written straight into ``scope`` (no sub-graph): its results' names."""
        sub, outs = self.region(scope, region, prefix, args)
        scope.nodes += sub.nodes
        scope.initializers += sub.initializers
        return outs

    def loop(self, scope: Scope, op: Operation, ins: list[str], results: Sequence[Tensor]) -> None:
        a = op.attrs
        n, (cond_r, body_r) = a["n_vars"], regions_of(op)
        first, = self.inline(scope, cond_r, f"{op.name}/cond/", ins[:n])
        m = scope.cast(ins[-1], op.inputs[-1].np_dtype, np.int64) if a["max_iter"] else ""
        it, c_in = (self.unique(f"{op.name}/body/{x}") for x in ("iteration", "cond_in"))
        args = [self.unique(f"{op.name}/body/{t.name}") for t in body_r.args]
        body, outs = self.region(scope, body_r, f"{op.name}/body/", args)
        nxt, = self.inline(body, cond_r, f"{op.name}/cond_next/", outs)
        final = [body.node("Identity", [x]) for x in [nxt, *outs]]
        body_graph = helper.make_graph(
            body.nodes, f"{op.name}/body",
            [helper.make_tensor_value_info(it, TensorProto.INT64, []),
             helper.make_tensor_value_info(c_in, TensorProto.BOOL, []),
             *[_value_info(nm, t) for nm, t in zip(args, body_r.args)]],
            [helper.make_tensor_value_info(final[0], TensorProto.BOOL, []),
             *[_value_info(nm, t) for nm, t in zip(final[1:], results)]])
        names = [scope.fresh(t.name) for t in results]
        scope.node("Loop", [m, first, *ins[:n]], names, body=body_graph)
        scope.names.update(zip(results, names))

    def if_(self, scope: Scope, op: Operation, ins: list[str], results: Sequence[Tensor]) -> None:
        false_r, true_r = regions_of(op)
        graphs = []
        for label, region in (("true", true_r), ("false", false_r)):
            sub, outs = self.region(scope, region, f"{op.name}/{label}/", [])
            final = [sub.node("Identity", [x]) for x in outs]
            graphs.append(helper.make_graph(sub.nodes, f"{op.name}/{label}", [],
                                            [_value_info(nm, t, None) for nm, t in zip(final, results)]))
        names = [scope.fresh(t.name) for t in results]
        pred = scope.cast(ins[0], op.inputs[0].np_dtype, np.bool_)
        scope.node("If", [pred], names, then_branch=graphs[0], else_branch=graphs[1])
        scope.names.update(zip(results, names))


def _as_tensor(graph, t: Any) -> Tensor:
    el = graph.as_graph_element(t)
    if not isinstance(el, Tensor):
        raise TypeError(f"expected a Tensor, got the Operation {el.name}")
    return el


def to_model(sess, outputs: Sequence[Any], inputs: Sequence[Any], opset: int | None = None,
             input_shapes: dict | None = None, graph=None,
             input_names: Sequence[str] | None = None,
             output_names: Sequence[str] | None = None,
             constants: dict | None = None) -> onnx.ModelProto:
    """The ONNX ``ModelProto`` of ``outputs`` given ``inputs`` (see :func:`export`).

    ``input_shapes``: per input position, a shape overriding the placeholder's
    static one (ints fixed, strings symbolic dims, None unknown).  ``graph``:
    export from this graph without a Session (no variables then).
    ``constants``: placeholder tensor -> (initializer name, value), for
    values fixed at export time (a traced model's parameters).
    """
    opset = DEFAULT_OPSET if opset is None else int(opset)
    if not MIN_OPSET <= opset <= onnx.defs.onnx_opset_version():
        raise ValueError(f"opset {opset} is not supported: use {MIN_OPSET} to "
                         f"{onnx.defs.onnx_opset_version()}")
    graph = graph if graph is not None else sess.graph
    outputs = [_as_tensor(graph, t) for t in outputs]
    inputs = [_as_tensor(graph, t) for t in inputs]
    ex = _Exporter(sess, opset)
    main = ex.main
    in_names = list(input_names or [t.name for t in inputs])
    for t, name in zip(inputs, in_names):
        main.names[t] = ex.unique(name)
    for t, (name, value) in (constants or {}).items():
        main.names[_as_tensor(graph, t)] = main.const(np.asarray(value), name)
    main.emit(topological_order(_data_prune(outputs, set(inputs) | set(main.names))))
    out_names, taken = [], set(main.names[t] for t in inputs)
    for k, t in enumerate(outputs):
        if t.ndim is None:
            raise ExportError(f"output {t.name} has an unknown rank: an ONNX model's outputs need "
                              f"one (give the inputs known ranks, or set_shape the output)")
        want = output_names[k] if output_names else t.name
        have = main.name(t)
        if have != want or have in taken:
            have = main.node("Identity", [have], [ex.unique(want)])
        taken.add(have)
        out_names.append(have)
    shapes = input_shapes or {}
    g = helper.make_graph(
        main.nodes, "staticgraph",
        [_value_info(main.names[t], t, shapes.get(k, "static")) for k, t in enumerate(inputs)],
        [_value_info(nm, t) for nm, t in zip(out_names, outputs)], main.initializers)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="staticgraph", producer_version="0.1.0")
    onnx.checker.check_model(model)
    return model


def export(sess, outputs: Sequence[Any], inputs: Sequence[Any], path: str,
           opset: int | None = None) -> onnx.ModelProto:
    """Write the inference graph computing ``outputs`` from ``inputs`` to ``path`` (ONNX).

    ``outputs``: tensors; ``inputs``: the placeholders the model takes; the
    Session ``sess`` supplies the variables' values (as initializers).  The
    model passes ``onnx.checker``; returns the ``ModelProto``.

    >>> export(sess, [logits], [x], "mlp.onnx")     # doctest: +SKIP
    """
    model = to_model(sess, outputs, inputs, opset)
    onnx.save(model, str(path))
    return model

"""``gradients(ys, xs)``: reverse-mode differentiation that *adds nodes* to the graph.

::

    forward:  x --Mul--> y
    gradients(y, x) adds, under the scope "gradients/":
              OnesLike(y) --[Mul's rule for input 0, applied with F = graph builder]--> dy/dx

The rules are the registry's (``op.vjp``), called with ``F = Namespace(apply)``
so every ``F.mul`` adds a node; what a rule reads (``b``, ``out``, ``a_shape``)
is the forward symbolic tensor itself.  Gradient nodes are ordinary nodes, so
they are pruned and compiled like any other, and differentiating them again
gives higher-order gradients.

Ops are visited in reverse creation order (creation order is topological),
only those on a path from some x to some y.  A structural kind's gradient is
declared with the kind (``kinds.defkind(..., gradient=...)``); a node with
none, on a path that needs one, is an error naming it (TF's ``LookupError``).

Differentiating with respect to a Variable means with respect to its handle
(as TF does for resource variables): every read of it -- in loop bodies too --
passes its gradient to the handle, so they are summed.
"""
from __future__ import annotations

import contextlib
import enum
import operator

from typing import Any

import ml_dtypes
import numpy as np

from common.ops.tensor_list import LIST_OPS
from common.shapes import EXTENDED_FLOATS
from ..framework import dtypes as _dtypes
from ..framework.build import F, convert_to_tensor
from ..framework.graph import Operation, SubGraph, Tensor, creation_site, get_default_graph, pinned_site
from ..framework.kinds import handle_op, kind_of
from ..ops.core_ops import add_n, ones_like, reshape, stack, zeros, zeros_like

__all__ = ["gradients", "differentiable", "UnconnectedGradients", "AggregationMethod",
           "RegisterGradient", "NotDifferentiable", "no_gradient", "hessians"]


class AggregationMethod:
    """How ``gradients`` sums the gradients an input receives from several uses, as TF names
    the choices.  Every method gives the same sums here (one ``AddN``); TF's tree and
    accumulate variants trade memory and ordering on its executors."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients(enum.Enum):
    """What ``gradients`` returns for an x no y depends on: None (TF's default) or zeros.
    An enum, as TF's (``gradients`` also takes its value, ``"zero"``)."""

    NONE = "none"
    ZERO = "zero"


def _as_list(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _x_tensor(x) -> Tensor:
    """What a gradient is taken with respect to: a tensor, or a variable's handle."""
    handle = getattr(x, "handle", None)
    return handle if isinstance(handle, Tensor) else convert_to_tensor(x)


def _captured(op: Operation) -> Tensor | None:
    """The outer tensor ``op`` stands for, if it is a loop body's or branch's capture
    placeholder: gradients flow across it (TF differentiates a body's use of an outer
    tensor back into the outer ops, building their gradients inside the body)."""
    if op.type != "Placeholder":
        return None
    return getattr(op.graph, "captured_from", {}).get(op.outputs[0])


def _inputs(op: Operation, nested: bool) -> tuple:
    """``op``'s inputs; in a nested graph a capture placeholder's input is its outer tensor."""
    outer = _captured(op) if nested else None
    return op.inputs if outer is None else (outer,)


def _graphs(graph) -> list:
    """``graph`` and the graphs enclosing it, outermost first."""
    chain = [graph]
    while isinstance(chain[-1], SubGraph):
        chain.append(chain[-1].outer)
    return chain[::-1]


def _between(ys: list[Tensor], xs: list[Tensor], stops: set[Tensor]) -> set[Operation]:
    """Ops on a path from some x to some y, not going back through a stop tensor's op (TF: a
    stop tensor still receives its gradient -- it is only not propagated further).  From a
    loop body or branch the paths go on into the enclosing graphs (see :func:`_captured`)."""
    nested = isinstance(ys[0].graph, SubGraph)
    reach_back, stack = set(), [y.op for y in ys if y not in stops]
    while stack:
        op = stack.pop()
        if op not in reach_back:
            reach_back.add(op)
            for t in _inputs(op, nested):
                if t not in stops:
                    stack.append(t.op)
    forward, x_set = set(), set(xs)
    for graph in _graphs(ys[0].graph):   # outer graphs first, each in creation order: inputs first
        for op in graph._ops:
            if op in reach_back:
                for t in _inputs(op, nested):
                    if t in x_set or (t not in stops and t.op in forward):
                        forward.add(op)
                        break
    return forward


def _depth_index(op: Operation) -> tuple[int, int]:
    """Creation order across nested graphs: a body's ops after all of the enclosing graph's."""
    return len(_graphs(op.graph)), op.index


def differentiable(t: Tensor) -> bool:
    """Can a gradient flow into ``t``: a float or complex tensor, the handle of a float or
    complex variable, or a TensorArray's list of elements of different shapes."""
    dtype = t._dtype
    if dtype is _dtypes.resource:       # the one resource dtype object
        dtype = handle_op(t).attrs["dtype"]
    return trainable(dtype._np) or t.op.kind in LIST_OPS   # a TensorArray's list of elements


_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
_FLOAT8 = EXTENDED_FLOATS - {_BFLOAT16}


def trainable(dtype: np.dtype) -> bool:
    """TF's ``backprop_util.IsTrainable``: float and complex dtypes carry gradients, bfloat16
    too (numpy kind "V"), the float8s not (float8_e5m2 has numpy kind "f")."""
    return (dtype.kind in "fc" and dtype not in _FLOAT8) or dtype == _BFLOAT16


def gradients(ys, xs, grad_ys=None, name: str = "gradients", stop_gradients=None,
              colocate_gradients_with_ops=False, gate_gradients=False,
              aggregation_method=None,
              unconnected_gradients=UnconnectedGradients.NONE) -> list[Tensor | None]:
    """d(sum ys)/d xs as new graph nodes; for an x that no y depends on, None -- or zeros
    shaped like x with ``unconnected_gradients=UnconnectedGradients.ZERO``.

    ``stop_gradients``: tensors treated as constants (no gradient flows through them).
    """
    methods = [AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
               AggregationMethod.EXPERIMENTAL_ACCUMULATE_N]
    if aggregation_method is not None and aggregation_method not in methods:
        raise ValueError(f"Invalid `aggregation_method` specified {aggregation_method}. "
                         f"Accepted values are {methods}.")
    mode = getattr(unconnected_gradients, "value", unconnected_gradients)
    if mode not in (UnconnectedGradients.NONE.value, UnconnectedGradients.ZERO.value):
        raise ValueError(f"Unknown value for unconnected_gradients: '{unconnected_gradients}'")
    originals = _as_list(xs)
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    xs = [_x_tensor(x) for x in originals]
    stops = {convert_to_tensor(s) for s in _as_list(stop_gradients or [])}
    grad_ys = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys)
    graph = get_default_graph()
    with graph.name_scope(name), pinned_site(creation_site()):   # one stack walk, not one per node
        grads: dict[Tensor, list] = {}
        for y, gy in zip(ys, grad_ys):
            if gy is None and y.dtype.is_complex:
                raise TypeError(f"Gradients of complex tensors ({y}) must set grad_ys "
                                f"(y.dtype = {y.dtype.name})")
            with _colocated(graph, y.op, colocate_gradients_with_ops):
                g = ones_like(y, name=f"grad_ys_{len(grads)}") if gy is None else convert_to_tensor(gy, dtype=y.dtype)
            grads.setdefault(y, []).append(g)
        between, x_set = _between(ys, xs, stops), set(xs)
        nested = isinstance(ys[0].graph, SubGraph)
        for op in sorted(between, key=_depth_index if nested else _index, reverse=True):
            outer = _captured(op) if nested else None
            if outer is not None:   # a capture placeholder: its gradient is its outer tensor's
                gs = grads.get(op.outputs[0])
                if gs:
                    grads.setdefault(outer, []).append(_total(gs))
                continue
            outs = op.outputs
            if len(outs) == 1 and not colocate_gradients_with_ops:   # the common case
                gs = grads.get(outs[0])
                if not gs:
                    continue
                out_grads = [gs[0] if len(gs) == 1 else _total(gs)]
            else:
                with _colocated(graph, op, colocate_gradients_with_ops):   # sums too, as TF
                    out_grads = [_total(grads.get(t)) for t in outs]
                if all(g is None for g in out_grads):
                    continue
            wanted = [differentiable(t) and (t in x_set or (t not in stops and t.op in between))
                      for t in op.inputs]
            # ``with graph.name_scope(op.name + "_grad"), _colocated(...)``, inlined: the two
            # context managers cost ~20% of gradients() on a long chain (measured)
            outer = graph._name_stack
            graph._name_stack = graph.unique_name(op.name + "_grad", check=False)  # a node's name
            try:
                if colocate_gradients_with_ops:
                    with graph.colocate_with(op):
                        in_grads = _op_input_grads(op, out_grads, wanted)
                else:
                    in_grads = _op_input_grads(op, out_grads, wanted)
            finally:
                graph._name_stack = outer
            for t, g, w in zip(op.inputs, in_grads, wanted):
                if g is not None and w:
                    grads.setdefault(t, []).append(g)
        out = []
        for x in xs:
            with _colocated(graph, x.op, colocate_gradients_with_ops):
                out.append(_total(grads.get(x)))
    if mode == UnconnectedGradients.ZERO.value:
        out = [g if g is not None else _zeros_for(x, orig) for g, x, orig in zip(out, xs, originals)]
    return out


def hessians(ys, xs, name: str = "hessians", colocate_gradients_with_ops=False,
             gate_gradients=False, aggregation_method=None) -> list[Tensor | None]:
    """The second derivatives of ``sum(ys)`` in each ``x``: shape ``x.shape + x.shape``
    (``x``'s size must be known when the graph is built: one gradient per element, where TF
    builds a ``while_loop`` over them)."""
    xs = _as_list(xs)
    out = []
    with get_default_graph().name_scope(name):
        for x, g in zip(xs, gradients(ys, xs)):
            if g is None:
                out.append(None)
                continue
            x = convert_to_tensor(x)
            n = x.shape.num_elements()
            if n is None:
                raise ValueError(f"hessians here needs {x.name}'s shape known when the graph is "
                                 f"built (it has {x.shape})")
            flat = reshape(g, [-1])
            rows = [gradients(flat[i], x)[0] for i in range(n)]
            if all(r is None for r in rows):   # TF's words: its loop body's gradient is None
                raise ValueError(f"None values not supported. (The gradient of the gradient in "
                                 f"{x.name} is None: ys is at most linear in it.)")
            rows = [zeros_like(x) if r is None else r for r in rows]
            out.append(reshape(stack(rows), x.shape.as_list() * 2))
    return out


# --- gradients registered by name (TF1's RegisterGradient + gradient_override_map) ----------

_REGISTERED: dict[str, tuple[Any, str]] = {}   # name -> (gradient function, where registered)


class RegisterGradient:
    """Register ``fn(op, *out_grads) -> input gradients`` under a name, for the nodes a
    ``graph.gradient_override_map({"OpType": name})`` block makes.

    >>> @tf.RegisterGradient("ReverseGrad")
    ... def _reverse(op, grad):
    ...     return -grad
    >>> with tf.get_default_graph().gradient_override_map({"Identity": "ReverseGrad"}):
    ...     y = tf.identity(x)               # d y / d x is now -1
    """

    def __init__(self, op_type: str):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        if self._op_type in _REGISTERED:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'! (Previous "
                           f"registration was in {_REGISTERED[self._op_type][1]})")
        _REGISTERED[self._op_type] = (fn, creation_site())
        return fn


def no_gradient(op_type: str) -> None:
    """Register ``op_type`` (an override name) as having no gradient: its inputs get None."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    RegisterGradient(op_type)(None)


NotDifferentiable = no_gradient


def _overridden(op: Operation, name: str, out_grads: list) -> list:
    """The input gradients of ``op`` from the function registered as ``name``; an output
    that received no gradient passes zeros (TF does the same for a trainable output)."""
    entry = _REGISTERED.get(name)
    if entry is None:
        raise LookupError(f"gradient registry has no entry for: {name}")
    fn = entry[0]
    if fn is None:
        return [None] * len(op.inputs)
    grads = [F.zeros_like(t) if g is None and differentiable(t) else g
             for g, t in zip(out_grads, op.outputs)]
    result = fn(op, *grads)
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(result) != len(op.inputs):
        raise ValueError(f"Num gradients {len(result)} generated for op {op.name} (type "
                         f"{op.type}, gradient '{name}') do not match num inputs {len(op.inputs)}"
                         f"\n  created at {op.site}")
    return [None if g is None else convert_to_tensor(g) for g in result]


def _zeros_for(x: Tensor, original) -> Tensor:
    """Zeros shaped like ``x`` (TF's names: ``zeros_like``; ``zeros`` for a variable)."""
    if x.dtype == _dtypes.resource:
        value = convert_to_tensor(original)
        return zeros(value.shape.as_list(), value.dtype, name="zeros")
    return zeros_like(x, name="zeros_like")


_NOT_COLOCATED = contextlib.nullcontext()
_index = operator.attrgetter("index")   # creation order


def _colocated(graph, op: Operation, colocate: bool):
    """``colocate_gradients_with_ops``: the gradient of ``op`` asks for exactly ``op``'s device
    (outer ``tf.device`` scopes ignored, as TF's colocation does); otherwise nothing to do."""
    return graph.colocate_with(op) if colocate else _NOT_COLOCATED


def _total(gs: list | None) -> Tensor | None:
    """The sum of one tensor's gradients, as TF's ``_MultiDeviceAddN`` makes it: an ``AddN``
    per device (sorted), each made beside the first gradient on that device (its device and
    colocation group), then one ``AddN`` of those; the terms in the order of the consumers
    that sent them (the order of TF's walk: ``gs`` fills in reverse)."""
    if not gs:
        return None
    if len(gs) == 1:
        return gs[0]
    gs.reverse()
    by_device: dict[str, list] = {}
    for g in gs:
        by_device.setdefault(g.device, []).append(g)
    graph = get_default_graph()
    summands = []
    for device in sorted(by_device):
        with graph.colocate_with(by_device[device][0].op, ignore_existing=True):
            summands.append(add_n(by_device[device]))
    total = add_n(summands)
    gs[:] = [total]
    return total


def _op_input_grads(op: Operation, out_grads: list, wanted: list[bool]) -> list[Any]:
    """Gradients for the ``wanted`` inputs (only those on a path to some x get nodes)."""
    overrides = op.graph.gradient_overrides
    if overrides and op in overrides:
        return _overridden(op, overrides[op], out_grads)
    if op.op_def is None:
        kind = kind_of(op)
        if kind is None or kind.gradient is None:
            if not any(wanted):
                return [None] * len(op.inputs)
            raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type})"
                              f"\n  created at {op.site}")
        return kind.gradient(op, out_grads, wanted)
    d = op.op_def
    if d.outputs is not None:   # multi_output: the rule reads every result's cotangent: zeros where none arrived
        if all(g is None for g, t in zip(out_grads, op.outputs) if trainable(t._dtype._np)):
            return [None] * len(op.inputs)
        # (None, not zeros, for a workspace that got none: ``undefined_grads``)
        g = tuple(((None if k in d.undefined_grads else F.zeros_like(t)) if g is None else g)
                  if trainable(t._dtype._np) else None
                  for k, (g, t) in enumerate(zip(out_grads, op.outputs)))
        out = op.outputs
    else:
        g, out = out_grads[0], op.outputs[0]
        if g is None or not (trainable(out._dtype._np) or op.kind in LIST_OPS):   # neither float
            # nor complex, nor a list of elements
            return [None] * len(op.inputs)
    saved = d.save(op.inputs, out)
    return [d.vjp(i, F, g, saved, op.attrs) if w else None   # (vjp: None where no rule)
            for i, w in enumerate(wanted)]

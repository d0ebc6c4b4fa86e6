"""Reverse mode: walk the recorded graph from the outputs back to the leaves.

    1. reachability from the roots (iterative: no recursion limit);
    2. nodes in decreasing sequence number -- a node is always newer than the
       nodes of its inputs, so every consumer runs before what it consumes
       (deterministic, no topological sort needed);
    3. per node: take its summed gradient out of the table (freeing it), run
       its hooks, check its saved values are not stale (version counters),
       apply each input's registry rule, add the results into the table;
    4. leaves last: hooks, then accumulate into ``.grad``.

The rules run against ``F``: plain numpy (fast, nothing recorded) or, for
``create_graph=True``, this engine's own ``apply`` -- then the gradient is
itself a recorded computation and can be differentiated again.
"""
from __future__ import annotations

import re

import numpy as np

from common import Namespace, numpy_namespace
from common.numerics import NonFiniteError

from ..anomaly import backward_error, detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from ..errors import torch_type_name
from ..grad_mode import enable_grad, no_grad
from ..node import POST_HOOKS, POST_HOOKS_USED, AccumulateGrad, Node
from ..tensor import Tensor, make
# Custom Functions, functional transforms and gradcheck: built on grad() below
from . import functional
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401

__all__ = ["backward", "grad", "no_grad", "enable_grad", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "Function", "functional", "gradcheck", "gradgradcheck"]

NUMPY_F = numpy_namespace()

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")
HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _tensor_F() -> Namespace:
    global _TENSOR_F
    if _TENSOR_F is None:
        from ..engine import apply
        _TENSOR_F = Namespace(apply)
    return _TENSOR_F


_TENSOR_F = None


# --- saved values ---------------------------------------------------------------------


def _stale(node: Node) -> str | None:
    """Why the node's saved values can no longer be used, if they cannot."""
    for t, version in node.versions:
        if t._vc[0] != version:
            owner = f", which is output 0 of {_op_name(t.grad_fn)}," if t.grad_fn else ""
            return (f"{torch_type_name(t._data)}{owner} is at version {t._vc[0]}; "
                    f"expected version {version} instead.")
    if node.out_vc is not None and node.out_vc[0][0] != node.out_vc[1]:
        (vc, version), out = node.out_vc, node.saved["out"]
        return (f"{torch_type_name(out)}, which is output 0 of {_op_name(node)}, is at "
                f"version {vc[0]}; expected version {version} instead.")
    return None


def _op_name(node: Node) -> str:
    """``MulBackward0`` -> ``Mul``, as PyTorch names the producer in version errors."""
    return re.sub(r"Backward\d*$", "", type(node).__name__)


def _check(nodes: list[Node]) -> None:
    """Refuse before anything changes: freed or stale saved values anywhere on the walk."""
    for node in nodes:
        if node.saved is None:
            raise RuntimeError(FREED)
        problem = _stale(node)
        if problem:
            raise RuntimeError("one of the variables needed for gradient computation has been "
                               f"modified by an inplace operation: {problem} {HINT}")


def _unpack(node: Node, create_graph: bool) -> dict:
    """The node's saved values as its rules want them: arrays, or tensors when recording."""
    if create_graph:
        return {k: (make(v, True, node) if k == "out" else v) for k, v in node.saved.items()}
    return {k: _arrays(v) for k, v in node.saved.items()}


def _arrays(v):
    if isinstance(v, Tensor):
        return v._data
    if isinstance(v, list):
        return [x._data if isinstance(x, Tensor) else x for x in v]
    return v


# --- the walk ---------------------------------------------------------------------------


def _reachable(roots) -> list[Node]:
    """Every Node reachable from ``roots``, newest first."""
    stack = [r for r in roots if isinstance(r, Node)]
    seen = set(stack)
    while stack:
        for p in stack.pop().parents:
            if p is not None and p not in seen and isinstance(p, Node):
                seen.add(p)
                stack.append(p)
    nodes = list(seen)
    nodes.sort(key=lambda n: n.seq, reverse=True)
    return nodes


def _add(table: dict, key, g) -> None:
    """Sum gradients arriving at ``key`` (numpy arrays or, when recording, Tensors)."""
    old = table.get(key)
    table[key] = g if old is None else old + g


def _run_hooks(hooks, g, create_graph: bool):
    """Tensor hooks see and may replace the gradient (as a Tensor)."""
    gt = g if isinstance(g, Tensor) else make(np.asarray(g))
    for hook in hooks:
        new = hook(gt)
        if new is not None:
            gt = new
    return gt if create_graph else gt._data


def _engine(roots: list, retain_graph: bool, create_graph: bool, capture=None) -> dict:
    """Propagate root gradients; return the gradients that reached leaves (and ``capture``)."""
    F = _tensor_F() if create_graph else NUMPY_F
    table: dict = {}
    for edge, g in roots:
        _add(table, edge, g)
    captured = {}
    nodes = _reachable([edge for edge, _ in roots])
    _check(nodes)
    for node in nodes:
        g = table.pop(node, None)
        if g is None:
            continue
        if node.hooks:
            g = _run_hooks(node.hooks, g, create_graph)
        if capture is not None and node in capture:
            captured[node] = g
        if node.retained is not None:
            _retain(node, g, create_graph)
        # a node that saved only ShapeRefs (Add, Sum...) hands them over as they are
        saved = _unpack(node, create_graph) if node.frees or create_graph else node.saved
        op, attrs = node.op, node.attrs
        i = 0
        try:
            if POST_HOOKS_USED[0] and node in POST_HOOKS:
                _run_post_hooks(node, F, g, saved, table, create_graph)
            else:
                for i, parent in enumerate(node.parents):
                    if parent is not None:
                        gi = op.vjp(i, F, g, saved, attrs)
                        if gi is not None:
                            old = table.get(parent)
                            table[parent] = gi if old is None else old + gi
        except NonFiniteError as e:
            raise backward_error(node, i, e) from None
        if node.frees and not retain_graph:
            node.saved, node.versions, node.out_vc = None, (), None
    table.update(captured)
    return table


def _run_post_hooks(node: Node, F, g, saved: dict, table: dict, create_graph: bool) -> None:
    """A node with ``register_hook`` hooks: all input gradients first, then the hooks, then add."""
    def tensor(x):
        return x if x is None or isinstance(x, Tensor) else make(np.asarray(x))
    grads = [node.op.vjp(i, F, g, saved, node.attrs) if p is not None else None
             for i, p in enumerate(node.parents)]
    grad_inputs, grad_outputs = tuple(map(tensor, grads)), (tensor(g),)
    for hook in POST_HOOKS[node]:
        new = hook(grad_inputs, grad_outputs)
        if new is not None:
            grad_inputs = tuple(new)
    for parent, gi in zip(node.parents, grad_inputs):
        if parent is not None and gi is not None:
            gi = gi if create_graph else gi._data
            old = table.get(parent)
            table[parent] = gi if old is None else old + gi


def _retain(node: Node, g, create_graph: bool) -> None:
    t = node.retained()
    if t is not None:
        _accumulate(t, g, create_graph)


def _accumulate(t: Tensor, g, create_graph: bool) -> None:
    """``t.grad += g``: in place when possible (optimizers hold on to ``.grad``)."""
    old = t._grad
    if create_graph:
        g = g if isinstance(g, Tensor) else make(np.asarray(g))
        t._grad = g if old is None else old + g
        return
    g = np.asarray(g, dtype=t._data.dtype)
    if old is None:
        t._grad = make(np.array(g, copy=True))
    else:
        np.add(old._data, g, out=old._data)
        old._vc[0] += 1


# --- public entry points --------------------------------------------------------------


def _roots(tensors, grads, create_graph: bool) -> list:
    roots = []
    for k, (t, g) in enumerate(zip(tensors, grads)):
        if not t._rg:
            raise RuntimeError(f"element {k} of tensors does not require grad and does not have "
                               "a grad_fn")
        if g is None:
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.ones_like(t._data)
        elif isinstance(g, Tensor):
            if g._data.shape != t._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{k}] has a shape of "
                                   f"{g.shape} and output[{k}] has a shape of {t.shape}.")
            g = g if create_graph else g._data
        else:
            g = np.asarray(g, dtype=t._data.dtype)
        if create_graph and not isinstance(g, Tensor):
            g = make(g)
        roots.append((t.grad_fn or t._accumulator(), g))
    return roots


def _seq(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False,
             inputs=None) -> None:
    """Accumulate d(tensors)/d(leaf) into every reachable leaf's ``.grad``."""
    tensors = _seq(tensors)
    grads = _seq(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    retain = create_graph if retain_graph is None else retain_graph
    with enable_grad() if create_graph else no_grad():
        roots = _roots(tensors, grads, create_graph)
        table = _engine(roots, retain, create_graph)
        wanted = None if inputs is None else {id(t) for t in _seq(inputs)}
        for edge, g in table.items():
            if isinstance(edge, AccumulateGrad):
                leaf = edge.variable
                if leaf is not None and (wanted is None or id(leaf) in wanted):
                    if leaf._hooks:
                        g = _run_hooks(leaf._hooks, g, create_graph)
                    _accumulate(leaf, g, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         allow_unused: bool = False) -> tuple:
    """d(outputs)/d(inputs), returned (not accumulated into ``.grad``)."""
    outputs, inputs = _seq(outputs), _seq(inputs)
    grads = _seq(grad_outputs) if grad_outputs is not None else [None] * len(outputs)
    retain = create_graph if retain_graph is None else retain_graph
    for t in inputs:
        if not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    edges = [t.grad_fn or t._accumulator() for t in inputs]
    with enable_grad() if create_graph else no_grad():
        table = _engine(_roots(outputs, grads, create_graph), retain, create_graph,
                        capture={e for e in edges if isinstance(e, Node)})
        result = []
        for k, (t, edge) in enumerate(zip(inputs, edges)):
            g = table.get(edge)
            if g is None and not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {k} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
            if g is not None and not isinstance(g, Tensor):
                g = make(np.array(np.asarray(g, dtype=t._data.dtype), copy=True))
            if isinstance(edge, AccumulateGrad) and g is not None and t._hooks:
                g = _run_hooks(t._hooks, g, True)
            result.append(g)
    return tuple(result)


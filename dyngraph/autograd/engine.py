"""The backward engine: walk the recorded graph from the outputs back to the leaves.

PyTorch's is ``torch/csrc/autograd/engine.cpp``; :mod:`dyngraph.autograd`
re-exports ``backward`` and ``grad`` from here.  (The forward side, the one
``apply`` every op runs through, is :mod:`dyngraph.engine`.)

    1. reachability from the roots (iterative: no recursion limit);
    2. nodes in decreasing sequence number -- a node is always newer than the
       nodes of its inputs, so every consumer runs before what it consumes
       (deterministic, no topological sort needed);
    3. per node: take its summed gradient out of the table (freeing it), run
       its hooks, check its saved values are not stale (version counters),
       apply each input's registry rule, add the results into the table;
    4. leaves last: hooks, then accumulate into ``.grad`` (a gradient nothing
       else refers to becomes ``.grad`` as is, as PyTorch's AccumulateGrad
       keeps an unshared gradient; any other is copied first).

The rules run against ``F``: plain numpy (fast, nothing recorded) or, for
``create_graph=True``, this engine's own ``apply`` -- then the gradient is
itself a recorded computation and can be differentiated again.  A registry
op's node takes a short path: the saved names each rule reads are worked out
once per op (``engine.OP_INFO``); custom Functions, traced calls, post hooks
and ``create_graph`` take the general step.
"""
from __future__ import annotations

import operator
import re
import sys

import numpy as np

from common import Namespace, numerics, numpy_namespace
from common.numerics import NonFiniteError

from ..anomaly import backward_error
from ..engine import OP_INFO, apply
from ..errors import torch_type_name
from ..grad_mode import STATE, enable_grad, no_grad
from ..node import POST_HOOKS, POST_HOOKS_USED, AccumulateGrad, Node
from ..tensor import Tensor, make
__all__ = ["backward", "grad"]

NUMPY_F = numpy_namespace()
_BOUND_F = None


def _numpy_F() -> Namespace:
    """The numpy ``F`` with the impls bound (one call less per op) unless numerics checking
    has swapped the impls (then the plain one, which reads ``op.impl`` at each call)."""
    global _BOUND_F
    if numerics.enabled():
        return NUMPY_F
    if _BOUND_F is None:
        _BOUND_F = numpy_namespace(bound=True)
    return _BOUND_F

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")
HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _tensor_F() -> Namespace:
    """The rules' ``F`` under ``create_graph=True`` (every op recorded, so the gradient is
    differentiable), built on first use: after every op module has registered its ops."""
    global _TENSOR_F
    if _TENSOR_F is None:
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


def _refuse_stale(node: Node) -> None:
    raise RuntimeError("one of the variables needed for gradient computation has been "
                       f"modified by an inplace operation: {_stale(node)} {HINT}")


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
    """Every Node reachable from ``roots``, newest first -- refused before anything changes
    when one of them had its saved values freed, or changed in place since (the comparisons
    of :func:`_stale` inline: most nodes pass; checked as each node is found, one pass over
    the graph instead of a second loop: rnn_50's backward ~2% less)."""
    stack = [r for r in roots if isinstance(r, Node)]
    seen = set(stack)
    push, see = stack.append, seen.add
    while stack:
        node = stack.pop()
        if node.saved is None:
            raise RuntimeError(FREED)
        for t, version in node.versions:
            if t._vc[0] != version:
                _refuse_stale(node)
        out_vc = node.out_vc
        if out_vc is not None and out_vc[0][0] != out_vc[1]:
            _refuse_stale(node)
        for p in node.parents:
            if p is not None and p not in seen and isinstance(p, Node):
                see(p)
                push(p)
    nodes = list(seen)
    nodes.sort(key=_SEQ, reverse=True)
    return nodes


_SEQ = operator.attrgetter("seq")


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
    F = _tensor_F() if create_graph else _numpy_F()
    table: dict = {}
    for edge, g in roots:
        _add(table, edge, g)
    captured = {}
    nodes = _reachable([edge for edge, _ in roots])
    pop, get, info_of = table.pop, table.get, OP_INFO.get
    for node in nodes:
        g = pop(node, None)
        if g is None:
            continue
        if node.hooks:
            g = _run_hooks(node.hooks, g, create_graph)
        if capture is not None and node in capture:
            captured[node] = g
        if node.retained is not None:
            _retain(node, g, create_graph)
        op, saved = node.op, node.saved
        info = info_of(op)
        if (info is None or info.rules is None or create_graph
                or (POST_HOOKS_USED[0] and node in POST_HOOKS)):
            _general_step(node, F, g, table, create_graph)
        else:
            # the fast path: a registry op's numpy rules, their arguments fetched by name
            if node.frees and info.values:
                if retain_graph:
                    saved = saved.copy()
                for name in info.values:
                    v = saved.get(name)
                    if isinstance(v, Tensor):
                        saved[name] = v._data
            rules, plan, i = op.grads, info.rules, 0
            try:
                for parent in node.parents:
                    if parent is not None:
                        rule, names = rules[i], plan[i]
                        if names is None:
                            gi = op.vjp(i, F, g, saved, node.attrs)
                        elif len(names) == 1:
                            gi = rule(F, g, saved[names[0]])
                        elif len(names) == 2:
                            gi = rule(F, g, saved[names[0]], saved[names[1]])
                        else:
                            gi = rule(F, g, *[saved[n] for n in names])
                        if gi is not None:
                            old = get(parent)
                            table[parent] = gi if old is None else old + gi
                    i += 1
            except NonFiniteError as e:
                raise backward_error(node, i, e) from None
        if node.frees and not retain_graph:
            node.saved, node.versions, node.out_vc = None, (), None
    table.update(captured)
    return table


def _general_step(node: Node, F, g, table: dict, create_graph: bool) -> None:
    """One node's step for any node kind (custom Functions, traced calls, post hooks,
    ``create_graph``)."""
    # a node that saved only ShapeRefs (Add, Sum...) hands them over as they are
    saved = _unpack(node, create_graph) if node.frees or create_graph else node.saved
    op, attrs = node.op, node.attrs
    if POST_HOOKS_USED[0] and node in POST_HOOKS:
        _run_post_hooks(node, F, g, saved, table, create_graph)
        return
    i = 0
    try:
        for i, parent in enumerate(node.parents):
            if parent is not None:
                gi = op.vjp(i, F, g, saved, attrs)
                if gi is not None:
                    old = table.get(parent)
                    table[parent] = gi if old is None else old + gi
    except NonFiniteError as e:
        raise backward_error(node, i, e) from None


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
    if type(g) is not np.ndarray or g.dtype is not t._data.dtype:   # (the usual array as is:
        g = np.asarray(g, dtype=t._data.dtype)                      # no keyword call)
    if old is None:
        # PyTorch's AccumulateGrad keeps the incoming gradient itself when nothing else
        # shares it; so do we: an array that owns its memory and is referred to only by
        # this frame and backward's loop (refcount 3 with getrefcount's own argument) --
        # not the table (under another edge), a user's tensor, a saved value or a view
        t._grad = make(g if g.base is None and sys.getrefcount(g) <= 3 and g.flags.writeable
                       else np.array(g, copy=True))
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
            # one element (a loss): the new array of ones ones_like makes, ~2 us sooner
            g = np.empty(t._data.shape, t._data.dtype)
            g.fill(1)
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
    # ``with enable_grad() if create_graph else no_grad():`` written out: the same flag set
    # and restored, without making a context manager (~0.4 us of every backward)
    prev, STATE.enabled = STATE.enabled, True if create_graph else False
    try:
        roots = _roots(tensors, grads, create_graph)
        table = _engine(roots, retain, create_graph)
        wanted = None if inputs is None else {id(t) for t in _seq(inputs)}
        del roots  # (it may hold a root gradient: _accumulate counts references)
        for edge in [e for e in table if isinstance(e, AccumulateGrad)]:
            g = table.pop(edge)
            leaf = edge.variable
            if leaf is not None and (wanted is None or id(leaf) in wanted):
                if leaf._hooks:
                    g = _run_hooks(leaf._hooks, g, create_graph)
                _accumulate(leaf, g, create_graph)
    finally:
        STATE.enabled = prev


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


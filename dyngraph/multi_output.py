"""Registry ops with several results (``Split``, ``Unpack``, ``TopKV2``) on the eager tape.

Such an op runs once and returns a tuple.  On the tape it is ONE call node
(PyTorch's ``SplitBackward0``, whose gradient needs every piece's cotangent at
once) plus, per differentiable result, a small node of the same class whose
only parent is the call node -- the mechanism custom ``autograd.Function``\\ s
use (:mod:`.autograd.function`)::

    pieces[0].grad_fn --\\
    pieces[1].grad_fn ---+--> SplitBackward0 (call) --> x's node

Backward reaches the piece nodes first (they are newer); each hands its
gradient to the call node in its own slot, and the call node runs the op's
rule once with the tuple of cotangents (zeros for pieces that got none).
The rules of its inputs share one ``F`` (:class:`_SharedResults`): where two of
them call the same several-result op on the same values -- a fused LSTM cell's
rules for its gates and for ``c`` are both ``fused_lstm_cell_grad(...)[k]`` --
it runs once, as PyTorch's fused cell computes both gradients in one kernel.
"""
from __future__ import annotations

import numpy as np

from common import REGISTRY, ShapeRef

from .autograd.function import _Slots, output_piece
from .grad_mode import STATE
from .node import next_seq, node_class
from .tensor import Tensor, make

__all__ = ["apply_multi"]


_SEVERAL = frozenset(op.fname for op in REGISTRY.values()
                     if op.outputs is not None and not op.stateful)
"""The ``F`` names of the ops with several results that :class:`_SharedResults` shares (not a
random one, such as the candidate samplers: a second call draws anew)."""


class _SharedResults:
    """``F`` for the rules of one call node's inputs, in one backward step: an op with
    several results applied again to the very same values (and attributes) returns the
    first call's results.  Rules that each take one piece of such a result then cost one
    kernel between them, and under ``create_graph`` record one node between them."""

    __slots__ = ("_F", "_done")

    def __init__(self, F):
        self._F, self._done = F, {}

    def __getattr__(self, name: str):
        fn = getattr(self._F, name)
        if name not in _SEVERAL:
            return fn

        def once(*xs, **attrs):
            try:
                key = (name, tuple(map(id, xs)), tuple(attrs.items()))
                hit = self._done.get(key)
            except TypeError:       # an unhashable attribute: no sharing
                return fn(*xs, **attrs)
            if hit is None:         # the values are kept with the results: their ids stay theirs
                hit = self._done[key] = (xs, fn(*xs, **attrs))
            return hit[1]
        return once


class _RegistryCall:
    """The call node's op: the registry rule, run once per backward with every slot."""

    __slots__ = ("op", "inputs", "outs", "pending", "last")

    def __init__(self, op, inputs: tuple, outs: tuple, last: int):
        self.op, self.inputs, self.outs, self.pending, self.last = op, inputs, outs, None, last

    def vjp(self, i, F, slots: _Slots, saved, attrs):
        recording = STATE.enabled            # the engine enables grad only for create_graph
        if self.pending is None or self.pending[0] is not slots:
            undefined = self.op.undefined_grads
            gs = tuple(None if o._data.dtype.kind not in "fc" else slots.get(k, (
                None if k in undefined else make(_zeros(o._data)) if recording
                else _zeros(o._data))) for k, o in enumerate(self.outs))
            value = (lambda x: x) if recording else (
                lambda x: x._data if isinstance(x, Tensor) else x)
            ins = [x if x is None or isinstance(x, (Tensor, ShapeRef)) or not recording
                   else make(np.asarray(x)) for x in self.inputs]
            saved = self.op.save([value(x) for x in ins], tuple(value(o) for o in self.outs),
                                 ref=lambda x: ShapeRef(np.shape(value(x)), np.asarray(value(x)).dtype))
            self.pending = (slots, saved, gs, _SharedResults(F))
        _, saved, gs, shared = self.pending
        if i == self.last:        # the walk asks inputs in order: the last one frees the step's
            self.pending = None   # cotangents (else every step's stay until the graph is dropped)
        return self.op.vjp(i, shared, gs, saved, attrs)


def _zeros(like: np.ndarray) -> np.ndarray:
    """The cotangent of a result that got none (a fused cell's workspace, at every step):
    ``np.zeros`` of its shape, 3.6 us for an LSTM step's ``(32, 640)`` where ``zeros_like``
    (which copies the memory layout, for no rule's sake) takes 8.5 us."""
    return np.zeros(like.shape, like.dtype)


def _kept(op, inputs: tuple) -> tuple:
    """The inputs the op's rules read, by value or for their shape (None for the others): as
    a one-result node, the call keeps no input its gradient does not need (a fused LSTM cell's
    gates are read through its workspace, not kept once per step)."""
    if op.variadic:
        return inputs
    saves = op.saves
    return tuple(x if name in saves or name + "_shape" in saves else None
                 for name, x in zip(op.inputs, inputs))


def apply_multi(op, inputs: tuple, attrs: dict, arrays: list, needs: bool, vc,
                cls=None) -> tuple:
    """The results of multi-output ``op`` as Tensors, recorded as one call when ``needs``
    (``cls``: the node class when PyTorch names it otherwise, e.g. ``split(x, 2)`` made with
    SplitV is ``SplitBackward0``)."""
    outs = op.impl(*arrays, **attrs)
    plain = tuple(make(np.asarray(o)) for o in outs)
    for t in plain:
        if vc is not None and np.may_share_memory(t._data, arrays[0]):
            t._vc = vc
    diff = [0 if op.variadic else i for i, x in enumerate(inputs)]
    parents = tuple((x.grad_fn or x._accum or x._accumulator())
                    if isinstance(x, Tensor) and x._rg and op.grads[d] is not None else None
                    for x, d in zip(inputs, diff))
    if not (needs and STATE.enabled) or not any(p is not None for p in parents):
        return plain
    cls = cls or node_class(op.torch_name)
    call = cls.__new__(cls)
    kept = _kept(op, inputs)
    last = max(i for i, p in enumerate(parents) if p is not None)
    call.op, call.attrs, call.parents = _RegistryCall(op, kept, plain, last), attrs, parents
    call.saved, call.frees, call.out_vc, call.hooks, call.retained = {}, False, None, None, None
    call.versions = [(x, x._vc[0]) for x in kept if isinstance(x, Tensor)]
    call.seq = next_seq()
    results = []
    for k, o in enumerate(plain):
        if o._data.dtype.kind not in "fc":
            results.append(o)
            continue
        results.append(output_piece(cls, call, k, o))
    call.op.outs = tuple(results)
    return tuple(results)

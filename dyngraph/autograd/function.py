"""Custom differentiable functions: ``torch.autograd.Function`` with ``forward``/``backward``.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    y = Exp.apply(x)

How it joins the tape: ``apply`` runs ``forward`` without recording, then
records one node for the whole call (its parents: the inputs that need a
gradient) and, per differentiable output, a small node whose only parent is
that call node.  Backward reaches the output nodes first (they are newer);
each hands its gradient to the call node in its own slot (:class:`_Slots`
add up by slot), so when the call node runs it has every output's gradient
and calls ``backward(ctx, *grads)`` once.  Under ``create_graph=True`` the
user's backward runs with recording on, so a backward written with
differentiable ops can itself be differentiated.
"""
from __future__ import annotations

import functools

import numpy as np

from ..grad_mode import STATE, enable_grad, no_grad
from ..node import next_seq, node_class
from ..tensor import Tensor, make

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """``ctx``: what ``forward`` leaves for ``backward`` (any attribute may be set on it)."""

    def __init__(self, needs_input_grad: tuple):
        self.needs_input_grad = needs_input_grad
        self.to_save: tuple = ()
        self.non_differentiable: set = set()
        self.materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        """Tensors ``backward`` will read; an in-place change to them before then is reported."""
        self.to_save = tensors

    @property
    def saved_tensors(self) -> tuple:
        return self.to_save

    def mark_non_differentiable(self, *tensors) -> None:
        self.non_differentiable.update(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool) -> None:
        """False: an output that received no gradient is passed to ``backward`` as None."""
        self.materialize_grads = value

    def mark_dirty(self, *tensors) -> None:
        raise RuntimeError("mark_dirty: in-place custom Functions are not supported by dyngraph; "
                           "return a new tensor from forward instead")


class _Slots(dict):
    """Gradients of some outputs of one call, by output position; ``+`` merges and sums."""

    def __add__(self, other: "_Slots") -> "_Slots":
        out = _Slots(self)
        for k, v in other.items():
            out[k] = v if k not in out else out[k] + v
        return out


class _OutputOp:
    """The op of output ``k``'s node: sends its gradient to the call node in slot ``k``."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k

    def vjp(self, i, F, g, saved, attrs):
        return _Slots({self.k: g})


def output_piece(cls, call, k: int, o: Tensor) -> Tensor:
    """Output ``k`` of a call that returns several results, as a Tensor whose own node (of
    class ``cls``) hands its gradient to ``call`` in slot ``k``.  The result shares ``o``'s
    data and version counter, so in-place changes are seen through both."""
    piece = cls.__new__(cls)
    piece.op, piece.attrs, piece.parents = _OutputOp(k), {}, (call,)
    piece.saved, piece.frees, piece.versions, piece.out_vc = {}, False, (), None
    piece.hooks, piece.retained, piece.seq = None, None, next_seq()
    t = make(o._data, True, piece)
    t._vc = o._vc
    return t


class _CallOp:
    """The call node's op: runs the user's ``backward`` once, hands out one gradient per input."""

    __slots__ = ("fn", "ctx", "outputs", "input_shapes", "pending")

    def __init__(self, fn, ctx, outputs, input_shapes):
        self.fn, self.ctx, self.outputs, self.pending = fn, ctx, outputs, None
        self.input_shapes = input_shapes

    def vjp(self, i, F, g, saved, attrs):
        if self.pending is None or self.pending[0] is not g:
            self.pending = (g, self._backward(g))
        grads = self.pending[1]
        gi = grads[i] if i < len(grads) else None
        if gi is None or not isinstance(gi, Tensor):
            return gi
        return gi if STATE.enabled else gi._data

    def _backward(self, slots: _Slots) -> tuple:
        recording = STATE.enabled  # the engine enables grad only for create_graph
        grads = []
        for k, (shape, dtype) in enumerate(self.outputs):
            g = slots.get(k)
            if g is None:
                grads.append(make(np.zeros(shape, dtype)) if self.ctx.materialize_grads else None)
            else:
                grads.append(g if isinstance(g, Tensor) else make(np.asarray(g)))
        with enable_grad() if recording else no_grad():
            out = self.fn.backward(self.ctx, *grads)
        out = out if isinstance(out, tuple) else (out,)
        n = len(self.ctx.needs_input_grad)
        if len(out) != n:
            raise RuntimeError(f"function {self.fn.__name__}Backward returned an incorrect number "
                               f"of gradients (expected {n}, got {len(out)})")
        for k, (g, shape) in enumerate(zip(out, self.input_shapes)):
            if isinstance(g, Tensor) and shape is not None and g._data.shape != shape:
                raise RuntimeError(f"Function {self.fn.__name__}Backward returned an invalid "
                                   f"gradient at index {k} - got {list(g._data.shape)} but "
                                   f"expected shape compatible with {list(shape)}")
        return out


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; use ``.apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args):
        needs = tuple(isinstance(a, Tensor) and a._rg for a in args)
        ctx = FunctionCtx(needs)
        separate = cls.setup_context is not Function.setup_context
        with no_grad():
            out = cls.forward(*args) if separate else cls.forward(ctx, *args)
            if separate:
                cls.setup_context(ctx, args, out)
        if not (STATE.enabled and any(needs)):
            return out
        return _record(cls, ctx, args, out)


def _record(cls, ctx: FunctionCtx, args: tuple, out):
    """Put the call and its outputs on the tape (see the module docstring)."""
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    call = node_class(cls.__name__ + "Backward")
    node = call.__new__(call)
    node.op = _CallOp(cls, ctx, [(o._data.shape, o._data.dtype) if isinstance(o, Tensor)
                                 else ((), np.float32) for o in outs],
                      [a._data.shape if isinstance(a, Tensor) else None for a in args])
    node.attrs = {}
    node.parents = tuple((a.grad_fn or a._accumulator()) if isinstance(a, Tensor) and a._rg
                         else None for a in args)
    node.saved, node.frees, node.out_vc, node.hooks, node.retained = {}, True, None, None, None
    node.versions = [(t, t._vc[0]) for t in ctx.to_save if isinstance(t, Tensor)]
    node.seq = next_seq()
    results = []
    for k, o in enumerate(outs):
        if (not isinstance(o, Tensor) or id(o) in ctx.non_differentiable
                or o._data.dtype.kind not in "fc"):
            results.append(o)
            continue
        results.append(output_piece(call, node, k, o))
    # a saved output is handed back as the recorded output (with its grad_fn), as PyTorch does,
    # so a backward written with differentiable ops can be differentiated again
    recorded = {id(o): r for o, r in zip(outs, results)}
    ctx.to_save = tuple(recorded.get(id(t), t) for t in ctx.to_save)
    return results[0] if single else tuple(results)


def once_differentiable(fn):
    """Decorator for ``backward``: run it without recording (its result is not differentiable)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper

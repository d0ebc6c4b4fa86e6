"""``torch.autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp of a Python function.

All are built on :func:`dyngraph.autograd.grad` (from :mod:`dyngraph.autograd.engine`).
Reverse mode gives a vector-Jacobian product directly; ``jvp`` uses the double-vjp trick (the vjp
is linear in its vector ``u``, so differentiating ``u -> vjp(u)`` against
``v`` gives ``J v``).  Inputs are detached copies that require grad, so the
caller's tensors are never part of the graphs built here.

>>> import dyngraph as torch
>>> jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
"""
from __future__ import annotations

import numpy as np

from ..functions import reshape, stack
from ..grad_mode import enable_grad
from ..tensor import Tensor, make
from .engine import grad

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]


def _as_tuple(x) -> tuple[bool, tuple]:
    return (True, tuple(x)) if isinstance(x, (tuple, list)) else (False, (x,))


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    out = []
    for x in inputs:
        if not isinstance(x, Tensor):
            raise TypeError(f"The inputs given to jacobian must be either a Tensor or a tuple of "
                            f"Tensors but the value at index 0 has type {type(x)}.")
        t = x if create_graph and x.requires_grad else make(x._data.copy())
        if not t.requires_grad:
            t.requires_grad_(True)
        out.append(t)
    return tuple(out)


def _grads(outputs, inputs, grad_outputs, create_graph: bool) -> tuple:
    """Like ``grad`` but zeros (not errors) for inputs the outputs do not depend on."""
    outs = [o for o in outputs if o.requires_grad]
    gos = [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not outs:
        return tuple(make(np.zeros_like(x._data)) for x in inputs)
    got = grad(outs, inputs, gos, retain_graph=True, create_graph=create_graph,
               allow_unused=True)
    return tuple(make(np.zeros_like(x._data)) if g is None else g for g, x in zip(got, inputs))


def _vector(v, like: tuple, what: str, whose: str = "") -> tuple:
    """``v`` as a tuple; omitted, ones -- allowed only when ``like`` is one single element."""
    if v is not None:
        return _as_tuple(v)[1]
    if any(t.numel() != 1 for t in like):
        raise RuntimeError(f"The vector v can only be None if {whose}the user-provided function "
                           f"{what}")
    return tuple(make(np.ones_like(t._data)) for t in like)


def _detach(t, create_graph: bool):
    return t if create_graph else t.detach()


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``; ``v`` may be omitted for a single-element output."""
    is_tuple, xs = _as_tuple(inputs)
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        out_tuple, outs = _as_tuple(out)
        vs = _vector(v, outs, "returns a single Tensor with a single element.")
        g = _grads(outs, xs, vs, create_graph)
    outs = tuple(_detach(o, create_graph) for o in outs)
    g = tuple(_detach(t, create_graph) for t in g)
    return (outs if out_tuple else outs[0]), (g if is_tuple else g[0])


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)`` by double vjp."""
    is_tuple, xs = _as_tuple(inputs)
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        out_tuple, outs = _as_tuple(out)
        vs = _vector(v, xs, "is a single Tensor with a single element.", "the input to ")
        us = tuple(make(np.zeros_like(o._data), True) for o in outs)
        g = _grads(outs, xs, us, True)
        jv = _grads(g, us, vs, create_graph)
    outs = tuple(_detach(o, create_graph) for o in outs)
    jv = tuple(_detach(t, create_graph) for t in jv)
    return (outs if out_tuple else outs[0]), (jv if out_tuple else jv[0])


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode"):
    """``J[i][j]`` has shape ``outputs[i].shape + inputs[j].shape`` (nesting as PyTorch's)."""
    is_tuple, xs = _as_tuple(inputs)
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        out_tuple, outs = _as_tuple(out)
        table = []
        for o in outs:
            rows = [[] for _ in xs]
            flat_n = o.numel()
            for k in range(flat_n):
                e = np.zeros(flat_n, o._data.dtype)
                e[k] = 1
                seed = [make(e.reshape(o._data.shape)) if oo is o else make(np.zeros_like(oo._data))
                        for oo in outs]
                for j, g in enumerate(_grads(outs, xs, seed, create_graph)):
                    rows[j].append(g)
            blocks = tuple(reshape(stack(r) if r else make(np.zeros((0,) + x._data.shape,
                                                                    x._data.dtype)),
                                   o._data.shape + x._data.shape) for r, x in zip(rows, xs))
            table.append(tuple(_detach(b, create_graph) for b in blocks))
    if out_tuple:
        return tuple(row if is_tuple else row[0] for row in table)
    return table[0] if is_tuple else table[0][0]


def hessian(func, inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode"):
    """The Jacobian of the gradient of a scalar function."""
    is_tuple, xs = _as_tuple(inputs)

    def gradient(*ys):
        out = func(*ys)
        if out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor "
                               "with a single element.")
        g = _grads((out,), ys, (make(np.ones_like(out._data)),), True)
        return g if is_tuple else g[0]
    return jacobian(gradient, inputs if is_tuple else xs[0], create_graph=create_graph)


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T H)`` of a scalar function."""
    is_tuple, xs = _as_tuple(inputs)
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        g = _grads((out,), xs, (make(np.ones_like(out._data)),), True)
        h = _grads(g, xs, _as_tuple(v)[1], create_graph)
    h = tuple(_detach(t, create_graph) for t in h)
    return _detach(out, create_graph), (h if is_tuple else h[0])


hvp = vhp  # the Hessian of a twice-differentiable scalar function is symmetric

"""``out=``: PyTorch's functions may write their result into an existing tensor.

``torch.matmul(a, b, out=c)`` computes as usual, then writes into ``c``'s
memory (resizing it when the shape differs, as PyTorch does) and returns
``c``.  Like PyTorch, it refuses when gradients would be recorded: a result
written into someone else's memory has no place in the graph.

>>> import dyngraph as torch
>>> c = torch.empty(2)
>>> torch.add(torch.ones(2), 1, out=c) is c, c
(True, tensor([2., 2.]))
"""
from __future__ import annotations

import functools

import numpy as np

from .grad_mode import STATE
from .tensor import Tensor

__all__ = ["with_out", "OUT_FUNCTIONS"]

OUT_FUNCTIONS = ("add", "sub", "mul", "div", "true_divide", "pow", "matmul", "mm", "bmm", "neg",
                 "exp", "log", "sqrt", "abs", "sign", "tanh", "sigmoid", "sin", "cos", "tan",
                 "rsqrt", "log1p", "expm1", "floor", "ceil", "round", "trunc", "square",
                 "maximum", "minimum", "clamp", "where", "sum", "mean", "prod", "cumsum", "cat",
                 "stack", "floor_divide", "remainder", "fmod", "einsum", "gather", "logsumexp",
                 "index_select", "masked_select", "outer", "mv", "dot")


def with_out(fn):
    """``fn`` accepting ``out=`` (without it, ``fn`` exactly)."""
    @functools.wraps(fn)
    def f(*args, out: Tensor | None = None, **kwargs):
        if out is None:
            return fn(*args, **kwargs) if kwargs else fn(*args)
        result = fn(*args, **kwargs)
        if STATE.enabled and result.requires_grad:
            raise RuntimeError(f"{fn.__name__}(): functions with out=... arguments don't support "
                               f"automatic differentiation, but one of the arguments requires grad.")
        data = result._data
        if out._data.shape != data.shape:
            out._data = np.empty(data.shape, out._data.dtype)
        if not np.can_cast(data.dtype, out._data.dtype, "same_kind"):
            from .errors import scalar_type_name
            raise RuntimeError(f"result type {scalar_type_name(data.dtype)} can't be cast to the "
                               f"desired output type {scalar_type_name(out._data.dtype)}")
        np.copyto(out._data, data, casting="unsafe")
        out._vc[0] += 1
        return out
    return f

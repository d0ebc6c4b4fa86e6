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
import inspect

import numpy as np

from .errors import scalar_type_name
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
    names = _plain_arguments(fn)
    if names:
        # only plain arguments (tanh(input), mm(input, mat2)): the wrapper names them too, so
        # a call passes them on without packing them into a tuple and a dict (~0.3 us)
        return functools.wraps(fn)(_wrapper_maker(names)(fn, _write))

    @functools.wraps(fn)
    def f(*args, out: Tensor | None = None, **kwargs):
        if out is None:
            return fn(*args, **kwargs) if kwargs else fn(*args)
        return _write(fn, fn(*args, **kwargs), out)
    return f


def _plain_arguments(fn) -> str:
    """``"input, mat2"`` when ``fn``'s parameters are all positional-or-keyword without
    defaults, else ``""`` (read off the code object: no ``inspect`` at import)."""
    code = getattr(fn, "__code__", None)
    if (code is None or fn.__defaults__ or code.co_kwonlyargcount or code.co_posonlyargcount
            or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)):
        return ""
    return ", ".join(code.co_varnames[:code.co_argcount])


@functools.cache
def _wrapper_maker(names: str):
    """``make(fn, write)`` -> ``def f(<names>, *, out=None)``: compiled once per parameter
    list, under this file's name (so error sites, which skip the engine's files, skip it)."""
    source = (f"def make(fn, _write):\n"
              f"    def f({names}, *, out=None):\n"
              f"        result = fn({names})\n"
              f"        return result if out is None else _write(fn, result, out)\n"
              f"    return f\n")
    scope: dict = {}
    exec(compile(source, __file__, "exec"), scope)
    return scope["make"]


def _write(fn, result: Tensor, out: Tensor) -> Tensor:
    """Write ``fn``'s ``result`` into ``out`` (resized as PyTorch does); return ``out``."""
    if STATE.enabled and result.requires_grad:
        raise RuntimeError(f"{fn.__name__}(): functions with out=... arguments don't support "
                           f"automatic differentiation, but one of the arguments requires grad.")
    data = result._data
    if out._data.shape != data.shape:
        out._data, out._sref = np.empty(data.shape, out._data.dtype), None
    if not np.can_cast(data.dtype, out._data.dtype, "same_kind"):
        raise RuntimeError(f"result type {scalar_type_name(data.dtype)} can't be cast to the "
                           f"desired output type {scalar_type_name(out._data.dtype)}")
    np.copyto(out._data, data, casting="unsafe")
    out._vc[0] += 1
    return out

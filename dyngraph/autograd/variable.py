"""``torch.autograd.Variable``: the pre-0.4 wrapper, today a function-like class returning a Tensor.

Since PyTorch 0.4 a Tensor *is* a Variable: ``Variable(t)`` gives a new tensor
sharing ``t``'s memory and version counter, outside any graph (as ``t.detach()``),
with ``requires_grad`` as asked; ``volatile`` only warns (use ``no_grad``).
``isinstance(x, Variable)`` is true for every tensor.

>>> import dyngraph as torch
>>> v = Variable(torch.ones(2), requires_grad=True)
>>> type(v).__name__, v.requires_grad, isinstance(torch.zeros(1), Variable)
('Tensor', True, True)
"""
from __future__ import annotations

import warnings

import numpy as np

from ..tensor import Tensor, make

__all__ = ["VariableMeta", "Variable"]

VOLATILE = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."


class VariableMeta(type):
    """``isinstance(x, Variable)`` holds for every tensor, as in PyTorch."""

    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(data, requires_grad=False, volatile=False)`` -> a Tensor (see the module doc)."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = False,
                volatile: bool = False, **kwargs) -> Tensor:
        for name in kwargs:
            raise TypeError(f"'{name}' is an invalid keyword argument for this function")
        if volatile:
            warnings.warn(VOLATILE, UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if data is None:
            return make(np.zeros(0, np.float32))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and data._data.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        out = data.detach()
        out._rg = bool(requires_grad)
        return out

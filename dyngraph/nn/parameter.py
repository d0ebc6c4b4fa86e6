"""``torch.nn.parameter``: Parameter, the tensor a Module registers as one of its weights.

Its own module, as in PyTorch, below both its users: :mod:`dyngraph.nn.module`
(assigning one registers it) and :mod:`dyngraph.serialization` (``load``
rebuilds the Parameters ``save`` wrote).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import get_default_dtype
from ..printing import tensor_repr
from ..tensor import Tensor, init_slots, make

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf tensor a Module registers as one of its parameters (requires grad by default)."""

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        t = object.__new__(cls)
        init_slots(t, np.zeros(0, get_default_dtype().np) if data is None else data._data, False, None)
        t.requires_grad = requires_grad
        return t

    def __init__(self, data=None, requires_grad: bool = True):
        pass

    def __deepcopy__(self, memo: dict) -> "Parameter":
        """A new Parameter over a copy of the data (its ``.grad`` is not copied, as PyTorch)."""
        new = memo[id(self)] = Parameter(make(self._data.copy()), self.requires_grad)
        return new

    def __repr__(self) -> str:
        return "Parameter containing:\n" + tensor_repr(self)

    __str__ = __repr__

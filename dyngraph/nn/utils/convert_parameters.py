"""``torch.nn.utils.parameters_to_vector`` / ``vector_to_parameters``: all parameters as one
flat vector and back (what second-order and evolutionary methods work on).

>>> import dyngraph as torch
>>> lin = torch.nn.Linear(2, 1)
>>> vector_to_parameters(torch.arange(3.), lin.parameters())
>>> parameters_to_vector(lin.parameters()).tolist()
[0.0, 1.0, 2.0]
"""
from __future__ import annotations

from typing import Iterable

from ...functions import cat
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor] | Tensor) -> Tensor:
    """The parameters flattened and concatenated, in order (recorded: ``CatBackward0``)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Each parameter's ``.data`` becomes its slice of ``vec`` (a view: they share memory)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n

"""``tf.IndexedSlices``: a sparse set of rows of a dense tensor -- ``values[i]`` is row
``indices[i]`` of a tensor of shape ``dense_shape`` (rows not listed are zero).

TF uses it for sparse updates (``Variable.scatter_add(IndexedSlices(...))``) and for the
gradients of gathers; here it is the value type for the first use.

>>> s = tf.IndexedSlices(tf.constant([[1., 1.]]), tf.constant([2]), dense_shape=[3, 2])
>>> s.values, s.indices, s.dense_shape        # two tensors, and the dense shape as given
"""
from __future__ import annotations

from typing import Any

from .build import convert_to_tensor
from .graph import Tensor
from .shape import TensorShape

__all__ = ["IndexedSlices"]


class IndexedSlices:
    """Rows ``values`` at ``indices`` of a tensor of shape ``dense_shape``."""

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None):
        self._values = values if isinstance(values, Tensor) else convert_to_tensor(values)
        self._indices = indices if isinstance(indices, Tensor) else convert_to_tensor(indices)
        self._dense_shape = dense_shape   # as given, as TF keeps it (a tuple stays a tuple)

    @property
    def values(self) -> Tensor:
        return self._values

    @property
    def indices(self) -> Tensor:
        return self._indices

    @property
    def dense_shape(self) -> Any:
        return self._dense_shape

    @property
    def shape(self):
        """The dense tensor's static shape (the values' row shape behind an unknown count)."""
        rows = self._values.shape.as_list() if self._values.shape.rank is not None else None
        return TensorShape(None if rows is None else [None] + rows[1:])

    @property
    def name(self) -> str:
        return self._values.name

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def op(self):
        return self._values.op

    @property
    def graph(self):
        return self._values.graph

    @property
    def device(self) -> str:
        return self._values.device

    def __neg__(self) -> "IndexedSlices":
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"

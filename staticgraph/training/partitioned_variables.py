"""Partitioned variables: ``get_variable(..., partitioner=p)`` as TF1 makes them.

A partitioner looks at a new variable's full shape and dtype and says how many pieces to
cut it into along one axis (``[1, 3, 1]``: three along axis 1).  The variable store then
makes one ordinary variable per piece, ``<name>/part_0``, ``<name>/part_1``, ... (the first
``size % pieces`` one row larger), and returns a :class:`PartitionedVariable` that reads as
their concatenation (``as_tensor()``, or any use as a tensor: a ``<name>`` Identity).

Each piece remembers where it sits in the whole (``Variable.SaveSliceInfo``), so a Saver writes
a partitioned variable as *one* checkpoint entry, the whole value under ``<name>``: it
restores into the same partitioning, another one, or an unpartitioned variable (TF's rule).
"""
from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from typing import Any, Callable, Iterator

from ..framework import dtypes as _dtypes
from ..framework.build import convert_to_tensor
from ..framework.graph import get_default_graph
from ..framework.shape import TensorShape
from ..ops.array_ops import slice as slice_
from ..ops.core_ops import concat, identity

__all__ = ["PartitionedVariable", "fixed_size_partitioner",
           "min_max_variable_partitioner", "variable_axis_size_partitioner",
           "call_partitioner", "iter_slices", "piece_initializer"]


class PartitionedVariable:
    """The pieces of one variable cut along one axis; reads as their concatenation."""

    def __init__(self, name: str, shape: TensorShape, dtype, variable_list: list,
                 partitions: list[int]):
        self._name, self._shape, self._dtype = name, shape, dtype
        self._variable_list, self._partitions = list(variable_list), list(partitions)
        self._concatenated = None

    def __iter__(self) -> Iterator:
        return iter(self._variable_list)

    def __len__(self) -> int:
        return len(self._variable_list)

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)

    def get_shape(self) -> TensorShape:
        return self._shape

    def _get_variable_list(self) -> list:
        return self._variable_list

    def _get_partitions(self) -> list[int]:
        return self._partitions

    def as_tensor(self):
        """The whole value: the pieces concatenated along the cut axis (``<name>/ConcatPartitions``),
        as an Identity named ``<name>`` (TF's names); one node however often it is used."""
        if self._concatenated is None:
            graph = get_default_graph()
            with graph.control_dependencies(None), graph.name_scope(None):
                if len(self._variable_list) == 1:
                    whole = self._variable_list[0]
                else:
                    axis = next((i for i, p in enumerate(self._partitions) if p > 1), 0)
                    with graph.name_scope(self._name + "/ConcatPartitions/"):
                        whole = concat(self._variable_list, axis)
                self._concatenated = identity(whole, name=self._name)
        return self._concatenated

    _to_tensor = as_tensor

    def __repr__(self) -> str:
        return (f"<tf.PartitionedVariable '{self._name}' shape={self._shape} "
                f"dtype={self._dtype.name} parts={len(self._variable_list)}>")


# --- the partitioners -----------------------------------------------------------------------

def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Callable:
    """``num_shards`` pieces along ``axis`` (fewer if the axis is shorter)."""
    def partitioner(shape: TensorShape, **_) -> list[int]:
        partitions = [1] * len(shape)
        partitions[axis] = min(num_shards, shape.as_list()[axis])
        return partitions
    return partitioner


def _element_size(dtype, bytes_per_string_element: int) -> int:
    dtype = _dtypes.as_dtype(dtype)
    return bytes_per_string_element if dtype.base_dtype == _dtypes.string else dtype.size


def variable_axis_size_partitioner(max_shard_bytes: int, axis: int = 0,
                                   bytes_per_string_element: int = 16,
                                   max_shards: int | None = None) -> Callable:
    """As few pieces along ``axis`` as keep each under ``max_shard_bytes`` (whole slices of
    the axis per piece, at least one), at most ``max_shards``."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(f"Both max_shard_bytes and bytes_per_string_element must be positive. "
                         f"Currently, max_shard_bytes is {max_shard_bytes} and"
                         f"bytes_per_string_element is {bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def partitioner(shape: TensorShape, dtype) -> list[int]:
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        length = shape.as_list()[axis]
        slice_bytes = shape.num_elements() / length * _element_size(dtype, bytes_per_string_element)
        slices_per_shard = max(1, math.floor(max_shard_bytes / slice_bytes))
        shards = int(math.ceil(length / slices_per_shard))
        partitions = [1] * shape.ndims
        partitions[axis] = min(max_shards, shards) if max_shards else shards
        return partitions
    return partitioner


def min_max_variable_partitioner(max_partitions: int = 1, axis: int = 0,
                                 min_slice_size: int = 256 << 10,
                                 bytes_per_string_element: int = 16) -> Callable:
    """Pieces of at least ``min_slice_size`` bytes along ``axis``, at most ``max_partitions``
    (and at most the axis' length), at least one."""
    def partitioner(shape: TensorShape, dtype) -> list[int]:
        if axis >= len(shape):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is "
                             f"only {shape}")
        total = shape.num_elements() * _element_size(dtype, bytes_per_string_element)
        partitions = [1] * len(shape)
        partitions[axis] = max(1, min(shape.as_list()[axis], max_partitions,
                                      int(math.ceil(total / min_slice_size))))
        return partitions
    return partitioner


# --- what the variable store does with a partitioner ------------------------------------------

def call_partitioner(partitioner: Callable, shape: TensorShape, dtype) -> list[int]:
    """The partitioner's answer for a new variable, checked as TF checks it."""
    if not shape.is_fully_defined():
        raise ValueError(f"Shape of a new partitioned variable must be fully defined, but "
                         f"instead was {shape}.")
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, Sequence):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError(f"Partitioner returned a partition list that does not match the "
                         f"Variable's rank: {slicing} vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: {shape}, "
                         f"partitioning: {slicing}")
    return list(slicing)


def iter_slices(full_shape: list[int], partitions: list[int]) -> Iterator[tuple[list, list]]:
    """(offset, shape) of each piece: along the cut axis, the first ``size % pieces`` pieces
    one longer than the rest."""
    axis = next((i for i, p in enumerate(partitions) if p > 1), 0)
    pieces = partitions[axis] if partitions else 1
    longer, base = full_shape[axis] % pieces, full_shape[axis] // pieces
    offset = [0] * len(full_shape)
    for i in range(pieces):
        shape = list(full_shape)
        shape[axis] = base + (i < longer)
        yield list(offset), shape
        offset[axis] += shape[axis]


def piece_initializer(initializer: Any, offset: list[int], shape: list[int], full_shape: list[int]):
    """What a piece is initialized from: a callable initializer called for the piece's shape
    (with TF's ``partition_info`` when it takes one), or the piece's slice of a whole value."""
    if callable(initializer):
        if "partition_info" not in _parameters(initializer):
            return initializer
        info = _PartitionInfo(full_shape, offset)
        return lambda dims, dtype=None: initializer(dims, dtype=dtype, partition_info=info)
    return slice_(convert_to_tensor(initializer), offset, shape)


def _parameters(fn: Callable) -> set[str]:
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return set()


class _PartitionInfo:
    """TF's ``partition_info`` argument of an initializer: the whole shape, the piece's offset."""

    def __init__(self, full_shape: list[int], var_offset: list[int]):
        self.full_shape, self.var_offset = list(full_shape), list(var_offset)

    def single_offset(self, shape: list[int]) -> int:
        return next((o for o, n, f in zip(self.var_offset, shape, self.full_shape) if n != f), 0)

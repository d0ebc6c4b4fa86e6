"""``TensorShape``: a static shape that may hold ``None`` dims, printed the way TF prints it.

``print(t.shape)`` gives ``(None, 3)`` and ``repr`` gives ``TensorShape([None, 3])``
(what ``tf.compat.v1`` prints today); unknown rank prints ``<unknown>``.
Iterating yields ints and ``None`` so the registry's rules can call ``tuple(t.shape)``.
"""
from __future__ import annotations

from typing import Any, Iterator

from common import shapes

__all__ = ["TensorShape", "as_shape_tuple", "Dimension"]


def as_shape_tuple(shape: Any) -> tuple | None:
    """A user shape (None, int, list, tuple, TensorShape) as a tuple of int/None, or None."""
    if shape is None:
        return None
    if isinstance(shape, TensorShape):
        return shape.dims_tuple
    if isinstance(shape, int):
        return (shape,)
    return tuple(None if d is None or (isinstance(d, int) and d < 0) else int(d) for d in shape)


class TensorShape:
    """Immutable static shape; ``dims_tuple`` is None for unknown rank."""

    __slots__ = ("dims_tuple",)

    def __init__(self, dims: Any):
        self.dims_tuple = as_shape_tuple(dims)

    @property
    def ndims(self) -> int | None:
        return None if self.dims_tuple is None else len(self.dims_tuple)

    rank = ndims

    @property
    def dims(self) -> list | None:
        return None if self.dims_tuple is None else list(self.dims_tuple)

    def as_list(self) -> list:
        if self.dims_tuple is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self.dims_tuple)

    def is_fully_defined(self) -> bool:
        return self.dims_tuple is not None and None not in self.dims_tuple

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self.dims_tuple:
            n *= d
        return n

    def is_compatible_with(self, other: Any) -> bool:
        return shapes.is_compatible(self.dims_tuple, as_shape_tuple(other))

    def merge_with(self, other: Any) -> "TensorShape":
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {TensorShape(other)} are not compatible")
        return TensorShape(shapes.merge(self.dims_tuple, as_shape_tuple(other)))

    def __iter__(self) -> Iterator:
        if self.dims_tuple is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self.dims_tuple)

    def __len__(self) -> int:
        if self.dims_tuple is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self.dims_tuple)

    def __getitem__(self, key):
        if self.dims_tuple is None:
            return None if isinstance(key, int) else TensorShape(None)
        item = self.dims_tuple[key]
        return TensorShape(item) if isinstance(key, slice) else item

    def __eq__(self, other: Any) -> bool:
        try:
            return self.dims_tuple == as_shape_tuple(other)
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self.dims_tuple)

    def __str__(self) -> str:
        if self.dims_tuple is None:
            return "<unknown>"
        if len(self.dims_tuple) == 1:
            return f"({self.dims_tuple[0]},)"
        return "(" + ", ".join(str(d) for d in self.dims_tuple) + ")"

    def __repr__(self) -> str:
        return "TensorShape(None)" if self.dims_tuple is None else f"TensorShape({list(self.dims_tuple)})"


class Dimension:
    """TF1's ``tf.compat.v1.Dimension``: one dimension of a shape, its size or None (unknown).

    TF 2 shapes hold plain ints (as ``TensorShape`` here does); TF1 code still builds shapes
    from ``Dimension(100)`` objects, which convert wherever an int is taken (``__index__``)."""

    __slots__ = ("_value",)

    def __init__(self, value: Any):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            try:
                value = value.__index__()
            except AttributeError:
                raise TypeError(f"Dimension value must be integer or None or have an __index__ "
                                f"method, got value '{value!r}' with type '{type(value)}'") from None
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
        self._value = value

    @property
    def value(self) -> int | None:
        return self._value

    def __index__(self) -> int:
        if self._value is None:
            raise TypeError("an unknown Dimension has no integer value")
        return self._value

    __int__ = __index__

    def __eq__(self, other: Any):
        """True/False between known sizes; None (not known) when either is unknown, as TF."""
        other = other.value if isinstance(other, Dimension) else other
        if self._value is None or other is None:
            return None
        return self._value == other

    __hash__ = None   # unhashable, as TF's (its == may be None)

    def __add__(self, other: Any) -> "Dimension":
        other = other.value if isinstance(other, Dimension) else other
        return Dimension(None if self._value is None or other is None else self._value + other)

    def __repr__(self) -> str:
        return f"Dimension({self._value})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

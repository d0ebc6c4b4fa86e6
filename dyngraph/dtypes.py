"""PyTorch-style dtype objects over numpy dtypes.

``dyngraph.float32`` prints as ``torch.float32`` (the tutorials print dtypes and
compare the output with PyTorch's).  Each object carries its numpy dtype; the
engine computes with numpy and looks the object up again from the result.

>>> float32, float32.is_floating_point
(torch.float32, True)
"""
from __future__ import annotations

import numpy as np

__all__ = ["dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "bool_", "complex64", "complex128", "cfloat", "cdouble", "uint16", "uint32", "uint64", "to_dtype", "np_dtype_of", "DEFAULT_FLOAT", "half", "float", "double",
           "short", "int", "long", "from_legacy_name", "get_default_dtype", "set_default_dtype",
           "lookup"]


class dtype:
    """A tensor element type, e.g. ``torch.float32`` (``dyngraph.float32``)."""

    __slots__ = ("name", "np", "is_floating_point", "itemsize", "legacy")

    def __init__(self, name: str, np_type, legacy: str):
        self.name = name
        self.np = np.dtype(np_type)
        self.is_floating_point = bool(np.issubdtype(self.np, np.floating))
        self.itemsize = self.np.itemsize
        self.legacy = legacy  # the legacy tensor type name, e.g. FloatTensor (error messages)

    @property
    def is_complex(self) -> bool:
        return self.np.kind == "c"

    @property
    def is_signed(self) -> bool:
        return self.np.kind in "fic"

    def to_real(self) -> "dtype":
        """The dtype of a value's real part (``complex64`` -> ``float32``); a real floating
        dtype is its own."""
        if self.np.kind == "c":
            return to_dtype(np.empty((), self.np).real.dtype)
        if self.np.kind == "f":
            return self
        raise RuntimeError(f"to_real is only supported for floating point or complex dtypes, "
                           f"but got {self!r}")

    def to_complex(self) -> "dtype":
        """The complex dtype over this floating one (``float32`` -> ``complex64``)."""
        if self.np.kind == "c":
            return self
        if self.np.kind == "f" and self.np.itemsize >= 4:
            return to_dtype(np.result_type(self.np, np.complex64))
        raise RuntimeError(f"to_complex is only supported for floating point dtypes, "
                           f"but got {self!r}")

    @property
    def scalar_name(self) -> str:
        """PyTorch's scalar type name (``Float``), as in "result type Float can't be cast..."."""
        return self.legacy.removesuffix("Tensor")

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name


float16 = half = dtype("float16", np.float16, "HalfTensor")
float32 = float = dtype("float32", np.float32, "FloatTensor")
float64 = double = dtype("float64", np.float64, "DoubleTensor")
int8 = dtype("int8", np.int8, "CharTensor")
int16 = short = dtype("int16", np.int16, "ShortTensor")
int32 = int = dtype("int32", np.int32, "IntTensor")
int64 = long = dtype("int64", np.int64, "LongTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
bool_ = dtype("bool", np.bool_, "BoolTensor")
complex64 = cfloat = dtype("complex64", np.complex64, "ComplexFloatTensor")
complex128 = cdouble = dtype("complex128", np.complex128, "ComplexDoubleTensor")
uint16 = dtype("uint16", np.uint16, "UInt16Tensor")
uint32 = dtype("uint32", np.uint32, "UInt32Tensor")
uint64 = dtype("uint64", np.uint64, "UInt64Tensor")

DEFAULT_FLOAT = float32
"""PyTorch's default dtype at start-up; :func:`set_default_dtype` changes the current one."""
_default = [DEFAULT_FLOAT]
_BY_NP = {d.np: d for d in (float16, float32, float64, int8, int16, int32, int64, uint8, bool_,
                             complex64, complex128, uint16, uint32, uint64)}


def lookup(np_dtype) -> dtype | None:
    """The dtype object for a numpy dtype, or None when dyngraph has none."""
    return _BY_NP.get(np.dtype(np_dtype))


def to_dtype(np_dtype) -> dtype:
    """The dtype object for a numpy dtype."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"numpy dtype {np.dtype(np_dtype)} has no dyngraph equivalent (supported: "
                        f"{', '.join(d.name for d in _BY_NP.values())})") from None


def from_legacy_name(name: str) -> dtype:
    """``"torch.DoubleTensor"`` -> ``torch.float64``."""
    for d in _BY_NP.values():
        if name in (f"torch.{d.legacy}", d.legacy):
            return d
    raise ValueError(f"invalid type: '{name}'")


def get_default_dtype() -> dtype:
    """The dtype of Python floats in new tensors, of factory functions' results (``zeros``,
    ``rand``, layers' parameters) and of integer tensors promoted to float."""
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Make ``d`` (a floating dtype) the default dtype, for every thread, as PyTorch does."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def np_dtype_of(d) -> np.dtype | None:
    """numpy dtype of a user's ``dtype=`` argument (a dyngraph dtype, numpy dtype or None)."""
    if d is None:
        return None
    if isinstance(d, dtype):
        return d.np
    return np.dtype(d)

"""Turning numpy's complaints into PyTorch's wording, plus the op and the user's line.

Only the error path runs this code: the forward hot path wraps ``impl`` in a
``try`` (free in CPython 3.11 when nothing is raised) and calls :func:`explain`
when numpy raises.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from common import ShapeError
from common.errors import LinAlgError

from .dtypes import lookup

__all__ = ["SizeMismatchError", "_LinAlgError", "explain", "internal", "user_site", "torch_type_name", "c_type_name",
           "scalar_type_name"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_COMMON = os.path.join(os.path.dirname(_HERE), "common")


class SizeMismatchError(RuntimeError, ShapeError):
    """Shapes that do not fit an op.  A ``RuntimeError`` as in PyTorch, and a ``ShapeError``."""


class _LinAlgError(LinAlgError):
    """``torch.linalg.LinAlgError``, a ``RuntimeError``; PyTorch's class is named
    ``torch._C._LinAlgError``, and so is this one, for handlers that match on the name."""


def internal(filename: str) -> bool:
    """Whether code in ``filename`` is the engine's own (dyngraph/ or common/), not the user's."""
    path = os.path.abspath(filename)
    return path.startswith(_HERE) or path.startswith(_COMMON)


def user_site() -> str:
    """``file:line`` of the innermost frame outside dyngraph/ and common/ (the user's line)."""
    frame = sys._getframe(1)
    while frame is not None:
        if not internal(frame.f_code.co_filename):
            return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


def _shapes(inputs) -> list[list[int]]:
    return [list(np.shape(getattr(x, "_data", x))) for x in inputs if not isinstance(x, (int, float))]


def broadcast_message(shapes) -> str | None:
    """PyTorch's wording for the right-most pair of sizes that do not broadcast."""
    rank = max(len(s) for s in shapes)
    for d in range(rank - 1, -1, -1):
        k = d - rank
        sizes = [(i, s[k]) for i, s in enumerate(shapes) if len(s) >= -k and s[k] != 1]
        for (_, a), (_, b) in zip(sizes, sizes[1:]):
            if a != b:
                return (f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                        f"non-singleton dimension {d}")
    return None


def explain(op, inputs, error: Exception) -> Exception:
    """A clear exception for ``error`` raised by ``op``'s numpy forward on ``inputs``."""
    shapes = _shapes(inputs)
    where = f"(in {op.fname} on shapes {', '.join(map(str, shapes))}, at {user_site()})"
    text = str(error)
    if isinstance(error, LinAlgError):   # a singular matrix: the kernel spoke PyTorch's words
        return _LinAlgError(f"{text} {where}")
    if isinstance(error, np.exceptions.AxisError) and error.ndim is not None:
        n = max(error.ndim, 1)
        return IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                          f"but got {error.axis})")
    for numpy_says, torch_says in _BOOL_MESSAGES:
        if numpy_says in text:
            return RuntimeError(torch_says)
    if isinstance(error, IndexError):
        return IndexError(text.replace("axis", "dimension"))
    if "could not be broadcast" in text or "broadcast shape" in text:
        message = broadcast_message(shapes) or text
        return SizeMismatchError(f"{message} {where}")
    if op.name == "MatMul" and len(shapes) == 2 and "mismatch" in text:
        a, b = shapes
        return SizeMismatchError(f"mat1 and mat2 shapes cannot be multiplied "
                                 f"({'x'.join(map(str, a))} and {'x'.join(map(str, b))}) {where}")
    if isinstance(error, (ShapeError, ValueError)) and ("shape" in text or "axis" in text):
        return SizeMismatchError(f"{text} {where}")
    return RuntimeError(f"{op.fname}: {text} {where}")


_BOOL_MESSAGES = [
    ("boolean subtract", "Subtraction, the `-` operator, with two bool tensors is not supported. "
                         "Use the `^` or `logical_xor()` operator instead."),
    ("boolean negative", "Negation, the `-` operator, on a bool tensor is not supported. If you "
                         "are trying to invert a mask, use the `~` or `logical_not()` operator "
                         "instead."),
]

_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


def c_type_name(np_dtype) -> str:
    """PyTorch's C++ name of a dtype, as in 'float != long int'."""
    return _C_NAMES.get(np.dtype(np_dtype).name, np.dtype(np_dtype).name)


def torch_type_name(array) -> str:
    """``[torch.FloatTensor [3]]``, as PyTorch names a saved tensor in version errors."""
    found = lookup(array.dtype)
    name = found.legacy if found else array.dtype.name
    return f"[torch.{name} [{', '.join(map(str, array.shape))}]]"


def scalar_type_name(np_dtype) -> str:
    """PyTorch's scalar type name, as in "result type Float can't be cast to ... Long"."""
    found = lookup(np_dtype)
    return found.scalar_name if found else np.dtype(np_dtype).name

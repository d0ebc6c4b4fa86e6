"""Shape and dtype rules shared by the ops' ``infer`` functions.

Shapes here may be partially known: a dim is an int or ``None`` (unknown until
run time), and a whole shape may be ``None`` (unknown rank).  The static engine
calls these at graph-build time, so a mismatch is reported before anything
runs; the eager engine never calls them (numpy checks as it computes).

Broadcasting's gradient lives here too, in exactly one place:
:func:`unbroadcast` (symbolic, any engine) over :func:`sum_to_shape` (numpy).
"""
from __future__ import annotations

from typing import Sequence

import ml_dtypes
import numpy as np

from .errors import ShapeError, DTypeError

__all__ = ["broadcast_shapes", "normalize_axes", "reduced_shape", "result_dtype",
           "sum_to_shape", "unbroadcast", "is_float", "dtype_kind", "EXTENDED_FLOATS", "EXTENDED_INTS", "require_kind", "is_known", "is_compatible", "refines",
           "merge", "most_specific_compatible", "fmt_shape", "conjugate", "real_dtype"]

def is_known(shape) -> bool:
    """True when the rank and every dim are known."""
    return shape is not None and None not in shape


def broadcast_shapes(*shapes) -> tuple | None:
    """numpy broadcasting on partially known shapes.

    >>> broadcast_shapes((None, 3), (3,))
    (None, 3)
    >>> broadcast_shapes((2, 1), (1, 4))
    (2, 4)
    """
    if len(shapes) == 2:               # the common case first: two operands, often alike
        a, b = shapes
        if a is None or b is None:
            return None
        if a == b:
            return tuple(a)
        if not a or not b:             # a scalar takes the other's shape
            return tuple(b if not a else a)
    elif any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-rank, 0):
        dims = [s[i] for s in shapes if len(s) >= -i]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            a, b = [d for d in dims if d is not None and d != 1][:2]
            raise ShapeError(f"shapes {_fmt_all(shapes)} cannot be broadcast together "
                             f"(dims {sorted(known)} at axis {i})",
                             tf=f"Dimensions must be equal, but are {a} and {b}")
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


# --- comparing partial shapes (None: an unknown dim; a shape None: unknown rank) ------------
# The one home of these rules: TensorShape, while_loop's shape invariants, cond's result
# shapes and constant folding all ask here.

def is_compatible(a, b) -> bool:
    """Could one tensor have both shapes?  (TF's ``TensorShape.is_compatible_with``.)"""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def refines(shape, general) -> bool:
    """Is ``shape`` at least as specific as ``general`` (every dim ``general`` knows, it has)?

    >>> refines((2, 3), (None, 3)), refines((None, 3), (2, 3))
    (True, False)
    """
    if general is None:
        return True
    if shape is None or len(shape) != len(general):
        return False
    return all(g is None or s == g for s, g in zip(shape, general))


def merge(a, b):
    """The shape both describe (TF's ``merge_with``); the caller checks :func:`is_compatible`."""
    if a is None or b is None:
        return b if a is None else a
    return tuple(x if x is not None else y for x, y in zip(a, b))


def most_specific_compatible(a, b):
    """The most specific shape both are compatible with: dims they agree on, else unknown."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def normalize_axes(axis, rank: int | None) -> tuple[int, ...] | None:
    """``axis`` (None, int or sequence) as sorted non-negative ints; None means all.

    >>> normalize_axes(-1, 3)
    (2,)
    """
    if axis is None:
        return None if rank is None else tuple(range(rank))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if rank is None:
        if any(a < 0 for a in axes):
            raise ShapeError(f"negative axis {axis} needs a known rank")
        return tuple(sorted(int(a) for a in axes))
    out = []
    for a in axes:
        if not -rank <= a < max(rank, 1):
            raise ShapeError(f"axis {a} is out of range for a tensor of rank {rank}")
        out.append(int(a) % max(rank, 1))
    if len(set(out)) != len(out):
        raise ShapeError(f"axis {axis} repeats a dimension")
    return tuple(sorted(out))


def reduced_shape(shape, axis, keepdims: bool) -> tuple | None:
    """Shape after reducing ``axis`` (None = all axes: a scalar, even when the rank is unknown)."""
    if shape is None:
        return () if axis is None and not keepdims else None
    rank = len(shape)
    for a in () if axis is None else (axis,) if isinstance(axis, (int, np.integer)) else axis:
        if not -rank <= a < max(rank, 1):   # TF's reduction words, besides ours
            raise ShapeError(f"axis {a} is out of range for a tensor of rank {rank}",
                             tf=f"Invalid reduction dimension {a} for input with {rank} "
                                f"dimensions.")
    axes = normalize_axes(axis, rank)
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


# The reduced-precision floats of ``ml_dtypes`` (what TF's ``tf.bfloat16`` and
# ``tf.dtypes.experimental.float8_*`` hold): numpy reports them with kind "V" (bfloat16,
# float8_e4m3fn) or "f" (float8_e5m2) and ``np.issubdtype(.., np.floating)`` says False,
# so every "is this a float?" check goes through :func:`dtype_kind` / :func:`is_float`.
EXTENDED_FLOATS = frozenset(np.dtype(t) for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                                                  ml_dtypes.float8_e5m2))
# ``ml_dtypes``' narrow integers (TF's ``tf.int4``/``uint4``/``int2``/``uint2``), also kind "V"
# to numpy: their kind letter ("i" signed, "u" unsigned) as :func:`dtype_kind` reports it.
EXTENDED_INTS = {np.dtype(ml_dtypes.int4): "i", np.dtype(ml_dtypes.uint4): "u",
                 np.dtype(ml_dtypes.int2): "i", np.dtype(ml_dtypes.uint2): "u"}


def dtype_kind(dtype) -> str:
    """numpy's kind letter ("f", "i", "u", "c", "b"...), with the ``ml_dtypes`` floats as "f"
    and its narrow integers as "i"/"u"."""
    dtype = np.dtype(dtype)
    if dtype.kind != "V":
        return "f" if dtype in EXTENDED_FLOATS else dtype.kind
    return "f" if dtype in EXTENDED_FLOATS else EXTENDED_INTS.get(dtype, "V")


def is_float(dtype) -> bool:
    """A real floating dtype: numpy's float16/32/64 or an ``ml_dtypes`` float (bfloat16...)."""
    return dtype_kind(dtype) == "f"


_KINDS = {"f": "floats only", "fiu": "numbers only, not bool", "fiuc": "numbers only, not bool"}


def real_dtype(dtype) -> np.dtype:
    """The dtype of a value's real part: ``complex64`` -> ``float32``; a real dtype is its own."""
    dtype = np.dtype(dtype)
    return np.dtype(f"f{dtype.itemsize // 2}") if dtype.kind == "c" else dtype


def require_kind(what: str, kinds: str, *tensors) -> None:
    """Refuse a tensor whose dtype kind is not in ``kinds`` (``"f"``: floats; ``"fiu"``: any
    number but bool) with :class:`DTypeError`: "pooling is not implemented for int32 tensors
    (floats only)".

    The one home of an op's dtype refusal: its ``infer`` calls it, so the static engine
    refuses at build time, and so does its ``impl`` where numpy would otherwise compute
    something or fail in its own words; ``tensors`` may be arrays or Specs (both have
    ``.dtype``).  The registry tests check that infer and impl refuse the same dtypes.
    """
    for t in tensors:
        dtype = np.dtype(t.dtype)
        if dtype_kind(dtype) not in kinds:
            raise DTypeError(f"{what} is not implemented for {dtype} tensors ({_KINDS[kinds]})")


def result_dtype(*dtypes) -> np.dtype:
    """numpy's type promotion (the engines' front ends pick their own defaults)."""
    if len(dtypes) == 2 and dtypes[0] is dtypes[1] and isinstance(dtypes[0], np.dtype) \
            and dtypes[0].isnative:
        return dtypes[0]              # one native dtype promotes to itself (the common case)
    try:
        return np.result_type(*dtypes)
    except TypeError as e:
        raise DTypeError(f"dtypes {[str(np.dtype(d)) for d in dtypes]} do not combine: {e}") from None


def sum_to_shape(g: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """Sum a broadcast result back down to ``shape`` (numpy; the one broadcast-gradient kernel).

    >>> sum_to_shape(np.ones((2, 3)), (3,)).tolist()
    [2.0, 2.0, 2.0]
    """
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead > 0 and shape and g.shape[lead:] == shape:   # leading axes only (a bias): same sums
        return np.add.reduce(g, axis=0 if lead == 1 else tuple(range(lead)), dtype=g.dtype)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape)
                                      if d == 1 and g.shape[i + lead] != 1)
    out = g.sum(axis=axes, keepdims=True, dtype=g.dtype) if axes else g
    return out.reshape(shape)


def unbroadcast(F, g, like):
    """Gradient ``g`` of a broadcasting op, brought back to the shape of input ``like``.

    Statically equal shapes need nothing; otherwise one ``SumLike`` op does it
    (at run time in the static engine, where dims may be unknown at build time).
    """
    if g.dtype is not like.dtype:
        if _is_complex(F, g) and not _is_complex(F, like):
            g = F.real(g)     # a real input promoted into a complex op: its gradient is real
    elif type(g) is np.ndarray and g.shape == like.shape:   # the eager backward's usual
        return g                                            # case: nothing to do (~0.1 us less)
    gs, ls = F.shape(g), F.shape(like)
    if gs == ls and gs is not None and None not in gs:   # (is_known, inline: every product's
        return g                                         # and sum's rule ends here)
    return F.sum_like(g, like)


def conjugate(F, x):
    """``conj(x)`` for a complex ``x``, ``x`` itself otherwise.

    Complex gradients follow TF's and PyTorch's convention: for a real loss L of z = x + iy
    the gradient is dL/dx + i dL/dy, so a holomorphic op's rule multiplies the incoming
    gradient by the *conjugate* of its derivative (``Mul``: ``g * conj(b)``).  Rules call
    this where they multiply by an input or output; for real tensors it adds nothing.
    """
    d = getattr(x, "dtype", _NO_DTYPE)
    if d is _FLOAT32 or d is _FLOAT64:  # the usual real dtypes first: an ``is`` (~0.02 us)
        return x                        # where ``isinstance(d, np.dtype)`` costs ~0.07 us
    if d is _NO_DTYPE:                # a Python number saved by ``x * 2.0``
        return x.conjugate() if type(x) is complex else x
    return F.conj(x) if _is_complex(F, x) else x


_NO_DTYPE = object()
_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)


def _is_complex(F, x) -> bool:
    """Is ``x`` (an array, a ShapeRef, an engine's tensor) complex?  An array's numpy dtype is
    read directly: the eager backward asks for every product's operands."""
    d = x.dtype
    return (d.kind if isinstance(d, np.dtype) else F.dtype(x).kind) == "c"


def _fmt_all(shapes) -> str:
    return " and ".join(fmt_shape(s) for s in shapes)


def fmt_shape(shape) -> str:
    """``[2, ?, 3]`` style, as the error messages print shapes."""
    if shape is None:
        return "<unknown>"
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def tf_shape(shape) -> str:
    """A shape as TF's kernels and shape functions print it in errors: ``[2,3]``, ``[?,3]``,
    ``?`` (unknown rank) -- no spaces, unlike ``fmt_shape``."""
    if shape is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"

"""Ops whose result shape is an *input* tensor, known only when the graph runs.

TF programs build shapes from other tensors' run-time sizes::

    tf.reshape(x, [tf.shape(x)[0] * 2, -1])      Reshape(x, Pack(Mul(...), -1))
    tf.ones([n, 2])                              Fill(Pack(n, 2), 1.0)
    tf.tile(x, [tf.shape(y)[0], 1])              Tile(x, Pack(...))
    tf.range(n)                                  Range(0, n, 1)

Here the shape (or multiples, or range bounds) is an ordinary int tensor input, as in TF.
An op's ``infer`` knows only that input's *length* (the result's rank), so every result dim
is None (``sized_by_values``); the static engine's front ends then refine the static shape
from whatever the graph fixes at build time (TF's ``constant_value_as_shape``), as TF's
shape functions read constant inputs.  Shapes, multiples and bounds have no gradient.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..examples import Example as E
from ..registry import Spec, defop
from ..shapes import fmt_shape
from .shape import _tile_sum, reshape_size_words, tf_missing_dim_of_empty

__all__: list[str] = []


def _dims(shape) -> tuple:
    """A run-time shape vector as a tuple of ints."""
    return tuple(int(d) for d in np.reshape(shape, -1))


def _rank_of_vector(v: Spec, what: str) -> int | None:
    """The length of a shape-like vector input (None when unknown); it must be 1-D."""
    if v.shape is None:
        return None
    if len(v.shape) != 1:
        raise ShapeError(f"{what} must be a vector, got shape {fmt_shape(v.shape)}")
    if not np.issubdtype(v.dtype, np.integer):
        raise ShapeError(f"{what} must be int32 or int64, got {v.dtype}")
    return v.shape[0]


def _unknown_dims(n: int | None) -> tuple | None:
    return None if n is None else (None,) * n


# --- reshape to a run-time shape (one -1 allowed) ---------------------------------------------


def _reshape_dynamic(x, shape):
    """``x`` reshaped to the run-time ``shape`` (TF's error when the sizes disagree)."""
    dims = _dims(shape)
    dims = tf_missing_dim_of_empty(x.shape, dims) or dims
    known = int(np.prod([d for d in dims if d != -1]))
    if dims.count(-1) > 1:
        raise ValueError(f"Only one input size may be -1, not both {dims.index(-1)} and "
                         f"{len(dims) - 1 - dims[::-1].index(-1)}")
    if -1 in dims and (known == 0 or x.size % known) or -1 not in dims and known != x.size:
        raise ValueError(reshape_size_words(x.size, known, -1 in dims))
    return np.reshape(x, dims)


def _reshape_dynamic_infer(x: Spec, shape: Spec) -> Spec:
    return Spec(_unknown_dims(_rank_of_vector(shape, "shape")), x.dtype)


defop("ReshapeDynamic", _reshape_dynamic, _reshape_dynamic_infer, inputs=("x", "shape"),
      fname="reshape_dynamic", aliases=(0,), sized_by_values=True, torch_name="ViewBackward0",
      examples=(E(((2, 3), np.array([3, 2]))), E(((2, 3), np.array([-1, 1, 2], np.int32)))),
      grads=(lambda F, g, x_shape: F.reshape_like(g, x_shape), None), tf_type="Reshape")

# --- fill a run-time shape with a scalar ------------------------------------------------------


def _fill_dynamic(dims, value):
    """A ``dims``-shaped array of ``value`` (TF's ``Fill``: dims must be non-negative)."""
    d = _dims(dims)
    for v in d:
        if v < 0:
            raise ValueError(f"Dimension {v} must be >= 0")
    return np.full(d, value, dtype=np.asarray(value).dtype)


def _fill_dynamic_infer(dims: Spec, value: Spec) -> Spec:
    if value.shape is not None and len(value.shape) != 0:
        raise ShapeError(f"value must be a scalar, got shape {fmt_shape(value.shape)}")
    return Spec(_unknown_dims(_rank_of_vector(dims, "dims")), value.dtype)


defop("FillDynamic", _fill_dynamic, _fill_dynamic_infer, inputs=("dims", "value"),
      fname="fill_dynamic", sized_by_values=True, torch_name="FillBackward0",
      examples=(E((np.array([2, 3]), ())), E((np.array([4], np.int32), ()))),
      grads=(None, lambda F, g: F.sum(g, axis=None)), tf_type="Fill")

# --- broadcast to a run-time shape ------------------------------------------------------------


def _broadcast_to_dynamic(x, shape):
    return np.broadcast_to(x, _dims(shape))


defop("BroadcastToDynamic", _broadcast_to_dynamic,
      lambda x, shape: Spec(_unknown_dims(_rank_of_vector(shape, "shape")), x.dtype),
      inputs=("x", "shape"), fname="broadcast_to_dynamic", aliases=(0,), sized_by_values=True,
      torch_name="ExpandBackward0",
      examples=(E(((3,), np.array([2, 3]))), E(((2, 1), np.array([2, 4])))),
      grads=(lambda F, g, x_shape: F.sum_like(g, x_shape), None), tf_type="BroadcastTo")

# --- tile by run-time multiples; the gradient pair TileLike / TileSumLike ----------------------
# ``TileSumLike(g, ref)`` sums the copies in ``g`` down to ``ref``'s shape, ``TileLike(x, ref)``
# tiles ``x`` up to ``ref``'s: each is the other's gradient (like SumLike / BroadcastLike), and
# the gradient of a tile gets the tiled input's static shape exactly.


def _check_multiples(x, multiples) -> tuple:
    m = _dims(multiples)
    if len(m) != x.ndim:
        raise ValueError(f"Expected multiples argument to be a vector of length {x.ndim} but got "
                         f"length {len(m)}")
    if any(v < 0 for v in m):
        raise ValueError(f"Expected multiples[i] >= 0, but got {m}")
    return m


def _tile_dynamic(x, multiples):
    return np.tile(x, _check_multiples(x, multiples))


def _tile_dynamic_infer(x: Spec, multiples: Spec) -> Spec:
    n = _rank_of_vector(multiples, "multiples")
    if x.shape is not None and n is not None and n != len(x.shape):
        raise ShapeError(f"Shape must be rank {len(x.shape)} but is rank {n}")
    return Spec(_unknown_dims(n if x.shape is None else len(x.shape)), x.dtype)


def _tile_like(x, ref):
    """``x`` tiled up to ``ref``'s shape (each of ref's dims a multiple of x's)."""
    return np.tile(x, tuple(r // d if d else 0 for r, d in zip(ref.shape, x.shape)))


def _tile_sum_like(g, ref):
    """``g`` (a tiling of a ``ref``-shaped block) with the copies of each element summed."""
    return _tile_sum(g, tuple(n // r if r else 0 for n, r in zip(g.shape, ref.shape)))


defop("TileDynamic", _tile_dynamic, _tile_dynamic_infer, inputs=("x", "multiples"),
      fname="tile_dynamic", sized_by_values=True, torch_name="RepeatBackward0",
      examples=(E(((2, 3), np.array([2, 1]))), E(((2, 1, 2), np.array([1, 3, 2])))),
      grads=(lambda F, g, x_shape: F.tile_sum_like(g, x_shape), None), tf_type="Tile")
defop("TileLike", _tile_like, lambda x, ref: Spec(ref.shape, x.dtype), inputs=("x", "ref"),
      fname="tile_like", shape_only=(1,), torch_name="RepeatBackward0",
      examples=(E(((2, 3), (4, 3))), E(((2, 1, 2), (2, 3, 4)))),
      grads=(lambda F, g, x_shape: F.tile_sum_like(g, x_shape), None))
defop("TileSumLike", _tile_sum_like, lambda g, ref: Spec(ref.shape, g.dtype), inputs=("g", "ref"),
      fname="tile_sum_like", shape_only=(1,),
      examples=(E(((4, 3), (2, 3))), E(((2, 6, 4), (2, 2, 2)))),
      grads=(lambda F, g, g_shape: F.tile_like(g, g_shape), None))

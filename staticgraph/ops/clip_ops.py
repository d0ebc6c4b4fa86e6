"""Gradient clipping and norms (``tf.clip_by_norm``, ``tf.clip_by_global_norm``, ``tf.norm``).

::

    clip_by_norm(t, c)             t * c / max(||t||, c)
    global_norm([t1, t2, ...])     sqrt(sum_i ||t_i||^2)        (None entries skipped)
    clip_by_global_norm(ts, c)     each t * c / max(global_norm, c), and the global norm

>>> import staticgraph as tf
>>> tf.clip_by_norm([3.0, 4.0], 1.0).shape
TensorShape([Dimension(2)])
"""
from __future__ import annotations

from typing import Any, Callable

from . import core_ops as ops
from .array_ops import size
from .math_ops import rsqrt
from ..framework.build import convert_to_tensor
from ..framework.graph import Tensor, name_scope
from ..framework.indexed_slices import IndexedSlices

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_average_norm", "global_norm",
           "clip_by_global_norm", "norm"]


def _on_values(t: Any, clip: Callable[[Tensor], Tensor]) -> Any:
    """``clip`` applied to a tensor, or to an ``IndexedSlices``' values (TF keeps it sparse).

    As TF, a clip whose bounds broadcast the values to another shape is refused."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(_on_values(t.values, clip), t.indices, t.dense_shape)
    t = convert_to_tensor(t)
    out = clip(t)
    if not t.shape.is_compatible_with(out.shape):
        raise ValueError(f"Shapes {t.shape} and {out.shape} are incompatible")
    return out


def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> Any:
    """``t`` limited to ``[min, max]`` (an ``IndexedSlices``: its values)."""
    return _on_values(t, lambda v: ops.clip_by_value(v, clip_value_min, clip_value_max, name))


def _l2(t: Tensor, axes=None, keepdims=False, name=None) -> Tensor:
    """``||t||`` with a zero-safe square root (its gradient at 0 is 0, as TF's)."""
    ss = ops.reduce_sum(ops.square(t), axes, keepdims=keepdims)
    positive = ops.greater(ss, 0.0)
    root = ops.sqrt(ops.where(positive, ss, ops.ones_like(ss)), name="safe_sqrt" if name else None)
    return ops.where(positive, root, ss, name=name)   # ``name``: the result's, e.g. ``Sqrt``


def clip_by_norm(t, clip_norm, axes=None, name=None) -> Tensor:
    """``t`` rescaled so that its L2 norm (over ``axes``) is at most ``clip_norm``."""
    def clip(t: Tensor) -> Tensor:
        with name_scope(name, "clip_by_norm") as scope:
            l2norm = _l2(t, axes, keepdims=True)
            scaled = ops.multiply(t, clip_norm)
            return ops.identity(ops.truediv(scaled, ops.maximum(l2norm, clip_norm)),
                                name=scope[:-1] + "/")
    return _on_values(t, clip)


def clip_by_average_norm(t, clip_norm, name=None) -> Tensor:
    """TF1's: ``t * clip_norm / max(||t|| / t.size, clip_norm)``, the norm averaged per element."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t)
        n_element = ops.cast(size(t), t.dtype)
        l2norm_inv = rsqrt(ops.reduce_sum(ops.multiply(t, t)))
        bound = ops.minimum(ops.multiply(l2norm_inv, n_element),
                            ops.truediv(ops.constant(1.0, dtype=t.dtype), clip_norm))
        return ops.identity(ops.multiply(ops.multiply(t, clip_norm), bound), name=scope)


def global_norm(t_list, name=None) -> Tensor:
    """``sqrt(sum of squares of every element of every tensor)``; None entries are skipped."""
    tensors = [convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t)
               for t in t_list if t is not None]
    with name_scope(name, "global_norm"):
        half = [ops.multiply(ops.reduce_sum(ops.square(t)), 0.5, name="L2Loss") for t in tensors]
        total = ops.add_n(half) if half else ops.constant(0.0)
        return ops.sqrt(ops.multiply(total, 2.0), name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None) -> tuple[list, Tensor]:
    """``(clipped list, global norm)``: every tensor scaled by ``clip_norm / max(norm, clip_norm)``."""
    if isinstance(t_list, Tensor) or not isinstance(t_list, (list, tuple)):
        raise TypeError("t_list should be a sequence")
    t_list = list(t_list)
    norm_ = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    with name_scope(name, "clip_by_global_norm") as scope:
        inv_clip = ops.truediv(1.0, clip_norm) if isinstance(clip_norm, Tensor) else 1.0 / clip_norm
        scale = ops.multiply(ops.minimum(ops.truediv(1.0, norm_), inv_clip), clip_norm)
        # TF's: a no-op for a finite norm; an inf or NaN norm makes every output NaN
        scale = ops.add(scale, ops.subtract(norm_, norm_))
        out = [None if t is None else _on_values(
                   t, lambda v, i=i: ops.identity(ops.multiply(v, scale),
                                                  name=f"{scope}_{i}"))  # TF's very name
               for i, t in enumerate(t_list)]
    return out, norm_


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None) -> Tensor:
    """Vector norms: ``euclidean``/2 (default), 1, ``np.inf``; ``fro`` for a whole tensor."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    # TF reduces keeping dims and squeezes them last: its result is ``norm/Squeeze:0`` (kept
    # dims: the last step's own name, ``norm/Sqrt:0`` for the 2-norm); ours takes those names
    last = None if keep else "Squeeze"
    with name_scope(name, "norm"):
        t = convert_to_tensor(tensor)
        if ord in ("euclidean", "fro", 2, 2.0):
            return _l2(t, axis, keepdims=keep, name=last or "Sqrt")
        if ord in (1, 1.0):
            return ops.reduce_sum(ops.abs(t), axis, keepdims=keep, name=last)
        if ord == float("inf"):
            return ops.reduce_max(ops.abs(t), axis, keepdims=keep, name=last)
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")

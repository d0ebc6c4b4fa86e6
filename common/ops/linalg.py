"""Matrix multiplication: 2-D and batched (numpy ``matmul`` semantics, rank >= 2).

Gradients: ``dA = G @ B^T`` and ``dB = A^T @ G``, summed over broadcast batch dims.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..examples import Example as E
from ..registry import Spec, defop
from ..shapes import broadcast_shapes, fmt_shape, result_dtype, unbroadcast as ub


def _matmul_infer(a: Spec, b: Spec) -> Spec:
    dtype = result_dtype(a.dtype, b.dtype)
    if a.shape is None or b.shape is None:
        return Spec(None, dtype)
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise ShapeError(f"matmul needs tensors of rank >= 2, got {fmt_shape(a.shape)} "
                         f"and {fmt_shape(b.shape)}")
    k1, k2 = a.shape[-1], b.shape[-2]
    if k1 is not None and k2 is not None and k1 != k2:
        raise ShapeError(f"matmul of {fmt_shape(a.shape)} and {fmt_shape(b.shape)}: inner dims "
                         f"{k1} and {k2} differ")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return Spec(batch + (a.shape[-2], b.shape[-1]), dtype)


def matrix_transpose(F, x):
    """Swap the last two axes (the batch axes stay); of unknown rank: the SwapLastAxes op."""
    r = F.rank(x)
    if r is None:
        return F.swap_last_axes(x)
    return F.transpose(x, perm=tuple(range(r - 2)) + (r - 1, r - 2))


def _swap_last_axes_infer(x: Spec) -> Spec:
    if x.shape is None:
        return Spec(None, x.dtype)
    if len(x.shape) < 2:
        raise ShapeError(f"swapping the last two axes needs rank >= 2, got {fmt_shape(x.shape)}")
    return Spec(x.shape[:-2] + (x.shape[-1], x.shape[-2]), x.dtype)


defop("SwapLastAxes", lambda x: np.swapaxes(x, -1, -2), _swap_last_axes_infer, inputs=("x",),
      fname="swap_last_axes", torch_name="TransposeBackward0", aliases=(0,),
      examples=(E(((2, 3),)), E(((4, 2, 3),))),
      grads=(lambda F, g: F.swap_last_axes(g),))


defop("MatMul", np.matmul, _matmul_infer, inputs=("a", "b"), fname="matmul",
      torch_name="MmBackward0",
      examples=(E(((2, 3), (3, 4))), E(((5, 2, 3), (3, 4))), E(((5, 2, 3), (5, 3, 1))),
                E(((1, 2, 3), (4, 3, 2)))),
      grads=(lambda F, g, b, a_shape: ub(F, F.matmul(g, matrix_transpose(F, b)), a_shape),
             lambda F, g, a, b_shape: ub(F, F.matmul(matrix_transpose(F, a), g), b_shape)))

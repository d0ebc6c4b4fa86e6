"""Index ops along one axis, PyTorch style: ``gather`` and its gradient, ``scatter_add``.

``take_along_axis(x, idx, axis)`` picks, at every position of ``idx``, the
element of ``x`` whose coordinate along ``axis`` is the index there (and whose
other coordinates are the position's own)::

    out[i][j] = x[i][idx[i][j]]          (axis = 1)

Its gradient sends each picked element's gradient home, adding where an element
was picked twice: that is ``scatter_add_along_axis`` into zeros shaped like
``x``, whose own gradient is ``take_along_axis`` again -- the pair closes under
differentiation, as ``GetItem``/``ScatterLike`` do.  PyTorch's ``scatter``,
``scatter_add``, ``masked_fill`` and ``index_select`` are composites over
these and the existing ops (see ``dyngraph.functions``).
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..examples import Example as E, ints
from ..registry import Spec, defop
from ..shapes import fmt_shape

__all__ = ["along_axis_index"]


def along_axis_index(indices: np.ndarray, axis: int) -> tuple:
    """The fancy-index tuple that addresses ``x[..., indices, ...]`` position by position."""
    indices = np.asarray(indices)
    axis %= max(indices.ndim, 1)
    grids = np.indices(indices.shape, sparse=True)
    return tuple(indices if d == axis else grids[d] for d in range(indices.ndim))


def _check_rank(x: Spec, indices: Spec, what: str) -> None:
    if not np.issubdtype(indices.dtype, np.integer):
        raise ShapeError(f"{what}: indices must hold integers, not {indices.dtype}")
    if x.shape is not None and indices.shape is not None and len(x.shape) != len(indices.shape):
        raise ShapeError(f"{what}: indices {fmt_shape(indices.shape)} must have the rank of "
                         f"the input {fmt_shape(x.shape)}")


def _take(x, indices, axis):
    return x[along_axis_index(indices, axis)]


def _take_infer(x: Spec, indices: Spec, axis) -> Spec:
    _check_rank(x, indices, "take_along_axis")
    return Spec(indices.shape, x.dtype)


def _scatter_add(src, ref, indices, axis):
    """Zeros shaped like ``ref`` (``src``'s dtype) plus ``src`` added at ``indices`` along ``axis``."""
    out = np.zeros(ref.shape, dtype=src.dtype)
    np.add.at(out, along_axis_index(indices, axis), src)
    return out


def _scatter_add_infer(src: Spec, ref: Spec, indices: Spec, axis) -> Spec:
    _check_rank(ref, indices, "scatter_add_along_axis")
    return Spec(ref.shape, src.dtype)


defop("TakeAlongAxis", _take, _take_infer, inputs=("x", "indices"), fname="take_along_axis",
      torch_name="GatherBackward0",
      torch_names={"take_along_dim": "TakeAlongDimBackward0", "sort": "SortBackward0",
                   "topk": "TopkBackward0"},
      examples=(E(((3, 4), ints((3, 2), 4)), {"axis": 1}),
                E(((3, 4), ints((5, 4), 3)), {"axis": 0}),
                E(((2, 3, 4), ints((2, 3, 6), 4)), {"axis": -1})),
      grads=(lambda F, g, indices, x_shape, axis:
             F.scatter_add_along_axis(g, x_shape, indices, axis=axis), None))
defop("ScatterAddAlongAxis", _scatter_add, _scatter_add_infer, inputs=("src", "ref", "indices"),
      fname="scatter_add_along_axis", torch_name="ScatterAddBackward0", shape_only=(1,),
      examples=(E(((3, 2), (3, 4), ints((3, 2), 4)), {"axis": 1}),
                E(((5, 4), (3, 4), ints((5, 4), 3)), {"axis": 0})),
      grads=(lambda F, g, indices, axis: F.take_along_axis(g, indices, axis=axis), None, None))

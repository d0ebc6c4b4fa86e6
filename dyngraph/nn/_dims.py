"""One helper shared by resampling and pooling: a fixed linear map along one dim.

Interpolation (``functional_resample``) and average pooling (``functional_pool``) are both
separable: along each spatial dim the output is a fixed ``(out, in)`` matrix times the input.
Applied as a matmul, the gradient (``W^T`` times the incoming one) is the registry's.
"""
from __future__ import annotations

import numpy as np

from .. import functions as _f
from ..tensor import make

__all__ = ["map_dim"]


def map_dim(x, dim: int, w: np.ndarray):
    """``x`` with dim ``dim`` mapped through ``w`` (``out x in``): a matmul on the last dim."""
    moved = _f.transpose(x, dim, -1)
    y = _f.matmul(moved, make(np.ascontiguousarray(w.T).astype(x._data.dtype)))
    return _f.transpose(y, dim, -1)

"""Ops with no arithmetic of their own: cast, identity, stop_gradient, constant fills."""
from __future__ import annotations

import numpy as np

from ..examples import Example as E
from ..registry import Algebra, Spec, defop
from .elementwise import UNARY, same


def _cast(x, dtype):
    x = np.asarray(x)
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = x.real    # complex -> real keeps the real part (TF's Cast; numpy would warn)
    return x.astype(dtype, copy=False)


def _identity(x):
    return x


def _fill(shape, value, dtype):
    return np.full(shape, value, dtype=dtype)


def _zeros_like(x):
    return np.zeros(x.shape, dtype=x.dtype)


def _ones_like(x):
    return np.ones(x.shape, dtype=x.dtype)


defop("Cast", _cast, lambda x, dtype: Spec(x.shape, np.dtype(dtype)), inputs=("x",), fname="cast",
      torch_name="ToCopyBackward0", aliases=(0,), dtype_attr="dtype",
      algebra=Algebra(same_dtype_noop=True),
      examples=(E(((3,),), {"dtype": np.dtype(np.float32)}), E(((2, 2),), {"dtype": np.dtype(np.float64)})),
      grads=(lambda F, g, x_shape: F.cast(g, dtype=F.dtype(x_shape)),))
defop("Identity", _identity, same, inputs=("x",), fname="identity", torch_name="AliasBackward0",
      torch_names={"clone": "CloneBackward0"},
      aliases=(0,), algebra=Algebra(passthrough=True),
      examples=UNARY, grads=(lambda F, g: g,))
defop("StopGradient", _identity, same, inputs=("x",), fname="stop_gradient", examples=UNARY,
      aliases=(0,), algebra=Algebra(passthrough=True))
defop("ZerosLike", _zeros_like, same, inputs=("x",), fname="zeros_like", examples=UNARY,
      shape_only=(0,), algebra=Algebra(fills=0.0))
defop("OnesLike", _ones_like, same, inputs=("x",), fname="ones_like", examples=UNARY,
      shape_only=(0,), algebra=Algebra(fills=1))
defop("Fill", _fill, lambda shape, value, dtype: Spec(tuple(shape), np.dtype(dtype)), inputs=(),
      fname="fill", dtype_attr="dtype", examples=(E((), {"shape": (2, 3), "value": 1.5, "dtype": np.dtype(np.float32)}),))

"""Per-element transcendental functions for compiled (numba) kernels: ``exp``, ``tanh``,
``sigmoid`` of one float32 or float64 value, inlined into the loop that calls them.

A fused elementwise kernel (``staticgraph.compiler.fuse``) calls these for the ops that
declare an ``approx_scalar`` form (``Exp``, ``Tanh``, ``Sigmoid``), only under
``PassConfig(fast_math=True)``: their bits may differ from numpy's by a few ulps.  This
version is the plain libm one (``math.exp``, ``math.tanh``); a vectorisable polynomial
version replaces it without changing the names.  Imports numba: load it only where
:func:`common.fastpath.numba_module` found numba.
"""
from __future__ import annotations

import math

from numba import njit

__all__ = ["exp", "tanh", "sigmoid"]


@njit(inline="always")
def exp(x):
    return math.exp(x)


@njit(inline="always")
def tanh(x):
    return math.tanh(x)


@njit(inline="always")
def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))

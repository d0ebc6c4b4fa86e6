""":mod:`common.libm64`'s compiled loops: numba lowers ``math.log`` & co. to calls of the C
library (glibc), with its SVML off (:func:`common.fastpath.numba_module`), so each loop gives
glibc's bits at compiled speed.  Loaded by :func:`common.fastpath.jit_module`, never directly."""
from __future__ import annotations

import math

from numba import njit

__all__ = ["log", "log1p", "exp", "sin", "cos", "tan", "pow", "powf"]


@njit(cache=True, nogil=True)
def log(x, out):    # pragma: no cover (numba)
    for i in range(x.size):
        out[i] = math.log(x[i])


@njit(cache=True, nogil=True)
def log1p(x, out):    # pragma: no cover (numba)
    for i in range(x.size):
        out[i] = math.log1p(x[i])


@njit(cache=True, nogil=True)
def exp(x, out):    # pragma: no cover (numba)
    for i in range(x.size):
        out[i] = math.exp(x[i])


@njit(cache=True, nogil=True)
def sin(x, out):    # pragma: no cover (numba)
    for i in range(x.size):
        out[i] = math.sin(x[i])


@njit(cache=True, nogil=True)
def cos(x, out):    # pragma: no cover (numba)
    for i in range(x.size):
        out[i] = math.cos(x[i])


@njit(cache=True, nogil=True)
def tan(x, out):    # pragma: no cover (numba)
    for i in range(x.size):
        out[i] = math.tan(x[i])


@njit(cache=True, nogil=True)
def pow(x, y, out):    # pragma: no cover (numba)
    for i in range(x.size):
        out[i] = math.pow(x[i], y[i])


@njit(cache=True, nogil=True)
def powf(x, y, out):    # pragma: no cover (numba)
    """float32 ``**`` is LLVM's ``pow.f32``: a call to the C library's ``powf``."""
    for i in range(x.size):
        out[i] = x[i] ** y[i]

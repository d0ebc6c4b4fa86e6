"""glibc's double-precision ``log``, ``log1p``, ``exp``, ``sin``, ``cos``, ``tan``, ``pow`` on numpy arrays.

PyTorch's and TF's CPU samplers compute in double with the C library (``std::log``,
``std::sin``...: glibc).  numpy's float64 ufuncs are glibc's on most CPUs, but on a CPU with
AVX-512 numpy dispatches its own SIMD code instead (its AVX512F ``log``/``exp``, Intel's SVML
for ``tan``/``log1p``/``pow``...), which is not correctly rounded either and differs from
glibc in the last bit (measured on a Sapphire Rapids VM, uniform arguments: ``log`` 0.3% of
values, ``exp`` 4%, ``log1p`` 8%, ``tan`` 0.6%, ``pow`` 5.6%; 1,682 of 1,048,576 Box-Muller
normals; ``tests/test_dyngraph_random.py``).  A sampler that calls
``np.log`` is then PyTorch's stream on one machine and not on the next.  These functions give
glibc's bits on every CPU:

- from :data:`JIT_FROM` values, or once loaded, :mod:`common.libm64_jit`'s loops (numba calls
  the C library, its SVML switched off by :func:`common.fastpath.numba_module`);
- below that, or where numba is missing, Python's ``math`` functions (glibc's too) value by
  value, ~0.1-0.3 us each, on the values inside the function's domain; numpy supplies the
  special values (``log(0) = -inf``, ``exp(1000) = inf``, NaN...), which every
  implementation gets the same.

And glibc's single-precision ``powf`` (TF raises unigram weights to the distortion with it;
numpy's float32 ``power`` differs from it in 20% of values there, the double ``pow`` rounded
to float in 0.06%): the compiled loop (numba's float32 ``**`` is a ``powf`` call) or, value by
value, the C library's own ``powf`` through ctypes (numpy's where no C library is found).

>>> import numpy as np
>>> float(log(np.array([np.e]))[0])
1.0
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from typing import Callable

import numpy as np

from .fastpath import JIT_MODULES, THRESHOLD, jit_module

__all__ = ["log", "log1p", "exp", "sin", "cos", "tan", "pow", "powf", "JIT_FROM"]

JIT_FROM = THRESHOLD
"""Values from which the compiled loops are loaded (the policy of the random kernels': a
program drawing a few small tensors does not pay numba's import)."""

_JIT = "common.libm64_jit"


def _elementwise(name: str, domain: Callable[..., np.ndarray], ufunc=None):
    """glibc's ``name`` on float64 arrays (broadcast together): the compiled loop, or
    ``math.<name>`` on the values where ``domain`` holds (elsewhere ``math`` raises; numpy's
    special value -- ``ufunc``'s, ``np.<name>`` by default -- is glibc's)."""
    scalar, ufunc = getattr(math, name), ufunc or getattr(np, name)

    def apply(*args) -> np.ndarray:
        args = np.broadcast_arrays(*(np.asarray(a, np.float64) for a in args))
        jit = JIT_MODULES.get(_JIT)
        if jit is None and args[0].size >= JIT_FROM:
            jit = jit_module(_JIT)
        if jit is not None:
            out = np.empty(args[0].shape)
            getattr(jit, name)(*(np.ascontiguousarray(a).reshape(-1) for a in args),
                               out.reshape(-1))
            return out
        with np.errstate(all="ignore"):
            out = np.asarray(ufunc(*args), np.float64)
            inside = domain(*args)
        out[inside] = [scalar(*v) for v in zip(*(a[inside].tolist() for a in args))]
        return out
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = f"glibc's double ``{name}`` of each value (see the module's docstring)."
    return apply


_EXP_MAX = float.fromhex("0x1.62e42fefa39efp+9")     # log(DBL_MAX): above, math.exp raises

log = _elementwise("log", lambda x: (x > 0) & (x < np.inf))
log1p = _elementwise("log1p", lambda x: (x > -1) & (x < np.inf))
exp = _elementwise("exp", lambda x: np.abs(x) < _EXP_MAX)
sin = _elementwise("sin", np.isfinite)
cos = _elementwise("cos", np.isfinite)
tan = _elementwise("tan", np.isfinite)
pow = _elementwise("pow", lambda x, y: (x > 0) & (x < np.inf) & np.isfinite(y) & (
    np.abs(y * np.log(x)) < 700), np.power)     # beyond: math.pow raises (over/underflow)


@functools.cache
def _c_powf():
    """The C library's ``powf`` through ctypes, or None where no C math library is found."""
    name = ctypes.util.find_library("m")
    if name is None:
        return None
    f = ctypes.CDLL(name).powf
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    return f


def powf(x, y) -> np.ndarray:
    """glibc's float ``powf`` of each pair (float32 arrays, broadcast together)."""
    x, y = np.broadcast_arrays(np.asarray(x, np.float32), np.asarray(y, np.float32))
    jit = JIT_MODULES.get(_JIT)
    if jit is None and x.size >= JIT_FROM:
        jit = jit_module(_JIT)
    out = np.empty(x.shape, np.float32)
    if jit is not None:
        jit.powf(np.ascontiguousarray(x).reshape(-1), np.ascontiguousarray(y).reshape(-1),
                 out.reshape(-1))
    elif (c := _c_powf()) is not None:
        out.reshape(-1)[:] = [c(a, b) for a, b in zip(x.reshape(-1).tolist(), y.reshape(-1).tolist())]
    else:
        np.power(x, y, out=out)
    return out

"""Fused multiply-add, ``round(a * b + c)`` with one rounding, on numpy arrays.

numpy has no ``fma``, but a compiled kernel often does: GCC contracts ``x * y + z`` into
one FMA instruction wherever the target has it, so PyTorch's AVX2 kernels round
``u * (to - from) + from`` once, not twice.  Reproducing their bits needs the same:

- :func:`fma32`: a float32 product is exact in float64 (24 + 24 bits < 53), so one
  float64 add and a cast round only twice when the float64 sum lands exactly halfway
  between two float32 numbers; those few are nudged by the add's exact error.
- :func:`fma64`: the exact product as two doubles (Dekker), the sums error-free
  (Knuth's two-sum); the rare result within a hair of a tie is recomputed exactly in
  rational arithmetic.

>>> import numpy as np
>>> a = np.float64(1 + 2 ** -30)
>>> float(fma64(a, a, -1.0)) == 2 ** -29 + 2 ** -60, float(a * a - 1.0) == 2 ** -29
(True, True)
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["fma32", "fma32_unchecked", "fma64", "horner32_unchecked"]

_HALF_ULP32 = np.uint64(1 << 28)   # the 29 bits a float64 -> float32 cast drops, at a tie
_DROPPED32 = np.uint64((1 << 29) - 1)
_SPLIT = 134217729.0               # 2**27 + 1: Veltkamp's splitter for float64


def _two_sum(a, b):
    """``s, e`` with ``s = fl(a + b)`` and ``a + b == s + e`` exactly."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _f64(x):
    """A float32 array (or number) as float64: exact; numbers stay Python floats."""
    return x.astype(np.float64) if isinstance(x, np.ndarray) and x.ndim else float(x)


def fma32(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once to float32 (float32 inputs)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    return _fma32(*(np.atleast_1d(_f64(x)) for x in (a, b, c))).reshape(shape)


def fma32_unchecked(a, b, c) -> np.ndarray:
    """``a * b + c`` (float32 operands) through one float64 multiply-add, cast to float32.

    This is :func:`fma32` without the tie repair: it rounds once, as an FMA does, wherever
    the float64 sum is exact or does not land halfway between two float32s.  Only for
    inputs from a finite set checked exhaustively against :func:`fma32` (the AVX2
    polynomials on every uniform float32 PyTorch can draw)."""
    s = _f64(a) * _f64(b)                 # exact: 24 + 24 bits (same-dtype ufuncs: the
    s += _f64(c)                          # cheapest calls numpy has, for short arrays)
    return s.astype(np.float32)


def horner32_unchecked(coefs, x) -> np.ndarray:
    """``((c0 * x + c1) * x + c2) ...`` in float32, each step one :func:`fma32_unchecked`
    (as GCC compiles it: one FMA per step); ``x`` an array.  The steps stay in float64,
    each rounded to float32 and back, in two buffers: no call mixes dtypes (slow on short
    arrays) or allocates (slow on long ones)."""
    coefs, x = np.asarray(coefs, np.float64), np.asarray(x, np.float64)
    shape = np.broadcast_shapes(coefs.shape[1:], x.shape)
    y, rounded = np.empty(shape), np.empty(shape, np.float32)   # one buffer each, reused
    np.multiply(coefs[0], x, out=y)
    for c in coefs[1:-1]:
        y += c
        rounded[...] = y                  # each step rounded to float32 (and back, exactly)
        y[...] = rounded
        y *= x
    y += coefs[-1]
    rounded[...] = y
    return rounded


def _fma32(a, b, c) -> np.ndarray:
    """:func:`fma32` of float64 operands holding float32 values, at least one an array."""
    s = np.multiply(a, b)                 # exact: 24 + 24 bits
    s += c
    tie = np.bitwise_and(s.view(np.uint64), _DROPPED32) == _HALF_ULP32
    if tie.any():                         # halfway between two float32s after the add:
        at = np.flatnonzero(tie)          # was the exact sum there too, or to one side?
        flat = s.reshape(-1)
        p = np.broadcast_to(np.multiply(a, b), s.shape).reshape(-1)[at]
        err = _two_sum(p, np.broadcast_to(c, s.shape).reshape(-1)[at])[1]
        toward = np.where(err > 0, np.inf, np.where(err < 0, -np.inf, flat[at]))
        flat[at] = np.nextafter(flat[at], toward)
    return s.astype(np.float32)


def _two_prod(a, b):
    """``p, e`` with ``p = fl(a * b)`` and ``a * b == p + e`` exactly (Dekker)."""
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma64(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once to float64."""
    a, b, c = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in (a, b, c)))
    p, pe = _two_prod(a, b)
    s, se = _two_sum(p, c)
    t, te = _two_sum(se, pe)
    r, re = _two_sum(s, t)          # exact: a*b + c == r + re + te, |te| tiny
    gap = np.abs(np.nextafter(r, np.where(re > 0, np.inf, -np.inf)) - r)
    near_tie = 2 * np.abs(re) >= gap * (1 - 2.0 ** -30)
    if near_tie.any():
        r = np.array(r, ndmin=1)
        for i in zip(*np.nonzero(near_tie.reshape(r.shape))):
            x, y, z = (float(v.reshape(r.shape)[i]) for v in (a, b, c))
            r[i] = float(Fraction(x) * Fraction(y) + Fraction(z))
        r = r.reshape(a.shape)
    return r

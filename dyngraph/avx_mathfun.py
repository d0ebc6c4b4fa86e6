"""PyTorch's AVX2 ``log`` and ``sincos`` for float32 (``ATen/native/cpu/avx_mathfun.h``), on numpy.

``torch.randn`` of 16 or more contiguous float32 values turns uniforms into normals eight
lanes at a time with these Cephes polynomials (Julien Pommier's ``sse_mathfun``, ported to
AVX), not with libm -- so their results, last bit included, are what the polynomials give.
Every step below is one float32 operation, as in the kernel; the only subtlety is where
GCC (``-O2 -mavx2 -mfma``, PyTorch's x86 build) contracted a multiply and the add after it
into one FMA.  Those places were found by running both against ``torch.randn`` of 1.6
million values: with the contractions below all agree, bit for bit; each other choice
differs in hundreds to thousands of values.  Where the fused product is exact in float32
anyway (a power of two, or a short constant times a small integer), an FMA and a multiply
then an add give the same float, and the cheaper form is written.  The fused steps skip
``common.fma``'s tie repair (``fma32_unchecked``): ``normal_fill`` gives these functions only
``1 - u`` and ``2 pi u`` for the 2**24 float32 uniforms ``u``, and on every one of them the
unchecked and the checked FMA agree (a test runs them all).  Signs and the octant's choice of
polynomial are applied with bit masks rather than ``np.where``, which is slow on a random
condition.

>>> import numpy as np
>>> x = np.array([0.5, 1.0, 2.0], np.float32)
>>> bool(np.allclose(log256_ps(x), np.log(x), rtol=1e-6)), float(log256_ps(x)[1])
(True, 0.0)
"""
from __future__ import annotations

import numpy as np

from common.fma import fma32_unchecked, horner32_unchecked

_fma, _horner = fma32_unchecked, horner32_unchecked
"""The FMA steps, unchecked: exact on every input ``normal_fill`` can give these functions
(tests/test_dyngraph_random.py runs all 2**24 of them against the checked ``common.fma``)."""

__all__ = ["log256_ps", "sincos256_ps"]

f32 = np.float32
_ONE, _HALF = f32(1.0), f32(0.5)
_SQRTHF = f32(0.707106781186547524)
_LOG_P = [f32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                           -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                           2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = f32(-2.12194440e-4), f32(0.693359375)
_MINUS_DP = [f32(v) for v in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8)]
_SIN_COS = np.array([[-1.9515295891E-4, 8.3321608736E-3, -1.6666654611E-1],    # sin's
                     [2.443315711809948E-005, -1.388731625493765E-003,        # cos's
                      4.166664568298827E-002]], f32).T
"""The octant polynomials' coefficients, sin's and cos's side by side, evaluated together."""
_FOPI = f32(1.27323954473516)  # 4 / pi
_EXPONENT = np.int32(0x7F800000)
_SIGN = np.int32(-0x80000000)


def log256_ps(x: np.ndarray) -> np.ndarray:
    """Natural log of float32 ``x``, normal and positive (what ``normal_fill`` gives it; the
    kernel's clamps for zero, negative and denormal input are left out), as ``log256_ps``
    computes it."""
    bits = np.asarray(x, f32).view(np.int32)
    m = bits & ~_EXPONENT
    m |= _HALF.view(np.int32)      # x's bits with the exponent of [0.5, 1)
    small = m - _SQRTHF.view(np.int32)
    small >>= 31                   # -1 (all bits) where x < sqrt(1/2): then e -= 1 and
    e = bits >> 23                 # x = x + x - 1, else x = x - 1 (masks, not np.where,
    e -= 126                       # which is slow on a random condition)
    e += small
    e = e.astype(f32)              # exponent, exact as a float
    x = m.view(f32)
    x = (x - _ONE) + (m & small).view(f32)
    z = x * x
    y = _horner(_LOG_P, x.astype(np.float64)) * x
    y = _fma(y, z, e * _LOG_Q1)   # y * z + e * q1: GCC fused the first product
    y = y - z * _HALF              # (fused; z * 0.5 is exact)
    return (x + y) + e * _LOG_Q2   # (fused; e * q2 = small integer * 355/512 is exact)


def sincos256_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sin(x), cos(x))`` of float32 ``x`` (accurate for ``|x| < 8192``), as
    ``sincos256_ps`` computes them: reduce by pi/4 in three FMA steps, then the Cephes
    polynomial for each octant (both are evaluated, as in the kernel, here side by side)."""
    x = np.asarray(x, f32)
    sin_sign = x.view(np.int32) & _SIGN                 # signs as sign bits, applied by xor
    x = np.abs(x)
    j = (x * _FOPI).astype(np.int32)                    # x >= 0: the cast truncates
    j += 1
    j &= ~1                                             # j = (j + 1) & ~1
    y = j.astype(f32)
    sin_sign ^= (j << 29) & _SIGN                       # j & 4: sin changes sign
    cos_sign = ~((j - 2) << 29) & _SIGN                 # ~(j - 2) & 4: cos is negative
    use_sin_poly = j & 2           # 0: sin takes the sin polynomial, cos the cos one;
    use_sin_poly >>= 1             # as a mask (all bits where 0), to swap them by xor
    use_sin_poly -= 1
    x = (x + y * _MINUS_DP[0]) + y * _MINUS_DP[1]   # x = ((x - y*DP1) - y*DP2) - y*DP3, fused;
    x = _fma(y, _MINUS_DP[2], x)                   # DP1, DP2 are short: y * DP exact
    z = x * x
    side_by_side = _SIN_COS.reshape((3, 2) + (1,) * z.ndim)
    poly = _horner(side_by_side, z.astype(np.float64))
    poly *= z                                      # [sin's, cos's] polynomial in z, times z
    # sin: poly * x + x;  cos: poly * z - z * 0.5, then + 1 (GCC fused the first product)
    factor, addend = np.empty_like(poly), np.empty_like(poly)
    factor[0], factor[1], addend[0] = x, z, x
    np.multiply(z, -_HALF, out=addend[1])
    ys, yc = _fma(poly, factor, addend)
    yc += _ONE
    ys, yc = ys.view(np.int32), yc.view(np.int32)
    swap = ys ^ yc
    swap &= use_sin_poly
    sin_sign ^= yc                 # s = where(use_sin_poly, ys, yc), sign applied
    sin_sign ^= swap
    cos_sign ^= ys                 # c = where(use_sin_poly, yc, ys), sign applied
    cos_sign ^= swap
    return sin_sign.view(f32), cos_sign.view(f32)

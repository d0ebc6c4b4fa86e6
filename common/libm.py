"""glibc's single-precision ``logf`` and ``sincosf``, bit for bit, on numpy arrays.

TensorFlow turns Philox bits into normal samples with the Box-Muller transform written in
``float``: ``sqrt(-2 * logf(u1))`` times ``sincosf(2 * pi * u2)``.  Those two calls go to the
C library, and glibc's answers are not correctly rounded (``logf`` is off by up to 0.82 ulp,
``sincosf`` by 0.56 ulp), so computing them in float64 and rounding -- or with numpy's own
float32 kernels -- gives a different float in about one draw in a hundred.  Matching TF's
samples therefore means computing what glibc computes.

What glibc computes (2.28 and later; ``sysdeps/ieee754/flt-32/e_logf.c``, ``s_sincosf.c``):
double-precision polynomials on a reduced argument, rounded to float at the end.  On an
x86-64 CPU with FMA (every one since 2013) glibc picks its ``-mfma`` build, in which each
``a * b + c`` of the source is one fused multiply-add -- one rounding instead of two.  The
fused steps below are exactly the ``vfmadd`` instructions of that build (read off its
disassembly); a CPU without FMA runs glibc's other build, and TF's bits differ there in rare
last places.

numpy has no fused multiply-add, so each function has two forms:

- the *reference* (``logf_scalar``, ``sincosf_scalar``): glibc's steps for one value, each
  fused step computed exactly with :class:`fractions.Fraction` and rounded once;
- the *array* form (``logf``, ``sincosf``): the same steps on whole arrays, where every fused
  step that can be made exact cheaply is exact, and the rest are a multiply and an add.  Two
  roundings instead of one move a double by far less than ``tol`` (a bound written next to
  each); only a value that close to the middle between two floats could round to the other
  float, so those few (about one in a million) are recomputed with the reference.

>>> import numpy as np
>>> logf(np.array([0.5, 0.1], np.float32))
array([-0.6931472, -2.3025851], dtype=float32)
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["logf", "sincosf", "logf_scalar", "sincosf_scalar", "fma"]


def fma(a: float, b: float, c: float) -> float:
    """``a * b + c`` rounded once (what one ``vfmadd`` instruction returns)."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _f32(x) -> np.ndarray:
    return np.asarray(x, np.float32)


# --- logf -------------------------------------------------------------------------------------
# log(x) = log1p(z/c - 1) + log(c) + k*ln2, x = 2^k z, z near a table point c (16 of them)

_OFF = 0x3F330000
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_A0, _A1, _A2 = (float.fromhex(h) for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2",
                                             "-0x1.ffffef20a4123p-2"))
_TAB = [(float.fromhex(a), float.fromhex(b)) for a, b in (
    ("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"), ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
    ("0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2"), ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
    ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"), ("0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"), ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"), ("0x1p+0", "0x0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"), ("0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4"),
    ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"), ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3"),
    ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"), ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2"))]


def _split(ix: int) -> tuple[int, int, float]:
    """Table index, exponent and reduced argument of the float with bits ``ix``."""
    tmp = (ix - _OFF) & 0xFFFFFFFF
    i = (tmp >> 19) % 16
    k = (tmp - (1 << 32) if tmp >> 31 else tmp) >> 23
    z = np.uint32((ix - (tmp & 0xFF800000)) & 0xFFFFFFFF).view(np.float32)
    return i, k, float(z)


def logf_scalar(x: float) -> float:
    """glibc's ``logf`` of one positive normal float (the reference, fused steps exact)."""
    ix = int(np.float32(x).view(np.uint32))
    if ix == 0x3F800000:
        return 0.0
    if ix == 0:
        return -math.inf
    if not 0 < ix < 0x7F800000:
        raise ValueError(f"logf_scalar covers positive finite floats, not {x!r}")
    if ix < 0x00800000:                             # subnormal: normalise, as glibc does
        ix = int((np.float32(x) * np.float32(2.0**23)).view(np.uint32)) - (23 << 23)
    i, k, z = _split(ix)
    invc, logc = _TAB[i]
    r = fma(z, invc, -1.0)
    y0 = fma(float(k), _LN2, logc)
    r2 = r * r
    y = fma(_A1, r, _A2)
    y = fma(_A0, r2, y)
    y = fma(y, r2, y0 + r)
    return float(np.float32(y))


def _split_invc() -> tuple[np.ndarray, np.ndarray]:
    """Each ``invc`` as hi + lo with 29 and 24 significant bits: a float's 24-bit significand
    times either is exact in a double, which makes ``z * invc - 1`` exact (module docstring)."""
    invc = np.array([c for c, _ in _TAB])
    hi = (invc.view(np.uint64) & np.uint64(~((1 << 24) - 1) & 0xFFFFFFFFFFFFFFFF)).view(np.float64)
    return hi, invc - hi


_INVC_HI, _INVC_LO = _split_invc()
_K_MIN = -150  # exponents of positive normal floats relative to _OFF lie in [-127, 128]
_Y0 = np.array([[fma(float(k), _LN2, logc) for k in range(_K_MIN, 130)] for _, logc in _TAB])
"""``fma(k, ln2, log c)`` for every table point and exponent: a lookup, so it is exact."""


def logf(x: np.ndarray) -> np.ndarray:
    """glibc's ``logf`` of an array of positive or zero floats (others: undefined)."""
    x = _f32(x)
    ix = x.view(np.uint32).astype(np.int64)
    sub = (ix < 0x00800000) & (ix > 0)
    if sub.any():                                  # subnormal: normalise, as glibc does
        ix[sub] = (x[sub] * np.float32(2.0**23)).view(np.uint32).astype(np.int64) - (23 << 23)
    tmp = ix - _OFF
    i = (tmp >> 19) & 15
    k = tmp >> 23                                  # arithmetic shift of the signed difference
    z = (ix - (tmp & 0xFF800000)).astype(np.uint32).view(np.float32).astype(np.float64)
    r = (z * _INVC_HI[i] - 1.0) + z * _INVC_LO[i]  # fma(z, invc, -1): both products exact
    y0 = _Y0[i, k - _K_MIN]
    r2 = r * r
    y = (_A1 * r + _A2)
    y = _A0 * r2 + y
    y = y * r2 + (y0 + r)
    # the three unfused steps each add one rounding of a term no larger than |y0| + |r|
    out = _round_or_redo(y, np.ldexp(np.abs(y0) + np.abs(r), -47), x, logf_scalar)
    out[ix == 0x3F800000] = 0.0
    out[ix == 0] = -np.inf
    return out


def _round_or_redo(y: np.ndarray, tol: np.ndarray, x: np.ndarray, exact) -> np.ndarray:
    """``y`` rounded to float, except where ``y +- tol`` would round differently: there the
    unfused and the fused computation may disagree, so the reference ``exact(x)`` decides."""
    out = y.astype(np.float32)
    unsure = ((y - tol).astype(np.float32) != out) | ((y + tol).astype(np.float32) != out)
    if unsure.any():
        out[unsure] = [exact(v) for v in x[unsure].tolist()]
    return out


# --- sincosf ----------------------------------------------------------------------------------
# |y| < 0.75: polynomials in y; |y| < 120: y - n*pi/2 with n the nearest quadrant

_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")  # 2/pi scaled by 2^24 (glibc's non-TOINT build)
_HPI = float.fromhex("0x1.921FB54442D18p0")
_C = [float.fromhex(h) for h in ("0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5",
                                 "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16")]
_S = [float.fromhex(h) for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7",
                                 "-0x1.994eb3774cf24p-13")]
_SIGN = (1.0, -1.0, -1.0, 1.0)


def _polys_scalar(y: float) -> tuple[float, float, int]:
    """The sine and cosine polynomials of glibc's ``sincosf`` for one float with ``|y| < 120``
    (fused steps exact), before the quadrant ``n`` swaps them; tiny ``|y|`` excluded."""
    top = (int(np.float32(y).view(np.uint32)) >> 20) & 0x7FF
    x, n = float(np.float32(y)), 0
    if top >= 0x42F:
        raise ValueError(f"sincosf_scalar covers |y| < 120, not {y!r}")
    if top >= 0x3F4:
        n = (int(x * _HPI_INV) + 0x800000) >> 24   # C's (int32_t) truncates toward zero
        x = fma(-float(n), _HPI, x)
    x2, cos_sign = x * x, (-1.0 if n & 2 else 1.0)  # glibc's 2nd table: the negated cosine
    x = x * _SIGN[n & 3]
    c0, c1, c2, c3, c4 = (cos_sign * c for c in _C)
    s1, s2, s3 = _S
    x3, x4 = x2 * x, x2 * x2
    x5, x6 = x2 * x3, x2 * x4
    s = fma(fma(x2, s3, s2), x5, fma(x3, s1, x))
    c = fma(fma(x2, c4, c3), x6, fma(x4, c2, fma(x2, c1, c0)))
    return float(np.float32(s)), float(np.float32(c)), n


def sincosf_scalar(y: float) -> tuple[float, float]:
    """glibc's ``sincosf`` of one float with ``|y| < 120`` (the reference)."""
    if (int(np.float32(y).view(np.uint32)) >> 20) & 0x7FF < 0x398:
        return float(np.float32(y)), 1.0
    s, c, n = _polys_scalar(y)
    return (c, s) if n & 1 else (s, c)


def sincosf(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc's ``sincosf`` of an array of floats with ``|y| < 120``: ``(sin, cos)`` as floats."""
    y = _f32(y)
    top = (y.view(np.uint32) >> 20) & 0x7FF
    x = y.astype(np.float64)
    n = np.where(top < 0x3F4, 0, ((x * _HPI_INV).astype(np.int64) + 0x800000) >> 24)
    x = x - n * _HPI                          # n*pi/2 is exact for n <= 4: one rounding, as fused
    x2 = x * x
    x = x * _SIGN_ARRAY[n & 3]
    x3, x4 = x2 * x, x2 * x2
    x5, x6 = x2 * x3, x2 * x4
    s = (x2 * _S[2] + _S[1]) * x5 + (x3 * _S[0] + x)
    c = (x2 * _C[4] + _C[3]) * x6 + (x4 * _C[2] + (x2 * _C[1] + _C[0]))
    c = np.where(n & 2, -c, c)
    # each unfused step adds one rounding of a term below |x| (sine) or 1 (cosine)
    s = _round_or_redo(s, np.ldexp(np.abs(x), -46), y, lambda v: _polys_scalar(v)[0])
    c = _round_or_redo(c, np.full_like(c, 2.0 ** -46), y, lambda v: _polys_scalar(v)[1])
    odd = (n & 1).astype(bool)
    sin, cos = np.where(odd, c, s), np.where(odd, s, c)
    tiny = top < 0x398
    if tiny.any():
        sin[tiny], cos[tiny] = y[tiny], 1.0
    return sin, cos


_SIGN_ARRAY = np.array(_SIGN)

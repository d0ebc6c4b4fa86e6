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
  fused step computed exactly (:func:`fma`) and rounded once;
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

import functools
import math

import numpy as np

__all__ = ["logf", "sincosf", "logf_scalar", "sincosf_scalar", "fma"]


def _halves(x: float) -> tuple[float, float]:
    """``x`` as hi + lo with 26 and 27 significant bits (Veltkamp): their products are exact."""
    t = 134217729.0 * x
    hi = t - (t - x)
    return hi, x - hi


def fma(a: float, b: float, c: float) -> float:
    """``a * b + c`` rounded once (what one ``vfmadd`` instruction returns): ``a * b`` is
    ``p + e`` exactly (Dekker's product), and :func:`math.fsum` rounds ``p + e + c`` once."""
    p = a * b
    (ah, al), (bh, bl) = _halves(a), _halves(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return math.fsum((p, e, c))


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


_BIAS = 16 * 160
"""``(x's bits - OFF) >> 19`` is ``16 * k + i``, ``k`` the exponent (at least -127 for a
normal float) and ``i`` the table point: plus this, an index into tables by (k, i)."""


@functools.cache
def _table() -> np.ndarray:
    """Rows by (k, i), columns: ``invc`` as hi + lo with 29 and 24 significant bits (a float's
    24-bit significand times either is exact, so ``z * hi - 1 + z * lo`` is ``fma(z, invc,
    -1)``), ``y0 = fma(k, ln2, log c)`` (a lookup, so exact), and ``|y0| * 2**-47`` (its share
    of the tolerance of the unfused steps)."""
    invc = np.array([c for c, _ in _TAB] * 290)
    hi = (invc.view(np.uint64) & np.uint64(0xFFFFFFFFFF000000)).view(np.float64)
    y0 = np.array([fma(float(k), _LN2, logc) for k in range(-160, 130) for _, logc in _TAB])
    return np.stack([hi, invc - hi, y0, np.abs(y0) * 2.0**-47], axis=1)


def logf(x: np.ndarray) -> np.ndarray:
    """glibc's ``logf`` of an array of positive or zero floats (others: undefined)."""
    x = _f32(x)
    ix = x.view(np.int32)
    low = ix < 0x00800000
    if low.any():                                  # zero or subnormal
        ix = ix.copy()
        sub = low & (ix > 0)                       # normalise, as glibc does
        ix[sub] = (x[sub] * np.float32(2.0**23)).view(np.int32) - (23 << 23)
    tmp = ix - _OFF
    j = (tmp >> 19).astype(np.intp)
    j += _BIAS
    invc_hi, invc_lo, y0, y0_tol = np.take(_table(), j, axis=0).T
    z = (ix - (tmp & -0x800000)).view(np.float32).astype(np.float64)
    r = z * invc_hi
    r -= 1.0
    r += z * invc_lo                               # fma(z, invc, -1), exactly
    r2 = r * r
    y = r * _A1
    y += _A2
    y += _A0 * r2
    y *= r2
    y += y0 + r
    # the three unfused steps each add one rounding of a term no larger than |y0| + |r|
    tol = np.abs(r)
    tol *= 2.0**-47
    tol += y0_tol
    out = _round_or_redo(y, tol, x, logf_scalar)
    if low.any():
        out[x == 0] = -np.inf
    return out


def _round_or_redo(y: np.ndarray, tol, x: np.ndarray, exact) -> np.ndarray:
    """``y`` rounded to float, where ``y - tol`` and ``y + tol`` round alike (the fused result
    lies between them); elsewhere the unfused and fused results may round to different
    floats, so the reference ``exact(x)`` decides."""
    out = (y - tol).astype(np.float32)
    unsure = out != (y + tol).astype(np.float32)
    if unsure.any():
        out[unsure] = [exact(v) for v in x[unsure].tolist()]
    return out


# --- sincosf ----------------------------------------------------------------------------------
# |y| < 0.75: polynomials in y; |y| < 120: y - n*pi/2 with n the nearest quadrant

_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")  # 2/pi scaled by 2^24 (glibc's non-TOINT build)
_HPI = float.fromhex("0x1.921FB54442D18p0")
_HPI_HI = float.fromhex("0x1.921FB54442p0")   # 41 significant bits: n * _HPI_HI is exact (n < 2**12),
_HPI_LO = _HPI - _HPI_HI                      # and so is n * _HPI_LO (_HPI_LO has 9 bits)
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


def _unsigned_polys(y: float) -> tuple[float, float]:
    """The reference's polynomials for ``y`` with the quadrant's signs taken back out."""
    s, c, n = _polys_scalar(y)
    return s * _SIGN[n & 3], -c if n & 2 else c


def sincosf_scalar(y: float) -> tuple[float, float]:
    """glibc's ``sincosf`` of one float with ``|y| < 120`` (the reference)."""
    if (int(np.float32(y).view(np.uint32)) >> 20) & 0x7FF < 0x398:
        return float(np.float32(y)), 1.0
    s, c, n = _polys_scalar(y)
    return (c, s) if n & 1 else (s, c)


def sincosf(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc's ``sincosf`` of an array of floats with ``0 <= y < 120``: ``(sin, cos)``.

    One path for all: below 0.75 glibc skips the reduction, and reducing gives ``n = 0``
    there, which changes nothing; below 2**-12 it returns ``(y, 1)``, which the polynomials
    round to anyway.  Both polynomials are odd/even in ``x``, so the quadrant's signs are
    applied to the rounded floats instead of to ``x`` and the coefficients."""
    y = _f32(y)
    x = y.astype(np.float64)
    n = (x * _HPI_INV).astype(np.int32)
    n += 0x800000
    n >>= 24
    nf = n.astype(np.float64)
    x -= nf * _HPI_HI                         # exact (both steps): y - n*pi/2 with one rounding,
    x -= nf * _HPI_LO                         # as glibc's fused multiply-subtract
    x2 = x * x
    x3, x4 = x2 * x, x2 * x2
    x5, x6 = x3 * x2, x4 * x2
    s = x2 * _S[2]
    s += _S[1]
    s *= x5
    s += x3 * _S[0] + x
    c = x2 * _C[4]
    c += _C[3]
    c *= x6
    c += x4 * _C[2] + (x2 * _C[1] + _C[0])
    # each unfused step adds one rounding of a term below |x| (sine) or 1 (cosine)
    tol = np.abs(x)
    tol *= 2.0**-46
    s = _round_or_redo(s, tol, y, lambda v: _unsigned_polys(v)[0])
    c = _round_or_redo(c, 2.0**-46, y, lambda v: _unsigned_polys(v)[1])
    # odd quadrants swap the two; quadrants 2, 3 negate the sine, 1, 2 the cosine: bit
    # operations on the floats (np.where with a random mask is several times slower)
    s_bits, c_bits = s.view(np.int32), c.view(np.int32)
    swap = s_bits ^ c_bits
    swap &= -(n & 1)
    sin, cos = s_bits ^ swap, c_bits ^ swap
    sin ^= (n & 2) << 30
    cos ^= ((n + 1) & 2) << 30
    return sin.view(np.float32), cos.view(np.float32)




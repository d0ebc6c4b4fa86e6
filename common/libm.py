"""glibc's single-precision ``logf`` and ``sincosf`` (and ``log1pf``, ``expm1f``, at the end),
bit for bit, on numpy arrays.

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

- the *reference* (``logf_reference``, ``sincosf_reference``): glibc's steps, each fused
  step an exact fused multiply-add (:func:`common.fma.fma64`), rounded once;
- the fast form (``logf``, ``sincosf``): the same steps, where every fused step that can be
  made exact cheaply is exact, and the rest are a multiply and an add.  Two roundings
  instead of one move a double by far less than ``tol`` (a bound written next to each); only
  a value that close to the middle between two floats could round to the other float, so
  those few (about one in a million) are recomputed with the reference.

>>> import numpy as np
>>> logf(np.array([0.5, 0.1], np.float32))
array([-0.6931472, -2.3025851], dtype=float32)
"""
from __future__ import annotations

import functools

import numpy as np

from .fma import fma64

__all__ = ["logf", "sincosf", "logf_reference", "sincosf_reference", "log1pf", "expm1f"]


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


def _normalised_bits(x: np.ndarray) -> np.ndarray:
    """The bits of positive floats as int32, subnormals scaled up as glibc does (2**23 times
    the value, the exponent lowered by 23)."""
    ix = x.view(np.int32)
    sub = (ix < 0x00800000) & (ix > 0)
    if sub.any():
        ix = ix.copy()
        ix[sub] = (x[sub] * np.float32(2.0**23)).view(np.int32) - (23 << 23)
    return ix


def _reduce(ix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``x = 2**k * z``: the row ``16 * k + i + BIAS`` of the (k, i) table (``i`` the table
    point nearest ``z``) and ``z`` as a double."""
    tmp = ix - _OFF
    row = (tmp >> 19).astype(np.intp)
    row += _BIAS
    return row, (ix - (tmp & -0x800000)).view(np.float32).astype(np.float64), tmp >> 23


def logf_reference(x: np.ndarray) -> np.ndarray:
    """glibc's ``logf`` of positive or zero floats, step by step, each fused step exact."""
    x = _f32(x)
    row, z, k = _reduce(_normalised_bits(x))
    invc, logc = _INVC[row % 16], _LOGC[row % 16]
    r = fma64(z, invc, -1.0)
    y0 = fma64(k.astype(np.float64), _LN2, logc)
    r2 = r * r
    y = fma64(_A1, r, _A2)
    y = fma64(_A0, r2, y)
    y = fma64(y, r2, y0 + r)
    out = np.atleast_1d(y.astype(np.float32))
    out[np.atleast_1d(x) == 0] = -np.inf
    return out.reshape(x.shape)


_INVC = np.array([c for c, _ in _TAB])
_LOGC = np.array([c for _, c in _TAB])
_BIAS = 16 * 160
"""``(x's bits - OFF) >> 19`` is ``16 * k + i``, ``k`` the exponent (at least -127 for a
normal float) and ``i`` the table point: plus this, an index into tables by (k, i)."""


@functools.cache
def _table() -> np.ndarray:
    """Rows by (k, i), columns: ``invc`` as hi + lo with 29 and 24 significant bits (a float's
    24-bit significand times either is exact, so ``z * hi - 1 + z * lo`` is ``fma(z, invc,
    -1)``), ``y0 = fma(k, ln2, log c)`` (a lookup, so exact), and ``|y0| * 2**-47`` (its share
    of the tolerance of the unfused steps)."""
    k = np.repeat(np.arange(-160, 130, dtype=np.float64), 16)
    invc, logc = np.tile(_INVC, 290), np.tile(_LOGC, 290)
    hi = (invc.view(np.uint64) & np.uint64(0xFFFFFFFFFF000000)).view(np.float64)
    y0 = fma64(k, _LN2, logc)
    return np.stack([hi, invc - hi, y0, np.abs(y0) * 2.0**-47], axis=1)


def logf(x: np.ndarray) -> np.ndarray:
    """glibc's ``logf`` of an array of positive or zero floats (others: undefined)."""
    x = _f32(x)
    row, z, _ = _reduce(_normalised_bits(x))
    invc_hi, invc_lo, y0, y0_tol = np.take(_table(), row, axis=0).T
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
    out = _round_or_redo(y, tol, x, logf_reference)
    out[x == 0] = -np.inf
    return out


def _round_or_redo(y: np.ndarray, tol, x: np.ndarray, exact) -> np.ndarray:
    """``y`` rounded to float, where ``y - tol`` and ``y + tol`` round alike (the fused result
    lies between them); elsewhere the unfused and fused results may round to different
    floats, so the reference ``exact(x)`` decides."""
    out = (y - tol).astype(np.float32)
    unsure = out != (y + tol).astype(np.float32)
    if unsure.any():
        out[unsure] = exact(x[unsure])
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


def _polys_reference(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """glibc's sine and cosine polynomials for floats ``0 <= y < 120``, each fused step
    exact, on the reduced argument without the quadrant's signs: ``(s, c, n)``."""
    x = y.astype(np.float64)
    n = ((x * _HPI_INV).astype(np.int32) + 0x800000) >> 24    # C's (int32_t) truncates to 0
    x = np.where(((y.view(np.uint32) >> 20) & 0x7FF) < 0x3F4, x,
                 fma64(-n.astype(np.float64), _HPI, x))      # below 0.75 glibc does not reduce
    x2 = x * x
    x3, x4 = x2 * x, x2 * x2
    x5, x6 = x2 * x3, x2 * x4
    s = fma64(fma64(x2, _S[2], _S[1]), x5, fma64(x3, _S[0], x))
    c = fma64(fma64(x2, _C[4], _C[3]), x6, fma64(x4, _C[2], fma64(x2, _C[1], _C[0])))
    return s.astype(np.float32), c.astype(np.float32), n


def sincosf_reference(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc's ``sincosf`` of floats ``0 <= y < 120``, step by step (``(y, 1)`` below 2**-12)."""
    y = _f32(y)
    s, c, n = _polys_reference(y)
    s = s * np.where((n & 3) % 3 == 0, np.float32(1), np.float32(-1))    # glibc's sign[n & 3]
    c = c * np.where(n & 2, np.float32(-1), np.float32(1))              # its negated table
    odd = (n & 1).astype(bool)
    sin, cos = np.where(odd, c, s), np.where(odd, s, c)
    tiny = y < np.float32(2.0**-12)
    return np.where(tiny, y, sin), np.where(tiny, np.float32(1), cos)


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
    s = _round_or_redo(s, tol, y, lambda v: _polys_reference(v)[0])
    c = _round_or_redo(c, 2.0**-46, y, lambda v: _polys_reference(v)[1])
    # odd quadrants swap the two; quadrants 2, 3 negate the sine, 1, 2 the cosine: bit
    # operations on the floats (np.where with a random mask is several times slower)
    s_bits, c_bits = s.view(np.int32), c.view(np.int32)
    swap = s_bits ^ c_bits
    swap &= -(n & 1)
    sin, cos = s_bits ^ swap, c_bits ^ swap
    sin ^= (n & 2) << 30
    cos ^= ((n + 1) & 2) << 30
    return sin.view(np.float32), cos.view(np.float32)





# --- log1pf and expm1f: fdlibm's float code, glibc's before 2.41 ------------------------------
# Unlike logf, these are float arithmetic throughout (Sun's fdlibm, converted to float by
# Cygnus): each C ``float`` operation is one numpy float32 operation, rounded the same way,
# and no step is fused in glibc's build.  Both are off by up to ~1 ulp, so rounding the
# float64 answer gives another float for a few percent of arguments.  (glibc 2.41 replaced
# both with correctly rounded CORE-MATH code; a TF on such a system computes those.)

_F = np.float32
_LN2_HI, _LN2_LO = _F(6.9313812256e-01), _F(9.0580006145e-06)
_LP = [_F(v) for v in (6.6666668653e-01, 4.0000000596e-01, 2.8571429849e-01, 2.2222198546e-01,
                       1.8183572590e-01, 1.5313838422e-01, 1.4798198640e-01)]
_Q = [_F(v) for v in (-3.3333335072e-02, 1.5873016091e-03, -7.9365076090e-05, 4.0082177293e-06,
                      -2.0109921195e-07)]


def _float_of_bits(bits: np.ndarray) -> np.ndarray:
    return np.asarray(bits, np.int32).view(np.float32)


def log1pf(x: np.ndarray) -> np.ndarray:
    """glibc's (fdlibm's) ``log1pf`` of an array of floats, bit for bit."""
    x = np.atleast_1d(_f32(x))
    hx = x.view(np.int32)
    ax = hx & 0x7FFFFFFF
    one, half = _F(1), _F(0.5)
    with np.errstate(all="ignore"):
        # k = 0: -0.2929 < x < 0.41422, f = x (hu = 1 stands for "not tiny")
        near = (hx < 0x3ED413D7) & ((hx > 0) | (hx <= np.int32(-0x416A09E1)))
        # otherwise reduce 1 + x = 2**k * (1 + f), with c the rounding error of 1 + x
        big = hx >= 0x5A000000
        u = np.where(big, x, one + x)
        hu = u.view(np.int32)
        k = (hu >> 23) - 127
        c = np.where(big, _F(0), np.where(k > 0, one - (u - x), x - (u - one)) / u)
        hu = hu & 0x007FFFFF
        low = hu < 0x3504F7
        k = np.where(low, k, k + 1)
        u = _float_of_bits(np.where(low, hu | 0x3F800000, hu | 0x3F000000))
        hu = np.where(low, hu, (0x00800000 - hu) >> 2)
        f = u - one
        k = np.where(near, 0, k)
        f = np.where(near, x, f)
        hu = np.where(near, 1, hu)
        c = np.where(near, _F(0), c)
        kf = k.astype(np.float32)
        hfsq = half * f * f
        # |f| < 2**-20 (hu == 0): a short series
        r_small = hfsq * (one - _F(0.66666666666666666) * f)
        tiny_out = np.where(k == 0, f - r_small, kf * _LN2_HI - ((r_small - (kf * _LN2_LO + c)) - f))
        zero_out = np.where(k == 0, _F(0), kf * _LN2_HI + (c + kf * _LN2_LO))
        tiny_out = np.where(f == 0, zero_out, tiny_out)
        s = f / (_F(2) + f)
        z = s * s
        r = _LP[6]
        for coefficient in _LP[5::-1]:
            r = coefficient + z * r
        r = z * r
        out = np.where(k == 0, f - (hfsq - s * (hfsq + r)),
                       kf * _LN2_HI - ((hfsq - (s * (hfsq + r) + (kf * _LN2_LO + c))) - f))
        out = np.where(hu == 0, tiny_out, out)
        # the special arguments
        out = np.where(ax < 0x31000000, np.where(ax < 0x24800000, x, x - x * x * half), out)
        out = np.where(hx >= 0x7F800000, x + x, out)
        out = np.where(x == -1, _F(-np.inf), np.where(x < -1, _F(np.nan), out))
    return out.astype(np.float32)


def expm1f(x: np.ndarray) -> np.ndarray:
    """glibc's (fdlibm's) ``expm1f`` of an array of floats, bit for bit."""
    x = np.atleast_1d(_f32(x))
    bits = x.view(np.int32)
    negative = bits < 0
    hx = bits & 0x7FFFFFFF
    one, half = _F(1), _F(0.5)
    with np.errstate(all="ignore"):
        # argument reduction: x = k ln2 + r, r = hi - lo, c its rounding error
        near = hx < 0x3F851592                                   # |x| < 1.5 ln2: k = +-1
        kn = (_F(1.4426950216e+00) * x + np.where(negative, -half, half)).astype(np.int32)
        k = np.where(near, np.where(negative, -1, 1), kn)
        t = k.astype(np.float32)
        hi = x - t * _LN2_HI                                    # exact
        lo = t * _LN2_LO
        reduced = hi - lo
        c = (hi - reduced) - lo
        reduce = hx > 0x3EB17218                                 # |x| > 0.5 ln2
        k = np.where(reduce, k, 0)
        r = np.where(reduce, reduced, x)
        c = np.where(reduce, c, _F(0))
        hfx = half * r
        hxs = r * hfx
        p = _Q[4]
        for coefficient in _Q[3::-1]:
            p = coefficient + hxs * p
        r1 = one + hxs * p
        t = _F(3) - r1 * hfx
        e = hxs * ((r1 - t) / (_F(6) - r * t))
        out = r - (r * e - hxs)                                  # k == 0
        e = r * (e - c) - c
        e = e - hxs
        minus_one = half * (r - e) - half
        plus_one = np.where(r < _F(-0.25), -_F(2) * (e - (r + half)), one + _F(2) * (r - e))
        shift = (np.clip(k, -200, 200) << 23).astype(np.int32)
        far = _float_of_bits((one - (e - r)).view(np.int32) + shift) - one
        kk = np.clip(k, 0, 22)
        t_mid = _float_of_bits(0x3F800000 - (0x1000000 >> kk))
        mid = _float_of_bits((t_mid - (e - r)).view(np.int32) + shift)
        t_high = _float_of_bits((0x7F - np.clip(k, 23, 56)) << 23)
        high = _float_of_bits(((r - (e + t_high)) + one).view(np.int32) + shift)
        out = np.select([k == 0, k == -1, k == 1, (k <= -2) | (k > 56), k < 23],
                        [out, minus_one, plus_one, far, mid], high)
        # the special arguments
        out = np.where(hx < 0x33000000, x, out)                  # |x| < 2**-25: x
        out = np.where((hx >= 0x4195B844) & negative, _F(-1), out)
        out = np.where(hx >= 0x42B17218, np.where(x > _F(8.8721679688e+01), _F(np.inf), out), out)
        out = np.where(np.isinf(x), np.where(negative, _F(-1), x), out)
        out = np.where(np.isnan(x), x + x, out)
    return out.astype(np.float32)

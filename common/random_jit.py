"""The random streams' inner loops compiled with numba: the same bits as the numpy code, faster.

Drawing PyTorch's or TensorFlow's exact stream on numpy means many passes over temporaries:
the AVX2 polynomials of ``dyngraph.avx_mathfun`` are some two hundred numpy calls, Philox's
ten rounds forty, glibc's ``logf``/``sincosf`` emulation a dozen more.  Each kernel here is
one loop doing per value what those passes do per array -- the same float operations in the
same order, in the same precision, so the same bits:

- no ``fastmath`` (numba's default): LLVM neither reassociates nor contracts ``a * b + c``
  into an FMA on its own;
- where the original *does* fuse (GCC's FMA in PyTorch's and glibc's builds), :func:`fma`
  is LLVM's ``llvm.fma`` intrinsic: rounded once, always -- one ``vfmadd`` on a CPU with FMA,
  glibc's exact ``fma()`` on one without.  That is the *checked* ``common.fma``, which the
  numpy code's unchecked shortcuts equal on the inputs they get (tested there);
- float32 work stays float32: every constant is a ``np.float32`` and every product of two
  float32 values is one (numba would widen a float32 times a Python float to float64);
- integer work is in int64 on values below 2**32 (numba turns uint64 mixed with int64 into
  float64), masked back to 32 bits where a shift could carry past them;
- float64 ``log``/``sin``/``cos`` are libm's (LLVM calls the C library), as PyTorch and TF
  call glibc's; the loader (:mod:`common.fastpath`) keeps numba from swapping in Intel's SVML.

Nothing here is called directly: :func:`common.fastpath.kernels` imports this module (and so
numba) only when a draw is big enough to repay it, and returns ``None`` where numba is not
installed -- then the numpy code runs, with the same bits (tests run both against the
recorded streams).  ``cache=True`` keeps the machine code between processes.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .libm import _INVC, _LOGC   # glibc logf's table: 1/c and log(c) at 16 points

__all__ = ["mt_words", "mt_words64", "mt_uniform32", "mt_uniform64", "mt_mantissas53_below", "mt_randperm",
           "normal_fill_f32", "normal_fill_f64", "mt_normal32", "mt_normal64", "philox_words", "box_muller_float",
           "box_muller_double", "philox_draw32", "philox_draw64", "philox_truncated32",
           "philox_truncated64"]

_jit = njit(cache=True, nogil=True)
_inline = njit(inline="always")
"""For the per-value helpers: inlined into the loops that call them (numba's IR inlining), so
LLVM sees one loop body it can keep in registers and vectorise.  Helpers called once per
chunk are plain ``_jit`` functions: compiled (and cached) once, linked into each caller."""

# --- scalar building blocks ---------------------------------------------------------------------


@intrinsic
def fma(typingctx, a, b, c):
    """``a * b + c`` rounded once (all three the same float type)."""
    def codegen(context, builder, signature, args):
        ty = args[0].type
        fn = builder.module.declare_intrinsic("llvm.fma", [ty], ir.FunctionType(ty, [ty] * 3))
        return builder.call(fn, args)
    return a(a, a, a), codegen


@intrinsic
def f32_bits(typingctx, x):
    """The bits of a float32, as a uint32 (a reinterpretation, not a conversion)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return types.uint32(types.float32), codegen


@intrinsic
def bits_f32(typingctx, x):
    """The float32 whose bits are the uint32 ``x``."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.uint32), codegen


@intrinsic
def bits_f64(typingctx, x):
    """The float64 whose bits are the uint64 ``x``."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.uint64), codegen


@_inline
def _as_f32(bits: int) -> np.float32:
    """The float32 of the low 32 bits of an int64."""
    return bits_f32(np.uint32(bits & 0xFFFFFFFF))


# --- MT19937 (PyTorch's CPU generator; numpy's MT19937 runs the same recurrence) ----------------

_N, _M = 624, 397


@_inline
def _twist(key) -> None:
    """The next 624 state words, in place (``next_state``), in three runs with no modulo."""
    for k in range(_N - _M):
        y = (np.int64(key[k]) & 0x80000000) | (np.int64(key[k + 1]) & 0x7FFFFFFF)
        key[k] = np.int64(key[k + _M]) ^ (y >> 1) ^ (0x9908B0DF * (y & 1))
    for k in range(_N - _M, _N - 1):
        y = (np.int64(key[k]) & 0x80000000) | (np.int64(key[k + 1]) & 0x7FFFFFFF)
        key[k] = np.int64(key[k + _M - _N]) ^ (y >> 1) ^ (0x9908B0DF * (y & 1))
    y = (np.int64(key[_N - 1]) & 0x80000000) | (np.int64(key[0]) & 0x7FFFFFFF)
    key[_N - 1] = np.int64(key[_M - 1]) ^ (y >> 1) ^ (0x9908B0DF * (y & 1))


@_jit
def _fill(key, pos, out) -> None:
    """``out`` (any integer dtype) filled with the next tempered words; ``pos[0]`` is the
    index of the next key word to temper, 624: twist first.  A run of the block at a time,
    so the tempering loop has no branch."""
    i, p, n = 0, pos[0], out.size
    while i < n:
        if p >= _N:
            _twist(key)
            p = 0
        m = min(_N - p, n - i)
        for t in range(m):
            y = np.int64(key[p + t])
            y ^= y >> 11
            y ^= (y << 7) & 0x9D2C5680
            y ^= (y << 15) & 0xEFC60000
            out[i + t] = y ^ (y >> 18)
        i += m
        p += m
    pos[0] = p


_CHUNK = 4096
"""Words per round of the fused kernels: drawn into a buffer, then transformed."""


@_jit
def mt_words(key, pos, out) -> None:
    """``out`` (uint64) filled with the next words of the stream."""
    _fill(key, pos, out)


@_jit
def mt_words64(key, pos, out) -> None:
    """``out`` (uint64) filled with 64-bit draws, the first word of each on top."""
    w = np.empty(_CHUNK, np.uint64)
    for s in range(0, out.size, _CHUNK // 2):
        m = min(_CHUNK // 2, out.size - s)
        _fill(key, pos, w[:2 * m])
        for t in range(m):
            out[s + t] = (w[2 * t] << np.uint64(32)) | w[2 * t + 1]


@_jit
def mt_uniform32(key, pos, out) -> None:
    """float32 standard uniforms, ``(w & (2**24 - 1)) * 2**-24`` from one word each."""
    w = np.empty(_CHUNK, np.int64)
    for s in range(0, out.size, _CHUNK):
        m = min(_CHUNK, out.size - s)
        _fill(key, pos, w[:m])
        for t in range(m):
            out[s + t] = np.float32(w[t] & 0xFFFFFF) * np.float32(2.0 ** -24)


@_jit
def _mantissas53(key, pos, w, m) -> None:
    """``w[:m]`` = the low 53 bits of the next ``m`` 64-bit draws (``(hi << 32 | lo) &
    (2**53 - 1)``), int64; ``w`` holds ``2 * m``."""
    _fill(key, pos, w[:2 * m])
    for t in range(m):
        w[t] = ((w[2 * t] & 0x1FFFFF) << 32) | w[2 * t + 1]


@_jit
def mt_uniform64(key, pos, out) -> None:
    """float64 standard uniforms, ``k * 2**-53`` from the low 53 bits ``k`` of a 64-bit draw."""
    w = np.empty(_CHUNK, np.int64)
    for s in range(0, out.size, _CHUNK // 2):
        m = min(_CHUNK // 2, out.size - s)
        _mantissas53(key, pos, w, m)
        for t in range(m):
            out[s + t] = np.float64(w[t]) * 2.0 ** -53


@_jit
def mt_mantissas53_below(key, pos, threshold, out) -> None:
    """``out[i] = k < threshold`` for the 53-bit integer ``k`` of a float64 uniform ``k * 2**-53``
    (``bernoulli_(p)``: ``u < p``)."""
    w = np.empty(_CHUNK, np.int64)
    for s in range(0, out.size, _CHUNK // 2):
        m = min(_CHUNK // 2, out.size - s)
        _mantissas53(key, pos, w, m)
        for t in range(m):
            out[s + t] = w[t] < threshold


@_jit
def mt_randperm(key, pos, n):
    """``randperm(n)`` for ``2 <= n < 2**32 / 20``: swap position i with ``i + word % (n - i)``."""
    w = np.empty(n - 1, np.int64)
    _fill(key, pos, w)
    a = np.arange(n)
    for i in range(n - 1):
        j = i + w[i] % (n - i)
        a[i], a[j] = a[j], a[i]
    return a


# --- PyTorch's normal_fill_16_AVX2 (ATen/native/cpu/avx_mathfun.h), one lane at a time -------

_F1, _FHALF = np.float32(1.0), np.float32(0.5)
_SQRTHF_BITS = int(np.float32(0.707106781186547524).view(np.uint32))
_HALF_BITS = int(_FHALF.view(np.uint32))
_LOG_P = tuple(np.float32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                                       -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                                       2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1))
_LOG_Q1, _LOG_Q2 = np.float32(-2.12194440e-4), np.float32(0.693359375)
_DP1, _DP2, _DP3 = (np.float32(v) for v in (-0.78515625, -2.4187564849853515625e-4,
                                             -3.77489497744594108e-8))
_SIN_P = tuple(np.float32(v) for v in (-1.9515295891E-4, 8.3321608736E-3, -1.6666654611E-1))
_COS_P = tuple(np.float32(v) for v in (2.443315711809948E-005, -1.388731625493765E-003,
                                       4.166664568298827E-002))
_FOPI = np.float32(1.27323954473516)
_TWO_PI_F32 = np.float32(2.0 * math.pi)
_SIGN = 0x80000000


@_inline
def _sqrt32(x):
    """The float32 square root, as the float64 one rounded: exact (53 >= 2 * 24 + 2 bits), and
    LLVM's ``sqrt`` instruction rather than a call to libm's ``sqrtf``."""
    return np.float32(math.sqrt(np.float64(x)))


@_inline
def _log256(x):
    """``log256_ps`` of one positive normal float32 (``dyngraph.avx_mathfun.log256_ps``)."""
    bits = np.int64(f32_bits(x))
    m = (bits & 0x807FFFFF) | _HALF_BITS          # x's mantissa with 0.5's exponent
    below = m < _SQRTHF_BITS                      # then e -= 1 and x = x + x - 1
    e = np.float32((bits >> 23) - 126 - below)
    xm = _as_f32(m)
    x = (xm - _F1) + (xm if below else np.float32(0.0))
    z = x * x
    y = _LOG_P[0]
    for c in _LOG_P[1:]:
        y = fma(y, x, c)
    y = y * x
    y = fma(y, z, e * _LOG_Q1)
    y = y - z * _FHALF
    return (x + y) + e * _LOG_Q2


@_inline
def _sincos256(x):
    """``sincos256_ps`` of one float32 ``0 <= x < 8192`` (``avx_mathfun.sincos256_ps``)."""
    j = np.int64(np.int32(x * _FOPI))             # x >= 0: truncation
    j = (j + 1) & ~1
    y = np.float32(j)
    sin_sign = (j << 29) & _SIGN                  # j & 4
    cos_sign = ~((j - 2) << 29) & _SIGN           # ~(j - 2) & 4
    x = (x + y * _DP1) + y * _DP2
    x = fma(y, _DP3, x)
    z = x * x
    ps, pc = _SIN_P[0], _COS_P[0]
    for k in range(1, 3):
        ps = fma(ps, z, _SIN_P[k])
        pc = fma(pc, z, _COS_P[k])
    ps, pc = ps * z, pc * z
    ys = fma(ps, x, x)
    yc = fma(pc, z, z * -_FHALF) + _F1
    if j & 2:
        ys, yc = yc, ys
    return (_as_f32(np.int64(f32_bits(ys)) ^ sin_sign),
            _as_f32(np.int64(f32_bits(yc)) ^ cos_sign))


@_jit
def normal_fill_f32(u, mean, std, out) -> None:
    """``normal_fill_16_AVX2`` over whole blocks: per 16 uniforms, the first 8 give radii
    ``sqrt(-2 log(1 - u))``, the last 8 angles ``2 pi u``; ``out`` takes cosines then sines,
    then ``fma(value, std, mean)`` unless (0, 1).  A chunk of blocks at a time, each step a
    plain loop over contiguous values, which LLVM runs eight lanes wide (as the kernel)."""
    scale = not (mean == np.float32(0.0) and std == np.float32(1.0))
    half = _CHUNK // 2
    radius, sin, cos = np.empty(half, np.float32), np.empty(half, np.float32), np.empty(half, np.float32)
    for start in range(0, u.size - 15, _CHUNK):
        m = min(_CHUNK, (u.size - start) // 16 * 16) // 2      # values of each kind
        for k in range(m):                                     # the blocks' halves, apart
            radius[k] = u[start + (k >> 3) * 16 + (k & 7)]
            sin[k] = u[start + (k >> 3) * 16 + 8 + (k & 7)]
        for k in range(m):
            radius[k] = _sqrt32(np.float32(-2.0) * _log256(_F1 - radius[k]))
        for k in range(m):
            sin[k], cos[k] = _sincos256(_TWO_PI_F32 * sin[k])
        for k in range(m):
            lo, hi = radius[k] * cos[k], radius[k] * sin[k]
            if scale:
                lo, hi = fma(lo, std, mean), fma(hi, std, mean)
            out[start + (k >> 3) * 16 + (k & 7)] = lo
            out[start + (k >> 3) * 16 + 8 + (k & 7)] = hi


@_jit
def normal_fill_f64(u, mean, std, out) -> None:
    """``normal_fill_16<double>``: the same blocks in float64, with libm's log, cos and sin."""
    scale = not (mean == 0.0 and std == 1.0)
    for b in range(0, u.size - 15, 16):
        for lane in range(8):
            radius = math.sqrt(-2.0 * math.log(1.0 - u[b + lane]))
            theta = (2.0 * math.pi) * u[b + 8 + lane]
            lo, hi = radius * math.cos(theta), radius * math.sin(theta)
            if scale:
                lo, hi = fma(lo, std, mean), fma(hi, std, mean)
            out[b + lane], out[b + 8 + lane] = lo, hi


@_jit
def mt_normal32(key, pos, mean, std, out) -> None:
    """``normal_(mean, std)`` of 16 or more contiguous float32 (``normal_fill``): a uniform per
    value, Box-Muller per block of 16 in place; a tail short of 16 redone from 16 fresh
    uniforms over the last 16 values.  ``mean``, ``std``: Python floats, rounded to float32 here
    (a float32 argument costs a microsecond to make)."""
    n, mean, std = out.size, np.float32(mean), np.float32(std)
    mt_uniform32(key, pos, out)
    normal_fill_f32(out, mean, std, out)
    if n % 16:
        tail = np.empty(16, np.float32)
        mt_uniform32(key, pos, tail)
        normal_fill_f32(tail, mean, std, out[n - 16:])


@_jit
def mt_normal64(key, pos, mean, std, out) -> None:
    """:func:`mt_normal32` in float64 (``normal_fill_16<double>``, libm's log, cos and sin)."""
    n = out.size
    mt_uniform64(key, pos, out)
    normal_fill_f64(out, mean, std, out)
    if n % 16:
        tail = np.empty(16)
        mt_uniform64(key, pos, tail)
        normal_fill_f64(tail, mean, std, out[n - 16:])


# --- Philox4x32-10 (TensorFlow's generator) -----------------------------------------------------

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_LO32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@_inline
def _philox(k0, k1, counter_lo, counter_hi, offset):
    """Philox4x32-10 of the block at counter ``(counter_hi << 64) + counter_lo + offset``, key
    ``(k0, k1)`` (uint64 arguments): its four words, as uint64."""
    low = counter_lo + offset                          # wraps mod 2**64, as the counter does
    high = counter_hi + np.uint64(low < counter_lo)
    c0, c1 = low & _LO32, low >> _S32
    c2, c3 = high & _LO32, high >> _S32
    a, b = k0, k1
    for _ in range(10):
        p0, p1 = c0 * _M0, c2 * _M1
        c0, c1, c2, c3 = ((p1 >> _S32) ^ c1 ^ a), p1 & _LO32, ((p0 >> _S32) ^ c3 ^ b), p0 & _LO32
        a, b = (a + _W0) & _LO32, (b + _W1) & _LO32
    return c0, c1, c2, c3


@_jit
def philox_words(k0, k1, counter_lo, counter_hi, offsets, out) -> None:
    """``out[:, i]`` (4 uint32): the block at ``offsets[i]`` (see :func:`_philox`)."""
    for i in range(offsets.size):
        out[0, i], out[1, i], out[2, i], out[3, i] = _philox(k0, k1, counter_lo, counter_hi,
                                                              offsets[i])


# glibc's logf and sincosf (common.libm's reference forms, every fused step one llvm.fma)

_OFF = 0x3F330000
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_A0, _A1, _A2 = (float.fromhex(h) for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2",
                                             "-0x1.ffffef20a4123p-2"))
_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")
_HPI = float.fromhex("0x1.921FB54442D18p0")
_C = tuple(float.fromhex(h) for h in ("0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5",
                                      "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16"))
_S = tuple(float.fromhex(h) for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7",
                                      "-0x1.994eb3774cf24p-13"))


@_inline
def _glibc_logf(x):
    """glibc's ``logf`` of a positive normal float32 (``e_logf.c``)."""
    ix = np.int64(f32_bits(x))
    tmp = ix - _OFF
    i = (tmp >> 19) & 15
    k = tmp >> 23
    z = np.float64(_as_f32(ix - (tmp & -0x800000)))
    r = fma(z, _INVC[i], -1.0)
    y0 = fma(np.float64(k), _LN2, _LOGC[i])
    r2 = r * r
    y = fma(_A1, r, _A2)
    y = fma(_A0, r2, y)
    return np.float32(fma(y, r2, y0 + r))


@_inline
def _glibc_sincosf(y):
    """glibc's ``sincosf`` of a float32 ``0 <= y < 120`` (``s_sincosf.c``): ``(sin, cos)``."""
    if y < np.float32(2.0 ** -12):
        return y, _F1
    x = np.float64(y)
    n = (np.int64(np.int32(x * _HPI_INV)) + 0x800000) >> 24
    if ((np.int64(f32_bits(y)) >> 20) & 0x7FF) >= 0x3F4:     # from 0.75 on: reduce
        x = fma(-np.float64(n), _HPI, x)
    x2 = x * x
    x3, x4 = x2 * x, x2 * x2
    x5, x6 = x2 * x3, x2 * x4
    s = np.float32(fma(fma(x2, _S[2], _S[1]), x5, fma(x3, _S[0], x)))
    c = np.float32(fma(fma(x2, _C[4], _C[3]), x6, fma(x4, _C[2], fma(x2, _C[1], _C[0]))))
    if (n & 3) % 3 != 0:                          # glibc's sign[n & 3]
        s = -s
    if n & 2:
        c = -c
    return (c, s) if n & 1 else (s, c)


@_inline
def _uint32_to_float(x):
    """TF's ``Uint32ToFloat``: ``(x & 0x7fffff | 0x3f800000)`` as a float, minus 1."""
    return _as_f32((np.int64(x) & 0x7FFFFF) | 0x3F800000) - _F1


@_inline
def _uint64_to_double(x0, x1):
    """TF's ``Uint64ToDouble``: 20 bits of ``x0`` and all of ``x1`` as the mantissa, minus 1."""
    return bits_f64(np.uint64(((np.int64(x0) & 0xFFFFF) << 32) | np.int64(x1) | (1023 << 52))) - 1.0


@_inline
def _box_muller32(x0, x1):
    """TF's ``BoxMullerFloat`` of two uint32 (glibc's float math): ``(sin, cos)`` times the radius."""
    u1 = max(_uint32_to_float(x0), np.float32(1e-7))
    v1 = np.float32(2.0 * math.pi * np.float64(_uint32_to_float(x1)))
    radius = _sqrt32(np.float32(-2.0) * _glibc_logf(u1))
    s, c = _glibc_sincosf(v1)
    return s * radius, c * radius


@_inline
def _box_muller64(x0, x1, x2, x3):
    """TF's ``BoxMullerDouble`` of four uint32 (libm's double math)."""
    u1 = max(_uint64_to_double(x0, x1), 1e-7)
    v1 = 2.0 * math.pi * _uint64_to_double(x2, x3)
    radius = math.sqrt(-2.0 * math.log(u1))
    return math.sin(v1) * radius, math.cos(v1) * radius


@_jit
def box_muller_float(x0, x1, sin_out, cos_out) -> None:
    """:func:`_box_muller32` per pair ``(x0[i], x1[i])``."""
    for i in range(x0.size):
        sin_out[i], cos_out[i] = _box_muller32(x0[i], x1[i])


@_jit
def box_muller_double(x0, x1, x2, x3, sin_out, cos_out) -> None:
    """:func:`_box_muller64` per four ``(x0[i], x1[i], x2[i], x3[i])``."""
    for i in range(x0.size):
        sin_out[i], cos_out[i] = _box_muller64(x0[i], x1[i], x2[i], x3[i])


# TF's conversions fused with the generator: a chunk of blocks at a time, first all their words
# (a plain loop LLVM runs four blocks wide), then each conversion as a plain loop over them

_BLOCKS = 1024
"""Blocks per chunk: their words and values stay in the CPU's first-level cache."""


@_jit
def _philox_run(k0, k1, counter_lo, counter_hi, first, stride, w, m) -> None:
    """``w[:, b]`` = the words of the block at offset ``first + b * stride``, for ``b < m``."""
    for b in range(m):
        w[0, b], w[1, b], w[2, b], w[3, b] = _philox(k0, k1, counter_lo, counter_hi,
                                                      first + np.uint64(b) * stride)


@_inline
def _uniforms32_run(w, m, v) -> None:
    """``v[b]``: the four float uniforms of block ``b``, for ``b < m``."""
    for b in range(m):
        for j in range(4):
            v[b, j] = _uint32_to_float(w[j, b])


@_inline
def _uniforms64_run(w, m, v) -> None:
    """``v[b]``: the two double uniforms of block ``b``, for ``b < m``."""
    for b in range(m):
        v[b, 0], v[b, 1] = _uint64_to_double(w[0, b], w[1, b]), _uint64_to_double(w[2, b], w[3, b])


@_inline
def _normals32_run(w, m, v) -> None:
    """``v[b]``: the four float normals of block ``b`` in TF's order, (sin, cos) of each
    pair of words, for ``b < m``; one plain loop per pair."""
    for b in range(m):
        v[b, 0], v[b, 1] = _box_muller32(w[0, b], w[1, b])
    for b in range(m):
        v[b, 2], v[b, 3] = _box_muller32(w[2, b], w[3, b])


@_inline
def _normals64_run(w, m, v) -> None:
    """``v[b]``: the two double normals (sin, cos) of block ``b``, for ``b < m``."""
    for b in range(m):
        v[b, 0], v[b, 1] = _box_muller64(w[0, b], w[1, b], w[2, b], w[3, b])


@_jit
def _emit(v, m, start, out) -> None:
    """The values of blocks ``start .. start + m`` (``v[b]``: block b's, in order) into
    ``out``, up to its end."""
    width = v.shape[1]
    values = v.reshape(-1)
    for i in range(min(width * m, out.size - width * start)):
        out[width * start + i] = values[i]


@_jit
def philox_draw32(k0, k1, counter_lo, counter_hi, normal, out) -> None:
    """float32 uniforms (``UniformDistribution<float>``) or standard normals
    (``NormalDistribution<float>``), four per block from the counter on."""
    w, v = np.empty((4, _BLOCKS), np.uint32), np.empty((_BLOCKS, 4), np.float32)
    for start in range(0, (out.size + 3) // 4, _BLOCKS):
        m = min(_BLOCKS, (out.size + 3) // 4 - start)
        _philox_run(k0, k1, counter_lo, counter_hi, np.uint64(start), np.uint64(1), w, m)
        if normal:
            _normals32_run(w, m, v)
        else:
            _uniforms32_run(w, m, v)
        _emit(v, m, start, out)


@_jit
def philox_draw64(k0, k1, counter_lo, counter_hi, normal, out) -> None:
    """:func:`philox_draw32` for doubles: two per block."""
    w, v = np.empty((4, _BLOCKS), np.uint32), np.empty((_BLOCKS, 2))
    for start in range(0, (out.size + 1) // 2, _BLOCKS):
        m = min(_BLOCKS, (out.size + 1) // 2 - start)
        _philox_run(k0, k1, counter_lo, counter_hi, np.uint64(start), np.uint64(1), w, m)
        if normal:
            _normals64_run(w, m, v)
        else:
            _uniforms64_run(w, m, v)
        _emit(v, m, start, out)


@_jit
def _block_normals32(k0, k1, counter_lo, counter_hi, block, values) -> None:
    """``values``: the four float normals of one block (a truncated normal's further draws)."""
    c0, c1, c2, c3 = _philox(k0, k1, counter_lo, counter_hi, block)
    values[0], values[1] = _box_muller32(c0, c1)
    values[2], values[3] = _box_muller32(c2, c3)


@_jit
def _block_normals64(k0, k1, counter_lo, counter_hi, block, values) -> None:
    """``values``: the two double normals of one block."""
    c0, c1, c2, c3 = _philox(k0, k1, counter_lo, counter_hi, block)
    values[0], values[1] = _box_muller64(c0, c1, c2, c3)


@_jit
def _accept(values, group, filled, out) -> int:
    """Output group ``group`` takes ``values``' normals below 2 in size, in order, until it has
    ``len(values)``; returns how many it has."""
    width = values.size
    for x in values:
        if filled < width and abs(x) < 2.0:
            if width * group + filled < out.size:
                out[width * group + filled] = x
            filled += 1
    return filled


@_jit
def philox_truncated32(k0, k1, counter_lo, counter_hi, out) -> None:
    """float32 normals below 2 in size: group g of 4 outputs reads blocks ``256 g``, ``256 g +
    1``, ... and keeps their normals in order until it has 4 (``TruncatedNormalDistribution``).
    Each group's first block is drawn with the chunk's; the one group in six it leaves short
    draws on by itself."""
    w, v = np.empty((4, _BLOCKS), np.uint32), np.empty((_BLOCKS, 4), np.float32)
    more = np.empty(4, np.float32)
    for start in range(0, (out.size + 3) // 4, _BLOCKS):
        m = min(_BLOCKS, (out.size + 3) // 4 - start)
        _philox_run(k0, k1, counter_lo, counter_hi, np.uint64(256 * start), np.uint64(256), w, m)
        _normals32_run(w, m, v)
        for b in range(m):
            filled, block = _accept(v[b], start + b, 0, out), np.uint64(256 * (start + b))
            while filled < 4:
                block += np.uint64(1)
                _block_normals32(k0, k1, counter_lo, counter_hi, block, more)
                filled = _accept(more, start + b, filled, out)


@_jit
def philox_truncated64(k0, k1, counter_lo, counter_hi, out) -> None:
    """:func:`philox_truncated32` for doubles: groups of 2 outputs, from blocks ``128 g`` on."""
    w, v = np.empty((4, _BLOCKS), np.uint32), np.empty((_BLOCKS, 2))
    more = np.empty(2)
    for start in range(0, (out.size + 1) // 2, _BLOCKS):
        m = min(_BLOCKS, (out.size + 1) // 2 - start)
        _philox_run(k0, k1, counter_lo, counter_hi, np.uint64(128 * start), np.uint64(128), w, m)
        _normals64_run(w, m, v)
        for b in range(m):
            filled, block = _accept(v[b], start + b, 0, out), np.uint64(128 * (start + b))
            while filled < 2:
                block += np.uint64(1)
                _block_normals64(k0, k1, counter_lo, counter_hi, block, more)
                filled = _accept(more, start + b, filled, out)

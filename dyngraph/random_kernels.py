"""PyTorch's CPU sampling kernels on numpy: the same words of the same stream, the same arithmetic.

Each function here is one ATen CPU kernel (``DistributionTemplates.h``,
``DistributionsHelper.h``, ``TransformationHelper.h``, ``TensorFactories.cpp``,
``MultinomialKernel.cpp``, ``Distributions.cpp`` of PyTorch 2.13), vectorised: it asks the
generator's Mersenne Twister for all the words it needs at once and transforms them
with numpy, so ``torch.manual_seed(s)`` followed by any sequence of calls yields
PyTorch's bits.  What each kernel reads from the stream::

    uniform float32/float16  one word per value:   (w & (2**24 - 1)) * 2**-24, then fma
    uniform float64          two words per value:  (w64 & (2**53 - 1)) * 2**-53, then fma
    normal, n >= 16          one uniform per value, then Box-Muller on blocks of 16
                             (float32: the AVX2 polynomials of avx_mathfun.py); if n is not
                             a multiple of 16, 16 fresh uniforms redo the last 16 values
    normal, n < 16           float64 uniforms in pairs; each pair gives two normals and
                             the second waits in the generator for the next draw
    integers in [a, b)       one word per value (two if b - a >= 2**28): w % (b - a) + a
    bernoulli_(p), exponential_, geometric_, cauchy_   a float64 uniform per value
    randperm(n)              n - 1 words, w % (n - i) swaps position i with i + that

``gen`` below is a ``dyngraph.Generator``: ``words(n)``/``words64(n)`` of its engine
(``common.mt19937.MT19937``), the engine itself (``gen.engine``) and a ``next_normal`` slot
(the cached second normal).  Where GCC fused a multiply and an add into one FMA in
PyTorch's build, the kernel does too (``common.fma``).  The uniform, normal, Bernoulli and
randperm loops also have compiled forms (:mod:`common.random_jit`, the same bits), used
once :func:`common.fastpath.kernels` has them.
"""
from __future__ import annotations

import math

import numpy as np

from common.fma import fma32, fma64
from common import libm64
from common.fastpath import kernels

from .avx_mathfun import log256_ps, sincos256_ps

__all__ = ["uniform", "normal", "normal_pairs", "random_from_to", "random_full", "bernoulli_scalar",
           "bernoulli_tensor", "exponential", "geometric", "cauchy", "log_normal", "randperm",
           "multinomial", "poisson", "standard_uniform"]

_MASK24 = np.uint64((1 << 24) - 1)
_MASK53 = np.uint64((1 << 53) - 1)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_RANDOM64_RANGE = 1 << 28
"""``random_(from, to)`` reads two words per value from this range on (public builds:
``range >= 1 << 28``, 'allow approx 5% skew in uniform int generation using %')."""


def _mod(w: np.ndarray, span: int) -> np.ndarray:
    """``w % span`` for uint64 words, as ``w - span * (w // span)``: numpy divides by a
    constant with libdivide, but takes the remainder the slow way."""
    span = np.uint64(span)
    q = w // span
    q *= span
    return np.subtract(w, q, out=q)


def _mantissas(gen, n: int, dtype: np.dtype) -> tuple[np.ndarray, int]:
    """The integers ``k`` behind ``n`` uniforms ``k * 2**-bits``: 53 bits of a 64-bit draw
    for float64, 24 bits of one word otherwise."""
    k, bits, mask = (gen.words64(n), 53, _MASK53) if dtype == _F64 else (gen.words(n), 24, _MASK24)
    return np.bitwise_and(k, mask, out=k), bits


def standard_uniform(gen, n: int, dtype: np.dtype) -> np.ndarray:
    """``uniform_real_distribution<T>(0, 1)``: float64 from 53 bits of a 64-bit draw,
    float32 from 24 bits of one word."""
    fast = kernels(n)
    if fast is not None:
        u = np.empty(n, dtype)
        (fast.mt_uniform64 if dtype == _F64 else fast.mt_uniform32)(*gen.engine.arrays(), u)
        return u
    k, bits = _mantissas(gen, n, dtype)
    u = k.astype(dtype)
    u *= dtype.type(2.0 ** -bits)
    return u


def uniform(gen, n: int, dtype: np.dtype, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """``uniform_(low, high)``: ``u * (high - low) + low`` rounded once (GCC's FMA), in
    float64 or else float32 (float16 too, then rounded to it); a value that rounds to
    ``high`` in the dtype becomes ``low``, keeping [low, high) half-open.

    ``u * span + low`` is ``k * 2**-bits * span + low``; for the usual bounds it needs no
    FMA emulation: ``low == 0`` is one product, and ``low == -high`` (``low = -span / 2``)
    is ``(k - 2**(bits-1)) * (span * 2**-bits)``, also one exact product rounded once."""
    if low == 0.0 and high == 1.0 and dtype in (_F32, _F64):
        return standard_uniform(gen, n, dtype)
    work = _F64 if dtype == _F64 else _F32
    k, bits = _mantissas(gen, n, work)
    lo, span = work.type(low), work.type(high) - work.type(low)
    scale = work.type(2.0 ** -bits)
    if lo == 0 or lo == -(span / 2):   # here the product stays below span: no value is high
        k = k.view(np.int64)
        if lo:
            k -= 1 << bits - 1
        out = k.astype(work)
        out *= span * scale
        might_reach_high = dtype != work
    else:
        out = k.astype(work)
        out *= scale
        out = (fma64 if work == _F64 else fma32)(out, span, lo)
        might_reach_high = True
    out = out.astype(dtype, copy=False)
    if might_reach_high:
        out[out == dtype.type(high)] = dtype.type(low)
    return out


# --- normal ----------------------------------------------------------------------------------


def normal_pairs(gen, n: int) -> np.ndarray:
    """``n`` float64 standard normals from ``normal_distribution<double>``: each new pair
    reads two float64 uniforms ``u1, u2`` and gives ``r cos t`` now and ``r sin t`` later
    (``r = sqrt(-2 log1p(-u2))``, ``t = 2 pi u1``); the generator keeps the one left over."""
    out = np.empty(n)
    k = 0
    if n and gen.next_normal is not None:
        out[0], gen.next_normal, k = gen.next_normal, None, 1
    pairs = (n - k + 1) // 2
    if pairs:
        u = standard_uniform(gen, 2 * pairs, _F64)
        r = np.sqrt(-2.0 * libm64.log1p(-u[1::2]))
        theta = (2.0 * math.pi) * u[0::2]
        both = np.empty(2 * pairs)
        both[0::2], both[1::2] = r * libm64.cos(theta), r * libm64.sin(theta)
        out[k:] = both[:n - k]
        if (n - k) % 2:
            gen.next_normal = float(both[-1])
    return out


_CHUNK = 1 << 16
"""Values transformed per round of numpy calls in ``normal_fill``: the float32 polynomials
are some two hundred calls, so a round should be long, and its temporaries (a few hundred
KB each) short enough to be reused rather than mapped afresh."""


def _box_muller_16(u: np.ndarray, mean, std, dtype: np.dtype) -> np.ndarray:
    """``normal_fill_16``: in each block of 16 uniforms, the first 8 give the radii
    (``sqrt(-2 log(1 - u))``) and the last 8 the angles; cosines fill the first half."""
    fast = kernels(len(u))
    if fast is not None:
        out = np.empty_like(u)
        if dtype == _F32:
            fast.normal_fill_f32(u, np.float32(mean), np.float32(std), out)
        else:
            fast.normal_fill_f64(u, float(mean), float(std), out)
        return out
    if len(u) > _CHUNK:
        return np.concatenate([_box_muller_16(u[i:i + _CHUNK], mean, std, dtype)
                               for i in range(0, len(u), _CHUNK)])
    blocks = u.reshape(-1, 2, 8)
    out = np.empty_like(blocks)
    if dtype == _F32:   # normal_fill_16_AVX2
        radius = np.sqrt(np.float32(-2.0) * log256_ps(np.float32(1.0) - blocks[:, 0]))
        sin, cos = sincos256_ps(np.float32(2.0 * math.pi) * blocks[:, 1])
        np.multiply(radius, cos, out=out[:, 0])
        np.multiply(radius, sin, out=out[:, 1])
        if (mean, std) != (0.0, 1.0):
            out = fma32(out, np.float32(std), np.float32(mean))
    else:               # normal_fill_16<double>: libm in float64
        radius = np.sqrt(-2.0 * libm64.log(1.0 - blocks[:, 0]))
        theta = (2.0 * math.pi) * blocks[:, 1]
        np.multiply(radius, libm64.cos(theta), out=out[:, 0])
        np.multiply(radius, libm64.sin(theta), out=out[:, 1])
        if (mean, std) != (0.0, 1.0):
            out = fma64(out, std, mean)
    return out.reshape(-1)


def normal(gen, n: int, dtype: np.dtype, mean: float = 0.0, std: float = 1.0,
           contiguous: bool = True) -> np.ndarray:
    """``normal_(mean, std)``: 16 or more contiguous values take ``normal_fill`` (uniforms,
    Box-Muller per block of 16, the tail redone from 16 fresh uniforms; float16 works in
    float32); fewer, or a strided target, take ``normal_distribution<double>`` one by one.

    float32/float64 draw all n uniforms first (the tail's are overwritten, so a tail costs
    16 extra draws); float16 draws block by block, and its tail only the 16."""
    if n < 16 or not contiguous:
        z = normal_pairs(gen, n)
        return (z if (mean, std) == (0.0, 1.0) else fma64(z, std, mean)).astype(dtype)
    fast = kernels(n)
    if fast is not None and dtype in (_F32, _F64):
        out = np.empty(n, dtype)
        draw = fast.mt_normal32 if dtype == _F32 else fast.mt_normal64
        draw(*gen.engine.arrays(), float(mean), float(std), out)
        return out
    work = _F64 if dtype == _F64 else _F32
    full = n - n % 16
    u = standard_uniform(gen, n if dtype == work else full, work)
    out = np.empty(n, work)
    out[:full] = _box_muller_16(u[:full], mean, std, work)
    if n % 16:
        out[n - 16:] = _box_muller_16(standard_uniform(gen, 16, work), mean, std, work)
    return out.astype(dtype, copy=False)


# --- integers --------------------------------------------------------------------------------


def random_from_to(gen, n: int, dtype: np.dtype, low: int, high: int) -> np.ndarray:
    """``random_(low, high)``: ``w % (high - low) + low``, one word per value, or a 64-bit
    draw per value once the range reaches 2**28."""
    span = high - low
    w = gen.words64(n) if span >= _RANDOM64_RANGE else gen.words(n)
    values = _mod(w, span)
    values += np.uint64(low & 0xFFFF_FFFF_FFFF_FFFF)
    return values.view(np.int64).astype(dtype, copy=False)


def random_full(gen, n: int, dtype: np.dtype) -> np.ndarray:
    """``random_()``: ``[0, 2**mantissa]`` for floats, ``[0, max]`` for integers, from one
    word (int64 and float64: a 64-bit draw); a bool takes the word's lowest bit."""
    dtype = np.dtype(dtype)
    wide = dtype in (_F64, np.dtype(np.int64))
    w = gen.words64(n) if wide else gen.words(n)
    if dtype == np.bool_:
        return (w & np.uint64(1)).astype(np.bool_)
    if dtype.kind == "f":
        return _mod(w, (1 << np.finfo(dtype).nmant + 1) + 1).astype(dtype)
    return _mod(w, int(np.iinfo(dtype).max) + 1).astype(dtype)


def randperm(gen, n: int) -> np.ndarray:
    """``randperm(n)`` (n below 2**32 / 20): for i = 0 .. n-2, swap position i with
    ``i + words[i] % (n - i)`` -- in a Python loop for short n, and for long n resolved
    without one (:func:`_apply_forward_swaps`, the same permutation in a few passes)."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    if n >= (1 << 32) // 20:
        return _randperm_inside_out(gen, n)
    fast = kernels(n)
    if fast is not None:
        return fast.mt_randperm(*gen.engine.arrays(), n)
    offsets = gen.words(n - 1).astype(np.uint32)      # words and spans n - i fit 32 bits,
    offsets %= np.arange(n, 1, -1, dtype=np.uint32)    # where numpy divides fastest
    targets = np.arange(n - 1, dtype=np.int64)
    targets += offsets
    if n > _SWAP_LOOP_MAX:
        return _apply_forward_swaps(targets, n)
    a = list(range(n))
    for i, j in enumerate(targets.tolist()):
        a[i], a[j] = a[j], a[i]
    return np.array(a, np.int64)


_SWAP_LOOP_MAX = 2048
"""Up to this n, the plain swap loop beats the vectorised one's fixed cost of ~25 passes."""


def _apply_forward_swaps(targets: np.ndarray, n: int) -> np.ndarray:
    """The array ``a = arange(n)`` after ``a[i], a[t[i]] = a[t[i]], a[i]`` for i = 0, 1, ...
    with every ``t[i] >= i``.

    Position i is final once step i is done, and gets what position ``t[i]`` holds just
    before it.  A position p >= i still holds its own value p unless an earlier step k
    picked it (``t[k] == p``); then it holds what position k held just before step k.  So
    ``held(i) = held(last[i])`` (``last[i]``: the last step k < i with ``t[k] == i``), a
    chain ending at a position nobody picked before its turn, which keeps its own value;
    pointer doubling follows all chains at once.  ``result[i]`` is ``held`` of the last
    step before i that picked ``t[i]``, or ``t[i]`` itself.
    """
    m, positions = len(targets), np.arange(n)
    # the steps grouped by target, in step order within a group: one sort of unique keys
    # (target, step), packed as target << b | step (shifts and masks, not a division)
    b = max(m - 1, 1).bit_length()
    keys = targets << b
    keys |= positions[:m]
    keys.sort()
    by_target, order = keys >> b, keys & ((1 << b) - 1)
    repeat = by_target[1:] == by_target[:-1]             # sorted p + 1 has p's target
    prev_same = np.full(m, -1, np.int64)                 # previous step with the same target
    prev_same[order[1:][repeat]] = order[:-1][repeat]
    group_end = np.ones(m, bool)
    np.logical_not(repeat, out=group_end[:-1])
    last = np.full(n, -1, np.int64)                      # each target's last step, if any
    last[by_target[group_end]] = order[group_end]
    own = np.nonzero(last[:m] == positions[:m])[0]       # t[p] == p: step p is no earlier step
    last[own] = prev_same[own]
    held = np.where(last >= 0, last, positions)          # pointer doubling to the chain's end
    while True:
        nxt = held[held]
        if np.array_equal(nxt, held):
            break
        held = nxt
    result = np.where(prev_same >= 0, held[np.maximum(prev_same, 0)], targets)
    return np.r_[result, held[n - 1]]


def _randperm_inside_out(gen, n: int) -> np.ndarray:
    """``randperm`` for n >= 2**32 / 20: the inside-out Fisher-Yates on 64-bit draws."""
    draws = gen.words64(n)
    out = np.empty(n, np.int64)
    for i in range(n):
        z = int(draws[i] % np.uint64(i + 1))
        out[i] = out[z]
        out[z] = i
    return out


# --- per-value distributions on float64 uniforms ---------------------------------------------


def bernoulli_scalar(gen, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)`` (and so dropout's mask): ``u < p`` per value, u a float64 uniform
    -- that is, its 53-bit integer below ``ceil(p * 2**53)``.  (On Intel CPUs PyTorch's MKL
    builds draw this one through MKL's own generator, seeded from one word of the stream;
    on AMD and everywhere else, as here.)"""
    below = min(math.ceil(p * 2.0 ** 53), 1 << 53)
    fast = kernels(n)
    if fast is not None:
        keep = np.empty(n, np.bool_)
        fast.mt_mantissas53_below(*gen.engine.arrays(), below, keep)
        return keep
    k, _ = _mantissas(gen, n, _F64)
    return k < np.uint64(below)


def bernoulli_tensor(gen, p: np.ndarray) -> np.ndarray:
    """``bernoulli_(p_tensor)`` / ``torch.bernoulli(p)``: ``u < p`` per value, with u a
    float64 uniform for float64 ``p`` and a float32 one otherwise."""
    p = np.ascontiguousarray(p)
    dtype = _F64 if p.dtype == _F64 else _F32
    return (standard_uniform(gen, p.size, dtype) < p.reshape(-1).astype(dtype)).reshape(p.shape)


def exponential(gen, n: int, lambd: float) -> np.ndarray:
    """``exponential_(lambd)``: ``-1 / lambd * log1p(-u)`` in float64."""
    return (-1.0 / lambd) * libm64.log1p(-standard_uniform(gen, n, _F64))


def geometric(gen, n: int, p: float) -> np.ndarray:
    """``geometric_(p)``: ``ceil(log(u) / log(1 - p))`` in float64."""
    with np.errstate(divide="ignore"):
        return np.ceil(libm64.log(standard_uniform(gen, n, _F64)) / math.log(1.0 - p))


def cauchy(gen, n: int, median: float, sigma: float) -> np.ndarray:
    """``cauchy_(median, sigma)``: ``median + sigma * tan(pi * (u - 0.5))``, one FMA."""
    return fma64(sigma, libm64.tan(math.pi * (standard_uniform(gen, n, _F64) - 0.5)), median)


def log_normal(gen, n: int, mean: float, std: float) -> np.ndarray:
    """``log_normal_(mean, std)``: ``exp`` of value-by-value normals (the cached pairs)."""
    return libm64.exp(fma64(normal_pairs(gen, n), std, mean))


# --- multinomial, poisson --------------------------------------------------------------------


def multinomial(gen, weights: np.ndarray, num_samples: int, replacement: bool) -> np.ndarray:
    """``torch.multinomial`` of a 2-D ``weights`` (rows: distributions).

    Without replacement, or for one sample: the exponential race -- ``q`` an
    ``exponential_(1)`` of weights' shape and dtype, the top ``num_samples`` of
    ``weights / q``.  With replacement: per row, the cumulative sums in the weights' dtype
    divided by their total (the last forced to 1), and per sample a float64 uniform
    looked up in them (the first bucket ``>= u``)."""
    rows, cats = weights.shape
    if not replacement or num_samples == 1:
        q = exponential(gen, weights.size, 1.0).astype(weights.dtype).reshape(weights.shape)
        race = weights / q
        return np.argsort(-race, axis=-1, kind="stable")[:, :num_samples].astype(np.int64)
    acc = weights.dtype if weights.dtype in (_F32, _F64) else _F32
    cdf = np.cumsum(weights.astype(acc), axis=-1, dtype=acc)
    cdf = cdf / cdf[:, -1:]
    cdf[:, -1] = 1
    u = standard_uniform(gen, rows * num_samples, _F64).reshape(rows, num_samples)
    return np.stack([np.searchsorted(cdf[i].astype(_F64), u[i], side="left")
                     for i in range(rows)]).astype(np.int64)


def poisson(gen, rates: np.ndarray) -> np.ndarray:
    """``torch.poisson``: per rate, Knuth's product of uniforms below 10 and Hoermann's
    transformed rejection from 10 on (``sample_poisson``), one value at a time."""
    out = np.empty(rates.size)
    for i, lam in enumerate(np.asarray(rates, _F64).reshape(-1).tolist()):
        out[i] = _poisson_one(gen, lam)
    return out.reshape(rates.shape)


def _uniform1(gen) -> float:
    return float(standard_uniform(gen, 1, _F64)[0])


def _poisson_one(gen, lam: float) -> int:
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = _uniform1(gen) - 0.5
            v = _uniform1(gen)
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam, x, prod = math.exp(-lam), 0, 1.0
    while True:
        prod *= _uniform1(gen)
        if prod <= enlam:
            return x
        x += 1

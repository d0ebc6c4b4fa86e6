"""Philox4x32-10 as TensorFlow runs it: the generator, how an op reserves its stream, and how
bits become numbers -- on numpy arrays of counters, a chunk of blocks per numpy call.

Philox (Salmon et al., SC 2011) is a counter-based generator: block ``c`` of the stream is a
fixed function of a 64-bit key and the 128-bit counter ``c``, four uint32 per block, so any
block can be computed without the ones before it.  TF (``tsl/lib/random/philox_random.h``)
seeds it from an op's ``(seed, seed2)``::

    key     = seed            (two uint32: low word, high word)
    counter = seed2 << 64     (counter words 2 and 3; words 0 and 1 start at 0)

and every op keeps one such generator for its life (:class:`GuardedPhiloxRandom`).  Each
run *reserves* a range of counters -- ``outputs * 256`` blocks for the plain draws, always
that many whatever the draw uses -- and the next run starts after it.  Inside a run, work is
addressed by counter offsets, not by a running stream, so TF's result does not depend on how
many threads filled the tensor; the functions here compute the same offsets on arrays.

From bits to numbers (``random_distributions.h``)::

    float32  uniform  (x & 0x7fffff | 0x3f800000) as float, minus 1      4 per block
    float64  uniform  (x0 & 0xfffff, x1) as 52 mantissa bits, minus 1     2 per block
    int      uniform  lo + x % (hi - lo)      (int64: x0 | x1 << 32)      4 / 2 per block
    normal            Box-Muller of a pair (float: two uint32; double: two pairs)
    truncated normal  normals with |z| < 2 kept; output group g (4 floats / 2 doubles)
                      starts at block 256*g / 128*g and uses as many blocks as it needs

>>> gen = PhiloxRandom.from_seeds(1, 2)
>>> gen.blocks(1)
array([[3878945999, 2364392915, 1057429302,  168492509]], dtype=uint32)
>>> uniform(gen, 3, np.float32)
array([0.40639675, 0.8575996 , 0.05539584], dtype=float32)
"""
from __future__ import annotations

import os
import secrets
from typing import NamedTuple

import numpy as np

from . import libm, libm64
from .fastpath import kernels

__all__ = ["PhiloxRandom", "GuardedPhiloxRandom", "uint32_to_float", "uint64_to_double",
           "uniform", "uniform_int", "normal", "truncated_normal", "box_muller_float",
           "box_muller_double", "shard_blocks", "default_threads"]

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_MUL = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_WEYL = (0x9E3779B9, 0xBB67AE85)
_CHUNK = 16384
"""Blocks per pass of the array code: big enough to amortise numpy's per-call cost, small
enough that a pass's temporaries stay in the CPU's cache."""


def _rounds(c0, c1, c2, c3, key: tuple[int, int]) -> list[np.ndarray]:
    """The ten Philox rounds on counter words (uint32 arrays): the block's four output words.

    Each round multiplies two words into 64-bit products; their halves are read as uint32
    views of the product arrays (no shifts or masks), which alternate between two pairs of
    buffers so a view made in one round is still intact in the next."""
    k0, k1 = key
    n = c0.size
    products = [np.empty(n, np.uint64) for _ in range(4)]
    c0, c2 = np.array(c0, np.uint32), np.array(np.broadcast_to(c2, (n,)), np.uint32)
    c1, c3 = np.broadcast_to(c1, (n,)), np.broadcast_to(c3, (n,))
    for r in range(10):
        p0, p1 = products[2 * (r & 1)], products[2 * (r & 1) + 1]
        np.multiply(c0, _MUL[0], out=p0, dtype=np.uint64)
        np.multiply(c2, _MUL[1], out=p1, dtype=np.uint64)
        half0, half1 = p0.view(np.uint32), p1.view(np.uint32)   # [low, high] per product
        np.bitwise_xor(half1[1::2], c1, out=c0)
        np.bitwise_xor(c0, np.uint32(k0), out=c0)
        np.bitwise_xor(half0[1::2], c3, out=c2)
        np.bitwise_xor(c2, np.uint32(k1), out=c2)
        c1, c3 = half1[0::2], half0[0::2]
        k0, k1 = (k0 + _WEYL[0]) & _M32, (k1 + _WEYL[1]) & _M32
    return [c0, c1, c2, c3]


class PhiloxRandom(NamedTuple):
    """A position in a Philox stream: the key and the 128-bit counter of its next block."""

    key: tuple[int, int]
    counter: int

    @classmethod
    def from_seeds(cls, seed: int, seed2: int) -> "PhiloxRandom":
        """TF's ``PhiloxRandom(seed, seed2)`` (seeds taken as uint64, as C++ casts them)."""
        seed, seed2 = seed & _M64, seed2 & _M64
        return cls((seed & _M32, seed >> 32), seed2 << 64)

    def skip(self, blocks: int) -> "PhiloxRandom":
        """``blocks`` further on (TF's ``Skip``: a 128-bit add to the counter)."""
        return self._replace(counter=(self.counter + blocks) & _M128)

    def words_at(self, offsets: np.ndarray) -> list[np.ndarray]:
        """The four uint32 words of the blocks at ``counter + offsets`` (uint64 offsets)."""
        offsets = np.asarray(offsets, np.uint64)
        lo, hi = self.counter & _M64, self.counter >> 64
        fast = kernels(4 * offsets.size)
        if fast is not None:
            words = np.empty((4, offsets.size), np.uint32)
            fast.philox_words(*self.kernel_args(), np.atleast_1d(offsets), words)
            return list(words)
        low = offsets + np.uint64(lo)
        if lo and (low < offsets).any():   # the low 64 bits wrapped: carry into words 2, 3
            high = np.array([(hi + int(c)) & _M64 for c in (low < offsets)], np.uint64)
        else:
            high = np.uint64(hi)
        low, high = np.atleast_1d(low).view(np.uint32), np.atleast_1d(high).view(np.uint32)
        return _rounds(low[0::2], low[1::2], high[0::2], high[1::2], self.key)

    def kernel_args(self) -> tuple[np.uint64, ...]:
        """Key and counter as the compiled kernels take them: ``k0, k1, counter_lo, counter_hi``."""
        return tuple(np.uint64(v) for v in (*self.key, self.counter & _M64, self.counter >> 64))

    def blocks_at(self, offsets: np.ndarray) -> np.ndarray:
        """The blocks at ``counter + offsets`` (uint64 offsets): an ``(n, 4)`` uint32 array."""
        offsets = np.asarray(offsets, np.uint64)
        return self.map_blocks(offsets.size, 4, np.uint32, lambda words: words, offsets)

    def blocks(self, n: int) -> np.ndarray:
        """The next ``n`` blocks, as an ``(n, 4)`` uint32 array."""
        return self.blocks_at(np.arange(n, dtype=np.uint64))

    def uint32s(self, n: int) -> np.ndarray:
        """The next ``n`` uint32, one at a time (TF's ``SingleSampleAdapter`` from here)."""
        return self.blocks(-(-n // 4)).reshape(-1)[:n]

    def map_blocks(self, blocks: int, width: int, dtype, convert, offsets=None) -> np.ndarray:
        """``convert(words)`` of the next ``blocks`` blocks (or those at ``offsets``), a chunk at a
        time: ``convert`` maps the four word arrays of a chunk to ``width`` value arrays, and
        the result is ``(blocks, width)``."""
        out = np.empty((blocks, width), dtype)
        for s in range(0, blocks, _CHUNK):
            e = min(s + _CHUNK, blocks)
            at = np.arange(s, e, dtype=np.uint64) if offsets is None else offsets[s:e]
            for j, column in enumerate(convert(self.words_at(at))):
                out[s:e, j] = column
        return out


def default_threads() -> int:
    """TF's default intra-op thread count: the CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class GuardedPhiloxRandom:
    """One random op's generator for the life of a Session (TF's ``GuardedPhiloxRandom``).

    Seeds ``(0, 0)`` (or ``None``) mean "unseeded": fresh random seeds, as TF's ``New64()``.
    ``threads`` is the intra-op thread count of the Session, which decides how TF splits the
    few kernels whose draws depend on the split (:func:`shard_blocks`).  ``kept`` is what
    else the kernel keeps for the Session's life with its stream (a candidate sampler's
    learned counts or alias table), None until the kernel sets it."""

    __slots__ = ("gen", "threads", "kept")

    def __init__(self, seed: int | None, seed2: int | None, threads: int | None = None):
        seed, seed2 = seed or 0, seed2 or 0
        if seed == 0 and seed2 == 0:
            seed, seed2 = secrets.randbits(64), secrets.randbits(64)
        self.gen = PhiloxRandom.from_seeds(seed, seed2)
        self.threads = default_threads() if threads is None else threads
        self.kept = None

    def reserve_samples128(self, blocks: int) -> PhiloxRandom:
        """The stream from here; the op's next reservation starts ``blocks`` later."""
        here, self.gen = self.gen, self.gen.skip(blocks)
        return here

    def reserve_samples32(self, samples: int) -> PhiloxRandom:
        return self.reserve_samples128((samples + 3) // 4)

    def reserve_random_outputs(self, outputs: int, multiplier: int = 256) -> PhiloxRandom:
        return self.reserve_samples128(outputs * multiplier)


# --- bits to numbers --------------------------------------------------------------------------

def uint32_to_float(x: np.ndarray) -> np.ndarray:
    """Uniform floats in [0, 1) from the low 23 bits (TF's ``Uint32ToFloat``)."""
    return ((x & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1)


def uint64_to_double(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """Uniform doubles in [0, 1) from 20 bits of ``x0`` and all of ``x1`` (``Uint64ToDouble``)."""
    bits = ((x0 & np.uint32(0xFFFFF)).astype(np.uint64) << np.uint64(32)) | x1.astype(np.uint64)
    return (bits | np.uint64(1023 << 52)).view(np.float64) - 1.0


def _uint16_to_half(x: np.ndarray) -> np.ndarray:
    """Uniform halves in [0, 1) from the low 10 bits (``Uint16ToHalf``)."""
    bits = ((x & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1)


def _per_block(dtype) -> int:
    """Values per block: 4 for 32- and 16-bit types, 2 for 64-bit ones."""
    return 2 if np.dtype(dtype).itemsize == 8 else 4


def _uniforms(dtype: np.dtype):
    """Words of a block -> its uniform values (TF's ``UniformDistribution``)."""
    if dtype == np.float64:
        return lambda w: (uint64_to_double(w[0], w[1]), uint64_to_double(w[2], w[3]))
    if dtype == np.float16:
        return lambda w: [_uint16_to_half(x) for x in w]
    return lambda w: [uint32_to_float(x) for x in w]


def _fused(kind: str, gen: PhiloxRandom, n: int, dtype: np.dtype) -> np.ndarray | None:
    """``n`` values of ``kind`` (uniform, normal, truncated) from the compiled kernel that
    draws the blocks and converts them in one loop; None where there is none (float16, or
    the kernels are not loaded): then the numpy code."""
    fast = kernels(n)
    if fast is None or dtype not in (np.float32, np.float64):
        return None
    out, bits = np.empty(n, dtype), 8 * dtype.itemsize
    if kind == "truncated":
        getattr(fast, f"philox_truncated{bits}")(*gen.kernel_args(), out)
    else:
        getattr(fast, f"philox_draw{bits}")(*gen.kernel_args(), kind == "normal", out)
    return out


def uniform(gen: PhiloxRandom, n: int, dtype) -> np.ndarray:
    """``n`` uniform [0, 1) values of a float dtype, from ``gen`` on."""
    dtype = np.dtype(dtype)
    fused = _fused("uniform", gen, n, dtype)
    if fused is not None:
        return fused
    per = _per_block(dtype)
    return gen.map_blocks(-(-n // per), per, dtype, _uniforms(dtype)).reshape(-1)[:n]


def uniform_int(gen: PhiloxRandom, n: int, lo: int, hi: int, dtype) -> np.ndarray:
    """``n`` integers ``lo + bits % (hi - lo)`` (``lo < hi``), int32 or int64, from ``gen`` on."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        span, low = np.uint64((hi - lo) & _M64), np.uint64(lo & _M64)

        def convert(w):
            return [(((b | (c.astype(np.uint64) << np.uint64(32))) % span) + low).view(np.int64)
                    for b, c in ((w[0].astype(np.uint64), w[1]), (w[2].astype(np.uint64), w[3]))]
    else:
        span, low = np.uint32((hi - lo) & _M32), np.uint32(lo & _M32)

        def convert(w):   # lo + bits % span, wrapped to 32 bits: the int32 SignedAdd gives
            return [((x % span) + low).view(np.int32) for x in w]
    return gen.map_blocks(-(-n // _per_block(dtype)), _per_block(dtype), dtype,
                          convert).reshape(-1)[:n]


def box_muller_float(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two float normals per pair of uint32, as TF's ``BoxMullerFloat`` (glibc's float math)."""
    fast = kernels(2 * x0.size)
    if fast is not None:
        sin, cos = np.empty(x0.size, np.float32), np.empty(x0.size, np.float32)
        fast.box_muller_float(x0, x1, sin, cos)
        return sin, cos
    u1 = np.maximum(uint32_to_float(x0), np.float32(1e-7))
    v1 = (2.0 * np.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    u2 = libm.logf(u1)
    u2 *= np.float32(-2.0)
    np.sqrt(u2, out=u2)
    sin, cos = libm.sincosf(v1)
    sin *= u2
    cos *= u2
    return sin, cos


def box_muller_double(x0, x1, x2, x3) -> tuple[np.ndarray, np.ndarray]:
    """Two double normals per four uint32, as TF's ``BoxMullerDouble`` (libm's double math)."""
    fast = kernels(2 * x0.size)
    if fast is not None:
        sin, cos = np.empty(x0.size), np.empty(x0.size)
        fast.box_muller_double(x0, x1, x2, x3, sin, cos)
        return sin, cos
    u1 = np.maximum(uint64_to_double(x0, x1), 1e-7)
    v1 = 2.0 * np.pi * uint64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * libm64.log(u1))
    return libm64.sin(v1) * u2, libm64.cos(v1) * u2


def _normals(dtype: np.dtype):
    """Words of a block -> its normal values in TF's order (``NormalDistribution``)."""
    if dtype == np.float64:
        return lambda w: box_muller_double(*w)

    def floats(w):
        m = w[0].size      # both pairs of the block in one call: (w0, w1) and (w2, w3)
        sin, cos = box_muller_float(np.concatenate([w[0], w[2]]), np.concatenate([w[1], w[3]]))
        return sin[:m], cos[:m], sin[m:], cos[m:]
    return floats


def normal(gen: PhiloxRandom, n: int, dtype) -> np.ndarray:
    """``n`` standard normal values of a float dtype, from ``gen`` on."""
    dtype = np.dtype(dtype)
    fused = _fused("normal", gen, n, dtype)
    if fused is not None:
        return fused
    per = _per_block(dtype)
    return gen.map_blocks(-(-n // per), per, dtype, _normals(dtype)).reshape(-1)[:n]


def truncated_normal(gen: PhiloxRandom, n: int, dtype) -> np.ndarray:
    """``n`` standard normals with ``|z| < 2``: each group of 4 floats (2 doubles) starts at
    its own block ``256 * g`` (``128 * g``) and keeps drawing blocks until it is full."""
    dtype = np.dtype(dtype)
    fused = _fused("truncated", gen, n, dtype)
    if fused is not None:
        return fused
    group = _per_block(dtype)
    work = np.float64 if dtype == np.float64 else np.float32
    groups = -(-n // group)
    starts = np.arange(groups, dtype=np.uint64) * np.uint64(group * 256 // 4)
    out = gen.map_blocks(groups, group, work, _normals(dtype), starts)   # each group's 1st block
    keep = np.abs(out) < 2.0                    # a full group: all its bools (bytes) are 1
    full = keep.view(np.uint32 if group == 4 else np.uint16).ravel() == (
        0x01010101 if group == 4 else 0x0101)
    short = np.flatnonzero(~full)               # about 1 group in 6 (float) or 11 (double)
    if short.size:
        out[short] = _refill(gen, starts[short], out[short], keep[short], dtype)
    return out.reshape(-1)[:n].astype(dtype, copy=False)


def _refill(gen, starts, values, kept, dtype) -> np.ndarray:
    """Complete the groups whose first block fell short, a block at a time, in TF's order:
    a group's outputs are its first ``group`` accepted candidates."""
    group = values.shape[1]
    out = np.zeros_like(values)
    count = np.zeros(len(values), np.int64)
    rows, tries = np.arange(len(values)), 1
    while rows.size:
        rank = np.cumsum(kept, axis=1) - 1 + count[rows, None]     # each candidate's slot
        r, c = np.nonzero(kept & (rank < group))
        out[rows[r], rank[r, c]] = values[r, c]
        count[rows] = np.minimum(rank[:, -1] + 1, group)
        rows = rows[count[rows] < group]
        values = gen.map_blocks(rows.size, group, values.dtype, _normals(dtype),
                                starts[rows] + np.uint64(tries))
        kept, tries = np.abs(values) < 2.0, tries + 1
    return out


def shard_blocks(total: int, cost_per_unit: int, threads: int) -> list[tuple[int, int]]:
    """How TF's ``Shard`` splits ``range(total)`` over ``threads`` (``work_sharder.cc`` into
    Eigen's ``ThreadPoolDevice::parallelFor``): the ``(start, limit)`` of each shard.

    Only kernels that run a *sequential* stream per shard (``Multinomial``) need this: their
    draws depend on where the shards start, hence on the machine's thread count."""
    if total <= 0:
        return []
    cost = float(total) * cost_per_unit                   # Eigen's TensorCostModel, in cycles
    wanted = int(min((cost - 100000) / 100000 + 0.9, 2**31 - 1))
    if threads <= 1 or total == 1 or min(threads, max(1, wanted)) == 1:
        return [(0, total)]
    size = min(total, max(-(-total // (4 * threads)), int(1.0 / (max(cost_per_unit, 1) / 40000))))
    max_size = min(total, 2 * size)
    count = -(-total // size)

    def efficiency(blocks: int) -> float:
        return blocks / (-(-blocks // threads) * threads)

    best, prev = efficiency(count), count
    while best < 1.0 and prev > 1:
        coarser = -(-total // (prev - 1))
        if coarser > max_size:
            break
        coarser_count = -(-total // coarser)
        prev = coarser_count
        if efficiency(coarser_count) + 0.01 >= best:
            size, count = coarser, coarser_count
            best = max(best, efficiency(coarser_count))
    return [(s, min(s + size, total)) for s in range(0, total, size)]

"""The pieces under TF's random stream: Philox4x32-10, its counters, glibc's float math, sharding.

The end-to-end check against TF itself is ``tests/test_tf_random_streams.py``; these pin each
piece against its own reference: Random123's known answers, 128-bit counter arithmetic, the
step-by-step glibc reference -- and, on a machine whose C library is the one the emulation
follows, that library itself.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import platform
import numpy as np
import pytest

from common import libm, philox
from common.philox import GuardedPhiloxRandom, PhiloxRandom


def counter(words) -> int:
    return sum(w << (32 * i) for i, w in enumerate(words))


@pytest.mark.parametrize("key,ctr,want", [   # Random123's kat_vectors for philox4x32_10
    ((0, 0), (0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 4, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0xA4093822, 0x299F31D0), (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
])
def test_philox_gives_the_known_answers(key, ctr, want, random_kernels):
    assert tuple(PhiloxRandom(key, counter(ctr)).blocks(1)[0]) == want


def test_blocks_are_a_function_of_the_counter_alone(random_kernels):
    """A run of blocks equals the blocks one at a time, across the carry out of the low 64
    bits and the wrap of all 128 (TF's Skip)."""
    for start in (2**64 - 3, 2**128 - 2, 12345):
        gen = PhiloxRandom((7, 9), start)
        run = gen.blocks(6)
        singles = np.stack([gen.skip(i).blocks(1)[0] for i in range(6)])
        np.testing.assert_array_equal(run, singles)
    assert PhiloxRandom((1, 2), 2**128 - 1).skip(2).counter == 1


def test_seeds_set_key_and_high_counter_words_as_tf():
    gen = PhiloxRandom.from_seeds(-1, 5)      # C++ casts int64 seeds to uint64
    assert gen.key == (0xFFFFFFFF, 0xFFFFFFFF) and gen.counter == 5 << 64


def test_an_ops_generator_reserves_per_run():
    g = GuardedPhiloxRandom(3, 4, threads=1)
    first = g.reserve_random_outputs(10, 256)
    assert first.counter == 4 << 64 and g.gen.counter == (4 << 64) + 2560
    assert g.reserve_samples32(9).counter == (4 << 64) + 2560 and g.gen.counter == (4 << 64) + 2563
    a, b = GuardedPhiloxRandom(0, 0), GuardedPhiloxRandom(None, None)     # unseeded: random
    assert a.gen != b.gen


def test_uint32s_read_a_block_at_a_time():
    gen = PhiloxRandom.from_seeds(5, 6)
    np.testing.assert_array_equal(gen.uint32s(10), gen.blocks(3).reshape(-1)[:10])


def _logf_inputs() -> np.ndarray:
    rng = np.random.default_rng(1)
    x = [rng.random(30000, np.float32), np.float32(1e-7) * rng.random(500, np.float32) + 1e-38,
         (rng.random(500) * 1e-40).astype(np.float32),      # subnormals
         np.array([1e-7, 0.5, 1.0, 0.999999, 2.0, 3e38, 1e-45], np.float32),
         np.nextafter(np.float32(0.7), np.float32(1), dtype=np.float32) * np.ones(1, np.float32)]
    return np.concatenate(x).astype(np.float32)


def _sincosf_inputs() -> np.ndarray:
    rng = np.random.default_rng(2)
    edges = np.float32(np.pi / 4) * np.arange(1, 150, dtype=np.float32)   # quadrant edges
    near = np.concatenate([np.nextafter(edges, 0), edges, np.nextafter(edges, 200)])
    return np.concatenate([(rng.random(30000) * 2 * np.pi).astype(np.float32),
                           (rng.random(3000) * 119.9).astype(np.float32), near[near < 120],
                           np.array([0.0, 1e-30, 2**-12, 0.75, np.float32(2 * np.pi)], np.float32)])


def test_logf_equals_the_reference():
    x = _logf_inputs()
    np.testing.assert_array_equal(libm.logf(x), libm.logf_reference(x))
    assert libm.logf(np.zeros(1, np.float32))[0] == -np.inf and libm.logf(np.ones(1, np.float32))[0] == 0


def test_sincosf_equals_the_reference():
    y = _sincosf_inputs()
    for fast, reference in zip(libm.sincosf(y), libm.sincosf_reference(y)):
        np.testing.assert_array_equal(fast, reference)


def test_values_near_a_rounding_boundary_are_recomputed_exactly():
    """Where the unfused value is within its tolerance of a float boundary, the reference
    decides: with a tolerance that covers everything, the result is all reference."""
    x = _logf_inputs()[:100]
    np.testing.assert_array_equal(libm._round_or_redo(np.zeros(100), 1.0, x, libm.logf_reference),
                                  libm.logf_reference(x))


def _glibc_with_fma():
    """This machine's libm, if it is the glibc build the emulation follows (x86-64, glibc
    2.28 or later, a CPU with FMA and AVX2 so glibc picks its FMA variants), else None."""
    name, version = platform.libc_ver()
    try:
        flags = open("/proc/cpuinfo").read().split()
    except OSError:
        return None
    if (platform.machine() != "x86_64" or name != "glibc" or tuple(map(int, version.split("."))) < (2, 28)
            or "fma" not in flags or "avx2" not in flags):
        return None
    m = ctypes.CDLL(ctypes.util.find_library("m"))
    m.logf.restype, m.logf.argtypes = ctypes.c_float, [ctypes.c_float]
    m.sincosf.restype = None
    m.sincosf.argtypes = [ctypes.c_float, ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_float)]
    return m


@pytest.mark.skipif(_glibc_with_fma() is None, reason="not x86-64 glibc >= 2.28 with FMA: another libm")
def test_the_emulation_is_this_machines_glibc():
    """The reference is glibc's algorithm; on such a machine, it is glibc's answer too (the
    whole 2**23 inputs of TF's Box-Muller were checked once by hand; a sample here)."""
    m = _glibc_with_fma()
    x = _logf_inputs()
    np.testing.assert_array_equal(libm.logf(x), np.array([m.logf(v) for v in x.tolist()], np.float32))
    y = _sincosf_inputs()
    s, c = ctypes.c_float(), ctypes.c_float()
    want = []
    for v in y.tolist():
        m.sincosf(v, ctypes.byref(s), ctypes.byref(c))
        want.append((s.value, c.value))
    sin, cos = libm.sincosf(y)
    np.testing.assert_array_equal(np.stack([sin, cos], 1), np.array(want, np.float32))


def test_float64_math_is_not_enough_for_tfs_floats():
    """Why the emulation exists: rounding float64 log/sin/cos gives another float in about
    one draw in a hundred -- here, against the reference."""
    x = (np.random.default_rng(3).random(20000)).astype(np.float32) + np.float32(1e-7)
    rounded = np.log(x.astype(np.float64)).astype(np.float32)
    assert (rounded != libm.logf(x)).mean() > 0.001


def test_shards_follow_eigens_parallel_for():
    assert philox.shard_blocks(2000, 1000, 1) == [(0, 2000)]
    assert philox.shard_blocks(50, 100, 8) == [(0, 50)]                  # too cheap to split
    assert philox.shard_blocks(2000, 3161, 2) == [(i, i + 250) for i in range(0, 2000, 250)]
    for total, cost, threads in [(2000, 3161, 3), (1000, 5000, 4), (37, 100000, 5)]:
        shards = philox.shard_blocks(total, cost, threads)
        assert shards[0][0] == 0 and shards[-1][1] == total
        assert all(a[1] == b[0] for a, b in zip(shards, shards[1:]))


# glibc 2.36's answers (x86-64), as float bits, where rounding the float64 answer gives another
# float: TF's expected counts of a unique candidate draw go through these two functions.
_LOG1PF = [(0xbf4ed535, 0xbfd3319c), (0xbf7fca02, 0xc0e33f9e), (0xbeed7a63, 0xbf1f902a),
           (0xbec7ea3b, 0xbefd770e), (0xbf4f1063, 0xbfd3cc0a), (0xbf7561c3, 0xc04baffa)]
_EXPM1F = [(0xbf999e22, 0xbf32e7aa), (0xc0beaac0, 0xbf7f56a4), (0xbfc17489, 0xbf478640),
           (0xbfd2a549, 0xbf4e9f30), (0xbeba4c75, 0xbe9c2ae2), (0xc05f8fcc, 0xbf783762)]


@pytest.mark.parametrize("fn,table,reference", [(libm.log1pf, _LOG1PF, np.log1p),
                                                (libm.expm1f, _EXPM1F, np.expm1)])
def test_log1pf_and_expm1f_give_glibcs_floats(fn, table, reference):
    x = np.array([a for a, _ in table], np.uint32).view(np.float32)
    want = np.array([b for _, b in table], np.uint32)
    assert fn(x).view(np.uint32).tolist() == want.tolist()
    assert (reference(x.astype(np.float64)).astype(np.float32).view(np.uint32) != want).all()


def _glibc_fdlibm():
    """This machine's libm, if it is a glibc whose log1pf/expm1f are fdlibm's (before 2.41)."""
    name, version = platform.libc_ver()
    if name != "glibc" or not (2, 17) <= tuple(map(int, version.split(".")[:2])) < (2, 41):
        return None
    m = ctypes.CDLL(ctypes.util.find_library("m"))
    for f in (m.log1pf, m.expm1f):
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    return m


@pytest.mark.skipif(_glibc_fdlibm() is None, reason="not a glibc with fdlibm's log1pf/expm1f")
def test_log1pf_and_expm1f_are_this_machines_glibc():
    m = _glibc_fdlibm()
    rng = np.random.default_rng(1)
    specials = [0.0, -0.0, -1.0, -2.0, 1e-30, -1e-30, 1e-8, 88.0, 89.0, -89.0, 40.0, 16.0,
                np.inf, -np.inf]
    x = np.concatenate([-rng.random(3000), rng.standard_normal(3000) * 10,
                        rng.standard_normal(500) * 1e-6, specials]).astype(np.float32)
    for ours, theirs in ((libm.log1pf, m.log1pf), (libm.expm1f, m.expm1f)):
        want = np.array([theirs(v) for v in x.tolist()], np.float32)
        np.testing.assert_array_equal(ours(x), want)


def test_compiled_kernels_draw_the_numpy_codes_bits():
    """The fused compiled draws (common.random_jit) against the numpy code, bit for bit: every
    conversion and dtype, short and long draws, a counter about to carry out of its low 64 bits."""
    from common import fastpath
    for seed, seed2, skip in ((1, 2, 0), (87654321, 7, 2**64 - 3000), (-1, 2**63, 12345)):
        gen = PhiloxRandom.from_seeds(seed, seed2).skip(skip)
        for draw in (philox.uniform, philox.normal, philox.truncated_normal):
            for dtype in (np.float32, np.float64):
                for n in (1, 3, 5, 20003):
                    with fastpath.forced(False):
                        want = draw(gen, n, dtype)
                    with fastpath.forced(True) as compiled:
                        if not compiled:
                            pytest.skip("numba is not installed: no compiled kernels")
                        got = draw(gen, n, dtype)
                    assert got.dtype == want.dtype
                    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))

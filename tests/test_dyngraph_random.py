"""Random numbers: seeding behaviour, Generator streams, distributions (fixed seeds, loose bounds)."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch


def test_manual_seed_repeats_draws_and_returns_the_default_generator():
    g = torch.manual_seed(123)
    assert g is torch.default_generator and g.initial_seed() == 123
    a = torch.randn(5)
    torch.manual_seed(123)
    assert torch.equal(a, torch.randn(5))
    assert not torch.equal(a, torch.randn(5))


def test_a_generator_object_is_a_stream_of_its_own():
    g = torch.Generator().manual_seed(7)
    torch.manual_seed(0)
    a = torch.rand(3, generator=g)
    torch.rand(100)  # draws from the default stream do not move g
    b = torch.rand(3, generator=g)
    g.manual_seed(7)
    assert torch.equal(torch.rand(3, generator=g), a) and torch.equal(torch.rand(3, generator=g), b)


def test_generator_state_round_trips():
    g = torch.Generator().manual_seed(1)
    state = g.get_state()
    assert state.dtype == torch.uint8
    a = torch.randn(4, generator=g)
    g.set_state(state)
    assert torch.equal(torch.randn(4, generator=g), a)
    s = torch.get_rng_state()
    x = torch.rand(2)
    torch.set_rng_state(s)
    assert torch.equal(torch.rand(2), x)


def test_shapes_and_dtypes_as_pytorch():
    torch.manual_seed(0)
    assert torch.randn(2, 3).shape == (2, 3) and torch.randn([2, 3]).shape == (2, 3)
    assert torch.rand(()).shape == () and torch.rand(3).dtype == torch.float32
    assert torch.rand(2, dtype=torch.float64).dtype == torch.float64
    assert torch.randint(0, 10, (4,)).dtype == torch.int64 and torch.randint(5, (2, 2)).shape == (2, 2)
    assert torch.randperm(5).sort().values.tolist() == [0, 1, 2, 3, 4]
    assert torch.normal(0., 1., size=(2,)).shape == (2,)
    assert torch.normal(torch.zeros(3), torch.ones(3)).shape == (3,)
    assert torch.bernoulli(torch.full((3,), 0.5)).dtype == torch.float32
    assert torch.multinomial(torch.tensor([0.2, 0.8]), 4, replacement=True).dtype == torch.int64
    assert torch.multinomial(torch.tensor([[0.2, 0.8, 0.], [1, 1, 1]]), 2).shape == (2, 2)
    y = torch.zeros(2, 3)
    assert torch.rand_like(y).shape == (2, 3) and torch.randint_like(y, 5).dtype == torch.float32


def test_refusals_use_pytorch_wording():
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size\\(-1\\) samples "
                                           "without replacement"):
        torch.multinomial(torch.tensor([0.2, 0.8]), 4)
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"):
        torch.rand(2, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        torch.randint(5, 5, (2,))


def test_distributions():
    torch.manual_seed(0)
    n = torch.randn(20000)
    assert abs(n.mean().item()) < 0.05 and abs(n.std().item() - 1) < 0.05
    u = torch.rand(20000)
    assert 0 <= u.min().item() and u.max().item() < 1 and abs(u.mean().item() - 0.5) < 0.02
    r = torch.randint(3, 7, (20000,))
    assert sorted(set(r.tolist())) == [3, 4, 5, 6]
    b = torch.bernoulli(torch.full((20000,), 0.3))
    assert abs(b.mean().item() - 0.3) < 0.02
    m = torch.multinomial(torch.tensor([1.0, 3.0]), 20000, replacement=True)
    assert abs(m.float().mean().item() - 0.75) < 0.02
    nm = torch.normal(5.0, 2.0, size=(20000,))
    assert abs(nm.mean().item() - 5) < 0.1 and abs(nm.std().item() - 2) < 0.1
    no_repeat = torch.multinomial(torch.ones(10), 10)
    assert sorted(no_repeat.tolist()) == list(range(10))


def test_in_place_draws():
    torch.manual_seed(0)
    v = torch.empty(10000)
    assert v.normal_(2.0, 0.5) is v and abs(v.mean().item() - 2) < 0.05
    v.uniform_(-1, 1)
    assert v.abs().max().item() <= 1 and abs(v.mean().item()) < 0.05
    v.bernoulli_(0.25)
    assert set(np.unique(v.numpy())) <= {0.0, 1.0}
    assert v.fill_(2.0).tolist()[:2] == [2.0, 2.0] and v.zero_().sum().item() == 0
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.zeros(2, requires_grad=True).normal_()


# --- PyTorch's bits (the long recorded streams: tests/pytorch_programs/random_streams.py) ------


def test_the_stream_is_pytorchs_from_the_first_word(random_kernels):
    from common.mt19937 import MT19937
    assert MT19937(0).words(4).tolist() == [2357136044, 2546248239, 3071714933, 3626093760]
    torch.manual_seed(0)       # PyTorch prints tensor([0.4963, 0.7682, 0.0885, 0.1320])
    assert torch.rand(4).tolist() == [0.49625658988952637, 0.7682217955589294,
                                      0.08847743272781372, 0.13203048706054688]
    torch.manual_seed(0)
    assert torch.randn(4).tolist() == [1.5409960746765137, -0.293428897857666,
                                       -2.1787893772125244, 0.5684312582015991]
    assert torch.Generator().initial_seed() == 67280421310721


def test_the_engine_position_round_trips_as_torch_spells_it(random_kernels):
    """``left``/``next``: a fresh seed waits to twist with next=0, a used-up block with 624."""
    from common.mt19937 import MT19937
    mt = MT19937(5)
    key, left, nxt = mt.position()
    assert (left, nxt) == (1, 0)
    mt.words(624)
    assert mt.position()[1:] == (1, 624)
    mt.words(3)
    key, left, nxt = mt.position()
    assert (left, nxt) == (622, 3)
    expected = mt.words(1000)
    other = MT19937(0)
    other.set_position(key, left, nxt)
    np.testing.assert_array_equal(other.words(1000), expected)


def test_rng_state_is_pytorchs_layout_and_refuses_what_pytorch_refuses():
    torch.manual_seed(3)
    torch.randn(3, dtype=torch.float64)      # leaves the second normal of a pair cached
    raw = torch.get_rng_state().numpy()
    assert raw.shape == (5056,)
    assert int.from_bytes(raw[:8].tobytes(), "little") == 3                 # the_initial_seed
    assert np.frombuffer(raw[8:16].tobytes(), np.int32).tolist() == [617, 1]  # left, seeded
    assert int.from_bytes(raw[16:24].tobytes(), "little") == 8              # next word
    assert np.frombuffer(raw[5040:5044].tobytes(), np.int32)[0] == 1        # normal_is_valid
    cached = np.frombuffer(raw[5024:5032].tobytes(), np.float64)[0]
    torch.set_rng_state(torch.from_numpy(raw.copy()))
    assert torch.randn(1, dtype=torch.float64).item() == cached
    with pytest.raises(TypeError, match="^RNG state must be a torch.ByteTensor$"):
        torch.set_rng_state(torch.zeros(5056))
    with pytest.raises(RuntimeError, match="^Expected a CPUGeneratorImplState of size 5056 but "
                                           "found the input RNG state size to be 10$"):
        torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))
    with pytest.raises(RuntimeError, match="^Invalid mt19937 state$"):
        torch.set_rng_state(torch.zeros(5056, dtype=torch.uint8))
    with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
        torch.manual_seed(2 ** 64)
    assert torch.manual_seed(-1).initial_seed() == 2 ** 64 - 1


def test_argument_checks_use_pytorch_wording():
    v = torch.empty(3)
    for call, error, message in [
            (lambda: v.uniform_(2, 1), RuntimeError,
             "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
            (lambda: v.normal_(0, -1), RuntimeError, "normal expects std >= 0.0, but found std -1"),
            (lambda: v.bernoulli_(1.5), RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
            (lambda: v.exponential_(0), RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=0"),
            (lambda: v.geometric_(1), RuntimeError, "geometric_ expects p to be in (0, 1), but got p=1"),
            (lambda: v.log_normal_(0, 0), RuntimeError, "log_normal_ expects std > 0.0, but found std=0"),
            (lambda: v.cauchy_(0, 0), RuntimeError, "cauchy_ expects sigma > 0.0, but found sigma=0"),
            (lambda: torch.empty(3, dtype=torch.int64).exponential_(), RuntimeError,
             "Exponential distribution is a continuous probability distribution. dtype must be a "
             "floating point but you specified Long"),
            (lambda: torch.normal(torch.zeros(3), -torch.ones(3)), RuntimeError,
             "normal expects all elements of std >= 0.0"),
            (lambda: torch.poisson(torch.tensor([-1.0])), RuntimeError,
             "invalid Poisson rate, expected rate to be non-negative"),
            (lambda: torch.randperm(-1), RuntimeError,
             "Trying to create tensor with negative dimension -1: [-1]")]:
        with pytest.raises(error) as e:
            call()
        assert str(e.value) == message


def test_fma_rounds_once_even_where_a_float64_sum_lands_on_a_float32_tie():
    from fractions import Fraction
    from common.fma import fma32, fma64
    a = np.float32(1 + 2 ** -12)           # a * a = 1 + 2**-11 + 2**-24: a float32 tie exactly
    tiny = np.array([2.0 ** -60, -2.0 ** -60, 0.0], np.float32)
    got = fma32(np.full(3, a), np.full(3, a), tiny) - np.float32(1 + 2 ** -11)
    assert got.tolist() == [2.0 ** -23, 0.0, 0.0]   # the sign of the tiny addend decides
    assert ((np.float64(a) * a + tiny).astype(np.float32) == np.float32(1 + 2 ** -11)).all()
    rng = np.random.default_rng(1)
    x, y, z = (rng.standard_normal(3000) * 10.0 ** rng.integers(-6, 6, 3000) for _ in range(3))
    exact = [float(Fraction(p) * Fraction(q) + Fraction(r)) for p, q, r in zip(x, y, z)]
    np.testing.assert_array_equal(fma64(x, y, z), exact)
    assert (x * y + z != exact).sum() > 100          # rounding twice differs, often


def test_randperm_resolves_its_swaps_as_the_loop_does():
    from dyngraph.random_kernels import _apply_forward_swaps
    rng = np.random.default_rng(0)
    cases = [np.arange(1, 50), np.arange(49), np.full(49, 49)]
    cases += [np.arange(n - 1) + rng.integers(0, n - np.arange(n - 1)) for n in (2, 3, 10, 777, 5000)]
    # (randperm loops for n <= 2048 and uses this above; random_streams covers both against torch)
    for targets in cases:
        n = len(targets) + 1
        a = list(range(n))
        for i, j in enumerate(targets.tolist()):
            a[i], a[j] = a[j], a[i]
        assert _apply_forward_swaps(targets, n).tolist() == a


def test_avx_polynomials_are_accurate_float32_functions():
    from dyngraph.avx_mathfun import log256_ps, sincos256_ps
    x = np.random.default_rng(2).random(10000).astype(np.float32) + np.float32(1e-3)
    np.testing.assert_allclose(log256_ps(x), np.log(x.astype(np.float64)), rtol=3e-7, atol=3e-7)
    t = np.float32(2 * np.pi) * x
    s, c = sincos256_ps(t)
    np.testing.assert_allclose(s, np.sin(t.astype(np.float64)), atol=3e-7)
    np.testing.assert_allclose(c, np.cos(t.astype(np.float64)), atol=3e-7)


def test_what_is_not_reproduced_still_has_the_right_distribution():
    """Two draws are not PyTorch's bits: ``orthogonal_``'s QR is numpy's LAPACK (PyTorch's is
    MKL's: the same normals in, equal to float32 rounding out), and on Intel CPUs PyTorch's
    MKL builds draw ``bernoulli_(p)`` -- dropout's mask -- through MKL's VSL generator
    (``vslNewStream(VSL_BRNG_MCG31, seed)`` seeded by one word of the stream; see
    ``bernoulli_scalar_kernel``, which takes that path only when cpuinfo reports an Intel
    vendor), so there a seeded dropout drops other units.  The masks here are the
    non-MKL kernel's, which PyTorch runs on AMD and every non-MKL build."""
    torch.manual_seed(0)
    w = torch.nn.init.orthogonal_(torch.empty(64, 128))
    np.testing.assert_allclose((w @ w.T).numpy(), np.eye(64), atol=2e-6)
    keep = torch.nn.functional.dropout(torch.ones(400, 500), 0.3) != 0
    assert abs(keep.float().mean().item() - 0.7) < 0.005


def test_avx_polynomials_unchecked_fma_is_exact_on_every_uniform(monkeypatch):
    """``avx_mathfun`` skips ``fma32``'s tie repair (a third of the numpy calls): sound
    because ``normal_fill`` feeds it only ``1 - u`` and ``2 pi u`` for the 2**24 float32
    uniforms ``u = k * 2**-24``, and on all of them it equals the checked FMA, bit for bit."""
    from functools import reduce

    from common.fma import fma32
    from dyngraph import avx_mathfun as avx
    k = np.arange(1 << 24, dtype=np.float32) * np.float32(2.0 ** -24)

    def run(chunk):
        return [avx.log256_ps(np.float32(1.0) - chunk).view(np.int32),
                *(v.view(np.int32) for v in avx.sincos256_ps(np.float32(2 * np.pi) * chunk))]

    checked_horner = lambda coefs, x: reduce(lambda y, c: fma32(y, x, c), coefs[1:], coefs[0])
    for i in range(0, 1 << 24, 1 << 21):
        fast = run(k[i:i + (1 << 21)])
        with monkeypatch.context() as m:
            m.setattr(avx, "_fma", fma32)
            m.setattr(avx, "_horner", checked_horner)
            for a, b in zip(fast, run(k[i:i + (1 << 21)])):
                np.testing.assert_array_equal(a, b)


def test_compiled_box_muller_is_the_numpy_one_on_every_uniform():
    """The compiled ``normal_fill`` (common.random_jit) against the numpy one: every float32
    uniform as a radius's and as an angle's input, bit for bit; float64 (libm) and a
    mean/std on a million random uniforms."""
    from common import fastpath
    from dyngraph.random_kernels import _box_muller_16
    k = np.arange(1 << 24, dtype=np.float32) * np.float32(2.0 ** -24)
    blocks = np.empty((1 << 21, 2, 8), np.float32)
    blocks[:, 0], blocks[:, 1] = k.reshape(-1, 8), k[::-1].reshape(-1, 8)
    u64 = np.random.default_rng(5).random(1 << 20)
    cases = [(blocks.reshape(-1), 0.0, 1.0, np.dtype(np.float32)),
             (k[:1 << 20], -1.5, 0.3, np.dtype(np.float32)),
             (u64, 0.0, 1.0, np.dtype(np.float64)), (u64, 2.0, 0.7, np.dtype(np.float64))]
    for u, mean, std, dtype in cases:
        with fastpath.forced(False):
            want = _box_muller_16(u, mean, std, dtype)
        with fastpath.forced(True) as compiled:
            if not compiled:
                pytest.skip("numba is not installed: no compiled kernels")
            got = _box_muller_16(u, mean, std, dtype)
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_compiled_kernels_load_only_for_a_big_draw(monkeypatch):
    """Small draws do not import numba (0.6 s of CPU); the first big one does, and from then
    on every draw uses the kernels.  Without numba the numpy code draws the same values."""
    import sys

    from common import fastpath
    monkeypatch.setattr(fastpath, "_loaded", None)
    monkeypatch.setattr(fastpath, "_available", True)
    assert fastpath.kernels(fastpath.THRESHOLD - 1) is None
    loaded = fastpath.kernels(fastpath.THRESHOLD)
    assert loaded is None or fastpath.kernels(1) is loaded
    torch.manual_seed(9)
    want = torch.randn(fastpath.THRESHOLD + 5)
    monkeypatch.setattr(fastpath, "_loaded", None)
    monkeypatch.setattr(fastpath, "_available", True)
    monkeypatch.setitem(sys.modules, "numba", None)           # as if numba were not installed
    torch.manual_seed(9)
    assert torch.equal(torch.randn(fastpath.THRESHOLD + 5), want)
    assert fastpath._loaded is None and not fastpath._available


def test_the_state_moves_between_the_numpy_and_the_compiled_engine():
    """One stream drawn alternately by numpy's bit generator and the compiled kernels (the
    state moves to whichever draws) is the stream drawn by either alone; reading the
    position moves nothing."""
    from common import fastpath
    from common.mt19937 import MT19937
    with fastpath.forced(False):
        want = MT19937(11).words(3000)
        mt = MT19937(11)
        assert mt.position()[1:] == mt.position()[1:] == (1, 0)
    parts = []
    for i, n in enumerate((5, 700, 1, 624, 1000, 670)):
        with fastpath.forced(i % 2 == 1) as compiled:
            if i == 1 and not compiled:
                pytest.skip("numba is not installed: no compiled kernels")
            parts.append(mt.words(n))
            mt.position()
    np.testing.assert_array_equal(np.concatenate(parts), want)

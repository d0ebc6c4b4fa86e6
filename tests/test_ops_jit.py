"""The generic ops' numba loops (``common.ops_jit``): the sum over every axis but the last (a
bias's gradient) and the select against +0.0 (a ReLU's gradient) give numpy's bits."""
from __future__ import annotations

import numpy as np
import pytest

from common import fastpath
from common.ops import elementwise as el, reduce as rd

RNG = np.random.default_rng(7)


@pytest.fixture
def jit_or_skip(monkeypatch):
    monkeypatch.setattr(rd, "LEADING_SUM_MIN", 0)
    if fastpath.jit_module("common.ops_jit") is None:
        pytest.skip("numba cannot load here: numpy's reduce is the only path")


@pytest.mark.parametrize("shape", [(64, 28, 28, 32), (3, 5, 7, 16), (1000, 8), (2, 3, 50001, 9),
                                   (4, 1, 64), (0, 3, 8)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("keepdims", [False, True])
def test_leading_sum_gives_numpys_bits(jit_or_skip, shape, dtype, keepdims):
    """Against ``np.add.reduce`` bit for bit: large and tiny values (rounding order shows),
    a column of -0.0 (the sum starts from +0.0), inf and NaN."""
    x = (RNG.standard_normal(shape) * np.exp(RNG.standard_normal(shape) * 4)).astype(dtype)
    if x.size:
        x[..., 0] = -0.0
        x.reshape(-1, shape[-1])[::3, 1] = np.inf
        x.reshape(-1, shape[-1])[::5, 2] = np.nan
    axis = tuple(range(len(shape) - 1))
    got = rd._sum(x, axis, keepdims)
    want = np.add.reduce(x, axis, None, None, keepdims)
    assert got.shape == want.shape and got.dtype == want.dtype
    ints = np.int32 if dtype == np.float32 else np.int64
    np.testing.assert_array_equal(got.view(ints), want.view(ints))


@pytest.mark.parametrize("x,axis", [
    (np.ones((40, 30, 4), np.float32), (0, 1)),               # a kept axis too short
    (np.ones((40, 30, 16), np.float32)[:, ::2], (0, 1)),      # not contiguous
    (np.ones((40, 30, 16), np.float32), (0, 2)),              # not the leading axes
    (np.ones((40, 30, 16), np.int32), (0, 1)),                # an integer sum is int64
    (-np.zeros(4096, np.float32), ())])                       # no axis: x itself, -0.0 kept
def test_other_sums_stay_numpys(jit_or_skip, x, axis):
    got, want = rd._sum(x, axis), np.add.reduce(x, axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("shape", [(64, 28, 28, 32), (300, 200), (7, 5000)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_select_against_zero_gives_numpys_bits(monkeypatch, shape, dtype):
    """``where(cond, a, +0.0)`` and ``where(cond, +0.0, a)`` by numba's loop against the numpy
    code bit for bit: NaN payloads, -0.0 and -inf kept where selected, +0.0 elsewhere (a
    float64's bit patterns above 2**53 included)."""
    monkeypatch.setattr(el, "SELECT_JIT_MIN", 0)
    if fastpath.jit_module("common.ops_jit") is None:
        pytest.skip("numba cannot load here: numpy's multiply is the only path")
    a = RNG.standard_normal(shape).astype(dtype)
    a.flat[::7], a.flat[::5], a.flat[::11] = np.nan, -0.0, -np.inf
    cond = RNG.random(shape) < 0.5
    ints = np.uint32 if dtype == np.float32 else np.uint64
    for args in ((cond, a, 0.0), (cond, 0.0, a), (cond, a, np.zeros((), dtype))):
        got = el._select(*args)
        monkeypatch.setitem(fastpath.JIT_MODULES, "common.ops_jit", None)
        want = el._select(*args)
        monkeypatch.delitem(fastpath.JIT_MODULES, "common.ops_jit")
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(ints), want.view(ints))


def test_the_loops_do_not_import_numba_themselves(monkeypatch):
    """Before anything loaded numba, a large sum or select stays numpy's (no ~0.3-0.6 s import
    for a fraction of a millisecond); once it is loaded they use it."""
    monkeypatch.delitem(fastpath.JIT_MODULES, "common.ops_jit", raising=False)
    import sys
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    assert fastpath.jit_module_if_loaded("common.ops_jit") is None
    assert "common.ops_jit" not in fastpath.JIT_MODULES
    monkeypatch.undo()
    if fastpath.jit_module("common.ops_jit") is None:
        pytest.skip("numba cannot load here")
    assert fastpath.jit_module_if_loaded("common.ops_jit") is fastpath.JIT_MODULES["common.ops_jit"]

"""Composite elementwise kernels by blocks (``common/blocked.py``): the whole-array bits."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph
from common import blocked
from common.ops.elementwise import _sigmoid


def _whole_sigmoid(x):
    """``_sigmoid``'s whole-array formula, as written there."""
    e = np.exp(-np.abs(x))
    return np.maximum(e, np.greater_equal(x, 0)) / (1.0 + e)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [blocked.MIN_SIZE, 3 * blocked.BLOCK + 17])
def test_sigmoid_by_blocks_has_the_whole_array_bits(dtype, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 30).astype(dtype)
    x[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -800.0, 800.0]
    assert blocked.blockable(x)
    got, want = _sigmoid(x), _whole_sigmoid(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_only_large_contiguous_float_arrays_go_by_blocks():
    big = np.ones(blocked.MIN_SIZE, np.float32)
    assert blocked.blockable(big)
    assert not blocked.blockable(big[: blocked.MIN_SIZE - 1])
    assert not blocked.blockable(big[::2].repeat(1)[::2])            # not contiguous
    assert not blocked.blockable(np.ones(blocked.MIN_SIZE, np.int64))
    x = np.linspace(-5, 5, 2 * blocked.MIN_SIZE, dtype=np.float32)[::2]   # a strided view
    np.testing.assert_array_equal(_sigmoid(x), _whole_sigmoid(x))


def test_eager_sigmoid_and_silu_use_it(monkeypatch):
    import common.ops.elementwise as ew
    calls = []
    monkeypatch.setattr(ew, "by_blocks", lambda *a, **k: calls.append(1) or blocked.by_blocks(*a, **k))
    x = np.linspace(-9, 9, 8 * 8200, dtype=np.float32).reshape(8, -1)
    t = dyngraph.tensor(x, requires_grad=True)
    s = dyngraph.sigmoid(t)
    np.testing.assert_array_equal(s.detach().numpy(), _whole_sigmoid(x))
    y = dyngraph.nn.functional.silu(t)
    np.testing.assert_array_equal(y.detach().numpy(), x * _whole_sigmoid(x))
    assert len(calls) == 2

"""common.libm64: glibc's double functions on arrays, the compiled loops and the value-by-value
path alike -- every value equal to Python's ``math`` (which calls glibc), specials included."""
import math

import numpy as np
import pytest

from common import fastpath, libm64

_SPECIALS = [0.0, -0.0, -1.0, -1.0 + 2.0 ** -52, 1e-310, -1e-310, 1e300, 709.7, 709.8, 800.0,
             -800.0, -745.2, np.inf, -np.inf, np.nan, math.pi / 2]


def _values() -> np.ndarray:
    r = np.random.default_rng(64)
    return np.concatenate([r.random(5000), r.standard_normal(5000) * 30, _SPECIALS])


def _math(name, *args):
    """math.<name> of one value, or nan where it raises (the domain's edges)."""
    try:
        return getattr(math, name)(*args)
    except (ValueError, OverflowError):
        return None


@pytest.fixture(params=["compiled", "value by value"])
def path(request, monkeypatch):
    if request.param == "compiled":
        if fastpath.jit_module("common.libm64_jit") is None:
            pytest.skip("numba is not installed")
    else:
        monkeypatch.setitem(fastpath.JIT_MODULES, "common.libm64_jit", None)
    return request.param


@pytest.mark.parametrize("name", ["log", "log1p", "exp", "sin", "cos", "tan"])
def test_each_value_is_glibcs(name, path):
    x = _values()
    got = getattr(libm64, name)(x)
    with np.errstate(all="ignore"):
        special = getattr(np, name)(x)
    for v, g, s in zip(x.tolist(), got.tolist(), special.tolist()):
        want = _math(name, v)
        want = s if want is None else want     # outside math's domain: the IEEE special value
        assert g == want or (math.isnan(g) and math.isnan(want)), (name, v, g, want)


def test_pow_is_glibcs(path):
    r = np.random.default_rng(65)
    x, y = r.random(3000), r.random(3000) * 5
    got = libm64.pow(x, y)
    assert got.tolist() == [math.pow(a, b) for a, b in zip(x.tolist(), y.tolist())]
    assert libm64.pow(np.array([0.0, 1.0, 2.0]), 2.0).tolist() == [0.0, 1.0, 4.0]   # broadcast


def test_shapes_are_kept(path):
    x = np.random.default_rng(66).random((3, 4, 5))
    assert libm64.log(x).shape == (3, 4, 5)
    assert libm64.log(x[:, ::2].T).shape == (5, 2, 3)              # any strides


def test_powf_is_glibcs(path):
    """Against the C library's own ``powf`` (ctypes), value by value."""
    c = libm64._c_powf()
    if c is None:
        pytest.skip("no C math library found")
    r = np.random.default_rng(67)
    x, y = (r.random(3000) * 100).astype(np.float32), np.float32(0.75)
    got = libm64.powf(x, y)
    assert got.dtype == np.float32
    assert got.tolist() == [np.float32(c(a, 0.75)).item() for a in x.tolist()]

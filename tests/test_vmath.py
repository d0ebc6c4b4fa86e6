"""``common.vmath``'s exp, tanh and sigmoid: error in ulps on dense sweeps, the special values,
and that a loop over them vectorises.

The truth for a float32 function is float64 numpy (its error is far below a float32 ulp);
for a float64 function, numpy's ``longdouble`` (x87 80-bit: 11 more bits).  An error is
``|got - truth|`` in units of the spacing of floats at the truth rounded to the dtype, so a
correctly rounded result is at most 0.5 ulp off.  :data:`common.vmath.MAX_ULP` states the
bounds these tests hold; the sweeps also compare with numpy's own float32/float64 results
(``np.exp``, ``np.tanh``, the registry's sigmoid formula), which are not correctly rounded
either.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from common import vmath

pytestmark = pytest.mark.skipif(not vmath.available, reason="numba is not installed")

# the inputs beyond which each result is a constant (inf, 0, +-1) in either dtype
_RANGE = {"exp": (-750.0, 710.0), "tanh": (-20.0, 20.0), "sigmoid": (-750.0, 40.0)}


def _sigmoid_ref(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1, e) / (1 + e)


_TRUTH = {"exp": np.exp, "tanh": np.tanh, "sigmoid": _sigmoid_ref}


def _ulps(got: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """``|got - truth|`` in ulps of ``got``'s dtype at ``truth`` (0 where both are the same
    special value; inf where one is NaN and the other not, or an inf is missed)."""
    with np.errstate(all="ignore"):
        want = truth.astype(got.dtype)
        err = np.abs(got.astype(truth.dtype) - truth) / np.spacing(np.abs(want)).astype(truth.dtype)
    same = (got == want) & ~np.isfinite(want) | np.isnan(got) & np.isnan(truth)
    return np.where(same, 0.0, np.where(np.isnan(err), np.inf, err))


def _float32_sweep(name: str) -> np.ndarray:
    """Every 97th float32 bit pattern of ``name``'s interesting range, both signs (from 0: the
    subnormals included), then the random values of :func:`_random`."""
    lo, hi = _RANGE[name]
    pos = np.arange(0, np.float32(max(-lo, hi)).view(np.uint32), 1021, dtype=np.uint32).view(np.float32)
    x = np.concatenate([pos, -pos, _random(np.float32)])
    return x[(x >= lo) & (x <= hi)]


def _random(dtype) -> np.ndarray:
    """Half a million values: normal with scale 3, and log-uniform magnitudes of both signs."""
    rng = np.random.default_rng(97)
    mags = np.exp(rng.uniform(np.log(1e-30), np.log(700), 250_000)) * rng.choice([-1, 1], 250_000)
    return np.concatenate([3 * rng.standard_normal(250_000), mags]).astype(dtype)


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid"])
def test_float32_error_in_ulps_on_a_dense_sweep(name):
    x = _float32_sweep(name)
    got = getattr(vmath, name)(x)
    assert got.dtype == np.float32
    with np.errstate(all="ignore"):
        truth = _TRUTH[name](x.astype(np.float64))
        numpy_own = _TRUTH[name](x)
    assert _ulps(got, truth).max() <= vmath.MAX_ULP[name, "float32"]
    # numpy's own float32 results are within a few ulps of the same truth: so are ours of them
    assert _ulps(got, numpy_own.astype(np.float64)).max() <= vmath.MAX_ULP[name, "float32"] + 3


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid"])
def test_float64_error_in_ulps(name):
    lo, hi = _RANGE[name]
    rng = np.random.default_rng(64)
    x = np.concatenate([_random(np.float64), rng.uniform(lo, hi, 250_000),
                        np.linspace(-1, 1, 50_001) * 0.7])          # around tanh's switch
    x = x[(x >= lo) & (x <= hi)]
    got = getattr(vmath, name)(x)
    assert got.dtype == np.float64
    with np.errstate(all="ignore"):
        truth = _TRUTH[name](x.astype(np.longdouble))
        numpy_own = _TRUTH[name](x).astype(np.longdouble)
    assert _ulps(got, truth).max() <= vmath.MAX_ULP[name, "float64"]
    assert _ulps(got, numpy_own).max() <= vmath.MAX_ULP[name, "float64"] + 1


def _specials(dtype):
    info = np.finfo(dtype)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, info.smallest_subnormal,
                     -info.smallest_subnormal, info.tiny, -info.tiny, info.max, -info.max], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid"])
def test_special_values_are_numpys(name, dtype):
    """Zeros (with tanh's sign), infinities, NaN, subnormals, the largest floats: numpy's
    results exactly."""
    x = _specials(dtype)
    with np.errstate(all="ignore"):
        want = _TRUTH[name](x)
    got = getattr(vmath, name)(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exp_overflow_and_underflow_edges(dtype):
    """Around the largest finite result, the smallest normal one and the last subnormal:
    the 2000 floats on each side of each edge, in ulps of the truth (a subnormal's ulp is
    the smallest subnormal)."""
    edges = {np.float32: (88.72283935546875, -87.33654475, -103.97207708),
             np.float64: (709.782712893384, -708.3964185322641, -745.1332191019412)}[dtype]
    steps = np.arange(-2000, 2001)
    x = np.concatenate([(np.float64(e) + steps * np.spacing(dtype(e)).astype(np.float64)).astype(dtype)
                        for e in edges])
    wide = np.longdouble if dtype == np.float64 else np.float64
    with np.errstate(all="ignore"):
        truth = np.exp(x.astype(wide))
    got = vmath.exp(x)
    assert _ulps(got, truth).max() <= vmath.MAX_ULP["exp", np.dtype(dtype).name]
    assert np.isinf(got).any() and (got == 0).any() and (got < np.finfo(dtype).tiny).any()


def test_sigmoid_is_relatively_accurate_far_below_zero():
    """``e / (1 + e)``: no cancellation; the result is ``exp(x)`` to the ulp down to where it
    is subnormal (the naive ``1 - 1/(1 + e)`` would be 0 below -17)."""
    x = np.linspace(-87, -17, 100_001).astype(np.float32)
    got = vmath.sigmoid(x)
    assert _ulps(got, _sigmoid_ref(x.astype(np.float64))).max() <= vmath.MAX_ULP["sigmoid", "float32"]
    assert (got > 0).all()


def test_dtype_and_shape_are_kept():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]      # not contiguous
    for name in ("exp", "tanh", "sigmoid"):
        got = getattr(vmath, name)(x)
        assert got.shape == (3, 2) and got.dtype == np.float32
        assert getattr(vmath, name)(np.float64(0.5)).dtype == np.float64
        assert getattr(vmath, name)(np.arange(3)).dtype == np.float64   # ints: in float64


def test_a_loop_over_them_vectorises():
    """The point of the module: LLVM turns a loop over these into vector code (a ``/`` with
    numba's ZeroDivisionError check, or a libm call, would keep it scalar)."""
    from numba import njit

    @njit
    def loop(x, a, b, c):
        for k in range(x.size):
            a[k], b[k], c[k] = vmath.exp(x[k]), vmath.tanh(x[k]), vmath.sigmoid(x[k])

    for dtype, lane in ((np.float32, "float"), (np.float64, "double")):
        x = np.linspace(-3, 3, 64).astype(dtype)
        outs = [np.empty_like(x) for _ in range(3)]
        loop(x, *outs)
        np.testing.assert_array_equal(outs[0], vmath.exp(x))
        llvm = loop.inspect_llvm(loop.signatures[-1])
        assert re.search(rf"<\d+ x {lane}>", llvm), f"{dtype.__name__}: the loop stayed scalar"
        assert not re.search(r"call [^\n]*@(expf?|tanhf?)\(", llvm)


def test_importable_without_numba(monkeypatch):
    """Where numba is missing the module still imports (a fresh copy, with
    ``numba_module`` finding nothing), and its functions compute numpy's formulas."""
    import importlib.util

    from common import fastpath
    monkeypatch.setattr(fastpath, "numba_module", lambda: None)
    spec = importlib.util.spec_from_file_location("common._vmath_without_numba", vmath.__file__)
    bare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bare)
    assert not bare.available
    x = np.array([-1.0, 0.0, 2.0, np.nan], np.float32)
    np.testing.assert_array_equal(bare.exp(x), np.exp(x))
    np.testing.assert_array_equal(bare.tanh(x), np.tanh(x))
    np.testing.assert_array_equal(bare.sigmoid(x), _sigmoid_ref(x))
    assert bare.sigmoid(x).dtype == np.float32


class _Traced:
    """A float32 array standing for one LLVM value of :mod:`common.vmath`'s formulas: its
    arithmetic computes with numpy and marks, per element, an operation Intel runs with a
    microcode assist (~100 cycles a vector): a subnormal result, or a subnormal operand of a
    multiply, divide or fused multiply-add (adds and subtracts of one are free, measured)."""

    __slots__ = ("v", "slow")

    def __init__(self, v, slow):
        self.v, self.slow = np.asarray(v, np.float32), slow

    @staticmethod
    def _value(o):
        return o.v if isinstance(o, _Traced) else np.float32(o)

    def _op(self, ufunc, a, b, checked):
        a, b = self._value(a), self._value(b)
        with np.errstate(all="ignore"):
            out = ufunc(a, b)
        _mark(self.slow, out, *((a, b) if checked else ()))
        return _Traced(out, self.slow)

    def __add__(self, o): return self._op(np.add, self, o, False)
    def __radd__(self, o): return self._op(np.add, o, self, False)
    def __sub__(self, o): return self._op(np.subtract, self, o, False)
    def __rsub__(self, o): return self._op(np.subtract, o, self, False)
    def __mul__(self, o): return self._op(np.multiply, self, o, True)
    def __rmul__(self, o): return self._op(np.multiply, o, self, True)
    def __truediv__(self, o): return self._op(np.divide, self, o, True)
    def __rtruediv__(self, o): return self._op(np.divide, o, self, True)
    def __neg__(self): return _Traced(-self.v, self.slow)
    def __lt__(self, o): return self.v < self._value(o)
    def __gt__(self, o): return self.v > self._value(o)
    def __ge__(self, o): return self.v >= self._value(o)
    def __eq__(self, o): return self.v == self._value(o)        # type: ignore[override]
    def __ne__(self, o): return self.v != self._value(o)        # type: ignore[override]


def _subnormal(a):
    a = np.abs(np.asarray(a, np.float32))
    return (a > 0) & (a < np.finfo(np.float32).tiny)


def _mark(slow, out, *operands):
    slow |= _subnormal(out)
    for a in operands:
        slow |= _subnormal(a)


def _traced_ops(slow):
    """``vmath``'s ``m`` for :class:`_Traced` values (the bit operations are no float
    arithmetic: ``scale`` an integer add, ``from_bits`` a conversion and a bit cast)."""
    from types import SimpleNamespace
    value = _Traced._value

    def fma(a, b, c):
        a, b, c = value(a), value(b), value(c)
        out = (a.astype(np.float64) * b + c).astype(np.float32)
        _mark(slow, out, a, b, c)
        return _Traced(out, slow)

    def scale(x, n):
        n = np.int32(n) if isinstance(n, int) else value(n).astype(np.int32)
        return _Traced((value(x).view(np.int32) + (n << np.int32(23))).view(np.float32), slow)

    def from_bits(q):
        with np.errstate(invalid="ignore"):
            return _Traced(np.rint(value(q)).astype(np.int32).view(np.float32), slow)

    return SimpleNamespace(fma=fma, scale=scale, from_bits=from_bits,
                           select=lambda c, a, b: _Traced(np.where(c, value(a), value(b)), slow))


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid"])
def test_no_float_operation_sees_or_makes_a_subnormal(name):
    """Saturated activations (an LSTM's gates far from 0, its cell state near it) must not
    run at a tenth of the speed: for any input (subnormal ones included), no multiply,
    divide or fma has a subnormal operand and no operation rounds to a subnormal --
    exp(-95)'s own subnormal result is built from its bits, sigmoid(-95) selects it, exp
    and tanh compute on 0 where the result is 1 or x (else exp's r * r, tanh's x * x
    underflow), tanh on 16 where it is +-1 (else 2 / exp(2|x|) does, around |x| = 44).
    Checked on the formulas themselves, run on numpy values that mark each such operation;
    their results are vmath's within an ulp (this fma rounds twice)."""
    x = np.concatenate([_float32_sweep(name), np.linspace(-110, 110, 200_001, dtype=np.float32)])
    slow = np.zeros(x.shape, bool)
    got = vmath._FORMULAS[name](_Traced(x, slow), vmath._F32, _traced_ops(slow)).v
    assert _ulps(got, getattr(vmath, name)(x).astype(np.float64)).max() <= 1
    assert not slow.any(), x[slow][:10]


def test_sigmoid_far_below_zero_is_the_registry_kernels():
    """Below -87 a float32 sigmoid is subnormal: the registry's numpy kernel (``exp(x) /
    (1 + exp(x))``) gives those subnormals, not PyTorch's 0 (its ``1 / (1 + exp(-x))``
    overflows to ``1 / inf`` there), and vmath, which the fused kernels run in its place,
    gives the same values -- a few units of the subnormal spacing apart at most."""
    from common.ops.elementwise import _sigmoid
    x = np.arange(np.float32(-87).view(np.uint32), np.float32(-105).view(np.uint32),
                  dtype=np.uint32).view(np.float32)
    got, want = vmath.sigmoid(x), _sigmoid(x)
    assert want[x <= -96].max() > 0 and (want[x < -104] == 0).all()
    assert np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32)).max() <= 2

"""torch.special, torch.signal.windows, the IEEE/integer elementwise functions, and their TF
counterparts in staticgraph: keyword arguments, edge values and refusals the op_db replay
does not reach. Every literal was printed by torch 2.13 / TF 2.21 on the same inputs.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf

nan, inf = math.nan, math.inf
W = torch.signal.windows


def close(t, want, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(t.tolist(), np.float64), np.asarray(want, np.float64),
                               rtol=rtol, atol=1e-7)


@pytest.mark.parametrize("call,want", [
    (lambda: W.general_cosine(5, a=[0.5, 0.3, 0.2], sym=False),
     [0.4, 0.24549148976802826, 0.8045085072517395, 0.8045084476470947, 0.24549150466918945]),
    (lambda: W.exponential(4, center=1.0, tau=2.0, sym=False),
     [0.6065306663513184, 1.0, 0.6065306663513184, 0.3678794503211975]),
    (lambda: W.kaiser(6, beta=3.0, sym=False),
     [0.20488473773002625, 0.5530529022216797, 0.8712418675422668, 1.0, 0.8712418675422668,
      0.5530529022216797]),
    (lambda: W.gaussian(5, std=0.7, dtype=torch.float64),
     [0.016879884148789926, 0.3604477885978211, 1.0, 0.3604477885978211, 0.016879884148789926]),
    (lambda: W.hamming(4, sym=False), [0.08, 0.54, 1.0, 0.54]),
    (lambda: W.cosine(3), [0.5, 1.0, 0.5]),
    (lambda: W.bartlett(6, sym=False), [0.0, 1 / 3, 2 / 3, 1.0, 2 / 3, 1 / 3]),
    (lambda: W.nuttall(5), [0.00036279670894145966, 0.22698242962360382, 1.0, 0.22698239982128143,
                            0.00036279670894145966]),
    (lambda: W.general_hamming(5, alpha=0.6), [0.2, 0.6, 1.0, 0.6, 0.2]),
])
def test_windows_take_torchs_keywords(call, want):
    close(call(), want)


def test_window_dtype_and_requires_grad():
    assert W.gaussian(3, dtype=torch.float64).dtype == torch.float64
    assert W.hann(3).dtype == torch.float32 and W.hann(3, requires_grad=True).requires_grad


@pytest.mark.parametrize("call,kind,message", [
    (lambda: W.hann(-1), ValueError, "general_cosine requires non-negative window length, got M=-1"),
    (lambda: W.hann(3, dtype=torch.int32), ValueError,
     "general_cosine expects float32 or float64 dtypes, got: torch.int32"),
    (lambda: W.exponential(3, tau=0.0), ValueError, "Tau must be positive, got: 0.0 instead."),
    (lambda: W.exponential(3, center=1.0), ValueError, "Center must be None for symmetric windows"),
    (lambda: W.gaussian(3, std=-1.0), ValueError,
     "Standard deviation must be positive, got: -1.0 instead."),
    (lambda: W.kaiser(3, beta=-1.0), ValueError, "beta must be non-negative, got: -1.0 instead."),
    (lambda: W.general_cosine(3, a=[]), ValueError, "Coefficients cannot be empty"),
    (lambda: W.general_cosine(3, a=1.0), TypeError, "Coefficients must be a list/tuple"),
    (lambda: torch.logcumsumexp(torch.tensor([1, 2]), 0), NotImplementedError,
     "\"logcumsumexp_out_cpu\" not implemented for 'Long'"),
    (lambda: torch.tensor([1.5]) & torch.tensor([1.0]), NotImplementedError,
     "\"bitwise_and_cpu\" not implemented for 'Float'"),
    (lambda: torch.gcd(torch.tensor([True]), torch.tensor([True])), NotImplementedError,
     "\"gcd_cpu\" not implemented for 'Bool'"),
    (lambda: torch.bitwise_left_shift(torch.tensor([1.0]), torch.tensor([1])), NotImplementedError,
     "\"lshift_cpu\" not implemented for 'Float'"),
    (lambda: torch.hypot(torch.tensor([1]), torch.tensor([1])), NotImplementedError,
     "\"hypot_cpu\" not implemented for 'Long'"),
    (lambda: torch.heaviside(torch.tensor([1.0]), torch.tensor([1])), RuntimeError,
     "heaviside is not yet implemented for tensors with different dtypes."),
    (lambda: torch.positive(torch.tensor([True])), RuntimeError,
     "The `+` operator, on a bool tensor is not supported."),
    (lambda: torch.mvlgamma(torch.tensor([2.0]), 0), RuntimeError,
     "p has to be greater than or equal to 1"),
    (lambda: torch.frexp(torch.tensor([1])), RuntimeError,
     "torch.frexp() only supports floating-point dtypes"),
])
def test_refusals_are_torchs(call, kind, message):
    with pytest.raises(kind) as e:
        call()
    assert str(e.value) == message


def test_bitwise_operators_and_shifts():
    t = torch.tensor([-8, 8, 5, 1])
    assert [(1 & t).tolist(), (t ^ 3).tolist(), (t << 2).tolist(), (t >> 1).tolist(),
            (~t).tolist(), (~torch.tensor([True, False])).tolist(), (6 | t).tolist(),
            (3 ^ t).tolist(), (2 << t[2:]).tolist(), (64 >> t[2:]).tolist()] == [
        [0, 0, 1, 1], [-5, 11, 6, 2], [-32, 32, 20, 4], [-4, 4, 2, 0], [7, -9, -6, -2],
        [False, True], [-2, 14, 7, 7], [-5, 11, 6, 2], [64, 4], [2, 32]]
    # a count below 0 or of the type's width or more shifts everything out
    assert torch.bitwise_right_shift(torch.tensor([-8, 8, -8, 5]),
                                     torch.tensor([70, 70, -1, 1])).tolist() == [-1, 0, -1, 2]
    assert torch.bitwise_left_shift(torch.tensor([-8, 8, 1]),
                                    torch.tensor([70, -1, 63])).tolist() == [0, 0, -2 ** 63]
    out = torch.bitwise_left_shift(torch.tensor([1, 3], dtype=torch.int8), 7)
    assert out.dtype == torch.int8 and out.tolist() == [-128, -128]
    assert torch.tensor([2, 3]).__rdiv__(2).tolist() == pytest.approx([1.0, 2 / 3])


def test_integer_and_ieee_functions():
    m, e = torch.frexp(torch.tensor([3., -0.5, 0., 1024., inf]))
    assert m.tolist() == [0.75, -0.5, 0.0, 0.5, inf] and e.tolist() == [2, 0, 0, 11, 0]
    assert e.dtype == torch.int32 and type(torch.frexp(m)).__name__ == "frexp"
    assert torch.gcd(torch.tensor([12, -18, 0, 7]), torch.tensor([8, 12, 0, -21])).tolist() == [4, 6, 0, 7]
    assert torch.lcm(torch.tensor([4, -6, 0]), torch.tensor([6, 4, 5])).tolist() == [12, 12, 0]
    assert torch.heaviside(torch.tensor([-1, 0, 2]), torch.tensor([7])).tolist() == [0, 7, 1]
    close(torch.heaviside(torch.tensor([-1.5, 0., 2.]), torch.tensor([0.5])), [0.0, 0.5, 1.0])
    close(torch.copysign(torch.tensor([1., -2., 3.]), torch.tensor([-0., 1., -1.])), [-1., 2., -3.])
    close(torch.fmax(torch.tensor([1., nan, nan]), torch.tensor([nan, 2., nan])), [1., 2., nan])
    assert torch.isposinf(torch.tensor([inf, -inf, nan, 1.])).tolist() == [True, False, False, False]
    assert torch.signbit(torch.tensor([-0., 0., -1., nan])).tolist() == [True, False, True, False]
    close(torch.mvlgamma(torch.tensor([0.2, -1.0]), 3), [6.4532, inf], rtol=1e-4)
    close(torch.special.multigammaln(torch.tensor([2, 3]), 2), [0.4515827, 1.5501950], rtol=1e-6)


X = [-1., -0.5, 0., 0.5, 1., 2.]
N = [3., -1., 2.7, 10., 7., 1.]   # a negative degree gives 0; 2.7 is degree 2


@pytest.mark.parametrize("name,want", [
    ("chebyshev_polynomial_t", [-1.0, 0.0, -1.0, -0.4999999999999983, 1.0, 2.0]),
    ("chebyshev_polynomial_u", [-4.0, 0.0, -1.0, -0.9999999999999994, 8.0, 4.0]),
    ("chebyshev_polynomial_v", [-7.0, 0.0, -1.0, 1.5562250874041784e-15, 1.0, 3.0]),
    ("chebyshev_polynomial_w", [-1.0, 0.0, -1.0, -2.0, 15.0, 5.0]),
    ("shifted_chebyshev_polynomial_t", [-99.0, 0.0, 1.0, -1.0, 1.0, 3.0]),
    ("shifted_chebyshev_polynomial_u", [-204.0, 0.0, 3.0, -1.0, 8.0, 6.0]),
    ("shifted_chebyshev_polynomial_v", [-239.0, 0.0, 5.0, -0.9999999999999997, 1.0, 5.0]),
    ("shifted_chebyshev_polynomial_w", [-169.0, 0.0, 1.0, -1.0000000000000002, 15.0, 7.0]),
    ("hermite_polynomial_h", [4.0, 0.0, -2.0, 22591.0, 464.0, 4.0]),
    ("hermite_polynomial_he", [2.0, 0.0, -1.0, 49.0439453125, -20.0, 2.0]),
    ("laguerre_polynomial_l", [5.666666666666667, 0.0, 1.0, -0.3893744141378521,
                               -0.040476190476190554, -1.0]),
    ("legendre_polynomial_p", [-1.0, 0.0, -0.5, -0.18822860717773438, 1.0, 2.0]),
])
def test_polynomials_follow_torchs_kernels(name, want):
    f = getattr(torch.special, name)
    close(f(torch.tensor(X, dtype=torch.float64), torch.tensor(N, dtype=torch.float64)), want,
          rtol=1e-9)


def test_polynomial_degree_forms_and_limits():
    S = torch.special
    assert math.isnan(S.hermite_polynomial_h(torch.tensor([0.5]), torch.tensor([129.])).item())
    close(S.hermite_polynomial_h(torch.tensor([0.5], dtype=torch.float64),
                                 torch.tensor([129.], dtype=torch.float64)), [5.421148316043319e+127])
    close(S.legendre_polynomial_p(torch.tensor([0.3, 0.6]), 2), [-0.365, 0.04], rtol=1e-5)
    out = S.legendre_polynomial_p(torch.tensor([0.3, 0.6]), torch.tensor([2, 3]))
    assert out.dtype == torch.float32
    close(out, [-0.365, -0.36], rtol=1e-5)


def test_special_edges():
    S = torch.special
    close(S.zeta(2.0, torch.tensor([1.0, 2.0])), [1.644934058189392, 0.6449340581893921])
    close(S.entr(torch.tensor([-1., 0., 0.5, nan])), [-inf, 0.0, 0.3465735912322998, nan])
    close(S.ndtri(torch.tensor([0., 0.5, 1., 1.5])), [-inf, 0.0, inf, nan])
    close(S.modified_bessel_k0(torch.tensor([-1., 0., 1.])), [nan, inf, 0.42102447152137756])
    close(S.bessel_y0(torch.tensor([-1., 0., 1.])), [nan, -inf, 0.08825694769620895])
    close(torch.sinc(torch.tensor([0., 0.5, 1.])), [1.0, 0.6366197466850281, 0.0])
    t = torch.tensor([0.5, 2.0])
    assert S.psi(t).tolist() == torch.digamma(t).tolist() and S.gammaln(t).tolist() == torch.lgamma(t).tolist()
    assert S.expit(t).tolist() == torch.sigmoid(t).tolist()


def test_staticgraph_has_tfs_special_and_bitwise_ops():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([0.5, 1.5])
        i = tf.constant([12, 10])
        ts = [tf.math.special.bessel_k0e(x), tf.math.bessel_i0(x), tf.erfc(x),
              tf.math.ndtri(tf.constant(0.3)), tf.math.igamma(x, x), tf.zeta(tf.constant([2., 3.]), x),
              tf.math.xlog1py(x, x), tf.math.cumulative_logsumexp(x),
              tf.bitwise.bitwise_and(i, tf.constant(6)), tf.bitwise.invert(i),
              tf.bitwise.left_shift(i, tf.constant(2)), tf.bitwise.right_shift(i, tf.constant(1))]
        assert [t.name for t in ts] == [
            "bessel_k0e/BesselK0e:0", "bessel_i0/BesselI0:0", "Erfc:0", "ndtri/Ndtri:0", "Igamma:0",
            "Zeta:0", "xlog1py/Xlog1py:0", "CumulativeLogsumexp:0", "BitwiseAnd:0", "Invert:0",
            "LeftShift:0", "RightShift:0"]
        grad = tf.gradients(tf.reduce_sum(tf.math.special.bessel_j1(x)), x)[0]
        with tf.Session() as s:
            got = s.run(ts + [grad])
    want = [[1.5241094, 0.95821005], [1.0634834, 1.6467232], [0.47950011, 0.03389485], -0.5244005,
            [0.6826895, 0.60837483], [4.934802, 0.4143983], [0.20273255, 1.3744361],
            [0.5, 1.8132616], [4, 2], [-13, -11], [48, 40], [6, 5], [0.45393294, 0.13987002]]
    for g_, w in zip(got, want):
        np.testing.assert_allclose(g_, w, rtol=1e-5)

"""tf.math's special functions, inverse trig, cumprod and the parameterised random draws.

Expected values, node names and op types were printed by TensorFlow 2.21 (``tf.compat.v1``,
graph mode) and, for the float64 special-function values, by PyTorch 2.13.
"""
import numpy as np
import pytest

import staticgraph as tf
from common import REGISTRY


pytestmark = pytest.mark.usefixtures("fresh_graph")


X = [1., 2., 0., 3.]
Y = [0.5, -1., 2., 4.]


def test_names_types_and_values_match_tf():
    x, y = tf.constant(X), tf.constant(Y)
    cases = {  # name, type, TF's value
        "cumprod": (tf.cumprod(x), "Cumprod:0", "Cumprod", [1, 2, 0, 0]),
        "excl": (tf.math.cumprod(x, exclusive=True), "Cumprod_1:0", "Cumprod", [1, 1, 2, 0]),
        "rev": (tf.cumprod(x, reverse=True), "Cumprod_2:0", "Cumprod", [0, 0, 0, 3]),
        "both": (tf.cumprod(x, exclusive=True, reverse=True), "Cumprod_3:0", "Cumprod", [0, 0, 3, 1]),
        "atan2": (tf.atan2(y, x), "Atan2:0", "Atan2", [0.4636476, -0.4636476, 1.5707964, 0.9272952]),
        "lgamma": (tf.math.lgamma(y), "Lgamma:0", "Lgamma", [0.5723649, np.inf, 0., 1.7917595]),
        "digamma": (tf.math.digamma(y), "Digamma:0", "Digamma", [-1.9635108, np.nan, 0.4227842, 1.2561177]),
        "xdivy": (tf.math.xdivy(x, y), "xdivy/Xdivy:0", "Xdivy", [2., -2., 0., 0.75]),
        "xlogy": (tf.math.xlogy(x, tf.abs(y)), "Xlogy:0", "Xlogy", [-0.6931472, 0., 0., 4.158883]),
        "asin": (tf.asin(y / 4), "Asin:0", "Asin", [0.12532783, -0.25268024, 0.5235988, 1.5707964]),
        "acos": (tf.acos(y / 4), "Acos:0", "Acos", [1.4454685, 1.8234766, 1.0471976, 0.]),
        "atan": (tf.atan(y), "Atan:0", "Atan", [0.4636476, -0.7853982, 1.1071488, 1.3258177]),
        "sinh": (tf.sinh(y), "Sinh:0", "Sinh", [0.5210953, -1.1752012, 3.6268604, 27.289919]),
        "cosh": (tf.cosh(y), "Cosh:0", "Cosh", [1.127626, 1.5430806, 3.7621958, 27.308231]),
        "asinh": (tf.asinh(y), "Asinh:0", "Asinh", [0.48121184, -0.8813736, 1.4436355, 2.0947125]),
        "acosh": (tf.acosh(x + 1), "Acosh:0", "Acosh", [1.316958, 1.7627472, 0., 2.063437]),
        "atanh": (tf.math.atanh(y / 4), "Atanh:0", "Atanh", [0.12565722, -0.25541282, 0.54930615, np.inf]),
        "polygamma": (tf.math.polygamma(1., y), "Polygamma:0", "Polygamma",
                      [4.934802, np.inf, 0.6449341, 0.28382298]),
    }
    with tf.Session() as s, np.errstate(all="ignore"):
        values = s.run({k: v[0] for k, v in cases.items()})
    for key, (t, name, op_type, want) in cases.items():
        assert (t.name, t.op.type, t.dtype) == (name, op_type, tf.float32), key
        assert values[key].dtype == np.float32
        np.testing.assert_allclose(values[key], want, rtol=2e-6, err_msg=key)


def test_gradients_match_tf_at_zeros():
    """xlogy's and cumprod's gradients at x == 0 are TF's: 0 (cumprod's true value would be 8)."""
    x, y = tf.constant(X), tf.constant(Y)
    gx, gy = tf.gradients(tf.reduce_sum(tf.math.xlogy(x, tf.abs(y))), [x, y])
    (gc,) = tf.gradients(tf.reduce_sum(tf.cumprod(x)), x)
    (gd,) = tf.gradients(tf.reduce_sum(tf.math.digamma(y)), y)
    with tf.Session() as s, np.errstate(all="ignore"):
        gx, gy, gc, gd = s.run([gx, gy, gc, gd])
    np.testing.assert_allclose(gx, [-0.6931472, 0., 0., 1.3862944], rtol=1e-6)
    np.testing.assert_allclose(gy, [2., -2., 0., 0.75], rtol=1e-6)
    np.testing.assert_array_equal(gc, [3., 1., 0., 0.])
    np.testing.assert_allclose(gd, [4.934802, np.inf, 0.6449341, 0.28382298], rtol=1e-6)


def test_cumprod_gradient_is_exact_without_zeros():
    x = tf.constant([[1.5, -2., 0.5], [3., 0.25, -1.]], tf.float64)
    for exclusive in (False, True):
        for reverse in (False, True):
            (g,) = tf.gradients(tf.reduce_sum(tf.cumprod(x, axis=1, exclusive=exclusive, reverse=reverse)), x)
            with tf.Session() as s:
                got, xv = s.run([g, x])
            want = np.zeros_like(xv)
            for r in range(2):
                for i in range(3):
                    for j in range(3):  # d out_j / d x_i
                        idx = [k for k in range(3) if (k >= j if reverse else k <= j)]
                        if exclusive:
                            idx.remove(j)
                        if i in idx:
                            want[r, i] += np.prod([xv[r, k] for k in idx if k != i])
            np.testing.assert_allclose(got, want, err_msg=f"{exclusive=} {reverse=}")


def test_cumprod_keeps_integer_dtype():
    with tf.Session() as s:
        out = s.run(tf.cumprod(tf.constant([1, 2, 3])))
    assert out.dtype == np.int32 and out.tolist() == [1, 2, 6]


def test_special_functions_float64_match_pytorch():
    x = np.array([0.3, 1.0, 2.5, 7., 12., 40., -2.5, -0.3])
    np.testing.assert_allclose(REGISTRY["Digamma"].impl(x), [
        -3.502524222200133, -0.5772156649015328, 0.7031566406452431, 1.872784335098467,
        2.4426616799758123, 3.6763273740348428, 1.1031566406452433, 2.1133097796353986], rtol=1e-13)
    np.testing.assert_allclose(REGISTRY["Polygamma"].impl(np.array(1.), x), [
        12.245364544940365, 1.6449340676383375, 0.4903577562398206, 0.1535451779624394,
        0.08690187287193527, 0.025315103841291063, 9.53924664493752, 13.945160267262267], rtol=1e-9)
    # PyTorch's trigamma is good to ~1e-9; the closed forms hold to float64's precision
    np.testing.assert_allclose(REGISTRY["Polygamma"].impl(np.array([1., 1., 3.]), np.array([1., 0.5, 1.])),
                               [np.pi ** 2 / 6, np.pi ** 2 / 2, np.pi ** 4 / 15], rtol=1e-14)
    np.testing.assert_allclose(REGISTRY["Polygamma"].impl(np.array(3.), x), [
        743.1417646550497, 6.493939402266829, 0.2239058488172521, 0.007198198563125444,
        0.001310093231070826, 3.24414001515635e-05, 194.74787621918756, 766.6198904191684], rtol=1e-12)
    np.testing.assert_allclose(REGISTRY["Lgamma"].impl(x), [
        1.0957979948180756, 0.0, 0.2846828704729192, 6.579251212010101, 17.502307845873887,
        106.63176026064346, -0.05624371649767405, 1.4648400508576025], rtol=1e-13, atol=1e-15)


def test_random_poisson_and_gamma_names_shapes_and_statistics():
    p = tf.random.poisson([2., 50.], [4000], seed=1)
    g = tf.random.gamma([4000], [1., 2.], beta=[1., 4.], seed=1)
    g2 = tf.random_gamma([3, 2], 2., dtype=tf.float64)
    assert (p.name, p.op.type, p.dtype, p.shape.as_list()) == (
        "random_poisson/RandomPoissonV2:0", "RandomPoissonV2", tf.float32, [4000, 2])
    assert (g.name, g.op.type, g.dtype, g.shape.as_list()) == (
        "random_gamma/Maximum:0", "Maximum", tf.float32, [4000, 2])
    assert g2.dtype == tf.float64 and g2.shape.as_list() == [3, 2]
    assert tf.random_poisson([2.], [3], dtype=tf.int32).dtype == tf.int32
    with tf.Session() as s:
        pv, gv = s.run([p, g])
        gv2 = s.run(g)
    assert np.all(pv == np.round(pv)) and pv.min() >= 0
    # mean lam, variance lam; Gamma(a, rate b): mean a/b, variance a/b^2 (bounds: > 6 sigma)
    np.testing.assert_allclose(pv.mean(0), [2., 50.], rtol=0.05)
    np.testing.assert_allclose(pv.var(0), [2., 50.], rtol=0.2)
    np.testing.assert_allclose(gv.mean(0), [1., 0.5], rtol=0.1)
    np.testing.assert_allclose(gv.var(0), [1., 0.125], rtol=0.25)
    assert gv.min() > 0 and not np.array_equal(gv, gv2)  # each run draws anew


def test_random_poisson_seeds_replay_per_session():
    tf.set_random_seed(3)
    p = tf.random.poisson([3.], [5])
    with tf.Session() as s:
        first = s.run(p)
    with tf.Session() as s:
        assert np.array_equal(s.run(p), first)


def test_identity_initializer():
    v = tf.get_variable("v", [2, 3], initializer=tf.initializers.identity(gain=2.))
    t = tf.initializers.identity()([2, 2], dtype=tf.float64)
    assert (t.name, t.dtype) == ("mul:0", tf.float64)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(v), [[2., 0., 0.], [0., 2., 0.]])
    with pytest.raises(ValueError, match=r"The tensor to initialize, specified by argument `shape` "
                       r"must be at least two-dimensional. Received shape=\[2, 3, 4\]"):
        tf.get_variable("w", [2, 3, 4], initializer=tf.initializers.identity())
    tf.get_variable("w", [2, 2], initializer=tf.initializers.identity())  # state still usable


def test_reciprocal_reports_tfs_type():
    r = tf.math.reciprocal(tf.constant([0.5, -1.]))
    assert (r.name, r.op.type) == ("Reciprocal:0", "Reciprocal")
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(r), [2., -1.])


def test_softplus_family_gradients_at_zero_match_tf():
    """Softplus is one op (type Softplus) whose gradient is sigmoid(x): 1/2 at x == 0, where a
    relu + log1p(exp(-|x|)) composite gave 0 (zero-initialised logits hit exactly that point)."""
    x = tf.constant([-100., -1., 0., 2., 100.])
    z = tf.constant([0., 1., 1., 0., 1.])
    sp = tf.nn.softplus(x)
    ce = tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    wce = tf.nn.weighted_cross_entropy_with_logits(labels=z, logits=x, pos_weight=2.)
    ls = tf.math.log_sigmoid(x)
    assert [(t.name, t.op.type) for t in (sp, ce, ls)] == [
        ("Softplus:0", "Softplus"), ("logistic_loss:0", "AddV2"), ("LogSigmoid:0", "Neg")]
    grads = [tf.gradients(t, x)[0] for t in (sp, ce, wce, ls)]
    with tf.Session() as s:
        g_sp, g_ce, g_wce, g_ls = s.run(grads)
        v_ls = s.run(tf.math.log_sigmoid(tf.constant([-7.0, 7.0])))
    np.testing.assert_allclose(g_sp, [3.783506e-44, 0.2689414, 0.5, 0.880797, 1.0], rtol=1e-6)
    np.testing.assert_allclose(g_ce, [3.783506e-44, -0.7310586, -0.5, 0.880797, 0.0], rtol=1e-6, atol=1e-30)
    # TF's weighted form keeps relu/abs composites: its gradient at 0 is TF's 0 (not -1)
    np.testing.assert_allclose(g_wce, [0.0, -1.462117, 0.0, 0.8807971, 0.0], rtol=1e-6, atol=1e-30)
    np.testing.assert_allclose(g_ls, [1.0, 0.7310586, 0.5, 0.11920292, 0.0], rtol=1e-6, atol=1e-30)
    np.testing.assert_allclose(v_ls, [-7.000911, -0.000911416], rtol=1e-6)  # TF's float32 bits

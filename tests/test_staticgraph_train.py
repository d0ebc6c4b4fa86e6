"""Optimizers against hand-computed TF1 updates; minimize/compute_gradients/apply_gradients."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def quadratic():
    """loss = sum((w * x - t)^2) with a fed x: dloss/dw = 2 x (w x - t)."""
    w = tf.Variable(np.array([1.0, -2.0]), name="w")
    x = tf.placeholder(tf.float64, shape=(2,), name="x")
    t = np.array([0.5, 0.25])
    loss = tf.reduce_sum(tf.square(w * x - t))
    return w, x, t, loss


def grad(w, x, t):
    return 2 * x * (w * x - t)


X = np.array([0.3, -1.2])


def test_gradient_descent():
    w, x, t, loss = quadratic()
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    ref = np.array([1.0, -2.0])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(step, {x: X})
            ref = ref - 0.1 * grad(ref, X, t)
        assert s.compile_count == 2                     # init + one train-step plan
        np.testing.assert_allclose(s.run(w), ref, rtol=1e-12)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(nesterov):
    w, x, t, loss = quadratic()
    opt = tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=nesterov)
    step = opt.minimize(loss)
    ref, acc = np.array([1.0, -2.0]), np.zeros(2)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(step, {x: X})
            g = grad(ref, X, t)
            acc = 0.9 * acc + g
            ref = ref - 0.1 * (g + 0.9 * acc if nesterov else acc)
        np.testing.assert_allclose(s.run(w), ref, rtol=1e-12)
        np.testing.assert_allclose(s.run(opt.get_slot(w, "momentum")), acc, rtol=1e-12)


def test_adam_uses_tf1_epsilon_hat():
    w, x, t, loss = quadratic()
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-3        # a large eps shows where it sits
    step = tf.train.AdamOptimizer(lr, b1, b2, eps).minimize(loss)
    ref, m, v = np.array([1.0, -2.0]), np.zeros(2), np.zeros(2)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for k in range(1, 4):
            s.run(step, {x: X})
            g = grad(ref, X, t)
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            lr_t = lr * np.sqrt(1 - b2 ** k) / (1 - b1 ** k)
            ref = ref - lr_t * m / (np.sqrt(v) + eps)
        np.testing.assert_allclose(s.run(w), ref, rtol=1e-12)
    names = [v.op.name for v in tf.global_variables()]
    assert names == ["w", "beta1_power", "beta2_power", "w/Adam", "w/Adam_1"]


def test_compute_and_apply_gradients_with_global_step():
    w, x, t, loss = quadratic()
    unused = tf.Variable(3.0, name="unused")
    opt = tf.train.GradientDescentOptimizer(0.5)
    pairs = opt.compute_gradients(loss)
    assert [v for _, v in pairs] == [w, unused] and pairs[1][0] is None
    gstep = tf.train.get_or_create_global_step()
    train = opt.apply_gradients([(g * 2.0, v) for g, v in pairs if g is not None], global_step=gstep)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train, {x: X})
        s.run(train, {x: X})
        assert s.run(gstep) == 2
        ref = np.array([1.0, -2.0])
        for _ in range(2):
            ref = ref - 0.5 * 2.0 * grad(ref, X, t)
        np.testing.assert_allclose(s.run(w), ref, rtol=1e-12)


def test_no_gradients_is_an_error():
    v = tf.Variable(1.0)
    loss = tf.constant(2.0) * 3.0
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=[v])


def test_learning_rate_placeholder():
    w, x, t, loss = quadratic()
    lr = tf.placeholder(tf.float32, shape=(), name="lr")
    step = tf.train.GradientDescentOptimizer(lr).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(step, {x: X, lr: 0.25})
        np.testing.assert_allclose(s.run(w), np.array([1.0, -2.0]) - 0.25 * grad(np.array([1.0, -2.0]), X, t))


def test_train_a_softmax_classifier():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((64, 4)).astype(np.float32)
    ys = (xs[:, 0] + xs[:, 1] > 0).astype(np.int32)
    x = tf.placeholder(tf.float32, shape=(None, 4))
    y = tf.placeholder(tf.int32, shape=(None,))
    W = tf.Variable(np.zeros((4, 2), np.float32))
    b = tf.Variable(np.zeros(2, np.float32))
    logits = tf.matmul(x, W) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    step = tf.train.AdamOptimizer(0.1).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        first = s.run(loss, {x: xs, y: ys})
        for _ in range(50):
            s.run(step, {x: xs, y: ys})
        assert s.run(loss, {x: xs, y: ys}) < 0.3 * first

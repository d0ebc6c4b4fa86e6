"""while_loop_keeping: a loop's per-iteration buffer, against its reference Python loop."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.control_flow import while_loop_keeping
from tests.gradcheck import numeric_grad


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _loop(w_init):
    x = tf.placeholder(tf.float64, (None, 3), name="x")
    w = tf.Variable(w_init, name="w")
    n = tf.shape(x)[0]

    def body(t, h):
        h2 = tf.tanh(h * w + x[t])
        return (t + 1, h2), [h2 * 2.0, tf.cast(t, tf.float64)]
    (t, h), (outs, ts) = while_loop_keeping(lambda t, h: t < n, body,
                                            (tf.constant(0), tf.zeros((3,), tf.float64)))
    return x, w, t, h, outs, ts


def _reference(wv, xv):
    """The docstring's loop: vars, kept = ...; kept.append(v) each iteration."""
    h, kept = np.zeros(3), []
    for t in range(len(xv)):
        h = np.tanh(h * wv + xv[t])
        kept.append(2 * h)
    return h, np.array(kept).reshape(len(xv), 3)


def test_values_are_stacked_per_iteration_and_match_the_reference_loop():
    wv = np.array([0.5, -1.0, 2.0])
    x, w, t, h, outs, ts = _loop(wv)
    assert outs.shape.as_list() == [None, 3] and ts.shape.as_list() == [None]
    xv = np.random.default_rng(0).standard_normal((4, 3))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        tv, hv, ov, tsv = s.run([t, h, outs, ts], {x: xv})
        empty = s.run(outs, {x: np.zeros((0, 3))})
    ref_h, ref_kept = _reference(wv, xv)
    assert tv == 4 and tsv.tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(hv, ref_h)
    np.testing.assert_allclose(ov, ref_kept)
    assert empty.shape == (0, 3)                      # zero iterations: an empty stack


def test_gradients_through_kept_values_match_finite_differences():
    wv = np.array([0.5, -1.0, 2.0])
    x, w, t, h, outs, ts = _loop(wv)
    loss = tf.reduce_sum(outs * outs * tf.constant([[1.0], [2.0], [3.0], [4.0]], tf.float64)) \
        + tf.reduce_sum(h)
    gw, gx = tf.gradients(loss, [w, x])
    xv = np.random.default_rng(1).standard_normal((4, 3))

    def f_np():
        h, kept = _reference(wv_now, xv)
        return float(np.sum(kept ** 2 * np.array([[1.0], [2.0], [3.0], [4.0]])) + h.sum())
    wv_now = wv.copy()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        a_w, a_x = s.run([gw, gx], {x: xv})
    np.testing.assert_allclose(a_w, numeric_grad(f_np, wv_now), atol=1e-6)
    np.testing.assert_allclose(a_x, numeric_grad(f_np, xv), atol=1e-6)


def test_a_loop_without_kept_values_is_unchanged():
    i = tf.while_loop(lambda i: i < 5, lambda i: i + 1, [tf.constant(0)])
    op = i.op
    assert "n_kept" not in op.attrs and len(op.outputs) == 2     # the value and the trace

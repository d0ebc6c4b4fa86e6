"""tf.train.ExponentialMovingAverage: shadow names, collections, decay and restore maps as TF 2.x's
compat.v1 gives them (every expectation below was printed by tensorflow 2.21 running the same
program)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-6)


def test_apply_after_the_train_step_names_collections_and_values():
    w = tf.Variable(1.0, name="w")
    with tf.variable_scope("net"):
        b = tf.get_variable("b", [2], initializer=tf.constant_initializer([2.0, 4.0]))
    step = tf.Variable(0, name="step", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.9)
    assert ema.name == "ExponentialMovingAverage" and ema.average(w) is None
    assert ema.average_name(w) == "w/ExponentialMovingAverage"          # before apply too
    train = tf.train.GradientDescentOptimizer(0.1).minimize(w * w + tf.reduce_sum(b * b))
    with tf.control_dependencies([train]):
        train_op = ema.apply([w, b])
    assert (train_op.name, train_op.type) == ("ExponentialMovingAverage", "NoOp")
    assert repr(ema.average(w)) == "<tf.Variable 'w/ExponentialMovingAverage:0' shape=() dtype=float32>"
    assert ema.average(b).name == "net/b/ExponentialMovingAverage:0"
    assert ema.average_name(b) == "net/b/ExponentialMovingAverage"
    assert [v.name for v in tf.global_variables()] == [
        "w:0", "net/b:0", "step:0", "w/ExponentialMovingAverage:0", "net/b/ExponentialMovingAverage:0"]
    assert [v.name for v in tf.trainable_variables()] == ["w:0", "net/b:0"]
    # the averaged variables (not the shadows) are collected, as TF collects them
    assert tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES) == [w, b]
    assert tf.moving_average_variables() == [w, b]
    restore = ema.variables_to_restore()
    assert restore == {"w/ExponentialMovingAverage": w, "net/b/ExponentialMovingAverage": b,
                       "step": step}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _close(sess.run(ema.average(b)), [2.0, 4.0])                   # starts at the value
        expected = [(0.8, 0.98, [1.96, 3.92]), (0.64, 0.946, [1.892, 3.784]),
                    (0.512, 0.9026, [1.8052, 3.6104])]
        for w_now, w_avg, b_avg in expected:
            sess.run(train_op)
            got = sess.run([w, ema.average(w), ema.average(b)])
            _close(got[0], w_now), _close(got[1], w_avg), _close(got[2], b_avg)


def test_num_updates_lowers_the_decay_early_and_a_second_ema_gets_a_unique_shadow():
    w = tf.Variable(1.0, name="w")
    step = tf.Variable(0, name="step", trainable=False)
    tf.train.ExponentialMovingAverage(0.9).apply([w])
    ema = tf.train.ExponentialMovingAverage(0.99, num_updates=step)
    update = ema.apply([w])
    assert (ema.average(w).name, update.name) == ("w/ExponentialMovingAverage_1:0",
                                                  "ExponentialMovingAverage_1")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign(0.5))
        sess.run(update)                     # decay min(0.99, 1/10) = 0.1
        _close(sess.run(ema.average(w)), 0.1 * 1.0 + 0.9 * 0.5)
        sess.run(step.assign(100))
        sess.run(update)                     # decay min(0.99, 101/110)
        d = 101 / 110
        _close(sess.run(ema.average(w)), d * 0.55 + (1 - d) * 0.5)


def test_a_tensor_with_zero_debias_starts_at_zero_and_is_debiased():
    t = tf.constant([2.0, 3.0]) * 1.0
    ema = tf.train.ExponentialMovingAverage(0.5, zero_debias=True)
    update = ema.apply([t])
    assert ema.average(t).name == "mul/ExponentialMovingAverage:0"
    assert [v.name for v in tf.global_variables()] == [
        "mul/ExponentialMovingAverage:0", "mul/ExponentialMovingAverage/biased:0",
        "mul/ExponentialMovingAverage/local_step:0"]
    assert tf.moving_average_variables() == []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _close(sess.run(ema.average(t)), [0.0, 0.0])
        for _ in range(2):
            sess.run(update)
            _close(sess.run(ema.average(t)), [2.0, 3.0])      # a constant stays exact


def test_assign_moving_average_without_debias():
    from staticgraph.training.moving_averages import assign_moving_average  # TF keeps it internal too
    assert not hasattr(tf.train, "assign_moving_average")
    v = tf.Variable(10.0, name="v")
    update = assign_moving_average(v, 0.0, 0.75, zero_debias=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _close([sess.run(update), sess.run(v)], [7.5, 7.5])


def test_integer_variables_are_refused_with_tfs_words():
    with pytest.raises(TypeError, match=r"^The variables must be half, float, or double: i:0$"):
        tf.train.ExponentialMovingAverage(0.9).apply([tf.Variable(1, name="i")])

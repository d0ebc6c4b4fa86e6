"""Loop-carried TensorArray buffers written in place (``compiler.passes.carry``).

Each program runs twice: with in-place reuse (default) and with it switched off
(``PassConfig(inplace=False)``: the functional, copying writes).  Results must be
bit-identical; where a write in place would be wrong (a reader of the old buffer
runs later, a view of it leaves the iteration, the buffer is the caller's), the
kernel must keep the copying form -- and the tests say which form it chose.
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.compiler import PassConfig


@pytest.fixture(autouse=True)
def seeded(fresh_graph):
    tf.set_random_seed(0)      # every Session draws the same initial weights


def _both(fetches, feed=None):
    """(values with in-place writes, values without, the in-place run's explain text)."""
    out = []
    for config in (None, PassConfig(inplace=False)):
        with tf.Session(config=config) as s:
            s.run(tf.global_variables_initializer())
            first = s.run(fetches, feed)
            again = s.run(fetches, feed)       # a second run sees pristine initial buffers
            for a, b in zip(first, again):
                np.testing.assert_array_equal(a, b)
            out.append(first)
            if config is None:
                text = s.explain(fetches, feed)
    for a, b in zip(*out):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)
    return out[0], text


def _loop(body, T=4, U=3, init=None):
    ta = tf.TensorArray(tf.float32, size=T) if init is None else init
    return tf.while_loop(lambda t, *_: t < T, body, [0, tf.zeros([U]), ta])


def test_rnn_writes_in_place_forward_and_backward_with_gradients_unchanged():
    xs = tf.placeholder(tf.float32, (None, 2, 3))
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    out, _ = tf.nn.dynamic_rnn(cell, xs, dtype=tf.float32, time_major=True)
    loss = tf.reduce_sum(out * out)
    grads = tf.gradients(loss, tf.trainable_variables() + [xs])
    feed = {xs: np.random.RandomState(0).randn(5, 2, 3).astype(np.float32)}
    values, text = _both([out, loss] + grads, feed)
    assert values[0].shape == (5, 2, 4)
    assert text.count("(in place)") == 2     # the forward write and its gradient's zeroing
    assert "_own(" in text


def test_unknown_length_rnn_of_zero_steps_gives_an_empty_time_axis():
    xs = tf.placeholder(tf.float32, (None, 2, 3))
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(4), xs, dtype=tf.float32,
                               time_major=True)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(out, {xs: np.zeros((0, 2, 3), np.float32)}).shape == (0, 2, 4)


def test_read_of_the_old_buffer_after_the_write_sees_the_old_row():
    def body(t, h, ta):
        new = ta.write(t, h + 1.0)
        old = ta.read(t)                       # created after the write: the OLD row (zeros)
        return t + 1, h + old + 1.0, new
    _, h, ta = _loop(body, init=tf.TensorArray(tf.float32, size=4, element_shape=[3]))
    (hv, stacked), text = _both([h, ta.stack()])
    np.testing.assert_array_equal(hv, np.full(3, 4.0, np.float32))
    assert stacked[:, 0].tolist() == [1.0, 2.0, 3.0, 4.0]
    body = text[text.index("def while"):]        # in place: the write is emitted after the read
    assert "(in place)" in body and body.index("TensorArrayRead") < body.index("TensorArrayWrite")


def test_reads_before_and_after_a_write_in_one_iteration():
    def body(t, h, ta):
        before = ta.read(tf.maximum(t - 1, 0))  # a view of the old buffer, used after the write
        ta = ta.write(t, h + tf.cast(t, tf.float32))
        after = ta.read(t)
        return t + 1, before + after, ta
    _, h, ta = _loop(body, init=tf.TensorArray(tf.float32, size=4, element_shape=[3]))
    (hv, stacked), _ = _both([h, ta.stack()])
    ref_h, ref = np.zeros(3, np.float32), np.zeros((4, 3), np.float32)
    for t in range(4):
        before = ref[max(t - 1, 0)].copy()
        ref[t] = ref_h + t
        ref_h = before + ref[t]
    np.testing.assert_array_equal(hv, ref_h)
    np.testing.assert_array_equal(stacked, ref)


def test_a_view_of_the_old_buffer_carried_out_is_never_overwritten():
    def body(t, last, ta):
        return t + 1, ta.read(0), ta.write(t, tf.ones([3]) * (tf.cast(t, tf.float32) + 1.0))
    _, last, ta = _loop(body, init=tf.TensorArray(tf.float32, size=4, element_shape=[3]))
    (lv, stacked), text = _both([last, ta.stack()])
    np.testing.assert_array_equal(lv, np.ones(3, np.float32))   # row 0 as of the last iteration
    assert "(in place)" not in text


def test_the_buffer_stacked_twice_and_carried_out_stays_as_it_was():
    def body(t, snap, ta):
        ta2 = ta.write(t, tf.ones([3]) * (tf.cast(t, tf.float32) + 1.0))
        return t + 1, tf.reduce_sum(ta.stack(), 0) + tf.reduce_sum(ta2.stack(), 0), ta2
    _, snap, ta = _loop(body, init=tf.TensorArray(tf.float32, size=4, element_shape=[3]))
    (sv, stacked), text = _both([snap, ta.stack()])
    np.testing.assert_array_equal(sv, np.full(3, 6.0 + 10.0, np.float32))
    assert "(in place)" in text    # the stacks are summed before the write: still safe


def test_the_initial_buffer_a_caller_feeds_is_never_written():
    init = tf.placeholder(tf.float32, (4, 3))
    ta0 = tf.TensorArray(tf.float32, size=4, element_shape=[3], flow=init)

    def body(t, h, ta):
        return t + 1, h, ta.write(t, h + tf.cast(t, tf.float32))
    _, _, ta = _loop(body, init=ta0)
    mine = np.full((4, 3), 7.0, np.float32)
    (stacked,), text = _both([ta.stack()], {init: mine})
    assert (mine == 7.0).all() and stacked[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert "(in place)" in text


def test_two_writes_per_iteration_chain_in_place():
    def body(t, h, ta):
        ta = ta.write(2 * t, h + 1.0).write(2 * t + 1, h + 2.0)
        return t + 1, h + 10.0, ta
    _, _, ta = tf.while_loop(lambda t, *_: t < 3, body,
                             [0, tf.zeros([2]), tf.TensorArray(tf.float32, size=6)])
    (stacked,), text = _both([ta.stack()])
    assert stacked[:, 0].tolist() == [1.0, 2.0, 11.0, 12.0, 21.0, 22.0]
    assert text.count("(in place)") == 2


def test_a_read_of_the_old_buffer_that_needs_the_write_keeps_the_copy():
    def body(t, h, ta):
        new = ta.write(t, h + 1.0)
        idx = tf.cast(tf.reduce_sum(new.stack()) * 0.0, tf.int32) + t   # needs the write first
        return t + 1, h + ta.read(idx) + 1.0, new
    _, h, ta = _loop(body, init=tf.TensorArray(tf.float32, size=4, element_shape=[3]))
    (hv, _), text = _both([h, ta.stack()])
    np.testing.assert_array_equal(hv, np.full(3, 4.0, np.float32))   # read row t before writing
    assert "(in place)" not in text


def test_a_buffer_the_gradient_keeps_a_view_of_is_not_written_in_place():
    w = tf.Variable(np.array([0.5, -1.0, 2.0], np.float32))

    def body(t, h, ta):
        peak = tf.reduce_max(ta.stack() * w, axis=0)   # d/dw of the product keeps the stack
        return t + 1, h + peak, ta.write(t, h * w + 1.0)
    _, h, ta = _loop(body, init=tf.TensorArray(tf.float32, size=4, element_shape=[3]))
    loss = tf.reduce_sum(h) + tf.reduce_sum(ta.stack())
    (hv, gw), text = _both([h, tf.gradients(loss, [w])[0]])
    assert np.isfinite(gw).all() and "(in place)" not in text.split("def while_grad")[0]

"""TensorArray (read/write/stack/unstack inside while_loop, differentiable) and the loops built
on it -- map_fn, scan, foldl, foldr -- checked against TF 2.21's values and gradients."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from tests.tf_errors import RUN

pytestmark = pytest.mark.usefixtures("fresh_graph", "tier")   # tier: compiled and interpreted


def _rnn(T=4, B=2, U=3):
    rng = np.random.RandomState(0)
    xs = tf.constant(rng.randn(T, B, U).astype(np.float32))
    w = tf.Variable(rng.randn(U, U).astype(np.float32) * 0.5)
    xs_ta = tf.TensorArray(tf.float32, size=T).unstack(xs)
    out_ta = tf.TensorArray(tf.float32, size=T)

    def body(t, h, ta):
        h = tf.tanh(tf.matmul(h, w) + xs_ta.read(t))
        return t + 1, h, ta.write(t, h)
    _, h, ta = tf.while_loop(lambda t, *_: t < T, body, [0, tf.zeros([B, U]), out_ta])
    return xs, w, h, ta.stack()


def test_rnn_over_tensor_arrays_matches_tf_values_and_gradients():
    xs, w, h, outs = _rnn()
    assert outs.shape.as_list() == [4, 2, 3] and h.shape.as_list() == [2, 3]
    gw, gx = tf.gradients(tf.reduce_sum(outs * outs), [w, xs])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        o, g1, g2 = s.run([outs, gw, gx])
    # TF 2.21 compat.v1, same program: 7.76048 0.39002 1.46026
    assert [round(float(v.sum()), 5) for v in (o, g1, g2)] == [7.76048, 0.39002, 1.46026]


def test_rnn_gradient_matches_finite_differences():
    xs, w, h, outs = _rnn(T=3, B=1, U=2)
    loss = tf.reduce_sum(outs * tf.constant([1.0, -2.0]))
    (gx,) = tf.gradients(loss, [xs])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        base, g = s.run(loss), s.run(gx)
        x0 = s.run(xs)
        eps, k = 1e-2, (1, 0, 1)
        bumped = x0.copy()
        bumped[k] += eps
        up = s.run(loss, {xs: bumped})
        bumped[k] -= 2 * eps
        down = s.run(loss, {xs: bumped})
    assert abs((up - down) / (2 * eps) - g[k]) < 1e-3 and np.isfinite(base)


def test_write_read_stack_unstack_outside_loops_and_errors():
    ta = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0]).write(1, [3.0, 4.0])
    r = ta.read(1)
    assert r.shape.as_list() == [2] and ta.stack().shape.as_list() == [2, 2]
    dyn = tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(0, 5).write(2, 7)
    with tf.Session() as s:
        assert s.run(r).tolist() == [3.0, 4.0]
        assert s.run(dyn.stack()).tolist() == [5, 0, 7]
        assert s.run(ta.size()) == 2
    with pytest.raises(ValueError, match="Inconsistent shapes: saw"):
        ta.write(0, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="TensorArray needs a size known when the graph is built"):
        tf.TensorArray(tf.float32, size=tf.placeholder(tf.int32, []))
    over = tf.TensorArray(tf.float32, size=1).write(3, 1.0)
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                          match=RUN + "Trying to modify element 3 in a list with 1 "
                                                "elements.(.|\n)*Tried to write to index 3 but array "
                                                "is not resizeable"):
        s.run(over.stack())


def test_map_fn_scan_fold_match_tf():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    outs = [tf.map_fn(lambda r: r * 2.0 + 1.0, x),
            tf.map_fn(lambda ab: ab[0] * ab[1], (x, x), dtype=tf.float32),
            tf.map_fn(lambda r: tf.reduce_sum(r), x, dtype=tf.float32),
            tf.scan(lambda a, e: a + e, x),
            tf.scan(lambda a, e: a * 2.0 + e, tf.constant([1.0, 2.0, 3.0]), initializer=tf.constant(10.0)),
            tf.scan(lambda a, e: a + e, tf.constant([1.0, 2.0, 3.0]), reverse=True),
            tf.foldl(lambda a, e: a + e, tf.constant([1, 2, 3])),
            tf.foldl(lambda a, e: a * 10 + e, tf.constant([1, 2, 3]), initializer=tf.constant(0)),
            tf.foldr(lambda a, e: a * 10 + e, tf.constant([1, 2, 3]), initializer=tf.constant(0)),
            tf.gradients(tf.reduce_sum(tf.map_fn(lambda r: r * r, x))
                         + tf.reduce_sum(tf.scan(lambda a, e: a * e, x)), [x])[0]]
    p = tf.placeholder(tf.float32, [None, 2])
    mp = tf.map_fn(lambda r: r + 1.0, p)
    want = [  # printed by TF 2.21 for the same program
        [[3.0, 5.0], [7.0, 9.0], [11.0, 13.0]], [[1.0, 4.0], [9.0, 16.0], [25.0, 36.0]],
        [3.0, 7.0, 11.0], [[1.0, 2.0], [4.0, 6.0], [9.0, 12.0]], [21.0, 44.0, 91.0],
        [6.0, 5.0, 3.0], 6, 123, 321, [[21.0, 33.0], [12.0, 22.0], [13.0, 20.0]]]
    with tf.Session() as s:
        got = s.run(outs)
        assert s.run(mp, {p: [[1, 2]]}).tolist() == [[2.0, 3.0]]
    for g, w in zip(got, want):
        assert np.asarray(g).tolist() == w
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure."):
        tf.map_fn(lambda ab: ab[0] * ab[1], (x, x))

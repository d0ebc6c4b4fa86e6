"""tf.sin ... tf.einsum: node types and names, dtypes and values as TensorFlow 2's compat.v1 gives them."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_node_types_names_and_dtypes_as_tf():
    x = tf.placeholder(tf.float32, [None, 3])
    i = tf.constant([7, -7])
    got = [(t.name, t.op.type, t.dtype.name) for t in [
        tf.sin(x), tf.cos(x), tf.tan(x), tf.math.rsqrt(x), tf.math.log1p(x), tf.math.expm1(x),
        tf.floor(x), tf.math.ceil(x), tf.round(x), tf.square(x), tf.math.floordiv(x, 2.),
        tf.math.floormod(x, 2.), tf.truncatemod(x, 2.), x // 2., x % 2., i // 2, i % 3,
        tf.cumsum(x, 1), tf.reduce_prod(x, 1), tf.reduce_any(x > 0), tf.reduce_all(x > 0, 1),
        tf.math.erf(x)]]
    assert got == [  # TensorFlow 2.21, tf.compat.v1 graph mode
        ("Sin:0", "Sin", "float32"), ("Cos:0", "Cos", "float32"), ("Tan:0", "Tan", "float32"),
        ("Rsqrt:0", "Rsqrt", "float32"), ("Log1p:0", "Log1p", "float32"),
        ("Expm1:0", "Expm1", "float32"), ("Floor:0", "Floor", "float32"),
        ("Ceil:0", "Ceil", "float32"), ("Round:0", "Round", "float32"),
        ("Square:0", "Square", "float32"), ("floordiv:0", "FloorDiv", "float32"),
        ("FloorMod:0", "FloorMod", "float32"), ("TruncateMod:0", "TruncateMod", "float32"),
        ("floordiv_1:0", "FloorDiv", "float32"), ("mod:0", "FloorMod", "float32"),
        ("floordiv_2:0", "FloorDiv", "int32"), ("mod_1:0", "FloorMod", "int32"),
        ("Cumsum:0", "Cumsum", "float32"), ("Prod:0", "Prod", "float32"), ("Any:0", "Any", "bool"),
        ("All:0", "All", "bool"), ("Erf:0", "Erf", "float32")]


def test_values_as_tf():
    x = tf.placeholder(tf.float32, [None, 3])
    i = tf.constant([7, -7])
    with tf.Session() as s:
        a, b, c, d = s.run([x // 2., x % 2., tf.round(x), tf.truncatemod(x, 2.)],
                           {x: [[-7.5, 2.5, 3.5]]})
        e, f, g, h = s.run([i // 2, i % 3, tf.reduce_prod(i), tf.cumsum(i, exclusive=True,
                                                                        reverse=True)])
    np.testing.assert_array_equal(a, [[-4, 1, 1]]), np.testing.assert_array_equal(b, [[0.5, 0.5, 1.5]])
    np.testing.assert_array_equal(c, [[-8, 2, 4]]), np.testing.assert_array_equal(d, [[-1.5, 0.5, 1.5]])
    assert e.tolist() == [3, -4] and f.tolist() == [1, 2] and g == -49 and h.tolist() == [-7, 0]
    assert e.dtype == np.int32 and g.dtype == np.int32 and h.dtype == np.int32


def test_top_k_sort_argsort_einsum():
    x = tf.constant([[1., 5., 3.], [4., 2., 6.]])
    top = tf.nn.top_k(x, 2)
    with tf.Session() as s:
        v, i, srt, idx, e, lse = s.run([top.values, top.indices, tf.sort(x, direction="DESCENDING"),
                                        tf.argsort(x), tf.einsum("ij,kj->ik", x, x),
                                        tf.reduce_logsumexp(x, 1)])
    assert v.tolist() == [[5, 3], [6, 4]] and i.tolist() == [[1, 2], [2, 0]] and i.dtype == np.int32
    assert srt.tolist() == [[5, 3, 1], [6, 4, 2]] and idx.tolist() == [[0, 2, 1], [1, 0, 2]]
    assert e.tolist() == [[35, 32], [32, 56]]
    np.testing.assert_allclose(lse, [5.1429316, 6.1429316], rtol=1e-6)
    with pytest.raises(ValueError, match="`direction` must be one of"):
        tf.argsort(x, direction="UP")


def test_gradients_of_new_ops_through_the_graph():
    x = tf.constant([2.0, 3.0])
    y = tf.reduce_sum(tf.sin(x) * tf.reduce_prod(x) + tf.math.floormod(x, 1.5)
                      + tf.einsum("i,i->", x, x))
    (g,) = tf.gradients(y, [x])
    with tf.Session() as s:
        got = s.run(g)
    # the scalar einsum is broadcast over both elements before the sum: it counts twice
    expected = np.cos([2.0, 3.0]) * 6 + np.sum(np.sin([2.0, 3.0])) * np.array([3.0, 2.0]) + 1 + \
        2 * 2 * np.array([2.0, 3.0])
    np.testing.assert_allclose(got, expected, rtol=1e-5)

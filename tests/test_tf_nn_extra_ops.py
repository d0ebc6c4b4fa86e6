"""``tf.nn.crelu`` and ``tf.nn.separable_conv2d`` as TF's relu_op_test and conv_ops_test check
them; names and values recorded from TF 2.21 (``tf.compat.v1``, graph mode)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


def test_crelu_concatenates_both_signs_relus_along_the_axis():
    x = np.array([[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]])
    with tf.Graph().as_default() as graph:
        last, first = tf.nn.crelu(tf.constant(x.astype(np.float32))), tf.nn.crelu(x, axis=0)
        assert last.name == "CRelu/Relu:0" and first.name == "CRelu_1/Relu:0"      # TF 2.21
        assert [(op.name, op.type) for op in graph.get_operations()][1:4] == [
            ("CRelu/Neg", "Neg"), ("CRelu", "ConcatV2"), ("CRelu/Relu", "Relu")]
        assert tf.nn.crelu(tf.zeros([50, 5, 7, 10])).shape.as_list() == [50, 5, 7, 20]
        with tf.Session() as sess:
            a, b = sess.run([last, first])
    np.testing.assert_array_equal(a, [[0, 7, 0, 3, 0, 9, 0, 5, 0, 1],
                                      [1, 0, 5, 0, 9, 0, 3, 0, 7, 0]])
    np.testing.assert_array_equal(b, [[0, 7, 0, 3, 0], [1, 0, 5, 0, 9], [9, 0, 5, 0, 1],
                                      [0, 3, 0, 7, 0]])


def test_separable_conv2d_is_a_depthwise_then_a_pointwise_conv():
    x = np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2) / 10
    depthwise = np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2) / 10 - 0.5
    pointwise = np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3) / 10 - 0.3
    with tf.Graph().as_default():
        y = tf.nn.separable_conv2d(x, depthwise, pointwise, strides=[1, 2, 2, 1], padding="SAME")
        assert (y.name, y.op.type) == ("separable_conv2d:0", "Conv2D")                # TF 2.21
        with tf.Session() as sess:
            got = sess.run(y)
    np.testing.assert_allclose(got, [[[[1.164, 1.68, 2.196], [1.644, 2.32, 2.9959998]],
                                      [[3.0839996, 4.24, 5.396], [3.564, 4.8799996, 6.1959996]]]],
                               rtol=1e-6)                                           # TF 2.21


def test_tf1_dimension_objects_convert_where_ints_are_taken():
    d = tf.Dimension(100)
    assert (repr(d), str(d), int(d), d.value, d == 100) == ("Dimension(100)", "100", 100, 100,
                                                             True)               # TF 2.21
    unknown = tf.Dimension(None)
    assert (repr(unknown), str(unknown), unknown == 3) == ("Dimension(None)", "?", None)
    assert repr(d + 1) == "Dimension(101)"
    with tf.Graph().as_default():
        y = tf.reshape(tf.zeros([1, 100]), [tf.Dimension(100), tf.Dimension(1)])
        assert y.shape.as_list() == [100, 1]
    with pytest.raises(ValueError, match=r"^Dimension -1 must be >= 0$"):
        tf.Dimension(-1)

"""``tf.nn.conv2d_backprop_input`` / ``conv2d_backprop_filter`` / ``convolution`` (issue #30):
values recorded from TF 2.21 (``tests/fixtures/tf_conv_backprop.npz``, inputs from
``RandomState(0)``), node names and types as TF gives them."""
import os

import numpy as np
import pytest

import staticgraph as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_conv_backprop.npz")


def test_conv_backprops_and_convolution_match_tf():
    want = np.load(FIXTURE)
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        x = tf.constant(rng.randn(2, 5, 5, 3).astype(np.float32))
        w = tf.constant(rng.randn(3, 3, 3, 4).astype(np.float32))
        dy = tf.constant(rng.randn(2, 3, 3, 4).astype(np.float32))
        outs = [tf.nn.conv2d_backprop_input([2, 5, 5, 3], w, dy, strides=[1, 2, 2, 1], padding="SAME"),
                tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, strides=[1, 2, 2, 1], padding="SAME"),
                tf.nn.convolution(x, w, padding="VALID"),
                tf.nn.convolution(x, w, padding="SAME", strides=[2, 2]),
                tf.nn.convolution(x, w, padding="SAME", dilation_rate=[2, 2])]
        x1 = tf.constant(rng.randn(2, 7, 3).astype(np.float32))
        w1 = tf.constant(rng.randn(3, 3, 2).astype(np.float32))
        outs.append(tf.nn.convolution(x1, w1, padding="SAME"))
        assert [(t.name, t.op.type) for t in outs[:4]] == [
            ("Conv2DBackpropInput:0", "Conv2DBackpropInput"),
            ("Conv2DBackpropFilter:0", "Conv2DBackpropFilter"),
            ("convolution:0", "Conv2D"), ("convolution_1:0", "Conv2D")]
        assert outs[5].name == "convolution_3/Squeeze:0"
        with tf.Session() as sess:
            got = sess.run(outs)
    for k, g in enumerate(got):
        np.testing.assert_allclose(g, want[f"arr_{k}"], rtol=1e-5, atol=1e-5)


def test_backprop_sizes_must_be_known_when_built():
    with tf.Graph().as_default():
        sizes = tf.placeholder(tf.int32, [4])
        w = tf.zeros([3, 3, 3, 4])
        dy = tf.zeros([2, 3, 3, 4])
        with pytest.raises(ValueError, match="input_sizes here must be known when the graph is built"):
            tf.nn.conv2d_backprop_input(sizes, w, dy, strides=[1, 2, 2, 1], padding="SAME")
        got = tf.nn.conv2d_backprop_input(tf.constant([2, 5, 5, 3]), w, dy, strides=[1, 2, 2, 1],
                                          padding="SAME")
        assert got.shape.as_list() == [2, 5, 5, 3]

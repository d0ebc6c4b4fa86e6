"""tf.nn composites (sigmoid cross-entropy, softplus, elu, ...): values and names as TF 2.21's."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_values_and_names_match_tf():
    x = tf.constant([[-3., -0.5, 0., 2., 40.]])
    z = tf.constant([[0., 1., 1., 0., 1.]])
    outs = [tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), tf.nn.softplus(x),
            tf.nn.elu(x), tf.nn.leaky_relu(x), tf.nn.relu6(x), tf.nn.l2_normalize(x, axis=1),
            tf.nn.bias_add(x, [1., 2., 3., 4., 5.]), *tf.nn.moments(x, axes=[1])]
    assert [o.name for o in outs] == ['logistic_loss:0', 'Softplus:0', 'Elu:0', 'LeakyRelu:0',
                                      'Relu6:0', 'l2_normalize:0', 'BiasAdd:0', 'moments/Squeeze:0',
                                      'moments/Squeeze_1:0']
    want = [  # printed by TF 2.21 compat.v1 for the same program
        [0.048587, 0.974077, 0.693147, 2.126928, 0.0], [0.048587, 0.474077, 0.693147, 2.126928, 40.0],
        [-0.950213, -0.393469, 0.0, 2.0, 40.0], [-0.6, -0.1, 0.0, 2.0, 40.0], [0., 0., 0., 2., 6.],
        [-0.074691, -0.012449, 0.0, 0.049794, 0.995885], [-2.0, 1.5, 3.0, 6.0, 45.0], [7.7], [263.36]]
    with tf.Session() as s:
        got = s.run(outs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.reshape(g, -1), w, rtol=1e-5, atol=1e-6)


def test_sigmoid_cross_entropy_gradient_is_sigmoid_minus_label():
    x = tf.constant([-3.0, 0.5, 30.0], dtype=tf.float64)
    z = tf.constant([1.0, 0.0, 1.0], dtype=tf.float64)
    (g,) = tf.gradients(tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)), [x])
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(g), 1 / (1 + np.exp(-np.array([-3.0, 0.5, 30.0]))) - [1, 0, 1])


def test_keyword_only_and_shape_errors():
    with pytest.raises(ValueError, match="Only call `sigmoid_cross_entropy_with_logits` with named"):
        tf.nn.sigmoid_cross_entropy_with_logits([1.0], [1.0])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2 for 'BiasAdd'"):
        tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([1, 3]))


def test_dropout_keeps_expectation_and_draws_a_new_mask_each_run():
    tf.set_random_seed(0)
    y = tf.nn.dropout(tf.ones([10000]), rate=0.25)
    with tf.Session() as s:
        a, b = s.run(y), s.run(y)
    assert set(np.unique(a)) <= {0.0, np.float32(1 / 0.75)}
    assert abs(a.mean() - 1.0) < 0.05 and not np.array_equal(a, b)
    with pytest.raises(ValueError, match="^`rate` must be a scalar tensor or a float in the range"):
        tf.nn.dropout(tf.ones([2]), rate=1.0)


def test_dropout_with_an_unknown_batch_and_a_fed_keep_prob():
    x = tf.placeholder(tf.float32, [None, 4])
    keep = tf.placeholder_with_default(1.0, [])
    y = tf.nn.dropout(x, keep_prob=keep)
    assert y.shape.as_list() == [None, 4]
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y, {x: np.ones((3, 4))}), np.ones((3, 4)))
        half = s.run(y, {x: np.ones((500, 4)), keep: 0.5})
    assert set(np.unique(half)) == {0.0, 2.0} and 0.4 < (half == 0).mean() < 0.6

"""tf.layers: TF's variable names, initial values, training flags and UPDATE_OPS (checked against
TF 2.x with tf_keras when written: names, moving-average rule, fused BN's unbiased variance)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.default_rng(0)


def test_variables_are_named_as_tf_names_them():
    x = tf.placeholder(tf.float32, (None, 28, 28, 1), name="x")
    training = tf.placeholder_with_default(False, (), name="training")
    h = tf.layers.conv2d(x, 32, 3, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.conv2d(h, 64, (3, 3), kernel_regularizer=lambda w: tf.reduce_sum(tf.square(w)))
    h = tf.layers.average_pooling2d(h, 2, 2)
    h = tf.layers.batch_normalization(h, training=training)
    h = tf.layers.flatten(h)
    h = tf.layers.dropout(h, rate=0.5, training=training)
    h = tf.layers.dense(h, 10, name="logits")
    h2 = tf.layers.dense(h, 5)
    names = [(v.name, v.shape.as_list(), v in tf.trainable_variables()) for v in tf.global_variables()]
    assert names == [
        ("conv2d/kernel:0", [3, 3, 1, 32], True), ("conv2d/bias:0", [32], True),
        ("conv2d_1/kernel:0", [3, 3, 32, 64], True), ("conv2d_1/bias:0", [64], True),
        ("batch_normalization/gamma:0", [64], True), ("batch_normalization/beta:0", [64], True),
        ("batch_normalization/moving_mean:0", [64], False),
        ("batch_normalization/moving_variance:0", [64], False),
        ("logits/kernel:0", [2304, 10], True), ("logits/bias:0", [10], True),
        ("dense/kernel:0", [10, 5], True), ("dense/bias:0", [5], True)]
    g = tf.get_default_graph()
    assert [op.name for op in g.get_collection(tf.layers.UPDATE_OPS)] == [
        "batch_normalization/AssignMovingAvg/AssignSubVariableOp",
        "batch_normalization/AssignMovingAvg_1/AssignSubVariableOp"]
    assert [t.name for t in g.get_collection(tf.layers.REGULARIZATION_LOSSES)] == \
        ["conv2d_1/kernel/Regularizer/Sum:0"]
    assert (h.name, h2.name) == ("logits/BiasAdd:0", "dense/BiasAdd:0")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(h2, {x: np.zeros((2, 28, 28, 1), np.float32), training: True}).shape == (2, 5)
        kernel = s.run(tf.global_variables()[2])
    limit = np.sqrt(6 / (9 * 32 + 9 * 64))                 # glorot uniform
    assert np.abs(kernel).max() <= limit and np.abs(kernel).max() > 0.9 * limit


@pytest.mark.parametrize("shape,unbiased", [((4, 3, 3, 2), True), ((5, 2), False)])
def test_batch_normalization_updates_moving_statistics_as_tf(shape, unbiased):
    x = RNG.standard_normal(shape).astype(np.float32) * 2 + 1
    y = tf.layers.batch_normalization(tf.constant(x), training=True, momentum=0.9)
    with tf.control_dependencies(tf.get_default_graph().get_collection(tf.layers.UPDATE_OPS)):
        y = tf.identity(y)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run(y)
        mean, var = s.run(tf.global_variables()[2:4])
    axes = tuple(range(len(shape) - 1))
    n = np.prod([shape[a] for a in axes])
    np.testing.assert_allclose(got, (x - x.mean(axes)) / np.sqrt(x.var(axes) + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mean, 0.1 * x.mean(axes), rtol=1e-5, atol=1e-6)
    batch_var = x.var(axes) * (n / (n - 1) if unbiased else 1)
    np.testing.assert_allclose(var, 0.9 + 0.1 * batch_var, rtol=1e-5)


def test_batch_normalization_training_flag_as_a_tensor():
    x = tf.placeholder(tf.float32, (None, 3))
    training = tf.placeholder_with_default(False, ())
    y = tf.layers.batch_normalization(x, training=training)
    updates = tf.get_default_graph().get_collection(tf.layers.UPDATE_OPS)
    data = RNG.standard_normal((6, 3)).astype(np.float32) + 3
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(y, {x: data}), data / np.sqrt(1 + 1e-3), rtol=1e-5)  # moving stats
        s.run(updates, {x: data})                           # not training: the averages stay
        np.testing.assert_array_equal(s.run(tf.global_variables()[2]), 0)
        trained = s.run(y, {x: data, training: True})
        np.testing.assert_allclose(trained.mean(0), 0, atol=1e-5)
        s.run(updates, {x: data, training: True})
        np.testing.assert_allclose(s.run(tf.global_variables()[2]), 0.01 * data.mean(0), rtol=1e-5)


def test_dropout_layer_follows_training():
    x = tf.ones((50, 40))
    flag = tf.placeholder_with_default(False, ())
    d = tf.layers.dropout(x, rate=0.5, training=flag, seed=5)
    assert tf.layers.dropout(x, training=False).name.startswith("dropout_1/")
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(d), 1)
        dropped = s.run(d, {flag: True})
    assert set(np.unique(dropped)) == {0.0, 2.0}


def test_dense_and_conv_take_initializers_and_train():
    x = tf.placeholder(tf.float32, (None, 6, 6, 1))
    y = tf.placeholder(tf.int64, (None,))
    h = tf.layers.conv2d(x, 4, 3, activation=tf.nn.relu,
                         kernel_initializer=tf.constant_initializer(0.1),
                         bias_initializer=tf.constant_initializer(0.2))
    logits = tf.layers.dense(tf.layers.flatten(h), 2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    data = RNG.standard_normal((8, 6, 6, 1)).astype(np.float32)
    labels = (data.mean(axis=(1, 2, 3)) > 0).astype(np.int64)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(tf.global_variables()[1]), np.float32(0.2))
        losses = [s.run([train, loss], {x: data, y: labels})[1] for _ in range(20)]
    assert losses[-1] < losses[0]


def test_layer_errors_use_tf_wording():
    with pytest.raises(ValueError, match="The last dimension of the inputs to `Dense` should be defined"):
        tf.layers.dense(tf.placeholder(tf.float32, (2, None)), 3)
    with pytest.raises(ValueError, match='must be a string, one of "valid" or "same". Received: full'):
        tf.layers.conv2d(tf.placeholder(tf.float32, (1, 5, 5, 1)), 2, 3, padding="full")
    with pytest.raises(ValueError, match=r"^Variable dense/kernel does not exist, or was not created "
                                         r"with tf.get_variable\(\)"):
        tf.layers.dense(tf.placeholder(tf.float32, (2, 3)), 3, reuse=True)


def test_layers_share_variables_in_a_reusing_scope_and_refuse_a_duplicate_name():
    """As TF: variables are get_variable's, so a reusing scope shares them, and a second layer
    with the same explicit name is refused; regularizers and update ops land in TF's collections."""
    x = tf.placeholder(tf.float32, (None, 4), name="x")
    with tf.variable_scope("net"):
        h = tf.layers.dense(x, 3, kernel_regularizer=lambda w: tf.reduce_sum(w * w))
        tf.layers.dense(h, 2, name="out")
    with tf.variable_scope("net", reuse=True):
        h3 = tf.layers.dense(x, 3)
    assert [v.name for v in tf.global_variables()] == [
        "net/dense/kernel:0", "net/dense/bias:0", "net/out/kernel:0", "net/out/bias:0"]
    assert h.name == "net/dense/BiasAdd:0" and h3.name == "net_1/dense/BiasAdd:0"
    assert [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)] == [
        "net/dense/kernel/Regularizer/Sum:0"]
    tf.layers.dense(x, 3, name="out2")
    with pytest.raises(ValueError, match=r"^Variable out2/kernel already exists, disallowed\. Did you "
                                         r"mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope\?"):
        tf.layers.dense(x, 3, name="out2")

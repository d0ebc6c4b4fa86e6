"""tf.keras.regularizers with tf.layers / get_variable and tf.losses' regularization sums, as TF
2.21's compat.v1 with tf_keras gives them (expectations printed by the real TF)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_configs_keep_keras_float32_factors_and_defaults():
    r = tf.keras.regularizers
    assert type(r.l2(1e-4)).__name__ == "L2" and r.l2(1e-4).get_config() == {"l2": 9.999999747378752e-05}
    assert r.l1(0.5).get_config() == {"l1": 0.5}
    assert r.l1_l2(l1=0.1, l2=0.2).get_config() == {"l1": 0.10000000149011612, "l2": 0.20000000298023224}
    assert r.l1_l2().get_config() == {"l1": 0.009999999776482582, "l2": 0.009999999776482582}
    assert r.L1L2().get_config() == {"l1": 0.0, "l2": 0.0}
    assert r.l2().get_config() == {"l2": 0.009999999776482582}
    assert r.L1L2.from_config({"l1": 0.5, "l2": 0.0}).get_config() == {"l1": 0.5, "l2": 0.0}
    assert r.serialize(r.l2(0.5)) == {"module": "keras.regularizers", "class_name": "L2",
                                      "config": {"l2": 0.5}, "registered_name": None}
    assert r.get({"class_name": "L2", "config": {"l2": 0.3}}).get_config() == {"l2": 0.30000001192092896}
    assert isinstance(r.get("l2"), r.L2) and r.get(None) is None
    assert isinstance(r.l2(), r.Regularizer)
    assert tf.compat.v1.keras.regularizers is r


def test_bad_factors_and_identifiers_are_refused_with_keras_words():
    r = tf.keras.regularizers
    with pytest.raises(ValueError, match=r"^Value a is not a valid regularization penalty number, "
                                         r"expected an int or float value\.$"):
        r.l2("a")
    with pytest.raises(ValueError, match=r"^Value nan is not a valid regularization penalty number, "
                                         r"an infinite number or NaN are not valid values\.$"):
        r.l1(float("nan"))
    with pytest.raises(TypeError, match=r"^Argument\(s\) not recognized: \{'x': 1\}$"):
        r.L2(x=1)
    with pytest.raises(ValueError, match=r"^Could not interpret regularizer identifier: 3$"):
        r.get(3)
    with pytest.raises(ValueError, match=r"^Unknown regularizer: 'Foo'\. Please ensure you are using "
                                         r"a `keras\.utils\.custom_object_scope`"):
        r.get({"class_name": "Foo", "config": {}})


def test_penalties_values_and_names():
    c = tf.constant([1.0, -2.0])
    r = tf.keras.regularizers
    l2, l1, both, none = r.l2(0.5)(c), r.l1(0.5)(c), r.l1_l2(0.5, 0.5)(c), r.L1L2()(c)
    assert (l2.name, l1.name, both.name) == ("mul:0", "mul_1:0", "add_1:0")
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run([l2, l1, both, none]), [2.5, 1.5, 4.0, 0.0])


def test_layers_and_get_variable_collect_penalties_under_the_variables_name():
    x = tf.constant([[1.0, 2.0]])
    tf.layers.dense(x, 3, kernel_regularizer=tf.keras.regularizers.l2(0.1),
                    bias_regularizer=tf.keras.regularizers.l1(0.2),
                    kernel_initializer=tf.ones_initializer(),
                    bias_initializer=tf.constant_initializer(-1.0))
    tf.layers.conv2d(tf.ones([1, 3, 3, 1]), 2, 2, kernel_regularizer=tf.keras.regularizers.l1_l2(0.01, 0.02),
                     kernel_initializer=tf.ones_initializer())
    tf.layers.dense(x, 2, kernel_regularizer="l2", kernel_initializer=tf.ones_initializer())
    with tf.variable_scope("s"):
        tf.get_variable("v", [2], initializer=tf.ones_initializer(),
                        regularizer=tf.keras.regularizers.l2(0.5))
    losses = tf.losses.get_regularization_losses()
    assert [t.name for t in losses] == ["dense/kernel/Regularizer/mul:0", "dense/bias/Regularizer/mul:0",
                                        "conv2d/kernel/Regularizer/add_1:0",
                                        "dense_1/kernel/Regularizer/mul:0", "s/v/Regularizer/mul:0"]
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == losses
    total = tf.losses.get_regularization_loss()
    assert total.name == "total_regularization_loss:0"
    tf.losses.add_loss(tf.constant(1.0))
    all_losses = tf.losses.get_total_loss()
    assert all_losses.name == "total_loss:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(losses), [0.6, 0.6, 0.24, 0.04, 1.0], rtol=1e-6)
        np.testing.assert_allclose(sess.run([total, all_losses]), [2.48, 3.48], rtol=1e-6)

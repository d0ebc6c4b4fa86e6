"""What minimize/apply_gradients return is named as in TF 2.21's compat.v1 (checked there)."""
import pytest

import staticgraph as tf


@pytest.mark.parametrize("make,name", [
    (lambda: tf.train.GradientDescentOptimizer(0.1), "GradientDescent"),
    (lambda: tf.train.AdamOptimizer(0.1), "Adam"),
    (lambda: tf.train.MomentumOptimizer(0.1, 0.9), "Momentum"),
    (lambda: tf.train.RMSPropOptimizer(0.1), "RMSProp"),
    (lambda: tf.train.AdagradOptimizer(0.1), "Adagrad")])
def test_the_train_op_takes_the_optimizer_scope_name(make, name):
    with tf.Graph().as_default():
        w = tf.Variable(1.0, name="w")
        opt = make()
        plain = opt.minimize(w * w)
        step = opt.minimize(w * w, global_step=tf.train.get_or_create_global_step())
        named = opt.minimize(w * w, global_step=tf.train.get_global_step(), name="train")
        assert (plain.name, plain.type) == (name, "NoOp")
        assert (step.name, step.type) == (f"{name}_1", "AssignAddVariableOp")
        assert (named.name, named.type) == ("train", "AssignAddVariableOp")


def test_collections_and_uninitialized_variables_as_tf_reports_them():
    with tf.Graph().as_default() as g:
        with tf.variable_scope("model"):
            w = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
        b = tf.Variable(1.0, name="b")
        train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w * b))
        assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train]
        assert sorted(g.get_all_collection_keys()) == ["train_op", "trainable_variables", "variables"]
        report = tf.report_uninitialized_variables()
        assert (report.name, report.dtype, report.shape.as_list()) == (
            "report_uninitialized_variables/boolean_mask/GatherV2:0", tf.string, [None])
        with tf.Session() as sess:
            assert sess.run(report).tolist() == [b"model/w", b"b"]
            sess.run(b.initializer)
            assert sess.run(report).tolist() == [b"model/w"]
            assert sess.run(tf.report_uninitialized_variables([])).shape == (0,)


def test_fetching_a_variable_handle_by_name_says_what_to_fetch_instead():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(TypeError, match="Fetching v:0, the resource handle of variable 'v'"):
                sess.run("v:0")
            assert sess.run(v) == 1.0 and sess.run("v/Read/ReadVariableOp:0") == 1.0

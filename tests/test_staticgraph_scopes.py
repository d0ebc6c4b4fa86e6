"""variable_scope / get_variable / collections: names, sharing and errors as TF 2.x's compat.v1."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_get_variable_names_scope_and_initializer_layout():
    with tf.variable_scope("vs"):
        w = tf.get_variable("w", [2, 3])
    assert w.name == "vs/w:0" and w.shape.as_list() == [2, 3] and w.dtype == tf.float32
    names = [o.name for o in tf.get_default_graph().get_operations()]
    assert "vs/w/Initializer/random_uniform/RandomUniform" in names  # glorot_uniform by default


def test_create_twice_is_refused_with_tfs_words():
    with tf.variable_scope("vs"):
        tf.get_variable("w", [2, 3])
    with pytest.raises(ValueError, match=r"^Variable vs/w already exists, disallowed\. Did you mean "
                                         r"to set reuse=True or reuse=tf\.AUTO_REUSE in VarScope\?"):
        with tf.variable_scope("vs"):
            tf.get_variable("w", [2, 3])


def test_reuse_of_a_missing_variable_is_refused():
    with pytest.raises(ValueError, match=r"^Variable vs/q does not exist, or was not created with "
                                         r"tf\.get_variable\(\)\. Did you mean to set "
                                         r"reuse=tf\.AUTO_REUSE in VarScope\?"):
        with tf.variable_scope("vs", reuse=True):
            tf.get_variable("q", [2])


def test_reuse_returns_the_same_variable_and_checks_shape_and_dtype():
    with tf.variable_scope("vs"):
        w = tf.get_variable("w", [2, 3])
    with tf.variable_scope("vs", reuse=True):
        assert tf.get_variable("w") is w
        with pytest.raises(ValueError, match=r"Trying to share variable vs/w, but specified shape "
                                             r"\(3, 3\) and found shape \(2, 3\)\."):
            tf.get_variable("w", [3, 3])
        with pytest.raises(ValueError, match="specified dtype int32 and found dtype float32"):
            tf.get_variable("w", dtype=tf.int32)
    with tf.variable_scope("vs", reuse=tf.AUTO_REUSE):
        assert tf.get_variable("w") is w
        assert tf.get_variable("z", [1]).name == "vs/z:0"


def test_name_scope_and_variable_scope_naming_as_tf():
    with tf.name_scope("layer"):
        a = tf.Variable(1.0, name="a")
        b = tf.get_variable("b", [])
        s = tf.add(a, 1.0)
    assert (a.name, b.name, s.name) == ("layer/a:0", "b:0", "layer/Add:0")
    with tf.name_scope("layer"):
        assert tf.Variable(1.0, name="a").name == "layer_1/a:0"
    with tf.variable_scope("layer"):
        c = tf.Variable(1.0, name="c")
        assert (c.name, tf.get_variable("d", []).name) == ("layer_2/c:0", "layer/d:0")


def test_default_name_is_made_unique_and_scope_objects_reenter():
    for expected in ("dense/k:0", "dense_1/k:0"):
        with tf.variable_scope(None, default_name="dense"):
            assert tf.get_variable("k", []).name == expected
    with tf.variable_scope("outer") as sc:
        pass
    with tf.variable_scope(sc):
        assert tf.get_variable("x", []).name == "outer/x:0"
        assert tf.add(1, 2).name == "outer_1/Add:0"
    assert (sc.name, sc.original_name_scope) == ("outer", "outer/")
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        tf.variable_scope(None, default_name="d", reuse=True)


def test_reuse_variables_and_inheritance():
    assert tf.get_variable_scope().name == "" and tf.get_variable_scope().reuse is False
    with tf.variable_scope("r") as s:
        v = tf.get_variable("v", [1])
        tf.get_variable_scope().reuse_variables()
        assert tf.get_variable("v") is v and s.reuse is True
        with tf.variable_scope("inner", reuse=False):  # reuse is inherited, never turned off
            assert tf.get_variable_scope().reuse is True


def test_shape_or_initializer_is_required_and_constant_initializers():
    with pytest.raises(ValueError, match="^Variable nos did not get an initializer, so its `shape` "
                                         "argument must be specified.$"):
        tf.get_variable("nos")
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape."):
        tf.get_variable("c", [2], initializer=tf.constant([1.0, 2.0]))
    v = tf.get_variable("v3", initializer=tf.constant([1.0, 2.0]))
    i = tf.get_variable("i", [2], dtype=tf.int32)
    c = tf.get_variable("c2", [2, 2], initializer=tf.constant_initializer(2.0))
    assert v.shape.as_list() == [2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(i), [0, 0])
        np.testing.assert_array_equal(sess.run(c), np.full((2, 2), 2.0, np.float32))


def test_scope_initializer_and_dtype_are_defaults_for_get_variable():
    with tf.variable_scope("s", initializer=tf.ones_initializer(), dtype=tf.float64):
        v = tf.get_variable("v", [3])
    assert v.dtype == tf.float64
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(v), np.ones(3))


def test_collections_as_tf():
    nt = tf.get_variable("nt", [], trainable=False, collections=["foo"])
    with tf.variable_scope("vs"):
        w = tf.get_variable("w", [2])
    assert tf.get_collection("foo") == [nt] and nt not in tf.global_variables()
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) == [w]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="vs") == [w]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="xx") == []
    tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, "u")
    ref = tf.get_collection_ref(tf.GraphKeys.UPDATE_OPS)
    ref.append("v")
    assert tf.get_collection("update_ops") == ["u", "v"]
    tf.add_to_collections(["a", "b"], 1)
    assert tf.get_collection("a") == tf.get_collection("b") == [1]
    keys = (tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.LOSSES, tf.GraphKeys.REGULARIZATION_LOSSES,
            tf.GraphKeys.SUMMARIES, tf.GraphKeys.LOCAL_VARIABLES, tf.GraphKeys.GLOBAL_STEP)
    assert keys == ("variables", "losses", "regularization_losses", "summaries",
                    "local_variables", "global_step")


def test_regularizer_adds_a_regularization_loss():
    with tf.variable_scope("layer", regularizer=lambda w: tf.reduce_sum(tf.square(w))):
        w = tf.get_variable("w", initializer=tf.constant([1.0, 2.0]))
    (loss,) = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert loss.name.startswith("layer/w/Regularizer/")
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(loss) == 5.0


def test_reuse_value_is_checked():
    with pytest.raises(ValueError, match="The reuse parameter must be True or False or None."):
        tf.variable_scope("x", reuse="yes")


def test_gan_style_sharing_and_reentering_the_root_scope_as_tf():
    def disc(x, reuse=None):
        with tf.variable_scope("disc", reuse=reuse):
            return tf.matmul(x, tf.get_variable("w", [2, 1]))
    with tf.variable_scope("gen"):
        g = tf.matmul(tf.ones([4, 2]), tf.get_variable("w", [2, 2]))
    disc(tf.ones([4, 2]))
    d_fake = disc(g, reuse=True)
    assert d_fake.name == "disc_1/MatMul:0"
    assert [v.name for v in tf.trainable_variables()] == ["gen/w:0", "disc/w:0"]
    with tf.name_scope("outer"):
        with tf.variable_scope(tf.get_variable_scope(), reuse=tf.AUTO_REUSE):
            v = tf.get_variable("shared", [1])
            assert tf.get_variable("shared", [1]) is v and v.name == "shared:0"
            assert tf.add(1, 2).name == "outer/Add:0"
    with tf.variable_scope("a"):
        with tf.variable_scope("b"):
            c = tf.get_variable("c", [1])
            assert tf.get_variable_scope().name == "a/b" and tf.add(1, 1).name == "a/b/Add:0"
    with tf.variable_scope("a", reuse=True):
        with tf.variable_scope("b"):
            assert tf.get_variable("c") is c
    with tf.variable_scope("a/b", reuse=True):
        assert tf.get_variable("c") is c and tf.add(1, 1).name == "a/b_1/Add:0"


def test_local_variables_are_kept_apart_and_initialized_by_their_own_op():
    lv = tf.get_local_variable("lv", [2], initializer=tf.ones_initializer())
    assert tf.local_variables() == [lv] and lv not in tf.global_variables() and not lv.trainable
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        assert s.run(lv).tolist() == [1.0, 1.0]


def test_get_variable_inside_a_loop_body_uses_the_outer_scopes_as_tf():
    def body(i, h):
        with tf.variable_scope("cell", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [2, 2], initializer=tf.ones_initializer())
        return i + 1, tf.matmul(h, w)
    with tf.variable_scope("rnn"):
        _, h = tf.while_loop(lambda i, h: i < 3, body, [0, tf.ones([1, 2])])
    assert [v.name for v in tf.global_variables()] == ["rnn/cell/w:0"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(h).tolist() == [[8.0, 8.0]]

"""Sparse variable updates -- ``tf.scatter_*``, ``tf.scatter_nd_*``, ``Variable.scatter_*`` with
``tf.IndexedSlices`` (issue #30): values, node types and names recorded from TF 2.21's
``compat.v1`` graph mode on ``v = [[1, 2], [3, 4], [5, 6]]``."""
import numpy as np
import pytest

import staticgraph as tf

V0 = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]

# name -> (build(v), node type, node name, TF's value after the update)
CASES = {
    "add": (lambda v: tf.scatter_add(v, [0, 0, 2], [[1.0, 1.0], [10.0, 10.0], [100.0, 100.0]]),
            "ResourceScatterAdd", [[12.0, 13.0], [3.0, 4.0], [105.0, 106.0]]),
    "sub": (lambda v: tf.scatter_sub(v, [1], [[1.0, 1.0]]), "ResourceScatterSub",
            [[1.0, 2.0], [2.0, 3.0], [5.0, 6.0]]),
    "mul": (lambda v: tf.scatter_mul(v, [1], [[2.0, 3.0]]), "ResourceScatterMul",
            [[1.0, 2.0], [6.0, 12.0], [5.0, 6.0]]),
    "div": (lambda v: tf.scatter_div(v, [1], [[2.0, 4.0]]), "ResourceScatterDiv",
            [[1.0, 2.0], [1.5, 1.0], [5.0, 6.0]]),
    "min": (lambda v: tf.scatter_min(v, [1], [[0.0, 10.0]]), "ResourceScatterMin",
            [[1.0, 2.0], [0.0, 4.0], [5.0, 6.0]]),
    "max": (lambda v: tf.scatter_max(v, [1], [[0.0, 10.0]]), "ResourceScatterMax",
            [[1.0, 2.0], [3.0, 10.0], [5.0, 6.0]]),
    "update": (lambda v: tf.scatter_update(v, [2], [[7.0, 8.0]]), "ResourceScatterUpdate",
               [[1.0, 2.0], [3.0, 4.0], [7.0, 8.0]]),
    "update_scalar_index": (lambda v: tf.scatter_update(v, 1, [9.0, 9.0]), "ResourceScatterUpdate",
                            [[1.0, 2.0], [9.0, 9.0], [5.0, 6.0]]),
    "nd_update": (lambda v: tf.scatter_nd_update(v, [[0, 1], [2, 0]], [50.0, 60.0]),
                  "ResourceScatterNdUpdate", [[1.0, 50.0], [3.0, 4.0], [60.0, 6.0]]),
    "nd_add": (lambda v: tf.scatter_nd_add(v, [[0], [1]], [[1.0, 1.0], [2.0, 2.0]]),
               "ResourceScatterNdAdd", [[2.0, 3.0], [5.0, 6.0], [5.0, 6.0]]),
    "nd_sub": (lambda v: tf.scatter_nd_sub(v, [[0, 0]], [1.0]), "ResourceScatterNdSub",
               [[0.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    "method_add": (lambda v: v.scatter_add(tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([2]))),
                   "ResourceScatterAdd", [[1.0, 2.0], [3.0, 4.0], [6.0, 7.0]]),
    "method_update": (lambda v: v.scatter_update(tf.IndexedSlices(tf.constant([[0.5, 0.5]]), tf.constant([0]))),
                      "ResourceScatterUpdate", [[0.5, 0.5], [3.0, 4.0], [5.0, 6.0]]),
    "method_nd_add": (lambda v: v.scatter_nd_add([[1, 1]], [5.0]), "ResourceScatterNdAdd",
                      [[1.0, 2.0], [3.0, 9.0], [5.0, 6.0]]),
    "method_max": (lambda v: v.scatter_max(tf.IndexedSlices(tf.constant([[100.0, 0.0]]), tf.constant([1]))),
                   "ResourceScatterMax", [[1.0, 2.0], [100.0, 4.0], [5.0, 6.0]]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_scatter_as_tf(case):
    build, op_type, want = CASES[case]
    with tf.Graph().as_default():
        v = tf.Variable(V0, name="v")
        out = build(v)
        assert out.op.type == op_type and out.name == op_type
        with tf.Session() as sess:
            for _ in range(3):      # the interpreted tier, then the compiled one
                sess.run(v.initializer)
                got = sess.run(out)
                assert got.tolist() == want and sess.run(v).tolist() == want


def test_scatter_errors_have_tf_words_and_keep_the_variable():
    with tf.Graph().as_default():
        v = tf.Variable(V0, name="v")
        bad = tf.scatter_add(v, [5], [[1.0, 1.0]])
        with pytest.raises(ValueError, match=r"^Dimension 1 in both shapes must be equal, but are 3 "
                                             r"and 2\. Shapes are \[1,3\] and \[1,2\]\. for "
                                             r"'\{\{node ResourceScatterAdd_1\}\} = ResourceScatterAdd"
                                             r"\[Tindices=DT_INT32, dtype=DT_FLOAT\]\(v, Const_2, "
                                             r"Const_3\)' with input shapes: \[\], \[1\], \[1,3\]\.$"):
            tf.scatter_add(v, [0], [[1.0, 1.0, 1.0]])
        with pytest.raises(TypeError, match="sparse_delta is not IndexedSlices"):
            v.scatter_add([[1.0, 1.0]])
        ok = tf.scatter_add(v, [0], [[1.0, 1.0]])
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 5 is not in \[0, 3\)"):
                sess.run(bad)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = -1 is not in \[0, 3\)"):
                sess.run(tf.scatter_update(v, [-1], [[0.0, 0.0]]))
            with pytest.raises(tf.errors.InvalidArgumentError):   # a later step fails: rolled back
                sess.run([ok, bad])
            assert sess.run(v).tolist() == V0


def test_scatter_is_ordered_with_reads_by_control_dependencies():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0, 3.0])
        upd = tf.scatter_add(v, [1], [10.0])
        with tf.control_dependencies([upd.op]):
            after = v.read_value() * 1.0
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(after).tolist() == [1.0, 12.0, 3.0]
            assert sess.run(after).tolist() == [1.0, 22.0, 3.0]


def test_indexed_slices_surface():
    with tf.Graph().as_default():
        s = tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([2]), dense_shape=tf.constant([3, 2]))
        assert s.dtype == tf.float32 and s.values.shape.as_list() == [1, 2]
        assert s.indices.dtype == tf.int32 and s.dense_shape is not None
        assert repr(s).startswith("IndexedSlices(indices=Tensor(")

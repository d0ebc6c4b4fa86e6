"""``convert_to_tensor`` of a nested list holding tensors: TF's auto-packing, as
stack_op_test's AutomaticStackingTest checks it; node names recorded from TF 2.21."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


def _ops(graph):
    return [(op.name, op.type) for op in graph.get_operations()]


def test_a_list_holding_a_tensor_is_packed_with_tfs_node_names():
    with tf.Graph().as_default() as graph:
        flat = tf.convert_to_tensor([1, tf.constant(0), 2])
        nested = tf.convert_to_tensor([[0, 0, 0], [0, tf.constant(1), 0], [0, 0, 0]])
        assert (flat.name, nested.name) == ("packed:0", "packed_1:0")                # TF 2.21
        assert _ops(graph) == [
            ("Const", "Const"), ("packed/0", "Const"), ("packed/2", "Const"), ("packed", "Pack"),
            ("Const_1", "Const"), ("packed_1/1/0", "Const"), ("packed_1/1/2", "Const"),
            ("packed_1/1", "Pack"), ("packed_1/0_1", "Const"), ("packed_1/2_1", "Const"),
            ("packed_1", "Pack")]                                                     # TF 2.21
        mixed = tf.convert_to_tensor([[[0., 0.], tf.constant([1., 1.])],
                                      np.array([[2., 2.], [3., 3.]], dtype=np.float32)])
        with tf.Session() as sess:
            a, b, c = sess.run([flat, nested, mixed])
    np.testing.assert_array_equal(a, [1, 0, 2])
    np.testing.assert_array_equal(b, [[0, 0, 0], [0, 1, 0], [0, 0, 0]])
    np.testing.assert_array_equal(c, [[[0., 0.], [1., 1.]], [[2., 2.], [3., 3.]]])


def test_the_first_tensor_sets_the_dtype_and_an_explicit_dtype_casts_every_tensor():
    with tf.Graph().as_default() as graph:
        f64 = tf.constant([0., 0., 0.], dtype=tf.float64)
        assert tf.convert_to_tensor([[0., 0., 0.], f64, [0., 0., 0.]]).dtype == tf.float64
        assert tf.convert_to_tensor([[0., 0., 0.], f64], dtype=tf.float32).dtype == tf.float32
        t0, t1 = tf.convert_to_tensor([0., 0., 0.]), tf.convert_to_tensor([0, 0, 0])
        packed = tf.convert_to_tensor([t0, t0, t1], dtype=tf.float64)
        assert packed.dtype == tf.float64
        assert _ops(graph)[-4:] == [("Cast_1", "Cast"), ("Cast_2", "Cast"), ("Cast_3", "Cast"),
                                    ("packed_2", "Pack")]                             # TF's layout
        first32 = tf.constant([0., 0., 0.])
        with pytest.raises(TypeError) as info:
            tf.convert_to_tensor([first32, f64, [0., 0., 0.]])
    assert str(info.value) == (f"Cannot convert a list containing a tensor of dtype <dtype: "
                               f"'float64'> to <dtype: 'float32'> (Tensor is: {f64!r})")  # TF


def test_a_variable_in_the_list_is_read_when_packed():
    with tf.Graph().as_default():
        v = tf.Variable(3.0)
        both = tf.convert_to_tensor([v, 1.0])
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(both), [3.0, 1.0])

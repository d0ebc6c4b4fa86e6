"""What TensorFlow's own unit tests check, recorded from TF 2.21 (graph mode) as literals.

Found by running TF's test files through ``tools/tf_tests`` (issue #30):
``clip_ops_test``, ``stack_op_test``, ``gradient_descent_test``, ``momentum_test``,
``adam_test``.  CI has neither TF nor its test files: the values below are what
``tf.compat.v1`` printed for the same programs.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import staticgraph as tf


def _run(fetches, init: bool = False, steps: int = 0, step=None):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(step)
        return sess.run(fetches)


# --- clip ops (clip_ops_test) -------------------------------------------------------------

def test_clip_by_global_norm_of_an_infinite_norm_is_nan_everywhere():
    with tf.Graph().as_default():
        x = tf.constant([[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]])
        (a, b), norm = tf.clip_by_global_norm([tf.constant([1.0, np.inf]), x], 1.0)
        a, b, norm = _run([a, b, norm])
    assert np.isnan(a).all() and np.isnan(b).all() and norm == np.inf   # TF 2.21


@pytest.mark.parametrize("clip", ["value", "norm"])
def test_clip_bounds_that_broadcast_the_values_are_refused(clip):
    with tf.Graph().as_default():
        x = tf.constant([-5.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3, 1])
        bound = tf.constant([1.0, 2.0])
        with pytest.raises(ValueError, match=r"^Shapes \(2, 3, 1\) and \(2, 3, 2\) are "
                                             r"incompatible$"):
            tf.clip_by_value(x, -bound, bound) if clip == "value" else tf.clip_by_norm(x, bound)


def test_clip_ops_keep_indexed_slices_sparse():
    with tf.Graph().as_default():
        rows = tf.IndexedSlices(tf.constant([[3.0, 4.0]]), tf.constant([1]), tf.constant([3, 2]))
        by_value = tf.clip_by_value(rows, 0.0, 3.5)
        by_norm = tf.clip_by_norm(rows, 1.0)
        (by_global, _), norm = tf.clip_by_global_norm(
            [rows, tf.constant([[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]])], 2.0)
        assert all(isinstance(t, tf.IndexedSlices) for t in (by_value, by_norm, by_global))
        assert by_value.indices is rows.indices
        assert by_value.values.name == "clip_by_value:0" and by_norm.values.name == "clip_by_norm:0"
        got = _run([by_value.values, by_norm.values, by_global.values, norm])
    np.testing.assert_allclose(got[0], [[3.0, 3.5]])
    np.testing.assert_allclose(got[1], [[0.6000000238418579, 0.800000011920929]], rtol=1e-6)
    np.testing.assert_allclose(got[2], [[0.8485281467437744, 1.1313709020614624]], rtol=1e-6)
    assert got[3] == pytest.approx(7.071067810058594)


def test_clip_by_average_norm():
    with tf.Graph().as_default():
        x = tf.constant([[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]])
        tf.clip_by_average_norm(x, 0.8)
        clipped = tf.clip_by_average_norm(x, 0.8)
        assert clipped.name == "clip_by_average_norm_1:0"          # TF 2.21's name
        np.testing.assert_allclose(_run(clipped), [[-2.88, 0.0, 0.0], [3.84, 0.0, 0.0]],
                                   rtol=1e-6)


# --- stack (stack_op_test) ----------------------------------------------------------------

def test_stack_of_constants_is_one_const():
    with tf.Graph().as_default():
        assert tf.stack(np.ones((2, 3))).op.type == "Const"
        named = tf.stack([[1, 2], [3, 4]], name="st")
        assert (named.op.type, named.name) == ("Const", "st:0")
        assert tf.stack([tf.constant(1), 2]).op.type == "Pack"


def test_stack_axis_out_of_range():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Argument `axis` = 3 not in range \[-2, 2\)$"):
            tf.stack([tf.constant([1, 2])], axis=3)


def test_parallel_stack_of_arrays():
    with tf.Graph().as_default():
        data = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_array_equal(_run(tf.parallel_stack(data)), data)


# --- optimizers (gradient_descent_test, momentum_test, adam_test) -------------------------

# Two steps on rows [0, 2, 0] of a 3x2 variable (row 0 twice, row 1 untouched), TF 2.21.
SPARSE_STEPS = {
    "GradientDescent": ([[0.4, 1.2], [3.0, 4.0], [4.7, 5.6]], []),
    "Momentum": ([[0.12999993562698364, 0.8400000333786011], [3.0, 4.0],
                  [4.565000057220459, 5.420000076293945]], ["Variable/Momentum:0"]),
    "Nesterov": ([[-0.38300007581710815, 0.156000018119812], [3.0, 4.0],
                  [4.308500289916992, 5.078000068664551]], ["Variable/Momentum:0"]),
    "Adam": ([[0.8000004291534424, 1.8000004291534424], [3.0, 4.0],
              [4.8000006675720215, 5.8000006675720215]],
             ["Variable/Adam:0", "Variable/Adam_1:0", "beta1_power:0", "beta2_power:0"]),
}


@pytest.mark.parametrize("kind", sorted(SPARSE_STEPS))
def test_optimizers_apply_indexed_slices_gradients(kind):
    make = {"GradientDescent": lambda: tf.train.GradientDescentOptimizer(0.5),
            "Momentum": lambda: tf.train.MomentumOptimizer(0.5, 0.9),
            "Nesterov": lambda: tf.train.MomentumOptimizer(0.5, 0.9, use_nesterov=True),
            "Adam": lambda: tf.train.AdamOptimizer(0.1)}[kind]
    expected, slot_names = SPARSE_STEPS[kind]
    with tf.Graph().as_default():
        v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        grad = tf.IndexedSlices(tf.constant([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]),
                                tf.constant([0, 2, 0]), tf.constant([3, 2]))
        opt = make()
        step = opt.apply_gradients([(grad, v)])
        got = _run(v, init=True, steps=2, step=step)
        assert [x.name for x in opt.variables()] == slot_names
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_callable_loss_and_hyper_parameters():
    with tf.Graph().as_default():
        w = tf.Variable(2.0)
        opt = tf.train.AdamOptimizer(lambda: 0.1, beta1=lambda: 0.5, beta2=lambda: 0.6,
                                     epsilon=lambda: 1e-3)
        step = opt.minimize(lambda: w * w)
        got = _run([w, *opt._get_beta_accumulators()], init=True, steps=2, step=step)
    assert got[0] == pytest.approx(1.8003177642822266, rel=1e-6)
    assert [float(x) for x in got[1:]] == pytest.approx([0.125, 0.2160000205039978])
    assert not math.isnan(got[0])


# --- tf.math.reduce_euclidean_norm (reduction_ops_test) -----------------------------------

def test_reduce_euclidean_norm():
    with tf.Graph().as_default():
        ints = tf.math.reduce_euclidean_norm(tf.constant([[1, 2], [3, 4]]))
        y = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        rows = tf.math.reduce_euclidean_norm(y, axis=1, keepdims=True)
        cols = tf.math.reduce_euclidean_norm(y, 0)
        grad = tf.gradients(tf.math.reduce_euclidean_norm(y, 1), y)[0]
        assert (ints.name, ints.op.type, rows.name, cols.name) == (
            "EuclideanNorm:0", "EuclideanNorm", "EuclideanNorm_1:0", "EuclideanNorm_2:0")
        assert not hasattr(tf, "reduce_euclidean_norm")        # tf.math only, as in TF 2.21
        got = _run([ints, rows, cols, grad])
    assert got[0] == 5 and got[0].dtype == np.int32              # TF truncates the int root
    np.testing.assert_allclose(got[1], [[2.236068], [5.0]], rtol=1e-6)
    np.testing.assert_allclose(got[2], [3.1622777, 4.472136], rtol=1e-6)
    np.testing.assert_allclose(got[3], [[0.4472136, 0.8944272], [0.6, 0.8]], rtol=1e-6)

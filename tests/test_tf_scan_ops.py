"""``tf.cumsum``/``tf.cumprod`` as TensorFlow's ``scan_ops_test`` checks them, recorded from
TF 2.21 (graph mode) as literals (issue #30; CI has no TF)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


def _run(fetch):
    with tf.Session() as sess:
        return sess.run(fetch)


def test_exclusive_scans_shift_instead_of_subtracting():
    """``cumsum - x`` would make the sums after a NaN NaN, and float16 sums lose digits."""
    with tf.Graph().as_default():
        nan = np.array([1, np.nan, 3, 4], np.float32)
        forward = tf.cumsum(nan, exclusive=True)
        backward = tf.cumsum(nan, exclusive=True, reverse=True)
        half = tf.cumsum(np.arange(1, 145).astype(np.float16), exclusive=True)
        six_d = tf.cumsum(np.arange(1, 145).reshape([2, 2, 3, 3, 2, 2]).astype(np.float16), 0,
                          exclusive=True, reverse=True)
        got = _run([forward, backward, half, six_d])
    np.testing.assert_array_equal(got[0], [0.0, 1.0, np.nan, np.nan])       # TF 2.21
    np.testing.assert_array_equal(got[1], [np.nan, 7.0, 4.0, 0.0])
    assert got[2][-4:].tolist() == [9824.0, 9968.0, 10112.0, 10256.0]
    assert got[3].reshape(-1)[:8].tolist() == [73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0]


@pytest.mark.parametrize("scan", [tf.cumsum, tf.cumprod])
def test_exclusive_scans_of_nothing_are_empty(scan):
    with tf.Graph().as_default():
        flat = scan(np.zeros([0], np.float32), exclusive=True)
        rows = scan(np.zeros([0, 3], np.int32), axis=0, exclusive=True, reverse=True)
        got = _run([flat, rows])
    assert got[0].shape == (0,) and got[1].shape == (0, 3)


@pytest.mark.parametrize("axis_dtype", [tf.int32, tf.int64])
def test_the_axis_may_be_a_constant_tensor(axis_dtype):
    with tf.Graph().as_default():
        axis = tf.constant(0, axis_dtype)
        got = _run([tf.cumsum([1, 2, 3], axis), tf.cumprod([1, 2, 3], axis)])
    assert [g.tolist() for g in got] == [[1, 3, 6], [1, 2, 6]]


@pytest.mark.parametrize("scan, kind", [(tf.cumsum, "Cumsum"), (tf.cumprod, "Cumprod")])
@pytest.mark.parametrize("axis, words", [
    (-3, "ScanOp: Expected scan axis in the range [-2, 2), but got -1"),   # TF's -3 + rank
    (2, "ScanOp: Expected scan axis in the range [-2, 2), but got 2"),
    ([0], "ScanOp: axis must be a scalar, not [1]"),
])
def test_a_bad_axis_builds_and_fails_when_run(scan, kind, axis, words):
    with tf.Graph().as_default():
        out = scan(tf.constant(np.arange(10.0).reshape(2, 5).astype(np.float32)), axis)
        assert out.op.type == kind and out.shape.as_list() == [2, 5]    # TF builds it
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(out)
            assert words in str(info.value)
            assert sess.run(tf.cumsum([1.0, 2.0])).tolist() == [1.0, 3.0]   # still usable

"""tf.Assert and tf.assert_* / tf.debugging.assert_*: ops that fail at run time with TF's text."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from tests.tf_errors import RUN

pytestmark = pytest.mark.usefixtures("fresh_graph", "tier")   # tier: compiled and interpreted


def test_assertions_pass_silently_and_gate_dependent_ops():
    x = tf.placeholder(tf.int32, [None])
    a = tf.assert_equal(x, tf.constant([1, 2]), message="custom")
    assert (a.name, a.type) == ("assert_equal/Assert/Assert", "Assert")
    with tf.control_dependencies([a]):
        z = tf.identity(x)
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(z, {x: [1, 2]}), [1, 2])
        with pytest.raises(tf.errors.InvalidArgumentError, match=RUN + r"assertion failed: \[custom\] "
                           r"\[Condition x == y did not hold element-wise:\] \[x \(Placeholder:0\) = \] "
                           r"\[1 -7\] \[y \(Const:0\) = \] \[1 2\]\n\t \[\[\{\{node assert_equal/Assert/Assert\}\}\]\]"):
            s.run(z, {x: [1, -7]})


@pytest.mark.parametrize("make,ok,feed,text", [
    (lambda x: tf.debugging.assert_positive(x), [1, 2], [1, -7],
     "assertion failed: [] [Condition x > 0 did not hold element-wise:] [x (Placeholder:0) = ] [1 -7]"),
    (lambda x: tf.assert_less(x, 5), [1, 4], [1, 9],
     "assertion failed: [Condition x < y did not hold element-wise:] [x (Placeholder:0) = ] [1 9] "
     "[y (assert_less/y:0) = ] [5]"),
    (lambda x: tf.Assert(tf.reduce_min(x) > 0, [x, "text"]), [1, 2], [1, -7],
     "assertion failed: [1 -7] [text]"),
    (lambda x: tf.assert_non_negative(x), [0, 1], [0, -1], "[Condition x >= 0 did not hold element-wise:]"),
    (lambda x: tf.assert_greater_equal(x, 2), [2, 3], [2, 1], "[Condition x >= y did not hold element-wise:]"),
    (lambda x: tf.assert_none_equal(x, 3), [1, 2], [3, 1], "[Condition x != y did not hold element-wise:]"),
])
def test_failures_read_like_tf_and_name_the_line(make, ok, feed, text):
    x = tf.placeholder(tf.int32, [None])
    op = make(x)
    with tf.Session() as s:
        s.run(op, {x: ok})
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(op, {x: feed})
    assert text in info.value.message and f"created at {__file__}" in info.value.message


def test_values_known_at_build_time_are_checked_now():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Condition x == y did not hold "
                       r"element-wise:\nx \(Const:0\) = \n\[1\]\ny \(Const_1:0\) = \n\[2\]$"):
        tf.assert_equal(tf.constant([1]), tf.constant([2]))

"""Errors start with TensorFlow's own sentence (so a search finds TF's answers), then add ours."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import staticgraph as tf
from tests.tf_errors import op_message

pytestmark = pytest.mark.usefixtures("fresh_graph", "tier")   # tier: compiled and interpreted


@pytest.mark.parametrize("build,words", [
    (lambda: tf.matmul(tf.ones([2, 3]), tf.ones([2, 3])),
     "Dimensions must be equal, but are 3 and 2 for '{{node MatMul}} = MatMul[T=DT_FLOAT](ones, ones_1)' "
     "with input shapes: [2,3], [2,3]."),
    (lambda: tf.ones([2]) * tf.ones([3]),
     "Dimensions must be equal, but are 2 and 3 for '{{node mul}} = Mul[T=DT_FLOAT](ones, ones_1)' "
     "with input shapes: [2], [3]."),
    (lambda: tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], 0),
     "Dimension 0 in both shapes must be equal, but are 3 and 4. Shapes are [3] and [4]."),
    (lambda: tf.reshape(tf.ones([2, 3]), [4]),
     "Cannot reshape a tensor with 6 elements to shape [4] (4 elements) for '{{node Reshape}}"),
    (lambda: tf.squeeze(tf.ones([2, 3]), [0]),
     "Can not squeeze dim[0], expected a dimension of 1, got 2 for '{{node Squeeze}}"),
])
def test_build_errors_start_with_tfs_words_and_end_with_the_users_line(build, words):
    with pytest.raises(ValueError) as info:
        build()
    text = str(info.value)
    assert text.startswith(words)
    assert text.rstrip().splitlines()[-1].startswith("  created at ") and __file__ in text


def test_run_time_broadcast_error_reads_like_tf():
    x, y = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [None])
    z = x + y
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(z, {x: np.ones(2), y: np.ones(3)})
    assert op_message(info.value).startswith("Incompatible shapes: [2] vs. [3]\n\t [[{{node add}}]]\n")
    assert "created at " + __file__ in info.value.message


def test_structure_mismatches_start_with_tfs_sentence():
    # TF 2.21: nest's whole message, then ours says where; a cond's is TF 2's TypeError
    with pytest.raises(ValueError, match=r"^The two structures don't have the same nested structure\.\n\n"
                                         r"First structure: (.|\n)*\n\ntf\.while_loop: body must return"):
        tf.while_loop(lambda a, b: a < 3, lambda a, b: a + 1, [tf.constant(0), tf.constant(1)])
    with pytest.raises(TypeError, match=r"^true_fn and false_fn arguments to tf\.cond must have the "
                                        r"same number, type, and overall structure of return values\."
                                        r"(.|\n)*\n\ntf\.cond: true_fn and false_fn"):
        tf.cond(tf.constant(True), lambda: (1, 2), lambda: 3)


def test_matmul_dtype_mismatch_names_tfs_inputs():
    with pytest.raises(TypeError, match=r"^Input 'b' of 'MatMul' Op has type float64 that does not "
                                        r"match type float32 of argument 'a'\.$"):
        tf.matmul(tf.ones([2, 3]), tf.ones([3, 2], tf.float64))


def test_run_time_errors_are_laid_out_as_tf_2_reports_them():
    # TF 2.21 compat.v1, the same program: "Graph execution error:\n\nDetected at node 'Reshape'
    # defined at (most recent call last):\n    File ".../x.py", line 3, in <module>\nNode:
    # 'Reshape'\nInput to reshape is a tensor with 3 values, but the requested shape has 4\n\t
    # [[{{node Reshape}}]]" (TF adds ", in <module>"; this engine keeps file and line).
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = tf.reshape(x, [2, 2]); line = sys._getframe().f_lineno
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                s.run(y, {x: [1.0, 2.0, 3.0]})
            assert s.run(y, {x: [1.0, 2.0, 3.0, 4.0]}).shape == (2, 2)   # the session stays usable
    text = str(info.value)
    assert text.startswith(
        "Graph execution error:\n\nDetected at node 'Reshape' defined at (most recent call last):\n"
        f'    File "{__file__}", line {line}\nNode: \'Reshape\'\n'
        "Input to reshape is a tensor with 3 values, but the requested shape has 4\n"
        "\t [[{{node Reshape}}]]\n")
    assert info.value.op is y.op and text.rstrip().endswith(f"created at {__file__}:{line}")

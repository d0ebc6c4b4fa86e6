"""``tf.nn.sparse_softmax_cross_entropy_with_logits``'s errors, as TF's sparse_xent_op_test
checks them; the words recorded from TF 2.21 (``tf.compat.v1``, graph mode)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from tests.tf_errors import op_message

xent = tf.nn.sparse_softmax_cross_entropy_with_logits


@pytest.mark.parametrize("labels, logits, words", [
    ([[0, 2]], [[0., 1.], [2., 3.], [2., 3.]],
     "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape=(1, 2) of "
     "rank 2 and logits.shape=(3, 2) of rank 2"),
    ([0, 2], [[0., 1.], [2., 3.], [2., 3.]],
     "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
     "labels.shape=(2,) and logits.shape=(3, 2)"),
])
def test_labels_that_do_not_fit_the_logits_are_refused_when_built(labels, logits, words):
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as info:
            xent(labels=labels, logits=logits)
    assert str(info.value) == words                                  # TF 2.21


def test_scalar_logits_are_refused_when_built():
    with tf.Graph().as_default():
        logits = tf.constant(1.0)
        with pytest.raises(ValueError) as info:
            xent(labels=tf.constant(0), logits=logits)
    assert str(info.value) == f"`logits` cannot be a scalar. Received logits={logits}`"


@pytest.mark.parametrize("labels, words", [
    ([4, 3, 0, -1], "Received a label value of -1 which is outside the valid range of [0, 4).  "
                    "Label values: 4 3 0 -1"),
    ([4, 0, 1, 9], "Received a label value of 9 which is outside the valid range of [0, 4).  "
                   "Label values: 4 0 1 9"),             # the last bad label, as TF's kernel
])
def test_a_label_out_of_range_names_the_label_and_all_labels(labels, words):
    with tf.Graph().as_default():
        y = xent(labels=labels, logits=[[1., 2., 3., 4.]] * 4)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y)
    assert op_message(info.value).split("\n")[0] == words            # TF 2.21


@pytest.mark.parametrize("fed, words", [
    (0, "labels must be 1-D, but got shape []"),
    ([[0, 0]], "labels must be 1-D, but got shape [1,2]"),
    ([0, 0, 0], "logits and labels must have the same first dimension, got logits shape [2,1] "
                "and labels shape [3]"),
])
def test_fed_labels_that_do_not_fit_the_logits_fail_at_run_time(fed, words):
    with tf.Graph().as_default():
        labels = tf.placeholder(np.int32)
        y = xent(labels=labels, logits=[[7.], [1.]])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y, {labels: fed})
    assert op_message(info.value).split("\n")[0] == words            # TF 2.21

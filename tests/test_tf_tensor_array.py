"""``tf.TensorArray`` as TensorFlow's ``tensor_array_ops_test`` checks it, recorded from TF 2.21
(graph mode, control flow v2: a TensorArray is a ``TensorList``) as literals (issue #30)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def _fails(fetch, words: str) -> None:
    """The run raises TF's InvalidArgumentError with ``words``; the session stays usable."""
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(fetch)
        assert words in str(info.value)
        assert sess.run(tf.constant(1.0) + 1.0) == 2.0


def test_a_string_tensor_array_stacks_and_reads_bytes():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.string, size=3)
        for i, row in enumerate([[b"a", b"b"], [b"c", b"d"], [b"e", b"f"]]):
            ta = ta.write(i, np.array([row]))
        rows = tf.TensorArray(tf.string, size=3).unstack(np.array([b"1", b"2", b"3"]))
        stacked, first, last = _run([ta.stack(), rows.read(0), rows.read(2)])
    assert stacked.tolist() == [[[b"a", b"b"]], [[b"c", b"d"]], [[b"e", b"f"]]]   # TF 2.21
    assert (first, last) == (b"1", b"3")


@pytest.mark.parametrize("make, shape, words", [
    (lambda: tf.TensorArray(tf.float32, size=0, infer_shape=False), None,
     "Tried to stack elements of an empty list with non-fully-defined element_shape: <unknown>"),
    (lambda: tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=(5, None)),
     [None, 5, None],
     "Tried to stack elements of an empty list with non-fully-defined element_shape: [5,?]"),
    (lambda: tf.TensorArray(tf.float32, size=2, element_shape=(5, None)), [2, 5, None],
     "Tried to stack list which only contains uninitialized tensors and has a non-fully-defined "
     "element_shape: [5,?]"),
])
def test_stacking_nothing_of_an_unknown_element_shape_fails_when_run(make, shape, words):
    with tf.Graph().as_default():
        stacked = make().stack()
        assert stacked.name == "TensorArrayV2Stack/TensorListStack:0"
        assert (stacked.shape.as_list() if shape is not None else stacked.shape.rank) == shape
        _fails(stacked, words)


def test_stacking_what_was_written_keeps_the_static_size():
    with tf.Graph().as_default():
        partly = tf.TensorArray(tf.float32, size=2, element_shape=(5, None))
        written = partly.write(0, tf.ones([5, 2])).write(1, tf.zeros([5, 2])).stack()
        assert written.shape.as_list() == [2, 5, 2]   # writes refine the element shape
        assert _run(written).shape == (2, 5, 2)
        assert tf.TensorArray(tf.float32, size=42).write(0, [0]).stack().shape.as_list() == [42, 1]


def test_writing_another_dtype_is_refused():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False)
        # TF builds it (logging "will be an error in future versions") and the run fails
        with pytest.raises(TypeError, match="^Invalid data types; op elements string but list "
                                            "elements float"):
            ta.write(0, "wrong_type_scalar")


@pytest.mark.parametrize("index", [-1, 3])
def test_writing_outside_the_list_fails_when_run(index):
    with tf.Graph().as_default():
        flow = tf.TensorArray(tf.float32, size=3, infer_shape=False).write(index, 3.0).flow
        _fails(flow, f"Trying to modify element {index} in a list with 3 elements.")


def test_a_tensor_array_passes_through_cond_in_a_loop():
    """cond_v2_test's testCondAndTensorArray: each branch writes, the cond returns the array."""
    with tf.Graph().as_default():
        x = tf.range(-5, 5)

        def body(i, out):
            out = tf.cond(x[i] > 0, lambda: out.write(i, x[i] ** 2), lambda: out.write(i, x[i]))
            return i + 1, out

        _, out = tf.while_loop(lambda i, _: i < 10, body,
                               (tf.constant(0), tf.TensorArray(tf.int32, size=10)))
        assert isinstance(out, tf.TensorArray)
        assert _run(out.stack()).tolist() == [-5, -4, -3, -2, -1, 0, 1, 4, 9, 16]   # TF 2.21


def test_an_unwritten_tensor_array_may_be_written_in_both_branches():
    """Its (lazily made) empty buffer belongs to the graph the array was made in, not to the
    branch that first wrote it."""
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2)
        pick = tf.compat.v1.placeholder(tf.bool, [])
        out = tf.cond(pick, lambda: ta.write(0, [1.0, 2.0]), lambda: ta.write(1, [3.0, 4.0]))
        assert isinstance(out, tf.TensorArray) and out.element_shape.as_list() == [2]
        stacked = out.stack()
        assert _run(stacked, {pick: True}).tolist() == [[1.0, 2.0], [0.0, 0.0]]
        assert _run(stacked, {pick: False}).tolist() == [[0.0, 0.0], [3.0, 4.0]]

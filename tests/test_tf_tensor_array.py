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


# --- elements of different shapes: infer_shape=False and split (a list of the elements) ----

def _loose(size=3, **kw):
    return tf.TensorArray(tf.float32, size=size, infer_shape=False, **kw)


def test_infer_shape_false_holds_elements_of_different_shapes():
    with tf.Graph().as_default():
        ta = _loose().write(0, [[4.0, 5.0]]).write(1, [[1.0]]).write(2, -3.0)
        got = _run([ta.read(0), ta.read(1), ta.read(2)])
        rows = _loose().write(0, [[4.0, 5.0], [104.0, 105.0], [204.0, 205.0]]) \
            .write(1, [[6.0, 7.0], [106.0, 107.0]]).write(2, [[8.0, 9.0]])
        joined = _run(rows.concat())
        big = tf.TensorArray(tf.float32, size=3, infer_shape=False, element_shape=[None, 10, 20])
        big = big.write(0, tf.ones([50, 10, 20])).write(1, tf.ones([50, 10, 20])).write(
            2, tf.ones([1, 10, 20]))
        assert _run(big.concat()).shape == (101, 10, 20)
        with pytest.raises(ValueError, match=r"^Inconsistent shapes: saw \(1, 20, 20\) but "
                                             r"expected \(None, 10, 20\)"):
            big.write(1, tf.ones([1, 20, 20]))
    assert [g.tolist() for g in got] == [[[4.0, 5.0]], [[1.0]], -3.0]   # TF 2.21
    assert joined.tolist() == [[4.0, 5.0], [104.0, 105.0], [204.0, 205.0], [6.0, 7.0],
                               [106.0, 107.0], [8.0, 9.0]]


def test_a_loop_writes_elements_of_different_lengths():
    """tensor_array_ops_test's testTensorArrayWriteConcatInParallel: the carried array is
    unwritten when the loop starts, so it travels as a list."""
    with tf.Graph().as_default():
        def pieces(values):
            ta = tf.TensorArray(tf.int32, size=len(values), infer_shape=False)
            for i, v in enumerate(values):
                ta = ta.write(i, tf.constant(v, shape=(len(v),), dtype=tf.int32))
            return ta.concat()

        def body(i, out):
            return i + 1, out.write(i, tf.cond(i < 3, lambda: pieces([[1], []]),
                                               lambda: pieces([[8], [], [9]])))

        _, out = tf.while_loop(lambda i, _: i < 6, body,
                               (0, tf.TensorArray(tf.int32, size=6, infer_shape=False)))
        assert _run(out.concat()).tolist() == [1, 1, 1, 8, 9, 8, 9, 8, 9]


@pytest.mark.parametrize("writes, words", [
    ([3.0, 4.0, [3.0]], "Concat saw a scalar shape at index 0 but requires at least vectors."),
    ([[3.0], [4.0], [[3.0]]], "PartialTensorShape: Incompatible ranks during merge: 0 vs. 1"),
    ([[[3.0, 1.0]], [[4.0]]], "PartialTensorShape: Incompatible shapes during merge: [2] vs. [1]"),
])
def test_concat_of_elements_that_do_not_join_fails_when_run(writes, words):
    with tf.Graph().as_default():
        ta = _loose(len(writes))
        for i, w in enumerate(writes):
            ta = ta.write(i, w)
        _fails(ta.concat(), words)


@pytest.mark.parametrize("make, words", [
    (lambda: _loose().read(1), "Trying to read an uninitialized tensor but element_shape is not "
                               "fully defined: <unknown> and no list element is set."),
    (lambda: _loose(element_shape=[None]).read(1), "Trying to read an uninitialized tensor but "
                                                   "element_shape is not fully defined: [?] and "
                                                   "no list element is set."),
    (lambda: _loose().read(-1), "Trying to access element -1 in a list with 3 elements."),
    (lambda: _loose().read(3), "Trying to access element 3 in a list with 3 elements."),
    (lambda: _loose(0).concat(), "All except the first dimension must be fully defined when "
                                 "concating an empty tensor list. element_shape: <unknown>"),
    (lambda: _loose(2).write(0, [3.0, 1.0]).write(1, [4.0]).stack(),
     "PartialTensorShape: Incompatible shapes during merge: [2] vs. [1]"),
])
def test_reads_and_joins_that_cannot_be_made_fail_when_run(make, words):
    with tf.Graph().as_default():
        _fails(make(), words)


def test_unwritten_elements_read_as_zeros_of_the_written_shape():
    with tf.Graph().as_default():
        got = _run([_loose(element_shape=[2]).read(1), _loose().write(0, [[1.0, 2.0]]).read(1),
                    _loose(2).write(0, [[3.0, 1.0]]).concat(), _loose(2).write(0, [3.0, 1.0]).stack()])
    assert [g.tolist() for g in got] == [[0.0, 0.0], [[0.0, 0.0]], [[3.0, 1.0], [0.0, 0.0]],
                                         [[3.0, 1.0], [0.0, 0.0]]]   # TF 2.21


def test_split_makes_pieces_of_different_lengths():
    with tf.Graph().as_default():
        w = _loose().split([1.0, 2.0, 3.0], [2, 0, 1])
        assert w.flow.op.type == "TensorListSplit" and w.element_shape.rank is None
        got = _run([w.read(0), w.read(1), w.read(2), w.concat(), w.size()])
        matrix = _loose().split([[1.0, 101.0], [2.0, 201.0], [3.0, 301.0]], [2, 0, 1])
        assert _run(matrix.read(1)).shape == (0, 2)
    assert [g.tolist() for g in got] == [[1.0, 2.0], [], [3.0], [1.0, 2.0, 3.0], 3]   # TF 2.21


def test_split_into_equal_lengths_keeps_a_known_element_shape_and_gradients():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        w = tf.TensorArray(tf.float32, size=3, dynamic_size=True).split(x, [1, 1, 1])
        assert w.read(0).shape.as_list() == [1] and w.element_shape.as_list() == [1]
        joined = w.write(3, [4.0]).concat()
        grad = tf.gradients(joined, x)[0]
        got = _run([joined, grad])
        rows = tf.TensorArray(tf.float32, size=0, dynamic_size=True).split(
            tf.compat.v1.placeholder(tf.float32, [10, 4, 2, 3]), tf.constant([5, 5]))
        assert rows.read(0).shape.as_list() == [5, 4, 2, 3]
    assert got[0].tolist() == [1.0, 2.0, 3.0, 4.0] and got[1].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("value, lengths, words", [
    ([1.0, 2.0, 3.0], [1], "Unused values in tensor. Length of tensor: 3 Values used: 1"),
    ([1.0, 2.0, 3.0], [2, 2], "Attempting to slice [2, 4] from tensor with length 3"),
])
def test_split_lengths_that_do_not_fit_fail_when_run(value, lengths, words):
    with tf.Graph().as_default():
        _fails(_loose().split(value, lengths).flow, words)


def test_split_lengths_must_be_a_vector_and_the_value_at_least_one():
    with tf.Graph().as_default():
        lengths = tf.compat.v1.placeholder(tf.int64)
        flow = _loose().split([1.0, 2.0, 3.0], lengths).flow
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected lengths to be a vector, received shape: \[\]"):
                sess.run(flow, {lengths: 1})
        with pytest.raises(ValueError, match="^Shape must be at least rank 1 but is rank 0"):
            _loose(1).split(1.0, [1])


def test_gradients_flow_through_a_list_of_elements():
    """tensor_array_ops_test's testSkipEagerTensorArrayGradientWriteRead and
    testSkipEagerTensorArrayGradientSplitConcat (TF 2.21's values)."""
    with tf.Graph().as_default():
        v0, v1 = tf.constant([[4.0, 5.0]]), tf.constant(3.0)
        w = _loose(2).write(0, v0).write(1, v1)             # shapes differ: a list
        r0, r1, r0_again = w.read(0), w.read(1), w.read(0)
        both = tf.gradients([r0, r0_again, r1], [v0, v1], [[[2.0, 3.0]], [[1.0, -1.0]], -2.0])
        x = tf.constant([[1.0, -1.0], [10.0, -10.0], [100.0, -100.0]])
        joined = _loose(2).split(x, [2, 1]).concat()
        through = tf.gradients(joined, x, [[[2.0, -2.0], [20.0, -20.0], [200.0, -200.0]]])[0]
        got = _run([*both, through])
    assert got[0].tolist() == [[3.0, 2.0]] and got[1] == -2.0
    assert got[2].tolist() == [[2.0, -2.0], [20.0, -20.0], [200.0, -200.0]]

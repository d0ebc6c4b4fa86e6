"""Errors TF's kernel tests (unstack, softmax, reduction, matmul) check by type and words;
recorded from TF 2.21 (``tf.compat.v1``, graph mode)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


@pytest.mark.parametrize("axis", [2, -3])
def test_unstack_refuses_an_axis_outside_the_rank(axis):
    with tf.Graph().as_default():
        a = tf.constant([[1, 2, 3], [4, 5, 6]])
        with pytest.raises(ValueError) as info:
            tf.unstack(a, axis=axis)
    assert str(info.value) == f"Argument `axis` = {axis} not in range [-2, 2)"   # TF 2.21


def test_unstack_of_an_unknown_rank_needs_num():
    with tf.Graph().as_default():
        x = tf.placeholder(np.float32)
        with pytest.raises(ValueError) as info:
            tf.unstack(x)
        assert str(info.value) == "Cannot infer argument `num` from shape <unknown>"   # TF
        parts = tf.unstack(x, num=2)
        assert [p.name for p in parts] == ["unstack:0", "unstack:1"]                 # TF 2.21


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [2, -3])
def test_softmax_refuses_an_axis_outside_the_rank_as_invalid_argument(fn, axis):
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            getattr(tf.nn, fn)(tf.ones([2, 3]), axis=axis)
    assert info.value.message == (f"`dim` must be in the range [-2, 2) where 2 is the number of "
                                  f"dimensions in the input. Received: dim={axis}")  # TF 2.21


@pytest.mark.parametrize("axis", [[-3], [2], [0, 2], 2])
def test_a_reduction_over_a_dimension_the_input_lacks_says_tfs_words(axis):
    with tf.Graph().as_default():
        x = tf.constant(np.arange(10).reshape(2, 5).astype(np.float32))
        with pytest.raises(ValueError) as info:
            tf.reduce_sum(x, axis)
    bad = [a for a in np.atleast_1d(axis) if not -2 <= a < 2][0]
    assert str(info.value).startswith(f"Invalid reduction dimension {bad} for input with 2 "
                                      f"dimensions. for '{{{{node Sum}}}} = Sum[")  # TF 2.21


def test_reduction_indices_of_rank_two_are_refused():
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as info:
            tf.reduce_sum(tf.placeholder(tf.float32), [[1], [2]])
    assert str(info.value) == (
        "Shape must be at most rank 1 but is rank 2 for '{{node Sum}} = Sum[T=DT_FLOAT, "
        "Tidx=DT_INT32, keep_dims=false](Placeholder, Sum/reduction_indices)' with input shapes: "
        "?, [2,1].")                                                                 # TF 2.21


def test_matmul_of_a_vector_is_tfs_rank_error():
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as info:
            tf.matmul(tf.constant([10., 20., 30.]), tf.constant([[40., 50.], [60., 70.]]))
    assert str(info.value).startswith("Shape must be rank 2 but is rank 1 for '{{node MatMul}} "
                                      "= MatMul[")                                  # TF 2.21


@pytest.mark.parametrize("index, words", [
    (lambda a: tf.constant(0)[:], "Attempting to slice scalar input."),
    (lambda a: a[1:, 1:], "Index out of range using input dim 1; input has only 1 dims"),
    (lambda a: a[5], "slice index 5 of dimension 0 out of bounds."),
    (lambda a: tf.constant([[1, 2]])[0, -3], "slice index -1 of dimension 1 out of bounds."),
])
def test_indexing_past_the_tensor_says_tfs_strided_slice_words(index, words):
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as info:
            index(tf.constant([1, 2]))
    assert str(info.value).startswith(words + " for '{{node strided_slice")        # TF 2.21


def test_slice_bounds_may_be_tensors_the_graph_fixes():
    with tf.Graph().as_default():
        a = tf.constant([0, 1, 2], dtype=tf.int64)
        i = tf.constant(1, dtype=tf.int32)
        one, rows = a[i], a[i:i + 1]
        assert rows.shape.as_list() == [1]
        with tf.Session() as sess:
            assert sess.run(one) == 1 and sess.run(rows).tolist() == [1]            # TF 2.21
        with pytest.raises(TypeError, match="slice bounds known only at run time"):
            p = tf.placeholder(tf.int32, [])
            a[p:p + 1]


def test_concat_of_scalars_is_refused_even_with_a_run_time_axis():
    with tf.Graph().as_default():
        s = tf.constant(7)
        for axis in (tf.placeholder(tf.int32), 0):
            with pytest.raises(ValueError, match=r"^Can't concatenate scalars \(use tf\.stack "
                                                 r"instead\) for '\{\{node concat\}\} = ConcatV2"):
                tf.concat([s, s, s], axis)                                        # TF 2.21


@pytest.mark.parametrize("values, axis, error, words", [
    ("b", "a", ValueError, "Incompatible type conversion requested to type int32 for `tf.Variable "
                           "of type float32."),
    (1, 4.2, TypeError, "Expected int32, but got 4.2 of type 'float'."),
    (["a", "b"], "a", TypeError, "Value passed to parameter 'axis' has DataType float32 not in "
                                 "list of allowed values: int32, int64"),
    (["a", "b"], [3], ValueError, "Shape must be rank 0 but is rank 1 for '{{node concat}}"),
    ([], 0, ValueError, "List argument 'values' to 'ConcatV2' Op with length 0 shorter than "
                        "minimum length 2."),
])
def test_concat_checks_its_axis_as_tf(values, axis, error, words):
    with tf.Graph().as_default():
        named = {"a": tf.Variable(tf.constant(1.0, shape=[1])),
                 "b": tf.Variable(tf.constant(2.0, shape=[1]))}
        pick = lambda x: named.get(x, x) if isinstance(x, str) else x   # noqa: E731
        values = [pick(v) for v in values] if isinstance(values, list) else pick(values)
        with pytest.raises(error) as info:
            tf.concat(values, pick(axis))
    assert str(info.value).startswith(words)                                      # TF 2.21


def test_concat_of_one_value_is_its_identity_and_a_fixed_tensor_axis_is_taken():
    with tf.Graph().as_default():
        one = tf.concat(1, tf.constant(0, shape=[]))
        assert one.name == "concat/concat:0"                                       # TF 2.21
        both = tf.concat([tf.ones([2]), tf.zeros([1])], tf.constant(0))
        assert both.shape.as_list() == [3]


@pytest.mark.parametrize("args, words", [
    (([[0, 1], [2, 3]], 4, 2), "Dimension size, given by scalar input 2 must be in range [-2, 2) "
                               "for '{{node split}} = Split[T=DT_INT32, num_split=4]"),
    (([[0, 1], [2, 3]], [1, 1], -3), "Dimension size, given by scalar input -3 must be in range "
                                     "[-2, 2) for '{{node split}} = SplitV["),
    (([0, 1], [3, -1], 0), "Split size at index 1 must be >= 0. Got: -1 for '{{node split}}"),
    (([1., 2., 3.], [-1, -2], 0), "Split size at index 1 must be >= 0. Got: -2 for "),
])
def test_split_refuses_a_bad_axis_or_sizes_with_tfs_words(args, words):
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as info:
            tf.split(*args)
    assert str(info.value).startswith(words)                                      # TF 2.21


def test_split_checks_num_against_the_sizes_and_infers_a_minus_one():
    with tf.Graph().as_default():
        value = list(range(1, 11))
        with pytest.raises(ValueError, match="^Length of size_splits should be equal to "
                                             "num_outputs for '{{node split}} = SplitV\\[T=DT_INT32"
                                             ", Tlen=DT_INT32, num_split=4\\]"):
            tf.split(value, tf.constant([2, 2, 6]), num=4)
        a, b = tf.split([0, 1, 2], [2, -1])
        assert (a.shape.as_list(), b.shape.as_list()) == ([2], [1])                 # TF 2.21
        with pytest.raises(ValueError) as info:
            tf.split(np.zeros([5, 30]), tf.placeholder(tf.int32), axis=tf.placeholder(tf.int32))
        assert str(info.value).startswith("Cannot infer argument `num` from shape Tensor(")


def test_transpose_takes_negative_perm_entries_and_refuses_bad_ones_in_tfs_words():
    with tf.Graph().as_default():
        t = tf.transpose(tf.constant(1, dtype=tf.int32, shape=[100, 37, 15]), [-1, -3, -2])
        assert t.shape.as_list() == [15, 100, 37]                                 # TF 2.21
        x = np.arange(0., 30).reshape([2, 3, 5])
        for perm, words in (([[0, 1], [2, 3]], "Shape must be rank 1 but is rank 2"),
                            ([0, 1, 3], "perm dim 3 is out of range of input rank 3"),
                            ([0, -4, 1], "perm dim -4 is out of range of input rank 3")):
            with pytest.raises(ValueError) as info:
                tf.transpose(x, perm)
            assert str(info.value).startswith(words + " for '{{node transpose")


def test_a_bad_gather_index_is_named_by_its_position_in_the_index_array():
    with tf.Graph().as_default():
        params = [[0, 1, 2], [3, 4, 5]]
        with tf.Session() as sess:
            for axis, size in ((0, 2), (1, 3)):
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(tf.gather(params, [[7]], axis=axis))
                assert f"\nindices[0,0] = 7 is not in [0, {size})\n" in info.value.message


def test_a_reshape_whose_minus_one_cannot_fit_says_tfs_shape_function_words():
    with tf.Graph().as_default():
        y = tf.constant(0.0, shape=[23, 29, 31])
        with pytest.raises(ValueError) as info:
            tf.reshape(y, [17, -1])
    assert str(info.value).startswith("Dimension size must be evenly divisible by 17 but is "
                                      "20677 for '{{node Reshape}} = Reshape[")   # TF 2.21

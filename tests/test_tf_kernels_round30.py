"""Kernel behaviour TensorFlow's own tests check (issue #30: split/stack/concat/gather/conv/
cwise/reduction op tests), recorded from TF 2.21 in ``tf.compat.v1`` graph mode as literals.

CI has neither TF nor its test files: every expected value, name and message below is what
real TF printed for the same program.
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


# --- narrow integers: tf.dtypes.experimental.int4 ... (split_op_test's _TEST_DTYPES) --------

def test_int4_family_dtypes_as_tf():
    exp = tf.dtypes.experimental
    # TF 2.21: (name, as_datatype_enum, is_integer, is_unsigned, size, min, max)
    got = [(d.name, d.as_datatype_enum, d.is_integer, d.is_unsigned, d.size, d.min, d.max)
           for d in (exp.int4, exp.uint4, exp.int2, exp.uint2)]
    assert got == [("int4", 29, True, False, 1, -8, 7), ("uint4", 30, True, True, 1, 0, 15),
                   ("int2", 31, True, False, 1, -2, 1), ("uint2", 32, True, True, 1, 0, 3)]


def test_split_moves_int4_values():
    int4 = tf.dtypes.experimental.int4
    with tf.Graph().as_default():
        x = tf.constant(np.array([1, -3, 5], dtype=int4.as_numpy_dtype))
        assert x.dtype == int4
        a, b = _run(tf.split(x, [1, 2]))
    assert a.dtype == int4.as_numpy_dtype and a.tolist() == [1] and b.tolist() == [-3, 5]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_gradient_flows_through_split_of_complex(dtype):
    """A multi-output op's gradient reads every output's cotangent: complex ones count."""
    with tf.Graph().as_default():
        x = tf.constant(np.arange(4, dtype=dtype).reshape(2, 2) * (1 - 1j))
        a, b = tf.split(x, 2, axis=1)
        g, = tf.gradients([a, b], [x], [tf.constant([[1j], [2]], dtype=dtype),
                                        tf.constant([[3], [4j]], dtype=dtype)])
        assert g is not None
        np.testing.assert_array_equal(_run(g), [[1j, 3], [2, 4j]])


# --- pow's exponent gradient multiplies left to right (cwise_ops_binary_test testBCast_*B) ---

def test_pow_exponent_gradient_of_a_zero_cotangent_stays_zero_in_float16():
    """6**6 * log(6) overflows float16; TF forms (g * 6**6) * log(6), so g = 0 gives 0."""
    with tf.Graph().as_default():
        x = tf.constant(np.array([6, 2], np.float16))
        y = tf.constant(np.float16(6))
        g, = tf.gradients(tf.pow(x, y), [y], [tf.constant(np.array([0, 1], np.float16))])
        assert _run(g) == np.float16(44.38)   # TF 2.21


# --- small ops: count_nonzero of strings, matvec, leaky_relu, reshape, stack ---------------

def test_count_nonzero_of_strings_counts_the_non_empty_ones():
    with tf.Graph().as_default():
        n = tf.math.count_nonzero(tf.constant([["", "a", ""], ["b", "c", ""]]), axis=1)
        assert _run(n).tolist() == [1, 2]                       # TF 2.21


def test_matvec_is_matmul_of_a_column_squeezed():
    with tf.Graph().as_default():
        a, b = tf.constant([[1, 2], [3, 4]]), tf.constant([5, 6])
        c = tf.linalg.matvec(a, b)
        assert c.name == "MatVec/Squeeze:0" and c.shape.as_list() == [2]
        assert [o.type for o in tf.get_default_graph().get_operations()][-2:] == ["MatMul",
                                                                                  "Squeeze"]
        assert _run(c).tolist() == [17, 39]
        assert _run(tf.linalg.matvec(a, b, transpose_a=True)).tolist() == [23, 34]   # TF 2.21


def test_leaky_relu_of_ints_is_float32_and_any_alpha_selects():
    with tf.Graph().as_default():
        y = tf.nn.leaky_relu(np.array([-9, 7, -5], np.int32), alpha=0.2)
        assert y.dtype == tf.float32
        np.testing.assert_allclose(_run(y), [-1.8, 7.0, -1.0], rtol=1e-6)   # TF 2.21
        x = np.array([-0.9, 0.7, -2.7])
        assert _run(tf.nn.leaky_relu(x, alpha=10)).tolist() == [-9.0, 0.7, -27.0]
        assert _run(tf.nn.leaky_relu(x, alpha=-10)).tolist() == [9.0, 0.7, 27.0]
        v = tf.constant([-2.0, 3.0])
        assert _run(tf.gradients(tf.nn.leaky_relu(v, alpha=10), v)[0]).tolist() == [10.0, 1.0]


@pytest.mark.parametrize("shape, expected", [([0, -1, 3], (0, 2, 3)), ([0, -1], (0, 6)),
                                             ([2, 0, -1], (2, 0, 3)), ([0, -1, 0], (0, 6, 0))])
def test_reshape_of_an_empty_tensor_solves_a_minus_one_beside_a_zero(shape, expected):
    """TF's kernel leaves zero dims out of both products (reshape_op_test)."""
    with tf.Graph().as_default():
        assert _run(tf.reshape(tf.zeros([0, 6]), shape)).shape == expected        # TF 2.21
        p = tf.placeholder(tf.float32, [None, 6])
        y = tf.reshape(p, tf.stack([tf.constant(d) for d in shape]))
        assert _run(y, {p: np.zeros((0, 6))}).shape == expected


def test_stack_of_an_array_and_a_tensor():
    with tf.Graph().as_default():
        s = tf.stack([np.zeros((2, 3), np.float32), tf.ones([2, 3])], axis=1)
        assert s.shape.as_list() == [2, 2, 3]
        assert _run(s)[:, :, 0].tolist() == [[0.0, 1.0], [0.0, 1.0]]          # TF 2.21


# --- conv2d: several batch dims, spatial-only input_sizes, shape-function edge cases -------

def test_conv2d_over_expanded_batch_dims_is_one_batch_between_reshapes():
    with tf.Graph().as_default():
        x = tf.constant(np.arange(2 * 5 * 2 * 3 * 3, dtype=np.float32).reshape(2, 5, 2, 3, 3) / 100)
        f = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3) / 10
        c = tf.nn.conv2d(x, f, strides=[1, 1], padding="VALID")
        assert c.name == "squeeze_batch_dims/Reshape_1:0" and c.shape.as_list() == [2, 5, 2, 3, 3]
        np.testing.assert_allclose(_run(c)[1, 4, 1, 2], [1.608, 2.142, 2.676], rtol=1e-6)  # TF
        assert tf.gradients(c, x)[0].shape.as_list() == [2, 5, 2, 3, 3]


def test_conv2d_backprop_input_takes_the_spatial_sizes_only():
    with tf.Graph().as_default():
        g = tf.nn.conv2d_backprop_input(
            [2, 2], tf.constant(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)),
            tf.ones([3, 2, 2, 2]), strides=[1, 1, 1, 1], padding="VALID")
        assert g.shape.as_list() == [3, 2, 2, 2]
        assert _run(g).ravel()[:4].tolist() == [1.0, 5.0, 1.0, 5.0]                  # TF 2.21


def test_conv2d_shape_function_edge_cases():
    with tf.Graph().as_default():
        unknown = tf.placeholder(tf.float32)
        c = tf.nn.conv2d(unknown, tf.placeholder(tf.float32, [3, 3, 2, 5]), strides=1, padding="SAME")
        assert c.shape.as_list() == [None, None, None, 5]                            # TF 2.21
        with pytest.raises(ValueError, match="All elements of explicit_paddings must be nonnegative"):
            tf.nn.conv2d(unknown, unknown, strides=1, padding=[[0, 0], [0, -1], [1, 2], [0, 0]])
        with pytest.raises(ValueError, match="Nonzero explicit padding in the batch or depth "
                                             "dimensions is not supported"):
            tf.nn.conv2d(unknown, unknown, strides=1, padding=[[1, 0], [0, 0], [0, 0], [0, 0]])
        with pytest.raises(ValueError, match=r"When padding is a list, it must be of size 4. "
                                             r"Received: padding=\[\[0, 0\], \[1, 2\], \[3, 4\]\] of size 3"):
            tf.nn.conv2d(unknown, unknown, strides=1, padding=[[0, 0], [1, 2], [3, 4]])
        with pytest.raises(ValueError, match="each element of `padding` must be a list/tuple of "
                                             "size 2. Received: padding=.* with element at index 0 "
                                             "of type <class 'int'>"):
            tf.nn.conv2d(unknown, unknown, strides=1, padding=[0, 1, 0, 1])


def test_indexed_slices_keep_their_dense_shape_as_given_through_clip_by_global_norm():
    with tf.Graph().as_default():
        s = tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]), dense_shape=(1,))
        (clipped,), _ = tf.clip_by_global_norm([s], 1.0)
        assert s.dense_shape == (1,) and clipped.dense_shape == (1,)                 # TF 2.21


def test_hessians_of_a_tensor_in_itself_fails_as_tf():
    """TF's loop over the gradient's entries meets a None second gradient (gradients_test)."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (10, 10))
        with pytest.raises(ValueError, match="None values not supported."):
            tf.hessians(x, x)
        v = tf.placeholder(tf.float32, [3])
        h, = tf.hessians(tf.reduce_sum(v * v), v)
        assert h.shape.as_list() == [3, 3]
        assert _run(h, {v: [1.0, 2.0, 3.0]}).tolist() == (2 * np.eye(3)).tolist()


def test_gather_nd_ignoring_bad_indices_gives_zeros_and_no_gradient_there():
    with tf.Graph().as_default():
        m = tf.constant(np.arange(6.0).reshape(3, 2))
        rows = tf.gather_nd(m, [[0], [5], [2]], bad_indices_policy="IGNORE")
        assert _run(rows).tolist() == [[0.0, 1.0], [0.0, 0.0], [4.0, 5.0]]          # TF 2.21
        assert _run(tf.gradients(tf.reduce_sum(rows), m)[0]).tolist() == [[1, 1], [0, 0], [1, 1]]
        points = tf.gather_nd(m, [[0, 1], [5, 0], [2, 2]], bad_indices_policy="IGNORE")
        assert _run(points).tolist() == [1.0, 0.0, 0.0]

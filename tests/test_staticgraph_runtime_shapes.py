"""Shapes known only when the graph runs: TF's Pack of ints and scalar tensors, Range with
tensor bounds, sequence_mask without maxlen.  Static shapes, names and values below were
read from TF 2.21's ``tf.compat.v1`` in graph mode."""
import numpy as np
import pytest

import staticgraph as tf


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _run(fetch, feed):
    with tf.Session() as s:
        return s.run(fetch, feed)


def test_lists_mixing_ints_and_scalar_tensors_are_packed_with_tf_static_shapes():
    x = tf.placeholder(tf.float32, [None, 4])
    k = tf.placeholder(tf.float32, [3, 4])
    n = tf.placeholder(tf.int32, [])
    y = tf.placeholder(tf.float32, [None, 3])
    cases = {
        "Reshape": (tf.reshape(x, [tf.shape(x)[0] * 2, -1]), [None, None]),
        "Reshape_1": (tf.reshape(k, [tf.shape(k)[0] * 2, -1]), [6, 2]),        # folded, as TF
        "Reshape_2": (tf.reshape(x, tf.stack([tf.shape(x)[0], 2, 2])), [None, 2, 2]),
        "Reshape_3": (tf.reshape(x, [-1, 2, tf.shape(x)[0]]), [None, 2, None]),
        "zeros": (tf.zeros(tf.shape(x)[0:1] * 2), [None]),
        "zeros_1": (tf.zeros(tf.shape(k)[0:1] * 2), [6]),
        "Fill": (tf.fill([tf.shape(x)[0], 3], 1.0), [None, 3]),
        "ones": (tf.ones([n, 2]), [None, 2]),
        "Tile": (tf.tile(k, [tf.shape(y)[0], 1]), [None, 4]),
        "Tile_1": (tf.tile(x, [tf.shape(y)[0], 2]), [None, 8]),
        "BroadcastTo": (tf.broadcast_to(tf.constant([1.0, 2.0, 3.0]), [n, 3]), [None, 3]),
        "random_normal": (tf.random_normal([tf.shape(x)[0], 4]), [None, 4]),
        "truncated_normal": (tf.truncated_normal([n, 4]), [None, 4]),
        "zeros_2": (tf.zeros(n), [None]),
    }
    for name, (t, shape) in cases.items():
        assert (t.op.name, t.shape.as_list()) == (name, shape)
    assert [i.name for i in cases["ones"][0].op.inputs] == ["ones/packed:0", "ones/Const:0"]
    assert [i.name for i in cases["Fill"][0].op.inputs] == ["Fill/dims:0", "Fill/value:0"]
    assert cases["Tile"][0].op.inputs[1].name == "Tile/multiples:0"
    assert tf.ones([n, 2], dtype=tf.int64).dtype == tf.int64
    feed = {x: np.arange(12.0).reshape(3, 4), k: np.ones((3, 4)), n: 2, y: np.ones((5, 3))}
    got = _run({name: t for name, (t, _) in cases.items()}, feed)
    assert got["Reshape"].shape == (6, 2) and got["Reshape_3"].shape == (2, 2, 3)
    np.testing.assert_array_equal(got["Reshape"], np.arange(12.0).reshape(6, 2))
    assert got["zeros"].shape == (6,) and got["Fill"].shape == (3, 3) and (got["Fill"] == 1).all()
    assert got["ones"].shape == (2, 2) and got["Tile"].shape == (15, 4) and got["Tile_1"].shape == (15, 8)
    np.testing.assert_array_equal(got["BroadcastTo"], [[1, 2, 3]] * 2)
    assert got["random_normal"].shape == (3, 4) and got["truncated_normal"].shape == (2, 4)
    assert np.abs(got["truncated_normal"]).max() <= 2.0 and got["zeros_2"].shape == (2,)


def test_gradients_flow_through_run_time_shapes_but_not_into_them():
    x = tf.placeholder(tf.float32, [None, 4])
    n = tf.placeholder(tf.int32, [])
    loss = tf.reduce_sum(tf.tile(x, [n, 1]) * 2.0) + tf.reduce_sum(
        tf.reshape(x, [n * 2, -1]) ** 2) + tf.reduce_sum(tf.broadcast_to(x[:1], [n, 4]))
    gx, gn = tf.gradients(loss, [x, n])
    assert gn is None and gx.shape.as_list() == [None, 4]
    xv = np.arange(8.0).reshape(2, 4)
    want = 2.0 * 2 + 2 * xv + np.array([[2.0] * 4, [0.0] * 4])
    np.testing.assert_allclose(_run(gx, {x: xv, n: 2}), want)


def test_run_time_shape_errors_use_tf_wording():
    x = tf.placeholder(tf.float32, [None, 4])
    n = tf.placeholder(tf.int32, [])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input to reshape is a tensor with 12 values, but the requested "
                             "shape requires a multiple of 5"):
        _run(tf.reshape(x, [n, -1]), {x: np.ones((3, 4)), n: 5})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
        _run(tf.ones([n, 2]), {n: -1})
    with pytest.raises(TypeError, match="don't all match"):
        tf.ones([n, tf.constant(2, tf.int64)])


def test_range_with_tensor_bounds_has_tf_dtypes_and_static_shapes():
    n = tf.placeholder(tf.int32, [])
    f = tf.placeholder(tf.float32, [])
    cases = [(tf.range(n), "int32", [None]), (tf.range(0, n, 2, dtype=tf.int64), "int64", [None]),
             (tf.range(f), "float32", [None]), (tf.range(tf.constant(5)), "int32", [5]),
             (tf.range(1, 10, tf.constant(3)), "int32", [3]), (tf.range(2.0, n), "float32", [None]),
             (tf.range(tf.constant(3, tf.int64), 10), "int64", [7]),
             (tf.range(5, dtype=tf.float32), "float32", [5]), (tf.range(n, 5.5), "float32", [None])]
    for t, dtype, shape in cases:
        assert (t.op.type, t.dtype.name, t.shape.as_list()) == ("Range", dtype, shape)
    assert [i.name for i in cases[0][0].op.inputs] == ["range/start:0", "Placeholder:0", "range/delta:0"]
    assert cases[1][0].op.inputs[1].name == "range_1/Cast:0"
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(tf.range(2.0, n), {n: 5}), [2.0, 3.0, 4.0])
        np.testing.assert_array_equal(s.run(cases[1][0], {n: 5}), [0, 2, 4])
        for args, msg in (((0, n, 0), "Requires delta != 0"),
                          ((5, n, 1), "Requires start <= limit when delta > 0: 5/3"),
                          ((0, n, -1), "Requires start >= limit when delta < 0: 0/3")):
            with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
                s.run(tf.range(*args), {n: 3})
    with pytest.raises(ValueError, match=r"Requires delta != 0 for '\{\{node range_\d+\}\} = Range"):
        tf.range(0, 5, 0)
    with pytest.raises(TypeError):
        tf.range(0, 2.5, dtype=tf.int32)
    assert tf.gradients(tf.reduce_sum(tf.cast(tf.range(n), tf.float32) * f), [n, f])[0] is None


def test_sequence_mask_without_maxlen_takes_the_max_length_at_run_time():
    lengths = tf.placeholder(tf.int32, [None])
    m = tf.sequence_mask(lengths)
    assert (m.op.name, m.shape.as_list(), m.dtype) == ("SequenceMask/Less", [None, None], tf.bool)
    types = [op.type for op in tf.get_default_graph().get_operations() if op.name.startswith("SequenceMask/")]
    assert types[:3] == ["Max", "Const", "Maximum"] and "Range" in types
    assert tf.sequence_mask([1, 3, 2]).shape.as_list() == [3, 3]
    assert tf.sequence_mask(lengths, 5, dtype=tf.float32).shape.as_list() == [None, 5]
    assert tf.sequence_mask(tf.placeholder(tf.int64, [2, None])).shape.as_list() == [2, None, None]
    n = tf.placeholder(tf.int32, [])
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(m, {lengths: [1, 3, 0]}),
                                      [[1, 0, 0], [1, 1, 1], [0, 0, 0]])
        assert s.run(m, {lengths: []}).shape == (0, 0)   # TF: max of nothing is the lowest int
        assert s.run(tf.sequence_mask(lengths, n), {lengths: [2], n: 4}).tolist() == [[True, True, False, False]]
    with pytest.raises(ValueError, match="maxlen must be scalar for sequence_mask"):
        tf.sequence_mask(lengths, [3])


def test_constant_value_evaluates_small_pure_subgraphs():
    k = tf.placeholder(tf.float32, [3, 4])
    assert tf.reshape(k, tf.stack([tf.shape(k)[0] * 2, -1])).shape.as_list() == [6, 2]
    from staticgraph.framework.shape_values import constant_value, constant_value_as_shape
    assert constant_value(tf.shape(k)[1] + 1) == 5
    assert constant_value(tf.placeholder(tf.int32, [])) is None
    x = tf.placeholder(tf.float32, [None, 4])
    assert constant_value_as_shape(tf.concat([tf.shape(x), [7]], 0)) == (None, 4, 7)
    assert constant_value_as_shape(tf.shape(x)[1:]) == (4,)


def test_eye_and_tensor_axes_the_graph_fixes():
    e = tf.eye(2, 3)
    assert (e.name, e.shape.as_list(), e.dtype) == ("eye/diag:0", [2, 3], tf.float32)
    assert tf.eye(2, batch_shape=[4], dtype=tf.int32).shape.as_list() == [4, 2, 2]
    x = tf.placeholder(tf.float32, [None, 4])
    assert tf.expand_dims(x, tf.constant(1)).shape.as_list() == [None, 1, 4]
    with pytest.raises(TypeError, match="an axis known only at run time"):
        tf.expand_dims(x, tf.placeholder(tf.int32, []))
    np.testing.assert_array_equal(_run(e, {}), np.eye(2, 3))

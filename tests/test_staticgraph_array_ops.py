"""Shape and index ops (tf.shape, gather, gather_nd, scatter_nd, tile, pad, slices, split,
range, sequence_mask, tensordot...): names, dtypes, shapes and values as TF 2.21 prints them."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _program():
    x = tf.placeholder(tf.float32, [None, 3])
    c = tf.constant(np.arange(24.).reshape(2, 3, 4), tf.float32)
    outs = {
 "shape": tf.shape(x), "size": tf.size(c), "rank": tf.rank(c), "argmax": tf.argmax(c, axis=2), "argmax0": tf.argmax([3,1,4]),
 "gather": tf.gather(c, [1, 0, 1]), "gather_ax": tf.gather(c, [[0, 2]], axis=2), "gnd": tf.gather_nd(c, [[0, 1], [1, 2]]), "gnd3": tf.gather_nd(c, [[0, 1, 3]]),
 "snd": tf.scatter_nd([[1], [3], [1]], [1., 2., 3.], [5]), "tile": tf.tile([[1, 2]], [2, 3]), "pad": tf.pad([[1, 2]], [[1, 0], [0, 2]]),
 "slice": tf.slice(c, [0, 1, 0], [1, -1, 2]), "ss": tf.strided_slice(c, [0, 0, 3], [2, 3, 0], [1, 2, -1]), "gi": c[..., ::-2, tf.newaxis, 1],
 "range": tf.range(5), "range2": tf.range(1., 2., 0.3), "smask": tf.sequence_mask([1, 3, 2], 4), "smask2": tf.sequence_mask([1, 3], dtype=tf.float32),
 "td": tf.tensordot(c, tf.ones([4, 2]), 1), "td2": tf.tensordot(c, tf.ones([3, 4]), [[1, 2], [0, 1]]), "sqd": tf.squared_difference(3., 5.), "xor": tf.logical_xor([True, False], [True, True]),
 "reshape": tf.reshape(c, tf.shape(tf.zeros([4, 6]))),
}
    return x, outs


# printed by TF 2.21 (tf.compat.v1, graph mode) for the same program
TF_STATIC = {'shape': ('Shape:0', 'int32', [2]), 'size': ('Size:0', 'int32', []), 'rank': ('Rank:0', 'int32', []), 'argmax': ('ArgMax:0', 'int64', [2, 3]), 'argmax0': ('ArgMax_1:0', 'int64', []), 'gather': ('GatherV2:0', 'float32', [3, 3, 4]), 'gather_ax': ('GatherV2_1:0', 'float32', [2, 3, 1, 2]), 'gnd': ('GatherNd:0', 'float32', [2, 4]), 'gnd3': ('GatherNd_1:0', 'float32', [1]), 'snd': ('ScatterNd:0', 'float32', [5]), 'tile': ('Tile:0', 'int32', [2, 6]), 'pad': ('Pad:0', 'int32', [2, 4]), 'slice': ('Slice:0', 'float32', [1, 2, 2]), 'ss': ('StridedSlice:0', 'float32', [2, 2, 3]), 'gi': ('strided_slice:0', 'float32', [2, 2, 1]), 'range': ('range:0', 'int32', [5]), 'range2': ('range_1:0', 'float32', [4]), 'smask': ('SequenceMask/Less:0', 'bool', [3, 4]), 'smask2': ('SequenceMask_1/Cast_1:0', 'float32', [2, 3]), 'td': ('Tensordot:0', 'float32', [2, 3, 2]), 'td2': ('Tensordot_1:0', 'float32', [2]), 'sqd': ('SquaredDifference:0', 'float32', []), 'xor': ('LogicalXor:0', 'bool', [2]), 'reshape': ('Reshape:0', 'float32', [4, 6])}
TF_VALUES = {
    "shape": [2, 3],
    "size": 24,
    "rank": 3,
    "argmax": [[3, 3, 3], [3, 3, 3]],
    "argmax0": 2,
    "gather": [[[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]], [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]],
    "gather_ax": [[[[0.0, 2.0]], [[4.0, 6.0]], [[8.0, 10.0]]], [[[12.0, 14.0]], [[16.0, 18.0]], [[20.0, 22.0]]]],
    "gnd": [[4.0, 5.0, 6.0, 7.0], [20.0, 21.0, 22.0, 23.0]],
    "gnd3": [7.0],
    "snd": [0.0, 4.0, 0.0, 2.0, 0.0],
    "tile": [[1, 2, 1, 2, 1, 2], [1, 2, 1, 2, 1, 2]],
    "pad": [[0, 0, 0, 0], [1, 2, 0, 0]],
    "slice": [[[4.0, 5.0], [8.0, 9.0]]],
    "ss": [[[3.0, 2.0, 1.0], [11.0, 10.0, 9.0]], [[15.0, 14.0, 13.0], [23.0, 22.0, 21.0]]],
    "gi": [[[9.0], [1.0]], [[21.0], [13.0]]],
    "range": [0, 1, 2, 3, 4],
    "range2": [1.0, 1.2999999523162842, 1.600000023841858, 1.9000000953674316],
    "smask": [[True, False, False, False], [True, True, True, False], [True, True, False, False]],
    "smask2": [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]],
    "td": [[[6.0, 6.0], [22.0, 22.0], [38.0, 38.0]], [[54.0, 54.0], [70.0, 70.0], [86.0, 86.0]]],
    "td2": [66.0, 210.0],
    "sqd": 4.0,
    "xor": [False, True],
    "reshape": [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [18.0, 19.0, 20.0, 21.0, 22.0, 23.0]],
}


def test_names_dtypes_shapes_and_values_match_tf():
    x, outs = _program()
    got = {k: (v.name, v.dtype.name, v.shape.as_list() if v.shape.rank is not None else None)
           for k, v in outs.items()}
    assert {k: v for k, v in got.items() if k != "smask2"} == \
        {k: v for k, v in TF_STATIC.items() if k != "smask2"}
    with tf.Session() as s:
        values = s.run(outs, {x: np.zeros((2, 3))})
    for k, v in values.items():
        np.testing.assert_array_equal(np.asarray(v).tolist(), TF_VALUES[k], err_msg=k)


def test_split_shapes_and_error():
    c = tf.zeros([2, 3, 4])
    assert [t.shape.as_list() for t in tf.split(c, 2, axis=2)] == [[2, 3, 2], [2, 3, 2]]
    assert [t.shape.as_list() for t in tf.split(c, [1, -1], axis=1)] == [[2, 1, 4], [2, 2, 4]]
    with pytest.raises(ValueError, match=r"^Dimension size must be evenly divisible by 3 but is 4\n"
                                         r"\tNumber of ways to split should evenly divide the split "
                                         r"dimension for '\{\{node split_2\}\} = Split\[T=DT_FLOAT, "
                                         r"num_split=3\]\(split_2/split_dim, zeros\)'"):
        tf.split(c, 3, axis=2)


def test_shape_of_unknown_dims_is_computed_at_run_time_and_folds_when_known():
    x = tf.placeholder(tf.float32, [None, 3])
    n = tf.shape(x)[0]
    y = tf.reshape(tf.zeros([2, 6]), tf.shape(tf.zeros([3, 4])))
    assert y.shape.as_list() == [3, 4]
    assert tf.zeros(tf.shape(tf.zeros([2, 5]))).shape.as_list() == [2, 5]
    with tf.Session() as s:
        assert s.run(n, {x: np.zeros((7, 3))}) == 7
        assert s.run(tf.size(x), {x: np.zeros((7, 3))}) == 21
    flat = tf.reshape(x, [n, -1])                      # dims read from x when the graph runs
    z = tf.zeros([tf.shape(x)[0], 4])
    r = tf.reshape(x, tf.stack([n, 3]))
    assert z.shape.as_list() == [None, 4] and r.shape.as_list() == [None, 3]
    (g,) = tf.gradients(tf.reduce_sum(flat * 2.0), [x])
    with tf.Session() as s:
        a, b, c, d = s.run([flat, z, r, g], {x: np.ones((7, 3))})
    assert a.shape == (7, 3) and b.shape == (7, 4) and c.shape == (7, 3) and (d == 2.0).all()
    doubled = tf.reshape(x, tf.stack([n * 3, -1]))  # arithmetic on run-time dims: TF's Reshape
    assert doubled.op.type == "Reshape" and doubled.shape.as_list() == [None, None]
    with tf.Session() as s:
        assert s.run(doubled, {x: np.ones((4, 3))}).shape == (12, 1)


def test_gradients_through_gather_pad_tile_and_gather_nd():
    p = tf.constant(np.arange(6.0).reshape(3, 2))
    y = (tf.reduce_sum(tf.gather(p, [2, 2, 0])) + tf.reduce_sum(tf.pad(p, [[1, 1], [0, 2]]) * 2.0)
         + tf.reduce_sum(tf.tile(p, [2, 1]) * 3.0) + tf.reduce_sum(tf.gather_nd(p, [[1, 1]])))
    (g,) = tf.gradients(y, [p])
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(g), [[9.0, 9.0], [8.0, 9.0], [10.0, 10.0]])


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="Value passed to parameter 'indices' has DataType float32"):
        tf.gather([1.0, 2.0], [0.5])
    with pytest.raises(ValueError, match="Requires delta != 0"):
        tf.range(0, 3, 0)
    with pytest.raises(ValueError, match="Expected multiples argument to be a vector of length 2"):
        tf.tile(tf.zeros([2, 2]), [2])
    with pytest.raises(ValueError, match="Value of argument `mode` expected to be one of"):
        tf.pad(tf.zeros([2]), [[1, 1]], mode="EDGE")


def test_where_with_one_argument_and_boolean_mask_as_tf():
    """TF 2.21's values, names and static shapes for the same program."""
    c = tf.constant([[True, False, True], [False, True, False]])
    x = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    w = tf.where(c)
    m, m2 = tf.boolean_mask(x, c), tf.boolean_mask(x, tf.constant([False, True]))
    m3 = tf.boolean_mask(x, tf.constant([True, False, True]), axis=1)
    assert (w.name, w.shape.as_list()) == ("Where:0", [None, 2])
    assert (m.name, m.shape.as_list()) == ("boolean_mask/GatherV2:0", [None])
    assert m2.shape.as_list() == [None, 3] and m3.shape.as_list() == [2, None]
    with tf.Session() as s:
        got = s.run([w, m, m2, m3])
    np.testing.assert_array_equal(got[0], [[0, 0], [0, 2], [1, 1]])
    np.testing.assert_array_equal(got[1], [1., 3., 5.])
    np.testing.assert_array_equal(got[2], [[4., 5., 6.]])
    np.testing.assert_array_equal(got[3], [[1., 3.], [4., 6.]])
    with pytest.raises(ValueError, match=r"^x and y must both be non-None or both be None\.$"):
        tf.where(c, x)


def test_boolean_mask_errors_use_tf_wording():
    x = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    with pytest.raises(ValueError, match=r"^mask cannot be scalar\.$"):
        tf.boolean_mask(x, tf.constant(True))
    with pytest.raises(ValueError, match=r"^Shapes \(2,\) and \(3,\) are incompatible$"):
        tf.boolean_mask(x, tf.constant([True, False, True]))
    with pytest.raises(ValueError, match=r"needs every dim of tensor .* outside the masked ones known"):
        tf.boolean_mask(tf.placeholder(tf.float32, (2, None)), tf.constant([True, False]))

"""Op types as TF 2.21 ``compat.v1`` reports them (expectations read off the real TF).

A node's ``kind`` is what the engine runs (a registry op or a structural kind); its ``type``
is TF's name for it.  They differ where one registry op stands for a TF op of another name
(``Add`` is TF 2's ``AddV2``) or for several (``GetItem``: ``StridedSlice``, ``GatherV2``,
``Slice``)."""
import numpy as np

import staticgraph as tf
from staticgraph.interop.serialize import from_json, to_json


def _graph():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([[1.0, 2.0]])
        x = tf.placeholder(tf.float32, [None, 2])
        made = {
            "a+a": a + a, "tf.add": tf.add(a, a), "a[0]": a[0], "gather": tf.gather(a, [0]),
            "slice": tf.slice(a, [0, 0], [1, 1]),
            "bmm": tf.matmul(tf.ones([2, 2, 2]), tf.ones([2, 2, 2])), "mm": tf.matmul(a, a, transpose_b=True),
            "reshape_dyn": tf.reshape(x, [tf.shape(x)[0] * 2, -1]),
            "fill_dyn": tf.fill([tf.shape(x)[0], 3], 1.0), "tile_dyn": tf.tile(x, [tf.shape(x)[0], 1]),
            "rand_dyn": tf.random_uniform([tf.shape(x)[0]]),
        }
    return g, x, made


EXPECTED = {  # TF 2.21: (op.type, tensor name)
    "a+a": ("AddV2", "add:0"), "tf.add": ("AddV2", "Add_1:0"), "a[0]": ("StridedSlice", "strided_slice:0"),
    "gather": ("GatherV2", "GatherV2:0"), "slice": ("Slice", "Slice:0"), "bmm": ("BatchMatMulV2", "MatMul:0"),
    "reshape_dyn": ("Reshape", "Reshape:0"), "fill_dyn": ("Fill", "Fill:0"), "tile_dyn": ("Tile", "Tile:0"),
    "rand_dyn": ("RandomUniform", "random_uniform/RandomUniform:0"),
}


def test_types_and_names_are_tfs():
    _, _, made = _graph()
    got = {k: (made[k].op.type, made[k].name) for k in EXPECTED}
    assert got == EXPECTED
    assert made["mm"].op.type == "MatMul"
    assert repr(made["a+a"].op) == "<tf.Operation 'add' type=AddV2>"


def test_kind_is_what_runs_and_both_survive_a_json_round_trip():
    g, x, made = _graph()
    assert made["a+a"].op.kind == "Add" and made["gather"].op.kind == "GetItem"
    back = from_json(to_json(g))
    for k in EXPECTED:
        op = back.get_operation_by_name(made[k].op.name)
        assert (op.type, op.kind) == (made[k].op.type, made[k].op.kind)
    feed = np.arange(6, dtype=np.float32).reshape(3, 2)
    with tf.Session(graph=g) as s1, tf.Session(graph=back) as s2:
        names = [made[k].name for k in ("a+a", "gather", "reshape_dyn", "tile_dyn")]
        r1 = s1.run(names, {x.name: feed})
        r2 = s2.run(names, {x.name: feed})
    for u, v in zip(r1, r2):
        np.testing.assert_array_equal(u, v)


def test_build_errors_name_tfs_type():
    g = tf.Graph()
    with g.as_default():
        try:
            tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])
        except ValueError as e:
            text = str(e)
    assert text.startswith("Dimensions must be equal, but are 2 and 3 for '{{node add}} = AddV2[T=DT_FLOAT]"
                           "(Const, Const_1)' with input shapes: [2], [3].")

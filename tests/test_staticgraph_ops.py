"""The TF-named builders and operator overloads, checked against numpy; export and JSON round trip."""
from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3)).astype(np.float32)
B = RNG.standard_normal((2, 3)).astype(np.float32)
P = RNG.uniform(0.5, 2.0, (2, 3)).astype(np.float32)


def run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def sm(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


CASES = [
    ("add", lambda a, b: tf.add(a, b), lambda a, b: a + b),
    ("subtract", lambda a, b: tf.subtract(a, b), lambda a, b: a - b),
    ("multiply", lambda a, b: tf.multiply(a, b), lambda a, b: a * b),
    ("divide", lambda a, b: tf.divide(a, b), lambda a, b: a / b),
    ("maximum", lambda a, b: tf.maximum(a, b), np.maximum),
    ("minimum", lambda a, b: tf.minimum(a, b), np.minimum),
    ("operators", lambda a, b: (a + b) * 2.0 - b / 3.0 + (-a) ** 2.0, lambda a, b: (a + b) * 2 - b / 3 + a ** 2),
    ("reflected", lambda a, b: 1.0 - a + 2.0 * b, lambda a, b: 1 - a + 2 * b),
    ("matmul", lambda a, b: tf.matmul(a, b, transpose_b=True), lambda a, b: a @ b.T),
    ("@", lambda a, b: tf.transpose(a) @ b, lambda a, b: a.T @ b),
    ("where", lambda a, b: tf.where(a > b, a, b), lambda a, b: np.where(a > b, a, b)),
    ("compare", lambda a, b: tf.logical_and(a < b, tf.logical_not(a >= 0.0)),
     lambda a, b: (a < b) & ~(a >= 0)),
    ("equal", lambda a, b: tf.cast(tf.equal(a, a), tf.int32) + tf.cast(tf.not_equal(a, b), tf.int32),
     lambda a, b: (a == a).astype(np.int32) + (a != b).astype(np.int32)),
    ("clip", lambda a, b: tf.clip_by_value(a, -0.5, 0.5), lambda a, b: np.clip(a, -0.5, 0.5)),
    ("unary", lambda a, b: tf.abs(a) + tf.sign(b) + tf.tanh(a) + tf.exp(a) + tf.sigmoid(b),
     lambda a, b: np.abs(a) + np.sign(b) + np.tanh(a) + np.exp(a) + 1 / (1 + np.exp(-b))),
    ("square", lambda a, b: tf.square(a) + tf.negative(b) + tf.pow(a, 2.0), lambda a, b: 2 * a * a - b),
    ("reductions", lambda a, b: tf.stack([tf.reduce_sum(a), tf.reduce_mean(a), tf.reduce_max(a),
                                          tf.reduce_min(a)]),
     lambda a, b: np.array([a.sum(), a.mean(), a.max(), a.min()])),
    ("reduce-axis", lambda a, b: tf.reduce_sum(a, axis=1, keepdims=True) + tf.reduce_mean(b, axis=[0, 1]),
     lambda a, b: a.sum(axis=1, keepdims=True) + b.mean()),
    ("reshape", lambda a, b: tf.reshape(a, [3, -1]), lambda a, b: a.reshape(3, -1)),
    ("expand-squeeze", lambda a, b: tf.squeeze(tf.expand_dims(a, 0), axis=[0]), lambda a, b: a),
    ("broadcast_to", lambda a, b: tf.broadcast_to(a[0], [4, 3]), lambda a, b: np.broadcast_to(a[0], (4, 3))),
    ("concat", lambda a, b: tf.concat([a, b], axis=1), lambda a, b: np.concatenate([a, b], 1)),
    ("stack", lambda a, b: tf.stack([a, b], axis=-1), lambda a, b: np.stack([a, b], -1)),
    ("unstack", lambda a, b: tf.unstack(a, axis=1)[2], lambda a, b: a[:, 2]),
    ("slicing", lambda a, b: a[1:, ::-1] + a[0, None], lambda a, b: a[1:, ::-1] + a[0, None]),
    ("fancy-index", lambda a, b: a[:, [2, 0]], lambda a, b: a[:, [2, 0]]),
    ("fills", lambda a, b: tf.zeros((2, 3)) + tf.ones((2, 3)) * 2.0 + tf.fill([2, 3], 0.5)
     + tf.zeros_like(a) + tf.ones_like(b), lambda a, b: np.full((2, 3), 3.5)),
    ("softmax", lambda a, b: tf.nn.softmax(a) + tf.nn.log_softmax(b, axis=0), lambda a, b: sm(a) + np.log(sm(b, 0))),
    ("relu", lambda a, b: tf.nn.relu(a), lambda a, b: np.maximum(a, 0)),
    ("identity", lambda a, b: tf.identity(tf.stop_gradient(a)), lambda a, b: a),
    ("one_hot", lambda a, b: tf.one_hot([0, 2], 3, on_value=5.0, off_value=-1.0),
     lambda a, b: np.array([[5, -1, -1], [-1, -1, 5]], np.float32)),
    ("add_n", lambda a, b: tf.add_n([a, b, a]), lambda a, b: 2 * a + b),
    ("l2_loss", lambda a, b: tf.nn.l2_loss(a), lambda a, b: np.sum(a * a) / 2),
    ("dense-xent", lambda a, b: tf.nn.softmax_cross_entropy_with_logits(labels=sm(B), logits=a),
     lambda a, b: -np.sum(sm(b) * np.log(sm(a)), axis=-1)),
    ("mse", lambda a, b: tf.losses.mean_squared_error(a, b), lambda a, b: np.mean((a - b) ** 2)),
]


@pytest.mark.parametrize("name,build,ref", CASES, ids=[c[0] for c in CASES])
def test_builder_matches_numpy(name, build, ref):
    a = tf.placeholder(tf.float32, shape=(2, 3), name="a")
    b = tf.placeholder(tf.float32, shape=(None, 3), name="b")
    out = build(a, b)
    got = run(out, {a: A, b: B})
    expected = ref(A, B)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert out.shape.is_compatible_with(np.shape(expected))


def test_sqrt_log_reciprocal():
    p = tf.constant(P)
    np.testing.assert_allclose(run(tf.sqrt(p) + tf.log(p) + tf.reciprocal(p)),
                               np.sqrt(P) + np.log(P) + 1 / P, rtol=1e-6)


def test_integer_reductions_keep_the_dtype():
    s = tf.reduce_sum(tf.constant([[1, 2], [3, 4]]), axis=0)
    m = tf.reduce_mean(tf.constant([1, 2]))
    assert s.dtype == tf.int32 and m.dtype == tf.int32
    assert run(s).tolist() == [4, 6] and run(m) == 1


def test_sparse_xent_needs_keywords_and_matches_numpy():
    logits = tf.constant(A)
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([0, 1]), logits)
    x = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 2]), logits=logits)
    np.testing.assert_allclose(run(x), -np.log(sm(A)[[0, 1], [0, 2]]), rtol=1e-6)


def test_sparse_xent_of_a_certain_prediction_is_plus_zero_as_in_tf():
    """TF 2.21 prints [0., 0.12692805] with no sign bit for these logits (log(sum) - picked)."""
    x = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([0, 1]), logits=tf.constant([[0.0, -200.0], [1.0, 3.0]]))
    got = run(x)
    assert np.signbit(got).tolist() == [False, False]
    np.testing.assert_allclose(got, [0.0, 0.12692805], rtol=1e-6)


def test_where_with_only_one_branch_is_refused():
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None"):
        tf.where(tf.constant([True]), y=tf.constant([1.0]))


def test_compat_v1_and_v2_switches():
    tf.compat.v1.disable_eager_execution()
    tf.compat.v1.disable_v2_behavior()   # TF1 classic mode (global): switched back below
    try:
        assert tf.compat.v1.Session is tf.Session and tf.compat.v1.placeholder is tf.placeholder
        assert tf.compat.v1.train.AdamOptimizer is tf.train.AdamOptimizer
        assert not tf.executing_eagerly() and not tf.compat.v1.resource_variables_enabled()
    finally:
        tf.compat.v1.enable_v2_behavior()


# --- export ------------------------------------------------------------------------

def small_model():
    x = tf.placeholder(tf.float32, shape=(None, 3), name="x")
    w = tf.Variable(RNG.standard_normal((3, 2)).astype(np.float32), name="w")
    y = tf.nn.softmax(tf.matmul(x, w) + 1.0)[:, 1:]
    loss = tf.reduce_mean(tf.square(y))
    gw, = tf.gradients(loss, w)
    step = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    tf.global_variables_initializer()
    return x, w, loss, gw, step


def test_networkx_export_has_ops_as_nodes_and_tensors_as_edges():
    x, w, loss, gw, step = small_model()
    g = tf.to_networkx(tf.get_default_graph())
    assert g.nodes["MatMul"]["type"] == "MatMul"
    read = tf.get_default_graph().get_operation_by_name("MatMul").inputs[1].op.name  # w's read
    assert g.has_edge("x", "MatMul") and g.has_edge("w", read) and g.has_edge(read, "MatMul")
    assert g.get_edge_data("x", "MatMul")[0]["tensor"] == "x:0"
    assert nx.is_directed_acyclic_graph(g)
    assert len(g) == len(tf.get_default_graph().get_operations())


def test_json_round_trip_gives_identical_outputs():
    x, w, loss, gw, step = small_model()
    feed = RNG.standard_normal((4, 3)).astype(np.float32)
    text = tf.to_json(tf.get_default_graph())
    json.loads(text)
    with tf.Session() as s:
        s.run("init")
        s.run(step, {x: feed})
        before = s.run([loss, gw], {x: feed})
    g2 = tf.from_json(text)
    assert str(g2) == str(tf.get_default_graph())
    with g2.as_default(), tf.Session(graph=g2) as s:
        s.run("init")
        s.run(g2.get_operation_by_name(step.name), {"x:0": feed})
        after = s.run([loss.name, gw.name], {"x:0": feed})
        assert [v.op.name for v in tf.trainable_variables()] == ["w"]
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])
    with pytest.raises(tf.errors.DataLossError, match="not a staticgraph JSON graph"):
        tf.from_json('{"format": "other"}')


def test_nest_flattens_packs_and_reports_differences_in_tfs_words():
    assert tf.nest.flatten({"b": 1, "a": [2, 3]}) == [2, 3, 1]
    assert tf.nest.pack_sequence_as({"b": 0, "a": [0, 0]}, [7, 8, 9]) == {"b": 9, "a": [7, 8]}
    assert tf.nest.map_structure(lambda a, b: a + b, (1, [2]), (10, [20])) == (11, [22])
    with pytest.raises(TypeError, match=r"^The two structures don't have the same nested structure\."
                                        r"\n\nFirst structure: type=list str=\[1, \(2, 3\)\]\n\n"
                                        r"Second structure: type=list str=\[1, \[2, 3\]\]\n\nMore "
                                        r"specifically: The two namedtuples don't have the same "
                                        r"sequence type\."):
        tf.nest.assert_same_structure([1, (2, 3)], [1, [2, 3]])
    with pytest.raises(ValueError, match=r"More specifically: The two structures don't have the same "
                                         r"number of elements\. First structure: type=tuple str=\(2, 3\)\. "
                                         r"Second structure: type=tuple str=\(2, 3, 4\)\nEntire first "
                                         r"structure:\n\[\., \(\., \.\)\]\nEntire second structure:\n"
                                         r"\[\., \(\., \., \.\)\]$"):
        tf.nest.assert_same_structure([1, (2, 3)], [1, (2, 3, 4)])
    with pytest.raises(ValueError, match=r"The two dictionaries don't have the same set of keys\. First "
                                         r"structure has keys type=list str=\['a'\], while second "
                                         r"structure has keys type=list str=\['b'\]"):
        tf.nest.assert_same_structure({"a": 1}, {"b": 1})
    tf.nest.assert_same_structure([1, (2, 3)], [4, [5, 6]], check_types=False)

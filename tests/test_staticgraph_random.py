"""Random ops, seeds and initializers: TF's shapes, dtypes, names, seeding rules and statistics.

The streams are TF's own, bit for bit (``tests/test_tf_random_streams.py`` compares them with
TF 2.21's); here, the rules around them and the distributions they make -- statistics with
fixed seeds and bounds many standard errors wide (they cannot flake: the seeds fix the draws).
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.ops import random_ops

pytestmark = pytest.mark.usefixtures("fresh_graph")


def draws(t, sessions=1, runs=1):
    out = []
    for _ in range(sessions):
        with tf.Session() as s:
            out.append([s.run(t) for _ in range(runs)])
    return out


def test_names_and_types_as_tf():
    a = tf.random_normal([2, 3])
    names = [o.name for o in tf.get_default_graph().get_operations()]
    assert a.name == "random_normal:0" and a.op.type in ("Add", "AddV2")  # AddV2 once renamed
    assert "random_normal/RandomStandardNormal" in names and "random_normal/mul" in names
    assert tf.random_uniform([2]).name == "random_uniform/RandomUniform:0"
    i = tf.random_uniform([2], maxval=5, dtype=tf.int32)
    assert (i.name, i.op.type, i.dtype) == ("random_uniform_1:0", "RandomUniformInt", tf.int32)
    assert tf.truncated_normal([2], stddev=0.1).name == "truncated_normal:0"
    m = tf.multinomial([[0.0, 1.0]], 3)
    assert (m.name, m.dtype, m.shape.as_list()) == ("multinomial/Multinomial:0", tf.int64, [1, 3])
    assert tf.random.categorical([[0.0, 1.0]], 2).name == "categorical/Multinomial:0"
    assert tf.random_shuffle([1, 2, 3]).name == "RandomShuffle:0"


def test_integer_uniform_needs_maxval():
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        tf.random_uniform([2], dtype=tf.int32)


def test_graph_seed_makes_every_session_replay_the_same_sequence():
    tf.set_random_seed(5)
    a, b = tf.random_normal([4]), tf.random_normal([4])
    (s1, s2) = draws([a, b], sessions=2, runs=2)
    np.testing.assert_array_equal(s1[0][0], s2[0][0])     # same seeds -> same sequence per Session
    np.testing.assert_array_equal(s1[1][0], s2[1][0])
    assert not np.array_equal(s1[0][0], s1[1][0])          # a re-run draws new values
    assert not np.array_equal(s1[0][0][0], s1[0][0][1]) and not np.array_equal(s1[0][0], s1[0][1])


def test_op_seed_alone_is_repeatable_and_no_seed_is_not():
    a = tf.random_uniform([8], seed=3)
    b = tf.random_uniform([8])
    (r1, r2) = draws([a, b], sessions=2)
    np.testing.assert_array_equal(r1[0][0], r2[0][0])
    assert not np.array_equal(r1[0][1], r2[0][1])
    assert a.op.get_attr("seed") == random_ops.DEFAULT_GRAPH_SEED and a.op.get_attr("seed2") == 3


def test_same_op_in_two_run_signatures_continues_one_stream():
    tf.set_random_seed(1)
    a = tf.random_normal([3])
    b = a * 2.0
    with tf.Session() as s:
        first, (second, _) = s.run(a), s.run([a, b])
    with tf.Session() as s:
        again = [s.run(a), s.run(a)]
    np.testing.assert_array_equal(first, again[0])
    np.testing.assert_array_equal(second, again[1])


def test_two_identical_random_ops_are_not_merged():
    x, y = tf.random_normal([5], seed=1), tf.random_normal([5], seed=2)
    with tf.Session() as s:
        u, v = s.run([x, y])
    assert not np.array_equal(u, v)


def test_statistics():
    tf.set_random_seed(0)
    n = tf.random_normal([20000], mean=2.0, stddev=3.0)
    t = tf.truncated_normal([20000], stddev=0.5)
    u = tf.random_uniform([20000], -1.0, 3.0, dtype=tf.float64)
    i = tf.random_uniform([20000], minval=-2, maxval=3, dtype=tf.int64)
    m = tf.multinomial(tf.log([[0.2, 0.8]]), 20000)
    with tf.Session() as s:
        n, t, u, i, m = s.run([n, t, u, i, m])
    assert n.dtype == np.float32 and abs(n.mean() - 2.0) < 0.15 and abs(n.std() - 3.0) < 0.1
    assert np.abs(t).max() <= 1.0 and abs(t.std() - 0.5 * 0.8796) < 0.02
    assert u.dtype == np.float64 and u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.05
    assert i.dtype == np.int64 and set(np.unique(i)) == {-2, -1, 0, 1, 2}
    assert abs(m.mean() - 0.8) < 0.02


def test_op_seeds_count_the_seeds_asked_for_not_the_ops():
    """TF 2's rule: the n-th op seed a graph hands out without an op seed is n, whatever ops
    were built in between; ``dropout(rate=0)``, an unseeded ``Dataset.shuffle`` and
    ``make_one_shot_iterator`` ask for one; a seeded op does not; a loop body or branch counts from 0 with the graph's seed.
    (TF 2.21 gives this very program these very seeds.)"""
    tf.set_random_seed(7)
    a = tf.random_normal([2])
    for _ in range(5):
        tf.constant(1.0) + tf.constant(2.0)
    x = tf.ones([3])
    assert tf.nn.dropout(x, rate=0.0) is not None
    tf.data.Dataset.range(3).shuffle(3).make_one_shot_iterator()
    b = tf.random_uniform([2], seed=11)
    c = tf.truncated_normal([2])
    _, body = tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s + tf.random_normal([1])),
                            [tf.constant(0), tf.zeros([1])])
    d = tf.random_uniform([2])
    graph = tf.get_default_graph()
    seeds = [(o.get_attr("seed"), o.get_attr("seed2")) for o in graph.get_operations() if "seed2" in o.attrs]
    assert seeds == [(7, 0), (7, 11), (7, 4), (7, 5)]
    assert a.op.inputs[0].op.inputs[0].op.type == "RandomStandardNormal" and d.op.type == "RandomUniform"
    inner = [op for op in tf.get_default_graph().get_operations() if op.type == "While"][0]
    body_ops = [o for o in inner.attrs["body"].graph.get_operations() if "seed2" in o.attrs]
    assert [(o.get_attr("seed"), o.get_attr("seed2")) for o in body_ops] == [(7, 0)]


def test_dropout_of_rate_zero_is_the_input():
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, rate=0.0) is x and tf.nn.dropout(x, keep_prob=1.0) is x


def test_gamma_and_poisson_statistics():
    tf.set_random_seed(3)
    g = tf.random.gamma([20000], [0.5, 1.0, 4.0], dtype=tf.float64)
    p = tf.random.poisson([0.7, 6.0, 25.0, 400.0], [20000])
    with tf.Session() as s:
        g, p = s.run([g, p])
    np.testing.assert_allclose(g.mean(axis=0), [0.5, 1.0, 4.0], rtol=0.03)
    np.testing.assert_allclose(g.var(axis=0), [0.5, 1.0, 4.0], rtol=0.06)
    np.testing.assert_allclose(p.mean(axis=0), [0.7, 6.0, 25.0, 400.0], rtol=0.02)
    np.testing.assert_allclose(p.var(axis=0), [0.7, 6.0, 25.0, 400.0], rtol=0.06)
    assert p.dtype == np.float32 and (p == np.round(p)).all() and g.min() > 0


def test_shuffle_is_a_permutation_of_the_first_axis():
    x = np.arange(12).reshape(6, 2)
    with tf.Session() as s:
        y = s.run(tf.random_shuffle(x, seed=4))
    assert sorted(map(tuple, y)) == sorted(map(tuple, x))


def test_initializers_shapes_and_statistics():
    tf.set_random_seed(0)
    shape = [200, 300]
    inits = {
        "glorot_uniform": tf.glorot_uniform_initializer(),
        "glorot_normal": tf.initializers.glorot_normal(),
        "he": tf.variance_scaling_initializer(scale=2.0),
        "uniform": tf.random_uniform_initializer(-0.5, 0.5),
        "normal": tf.random_normal_initializer(1.0, 0.2),
        "trunc": tf.initializers.truncated_normal(stddev=0.1),
        "zeros": tf.zeros_initializer(), "ones": tf.initializers.ones(),
        "const": tf.constant_initializer(3.0), "orth": tf.orthogonal_initializer(gain=2.0),
    }
    tensors = {k: f(shape) for k, f in inits.items()}
    with tf.Session() as s:
        v = s.run(tensors)
    limit = np.sqrt(6 / 500)
    assert np.abs(v["glorot_uniform"]).max() <= limit and v["glorot_uniform"].std() > 0.9 * limit / np.sqrt(3)
    assert abs(v["glorot_normal"].std() - np.sqrt(2 / 500)) < 0.003
    assert abs(v["he"].std() - np.sqrt(2 / 200)) < 0.005
    assert abs(v["uniform"].mean()) < 0.01 and abs(v["normal"].mean() - 1.0) < 0.01
    assert np.abs(v["trunc"]).max() <= 0.2
    assert (v["zeros"] == 0).all() and (v["ones"] == 1).all() and (v["const"] == 3).all()
    q = v["orth"] / 2.0
    np.testing.assert_allclose(q @ q.T, np.eye(200), atol=1e-5)
    assert all(x.dtype == np.float32 and x.shape == (200, 300) for x in v.values())


def test_variance_scaling_rejects_bad_arguments():
    with pytest.raises(ValueError, match="`scale` must be positive float."):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="Invalid `mode` argument: fan_x"):
        tf.variance_scaling_initializer(mode="fan_x")


def test_seeded_initializer_in_get_variable_is_repeatable():
    w = tf.get_variable("w", [3, 3], initializer=tf.truncated_normal_initializer(seed=7))
    vals = []
    for _ in range(2):
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            vals.append(s.run(w))
    np.testing.assert_array_equal(vals[0], vals[1])


def test_random_shaped_like_a_tensor_known_only_at_run_time():
    x = tf.placeholder(tf.float32, [None, 3])
    eps = tf.random_normal(tf.shape(x), seed=1)
    u = tf.random_uniform(tf.shape(x), -1.0, 1.0)
    assert eps.shape.as_list() == [None, 3]
    assert "RandomStandardNormalLike" in [o.type for o in tf.get_default_graph().get_operations()]
    assert tf.truncated_normal(tf.shape(tf.zeros([2, 2]))).shape.as_list() == [2, 2]  # folded
    with tf.Session() as s:
        a, b = s.run([eps, u], {x: np.zeros((5, 3))})
        c = s.run(eps, {x: np.zeros((5, 3))})
    assert a.shape == b.shape == (5, 3) and b.min() >= -1.0 and not np.array_equal(a, c)
    packed = tf.random_normal([tf.shape(x)[0] * 2, 4])  # a run-time shape vector: TF's Pack
    assert packed.shape.as_list() == [None, 4]
    assert packed.op.inputs[0].op.inputs[0].op.inputs[0].name == "random_normal_1/shape:0"
    with tf.Session() as s:
        assert s.run(packed, {x: np.zeros((5, 3))}).shape == (10, 4)
    ints = tf.random_uniform([tf.shape(x)[0], 2], maxval=3, dtype=tf.int32, seed=1)
    assert (ints.name, ints.shape.as_list(), ints.dtype) == ("random_uniform_1:0", [None, 2], tf.int32)
    with tf.Session() as s:
        v = s.run(ints, {x: np.zeros((5, 3))})
    assert v.shape == (5, 2) and v.min() >= 0 and v.max() < 3


def test_graphs_with_random_ops_and_dropout_survive_a_json_round_trip():
    x = tf.placeholder(tf.float32, [None, 3])
    d = tf.nn.dropout(x, rate=0.5)
    r = tf.random_normal([2], seed=3)
    g = tf.Graph()
    tf.from_json(tf.to_json(tf.get_default_graph()), g)
    with tf.Session(graph=g) as s:
        out = s.run(g.get_tensor_by_name(d.name), {g.get_tensor_by_name(x.name): np.ones((4, 3))})
        again = s.run(g.get_tensor_by_name(r.name))
    with tf.Session() as s:
        first = s.run(r)
    assert out.shape == (4, 3) and set(np.unique(out)) <= {0.0, 2.0}
    np.testing.assert_array_equal(again, first)   # same seeds, same stream after the round trip

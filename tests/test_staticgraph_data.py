"""tf.data as TF1 programs use it: sources, transformations, iterators, OutOfRangeError."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from tests.tf_errors import op_message

pytestmark = pytest.mark.usefixtures("fresh_graph")


def drain(sess, t, feed=None):
    out = []
    try:
        while True:
            out.append(sess.run(t, feed))
    except tf.errors.OutOfRangeError as e:
        assert op_message(e).startswith("End of sequence")
    return out


def test_slices_map_batch_one_shot_as_tf():
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.arange(5)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).map(lambda a, b: (a * 2.0, b + 1)).batch(2)
    assert ds.output_shapes == (tf.TensorShape([None, 2]), tf.TensorShape([None]))
    assert ds.output_types == (tf.float32, tf.int64)
    a, b = tf.data.make_one_shot_iterator(ds).get_next()
    assert (a.name, b.name) == ("IteratorGetNext:0", "IteratorGetNext:1")
    with tf.Session() as s:
        got = drain(s, [a, b])
        with pytest.raises(tf.errors.OutOfRangeError, match=r"End of sequence\n\t \[\[\{\{node IteratorGetNext\}\}\]\]"):
            s.run(a)
    assert len(got) == 3
    np.testing.assert_array_equal(got[2][0], [[16.0, 18.0]])
    np.testing.assert_array_equal(np.concatenate([g[1] for g in got]), y + 1)


def test_initializable_iterator_with_a_fed_placeholder_and_dicts():
    ph = tf.placeholder(tf.int64, [None])
    ds = tf.data.Dataset.from_tensor_slices({"v": ph}).repeat(2).batch(3, drop_remainder=True)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    assert nxt["v"].shape.as_list() == [3] and it.initializer.type == "MakeIterator"
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="GetNext\\(\\) failed because the iterator has not been initialized"):
            s.run(nxt)
        s.run(it.initializer, {ph: [1, 2, 3, 4]})
        assert [v["v"].tolist() for v in drain(s, nxt)] == [[1, 2, 3], [4, 1, 2]]
        s.run(it.initializer, {ph: [7, 8, 9]})   # re-initializing restarts with new data
        assert s.run(nxt)["v"].tolist() == [7, 8, 9]


def test_range_repeat_take_skip_prefetch_and_two_sessions_iterate_independently():
    n = tf.data.Dataset.range(3).repeat().take(7).skip(1).prefetch(1).make_one_shot_iterator().get_next()
    assert n.dtype == tf.int64 and n.shape.as_list() == []
    with tf.Session() as s1, tf.Session() as s2:
        assert [s1.run(n) for _ in range(3)] == [1, 2, 0]
        assert [s2.run(n) for _ in range(2)] == [1, 2]
        assert drain(s1, n) == [1, 2, 0]


def test_seeded_shuffle_replays_per_session_and_reshuffles_each_epoch():
    nxt = tf.data.Dataset.range(10).shuffle(10, seed=3).repeat(2).make_one_shot_iterator().get_next()
    runs = []
    for _ in range(2):
        with tf.Session() as s:
            runs.append(drain(s, nxt))
    assert runs[0] == runs[1]
    assert sorted(runs[0][:10]) == list(range(10)) and runs[0][:10] != runs[0][10:]


def test_shuffle_buffer_one_keeps_order_and_small_buffers_stay_local():
    nxt = tf.data.Dataset.range(6).shuffle(1).make_one_shot_iterator().get_next()
    local = tf.data.Dataset.range(50).shuffle(2, seed=1).make_one_shot_iterator().get_next()
    with tf.Session() as s:
        assert drain(s, nxt) == list(range(6))
        order = drain(s, local)
    # with a buffer of 2, element i can only be emitted at position >= i - 1
    assert sorted(order) == list(range(50)) and all(p >= v - 1 for p, v in enumerate(order))


def test_map_captures_outer_tensors_filter_zip_and_from_tensors():
    scale = tf.placeholder(tf.float32, [])
    ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0]).map(lambda v: v * scale)
    ds = ds.filter(lambda v: v > 2.5)
    it = ds.make_initializable_iterator()
    v = it.get_next()
    z = tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.from_tensors([5, 6]).repeat()))
    zi, zt = z.make_one_shot_iterator().get_next()
    with tf.Session() as s:
        s.run(it.initializer, {scale: 2.0})
        assert drain(s, v) == [4.0, 6.0]
        assert [(int(a), b.tolist()) for a, b in drain(s, [zi, zt])] == [(0, [5, 6]), (1, [5, 6]), (2, [5, 6])]


def test_training_loop_over_a_dataset_until_out_of_range():
    x = np.linspace(-1, 1, 32).astype(np.float32)[:, None]
    y = 3.0 * x + 1.0
    xb, yb = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(32, seed=0).batch(8).repeat(40) \
        .make_one_shot_iterator().get_next()
    w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.losses.mean_squared_error(yb, tf.matmul(xb, w) + b)
    train = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        steps = len(drain(s, train))
        assert steps == 160
        wv, bv = s.run([w, b])
        np.testing.assert_allclose([wv.item(), bv.item()], [3.0, 1.0], atol=1e-3)


def test_errors_on_bad_pipelines():
    with pytest.raises(ValueError, match="batch_size must be greater than zero."):
        tf.data.Dataset.range(3).batch(0)
    with pytest.raises(ValueError, match="Unbatching a tensor is only supported for rank >= 1"):
        tf.data.Dataset.from_tensor_slices(1.0)
    with pytest.raises(ValueError, match="`predicate` return type must be convertible to a scalar boolean"):
        tf.data.Dataset.range(3).filter(lambda v: v + 1)
    with pytest.raises(ValueError, match="one-shot iterator initializes itself"):
        tf.data.Dataset.range(3).make_one_shot_iterator().initializer
    with pytest.raises(RuntimeError, match="only supports Python-style iteration in eager mode"):
        iter(tf.data.Dataset.range(3))


def test_from_generator_and_padded_batch_as_tf():
    def gen():
        for i in range(1, 5):
            yield list(range(i)), i
    ds = tf.data.Dataset.from_generator(gen, (tf.int64, tf.int32),
                                        (tf.TensorShape([None]), tf.TensorShape([])))
    pb = ds.padded_batch(3, padded_shapes=([None], []), padding_values=(np.int64(-1), 0))
    assert pb.output_shapes == (tf.TensorShape([None, None]), tf.TensorShape([None]))
    a, b = tf.data.make_one_shot_iterator(pb).get_next()
    x, _ = tf.data.Dataset.from_generator(gen, (tf.int64, tf.int32)) \
        .padded_batch(2, padded_shapes=([5], [])).make_one_shot_iterator().get_next()
    assert x.shape.as_list() == [None, 5]
    with tf.Session() as s:
        first = s.run([a, b])
        assert first[0].tolist() == [[0, -1, -1], [0, 1, -1], [0, 1, 2]] and first[1].tolist() == [1, 2, 3]
        assert s.run(a).tolist() == [[0, 1, 2, 3]]
        assert s.run(x).tolist() == [[0, 0, 0, 0, 0], [0, 1, 0, 0, 0]]
    small = tf.data.Dataset.from_generator(gen, (tf.int64, tf.int32)).padded_batch(4, ([2], []))
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                          match="Attempted to pad to a smaller size than the input"):
        s.run(small.make_one_shot_iterator().get_next())


def test_an_elements_dict_keeps_its_key_order_as_tf():
    # TF: list(el.keys()) == ["b", "a"]; the run gives {"b": 1, "a": (2, 3)}
    el = tf.data.Dataset.from_tensors({"b": 1, "a": (2, 3)}).make_one_shot_iterator().get_next()
    assert list(el) == ["b", "a"]
    with tf.Session() as s:
        out = s.run(el)
    assert list(out) == ["b", "a"] and out["b"] == 1 and tuple(out["a"]) == (2, 3)

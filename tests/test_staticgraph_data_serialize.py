"""A graph holding a tf.data iterator goes to JSON and back (and through a Saver's meta graph)
as its chain of dataset ops; a pipeline running Python is refused by name and creation site."""
import numpy as np
import pytest

import staticgraph as tf
from staticgraph.interop.serialize import from_json, to_json


def _drain(graph, fetches, init=None):
    out = []
    with tf.Session(graph=graph) as s:
        if init:
            s.run(graph.get_operation_by_name(init))
        while True:
            try:
                out.append(s.run(fetches))
            except tf.errors.OutOfRangeError:
                return out


def _same(a, b):
    assert len(a) == len(b) and len(a) > 0
    for u, v in zip(a, b):
        for p, q in zip(u, v):
            np.testing.assert_array_equal(p, q)


def test_a_pipeline_of_every_representable_kind_round_trips():
    with tf.Graph().as_default() as g:
        x = np.arange(20.0, dtype=np.float32).reshape(10, 2)
        scale = tf.placeholder_with_default(tf.constant(2.0), [], name="scale")  # captured by map
        ds = (tf.data.Dataset.from_tensor_slices((x, {"label": np.arange(10)})).shuffle(4, seed=3)
              .map(lambda a, d: (a * scale, d["label"] + 1)).filter(lambda a, lab: lab % 3 > 0)
              .repeat(2).skip(1).take(9).batch(3, drop_remainder=True).prefetch(1))
        a, b = ds.make_initializable_iterator().get_next()
        z = tf.data.Dataset.zip((tf.data.Dataset.range(1, 6, 2),
                                 tf.data.Dataset.from_tensors([1, 2]).repeat(3)))
        zi = z.padded_batch(2, padded_shapes=([], [3]), padding_values=(np.int64(0), 9))
        n, m = tf.data.make_one_shot_iterator(zi).get_next()
    want = _drain(g, [a.name, b.name], "MakeIterator")
    want_zip = _drain(g, [n.name, m.name])
    g2 = from_json(to_json(g))
    _same(_drain(g2, [a.name, b.name], "MakeIterator"), want)
    _same(_drain(g2, [n.name, m.name]), want_zip)
    assert want_zip[0][1].tolist() == [[1, 2, 9], [1, 2, 9]] and want[0][0].shape == (3, 2)
    assert g2.get_tensor_by_name(a.name).shape.as_list() == [3, 2]


def test_concatenate_and_unbatch_round_trip():
    with tf.Graph().as_default() as g:
        ds = (tf.data.Dataset.range(5).batch(2).unbatch()
              .concatenate(tf.data.Dataset.from_tensor_slices(np.array([7, 8], dtype=np.int64))))
        v = tf.data.make_one_shot_iterator(ds).get_next()
    want = _drain(g, [v.name])
    assert [w[0] for w in want] == [0, 1, 2, 3, 4, 7, 8]
    _same(_drain(from_json(to_json(g)), [v.name]), want)


def test_a_saved_meta_graph_with_an_iterator_restores_and_runs(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable(1.0, name="w")
        it = tf.data.Dataset.range(4).map(lambda i: tf.cast(i, tf.float32) * w).make_one_shot_iterator()
        y = tf.identity(it.get_next(), name="y")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(str(tmp_path / "m.meta"))
        with tf.Session() as sess:
            saver.restore(sess, str(tmp_path / "m"))
            assert [sess.run("y:0") for _ in range(4)] == [0.0, 1.0, 2.0, 3.0]


def test_a_generator_pipeline_is_refused_naming_the_dataset_op_and_its_line(tmp_path):
    with tf.Graph().as_default() as g:
        ds = tf.data.Dataset.from_generator(lambda: iter([1, 2]), tf.int32)   # the line named below
        line = test_a_generator_pipeline_is_refused_naming_the_dataset_op_and_its_line.__code__.co_firstlineno + 2
        ds.batch(2).make_one_shot_iterator().get_next()
        with pytest.raises(TypeError, match=rf"'GeneratorDataset' \(Dataset.from_generator\) created at "
                                            rf".*test_staticgraph_data_serialize.py:{line}, which runs a "
                                            rf"Python generator"):
            to_json(g)
        saver = tf.train.Saver(var_list=[tf.Variable(1.0)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(TypeError, match="GeneratorDataset"):
                saver.save(sess, str(tmp_path / "m"))
            saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)   # the variables alone: fine
        assert not (tmp_path / "m.meta").exists()


def test_collections_survive_the_meta_graph_as_in_tf(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        loss = tf.losses.mean_squared_error([0.0, 0.0], w)
        step = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        tf.add_to_collection("train_op", train)
        tf.add_to_collection("notes", "a string: not a graph element, left out as TF does")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(path + ".meta")
        assert tf.train.get_global_step().name == "global_step:0"
        assert [t.name for t in tf.get_collection(tf.GraphKeys.LOSSES)] == [loss.name]
        assert tf.get_collection("notes") == []
        with tf.Session() as sess:
            saver.restore(sess, path)
            sess.run(tf.get_collection("train_op")[0])
            assert sess.run(tf.train.get_global_step()) == 2

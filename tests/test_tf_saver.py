"""What TensorFlow's saver, meta-graph and colocation tests check, recorded from TF 2.21.

Found by running TF's ``saver_test``, ``gradients_test``, ``variables_test`` and
``resource_variable_ops_test`` through ``tools/tf_tests`` (issue #30).  CI has neither TF nor
its test files: the names, values and words below are what ``tf.compat.v1`` (graph mode)
printed for the same programs.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import staticgraph as tf


# --- Operation.colocation_groups (gradients_test testColocate*, variables_test) -------------

def test_colocation_groups_follow_colocate_with_blocks():
    with tf.Graph().as_default():
        x = tf.constant(1.0, name="x")
        v = tf.Variable(lambda: tf.constant(42.0), dtype=tf.float32, name="v1")
        assert x.op.colocation_groups() == [b"loc:@x"]                     # its own group
        # a callable initial value is made beside its variable (TF 2.21)
        assert [(i.op.name, i.op.colocation_groups()) for i in v.initializer.inputs] == [
            ("v1", [b"loc:@v1"]), ("v1/Initializer/Const", [b"loc:@v1"])]
        with tf.colocate_with(v.op):
            c = tf.constant(3.0)
            with tf.colocate_with(x.op):
                d = tf.constant(1.0)
            with tf.colocate_with(x.op, ignore_existing=True):
                e = tf.constant(1.0)
        assert c.op.colocation_groups() == [b"loc:@v1"]
        assert d.op.colocation_groups() == [b"loc:@v1", b"loc:@x"]            # sorted union
        assert e.op.colocation_groups() == [b"loc:@x"]
        assert c.op.get_attr("_class") == [b"loc:@v1"]
        with pytest.raises(ValueError, match="^Operation 'x' has no attr named '_class'.$"):
            x.op.get_attr("_class")


def test_a_variable_read_on_its_caching_device_is_colocated_with_nothing():
    with tf.Graph().as_default():
        with tf.device("/job:server/task:1"):
            v = tf.Variable(2.0, caching_device="/job:localhost")
        with tf.colocate_with(v.op):
            w = tf.Variable(2.0, caching_device="/job:localhost")
            assert w.value().device == "/job:localhost"
            with pytest.raises(ValueError):
                w.value().op.get_attr("_class")


def test_summed_gradients_are_colocated_as_tf_colocates_them():
    """TF's ``_MultiDeviceAddN``: a sum made beside the first gradient it adds (its device and
    group); with ``colocate_gradients_with_ops`` that one is beside its forward op."""
    with tf.Graph().as_default() as g:
        with g.device("/device:GPU:1"):
            w = tf.constant(1.0, shape=[1, 1])
        x, y = tf.constant(1.0, shape=[1, 2]), tf.constant(1.0, shape=[1, 2])
        wx, wy = tf.matmul(w, x), tf.matmul(w, y)
        with g.device("/device:GPU:0"):
            z = wx + wy
        gw1 = tf.gradients(z, [w], colocate_gradients_with_ops=True)[0]
        assert (gw1.op.name, gw1.op.type) == ("gradients/AddN", "AddN")
        assert gw1.op.colocation_groups() == wx.op.colocation_groups() == [b"loc:@MatMul"]
        gw2 = tf.gradients(z, [w])[0]
        assert gw2.op.colocation_groups() == [b"loc:@gradients_1/MatMul_grad/MatMul"]
        # the terms in TF's order: the consumers' (MatMul's gradient first)
        assert [t.op.name for t in gw2.op.inputs] == ["gradients_1/MatMul_grad/MatMul",
                                                      "gradients_1/MatMul_1_grad/MatMul"]
    with tf.Graph().as_default() as g:
        with g.device("/device:GPU:1"):
            w = tf.constant(1.0, shape=[1, 1])
        x, y = tf.constant(1.0, shape=[1, 2]), tf.constant(1.0, shape=[1, 2])
        with g.device("/task:1"):
            wx = tf.matmul(w, x)
        with g.device("/task:2"):
            wy = tf.matmul(w, y)
        gw = tf.gradients(wx + wy, [w], colocate_gradients_with_ops=True)[0]
        assert gw.op.colocation_groups() == w.op.colocation_groups()   # one sum per device, then w's


# --- Saver.saver_def / as_saver_def ---------------------------------------------------------

def test_saver_def_names_the_filename_tensor_and_prints_as_tf():
    with tf.Graph().as_default():
        v0 = tf.Variable(0, name="v0")
        save = tf.train.Saver({"v0": v0}, filename=b"somerandomfilename")
        sharded = tf.train.Saver({"v0": v0}, sharded=True)
        assert save.as_saver_def() is save.saver_def
        assert save.saver_def.filename_tensor_name == "save/Const:0"
        assert sharded.saver_def.filename_tensor_name == "save_1/Const:0"
        assert sharded.as_saver_def().sharded and not save.saver_def.sharded
        assert [op.name for op in tf.get_default_graph().get_operations()][-3:] == [
            "save_1/filename/input", "save_1/filename", "save_1/Const"]          # TF's names
        with tf.Session() as sess:
            tensor = sess.graph.get_tensor_by_name(save.saver_def.filename_tensor_name)
            assert sess.run(tensor) == b"somerandomfilename"
            assert sess.run("save_1/Const:0") == b"model"
        # TF's text format, less the save and restore nodes (they run in Python here)
        assert str(sharded.saver_def) == ('filename_tensor_name: "save_1/Const:0"\n'
                                          "max_to_keep: 5\nsharded: true\n"
                                          "keep_checkpoint_every_n_hours: 10000\nversion: V2\n")


def test_a_saver_def_written_where_a_meta_graph_was_cannot_be_imported(tmp_path):
    """saver_test testBinaryAndTextFormat: TF raises OSError "Cannot parse file"; the
    project's loaders raise DataLossError: the error is both."""
    path = str(tmp_path / "metafile")
    with tf.Graph().as_default():
        tf.Variable(10.0, name="v0")
        tf.train.export_meta_graph(path, as_text=False)
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(path)
        assert saver is not None
        tf.train.write_graph(saver.as_saver_def(), str(tmp_path), "metafile")
    with tf.Graph().as_default():
        with pytest.raises(OSError, match=f"^Cannot parse file {path}: not JSON") as info:
            tf.train.import_meta_graph(path)
        assert isinstance(info.value, tf.errors.DataLossError)
        assert tf.get_default_graph().get_operations() == []


# --- export_meta_graph / import_meta_graph --------------------------------------------------

def _model(device: str | None = None) -> None:
    with tf.device(device):
        image = tf.placeholder(tf.float32, [None, 4], name="image")
        label = tf.placeholder(tf.float32, [None, 3], name="label")
        weights = tf.Variable(tf.random_uniform([4, 3], seed=1), name="weights")
        bias = tf.Variable(tf.zeros([3]), name="bias")
        logit = tf.nn.relu(tf.matmul(image, weights) + bias, name="logits")
        cost = tf.nn.softmax_cross_entropy_with_logits(labels=label, logits=logit, name="cost")
        tf.train.AdamOptimizer().minimize(cost, name="optimize")


def test_import_meta_graph_into_a_scope_restores_the_saved_checkpoint_there(tmp_path):
    path = str(tmp_path / "ckpt")
    with tf.Graph().as_default(), tf.Session() as sess:
        _model()
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, path)
        saved = sess.run("weights/Read/ReadVariableOp:0")
    for explicit in (True, False):
        graph = tf.Graph()
        with tf.Session(graph=graph) as sess:
            tf.constant(0.0, name="new_model/taken")   # the scope may be in use already
            if explicit:
                saver = tf.train.import_meta_graph(path + ".meta", graph=graph,
                                                   import_scope="new_model")
            else:   # the name scope open at the call (TF)
                with tf.name_scope("new_model"):
                    saver = tf.train.import_meta_graph(path + ".meta", graph=graph)
            saver.restore(sess, path)
            assert np.array_equal(sess.run("new_model/weights/Read/ReadVariableOp:0"), saved)
            sess.run(["new_model/optimize"], {"new_model/image:0": np.ones([1, 4]),
                                              "new_model/label:0": np.ones([1, 3])})
            assert not np.array_equal(sess.run("new_model/weights/Read/ReadVariableOp:0"), saved)   # trained


def test_import_meta_graph_returns_a_saver_only_for_variables_under_its_scope(tmp_path):
    """saver_test testImportIntoNamescopeWithoutVariables: an empty saver still writes the
    graph (TF: only ``ckpt.meta``); importing it brings no variables."""
    path = str(tmp_path / "ckpt")
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.constant([1, 2, 3], name="x")
        assert tf.train.Saver(allow_empty=True).save(sess, path) is None
    assert os.listdir(tmp_path) == ["ckpt.meta"]
    graph = tf.Graph()
    with tf.Session(graph=graph):
        assert tf.train.import_meta_graph(path + ".meta", import_scope="subgraph_1") is None
        tf.Variable(tf.zeros([10]), name="my_scope/my_var")
        assert tf.train.import_meta_graph(path + ".meta", import_scope="subgraph_2") is None
        saver = tf.train.import_meta_graph(path + ".meta", import_scope="my_scope")
        assert isinstance(saver, tf.train.Saver)
        assert graph.get_tensor_by_name("my_scope/x:0") is not None


def test_export_meta_graph_clear_devices_and_string_constants(tmp_path):
    with tf.Graph().as_default():
        _model("/job:ps/replica:0/task:0/device:GPU:0")
        tf.constant([b"a\xff", b"b"], name="words")   # bytes, not UTF-8 text, kept exactly
        kept, cleared = tf.train.export_meta_graph(), tf.train.export_meta_graph(clear_devices=True)
    assert isinstance(cleared, tf.MetaGraphDef) and kept != cleared
    for meta, device in ((kept, "/job:ps/replica:0/task:0/device:GPU:0"), (cleared, "")):
        with tf.Graph().as_default() as g, tf.Session() as sess:
            tf.train.import_meta_graph(meta, import_scope="new_model")
            assert g.get_operation_by_name("new_model/weights").device == device
            assert sess.run("new_model/words:0").tolist() == [b"a\xff", b"b"]
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(kept, clear_devices=True)
        assert {op.device for op in g.get_operations()} == {""}


def test_save_to_a_file_uri(tmp_path):
    """saver_test testSaveToURI: ``file://`` paths are local files (TF's file systems)."""
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(10.0, name="v0")
        sess.run(v.initializer)
        saver = tf.train.Saver()
        uri = "file://" + str(tmp_path / "uri")
        assert saver.save(sess, uri) == uri
        assert sorted(os.listdir(tmp_path)) == ["checkpoint", "uri.data-00000-of-00001",
                                                "uri.index", "uri.meta"]
        sess.run(v.assign(1.0))
        saver.restore(sess, uri)
        assert sess.run(v) == 10.0


# --- partitioned variables (saver_test testPartitioned*, variable_scope_test) ---------------

def test_partitioners_say_how_many_pieces_as_tf():
    shape = tf.TensorShape([10, 3])
    assert tf.fixed_size_partitioner(3)(shape=shape, dtype=tf.float32) == [3, 1]
    assert tf.min_max_variable_partitioner(max_partitions=4, min_slice_size=64)(
        shape=shape, dtype=tf.float32) == [2, 1]
    assert tf.variable_axis_size_partitioner(max_shard_bytes=50)(
        shape=shape, dtype=tf.float32) == [3, 1]


def test_get_variable_with_a_partitioner_makes_pieces_that_read_as_one():
    with tf.Graph().as_default():
        with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)):
            v = tf.get_variable("w", shape=[10, 3], initializer=tf.zeros_initializer())
        assert (type(v).__name__, v.name, v._get_partitions()) == ("PartitionedVariable", "s/w", [3, 1])
        assert [x.name for x in v] == ["s/w/part_0:0", "s/w/part_1:0", "s/w/part_2:0"]
        assert [x.shape.as_list() for x in v] == [[4, 3], [3, 3], [3, 3]]   # the first one longer
        t = v.as_tensor()
        assert t.name == "s/w:0" and t.shape.as_list() == [10, 3]
        assert tf.get_default_graph().get_operations()[-2].name == "s/w/ConcatPartitions/concat"
        with tf.variable_scope("s", reuse=True):
            assert tf.get_variable("w") is v                   # reused without a partitioner
        def reuse_cut_in_two():
            with tf.variable_scope("s", reuse=True):
                tf.get_variable("w", shape=[10, 3], partitioner=tf.fixed_size_partitioner(2))
        messages = [   # TF 2.21's words
            (lambda: tf.get_variable("s/w", shape=[10, 3]),
             "No partitioner was provided, but a partitioned version of the variable was found: "
             "s/w/part_0. Perhaps a variable of the same name was already created with "
             "partitioning?"),
            (reuse_cut_in_two,
             "Trying to reuse partitioned variable s/w, but specified partitions [2, 1] and found "
             "partitions [3, 1]."),
            (lambda: tf.get_variable("y", shape=[4, 4], partitioner=lambda shape, dtype: [2, 2]),
             "Can only slice a variable along one dimension: shape: (4, 4), partitioning: [2, 2]"),
            (lambda: tf.get_variable("z", shape=[4, 4], partitioner=lambda shape, dtype: [2]),
             "Partitioner returned a partition list that does not match the Variable's rank: "
             "[2] vs. (4, 4)")]
        for make, message in messages:
            with pytest.raises(ValueError) as info:
                make()
            assert str(info.value) == message
        scalar = tf.get_variable("x", shape=[], partitioner=lambda shape, dtype: [2])
        assert scalar.name == "x:0"                                # a scalar is never cut


@pytest.mark.parametrize("by_dict", [False, True])
def test_a_partitioned_variable_saves_as_one_entry_and_restores_into_any_cut(tmp_path, by_dict):
    path = str(tmp_path / "ckpt")
    value = np.arange(30, dtype=np.float32).reshape(10, 3)

    def run(shards: int | None, save: bool) -> np.ndarray:
        with tf.Graph().as_default(), tf.Session() as sess:
            init = value if save else tf.zeros([10, 3])
            if shards:
                v = tf.get_variable("my_var", shape=[10, 3], initializer=init,
                                    partitioner=tf.fixed_size_partitioner(shards))
            else:
                v = tf.Variable(init, name="my_var")
            sess.run(tf.global_variables_initializer())
            saver = tf.train.Saver({"my_var": v} if by_dict else [v])
            if save:
                assert saver.save(sess, path) == path
            else:
                saver.restore(sess, path)
            return sess.run(v.as_tensor() if shards else v)

    run(2, save=True)
    assert tf.train.list_variables(path) == [("my_var", [10, 3])]
    for shards in (None, 2, 3):
        assert np.array_equal(run(shards, save=False), value)
    run(None, save=True)
    assert np.array_equal(run(3, save=False), value)


# --- variable_creator_scope (variable_scope_test testVariableCreator) -----------------------

def test_variable_creator_scopes_make_every_variable_innermost_first():
    with tf.Graph().as_default():
        names, seen = [], []

        def creator_a(next_creator, **kwargs):
            names.append(kwargs.get("name", ""))
            return next_creator(**kwargs)

        def creator_b(next_creator, **kwargs):
            kwargs["name"] = "forced_name"
            return next_creator(**kwargs)

        with tf.variable_creator_scope(creator_a):
            with tf.variable_creator_scope(creator_b):
                v = tf.Variable(1.0, name="one_name")
        assert names == ["forced_name"] and v.name == "forced_name:0"

        def creator_c(next_creator, **kwargs):
            seen.append((kwargs["synchronization"], kwargs["aggregation"]))
            return next_creator(**kwargs)

        with tf.variable_creator_scope(creator_c):
            tf.get_variable("v", [], synchronization=tf.VariableSynchronization.ON_WRITE,
                            aggregation=tf.VariableAggregation.MEAN)
        assert seen == [(tf.VariableSynchronization.ON_WRITE, tf.VariableAggregation.MEAN)]
        assert tf.Variable(2.0).name == "Variable:0" and len(seen) == 1   # the scopes are closed


def test_a_saver_refuses_two_variables_under_one_name():
    """saver_test testSomeErrors (TF 2.21's words)."""
    with tf.Graph().as_default():
        v0, v1, v2 = (tf.Variable([x], name=n) for x, n in ((10.0, "v0"), (20.0, "v1"), (20.0, "v2")))
        v2._set_save_slice_info(tf.Variable.SaveSliceInfo("v1", [1], [0], [1]))
        with pytest.raises(ValueError, match="^Mixing slices and non-slices with the same name: v1$"):
            tf.train.Saver([v0, v1, v2])
        tf.train.Saver({"vee1": v1, "other": [v2]})
        p_v1, p_v2 = (tf.get_variable(n, shape=[4, 5], partitioner=tf.fixed_size_partitioner(2))
                      for n in ("p_v1", "p_v2"))
        p_v2._name = "p_v1"
        with pytest.raises(ValueError, match="^At least two variables have the same name: p_v1$"):
            tf.train.Saver([p_v1, p_v2])
        with pytest.raises(ValueError, match="^At least two variables have the same name: v0$"):
            tf.train.Saver([v0, v0])

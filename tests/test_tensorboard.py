"""TensorBoard: event files written by both engines, read back with TensorBoard's own reader."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

import dyngraph as torch  # noqa: E402
import staticgraph as tf  # noqa: E402
from common.tensorboard import DEFAULT_BUCKET_LIMITS, tf_histogram_summary  # noqa: E402
from dyngraph.utils.tensorboard import SummaryWriter  # noqa: E402


def _read(logdir) -> EventAccumulator:
    acc = EventAccumulator(str(logdir), size_guidance={"tensors": 0, "scalars": 0,
                                                       "histograms": 0})
    acc.Reload()
    return acc


def _mlp_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (None, 3), name="x")
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        loss = tf.reduce_sum(tf.matmul(x, w))
        tf.summary.scalar("loss", loss)
        tf.summary.histogram("w_hist", w)
        tf.summary.text("note", "hello")
        merged = tf.summary.merge_all()
    return g, x, w, loss, merged


# --- staticgraph: tf.summary + FileWriter ---------------------------------------------------

def test_summary_ops_are_graph_nodes_as_in_tf1():
    g, x, w, loss, merged = _mlp_graph()
    types = {op.name: op.type for op in g.get_operations()}
    assert types["loss"] == "ScalarSummary" and types["loss/tags"] == "Const"
    assert types["w"] == "VarHandleOp" and types["w_hist"] == "HistogramSummary"
    assert types["note"] == "TensorSummaryV2"
    assert merged.name == "Merge/MergeSummary:0" and merged.op.type == "MergeSummary"
    assert [t.op.type for t in g.get_collection("summaries")] == [
        "ScalarSummary", "HistogramSummary", "TensorSummaryV2"]
    assert str(merged.dtype) == "<dtype: 'string'>" and merged.shape == ()
    with g.as_default(), tf.name_scope("outer"):
        assert tf.summary.scalar("loss", 1.0).name == "outer/loss:0"
        assert tf.summary.merge([merged], name="m2").name == "outer/m2/m2:0"


def test_merge_all_without_summaries_is_none():
    with tf.Graph().as_default():
        assert tf.summary.merge_all() is None


def test_scalar_summary_of_a_vector_fails_when_run_as_in_tf():
    with tf.Graph().as_default() as g:
        bad = tf.summary.scalar("bad", tf.ones([3]))     # TF builds it; the run fails
    with tf.Session(graph=g) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"tags and values are not the same shape: \[\] != \[3\] "
                                 r"\(tag 'bad'\)"):
            sess.run(bad)


def test_file_writer_scalars_histograms_text_and_graph(tmp_path):
    g, x, w, loss, merged = _mlp_graph()
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        writer = tf.summary.FileWriter(str(tmp_path), graph=sess.graph)
        for step in range(3):
            s = sess.run(merged, {x: [[1.0, 2.0, step]]})
            assert isinstance(s, bytes)
            writer.add_summary(s, global_step=step)
        writer.close()
    acc = _read(tmp_path)
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(0, 11.0), (1, 20.0), (2, 29.0)]
    hist = acc.Histograms("w_hist")[-1].histogram_value
    assert (hist.min, hist.max, hist.num, hist.sum, hist.sum_squares) == (0, 5, 6, 15, 55)
    assert sum(hist.bucket) == 6
    assert acc.Tensors("note")[0].tensor_proto.string_val == [b"hello"]
    gd = acc.Graph()
    assert len(gd.node) == len(g.get_operations())
    nodes = {n.name: n for n in gd.node}
    assert nodes["MatMul"].op == "MatMul" and list(nodes["MatMul"].input) == ["x", "ReadVariableOp"]
    assert list(nodes["ReadVariableOp"].input) == ["w"] and nodes["w"].attr["dtype"].type == 1
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 3]
    assert [d.size for d in nodes["MatMul"].attr["_output_shapes"].list.shape[0].dim] == [-1, 2]


def test_histogram_buckets_follow_tf_histogram_cc():
    """A value lands in the first bucket whose limit exceeds it; empty runs collapse into one."""
    h = tf_histogram_summary("h", np.ones(6)).value[0].histo
    assert list(h.bucket) == [0.0, 6.0, 0.0]
    k = int(np.searchsorted(DEFAULT_BUCKET_LIMITS, 1.0, side="right"))
    assert list(h.bucket_limit) == [DEFAULT_BUCKET_LIMITS[k - 1], DEFAULT_BUCKET_LIMITS[k],
                                    DEFAULT_BUCKET_LIMITS[-1]]
    assert h.bucket_limit[1] > 1.0 > h.bucket_limit[0]


def test_histogram_summary_refuses_nan_at_run_time():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (2,), name="x")
        h = tf.summary.histogram("h", x)
    with tf.Session(graph=g) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Nan in summary histogram for: h"):
            sess.run(h, {x: [1.0, np.nan]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Infinity in Histogram for: h"):
            sess.run(h, {x: [1.0, np.inf]})
        assert isinstance(sess.run(h, {x: [1.0, 2.0]}), bytes)   # still usable


def test_add_summary_refuses_other_values(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    with pytest.raises(TypeError, match="add_summary expects a serialized Summary"):
        writer.add_summary(3.0)
    writer.close()


def test_control_flow_regions_are_name_scopes_in_the_graph_def(tmp_path):
    with tf.Graph().as_default() as g:
        n = tf.placeholder(tf.float32, (), name="n")
        w = tf.constant(2.0, name="w")
        first, _ = tf.while_loop(lambda a, b: a < b, lambda a, b: (a + w, b + 1.0),
                                 [tf.constant(0.0), n])
        tf.cond(first > 3.0, lambda: first * 2.0, lambda: first + 1.0)
    writer = tf.summary.FileWriter(str(tmp_path), graph=g)
    writer.close()
    gd = _read(tmp_path).Graph()
    nodes = {node.name: node for node in gd.node}
    inner = sum(len(r.graph.get_operations()) for op in g.get_operations()
                for r in (op.attrs.get("cond"), op.attrs.get("body"), *op.attrs.get("branches", ()))
                if r is not None)
    assert len(gd.node) == len(g.get_operations()) + inner
    assert nodes["while"].op == "StatelessWhile" and nodes["cond"].op == "StatelessIf"
    assert nodes["while/cond/Less"].op == "Less"
    assert list(nodes["while/body/arg_0"].input) == ["Const"]
    assert list(nodes["while/body/capture_w"].input) == ["w"]
    assert "^while/body/add" in nodes["while"].input
    assert {n for n in nodes if n.startswith("cond/")} >= {"cond/true/mul", "cond/false/add"}


# --- dyngraph: SummaryWriter ------------------------------------------------------------------

def test_summary_writer_scalars_and_histograms(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        for step in range(4):
            w.add_scalar("loss", torch.tensor(1.0 / (step + 1)), step)
        w.add_histogram("weights", torch.tensor([0.5, 1.0, 1.0, 2.0]), 0)
    acc = _read(tmp_path)
    assert [e.value for e in acc.Scalars("loss")] == pytest.approx([1, 0.5, 1 / 3, 0.25])
    h = acc.Histograms("weights")[0].histogram_value
    assert (h.min, h.max, h.num, h.sum) == (0.5, 2.0, 4, 4.5)
    assert sum(h.bucket) == 4 and h.bucket[0] == 0   # one empty bucket carries the left edge


def test_summary_writer_add_scalars_writes_one_run_per_tag(tmp_path):
    w = SummaryWriter(str(tmp_path))
    for step in range(2):
        w.add_scalars("run/a", {"x": step, "y": 2 * step}, step)
    w.close()
    assert [e.value for e in _read(tmp_path / "run_a_x").Scalars("run/a")] == [0, 1]
    assert [e.value for e in _read(tmp_path / "run_a_y").Scalars("run/a")] == [0, 2]


def test_summary_writer_add_scalar_refuses_a_vector(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(AssertionError, match="Tensor should contain one element"):
            w.add_scalar("v", torch.tensor([1.0, 2.0]))
        w.add_scalar("v", 1.0)   # still usable
    assert len(_read(tmp_path).Scalars("v")) == 1


def test_summary_writer_add_graph_traces_the_model(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    x = torch.ones(5, 3)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_graph(model, x)
    acc = _read(tmp_path)
    gd = acc.Graph()
    traced = torch.jit.trace(model, x)
    assert len(gd.node) == len(traced.graph.get_operations())
    assert [n.op for n in gd.node].count("MatMul") == 2
    matmuls = [n.name for n in gd.node if n.op == "MatMul"]     # module scopes, as PyTorch's graph
    assert matmuls == ["Sequential/Linear[0]/MatMul", "Sequential/Linear[2]/MatMul"]
    assert acc.Tags()["run_metadata"] == ["step1"]


def test_missing_tensorboard_package_says_how_to_install(monkeypatch):
    import common.tensorboard as ctb

    def refuse(name, *a):
        raise ImportError(f"No module named {name!r}")
    monkeypatch.setattr(ctb.importlib, "import_module", refuse)
    with pytest.raises(ImportError, match=r"tf.summary ops need the `tensorboard` package .*"
                                          r"pip install 'dyngraph-staticgraph\[tensorboard\]'"):
        with tf.Graph().as_default():
            tf.summary.scalar("loss", 1.0)


def test_add_graph_refuses_graph_and_graph_def_together(tmp_path):
    g = tf.Graph()
    with tf.summary.FileWriter(str(tmp_path)) as w:
        with pytest.raises(ValueError, match="Please pass only graph, or graph_def"):
            w.add_graph(g, graph_def=g.as_graph_def())


def test_summary_writer_histogram_of_nothing_is_an_error(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(ValueError, match="The input has no element."):
            w.add_histogram("empty", np.zeros(0))


def test_summary_family_prefixes_scope_and_tag_as_tf1():
    from tensorboard.compat.proto.summary_pb2 import Summary
    with tf.Graph().as_default() as g:
        s = tf.summary.scalar("loss", 1.0, family="fam")
    with tf.Session(graph=g) as sess:
        assert (s.name, Summary.FromString(sess.run(s)).value[0].tag) == ("fam/loss:0", "fam/fam/loss")

"""ONNX: exported models pass onnx.checker and compute what our engines compute, in onnxruntime."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import dyngraph as torch  # noqa: E402
import staticgraph as tf  # noqa: E402
import staticgraph.interop.onnx as sgo  # noqa: E402
from common import REGISTRY  # noqa: E402
from tests.gradcheck import results  # noqa: E402
from common.examples import materialize  # noqa: E402
from staticgraph.framework.build import apply  # noqa: E402
from staticgraph.interop.onnx.importer import _loaders  # noqa: E402
from staticgraph.interop.onnx.rules import NOT_EXPORTABLE, RULES  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from tests import programs as P  # noqa: E402

TOL = dict(rtol=1e-5, atol=1e-5)


def _run(model, feeds: dict) -> list:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _f32(a):
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == np.float64 else a


# --- the rule table, driven by the registry's own examples -------------------------------------

CASES = [(name, k, False) for name in RULES for k in range(len(REGISTRY[name].examples))]
REFUSED = {("AvgPool", 3): "a divisor counting some padding cells but not others",
           ("MirrorPad", 1): "pad mode SYMMETRIC has no ONNX Pad mode",
           ("MirrorPad", 3): "pad mode WRAP has no ONNX Pad mode"}
"""Examples a rule refuses by design (ONNX has no form for them): the refusal is checked."""
CASES += [(name, 0, True) for name in RULES]   # unknown dims: first example of each op


@pytest.mark.parametrize("name,k,unknown_dims", CASES)
def test_every_rule_matches_the_op_in_onnxruntime(name, k, unknown_dims):
    op = REGISTRY[name]
    args, attrs = materialize(op.examples[k], np.random.default_rng(k))
    args = [_f32(a) for a in args]
    attrs = {key: (np.dtype(np.float32) if isinstance(v, np.dtype) and v == np.float64 else v)
             for key, v in attrs.items()}
    with tf.Graph().as_default() as g:
        phs = [tf.placeholder(a.dtype, [None] * a.ndim if unknown_dims else a.shape, name=f"in{i}")
               for i, a in enumerate(args)]
        ys = results(op, apply(op, phs, attrs))
    y = ys[0]
    if (name, k) in REFUSED and not unknown_dims:
        with pytest.raises(sgo.ExportError, match=REFUSED[name, k]):
            sgo.to_model(None, [y], phs, graph=g)
        return
    try:
        model = sgo.to_model(None, ys, phs, graph=g)
    except sgo.ExportError as e:   # ONNX outputs need a rank
        assert unknown_dims and y.ndim is None, e
        return
    gots = _run(model, {f"in{i}:0": a for i, a in enumerate(args)})
    for got, want in zip(gots, results(op, op.impl(*args, **attrs)), strict=True):
        assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
        np.testing.assert_allclose(got, want, **TOL)
    want = results(op, op.impl(*args, **attrs))[0]
    if RULES[name].load is not None:             # and back: import_graph reads the rule backwards
        imported = sgo.import_graph(model)
        back_op = _loaders()[RULES[name].onnx][0].name       # StopGradient comes back as Identity
        assert back_op in [o.kind for o in imported.graph.get_operations()]
        with tf.Session(graph=imported.graph) as sess:
            back = sess.run(imported.outputs[y.name], {imported.inputs[p.name]: a
                                                       for p, a in zip(phs, args)})
        np.testing.assert_allclose(back, want, **TOL)


def test_coverage_table_lists_every_registry_op():
    rows = dict(sgo.coverage())
    assert list(rows) == list(REGISTRY)
    assert set(RULES) <= set(REGISTRY)
    assert rows["MatMul"] == "MatMul" and rows["NotEqual"] == "Equal + Not"
    assert not set(NOT_EXPORTABLE) & set(RULES)
    table = sgo.coverage_markdown()
    assert f"{len(RULES)} of {len(REGISTRY)} registry ops export to ONNX" in table


def test_an_op_without_a_rule_is_listed_and_refused_by_name(monkeypatch):
    monkeypatch.delitem(RULES, "Tanh")
    assert dict(sgo.coverage())["Tanh"].startswith("not exportable: no ONNX rule written yet")
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (3,), name="x")
        y = tf.tanh(x)
    with pytest.raises(sgo.ExportError, match=r"Tanh \(Tanh\) is not exportable to ONNX: no ONNX "
                                              r"rule written for it yet"):
        sgo.to_model(None, [y], [x], graph=g)


def test_scatter_add_needs_opset_16():
    with tf.Graph().as_default() as g:
        gr = tf.placeholder(tf.float32, (3,), name="g")
        idx = tf.placeholder(tf.int64, (3,), name="idx")
        y = apply(REGISTRY["ScatterLike"], [gr, tf.zeros([5]), idx], {"key": (sgo.rules.ARRAY,)})
    with pytest.raises(sgo.ExportError, match="ScatterElements with reduction='add' needs opset 16"):
        sgo.to_model(None, [y], [gr, idx], opset=15, graph=g)
    model = sgo.to_model(None, [y], [gr, idx], graph=g)          # repeated positions accumulate
    got, = _run(model, {"g:0": np.array([1.0, 2.0, 4.0], np.float32),
                        "idx:0": np.array([1, 1, -1], np.int64)})
    assert got.tolist() == [0.0, 3.0, 0.0, 0.0, 4.0]


def test_unfed_placeholder_is_an_error():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (3,), name="x")
        z = tf.placeholder(tf.float32, (3,), name="z")
        y = x + z
    with pytest.raises(sgo.ExportError, match="placeholder z must be fed: list z:0 in `inputs`"):
        sgo.to_model(None, [y], [x], graph=g)


def test_bad_opset_is_refused():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (3,), name="x")
        y = x * 2.0
    with pytest.raises(ValueError, match="opset 7 is not supported"):
        sgo.to_model(None, [y], [x], opset=7, graph=g)


# --- whole models -----------------------------------------------------------------------------

def _mlp():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (None, 4), name="x")
        rng = np.random.default_rng(0)
        w1 = tf.Variable(rng.standard_normal((4, 8)).astype(np.float32), name="w1")
        b1 = tf.Variable(np.zeros(8, np.float32), name="b1")
        w2 = tf.Variable(rng.standard_normal((8, 3)).astype(np.float32), name="w2")
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)
        probs = tf.nn.softmax(logits)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(probs))
    return g, x, probs, train


def test_static_mlp_exports_variables_from_the_session(tmp_path):
    g, x, probs, train = _mlp()
    xv = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: xv})                         # exported values are the current ones
        path = tmp_path / "mlp.onnx"
        model = sgo.export(sess, [probs], [x], str(path))
        want = sess.run(probs, {x: xv})
    onnx.checker.check_model(onnx.load(str(path)))
    assert sorted(i.name for i in model.graph.initializer) == ["b1:0", "w1:0", "w2:0"]
    assert "Softmax" in {n.op_type for n in model.graph.node}
    got, = _run(model, {"x:0": xv})
    np.testing.assert_allclose(got, want, **TOL)


def test_uninitialized_variable_is_an_error():
    g, x, probs, _ = _mlp()
    with tf.Session(graph=g) as sess:
        with pytest.raises(sgo.ExportError, match="variable w1 has no value in this Session"):
            sgo.to_model(sess, [probs], [x])


def test_counter_loop_becomes_loop_and_runs_like_while_loop():
    with tf.Graph().as_default() as g:
        n = tf.placeholder(tf.float32, (), name="n")
        step = tf.constant(2.0, name="step")
        first, second = tf.while_loop(lambda a, b: a < b, lambda a, b: (a + step, b + 1.0),
                                      [tf.constant(0.0), n])
    model = sgo.to_model(None, [first, second], [n], graph=g)
    assert [nd.op_type for nd in model.graph.node].count("Loop") == 1
    with tf.Session(graph=g) as sess:
        for bound in (10.0, 0.0, 1000.0):
            want = sess.run([first, second], {n: bound})
            got = _run(model, {"n:0": np.array(bound, np.float32)})
            np.testing.assert_allclose(got, want, **TOL)


def test_maximum_iterations_bounds_the_loop():
    with tf.Graph().as_default() as g:
        m = tf.placeholder(tf.int32, (), name="m")
        out = tf.while_loop(lambda v: v < 100.0, lambda v: v * 2.0, [tf.constant(1.0)],
                            maximum_iterations=m)
    model = sgo.to_model(None, [out], [m], graph=g)
    for bound in (0, 3, 50):
        with tf.Session(graph=g) as sess:
            want = sess.run(out, {m: bound})
        got, = _run(model, {"m:0": np.array(bound, np.int32)})
        assert got == want


def test_cond_becomes_if_and_takes_either_branch():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (3,), name="x")
        y = tf.cond(x[0] > 0, lambda: x * 2.0, lambda: tf.tanh(x) + 1.0)
    model = sgo.to_model(None, [y], [x], graph=g)
    assert "If" in [nd.op_type for nd in model.graph.node]
    with tf.Session(graph=g) as sess:
        for xv in ([1.0, 2.0, 3.0], [-1.0, 2.0, 3.0]):
            xv = np.array(xv, np.float32)
            np.testing.assert_allclose(_run(model, {"x:0": xv})[0], sess.run(y, {x: xv}), **TOL)


def test_nested_control_flow_reads_outer_values():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (2,), name="x")
        w = tf.constant([0.5, -1.0], name="w")

        def body(i, v):
            return i + 1, tf.cond(tf.reduce_sum(v) > 0, lambda: v - w, lambda: v * 2.0 + w)
        _, out = tf.while_loop(lambda i, v: i < 5, body, [tf.constant(0), x])
    model = sgo.to_model(None, [out], [x], graph=g)
    with tf.Session(graph=g) as sess:
        for xv in ([1.0, 2.0], [-3.0, 0.5]):
            xv = np.array(xv, np.float32)
            np.testing.assert_allclose(_run(model, {"x:0": xv})[0], sess.run(out, {x: xv}), **TOL)


# --- dyngraph.onnx.export ---------------------------------------------------------------------

def test_dyngraph_export_mlp_with_dynamic_batch(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    path = tmp_path / "mlp.onnx"
    proto = torch.onnx.export(model, (torch.randn(2, 4),), str(path),
                              dynamic_axes={"input": {0: "batch"}, "output": [0]})
    onnx.checker.check_model(onnx.load(str(path)))
    assert [i.name for i in proto.graph.initializer] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert (dims[0].dim_param, dims[1].dim_value) == ("batch", 4)
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "output_dynamic_axes_1"
    xv = np.random.default_rng(2).standard_normal((7, 4)).astype(np.float32)
    got, = _run(proto, {"input": xv})
    np.testing.assert_allclose(got, model(torch.tensor(xv)).detach().numpy(), **TOL)


def frozen_branch(x):
    if x.sum() > 0:
        return x * 2
    return x + 1


def test_dyngraph_export_warns_that_python_control_flow_was_frozen(tmp_path):
    with pytest.warns(torch.jit.TracerWarning, match="Converting a tensor to a Python boolean "
                                                      "might cause the trace to be incorrect"):
        proto = torch.onnx.export(frozen_branch, (torch.ones(3),), str(tmp_path / "f.onnx"))
    assert [i.name for i in proto.graph.input] == ["x"]
    got, = _run(proto, {"x": -np.ones(3, np.float32)})
    assert got.tolist() == [-2.0, -2.0, -2.0]          # the branch the example took, frozen


def test_dyngraph_export_refuses_unknown_dynamic_axes_names(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"dynamic_axes names \['y'\] are neither input names"):
            torch.onnx.export(lambda x: x * 2, (torch.ones(3),), str(tmp_path / "g.onnx"),
                              dynamic_axes={"y": [0]})


def test_output_of_unknown_rank_is_an_error():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, None, name="x")
        y = tf.tanh(x)
    with pytest.raises(sgo.ExportError, match="output Tanh:0 has an unknown rank"):
        sgo.to_model(None, [y], [x], graph=g)


# --- import_graph -----------------------------------------------------------------------------

def test_import_roundtrip_mlp_loop_and_cond(tmp_path):
    g, x, probs, _ = _mlp()
    with g.as_default():
        n = tf.placeholder(tf.float32, (), name="n")
        first, second = tf.while_loop(lambda a, b: a < b, lambda a, b: (a + 2.0, b + 1.0),
                                      [tf.constant(0.0), n])
        picked = tf.cond(tf.reduce_sum(x) > 0, lambda: probs * first, lambda: probs - 1.0)
    path = tmp_path / "m.onnx"
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        sgo.export(sess, [probs, first, second, picked], [x, n], str(path))
        imported = sgo.import_graph(str(path))
        types = [op.kind for op in imported.graph.get_operations()]
        assert "StatelessWhile" in types and "StatelessIf" in types and "VariableV2" not in types
        with tf.Session(graph=imported.graph) as s2:
            for sign in (1.0, -1.0):
                xv = sign * np.abs(np.random.default_rng(3).standard_normal((3, 4))).astype(np.float32)
                want = sess.run([probs, first, second, picked], {x: xv, n: 10.0})
                got = s2.run(list(imported.outputs.values()),
                             {imported.inputs["x:0"]: xv, imported.inputs["n:0"]: 10.0})
                for a, b in zip(got, want):
                    np.testing.assert_allclose(a, b, **TOL)


def test_import_gemm_model_as_written_by_other_exporters():
    from onnx import TensorProto, helper, numpy_helper
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1.0, -1.0], np.float32)
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Gemm", ["input", "w", "b"], ["h"], transB=1, alpha=0.5),
         helper.make_node("Relu", ["h"], ["output"])], "torchlike",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", 2])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]),
        opset_imports=[helper.make_opsetid("", 18)])
    imported = sgo.import_graph(model)
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]], np.float32)
    with tf.Session(graph=imported.graph) as s:
        got = s.run(imported.outputs["output"], {imported.inputs["input"]: x})
    np.testing.assert_allclose(got, np.maximum(0.5 * x @ w.T + b, 0), **TOL)
    assert imported.inputs["input"].shape.as_list() == [None, 3]


def test_import_unknown_op_names_it():
    from onnx import TensorProto, helper
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Hardmax", ["x"], ["y"], name="the_hardmax")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]),
        opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(sgo.ModelImportError, match=r"^<ModelProto>: ONNX op Hardmax \(node "
                                                   r"'the_hardmax' in the graph\) has no "
                                                   r"staticgraph counterpart to import$"):
        sgo.import_graph(model)


def test_readme_holds_the_current_coverage_table():
    from pathlib import Path
    from staticgraph.interop.onnx.__main__ import readme_with_table
    text = (Path(__file__).parent.parent / "README.md").read_text()
    assert readme_with_table(text) == text, "re-run: python -m staticgraph.interop.onnx --readme"


def test_variable_read_inside_a_loop_body_is_the_initializer():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (2,), name="x")
        w = tf.Variable([0.5, 2.0], name="w")
        _, out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * w), [tf.constant(0), x])
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        model = sgo.to_model(sess, [out], [x])
        assert [i.name for i in model.graph.initializer if i.name.startswith("w")] == ["w:0"]
        xv = np.array([1.0, -1.0], np.float32)
        np.testing.assert_allclose(_run(model, {"x:0": xv})[0], sess.run(out, {x: xv}), **TOL)


def test_rnn_over_a_fed_sequence_exports_as_one_loop():
    from comparisons import rnn
    g, xs, n, (loss, *_) = rnn.static_sequence()
    with tf.Session(graph=g) as sess:
        sess.run([v.initializer for v in g.get_collection("variables")])
        model = sgo.to_model(sess, [loss], [xs, n])
        assert [nd.op_type for nd in model.graph.node].count("Loop") == 1
        for steps in (5, 9):                             # one model for every sequence length
            x = np.random.default_rng(steps).standard_normal((steps, 10, 1)).astype(np.float32)
            got, = _run(model, {"xs:0": x, "n:0": np.array(steps, np.int32)})
            np.testing.assert_allclose(got, sess.run(loss, {xs: x, n: steps}), **TOL)


def test_getitem_with_two_index_arrays_is_not_exportable():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (4, 3), name="x")
        i = tf.placeholder(tf.int64, (2,), name="i")
        y = apply(REGISTRY["GetItem"], [x, i, i], {"key": (sgo.rules.ARRAY, sgo.rules.ARRAY)})
    with pytest.raises(sgo.ExportError, match="indexing with several integer arrays"):
        sgo.to_model(None, [y], [x, i], graph=g)


def test_a_rule_needing_an_unknown_rank_says_so():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, None, name="x")
        y = apply(REGISTRY["SwapLastAxes"], [x], {})
        z = tf.reshape(y, [-1])
    with pytest.raises(sgo.ExportError, match=r"SwapLastAxes\): the rank of x:0 is unknown"):
        sgo.to_model(None, [z], [x], graph=g)


def test_dyngraph_export_refuses_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="export_params=False is not supported"):
        torch.onnx.export(lambda x: x * 2, (torch.ones(3),), str(tmp_path / "a.onnx"),
                          export_params=False)
    with pytest.raises(ValueError, match="dynamic_axes: axis 3 of 'x' is out of range for rank 1"):
        torch.onnx.export(lambda x: x * 2, (torch.ones(3),), str(tmp_path / "b.onnx"),
                          dynamic_axes={"x": [3]})


# --- random programs (tests/programs.py): values and gradients, exported and run in onnxruntime --


@settings(max_examples=15, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(P.programs(max_nodes=12))
def test_random_programs_and_their_gradients_agree_in_onnxruntime(program):
    ws = P.cotangents(program)
    xs = P.feeds(program, program.seeds[0])
    if not P.tame(program, xs):
        return
    built = P.StaticProgram(program, ws)
    if any(t.shape.ndims is None for t in built.outs):  # squeeze of a None dim: ONNX outputs need a rank
        built.sess.close()
        return
    try:
        want = built.run(xs)
        fetches, want = built.outs + built.grads, want[0] + want[1]
        try:
            model = sgo.to_model(None, fetches, built.xs, graph=built.graph)
        except sgo.ExportError as e:          # gradients of loops read the loop's trace
            assert "per-iteration trace" in str(e), e
            fetches, want = built.outs, want[:len(built.outs)]
            model = sgo.to_model(None, fetches, built.xs, graph=built.graph)
        got = _run(model, {i.name: x for i, x in zip(model.graph.input, xs)})
        for a, b in zip(got, want):
            assert np.shape(a) == np.shape(b), program
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9, err_msg=repr(program))
    finally:
        built.sess.close()


def test_gradient_of_a_loop_is_refused_by_name():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (), name="x")
        y = tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [x])
        dx, = tf.gradients(y, [x])
    with pytest.raises(sgo.ExportError, match=r"reads the per-iteration trace of while \(a "
                                              r"gradient of control flow\)"):
        sgo.to_model(None, [dx], [x], graph=g)
    sgo.to_model(None, [y], [x], graph=g)                       # the forward loop exports


# --- layer networks: a CNN and an LSTM, from both engines -------------------------------------

def test_static_cnn_with_tf_layers_exports_and_runs_in_onnxruntime(tmp_path):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (None, 12, 12, 1), name="x")
        h = tf.layers.max_pooling2d(tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu), 2, 2)
        h = tf.layers.average_pooling2d(tf.layers.conv2d(h, 6, 3, activation=tf.nn.relu), 2, 2)
        logits = tf.layers.dense(tf.layers.dropout(tf.layers.flatten(h), 0.5, training=False), 3)
    xv = np.random.default_rng(3).standard_normal((5, 12, 12, 1)).astype(np.float32)
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        model = sgo.export(sess, [logits], [x], str(tmp_path / "cnn.onnx"))
        want = sess.run(logits, {x: xv})
    onnx.checker.check_model(onnx.load(str(tmp_path / "cnn.onnx")))
    assert {"Conv", "MaxPool", "AveragePool"} <= {n.op_type for n in model.graph.node}
    got, = _run(model, {"x:0": xv})
    np.testing.assert_allclose(got, want, **TOL)


def test_static_lstm_unrolled_exports_and_runs_in_onnxruntime(tmp_path):
    with tf.Graph().as_default() as g:
        xs = [tf.placeholder(tf.float32, (None, 3), name=f"x{t}") for t in range(4)]
        outs, _ = tf.nn.static_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), xs, dtype=tf.float32)
        y = outs[-1]
    feed = {x: np.random.default_rng(t).standard_normal((2, 3)).astype(np.float32)
            for t, x in enumerate(xs)}
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        model = sgo.export(sess, [y], xs, str(tmp_path / "lstm.onnx"))
        want = sess.run(y, feed)
    got, = _run(model, {x.name: v for x, v in feed.items()})
    np.testing.assert_allclose(got, want, **TOL)


def test_dyngraph_cnn_and_lstm_export_through_the_trace(tmp_path):
    torch.manual_seed(0)
    cnn = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(),
                              torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(4 * 6 * 6, 3))
    xv = np.random.default_rng(4).standard_normal((2, 1, 12, 12)).astype(np.float32)
    proto = torch.onnx.export(cnn, (torch.tensor(xv),), str(tmp_path / "cnn.onnx"))
    got, = _run(proto, {"input": xv})
    np.testing.assert_allclose(got, cnn(torch.tensor(xv)).detach().numpy(), **TOL)

    lstm = torch.nn.LSTM(3, 5, batch_first=True)

    def last_output(x):
        return lstm(x)[0]
    sv = np.random.default_rng(5).standard_normal((2, 4, 3)).astype(np.float32)
    proto = torch.onnx.export(last_output, (torch.tensor(sv),), str(tmp_path / "lstm.onnx"))
    got, = _run(proto, {"x": sv})
    np.testing.assert_allclose(got, last_output(torch.tensor(sv)).detach().numpy(), **TOL)

    gru = torch.nn.GRU(3, 5, batch_first=True)         # (its fused cell: FusedGRUCell's rule)

    def gru_output(x):
        return gru(x)[0]
    proto = torch.onnx.export(gru_output, (torch.tensor(sv),), str(tmp_path / "gru.onnx"))
    got, = _run(proto, {"x": sv})
    np.testing.assert_allclose(got, gru_output(torch.tensor(sv)).detach().numpy(), **TOL)


def test_same_padding_on_an_unknown_height_is_refused_by_name():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (None, None, None, 1), name="x")
        y = tf.nn.max_pool(x, 2, 2, "SAME")
    with pytest.raises(sgo.ExportError, match=r"SAME padding needs the input's height and width "
                                              r"known statically"):
        sgo.to_model(None, [y], [x], graph=g)

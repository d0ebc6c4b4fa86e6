"""TF's own names and op types for control-flow results, as TF 2.21's ``tf.compat.v1`` graph
mode prints them (control flow v2).  Every expectation here was read off the real TF."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _names(x):
    return [t.name for t in tf.nest.flatten(x)]


def test_while_loop_results_are_identities_after_the_loop_node():
    i, s = tf.constant(0), tf.constant(1.0)
    r = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2.0), [i, s])
    assert _names(r) == ["while/Identity_2:0", "while/Identity_3:0"]
    assert [t.op.name for t in r] == ["while/Identity_2", "while/Identity_3"]
    assert [t.op.type for t in r] == ["Identity", "Identity"]
    loop = r[0].op.inputs[0].op
    assert (loop.name, loop.type) == ("while", "StatelessWhile")
    assert repr(r) == ("[<tf.Tensor 'while/Identity_2:0' shape=() dtype=int32>, "
                       "<tf.Tensor 'while/Identity_3:0' shape=() dtype=float32>]")
    assert tf.Session().run(r) == [3, 8.0]


def test_second_loops_scopes_names_and_one_element_loops():
    i = tf.constant(0)
    tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i])
    one = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i])      # v1: a lone result unpacked
    assert str(one) == 'Tensor("while_1/Identity_2:0", shape=(), dtype=int32)'
    assert _names(tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i], return_same_structure=True)) \
        == ["while_2/Identity_2:0"]
    v1 = tf.compat.v1.while_loop(lambda i: i < 3, lambda i: i + 1, [i], maximum_iterations=5)
    assert str(v1) == 'Tensor("while_3/Identity_2:0", shape=(), dtype=int32)'
    with tf.name_scope("outer"):
        assert tf.compat.v1.while_loop(lambda i: i < 3, lambda i: i + 1, [i]).name == \
            "outer/while/Identity_2:0"
    named = tf.compat.v1.while_loop(lambda i: i < 3, lambda i: i + 1, [i], name="myloop")
    assert named.name == "myloop/Identity_2:0" and named.op.inputs[0].name == "myloop:0"
    assert tf.get_default_graph().get_operation_by_name("while_3/maximum_iterations").type == "Const"


def test_nested_loop_vars_keep_their_structure_and_number_in_flattened_order():
    i, s = tf.constant(0), tf.constant(1.0)
    r = tf.while_loop(lambda i, d: i < 3,
                      lambda i, d: (i + 1, {"a": d["a"] + 1.0, "b": (d["b"][0] * 2,)}),
                      [i, {"a": s, "b": (s,)}])
    assert r[0].name == "while/Identity_2:0"
    assert r[1]["a"].name == "while/Identity_3:0" and r[1]["b"][0].name == "while/Identity_4:0"


def test_a_loop_reading_state_is_a_While_else_StatelessWhile():
    i, s = tf.constant(0), tf.constant(1.0)
    v = tf.Variable(1.0, name="v")
    ph = tf.placeholder(tf.float32, [])

    def loop_type(body):
        r = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, body(s)), [i, s])
        return r[0].op.inputs[0].op.type
    assert loop_type(lambda s: s * ph) == "StatelessWhile"          # a captured placeholder
    assert loop_type(lambda s: s * v) == "While"                    # a variable read
    assert loop_type(lambda s: s * tf.random_normal([])) == "While"
    assert loop_type(lambda s: tf.Print(s, [s])) == "While"
    nested = tf.while_loop(lambda i: i < 3,
                           lambda i: tf.while_loop(lambda j: j < 2, lambda j: j + 1, [i]), [i])
    assert nested.op.inputs[0].op.type == "StatelessWhile"


def test_cond_results_names_and_types():
    p = tf.placeholder(tf.bool, [])
    s = tf.constant(1.0)
    one = tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    assert one.name == "cond/Identity:0" and one.op.type == "Identity"
    assert (one.op.inputs[0].name, one.op.inputs[0].op.type) == ("cond:0", "StatelessIf")
    two = tf.cond(p, lambda: (s + 1, s * 2), lambda: (s, s))
    assert isinstance(two, tuple) and _names(two) == ["cond_1/Identity:0", "cond_1/Identity_1:0"]
    assert [t.op.inputs[0].name for t in two] == ["cond_1:0", "cond_1:1"]
    nest = tf.cond(p, lambda: {"a": s + 1, "b": [s]}, lambda: {"a": s, "b": [s]})
    assert nest["a"].name == "cond_2/Identity:0" and nest["b"][0].name == "cond_2/Identity_1:0"
    assert _names(tf.cond(p, lambda: [s + 1], lambda: [s])) == ["cond_3/Identity:0"]
    with tf.name_scope("sc"):
        assert tf.cond(p, lambda: s + 1, lambda: s).name == "sc/cond/Identity:0"
    assert tf.cond(p, lambda: s + 1, lambda: s, name="mycond").name == "mycond/Identity:0"
    assert tf.Session().run([one, two], {p: False}) == [2.0, (1.0, 1.0)]


def test_a_cond_reading_a_variable_is_an_If():
    p = tf.placeholder(tf.float32, [])
    v = tf.Variable(1.0, name="v")
    read = v.read_value()
    assert tf.cond(p > 0, lambda: v * 1.0, lambda: p).op.inputs[0].op.type == "If"
    assert tf.cond(p > 0, lambda: read, lambda: p).op.inputs[0].op.type == "StatelessIf"


def test_case_results_are_its_outer_conds():
    s = tf.constant(1.0)
    x = tf.placeholder(tf.int32, [])
    c = tf.case([(x < 1, lambda: s), (x < 2, lambda: s + 1)], default=lambda: s * 3)
    assert c.name == "case/cond/Identity:0" and c.op.inputs[0].op.type == "StatelessIf"
    c2 = tf.case({x < 1: lambda: s, x < 2: lambda: s + 1}, default=lambda: s * 3, exclusive=True)
    assert c2.name == "case_1/cond/Identity:0"
    assert tf.Session().run([c, c2], {x: 1}) == [2.0, 2.0]


def test_result_identities_cost_no_step_and_gradients_flow_through_them():
    x = tf.placeholder(tf.float64, [], name="x")
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, tf.constant(1.0, tf.float64)])
    z = tf.cond(x > 0, lambda: y * 2.0, lambda: y)
    g, = tf.gradients(z, [x])
    sess = tf.Session()
    assert sess.run([z, g], {x: 2.0}) == [16.0, pytest.approx(2 * 3 * 4.0)]
    source = sess.compiled(z, {x: 2.0}).source
    assert "Identity" not in source and "StatelessWhile" in source
    assert np.isclose(sess.run(y, {x: 2.0}), 8.0)


# --- ops with several outputs: ONE node, outputs op:0, op:1, ... ---------------------------

def _node(ts):
    """The one node behind a list of results, and its outputs' names."""
    ops = {t.op for t in ts}
    assert len(ops) == 1, ops
    op, = ops
    return op.name, op.type, [t.name for t in ts], [t.value_index for t in ts]


def test_split_is_one_Split_or_SplitV_node():
    x = tf.constant([[1.0, 2, 3, 4], [5, 6, 7, 8]])
    assert _node(tf.split(x, 2, axis=1)) == ("split", "Split", ["split:0", "split:1"], [0, 1])
    assert _node(tf.split(x, [1, 3], axis=1))[:3] == ("split_1", "SplitV", ["split_1:0", "split_1:1"])
    assert _node(tf.split(x, 1))[2] == ["split_2:0"]
    assert _node(tf.split(x, 2, axis=1, name="sp"))[2] == ["sp:0", "sp:1"]
    pieces = tf.split(x, [1, -1], axis=1)
    assert _node(pieces)[:2] == ("split_3", "SplitV") and [p.shape.as_list() for p in pieces] == [[2, 1], [2, 3]]
    with tf.name_scope("ns"):
        assert _node(tf.split(x, 2))[2] == ["ns/split:0", "ns/split:1"]
    assert repr(tf.split(x, 2, axis=1, name="r")) == (
        "[<tf.Tensor 'r:0' shape=(2, 2) dtype=float32>, <tf.Tensor 'r:1' shape=(2, 2) dtype=float32>]")
    a, b = tf.Session().run(pieces)
    np.testing.assert_array_equal(b, [[2, 3, 4], [6, 7, 8]])
    assert tf.get_default_graph().get_tensor_by_name("split:1").op.type == "Split"


def test_split_of_an_unknown_dimension_into_equal_pieces():
    x = tf.placeholder(tf.float32, [None, 4])
    a, b = tf.split(x, 2, axis=0)
    assert a.shape.as_list() == [None, 4]
    got = tf.Session().run([a, b], {x: np.arange(8, dtype=np.float32).reshape(2, 4)})
    np.testing.assert_array_equal(got[1], [[4, 5, 6, 7]])


def test_unstack_is_one_Unpack_node():
    x = tf.constant([[1.0, 2, 3, 4], [5, 6, 7, 8]])
    assert _node(tf.unstack(x)) == ("unstack", "Unpack", ["unstack:0", "unstack:1"], [0, 1])
    cols = tf.unstack(x, axis=1)
    assert _node(cols)[2] == [f"unstack_1:{i}" for i in range(4)] and cols[0].shape.as_list() == [2]
    assert _node(tf.unstack(x, name="u"))[2] == ["u:0", "u:1"]
    np.testing.assert_array_equal(tf.Session().run(cols[2]), [3, 7])


def test_top_k_is_one_TopKV2_node_returning_TFs_namedtuple():
    x = tf.constant([[1.0, 2, 3, 4], [5, 6, 7, 8]])
    r = tf.nn.top_k(x, 2)
    assert _node(r) == ("TopKV2", "TopKV2", ["TopKV2:0", "TopKV2:1"], [0, 1])
    assert type(r).__name__ == "TopKV2" and r._fields == ("values", "indices")
    assert repr(r) == ("TopKV2(values=<tf.Tensor 'TopKV2:0' shape=(2, 2) dtype=float32>, "
                       "indices=<tf.Tensor 'TopKV2:1' shape=(2, 2) dtype=int32>)")
    assert _node(tf.nn.top_k(x, 2, name="tk"))[2] == ["tk:0", "tk:1"]
    assert _node(tf.math.top_k(x, 2))[0] == "TopKV2_1"
    got = tf.Session().run(r)
    assert type(got).__name__ == "TopKV2"
    np.testing.assert_array_equal(got.values, [[4, 3], [8, 7]])
    np.testing.assert_array_equal(got.indices, [[3, 2], [3, 2]])
    assert got.indices.dtype == np.int32


def test_gradients_through_multi_output_nodes_sum_every_used_output():
    x = tf.placeholder(tf.float64, [2, 4], name="x")
    a, b = tf.split(x, 2, axis=1)
    rows = tf.unstack(x)
    top = tf.nn.top_k(x, 1)
    loss = tf.reduce_sum(b * 3.0) + tf.reduce_sum(rows[1]) + tf.reduce_sum(top.values)
    g, = tf.gradients(loss, x)
    xv = np.array([[1.0, 5, 2, 0], [3, 1, 4, 2]])
    expected = [[0, 1, 3, 3], [1, 1, 5, 4]]
    np.testing.assert_allclose(tf.Session().run(g, {x: xv}), expected)
    unused, = tf.gradients(tf.reduce_sum(a), x)      # the other piece gets zeros
    np.testing.assert_allclose(tf.Session().run(unused, {x: xv}), [[1, 1, 0, 0], [1, 1, 0, 0]])


def test_multi_output_nodes_survive_json_and_meta_graph_round_trips(tmp_path):
    x = tf.constant([[1.0, 2, 3, 4], [5, 6, 7, 8]], name="x")
    tf.split(x, [1, 3], axis=1)
    tf.nn.top_k(x, 2)
    tf.Variable(1.0, name="v")
    g = tf.from_json(tf.to_json(tf.get_default_graph()))
    pieces = g.get_tensor_by_name("split:1")
    assert pieces.op.type == "SplitV" and len(pieces.op.outputs) == 2
    with tf.Session(graph=g) as s:
        np.testing.assert_array_equal(s.run(pieces), [[2, 3, 4], [6, 7, 8]])
        assert s.run(g.get_tensor_by_name("TopKV2:1")).tolist() == [[3, 2], [3, 2]]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        tf.train.Saver().save(s, str(tmp_path / "m"))
    tf.reset_default_graph()
    tf.train.import_meta_graph(str(tmp_path / "m.meta"))
    with tf.Session() as s:
        assert s.run("TopKV2:0").tolist() == [[4, 3], [8, 7]]


def test_graph_pictures_label_each_output_of_a_multi_output_node():
    from comparisons.pictures import static_graph
    x = tf.constant([[1.0, 2, 3, 4], [5, 6, 7, 8]], name="x")
    tf.split(x, [1, 3], axis=1)
    label = static_graph(tf.get_default_graph()).nodes["split"]["label"]
    assert label.endswith("float32[2, 1], float32[2, 3]")


def test_dyngraph_runs_multi_output_ops_as_one_backward_node():
    import dyngraph as torch
    from dyngraph.functions import OPS
    x = torch.tensor(np.arange(8.0).reshape(2, 4), requires_grad=True)
    a, b = OPS.split(x, num_split=2, axis=1)
    assert type(a.grad_fn).__name__ == "SplitBackward0"
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]   # one call node
    (b * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 3, 3], [0, 0, 3, 3]])


def test_split_sizes_that_do_not_add_up_raise_TFs_message():
    with pytest.raises(ValueError, match=(
            r"^can't split axis of size 3 into pieces of size \[1,1\] for '\{\{node split_1\}\} = "
            r"SplitV\[T=DT_FLOAT, Tlen=DT_INT32, num_split=2\]\(zeros, Const, split_1/split_dim\)' "
            r"with input shapes: \[2,3,4\], \[2\], \[\] and with computed input tensors: "
            r"input\[1\] = <1 1>, input\[2\] = <1>\.$")):
        z = tf.zeros([2, 3, 4])
        tf.split(z, 2)                               # "split" (fine), then "split_1":
        tf.split(z, [1, 1], axis=1)


def test_unstack_and_top_k_shape_errors_start_with_TFs_sentence():
    z = tf.zeros([2, 4])
    with pytest.raises(ValueError, match=r"^Dimension must be 3 but is 2 for '\{\{node unstack\}\} = "
                                         r"Unpack\[T=DT_FLOAT\]\(zeros\)' with input shapes: \[2,4\]\."):
        tf.unstack(z, num=3)
    with pytest.raises(ValueError, match=r"^input must have last dimension >= k = 5 but is 4 for "
                                         r"'\{\{node TopKV2\}\} = TopKV2\[T=DT_FLOAT\]"):
        tf.nn.top_k(z, 5)


def test_dynamic_rnn_map_fn_and_scan_results_carry_TFs_names():
    x = tf.placeholder(tf.float32, [2, 5, 3])
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(4), x, dtype=tf.float32)
    assert (out.name, state.name) == ("rnn/transpose_1:0", "rnn/while/Identity_4:0")
    _, lstm = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(4), x, dtype=tf.float32, scope="lstm")
    assert (lstm.c.name, lstm.h.name) == ("lstm/while/Identity_4:0", "lstm/while/Identity_5:0")
    v = tf.constant([1.0, 2.0])
    assert tf.map_fn(lambda e: e * 2, v).name == "map/TensorArrayV2Stack/TensorListStack:0"
    assert tf.scan(lambda a, e: a + e, v).name == "scan/TensorArrayV2Stack/TensorListStack:0"
    assert tf.foldl(lambda a, e: a + e, v).name == "foldl/while/Identity_3:0"
    i = tf.constant(0)
    ta = tf.TensorArray(tf.float32, 3)
    _, ta = tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, 1.0)), [i, ta])
    assert ta.stack().name == "TensorArrayV2Stack/TensorListStack:0"
    assert ta.stack(name="st").name == "st/TensorListStack:0"


def test_the_tf_names_comparison_prints_one_line_per_table_row_named_as_tf_does():
    from comparisons.tf_names import CASES, run
    lines = run(tf)
    assert [line.split(": ", 1)[0] for line in lines] == list(CASES)
    assert len(CASES) == 214
    # TF 2.21's lines for these cases; staticgraph's whole line agrees for floormod, the result
    # and the names that follow for the rest (TF's own scope holds other ops).
    assert run(tf, ["floormod"]) == [
        "floormod: mod:0 FloorMod | next Equal:0 Add:0 Mul:0 Sum:0 Maximum:0 | mod"]
    heads = [line.rsplit(" | ", 1)[0] for line in run(tf, ["total_loss", "sigmoid_grad", "getitem"])]
    assert heads == ["total_loss: total_loss:0 Identity | next Equal:0 Add:0 Mul:0 Sum:0 Maximum:0",
                     "sigmoid_grad: gradients/AddN:0 AddN | next Equal:0 Add:0 Mul:0 Sum:0 Maximum:0",
                     "getitem: strided_slice:0 StridedSlice | next Equal:0 Add:0 Mul:0 Sum:0 Maximum:0"]
    assert run(tf, ["no_such_case"]) == ["no_such_case: ERROR KeyError: 'no_such_case'"]

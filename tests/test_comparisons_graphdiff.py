"""comparisons.graphdiff and comparisons.pictures on hand-made graphs and on dyngraph passes.

The hand-made nodes offer exactly the public autograd surface the module reads
(``name()``, ``next_functions``, ``variable``), so these tests pin its logic
independently of any engine; the dyngraph tests check it on real recordings.
"""
from __future__ import annotations

import pytest

from comparisons.graphdiff import Loop, diff, find_loops, record
from common.layout import crossings, layout
from comparisons.pictures import to_dot


class Var:
    def __init__(self, *shape):
        self.shape = shape


class Leaf:
    next_functions = ()

    def __init__(self, var):
        self.variable = var


class Op:
    def __init__(self, name, *parents):
        self._name = name
        self.next_functions = tuple((p, 0) for p in parents)

    def name(self):
        return self._name


W, X = Var(3, 3), Var(3)


def branch(positive: bool):
    x = Leaf(X)
    return Op("SumBackward0", Op("MulBackward0", x) if positive else Op("AddBackward0", x))


def rnn(steps: int):
    w = Leaf(W)
    h = None
    for _ in range(steps):
        parents = (w,) if h is None else (w, h)
        h = Op("TanhBackward0", Op("AddBackward0", Op("MmBackward0", *parents), Op("MmBackward0", w)))
    return Op("SumBackward0", h)


def test_same_program_same_input_is_identical():
    d = diff(record(branch(True), {"x": X}), record(branch(True), {"x": X}))
    assert d.same and "identical" in str(d)


def test_branches_show_where_each_pass_left_the_shared_graph():
    d = diff(record(branch(True), {"x": X}), record(branch(False), {"x": X}))
    assert (d.a_nodes, d.b_nodes) == (3, 3)
    assert d.removed == ["MulBackward0", "SumBackward0"]
    assert d.added == ["AddBackward0", "SumBackward0"]
    assert d.diverged_a == ["MulBackward0(AccumulateGrad(x))"]
    assert d.diverged_b == ["AddBackward0(AccumulateGrad(x))"]
    assert ("AccumulateGrad(x)", "MulBackward0") in d.edges_removed
    assert ("AccumulateGrad(x)", "AddBackward0") in d.edges_added


def test_loop_trip_counts_and_extra_iterations():
    a, b = record(rnn(3)), record(rnn(5))
    block = ("MmBackward0", "MmBackward0", "AddBackward0", "TanhBackward0")
    assert a.loops == [Loop(block, 3, 0)] and b.loops == [Loop(block, 5, 0)]
    d = diff(a, b)
    assert sorted(d.added) == sorted(list(block) * 2 + ["SumBackward0"])
    assert d.removed == ["SumBackward0"]
    assert "x 3" in str(d) and "x 5" in str(d)


def test_unnamed_leaves_are_labelled_by_shape():
    rec = record(branch(True))
    assert rec.label[0] == "AccumulateGrad(leaf0 [3])"


def test_find_loops_prefers_the_longest_cover_and_finds_several():
    assert find_loops(list("abababxyz")) == [Loop(("a", "b"), 3, 0)]
    assert find_loops(list("aaaqbcbc")) == [Loop(("a",), 3, 0), Loop(("b", "c"), 2, 4)]
    assert find_loops(list("abc")) == []


def test_record_refuses_a_tensor_without_a_graph():
    class Plain:
        grad_fn = None
    with pytest.raises(ValueError, match="no grad_fn: nothing was recorded"):
        record(Plain())


def test_layout_puts_inputs_above_consumers_in_layers():
    import networkx as nx
    g = nx.DiGraph([("x", "add"), ("w", "add"), ("add", "mul"), ("w", "mul")])
    b = layout(g).boxes
    assert b["x"].y == b["w"].y > b["add"].y > b["mul"].y
    assert b["x"].bottom > b["add"].top and b["add"].bottom > b["mul"].top


def test_segment_check_sees_an_edge_through_a_box():
    from common.layout import Box, Layout
    lay = Layout(boxes={"m": Box(0.0, 0.0, 1.0, 0.5)},
                 edges={("a", "b"): [(-2.0, 1.0), (2.0, -1.0)], ("a", "c"): [(0.0, 1.0), (0.0, 0.25)]})
    assert crossings(lay) == [(("a", "b"), "m")]      # the second one only touches the box's top


def _rnn_pictures():
    """The RNN graphs comparisons/rnn.py draws, built by its own functions."""
    from comparisons import rnn
    from comparisons.pictures import eager_graph, static_graph
    short, (w_h, w_x) = rnn.eager_sequence(rnn.XS[:3])
    return {"rnn_cell_static": static_graph(rnn.static_cell()[0]),
            "rnn_while_static": static_graph(rnn.static_sequence()[0]),
            "rnn_eager": eager_graph(short, {"W_h": w_h, "W_x": w_x})}


def _mlp_training_graph():
    import staticgraph as tf
    from comparisons.pictures import static_graph
    g = tf.Graph()
    with g.as_default():
        h = tf.placeholder(tf.float32, [None, 8], name="x")
        y = tf.placeholder(tf.float32, [None, 3], name="y")
        for k, n in enumerate([16, 16, 3]):
            w = tf.Variable(tf.ones([h.shape[1], n]) * 0.1, name=f"w{k}")
            h = tf.tanh(tf.matmul(h, w) + tf.Variable(tf.zeros([n]), name=f"b{k}"))
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_mean(tf.square(h - y)))
    return static_graph(g)


def test_no_edge_runs_through_a_box_on_the_rnn_graphs_and_a_100_node_graph():
    graphs = _rnn_pictures()
    assert graphs["rnn_cell_static"].number_of_nodes() >= 25
    graphs["mlp_training"] = _mlp_training_graph()
    assert graphs["mlp_training"].number_of_nodes() >= 100
    for name, g in graphs.items():
        lay = layout(g)
        assert set(lay.edges) == set(g.edges) and set(lay.boxes) == set(g.nodes), name
        assert crossings(lay) == [], name
        points = [p for pts in lay.edges.values() for p in pts]     # everything on the picture
        assert all(0 <= x <= lay.width and -lay.height <= y <= 0 for x, y in points), name
        boxes = list(lay.boxes.values())          # and no two boxes overlap
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert (abs(a.x - b.x) >= (a.w + b.w) / 2 - 1e-9
                        or abs(a.y - b.y) >= (a.h + b.h) / 2 - 1e-9), name


def test_dot_text_has_every_node_and_edge():
    import networkx as nx
    g = nx.DiGraph()
    g.add_node("a", label='say "hi"\nshape', kind="input")
    g.add_node("b", label="b", kind="op")
    g.add_edge("a", "b")
    dot = to_dot(g, "t")
    assert 'label="say \\"hi\\"\\nshape"' in dot and "n0 -> n1;" in dot and dot.startswith("digraph")


def test_write_graph_uses_graphviz_when_installed(tmp_path, monkeypatch):
    import networkx as nx
    from comparisons import pictures
    calls = []
    monkeypatch.setattr(pictures.shutil, "which", lambda name: "/usr/bin/dot")
    monkeypatch.setattr(pictures.subprocess, "run", lambda cmd, check: calls.append(cmd))
    paths = pictures.write_graph(nx.DiGraph([("a", "b")]), str(tmp_path), "g", "t")
    base = str(tmp_path / "g")
    assert paths == [base + ".dot", base + ".png", base + ".svg"]
    assert calls == [["dot", "-Tpng", base + ".dot", "-o", base + ".png"],
                     ["dot", "-Tsvg", base + ".dot", "-o", base + ".svg"]]


def test_write_graph_without_matplotlib_still_writes_dot(tmp_path, monkeypatch, capsys):
    import networkx as nx
    from comparisons import pictures

    def no_matplotlib(*args):
        raise ImportError("No module named 'matplotlib'")
    monkeypatch.setattr(pictures.shutil, "which", lambda name: None)
    monkeypatch.setattr(pictures, "figure", no_matplotlib)
    paths = pictures.write_graph(nx.DiGraph([("a", "b")]), str(tmp_path), "g")
    assert paths == [str(tmp_path / "g.dot")]
    assert "pip install -e '.[plots]'" in capsys.readouterr().out

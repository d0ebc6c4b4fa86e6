"""Text forms of graphs: ``print(graph)`` with nested control flow, ``Session.explain`` with the
generated loop kernels, and the eager tape in torch.fx's style (``print(graph_of(loss))``)."""
from __future__ import annotations

import dyngraph as torch
import staticgraph as tf


def _loop_graph():
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        w = tf.constant(2.0, name="w")
        body = lambda i, s: (i + 1, tf.cond(s > 3.0, lambda: s * w, lambda: s + 1.0))
        _, s = tf.while_loop(lambda i, s: i < n, body, [tf.constant(0), tf.constant(1.0)])
    return g, n, s


def test_print_graph_nests_loop_and_branch_bodies():
    g, _, _ = _loop_graph()
    text = str(g)
    assert "<Region" not in text
    expected = """\
  cond(%arg_0, %arg_1) captures %capture_n = %n:
    %Less = Less(%arg_0, %capture_n)  # bool[]
    return %Less
  body(%arg_0, %arg_1) captures %capture_w = %w:
    %add/y = Const(value=1)  # int32[]
    %add = Add(%arg_0, %add/y)  # int32[]
    %Greater/y = Const(value=3.0)  # float32[]
    %Greater = Greater(%arg_1, %Greater/y)  # bool[]
    %cond, %cond:1 = StatelessIf(%Greater, %arg_1, %capture_w, captured=(%arg_1, %capture_w))  # float32[], string<unknown>
      false() captures %capture_arg_1 = %arg_1:
        %add/y = Const(value=1.0)  # float32[]
        %add = Add(%capture_arg_1, %add/y)  # float32[]
        return %add
      true() captures %capture_arg_1 = %arg_1, %capture_capture_w = %capture_w:
        %mul = Mul(%capture_arg_1, %capture_capture_w)  # float32[]
        return %mul
    %cond/Identity = Identity(%cond)  # float32[]
    return %add, %cond/Identity"""
    assert expected in text
    line = next(x for x in text.splitlines() if x.startswith("%while"))
    assert text.endswith("%while/Identity_2 = Identity(%while)  # int32[]\n"
                         "%while/Identity_3 = Identity(%while:1)  # float32[]")
    assert line.startswith("%while, %while:1, %while:2 = StatelessWhile(%Const, %Const_1, %n, %w, n_vars=2, "
                           "captured=(%n, %w), ")


def test_explain_shows_the_generated_code_of_loop_bodies():
    g, n, s = _loop_graph()
    with tf.Session(graph=g) as sess:
        assert sess.run(s, {n: 3}) == 4.0   # 1 -> 2 -> 3 -> 4
        text = sess.explain(s, {n: 3})
    plan, _, kernels = text.partition("\n# f0: StatelessWhile 'while', generated:\n")
    assert "= f0(" in plan
    assert kernels.startswith("def while_")
    assert "        while True:" in kernels and "# Less 'Less'" in kernels
    nested = kernels.split("    # bf")[1]
    assert nested.split("\n")[0].endswith(": StatelessIf 'cond', generated:")
    assert "\n    def cond_" in nested and "# Mul 'mul'" in nested


def test_the_tape_prints_in_torch_fx_style():
    w = torch.tensor([1.], requires_grad=True)
    x = torch.tensor([2.], requires_grad=True)
    y = torch.relu((x + w) * (w + 1)).sum()
    assert str(torch.graph_of(y, names={"x": x, "w": w})) == """\
graph():
    %w : [num_users=2] = placeholder[target=w]  # AccumulateGrad float32[1]
    %x : [num_users=1] = placeholder[target=x]  # AccumulateGrad float32[1]
    %add : [num_users=1] = call_function[target=Add](args = (%x, %w), kwargs = {})  # AddBackward0
    %add_1 : [num_users=1] = call_function[target=Add](args = (%w, _), kwargs = {})  # AddBackward0
    %mul : [num_users=1] = call_function[target=Mul](args = (%add, %add_1), kwargs = {})  # MulBackward0
    %relu : [num_users=1] = call_function[target=Relu](args = (%mul,), kwargs = {})  # ReluBackward0
    %sum : [num_users=1] = call_function[target=Sum](args = (%relu,), kwargs = {})  # SumBackward0
    return sum"""
    assert str(torch.graph_of(w * w)).splitlines()[2].endswith(
        "call_function[target=Mul](args = (%leaf, %leaf), kwargs = {})  # MulBackward0")
    assert str(torch.graph_of(torch.ones(2))) == "graph():\n    return None"


def test_gradient_nodes_of_control_flow_name_their_forward_node():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x),
                             [tf.constant(0), tf.constant(1.0)])
        tf.gradients(y, [x])
    text = str(g)
    assert "captured=(%x,)" in text and "forward=%while," in text

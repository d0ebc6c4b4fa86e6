"""TF's own names and op types for control-flow results, as TF 2.21's ``tf.compat.v1`` graph
mode prints them (control flow v2).  Every expectation here was read off the real TF."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()


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

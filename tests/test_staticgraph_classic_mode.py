"""TF1 classic mode (``tf.compat.v1.disable_v2_behavior()``): ref variables and v1 control
flow names, checked against what TensorFlow 2.21 prints in that mode (recorded literals:
``import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()`` in a fresh process).

The switches are process-global, as in TF: the ``classic`` fixture turns them on for one
test and back to TF 2's default afterwards, so no other test sees them.
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


@pytest.fixture
def classic():
    tf.reset_default_graph()
    tf.compat.v1.disable_v2_behavior()
    try:
        yield
    finally:
        tf.compat.v1.enable_v2_behavior()
        tf.reset_default_graph()


def _ops(graph=None) -> list[tuple[str, str]]:
    return [(o.name, o.type) for o in (graph or tf.get_default_graph()).get_operations()]


def test_the_switches_as_tf_reports_them():
    try:
        assert (tf.resource_variables_enabled(), tf.control_flow_v2_enabled()) == (True, True)
        tf.compat.v1.disable_resource_variables()
        assert (tf.resource_variables_enabled(), tf.control_flow_v2_enabled()) == (False, True)
        tf.compat.v1.disable_control_flow_v2()
        assert tf.control_flow_v2_enabled() is False
        tf.compat.v1.enable_v2_behavior()
        assert (tf.resource_variables_enabled(), tf.control_flow_v2_enabled()) == (True, True)
        tf.compat.v1.disable_v2_behavior()
        assert (tf.resource_variables_enabled(), tf.control_flow_v2_enabled()) == (False, False)
        assert tf.executing_eagerly() is False
    finally:
        tf.enable_v2_behavior()


def test_reference_dtypes_as_tf(fresh_graph):
    ref = tf.float32._as_ref
    assert (repr(ref), str(ref), ref.name) == ("tf.float32_ref", "<dtype: 'float32_ref'>", "float32_ref")
    assert ref.base_dtype is tf.float32 and ref._as_ref is ref and tf.float32._as_ref is ref
    assert tf.as_dtype("float32_ref") is ref
    assert (ref.is_compatible_with(tf.float32), tf.float32.is_compatible_with(ref),
            ref.is_compatible_with(ref), ref.is_compatible_with(tf.int32)) == (False, True, True, False)
    assert (ref == tf.float32, ref != tf.float32) == (False, True)
    assert (ref.is_floating, ref.as_numpy_dtype, ref.as_datatype_enum, ref.size) == (True, np.float32, 101, 4)
    assert (tf.int32._as_ref.is_integer, tf.int32._as_ref.min) == (True, -2147483648)
    # tensors never carry a ref dtype (TF strips it)
    assert repr(tf.constant(1., dtype=ref)) == "<tf.Tensor 'Const:0' shape=() dtype=float32>"
    assert repr(tf.zeros([2], dtype=ref)) == "<tf.Tensor 'zeros:0' shape=(2,) dtype=float32>"
    assert repr(tf.placeholder(ref)) == "<tf.Tensor 'Placeholder:0' shape=<unknown> dtype=float32>"


def test_a_ref_variable_as_tf_shows_it(classic):
    v = tf.Variable(1.0, name="v")
    assert repr(v) == "<tf.Variable 'v:0' shape=() dtype=float32_ref>"
    assert (str(v.dtype), repr(v.dtype), v.dtype.base_dtype) == ("<dtype: 'float32_ref'>", "tf.float32_ref", tf.float32)
    assert (v.name, v.op.type, v.op.name) == ("v:0", "VariableV2", "v")
    assert repr(v.value()) == "<tf.Tensor 'v/read:0' shape=() dtype=float32>"
    assert repr(v.read_value()) == "<tf.Tensor 'read:0' shape=() dtype=float32>"
    assert repr(v.initial_value) == "<tf.Tensor 'v/initial_value:0' shape=() dtype=float32>"
    assert (v.initializer.name, v.initializer.type) == ("v/Assign", "Assign")
    assert _ops() == [("v/initial_value", "Const"), ("v", "VariableV2"), ("v/Assign", "Assign"),
                      ("v/read", "Identity"), ("read", "Identity")]
    c = v + 1
    assert [i.name for i in c.op.inputs] == ["v/read:0", "add/y:0"]


def test_ref_assignments_are_named_and_typed_as_tf(classic):
    v = tf.Variable(1.0, name="v")
    a = tf.assign(v, 2.0)
    b = v.assign_add(1.0)
    assert repr(a) == "<tf.Tensor 'Assign:0' shape=() dtype=float32_ref>" and a.op.type == "Assign"
    assert repr(b) == "<tf.Tensor 'AssignAdd:0' shape=() dtype=float32_ref>" and b.op.type == "AssignAdd"
    assert a.op.inputs[1].name == "Assign/value:0" and b.op.inputs[1].name == "AssignAdd/value:0"
    assert v.assign_sub(1.0).op.type == "AssignSub"
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(a) == 2.0 and s.run(b) == 3.0


def test_an_explicit_use_resource_wins_over_the_mode(classic):
    assert repr(tf.Variable(1.0, name="a", use_resource=True)) == "<tf.Variable 'a:0' shape=() dtype=float32>"
    tf.enable_resource_variables()
    assert repr(tf.Variable(1.0, name="d", use_resource=False)) == "<tf.Variable 'd:0' shape=() dtype=float32_ref>"


def test_get_variable_makes_ref_variables(classic):
    w = tf.get_variable("w", [2])
    assert repr(w) == "<tf.Variable 'w:0' shape=(2,) dtype=float32_ref>"
    assert [(n, t) for n, t in _ops() if not n.startswith("w/Initializer")] == [
        ("w", "VariableV2"), ("w/Assign", "Assign"), ("w/read", "Identity")]


def test_an_uninitialized_ref_variable_raises_tf1s_words(classic):
    v = tf.Variable(1.0, name="v")
    c = v + 1
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            s.run(c)
        assert "Attempting to use uninitialized value v\n\t [[{{node v/read}}]]" in str(e.value)
        # TF 2.21: 'Graph execution error:\n\nDetected at node \'v/read\' defined at ...'
        assert str(e.value).startswith("Graph execution error:\n\nDetected at node 'v/read'")
        assert e.value.op.name == "v/read"
        s.run(tf.global_variables_initializer())   # the session stays usable
        assert s.run(c) == 2.0


def test_initialized_value_and_is_variable_initialized(classic):
    v = tf.Variable(1.0, name="v")
    iv = v.initialized_value()
    assert ("IsVariableInitialized", "IsVariableInitialized") in _ops()
    with tf.Session() as s:
        assert s.run(iv) == 1.0
        s.run(v.initializer)
        s.run(v.assign(5.0))
        assert s.run(iv) == 5.0


def test_a_ref_variable_trains_as_a_resource_one(classic):
    """The same engine underneath: a classic graph trains to the same numbers as a v2 one."""
    def train():
        tf.set_random_seed(0)
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
        w = tf.get_variable("w", [2, 1])
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - 1.0))
        step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return [s.run([step, loss])[1] for _ in range(5)]
    classic_losses = train()
    tf.enable_v2_behavior()
    tf.reset_default_graph()
    assert classic_losses == train()


def test_the_v2_default_is_untouched():
    tf.reset_default_graph()
    v = tf.Variable(1.0, name="v")
    assert repr(v) == "<tf.Variable 'v:0' shape=() dtype=float32>"
    assert v.op.type == "VarHandleOp" and v.dtype is tf.float32


def test_while_loop_shows_tf1s_enter_and_exit(classic):
    i = tf.constant(0)
    r = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [i])
    assert repr(r) == "<tf.Tensor 'while/Exit:0' shape=() dtype=int32>"
    assert r.op.type == "Exit"
    # TF 2.21 lists (between Enter and Exit): while/Merge Merge, while/Less/y Const,
    # while/Less Less, while/LoopCond LoopCond, while/Switch Switch, while/Identity Identity,
    # while/add/y Const, while/add AddV2, while/NextIteration NextIteration -- here the one
    # loop node runs them (module docstring of staticgraph.control.control_flow).
    ops = _ops()
    assert [o for o in ops if o[1] in ("Const", "Enter", "Exit")] == [
        ("Const", "Const"), ("while/Enter", "Enter"), ("while/Exit", "Exit")]
    with tf.Session() as s:
        assert s.run(r) == 10


def test_while_loop_results_are_packed_like_the_body_result_as_tf1(classic):
    i, x = tf.constant(0), tf.constant(1.0)
    assert repr(tf.while_loop(lambda i, x: i < 10, lambda i, x: (i + 1, x * 2.), [i, x])) == (
        "(<tf.Tensor 'while/Exit:0' shape=() dtype=int32>, "
        "<tf.Tensor 'while/Exit_1:0' shape=() dtype=float32>)")
    assert repr(tf.while_loop(lambda i, x: i < 10, lambda i, x: [i + 1, x * 2.], (i, x))) == (
        "[<tf.Tensor 'while_1/Exit:0' shape=() dtype=int32>, "
        "<tf.Tensor 'while_1/Exit_1:0' shape=() dtype=float32>]")
    assert str(tf.while_loop(lambda i: i < 10, lambda i: [i + 1], [i])) == (
        'Tensor("while_2/Exit:0", shape=(), dtype=int32)')
    assert repr(tf.while_loop(lambda i: i < 10, lambda i: i + 1, [i], return_same_structure=True)) == (
        "[<tf.Tensor 'while_3/Exit:0' shape=() dtype=int32>]")
    assert str(tf.while_loop(lambda i: i < 10, lambda i: i + 1, [i], name="loop")) == (
        'Tensor("loop/Exit:0", shape=(), dtype=int32)')


def test_maximum_iterations_is_tf1s_first_loop_variable(classic):
    """TF1 carries the iteration counter as loop variable 0: the user's is ``Exit_1``."""
    r = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)], maximum_iterations=3)
    assert repr(r) == "<tf.Tensor 'while/Exit_1:0' shape=() dtype=int32>"
    assert [o for o in _ops() if o[1] in ("Enter", "Exit") or "maximum" in o[0]] == [
        ("while/maximum_iterations", "Const"), ("while/Enter_1", "Enter"), ("while/Exit_1", "Exit")]
    with tf.Session() as s:
        assert s.run(r) == 3


def test_cond_shows_tf1s_merge(classic):
    p = tf.placeholder(tf.bool, name="p")
    c = tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    assert repr(c) == "<tf.Tensor 'cond/Merge:0' shape=() dtype=float32>" and c.op.type == "Merge"
    c2 = tf.cond(p, lambda: (tf.constant(1.0), tf.constant(3)), lambda: (tf.constant(2.0), tf.constant(4)))
    assert repr(c2) == ("(<tf.Tensor 'cond_1/Merge:0' shape=() dtype=float32>, "
                        "<tf.Tensor 'cond_1/Merge_1:0' shape=() dtype=int32>)")
    assert repr(tf.cond(p, lambda: [tf.constant(1.0)], lambda: [tf.constant(2.0)], strict=True)) == (
        "[<tf.Tensor 'cond_2/Merge:0' shape=() dtype=float32>]")
    assert repr(tf.cond(p, lambda: {"a": tf.constant(1.0)}, lambda: {"a": tf.constant(2.0)}, name="c")) == (
        "{'a': <tf.Tensor 'c/Merge:0' shape=() dtype=float32>}")
    # TF 2.21 also lists cond/Switch, cond/switch_t, cond/switch_f and the branches' Consts
    assert ("cond/pred_id", "Identity") in _ops()
    with tf.Session() as s:
        assert s.run([c, c2], {p: False}) == [2.0, (2.0, 4)]


def test_initialized_value_is_tf1s_cond(classic):
    v = tf.Variable(1.0, name="v")
    assert repr(v.initialized_value()) == "<tf.Tensor 'cond/Merge:0' shape=() dtype=float32>"


def test_gradients_through_a_classic_loop(classic):
    x = tf.constant(2.0)
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, tf.constant(1.0)])
    g, = tf.gradients(y, x)
    with tf.Session() as s:
        assert s.run([y, g]) == [8.0, 12.0]


def test_the_v2_default_control_flow_is_untouched():
    tf.reset_default_graph()
    r = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)])
    c = tf.cond(tf.constant(True), lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    assert (r.name, c.name) == ("while/Identity_2:0", "cond/Identity:0")


def test_a_classic_graph_survives_a_json_round_trip(classic):
    v = tf.Variable(1.0, name="v")
    y = v * 2.0
    tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)])
    text = tf.to_json(tf.get_default_graph())
    tf.enable_v2_behavior()   # what a graph shows is what it was built with
    g = tf.from_json(text)
    assert [(o.name, o.type) for o in g.get_operations()] == _ops(y.graph)
    with g.as_default(), tf.Session(graph=g) as s:
        assert repr(tf.global_variables()) == "[<tf.Variable 'v:0' shape=() dtype=float32_ref>]"
        s.run(tf.global_variables_initializer())
        assert s.run(["mul:0", "while/Exit:0"]) == [2.0, 10]


def test_ref_dtypes_flow_where_tf1_code_passes_them(classic):
    """A ref variable's dtype (``float32_ref``) given back to the API works as in TF."""
    with tf.variable_scope("s"):
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    with tf.variable_scope("s", reuse=True):
        assert tf.get_variable("w", [2]) is w
    u = tf.Variable(tf.zeros([2]), dtype=w.dtype, name="u")
    assert repr(u) == "<tf.Variable 'u:0' shape=(2,) dtype=float32_ref>"
    ema = tf.train.ExponentialMovingAverage(0.5)
    step = ema.apply([w])
    upd = tf.scatter_add(u, [0], [3.0])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run([step, upd])
        assert s.run(ema.average(w)).tolist() == [1.0, 1.0] and s.run(u).tolist() == [3.0, 0.0]

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


def test_reference_dtypes_as_tf():
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
    assert (a.op.name, a.op.type, b.op.name, b.op.type) == ("Assign", "Assign", "AssignAdd", "AssignAdd")
    assert a.op.inputs[1].name == "Assign/value:0" and b.op.inputs[1].name == "AssignAdd/value:0"
    assert v.assign_sub(1.0).op.type == "AssignSub"
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(a) == 2.0 and s.run(b) == 3.0


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

"""staticgraph core: graph building, names, static shapes, printing, Session.run and its errors."""
from __future__ import annotations

import collections
import inspect

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def line_of(marker: str) -> int:
    """The line number (in this file) of the first line containing ``marker``."""
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text and "line_of(" not in text)


# --- naming --------------------------------------------------------------------------

def test_names_are_unique_the_tf_way():
    a = tf.add(1.0, 2.0)
    b = tf.add(1.0, 2.0)
    c = tf.add(1.0, 2.0, name="add")   # case-insensitive clash with "Add"
    d = tf.add(1.0, 2.0, name="ADD")
    assert [a.name, b.name, c.name, d.name] == ["Add:0", "Add_1:0", "add_2:0", "ADD_3:0"]
    with tf.name_scope("scope"):
        m = tf.matmul(tf.ones((2, 3)), tf.ones((3, 1)))
    with tf.name_scope("scope"):
        n = tf.add(1, 2)
    assert m.name == "scope/MatMul:0"
    assert n.name == "scope_1/Add:0"


def test_constant_inputs_live_in_the_op_scope():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    y = x + 1.0                         # operators name nodes as TF does: add, mul, truediv...
    z = tf.add(x, 1.0)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["x", "add/y", "add", "Add_1/y", "Add_1"]
    assert y.op.inputs[1].op.name == "add/y" and z.op.type == "AddV2"
    assert [t.op.name for t in (x - 1.0, x * 2.0, x / 2.0, x ** 2.0, 2.0 - x, -x, x < 1.0)] == \
        ["sub", "mul", "truediv", "pow", "sub_1", "Neg", "Less"]


def test_graph_lookup_by_name():
    x = tf.placeholder(tf.float32, name="x")
    g = tf.get_default_graph()
    assert g.get_tensor_by_name("x:0") is x
    assert g.get_operation_by_name("x") is x.op
    with pytest.raises(KeyError, match="refers to a Tensor which does not exist"):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(ValueError, match="^The name 'x' refers to an Operation, not a Tensor"):
        g.get_tensor_by_name("x")     # TF's words for an existing op's name
    with pytest.raises(ValueError, match="looks like an \\(invalid\\) Operation name"):
        g.get_tensor_by_name("nope")


def test_graph_as_default_and_reset():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
        assert tf.get_default_graph() is g
        with pytest.raises(AssertionError, match="nested graphs"):
            tf.reset_default_graph()
    assert c.graph is g
    assert tf.get_default_graph() is not g
    with pytest.raises(ValueError, match="must be from the same graph"):
        tf.add(c, tf.constant(1.0))


def test_finalized_graph_refuses_new_nodes():
    tf.constant(1.0)
    tf.get_default_graph().finalize()
    with pytest.raises(RuntimeError, match="finalized"):
        tf.constant(2.0)


# --- tensors: static facts and printing ------------------------------------------------

def test_tensor_prints_like_tf():
    x = tf.placeholder(tf.float32, shape=(None, 3), name="x")
    y = tf.add(x, 1.0)
    u = tf.placeholder(tf.int32, name="u")
    assert str(y) == 'Tensor("Add:0", shape=(None, 3), dtype=float32)'
    assert str(u) == 'Tensor("u:0", dtype=int32)'
    assert str(tf.constant([1.0, 2.0])) == 'Tensor("Const:0", shape=(2,), dtype=float32)'
    assert str(y.shape) == "(None, 3)" and repr(y.shape) == "TensorShape([None, 3])"
    assert str(u.shape) == "<unknown>"
    assert y.shape[0] is None and y.shape[1] == 3 and y.ndim == 2 and y.get_shape() == (None, 3)


def test_dtypes_are_tf_like():
    assert str(tf.float32) == "<dtype: 'float32'>" and repr(tf.float32) == "tf.float32"
    assert tf.float32 == np.float32 and tf.float32.as_numpy_dtype is np.float32
    assert tf.as_dtype("float64") is tf.float64 and tf.float32.name == "float32"
    assert tf.constant(1).dtype == tf.int32 and tf.constant(1.0).dtype == tf.float32
    assert tf.constant(np.float64(1.0)).dtype == tf.float64
    assert tf.constant(True).dtype == tf.bool


def test_constant_with_shape_and_dtype():
    c = tf.constant(7, dtype=tf.float64, shape=(2, 2))
    assert c.shape == (2, 2) and c.dtype == tf.float64
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(c), np.full((2, 2), 7.0))
    with pytest.raises(TypeError, match="^Expected int32, but got 2.5 of type .float.\\.$"):
        tf.constant(2.5, dtype=tf.int32)


def test_set_shape_refines_and_checks():
    x = tf.placeholder(tf.float32, shape=(None, 3))
    x.set_shape((4, None))
    assert x.shape == (4, 3)
    with pytest.raises(ValueError, match="not compatible"):
        x.set_shape((5, 3))


def test_bool_of_a_symbolic_tensor_teaches():
    x = tf.placeholder(tf.float32, shape=(), name="x")
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError) as info:
        if x > 0:
            pass
    assert isinstance(info.value, TypeError)
    msg = str(info.value)
    assert "Greater:0 has no value while the graph is being built" in msg
    assert "tf.cond" in msg and "tf.while_loop" in msg
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating"):
        list(x)


def test_build_time_shape_error_names_op_shapes_and_line():
    a, b = tf.ones((2, 3)), tf.ones((4, 5))
    with pytest.raises(ValueError) as info:
        tf.matmul(a, b, name="proj")  # BUILD-ERROR-LINE
    msg = str(info.value)
    assert isinstance(info.value, tf.errors.GraphShapeError)
    assert "in op 'proj' (MatMul)" in msg
    assert "[2, 3] (float32), [4, 5] (float32)" in msg
    assert f"test_staticgraph_core.py:{line_of('BUILD-ERROR-LINE')}" in msg


def test_build_time_broadcast_error_with_unknown_dims():
    x = tf.placeholder(tf.float32, shape=(None, 3))
    with pytest.raises(ValueError, match=r"cannot be broadcast[\s\S]*in op 'add' \(AddV2\)"):
        x + tf.ones((4,))


def test_binary_ops_insist_on_one_dtype_like_tf():
    with pytest.raises(TypeError, match="Input 'y' of 'Add' Op has type int32 that does not match "
                                        "type float32 of argument 'x'"):
        tf.add(tf.ones((2,)), tf.constant(1))
    with pytest.raises(TypeError, match="^Input 'y' of 'Add' Op has type float32 that does not match "
                                        "type int32 of argument 'x'.$"):   # TF 2's words
        tf.constant(1) + 2.5
    assert (tf.constant(1) + 2).dtype == tf.int32
    assert (np.ones(2) + tf.ones((2,))).dtype == tf.float32   # numpy operand takes the tensor's dtype


def test_print_graph_one_node_per_line():
    x = tf.placeholder(tf.float32, shape=(3, 4), name="x")
    w = tf.placeholder(tf.float32, shape=(3, 4), name="w")
    tf.multiply(x, w, name="mul_1")
    assert str(tf.get_default_graph()).splitlines() == [
        "%x = Placeholder(dtype=float32, shape=(3, 4))  # float32[3, 4]",
        "%w = Placeholder(dtype=float32, shape=(3, 4))  # float32[3, 4]",
        "%mul_1 = Mul(%x, %w)  # float32[3, 4]",
    ]


def test_creation_site_is_the_users_line():
    c = tf.constant(1.0) * 2.0  # SITE-LINE
    assert c.op.site.endswith(f"test_staticgraph_core.py:{line_of('SITE-LINE')}")
    assert c.op.inputs[1].op.name == "mul/y" and c.op.inputs[1].op.site == c.op.site


def test_a_variables_nodes_are_created_at_the_users_line():
    before = len(tf.get_default_graph().get_operations())
    tf.Variable(np.zeros((2, 2), np.float32), name="v")  # VARIABLE-LINE
    made = tf.get_default_graph().get_operations()[before:]
    assert [op.type for op in made] == ["Const", "VarHandleOp", "VarIsInitializedOp",
                                        "AssignVariableOp", "ReadVariableOp"]
    assert {op.site for op in made} == {f"{__file__}:{line_of('VARIABLE-LINE')}"}


def test_an_optimizers_nodes_are_created_at_the_minimize_line():
    w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * w)
    before = len(tf.get_default_graph().get_operations())
    tf.train.AdamOptimizer(0.1).minimize(loss)  # MINIMIZE-LINE
    made = tf.get_default_graph().get_operations()[before:]
    assert len(made) > 20
    assert {op.site for op in made} == {f"{__file__}:{line_of('MINIMIZE-LINE')}"}


def test_a_users_own_optimizer_makes_its_nodes_at_its_own_lines():
    class Halving(tf.train.GradientDescentOptimizer):
        def _apply_dense(self, g, v):
            return v.assign_sub(g * 0.5)  # OWN-UPDATE-LINE

    w = tf.Variable([1.0, 2.0], name="w")
    train = Halving(0.1).minimize(tf.reduce_sum(w * w))  # OWN-MINIMIZE-LINE
    mul = tf.get_default_graph().get_operation_by_name("GradientDescent/mul")
    assert mul.site == f"{__file__}:{line_of('OWN-UPDATE-LINE')}"
    assert train.site == f"{__file__}:{line_of('OWN-MINIMIZE-LINE')}"


def test_build_time_dtype_error_names_the_op():
    from common import REGISTRY
    from staticgraph.framework.build import apply
    s = tf.constant(np.array(["2020-01-01", "2020-01-02"], dtype="M8[D]"))
    with pytest.raises(TypeError) as info:
        apply(REGISTRY["Add"], (s, tf.ones((2,))), {})
    assert isinstance(info.value, tf.errors.GraphDTypeError)
    assert "do not combine" in str(info.value) and "in op 'Add' (AddV2)" in str(info.value)


def test_feed_key_must_be_a_tensor_of_the_graph():
    x = tf.placeholder(tf.float32, shape=(), name="x")
    with tf.Session() as s:
        with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
            s.run(x, {"nope:0": 1.0})
        with pytest.raises(TypeError, match="is an Operation"):
            s.run(x, {"x": 1.0})


def test_name_scope_reentry_and_variable_names():
    with tf.name_scope("layer") as scope:
        assert scope == "layer/"
        w = tf.Variable(1.0, name="w")
        a = tf.identity(w)
    with tf.name_scope(scope):                       # "layer/" re-enters exactly
        b = tf.identity(w)
    assert w.op.name == "layer/w" and w.initializer.name == "layer/w/Assign"
    assert w.op.type == "VarHandleOp" and w.initializer.type == "AssignVariableOp"
    assert a.op.name == "layer/Identity" and b.op.name == "layer/Identity_1"
    with tf.name_scope("layer"):
        assert tf.constant(0).op.name == "layer_1/Const"

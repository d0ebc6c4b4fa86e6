"""staticgraph.function: tracing once per signature, caching, retracing warnings, gradients."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.control.function import ConcreteFunction, RetracingWarning


def _f32(*v):
    return np.array(v, dtype=np.float32)


def test_traces_once_per_signature_and_reuses_the_plan():
    calls = []

    @tf.function
    def f(x, y):
        calls.append(1)                       # Python side effects run only while tracing
        return tf.reduce_sum(x * y)

    assert f(_f32(1, 2), _f32(3, 4)) == np.float32(11)
    assert f(_f32(2, 2), _f32(1, 1)) == np.float32(4)
    assert (f.trace_count, len(calls)) == (1, 1)
    assert f(x=_f32(1, 1), y=_f32(2, 2)) == np.float32(4)   # keywords: same signature, same graph
    assert f.trace_count == 1
    f(_f32(1, 2, 3), _f32(1, 1, 1))           # new shape -> new trace
    f(np.array([1, 2], np.float64), np.array([1, 2], np.float64))   # new dtype -> new trace
    assert f.trace_count == f.experimental_get_tracing_count() == 3


def test_python_numbers_are_baked_in_by_value():
    @tf.function(autograph=False)
    def scale(x, k):
        return x * k

    assert np.array_equal(scale(_f32(1, 2), 3.0), _f32(3, 6))
    assert np.array_equal(scale(_f32(1, 2), 3.0), _f32(3, 6))
    assert scale.trace_count == 1
    assert np.array_equal(scale(_f32(1, 2), 4.0), _f32(4, 8))
    assert scale.trace_count == 2
    cf = scale.get_concrete_function(_f32(1, 2), 4.0)
    assert [op.type for op in cf.graph.get_operations()] == ["Placeholder", "Const", "Mul"]


def test_nested_outputs_keyword_and_default_arguments():
    @tf.function
    def f(x, *, bias=1.0):
        return {"sum": tf.reduce_sum(x) + bias, "pair": (x, None)}

    out = f(_f32(1, 2), bias=2.0)
    assert out["sum"] == np.float32(5) and out["pair"][1] is None
    assert np.array_equal(out["pair"][0], _f32(1, 2))
    assert f(_f32(1, 2))["sum"] == np.float32(4)


def test_input_signature_with_none_dims_traces_once():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def double(x):
        return x * 2.0

    assert np.array_equal(double(_f32(1, 2, 3)), _f32(2, 4, 6))
    assert np.array_equal(double([1.0, 2.0]), _f32(2, 4))    # converted to the spec's dtype
    assert double.trace_count == 1
    cf = double.get_concrete_function()
    assert cf.inputs[0].shape.as_list() == [None]
    spec = double.input_signature[0]
    assert spec.is_compatible_with(_f32(1, 2)) and not spec.is_compatible_with(np.ones(2))
    assert spec == tf.TensorSpec([None]) and repr(spec) == \
        "TensorSpec(shape=(None,), dtype=tf.float32, name=None)"


def test_input_signature_mismatch_is_a_type_error_naming_the_argument():
    f = tf.function(lambda x: x + 1.0, input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    with pytest.raises(TypeError, match=r"incompatible with input_signature: argument 'x' is "
                                        r"float64\[3\], expected TensorSpec\(shape=\(None, 2\)"):
        f(np.ones(3))
    g = tf.function(lambda x, y: x + y, input_signature=[tf.TensorSpec([2])])
    with pytest.raises(TypeError, match="input_signature of 1 tensors, got 2 arguments"):
        g(np.ones(2, np.float32), 3)
    with pytest.raises(TypeError, match="<lambda>\\(\\): too many positional arguments"):
        f(np.ones((1, 2), np.float32), 3)


def test_concrete_function_prints_ops_and_generated_code():
    @tf.function
    def f(x):
        return tf.tanh(x) * 2.0

    cf = f.get_concrete_function(_f32(0.5))
    assert isinstance(cf, ConcreteFunction)
    assert str(cf.graph).splitlines() == [
        "%x = Placeholder(dtype=float32, shape=(1,))  # float32[1]",
        "%Tanh = Tanh(%x)  # float32[1]",
        "%mul/y = Const(value=2.0)  # float32[]",
        "%mul = Mul(%Tanh, %mul/y)  # float32[1]"]
    assert cf.code.startswith("def plan_")
    assert "Tanh 'Tanh'" in cf.code and "Mul 'mul'" in cf.code
    assert "test_bridges_function.py" in cf.code          # each line names the user's source line
    assert f.get_concrete_function(_f32(0.1)) is cf       # same signature, same graph
    assert repr(cf) == "<ConcreteFunction (x: float32[1]) with 4 ops>"
    assert cf.n_steps == 2                                # the Const is bound, not a step


def test_get_concrete_function_accepts_tensor_specs():
    f = tf.function(lambda x: x * x)
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float64))
    assert cf.inputs[0].dtype == tf.float64
    assert np.array_equal(cf(np.array([3.0])), np.array([9.0]))
    with pytest.raises(ValueError, match="argument 'x' has shape \\(2, 2\\)"):
        cf(np.ones((2, 2)))
    with pytest.raises(TypeError, match="only accepted by get_concrete_function"):
        f(tf.TensorSpec([1]))


def test_gradients_through_a_traced_function():
    @tf.function
    def loss(w, x, k):
        return tf.reduce_sum(tf.tanh(w * x)) * k

    w, x = _f32(0.3, -0.2), _f32(1.5, 2.0)
    value, (gw, gx, gk) = loss.value_and_gradients(w, x, 2.0)
    expect = 2.0 * (1 - np.tanh(w * x) ** 2)
    assert np.isclose(value, 2.0 * np.tanh(w * x).sum())
    np.testing.assert_allclose(gw, expect * x, rtol=1e-6)
    np.testing.assert_allclose(gx, expect * w, rtol=1e-6)
    assert gk is None                                      # a Python number: no gradient
    assert loss.trace_count == 1                           # same graph, gradient nodes added once
    loss.value_and_gradients(w, x, 2.0)
    assert loss.get_concrete_function(w, x, 2.0).count_ops("OnesLike") == 1


def test_integer_input_gets_no_gradient():
    f = tf.function(lambda x, n: tf.reduce_sum(x) * tf.cast(n, tf.float32))
    _, (gx, gn) = f.value_and_gradients(_f32(1, 2), np.int32(3))
    assert np.array_equal(gx, _f32(3, 3)) and gn is None


def test_retracing_warning_names_the_changed_argument():
    f = tf.function(lambda x, y: x + y)
    y = _f32(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 5):
            f(np.ones(n, np.float32), y)
        assert not [w for w in caught if w.category is RetracingWarning]
        f(np.ones(5, np.float32), y)                     # the 5th trace in 5 calls
    msgs = [str(w.message) for w in caught if w.category is RetracingWarning]
    assert len(msgs) == 1
    assert "5 out of the last 5 calls" in msgs[0]
    assert "argument 'x' (float32[4] -> float32[5])" in msgs[0] and "'y'" not in msgs[0]


def test_no_retracing_warning_when_calls_mostly_hit_the_cache():
    f = tf.function(lambda x: x * 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RetracingWarning)
        for n in range(1, 8):
            for _ in range(3):
                f(np.ones(n, np.float32))
    assert f.trace_count == 7


def test_run_time_error_names_the_node_and_the_user_line():
    f = tf.function(lambda x: tf.reshape(x, [-1, 3]), input_signature=[tf.TensorSpec([None])])
    with pytest.raises(tf.errors.InvalidArgumentError, match="(?s)Reshape.*test_bridges_function.py"):
        f(np.ones(4, np.float32))


def test_as_a_method_each_instance_traces_its_own_graph():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @tf.function
        def __call__(self, x):
            if self.k > 1:              # a Python attribute: decided at trace time
                x = x * float(self.k)
            return x

    a, b = Scaler(3), Scaler(1)
    assert np.array_equal(a(_f32(1, 2)), _f32(3, 6)) and np.array_equal(b(_f32(1, 2)), _f32(1, 2))
    assert Scaler.__call__.trace_count == 2


def test_vjp_weights_each_output_by_its_gradient():
    f = tf.function(lambda x, y: (x * y, tf.reduce_sum(x)))
    x, y = _f32(1, 2), _f32(3, 6)
    cf = f.get_concrete_function(x, y)
    gx, gy = cf.vjp((x, y), [_f32(1, 1), np.float32(2)])
    np.testing.assert_array_equal(gx, y + 2)
    np.testing.assert_array_equal(gy, x)
    gx, gy = cf.vjp((x, y), [_f32(0, 1), np.float32(0)])
    np.testing.assert_array_equal(gx, _f32(0, 6))


# --- called from inside a graph: builds into the caller's graph ----------------------------

def test_a_function_called_on_graph_placeholders_builds_into_that_graph():
    @tf.function
    def f(x, n=2):
        for _ in range(3):
            x = x * 2.0
        return x + 1.0, n

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        y, n = f(x)
        z, _ = f(x, 3)
        dx, = tf.gradients(tf.reduce_sum(y), [x])
        assert y.graph is g and y.name == "PartitionedCall/add:0" and z.name.startswith("PartitionedCall_1/")
        assert n.dtype == tf.int32
        with tf.Session() as sess:
            out = sess.run([y, n, dx], {x: [1.0, 2.0, 3.0]})
    assert out[0].tolist() == [9.0, 17.0, 25.0] and out[1] == 2 and out[2].tolist() == [8.0] * 3


def test_a_function_called_inside_a_loop_body_and_inside_another_function():
    @tf.function
    def step(v, w):
        return v * w + 1.0

    with tf.Graph().as_default():
        w = tf.placeholder(tf.float32, [], name="w")
        _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, step(v, w)),
                             [tf.constant(0), tf.constant(1.0)])
        with tf.Session() as sess:
            assert sess.run(v, {w: 2.0}) == 15.0      # 1 -> 3 -> 7 -> 15

    @tf.function
    def outer(x):
        return step(x, x) * 2.0
    assert outer(np.float32(3.0)) == 20.0


def test_a_graph_call_checks_the_input_signature():
    f = tf.function(lambda x: x * 2.0, input_signature=[tf.TensorSpec([None], tf.float32)])
    with tf.Graph().as_default():
        ok = f(tf.placeholder(tf.float32, [4]))
        assert ok.shape.as_list() == [4]
        with pytest.raises(TypeError, match="Python inputs incompatible with input_signature: "
                                            "argument 'x' is .*expected TensorSpec"):
            f(tf.placeholder(tf.int32, [4]))

"""TF1 surface details: while_loop v1 vs v2 results, gradients' stop/unconnected options,
string tensors as constants, feeds and fetches -- each as TF 2.21's compat.v1 does it."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_while_loop_v1_unpacks_a_single_result_and_v2_keeps_the_list():
    i = tf.constant(0)
    r1 = tf.while_loop(lambda i: i < 5, lambda i: i + 1, [i])
    r2 = tf.compat.v2.while_loop(lambda i: i < 5, lambda i: (i + 1,), [i])
    r3 = tf.compat.v1.while_loop(lambda i: i < 50, lambda i: i + 1, [i], maximum_iterations=7)
    assert isinstance(r1, tf.Tensor) and isinstance(r2, list) and len(r2) == 1
    with tf.Session() as s:
        assert s.run([r1, r2, r3]) == [5, [5], 7]


def test_stop_gradients_treats_tensors_as_constants():
    a, b = tf.constant(2.0), tf.constant(3.0)
    c = a * b
    d = c + a
    ga, gb = tf.gradients(d, [a, b], stop_gradients=[c])
    assert gb is None
    with tf.Session() as s:
        assert s.run(ga) == 1.0


def test_unconnected_gradients_zero_gives_zeros_shaped_like_x():
    d = tf.constant(2.0) * 3.0
    z = tf.constant([1.0, 2.0])
    w = tf.Variable([[1.0]])
    assert tf.gradients(d, [z]) == [None]
    gz, gw = tf.gradients(d, [z, w], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert (gz.name, gw.name) == ("zeros_like:0", "zeros:0")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        vz, vw = s.run([gz, gw])
    np.testing.assert_array_equal(vz, [0.0, 0.0])
    np.testing.assert_array_equal(vw, [[0.0]])
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'sometimes'"):
        tf.gradients(d, [z], unconnected_gradients="sometimes")


def test_string_constants_feeds_and_fetches():
    s = tf.constant("hello")
    v = tf.constant(["x", "yz"])
    p = tf.placeholder(tf.string, [None])
    assert s.dtype == tf.string and p.dtype == tf.string and v.shape.as_list() == [2]
    with tf.Session() as sess:
        got_s, got_v, got_p = sess.run([s, v, p], {p: ["a", "bc"]})
    assert got_s == b"hello"
    assert got_v.dtype == object and got_v.tolist() == [b"x", b"yz"]
    assert got_p.tolist() == ["a", "bc"]
    with pytest.raises(TypeError, match="tensors hold numbers, bools and strings"):
        tf.constant([object()])


# TF 2.21: (is_complex, is_unsigned, size, as_datatype_enum, min, max) of each DType
TF_DTYPE_FACTS = {
    "float16": (False, False, 2, 19, -65504.0, 65504.0),
    "float32": (False, False, 4, 1, -3.4028235e+38, 3.4028235e+38),
    "float64": (False, False, 8, 2, -1.7976931348623157e+308, 1.7976931348623157e+308),
    "int8": (False, False, 1, 6, -128, 127), "int16": (False, False, 2, 5, -32768, 32767),
    "int32": (False, False, 4, 3, -2147483648, 2147483647),
    "int64": (False, False, 8, 9, -9223372036854775808, 9223372036854775807),
    "uint8": (False, True, 1, 4, 0, 255), "bool": (False, False, 1, 10, None, None),
    "string": (False, False, 0, 7, None, None),
}


@pytest.mark.parametrize("name", sorted(TF_DTYPE_FACTS))
def test_dtype_facts_as_tf(name):
    import staticgraph as tf
    d = getattr(tf, name)
    is_complex, unsigned, size, enum, lo, hi = TF_DTYPE_FACTS[name]
    assert (d.is_complex, d.is_unsigned, d.size, d.as_datatype_enum) == (is_complex, unsigned, size, enum)
    assert not d.is_quantized and d.is_numpy_compatible and d.real_dtype is d
    assert d.is_compatible_with(d) and d.is_compatible_with(d.name)
    if lo is None:
        with pytest.raises(TypeError, match=f"^Cannot find minimum value of <dtype: '{name}'> with "
                                            f"type <dtype: '{name}'>.$"):
            d.min
    else:
        assert (d.min, d.max) == (lo, hi) and type(d.min) is type(d.max)
        assert type(d.min) is (int if d.is_integer else d.as_numpy_dtype)


def test_run_options_and_metadata_print_and_carry_fields_as_tf():
    import staticgraph as tf
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    assert str(opts) == "trace_level: FULL_TRACE\n" and opts.trace_level == 3     # TF 2.21
    assert str(tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)) == "opt_level: L0\n"
    assert str(tf.GraphOptions(optimizer_options=tf.OptimizerOptions(
        opt_level=tf.OptimizerOptions.L0))) == "optimizer_options {\n  opt_level: L0\n}\n"
    md = tf.RunMetadata()
    assert type(md.step_stats).__name__ == "StepStats" and md.partition_graphs == []
    assert str(md) == ""
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        with tf.Session() as sess:
            assert sess.run(x[0], options=opts, run_metadata=md) == 1.0

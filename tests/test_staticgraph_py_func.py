"""tf.py_func / tf.numpy_function: names, types, Tout checks and error classes as TF 2.21 prints them."""
import numpy as np
import pytest

import staticgraph as tf
from tests.tf_errors import RUN


pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_single_and_list_outputs():
    x = tf.constant([1., 2.])
    p = tf.py_func(lambda a: (a * 2).astype(np.float32), [x], tf.float32)
    q = tf.numpy_function(lambda a, b: (a + b, a.astype(np.int64)), [x, x], [tf.float32, tf.int64])
    one = tf.py_func(lambda a: np.float32(2.0), [x], [tf.float32])
    assert (p.name, p.op.type, p.dtype, p.shape.ndims) == ("PyFunc:0", "PyFunc", tf.float32, None)
    assert [t.name for t in q] == ["PyFunc_1:0", "PyFunc_1:1"] and q[1].dtype == tf.int64
    assert isinstance(one, list) and len(one) == 1
    assert tf.numpy_function(lambda a: a, [x], tf.float32, name="myfn").name == "myfn:0"
    assert tf.py_func(lambda a: a, [x], tf.float32, stateful=False).op.type == "PyFuncStateless"
    with tf.Session() as s:
        pv, (q0, q1), (o,) = s.run([p, q, one])
    np.testing.assert_array_equal(pv, [2., 4.])
    np.testing.assert_array_equal(q0, [2., 4.])
    assert q1.dtype == np.int64 and o == 2.0
    assert tf.gradients(p, x) == [None]


def test_runs_once_per_run_and_never_folded():
    calls = []
    p = tf.py_func(lambda: calls.append(1) or np.int32(len(calls)), [], tf.int32)
    with tf.Session() as s:
        assert s.run([p, p]) == [1, 1]
        assert s.run(p) == 2


def test_wrong_dtype_and_count_are_tf_errors():
    x = tf.constant([1., 2.])
    double = tf.py_func(lambda a: a.astype(np.float64), [x], tf.float32)
    two = tf.py_func(lambda a: [a, a], [x], tf.float32)
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=RUN + r"0-th value returned by pyfunc_\d+ is double, but expects float\n"
                                 r"\t \[\[\{\{node PyFunc\}\}\]\]\n  created at .*test_staticgraph_py_func"):
            s.run(double)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=RUN + r"pyfunc_\d+ returns 2 values, but expects to see 1 values."):
            s.run(two)
        assert s.run(tf.py_func(lambda a: a, [x], tf.float32)).tolist() == [1., 2.]  # still usable


@pytest.mark.parametrize("exc,cls", [
    (ValueError, "InvalidArgumentError"), (TypeError, "InvalidArgumentError"),
    (StopIteration, "OutOfRangeError"), (NotImplementedError, "UnimplementedError"),
    (IndexError, "UnknownError"), (KeyError, "UnknownError"), (ZeroDivisionError, "UnknownError")])
def test_exceptions_map_to_tf_error_classes(exc, cls):
    def boom(a):
        raise exc("boom")
    p = tf.py_func(boom, [tf.constant(1.)], tf.float32)
    with tf.Session() as s, pytest.raises(getattr(tf.errors, cls), match=exc.__name__) as info:
        s.run(p)
    assert isinstance(info.value.__cause__, exc) and info.value.op is p.op


def test_graph_with_py_func_cannot_be_serialized():
    tf.py_func(lambda a: a, [tf.constant(1.)], tf.float32, name="mine")
    with pytest.raises(TypeError, match=r"cannot serialize node 'mine' \(op type: PyFunc\): it holds "
                                        r"the Python function '.*<lambda>'"):
        tf.to_json(tf.get_default_graph())

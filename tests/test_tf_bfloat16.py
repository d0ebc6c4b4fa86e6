"""bfloat16 / float8 dtypes in staticgraph (issue #30): facts and values recorded from
TensorFlow 2.21 (``tensorflow.python.framework.dtypes``), held as ml_dtypes numpy types."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import staticgraph as tf
from common.shapes import is_float, require_kind
from staticgraph import dtypes

# name: (as_datatype_enum, size, min, max) -- TF 2.21
TF_FACTS = {"bfloat16": (14, 2, -3.38953e+38, 3.38953e+38),
            "float8_e4m3fn": (25, 1, -448.0, 448.0),
            "float8_e5m2": (24, 1, -57344.0, 57344.0)}


@pytest.mark.parametrize("name", sorted(TF_FACTS))
def test_dtype_facts_match_tf(name: str) -> None:
    dt = getattr(dtypes, name)
    enum, size, lo, hi = TF_FACTS[name]
    assert (repr(dt), str(dt), dt.name) == (f"tf.{name}", f"<dtype: '{name}'>", name)
    assert (dt.as_datatype_enum, dt.size, dt.is_floating, dt.is_integer) == (enum, size, True, False)
    assert dt.as_numpy_dtype is getattr(ml_dtypes, name)
    assert dt.real_dtype is dt and tf.as_dtype(name) is dt and tf.as_dtype(dt.as_numpy_dtype) is dt
    assert float(dt.min) == pytest.approx(lo, rel=1e-5) and float(dt.max) == pytest.approx(hi, rel=1e-5)
    assert type(dt.max) is dt.as_numpy_dtype
    assert is_float(dt.as_numpy_dtype)


def test_bfloat16_is_top_level_float8_is_not() -> None:
    assert tf.bfloat16 is dtypes.bfloat16 and tf.compat.v1.bfloat16 is dtypes.bfloat16
    assert not hasattr(tf, "float8_e5m2")       # TF: tf.dtypes.experimental only


def test_float_only_ops_accept_bfloat16() -> None:
    require_kind("pooling", "f", np.zeros(2, ml_dtypes.bfloat16))   # no DTypeError


def test_cast_add_reduce_in_bfloat16_match_tf() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.bfloat16, [3])
        y = tf.cast(tf.constant([1.5, 2.25, 3.3]), tf.bfloat16)
        z = tf.reduce_sum(x + y)
        with tf.Session() as sess:
            s, r, c = sess.run([x + y, z, tf.cast(z, tf.float32)],
                               {x: np.array([1.1, 2.2, 100.7], np.float32)})
    # TF 2.21: array([2.59375, 4.4375, 104], dtype=bfloat16), 111 (bfloat16), 111.0 (float32)
    assert s.dtype == ml_dtypes.bfloat16 and s.astype(np.float32).tolist() == [2.59375, 4.4375, 104.0]
    assert r.dtype == ml_dtypes.bfloat16 and float(r) == 111.0
    assert c.dtype == np.float32 and c == np.float32(111.0)


def test_gradients_flow_through_bfloat16_not_float8() -> None:
    """TF 2.21 (backprop_util.IsTrainable): a bfloat16 gradient exists, a float8 one is None."""
    with tf.Graph().as_default():
        x = tf.constant([[1.5, -2.0], [3.0, 4.0]], dtype=tf.bfloat16)
        (g,) = tf.gradients(tf.reduce_sum(tf.nn.relu(x) * x), x)
        e5 = tf.constant([1.0, 2.0], dtype=dtypes.float8_e5m2)
        assert tf.gradients(tf.reduce_sum(e5 * e5), e5) == [None]
        assert tf.reduce_mean(x).dtype is tf.bfloat16
        with tf.Session() as sess:
            out = sess.run(g)
    # TF 2.21: [[3, 0], [6, 8]] in bfloat16
    assert out.dtype == ml_dtypes.bfloat16 and out.astype(np.float32).tolist() == [[3, 0], [6, 8]]


def test_unary_float_ops_keep_bfloat16() -> None:
    """exp/elu stay bfloat16 (numpy alone would promote bfloat16 with float16 to float32)."""
    with tf.Graph().as_default():
        x = tf.constant([-9.0, 7.0, -5.0, 3.0, -1.0], dtype=tf.bfloat16)
        y, z = tf.nn.elu(x), tf.exp(x)
        assert (y.dtype, z.dtype) == (tf.bfloat16, tf.bfloat16)
        with tf.Session() as sess:
            elu, exp = sess.run([y, z])
    # TF 2.21, both bfloat16
    assert elu.dtype == ml_dtypes.bfloat16 and exp.dtype == ml_dtypes.bfloat16
    assert elu.astype(np.float32).tolist() == [-1.0, 7.0, -0.9921875, 3.0, -0.6328125]
    assert exp.astype(np.float32).tolist() == [0.00012302398681640625, 1096.0, 0.006744384765625,
                                               20.125, 0.3671875]

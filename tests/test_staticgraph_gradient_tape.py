"""``tf.GradientTape`` in graph mode (issue #30): what TF 2.21's ``compat.v1`` graph mode gives,
recorded there -- values, which sources get ``None``, the one-use rule, nesting."""
import numpy as np
import pytest

import staticgraph as tf


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def test_watched_tensor_and_accessed_variable(graph):
    x, v = tf.constant(3.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x * v
    dx, dv = tape.gradient(y, [x, v])
    assert _run([dx, dv]) == [12.0, 9.0]          # TF 2.21: [12.0, 9.0]
    with pytest.raises(RuntimeError, match=r"^A non-persistent GradientTape can only be used to "
                                           r"compute one set of gradients \(or jacobians\)$"):
        tape.gradient(y, x)


def test_unwatched_tensor_and_outside_ops_give_none(graph):
    x, v = tf.constant(3.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        z = x * v
    gx, gv = tape.gradient(z, [x, v])
    assert gx is None and _run(gv) == 3.0
    before = x * x                                   # built before the tape: a constant to it
    with tf.GradientTape() as tape:
        tape.watch(x)
        w = before * 2.0
    assert tape.gradient(w, x) is None
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        r = x * v
    assert tape.gradient(r, v) is None
    assert tape.watched_variables() == ()


def test_structure_and_unconnected_zero(graph):
    x, v = tf.constant(3.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        u = x * 2.0
    out = tape.gradient(u, {"a": x, "b": [v]}, unconnected_gradients="zero")
    assert set(out) == {"a", "b"} and isinstance(out["b"], list)
    assert _run(out) == {"a": 2.0, "b": [0.0]}


def test_nested_tapes_second_derivative(graph):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            q = x * x * x
        dq = inner.gradient(q, x)
    d2 = outer.gradient(dq, x)
    assert _run([dq, d2]) == [27.0, 18.0]             # TF 2.21: 27.0, 18.0
    assert _run(outer.gradient(q, x)) == 27.0         # persistent: asked again


def test_stop_recording(graph):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            s = x * 2.0
        u = s * x
    assert _run(tape.gradient(u, x)) == 6.0           # TF 2.21: 6.0 (s is a constant)
    with pytest.raises(ValueError, match="Tape must be recording"):
        with tape.stop_recording():
            pass


def test_watched_variables_and_reentry(graph):
    v, w = tf.Variable(1.0), tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape:
        y = v * w
        with pytest.raises(ValueError, match="Tape is still recording"):
            tape.__enter__()
    assert tape.watched_variables() == (v,)


def test_jacobian(graph):
    x, v = tf.constant(3.0), tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        m = tf.stack([x, x * x, x * v])
        mm = tf.reshape(tf.stack([m, m * 2.0]), [2, 3])
    jx, jv = tape.jacobian(mm, [x, v])
    assert jx.shape.as_list() == [2, 3]
    got_x, got_v = _run([jx, jv])
    np.testing.assert_array_equal(got_x, [[1, 6, 2], [2, 12, 4]])
    np.testing.assert_array_equal(got_v, [[0, 0, 3], [0, 0, 6]])

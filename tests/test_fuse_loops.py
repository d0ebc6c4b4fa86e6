"""Fused elementwise chains inside loop bodies (``compiler/fuse.py``: ``loop_kernel``).

A ``while_loop``'s body and its gradient loop's body run once per iteration, so their
chains fuse from a small size (``LOOP_MIN_ELEMENTS``, lowered to 1 here), transcendentals
included under ``PassConfig(fast_math=True)`` (``common.vmath``: within a few ulps of numpy;
with ``fast_math=False`` the fused loop gives numpy's bits).  Chain inputs may be column
slices (an LSTM's ``Split`` gates), read where they are.
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.compiler import PassConfig, fuse
from tests.test_compiler_fuse import assert_bitwise

pytestmark = pytest.mark.skipif(not fuse.available(), reason="numba is not installed")

FAST, EXACT, OFF = PassConfig(), PassConfig(fast_math=False), PassConfig(fuse=False)
TOL = {np.float32: dict(rtol=2e-6, atol=2e-7), np.float64: dict(rtol=1e-14, atol=1e-15)}
"""A few ulps of the values' scale (3 steps of a recurrence, and the gradients' sums)."""


@pytest.fixture
def fused(monkeypatch):
    """Fuse every loop chain, whatever its size, when the loop is lowered."""
    monkeypatch.setattr(fuse, "LOOP_MIN_ELEMENTS", 1)
    monkeypatch.setattr(fuse, "LOOP_MIN_STEPS", 2)
    monkeypatch.setattr(fuse, "FUSE_AFTER_S", 0.0)


def _rnn(cell: str, dtype, xs: np.ndarray | None = None):
    """A 3-step ``dynamic_rnn`` (batch 4, input 3, hidden 8): loss and its gradients with
    respect to the inputs and every weight -- ``(fetches, feed)``."""
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((3, 4, 3)).astype(dtype) if xs is None else xs
    tf.reset_default_graph()
    tf.set_random_seed(1)          # the same initial weights in every Session
    x = tf.placeholder(dtype, (None, 4, 3), name="xs")
    make = {"lstm": lambda: tf.nn.rnn_cell.BasicLSTMCell(8, forget_bias=0.5),
            "gru": lambda: tf.nn.rnn_cell.GRUCell(8)}[cell]
    out, _ = tf.nn.dynamic_rnn(make(), x, dtype=dtype, time_major=True)
    loss = tf.reduce_sum(out * out)
    weights = tf.trainable_variables()
    return [loss, *tf.gradients(loss, [x, *weights])], {x: xs}


def _run(fetches, feed, config):
    """``fetches`` in a Session with ``config``, and the compiled plan's ``explain()``."""
    with np.errstate(all="ignore"):
        sess = tf.Session(config=config)
        sess.run(tf.global_variables_initializer())
        got = sess.run(fetches, feed)
        return got, sess.compiled(fetches, feed).explain()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_a_fused_rnn_body_and_its_gradient_loop_give_the_unfused_values(fused, cell, dtype):
    """fast_math: within a few ulps; without it: numpy's bits, gradients included."""
    fetches, feed = _rnn(cell, dtype)
    want, plain = _run(fetches, feed, OFF)
    got, text = _run(fetches, feed, FAST)
    assert "FusedElementwise" not in plain
    assert text.count("FusedElementwise") >= 2            # the body and the gradient body
    assert "vmath.tanh" in text and ("vmath.sigmoid" in text or cell == "gru")
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, **TOL[dtype])
    exact, text = _run(fetches, feed, EXACT)
    assert "FusedElementwise" in text and "vmath" not in text
    assert_bitwise(exact, want)


@pytest.mark.parametrize("config", [FAST, EXACT])
def test_nan_and_inf_pass_through_a_fused_loop_as_through_numpy(fused, config):
    xs = np.random.default_rng(2).standard_normal((3, 4, 3)).astype(np.float32)
    xs[0, 0, 0], xs[1, 2, 1], xs[2, 3, 2] = np.nan, np.inf, -np.inf
    fetches, feed = _rnn("lstm", np.float32, xs)
    want, _ = _run(fetches, feed, OFF)
    got, text = _run(fetches, feed, config)
    assert "FusedElementwise" in text
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_array_equal(np.isinf(g), np.isinf(w))
        np.testing.assert_allclose(g, w, **TOL[np.float32])


def test_a_stateful_step_in_the_body_is_never_moved(fused):
    """``v += y`` between two chains: the first chain runs before it, the second (reading
    ``v``) after it -- each iteration sees the update of its own step, as unfused."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, (4, 8), name="x")
    v = tf.Variable(np.ones((4, 8), np.float32), name="v")

    def body(i, h):
        y = (h * 0.5 + x) * h
        with tf.control_dependencies([v.assign_add(y)]):
            z = (v.read_value() - y) * 2.0 + h
        return i + 1, z
    _, h = tf.while_loop(lambda i, h: i < 3, body, [tf.constant(0), x])
    feed = {x: np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32)}
    results = []
    for config in (OFF, EXACT):
        sess = tf.Session(config=config)
        sess.run(tf.global_variables_initializer())
        results.append([sess.run(h, feed), sess.run(v)])
        text = sess.compiled(h, feed).explain()
    assert_bitwise(results[1], results[0])
    body = text[text.index("def while_"):]
    fused_at = [n for n, line in enumerate(body.splitlines()) if "FusedElementwise" in line]
    assign_at = [n for n, line in enumerate(body.splitlines()) if "AssignAddVariableOp" in line]
    assert len(fused_at) == 2 and len(assign_at) == 1
    assert fused_at[0] < assign_at[0] < fused_at[1]


def test_explain_shows_the_fused_step_and_its_kernel(fused):
    fetches, feed = _rnn("lstm", np.float32)
    _, text = _run(fetches, feed, FAST)
    assert "= bf" in text and "# FusedElementwise 'basic_lstm_cell/Mul_2'" in text
    assert "def fused_0(rows, cols, " in text      # the numba loop's source, under its caller
    assert "# Sigmoid 'basic_lstm_cell/Sigmoid'" in text
    # the fused step reads a view of the gradient loop's TensorArray buffer, and returns
    # arrays of its own: the buffer is still written in place, not copied per iteration
    assert "TensorListZeroItem 'gradients/TensorArrayWrite_grad/TensorListZeroItem' (in place)" \
        in text


def test_a_loop_is_fused_only_once_it_is_hot(monkeypatch):
    """The loop kernel runs unfused, adding up its time; past FUSE_AFTER_S it is fused."""
    monkeypatch.setattr(fuse, "LOOP_MIN_ELEMENTS", 1)
    monkeypatch.setattr(fuse, "LOOP_MIN_STEPS", 2)
    monkeypatch.setattr(fuse, "FUSE_AFTER_S", 3600.0)
    fetches, feed = _rnn("lstm", np.float32)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    first = sess.run(fetches, feed)
    exe = sess.compiled(fetches, feed)
    loops = [s.kernel for s in exe.plan.steps if isinstance(s.kernel, fuse.HotLoop)]
    assert len(loops) == 2 and "FusedElementwise" not in exe.explain()
    monkeypatch.setattr(fuse, "FUSE_AFTER_S", 1e-12)
    second = sess.run(fetches, feed)               # runs unfused, then tiers up
    assert all(loop.make is None for loop in loops)
    assert exe.explain().count("FusedElementwise") == 2
    third = sess.run(fetches, feed)
    assert_bitwise(second, first)
    for g, w in zip(third, first):
        np.testing.assert_allclose(g, w, **TOL[np.float32])


def test_a_loop_without_chains_keeps_its_plain_kernel(fused):
    tf.reset_default_graph()
    n = tf.placeholder(tf.int32, (), name="n")
    i = tf.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)])
    sess = tf.Session()
    assert sess.run(i, {n: 10}) == 10
    step = next(s for s in sess.compiled(i, {n: 10}).plan.steps if s.op.kind.endswith("While"))
    assert not isinstance(step.kernel, fuse.HotLoop) and hasattr(step.kernel, "__globals__")


@pytest.mark.parametrize("view", ["columns", "transposed", "reversed", "broadcast", "3-d"])
def test_a_fused_kernel_reads_views_of_any_strides(fused, view):
    """Column slices are read in place; other strides (a transpose, negative or zero
    strides) through a copy: the same values either way."""
    rng = np.random.default_rng(4)
    base = rng.standard_normal((6, 40)).astype(np.float32)
    shape = (2, 3, 20) if view == "3-d" else (6, 20)
    x_val = {"columns": lambda: base[:, 3:23],
             "transposed": lambda: np.ascontiguousarray(base[:, :20].T).T,  # last stride: a row
             "reversed": lambda: base[::-1, :20],
             "broadcast": lambda: np.broadcast_to(base[0, :20], (6, 20)),
             "3-d": lambda: base[:, 5:25].reshape(shape)}[view]()
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, shape, name="x")
    y = tf.placeholder(tf.float32, shape, name="y")
    _, out = tf.while_loop(lambda i, h: i < 2, lambda i, h: (i + 1, (h * x + y) * 0.5 - x),
                           [tf.constant(0), y])
    feed = {x: x_val, y: rng.standard_normal(shape).astype(np.float32)}
    want = tf.Session(config=OFF).run(out, feed)
    sess = tf.Session(config=EXACT)
    assert_bitwise([sess.run(out, feed)], [want])
    assert "FusedElementwise" in sess.compiled(out, feed).explain()

"""The ``loops`` pass (``staticgraph/compiler/passes/loops.py``): a ``while_loop``'s input
products hoisted out of the iteration, its gradient loop's weight gradients batched over steps.

The summation order changes, so optimised results are compared with float64 references
(the same graph in float64, unoptimised) within a tolerance; ``PassConfig(loops=False)`` must
give the unoptimised plan's (``PassConfig.off()``'s) exact bits.  A loop that writes a variable
is never hoisted from.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.compiler import PassConfig
from staticgraph.compiler.passes import loops, options


@pytest.fixture(autouse=True)
def seeded(fresh_graph):
    tf.set_random_seed(0)


def _lstm(dtype, steps=7, batch=3, inp=4, units=5, inputs=True):
    """A dynamic_rnn LSTM's loss and gradients (kernel, bias, and inputs unless not
    ``inputs``), fed the seeded data."""
    rng = np.random.RandomState(1)
    xs = tf.placeholder(dtype, (None, batch, inp), name="xs")
    cell = tf.nn.rnn_cell.BasicLSTMCell(units, forget_bias=0.0)
    out, _ = tf.nn.dynamic_rnn(cell, xs, dtype=dtype, time_major=True)
    loss = tf.reduce_sum(out * out)
    kernel, bias = tf.global_variables()
    init = tf.global_variables_initializer()
    feeds = {xs: rng.randn(steps, batch, inp).astype(dtype.as_numpy_dtype)}
    weights = {kernel: 0.3 * rng.randn(inp + units, 4 * units), bias: 0.1 * rng.randn(4 * units)}
    return [loss] + tf.gradients(loss, [kernel, bias] + [xs] * inputs), feeds, init, weights


def _run(build, dtype, config):
    """(values, explain text) of ``build``'s program in a fresh graph, Session ``config``."""
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        fetches, feeds, init, weights = build(dtype)
        with tf.Session(config=config) as s:
            s.run(init)
            for var, value in weights.items():
                var.load(value.astype(dtype.as_numpy_dtype), s)
            first = s.run(fetches, feeds)
            again = s.run(fetches, feeds)
            for a, b in zip(first, again):
                np.testing.assert_array_equal(a, b)       # a run leaves nothing behind
            return first, s.explain(fetches, feeds)


def test_lstm_hoists_the_input_product_and_batches_the_weight_gradient():
    got, text = _run(_lstm, tf.float32, None)
    assert "_hoist(" in text and "_accumulate(" in text and "_add_rows(" in text
    want, _ = _run(_lstm, tf.float64, PassConfig.off())
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


def test_only_the_recurrent_piece_of_the_input_gradient_is_multiplied():
    # d concat([x_t, h]) = dgates @ kernel^T; without the inputs' gradient only h's piece
    # (the kernel's last 5 rows) flows on, and only those are multiplied
    build = lambda d: _lstm(d, inputs=False)
    got, text = _run(build, tf.float32, None)
    assert "@ g47[:, 4:9]" in text and "SplitPart" in text and "split_part" not in text
    want, _ = _run(build, tf.float64, PassConfig.off())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
    exact, text = _run(build, tf.float32, PassConfig(loops=False))
    assert "[:, 4:9]" not in text
    floor, _ = _run(build, tf.float32, PassConfig.off())
    for a, b in zip(exact, floor):
        np.testing.assert_array_equal(a, b)
    # with the inputs' gradient both pieces are read: one product, cut into views
    _, text = _run(_lstm, tf.float32, None)
    parts = [line for line in text.splitlines() if "# SplitPart" in line]
    assert "[:, 4:9]" not in text and len(parts) == 2 and "loops pass" not in "".join(parts)


def test_the_inputs_row_gradients_are_added_in_place():
    # d xs[t] is a ScatterLike of xs's shape; the loop adds its row into the sum in place
    # (not a [steps, batch, inputs] array of zeros and a sum of all of it, every step)
    got, text = _run(lambda d: _lstm(d, steps=9), tf.float32, None)
    assert re.search(r"a\d+\[s\d+\] \+= g\d+  # ScatterLike .* \(loops pass\)", text)
    want, _ = _run(lambda d: _lstm(d, steps=9), tf.float64, PassConfig.off())
    np.testing.assert_allclose(got[-1], want[-1], rtol=2e-5, atol=2e-6)
    _, text = _run(lambda d: _lstm(d, steps=9), tf.float32, PassConfig(loops=False))
    assert not re.search(r"\] \+= g\d+  # ScatterLike", text)


def test_loops_off_gives_the_unoptimised_plans_exact_bits():
    exact, text = _run(_lstm, tf.float32, PassConfig(loops=False))
    assert "_hoist(" not in text and "_accumulate(" not in text and "_add_rows(" not in text
    floor, _ = _run(_lstm, tf.float32, PassConfig.off())
    for a, b in zip(exact, floor):
        np.testing.assert_array_equal(a, b)
    with options(loops=False):
        again, text = _run(_lstm, tf.float32, None)
    assert "_hoist(" not in text
    for a, b in zip(again, floor):
        np.testing.assert_array_equal(a, b)


def test_many_steps_batch_in_chunks_with_a_last_partial_one(monkeypatch):
    monkeypatch.setattr(loops, "CHUNK_BYTES", 1)      # one step per chunk
    monkeypatch.setattr(loops, "GRAD_CHUNK_BYTES", 1)
    one, text = _run(lambda d: _lstm(d, steps=11), tf.float32, None)
    assert "if len(gc" in text and "== 1:" in text and "< 1:" in text
    # a gradient step holds G_t (3 x 20 float32, held and copied) and S_t (3 x 9, copied):
    # 588 bytes, so 4 of them a chunk (4 + 4 + 3); a hoisted step's product 3 x 20: 9 + 2
    monkeypatch.setattr(loops, "CHUNK_BYTES", 4 * 588)
    monkeypatch.setattr(loops, "GRAD_CHUNK_BYTES", 4 * 588)
    four, text = _run(lambda d: _lstm(d, steps=11), tf.float32, None)
    assert "== 4:" in text and "< 9:" in text
    want, _ = _run(lambda d: _lstm(d, steps=11), tf.float64, PassConfig.off())
    for a, b, w in zip(one, four, want):
        np.testing.assert_allclose(a, w, rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(b, w, rtol=2e-5, atol=2e-6)


def _indexed(dtype, steps=6):
    """``h = tanh(xs[t] @ W + (V @ xs[t]) @ W + h @ U)``: products of ``xs``'s rows by a
    captured constant and by a variable on the left, and weight gradients of both forms
    (``U``'s ``sum h^T G``, ``V``'s ``sum G xs[t]^T``)."""
    rng = np.random.RandomState(2)
    xs = tf.placeholder(dtype, (steps, 3, 4), name="xs")
    w = tf.constant(rng.randn(4, 5), dtype=dtype)
    u = tf.Variable(0.3 * rng.randn(5, 5).astype(dtype.as_numpy_dtype), name="u")
    v = tf.Variable(0.3 * rng.randn(3, 3).astype(dtype.as_numpy_dtype), name="v")

    def body(t, h):
        x = xs[t]
        return t + 1, tf.tanh(tf.matmul(x, w) + tf.matmul(tf.matmul(v, x), w) + tf.matmul(h, u))
    _, h = tf.while_loop(lambda t, h: t < steps, body, [0, tf.zeros([3, 5], dtype)])
    loss = tf.reduce_sum(h)
    return [h] + tf.gradients(loss, [u, v, xs]), {xs: rng.randn(steps, 3, 4)}, \
        tf.global_variables_initializer(), {}


def test_a_row_times_a_captured_weight_indexes_one_product():
    got, text = _run(_indexed, tf.float32, None)
    assert text.count("= _hoist(") == 2              # xs[t] @ w and v @ xs[t]
    sums = [line for line in text.splitlines() if "_accumulate(" in line]
    assert sum(line.endswith(", 0)") for line in sums) == 2    # u's: rows (in and after the loop)
    assert sum(line.endswith(", 1)") for line in sums) == 2    # v's: columns
    want, _ = _run(_indexed, tf.float64, PassConfig.off())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


def test_a_loop_that_writes_a_variable_is_not_hoisted_from():
    rng = np.random.RandomState(3)
    xs = tf.placeholder(tf.float32, (4, 2, 3), name="xs")
    w = tf.Variable(rng.randn(3, 2).astype(np.float32), name="w")

    def body(t, acc):
        y = tf.matmul(xs[t], w.read_value())
        with tf.control_dependencies([y]):
            bump = w.assign_add(tf.ones([3, 2]))      # every step's product sees a new w
        with tf.control_dependencies([bump]):
            return t + 1, acc + y
    _, acc = tf.while_loop(lambda t, a: t < 4, body, [0, tf.zeros([2, 2])])
    x = rng.randn(4, 2, 3).astype(np.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        w0 = s.run(w)
        text = s.explain(acc, {xs: x})
        got = s.run(acc, {xs: x})
    assert "_hoist(" not in text
    want = sum(x[t] @ (w0 + t) for t in range(4))
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_a_bias_gradient_adds_its_rows_in_place(dtype):
    rng = np.random.RandomState(4)
    g = rng.randn(6, 5).astype(dtype)
    for rows in (g, g[::2], np.asfortranarray(g)):     # BLAS, and the sum for other layouts
        acc = rng.randn(5).astype(dtype)
        want = acc.astype(np.float64) + rows.astype(np.float64).sum(0)
        same = acc
        loops._add_rows(acc, rows)
        assert acc is same and acc.dtype == dtype
        np.testing.assert_allclose(acc, want, rtol=1e-2 if dtype == np.float16 else 1e-5)

"""The LSTM and GRU cells' maths, written once in ``common.layers`` for both engines.

PyTorch stacks an LSTM's gates i, f, g, o; TF's cells i, j (the candidate), f, o.  The same
blocks in either order must give the same step; the GRU's two reset conventions (PyTorch:
after the recurrent matmul, TF: before) are the caller's ``candidate(r)``.
"""
from __future__ import annotations

import numpy as np

from common import layers, numpy_namespace

F = numpy_namespace()


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_lstm_cell_reads_the_gates_in_the_order_it_is_given():
    rng = np.random.default_rng(0)
    i, f, g, o = (rng.standard_normal((3, 5)) for _ in range(4))
    c = rng.standard_normal((3, 5))
    h_t, c_t = layers.lstm_cell(F, np.concatenate([i, f, g, o], -1), c, layers.TORCH_LSTM_GATES)
    h_f, c_f = layers.lstm_cell(F, np.concatenate([i, g, f, o], -1), c, layers.TF_LSTM_GATES)
    np.testing.assert_array_equal(h_t, h_f)
    np.testing.assert_array_equal(c_t, c_f)
    want_c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    np.testing.assert_allclose(c_t, want_c, rtol=1e-12)
    np.testing.assert_allclose(h_t, _sigmoid(o) * np.tanh(want_c), rtol=1e-12)


def test_lstm_cell_tf_options_forget_bias_peepholes_and_clip():
    rng = np.random.default_rng(1)
    i, j, f, o = (rng.standard_normal((2, 4)) for _ in range(4))
    c = rng.standard_normal((2, 4))
    w_f, w_i, w_o = (rng.standard_normal(4) for _ in range(3))
    h, c_new = layers.lstm_cell(F, np.concatenate([i, j, f, o], -1), c, layers.TF_LSTM_GATES,
                                forget_bias=1.0, peepholes=(w_f, w_i, w_o), cell_clip=0.5)
    want_c = np.clip(_sigmoid(f + w_f * c + 1.0) * c + _sigmoid(i + w_i * c) * np.tanh(j), -0.5, 0.5)
    np.testing.assert_allclose(c_new, want_c, rtol=1e-12)
    np.testing.assert_allclose(h, _sigmoid(o + w_o * want_c) * np.tanh(want_c), rtol=1e-12)


def test_gru_cell_takes_either_reset_convention_as_the_candidate():
    rng = np.random.default_rng(2)
    h, x_n, h_n = (rng.standard_normal((3, 4)) for _ in range(3))
    r_pre, z_pre = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    w = rng.standard_normal((4, 4))
    r, z = _sigmoid(r_pre), _sigmoid(z_pre)
    after = layers.gru_cell(F, h, np.concatenate([r_pre, z_pre], -1), lambda r: x_n + r * h_n)
    np.testing.assert_allclose(after, z * h + (1 - z) * np.tanh(x_n + r * h_n), rtol=1e-12)
    before = layers.gru_cell(F, h, np.concatenate([r_pre, z_pre], -1), lambda r: x_n + (r * h) @ w)
    np.testing.assert_allclose(before, z * h + (1 - z) * np.tanh(x_n + (r * h) @ w), rtol=1e-12)

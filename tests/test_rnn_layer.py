"""``LSTMLayer``: dyngraph's float32 ``nn.LSTM`` over a padded batch as one node per layer and
direction (``common/ops/rnn_layer.py``), against the per-step path it replaces.

The per-step path (the fused cell stepped in Python) is still what a packed batch runs, so a
packed batch of equal lengths is the reference: the same weights, values and gradients --
first and second order -- within a few float32 ulps (only ``W_hh``'s gradient sums its
steps in another order: one product instead of one per step).  The registry tests check the
ops themselves (float64, finite differences, both engines, second order).
"""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
from common import REGISTRY, fastpath
from common.ops import cells, rnn_layer
from dyngraph.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from tests.gradcheck import numeric_grad

TOL = dict(rtol=2e-5, atol=2e-6)


def _lstm(seed: int, **kw):
    torch.manual_seed(seed)
    return torch.nn.LSTM(kw.pop("input_size", 3), kw.pop("hidden_size", 4), **kw)


def _inputs(m, steps: int, batch: int, seed: int, with_state: bool):
    rng = np.random.default_rng(seed)
    shape = (batch, steps, m.input_size) if m.batch_first else (steps, batch, m.input_size)
    x = torch.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
    if not with_state:
        return x, None
    dirs = 2 if m.bidirectional else 1
    return x, tuple(torch.tensor(rng.standard_normal((m.num_layers * dirs, batch, m.hidden_size))
                                 .astype(np.float32), requires_grad=True) for _ in range(2))


def _run(m, x, hx, packed: bool):
    """``(out, h_n, c_n)``: padded (the layer op) or packed with equal lengths (per step)."""
    if not packed:
        out, (h, c) = m(x, hx)
        return out, h, c
    steps = x.shape[1] if m.batch_first else x.shape[0]
    batch = x.shape[0] if m.batch_first else x.shape[1]
    p = pack_padded_sequence(x, [steps] * batch, batch_first=m.batch_first)
    out, (h, c) = m(p, hx)
    return pad_packed_sequence(out, batch_first=m.batch_first)[0], h, c


def _loss(out, h, c):
    return (out * out).sum() + (h * 2).sum() + (c * 3).sum()


def _values_and_grads(m, x, hx, packed: bool) -> list[np.ndarray]:
    out, h, c = _run(m, x, hx, packed)
    leaves = [x, *(hx or ()), *m.parameters()]
    grads = torch.autograd.grad(_loss(out, h, c), leaves)
    return [t.detach().numpy() for t in (out, h, c, *grads)]


CONFIGS = [dict(), dict(num_layers=2), dict(bidirectional=True), dict(bias=False),
           dict(num_layers=2, bidirectional=True, batch_first=True),
           dict(input_size=16, hidden_size=128)]     # 16 x 128 state: the numba kernels


@pytest.mark.parametrize("kw", CONFIGS,
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "1 layer")
@pytest.mark.parametrize("with_state", [False, True], ids=["hx=None", "hx given"])
def test_values_and_gradients_are_the_per_step_paths(kw, with_state):
    m = _lstm(0, **kw)
    batch = 16 if kw.get("hidden_size") == 128 else 2
    x, hx = _inputs(m, 5, batch, 1, with_state)
    layer, per_step = (_values_and_grads(m, x, hx, packed) for packed in (False, True))
    for a, b in zip(layer, per_step):
        assert a.shape == b.shape and a.dtype == b.dtype == np.float32
        np.testing.assert_allclose(a, b, **TOL)


def test_the_outputs_come_from_one_node_per_layer_and_direction():
    """PyTorch 2.13's names: the layer output is MkldnnRnnLayerBackward0, h_n and c_n stack
    the layers' finals, a bidirectional output concatenates its directions."""
    m = _lstm(0, num_layers=2)
    out, (h, c) = m(torch.randn(4, 2, 3))
    assert type(out.grad_fn).__name__ == "MkldnnRnnLayerBackward0"
    assert type(h.grad_fn).__name__ == type(c.grad_fn).__name__ == "StackBackward0"
    layer0 = out.grad_fn.next_functions[0][0]        # gx: the projection of layer 0's output
    assert type(layer0).__name__ != "StackBackward0"
    out, _ = _lstm(0, bidirectional=True)(torch.randn(4, 2, 3))
    assert type(out.grad_fn).__name__ == "CatBackward0"
    assert {type(n).__name__ for n, _ in out.grad_fn.next_functions} == {"MkldnnRnnLayerBackward0"}
    out, _ = _lstm(0, batch_first=True)(torch.randn(2, 4, 3))
    assert type(out.grad_fn).__name__ == "TransposeBackward0"


def test_float64_and_packed_batches_keep_the_per_step_path():
    """As PyTorch's: oneDNN's layer is float32 only (a float64 LSTM's output is a
    StackBackward0 of the steps); a packed batch shrinks its rows step by step."""
    m = _lstm(0).double()
    out, _ = m(torch.randn(4, 2, 3, dtype=torch.float64))
    assert type(out.grad_fn).__name__ == "StackBackward0"
    p = pack_padded_sequence(torch.randn(4, 2, 3), [4, 2])
    out, _ = _lstm(0)(p)
    assert type(out.data.grad_fn).__name__ == "CatBackward0"


def test_second_order_is_the_per_step_paths():
    """``create_graph``: d/dx of |d loss / dx|^2, and the parameters', through both paths
    (the layer's runs LSTMLayerGrad's adjoint, then the workspace's cotangent back into
    LSTMLayer's per-step rule form)."""
    m = _lstm(2, num_layers=2, bidirectional=True)
    x, hx = _inputs(m, 4, 2, 3, True)
    results = []
    for packed in (False, True):
        gx, = torch.autograd.grad(_loss(*_run(m, x, hx, packed)), x, create_graph=True)
        leaves = [x, *hx, *m.parameters()]
        results.append([g.detach().numpy() for g in torch.autograd.grad((gx * gx).sum(), leaves)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_the_compiled_kernels_and_the_numpy_code_agree(monkeypatch):
    """From JIT_MIN state elements the step kernels (vmath's sigmoid/tanh) run; the numpy
    code below it, in exact mode, or without numba: within a few ulps of each other."""
    if fastpath.jit_module("common.cells_jit") is None:
        pytest.skip("numba missing: the numpy code only")
    rng = np.random.default_rng(4)
    steps, batch, n = 3, 16, 128
    args = [rng.standard_normal(s).astype(np.float32)
            for s in ((steps, batch, 4 * n), (batch, n), (batch, n), (n, 4 * n), (4 * n,))]
    args[3] *= 0.1
    g = [rng.standard_normal(s).astype(np.float32)
         for s in ((steps, batch, n), (batch, n), (batch, n))]
    runs = []
    for jit in (True, False):
        if not jit:
            monkeypatch.setitem(fastpath.JIT_MODULES, "common.cells_jit", None)
        for reverse in (False, True):
            out = rnn_layer._lstm_layer(*args, reverse=reverse)
            grads = rnn_layer._lstm_layer_grad(out[3], args[2], args[3], *g, reverse=reverse)
            runs.append(list(out) + list(grads))
    for a, b in zip(runs[0] + runs[1], runs[2] + runs[3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_exact_mode_gives_the_per_step_cells_bits():
    """In exact mode both paths run the composite cells' numpy code: the same bits, forward."""
    previous = cells.set_exact(True)
    try:
        m = _lstm(5, input_size=8, hidden_size=64)
        x, hx = _inputs(m, 6, 32, 6, True)
        a, b = (_run(m, x, hx, packed) for packed in (False, True))
        for p, q in zip(a, b):
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    finally:
        cells.set_exact(previous)


def test_a_gradient_through_the_workspace_matches_finite_differences():
    """The workspace's cotangent is None on a first-order backward (no zero array of its
    size); a loss that reads it takes the rule's per-step form -- checked here directly."""
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(s) for s in ((3, 2, 8), (2, 2), (2, 2), (2, 8), (8,))]
    weights = rng.standard_normal((3, 2, 12))
    for reverse in (False, True):
        ts = [torch.tensor(a, requires_grad=True) for a in arrays]
        out, h, c, ws = torch.lstm_layer(*ts, reverse=reverse)
        assert ws.requires_grad
        ((ws * torch.tensor(weights)).sum() + out.sum() + (h * c).sum()).backward()

        def f():
            o, hh, cc, w = rnn_layer._lstm_layer(*arrays, reverse=reverse)
            return float((w * weights).sum() + o.sum() + (hh * cc).sum())
        for t, a in zip(ts, arrays):
            np.testing.assert_allclose(t.grad.numpy(), numeric_grad(f, a), rtol=1e-5, atol=1e-7)


def test_one_gradient_call_serves_every_input_and_the_workspace_gets_none(monkeypatch):
    seen = []
    op = REGISTRY["LSTMLayerGrad"]

    def spy(*xs, _impl=op.impl, **attrs):
        seen.append(xs)
        return _impl(*xs, **attrs)
    monkeypatch.setattr(op, "impl", spy)
    from dyngraph.autograd import engine
    monkeypatch.setattr(engine, "_BOUND_F", None)
    ts = [torch.randn(*s, requires_grad=True) for s in ((4, 2, 12), (2, 3), (2, 3), (3, 12), (12,))]
    out, h, c, _ = torch.lstm_layer(*ts)
    (out.sum() + h.sum() + c.sum()).backward()
    assert len(seen) == 1 and all(t.grad is not None for t in ts)


def test_static_second_order_needs_a_known_number_of_steps():
    import staticgraph as tf
    from common.errors import ShapeError
    from staticgraph.framework.build import apply
    with tf.Graph().as_default():
        gx = tf.placeholder(tf.float64, (None, 2, 8))
        state = [tf.placeholder(tf.float64, (2, 2)) for _ in range(2)]
        w, b = tf.placeholder(tf.float64, (2, 8)), tf.placeholder(tf.float64, (8,))
        out = apply(REGISTRY["LSTMLayer"], (gx, *state, w, b), {})[0]
        g, = tf.gradients(tf.reduce_sum(out * out), [gx])      # first order: fine
        with pytest.raises(ShapeError, match="number is unknown when the graph is built"):
            tf.gradients(tf.reduce_sum(g * g), [gx])


def test_bad_shapes_are_refused_by_name():
    with pytest.raises(Exception, match="LSTMLayer: h0"):
        rnn_layer._lstm_layer(np.zeros((3, 2, 8)), np.zeros((2, 3)), np.zeros((2, 2)),
                              np.zeros((2, 8)), np.zeros(8))
    with pytest.raises(Exception, match="LSTMLayer is not implemented for int64"):
        rnn_layer._lstm_layer(np.zeros((3, 2, 8), np.int64), np.zeros((2, 2)), np.zeros((2, 2)),
                              np.zeros((2, 8)), np.zeros(8))

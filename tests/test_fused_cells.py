"""The fused recurrent cells (``common/ops/cells.py``): the composite cells' bits, one node on
the eager tape, a compiled gradient with the numpy code's bits, and gradients of any order.

The registry tests check each op's shape rule and every gradient rule (the ``...Grad`` ops'
own included) against finite differences in both engines; the layers' agreement with
PyTorch's equations is ``tests/test_dyngraph_rnn.py``'s.
"""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
from common import layers, numpy_namespace
from common.fastpath import numba_module
from common.ops import cells
from common.registry import REGISTRY

F = numpy_namespace()
RNG = np.random.default_rng(32)
LSTM = REGISTRY["FusedLSTMCell"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 5), (32, 128), (1, 20000)])   # the last: blocked sigmoid
def test_lstm_cell_gives_the_composite_cells_bits(dtype, shape):
    gates = (3 * RNG.standard_normal(shape[:-1] + (4 * shape[-1],))).astype(dtype)
    c = RNG.standard_normal(shape).astype(dtype)
    h, c_new, ws = LSTM.impl(gates, c)
    want_h, want_c = layers.lstm_cell(F, gates, c, layers.TORCH_LSTM_GATES)
    np.testing.assert_array_equal(h, want_h)
    np.testing.assert_array_equal(c_new, want_c)
    assert h.dtype == c_new.dtype == ws.dtype == dtype
    np.testing.assert_array_equal(ws[..., 4 * shape[-1]:], np.tanh(want_c))


@pytest.mark.skipif(numba_module() is None, reason="numba is not installed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_gradient_gives_the_numpy_codes_bits(monkeypatch, dtype):
    gates = RNG.standard_normal((6, 4 * 7)).astype(dtype)
    c = RNG.standard_normal((6, 7)).astype(dtype)
    ws = LSTM.impl(gates, c)[2]
    gh, gc = RNG.standard_normal((2, 6, 7)).astype(dtype)
    gws = RNG.standard_normal(ws.shape).astype(dtype)
    gws_t = np.asfortranarray(gws)                     # any layout: the kernel reads rows
    monkeypatch.setattr(cells, "JIT_MIN", 0)
    compiled = cells._lstm_cell_grad(ws, c, gh, gc, gws_t)
    assert cells._jit, "the compiled kernel did not run"
    numpy = cells._lstm_cell_grad_numpy(ws, c, gh, gc, gws)
    for got, want in zip(compiled, numpy):
        assert got.dtype == want.dtype == dtype
        np.testing.assert_array_equal(got, want)


def test_lstm_step_is_one_node_named_as_pytorchs_cell():
    """``h'`` is PyTorch's ``MulBackward0``; behind it one fused node, not a dozen."""
    cell = torch.nn.LSTMCell(3, 4)
    h, c = cell(torch.randn(2, 3), (torch.randn(2, 4), torch.randn(2, 4)))
    assert type(h.grad_fn).__name__ == "MulBackward0"
    (call,) = [f for f, _ in h.grad_fn.next_functions]
    assert c.grad_fn.next_functions[0][0] is call    # h' and c' come from the same call
    assert [type(f).__name__ for f, _ in call.next_functions] == ["AddBackward0", "NoneType"]


def test_second_order_gradients_through_the_fused_cell():
    """``create_graph=True`` records the fused gradient, whose own rules are registry ops."""
    torch.manual_seed(0)
    cell = torch.nn.LSTMCell(3, 4).double()
    x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)

    def step(x, h0, c0):
        h, c = cell(x, (h0, c0))
        return (h * c).sum()

    assert torch.autograd.gradgradcheck(step, (x, h0, c0))

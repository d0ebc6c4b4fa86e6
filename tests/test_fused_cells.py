"""The fused recurrent cells (``common/ops/cells.py``): the composite cells' bits in exact mode
(and below the kernels' size at any mode), a compiled forward within a few ulps of them,
one node on the eager tape, a compiled gradient with the numpy code's bits, and gradients of
any order.

The registry tests check each op's shape rule and every gradient rule (the ``...Grad`` ops'
own included) against finite differences in both engines; the layers' agreement with
PyTorch's equations is ``tests/test_dyngraph_rnn.py``'s.
"""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
from common import layers, numpy_namespace
from common import fastpath
from common.fastpath import numba_module
from common.ops import cells
from common.registry import REGISTRY

F = numpy_namespace()
RNG = np.random.default_rng(32)
LSTM, GRU = REGISTRY["FusedLSTMCell"], REGISTRY["FusedGRUCell"]


@pytest.fixture
def exact():
    """The cells in exact mode for the test (the setting restored after it)."""
    previous = cells.set_exact(True)
    yield
    assert cells.set_exact(previous) is True


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 5), (32, 128), (1, 20000)])   # the last: blocked sigmoid
def test_lstm_cell_gives_the_composite_cells_bits(exact, dtype, shape):
    gates = (3 * RNG.standard_normal(shape[:-1] + (4 * shape[-1],))).astype(dtype)
    c = RNG.standard_normal(shape).astype(dtype)
    h, c_new, ws = LSTM.impl(gates, c)
    want_h, want_c = layers.lstm_cell(F, gates, c, layers.TORCH_LSTM_GATES)
    np.testing.assert_array_equal(h, want_h)
    np.testing.assert_array_equal(c_new, want_c)
    assert h.dtype == c_new.dtype == ws.dtype == dtype
    np.testing.assert_array_equal(ws[..., 4 * shape[-1]:], np.tanh(want_c))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 5), (1, 30000)])   # the last: blocked sigmoid
def test_gru_cell_gives_the_composite_cells_bits(exact, dtype, shape):
    gi, gh = (3 * RNG.standard_normal((2,) + shape[:-1] + (3 * shape[-1],))).astype(dtype)
    h = RNG.standard_normal(shape).astype(dtype)
    n = shape[-1]
    got, ws = GRU.impl(gi, gh, h)
    want = layers.gru_cell(F, h, gi[..., :2 * n] + gh[..., :2 * n],
                           lambda r: gi[..., 2 * n:] + r * gh[..., 2 * n:])
    np.testing.assert_array_equal(got, want)
    assert got.dtype == ws.dtype == dtype


def test_small_cells_keep_the_composite_cells_bits_in_either_mode():
    """Below ``JIT_MIN`` elements the numpy code runs: no kernel, the bits."""
    gates, c = RNG.standard_normal((2, 3, 4 * 5)), RNG.standard_normal((3, 5))
    want = cells._lstm_cell_numpy(gates, c)
    for got, expected in zip(LSTM.impl(gates, c), want, strict=True):
        np.testing.assert_array_equal(got, expected)


def _spy(monkeypatch, name: str) -> list:
    """Count the calls of the compiled forward ``name`` (the kernel module loaded)."""
    jit = cells._kernels()
    calls, kernel = [], getattr(jit, name)
    monkeypatch.setattr(jit, name, lambda *args: calls.append(1) or kernel(*args))
    return calls


def _ulps(got, truth):
    """``|got - truth|`` in ulps of ``got``'s dtype at ``truth``."""
    return np.abs(got - truth) / np.spacing(np.abs(truth).astype(got.dtype)).astype(truth.dtype)


def _sig(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.skipif(numba_module() is None, reason="numba is not installed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(32, 128), (2, 3, 700)])
def test_compiled_lstm_forward_is_within_a_few_ulps(monkeypatch, dtype, shape):
    """The gates' activations within :data:`common.vmath.MAX_ULP` of the truth (float64, or
    longdouble for float64); ``c'`` and ``h'`` within 4 eps ``(1 + |c|)`` -- the size of
    ``c f + i g``'s terms, what a sum's rounding is measured against (numpy's bits are that
    close too, as the last assertion checks)."""
    calls = _spy(monkeypatch, "lstm_cell")
    n = shape[-1]
    gates = (3 * RNG.standard_normal(shape[:-1] + (4 * n,))).astype(dtype)
    c = (2 * RNG.standard_normal(shape)).astype(dtype)
    h, c_new, ws = LSTM.impl(gates, c)
    assert calls and h.dtype == c_new.dtype == ws.dtype == dtype
    wide = np.longdouble if dtype == np.float64 else np.float64
    g = gates.astype(wide)
    act = np.concatenate([_sig(g[..., :2 * n]), np.tanh(g[..., 2 * n:3 * n]),
                          _sig(g[..., 3 * n:])], axis=-1)
    assert _ulps(ws[..., :4 * n], act).max() <= 2.5
    i, f, gg, o = (ws[..., k * n:(k + 1) * n].astype(wide) for k in range(4))
    want_c = c * f + i * gg
    want_h = np.tanh(want_c) * o
    bound = 4 * np.finfo(dtype).eps * (1 + np.abs(c))
    assert (np.abs(c_new - want_c) <= bound).all() and (np.abs(h - want_h) <= bound).all()
    assert (np.abs(ws[..., 4 * n:] - np.tanh(want_c)) <= bound).all()
    h0, c0, _ = cells._lstm_cell_numpy(gates, c)
    assert (np.abs(h0 - want_h) <= bound).all() and (np.abs(c0 - want_c) <= bound).all()


@pytest.mark.skipif(numba_module() is None, reason="numba is not installed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_gru_forward_is_within_a_few_ulps(monkeypatch, dtype):
    calls = _spy(monkeypatch, "gru_cell")
    n = 128
    gi, gh = (3 * RNG.standard_normal((2, 32, 3 * n))).astype(dtype)
    h = (2 * RNG.standard_normal((32, n))).astype(dtype)
    got, ws = GRU.impl(gi, gh, h)
    assert calls and got.dtype == ws.dtype == dtype
    wide = np.longdouble if dtype == np.float64 else np.float64
    a = (gi[:, :2 * n] + gh[:, :2 * n]).astype(wide)    # the sum in the dtype, as the cells'
    r, z = _sig(a[:, :n]), _sig(a[:, n:])
    assert _ulps(ws[:, :n], r).max() <= 2.5 and _ulps(ws[:, n:2 * n], z).max() <= 2.5
    np.testing.assert_array_equal(ws[:, 3 * n:], gh[:, 2 * n:])
    new = np.tanh(gi[:, 2 * n:] + r * gh[:, 2 * n:])
    want = z * h + (1 - z) * new
    bound = 4 * np.finfo(dtype).eps * (1 + np.abs(h) + np.abs(gh[:, 2 * n:]))
    assert (np.abs(ws[:, 2 * n:3 * n] - new) <= bound).all() and (np.abs(got - want) <= bound).all()
    numpy = cells._gru_cell_numpy(gi, gh, h)[0]
    assert (np.abs(numpy - want) <= bound).all()


def test_the_kernels_leave_shapes_they_do_not_take_to_numpy(monkeypatch):
    """A state broadcast against the gates, or mixed dtypes: the numpy code, its bits."""
    gates = RNG.standard_normal((64, 4 * 64)).astype(np.float32)
    for c in (RNG.standard_normal((1, 64)).astype(np.float32), RNG.standard_normal((64, 64))):
        for got, want in zip(LSTM.impl(gates, c), cells._lstm_cell_numpy(gates, c), strict=True):
            np.testing.assert_array_equal(got, want)


def _lstm_grad_args(dtype):
    gates = RNG.standard_normal((6, 4 * 7)).astype(dtype)
    ws = LSTM.impl(gates, RNG.standard_normal((6, 7)).astype(dtype))[2]
    return ws, *RNG.standard_normal((3, 6, 7)).astype(dtype), RNG.standard_normal(ws.shape).astype(dtype)


def _gru_grad_args(dtype):
    gi, gh = RNG.standard_normal((2, 6, 3 * 7)).astype(dtype)
    ws = GRU.impl(gi, gh, RNG.standard_normal((6, 7)).astype(dtype))[1]
    return ws, *RNG.standard_normal((2, 6, 7)).astype(dtype), RNG.standard_normal(ws.shape).astype(dtype)


@pytest.mark.skipif(numba_module() is None, reason="numba is not installed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kernel, args", [("_lstm_cell_grad", _lstm_grad_args),
                                          ("_gru_cell_grad", _gru_grad_args)])
def test_compiled_gradient_gives_the_numpy_codes_bits(monkeypatch, dtype, kernel, args):
    args = args(dtype)
    any_layout = [*args[:-1], np.asfortranarray(args[-1])]    # the kernel reads rows
    monkeypatch.setattr(cells, "JIT_MIN", 0)
    compiled = getattr(cells, kernel)(*any_layout)
    assert fastpath.JIT_MODULES.get("common.cells_jit"), "the compiled kernel did not run"
    numpy = getattr(cells, kernel + "_numpy")(*args)
    for got, want in zip(compiled, numpy, strict=True):
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


def test_gru_step_is_one_node_named_as_pytorchs_cell():
    h = torch.nn.GRUCell(3, 4)(torch.randn(2, 3), torch.randn(2, 4))
    assert type(h.grad_fn).__name__ == "AddBackward0"
    (call,) = [f for f, _ in h.grad_fn.next_functions]
    assert [type(f).__name__ for f, _ in call.next_functions] == \
        ["AddBackward0", "AddBackward0", "NoneType"]      # x W_ih + b_ih, h W_hh + b_hh, h


def _randn(*shape):
    return torch.randn(*shape, dtype=torch.float64, requires_grad=True)


def test_second_order_gradients_through_the_fused_cells():
    """``create_graph=True`` records the fused gradients, whose own rules are registry ops."""
    torch.manual_seed(0)
    lstm, gru = torch.nn.LSTMCell(3, 4).double(), torch.nn.GRUCell(3, 4).double()

    def lstm_step(x, h0, c0):
        h, c = lstm(x, (h0, c0))
        return (h * c).sum()

    def gru_step(x, h0):
        h = gru(x, h0)
        return (h * h).sum()

    assert torch.autograd.gradgradcheck(lstm_step, (_randn(2, 3), _randn(2, 4), _randn(2, 4)))
    assert torch.autograd.gradgradcheck(gru_step, (_randn(2, 3), _randn(2, 4)))


def test_the_tape_keeps_no_input_a_rule_does_not_read():
    """A multi-result call keeps what its rules read (the cell's ``c`` and its workspace), as a
    one-result node does -- not the step's gates, nor, once its backward step ran, the
    cotangents it was handed: either would grow an LSTM's peak memory with every step."""
    import gc
    import weakref
    w = torch.randn(3, 8, requires_grad=True)
    gates = torch.randn(2, 3) @ w                     # a non-leaf: only the tape could keep it
    seen = weakref.ref(gates._data)
    h, c, _ = torch.fused_lstm_cell(gates, torch.randn(2, 2))
    del gates
    gc.collect()
    assert seen() is None
    h.sum().backward(retain_graph=True)
    assert w.grad is not None
    (call,) = [f for f, _ in h.grad_fn.next_functions]
    assert call.op.pending is None        # the step's cotangents went with its backward step

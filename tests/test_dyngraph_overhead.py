"""dyngraph's per-op and per-step shortcuts keep their answers: a float32 result's short dtype
test, and a several-result op's gradient computed once for all the inputs that read it."""
from __future__ import annotations

import weakref

import numpy as np
import pytest

import dyngraph as torch
from common.ops import cells
from common.registry import REGISTRY
from dyngraph.autograd import engine as autograd_engine
from dyngraph.tensor import make

RNG = np.random.default_rng(38)


def _lstm_step(requires_c: bool = True):
    gates = torch.tensor(RNG.standard_normal((3, 8)).astype(np.float32), requires_grad=True)
    c = torch.tensor(RNG.standard_normal((3, 2)).astype(np.float32), requires_grad=requires_c)
    h, c_new, _ = torch.fused_lstm_cell(gates, c)
    return gates, c, (h * 2 + c_new * 3).sum()


@pytest.fixture
def counted(monkeypatch):
    """Calls of the fused cells' gradient kernels in the next backward (a fresh numpy ``F``
    binds the counting impls; the fixture restores both afterwards)."""
    calls = {"FusedLSTMCellGrad": 0, "FusedGRUCellGrad": 0, "LSTMLayerGrad": 0}
    for name in calls:
        op = REGISTRY[name]

        def counting(*xs, _impl=op.impl, _name=name, **attrs):
            calls[_name] += 1
            return _impl(*xs, **attrs)
        monkeypatch.setattr(op, "impl", counting)
    monkeypatch.setattr(autograd_engine, "_BOUND_F", None)
    return calls


def test_a_fused_lstm_cells_gradient_runs_once_for_gates_and_c(counted):
    gates, c, loss = _lstm_step()
    loss.backward()
    assert counted["FusedLSTMCellGrad"] == 1
    # the kernel's own numbers (which each input's rule took a piece of)
    g_gates, g_c = cells._lstm_cell_grad(
        cells._lstm_cell(gates._data, c._data)[2], c._data, np.full((3, 2), 2, np.float32),
        np.full((3, 2), 3, np.float32), np.zeros((3, 10), np.float32))
    np.testing.assert_array_equal(gates.grad.numpy(), g_gates)
    np.testing.assert_array_equal(c.grad.numpy(), g_c)


def test_an_lstm_layers_gradient_runs_once_for_all_its_inputs(counted):
    """float32 over a padded batch: one LSTMLayer node, whose four rules (gx, h0, c0, w)
    share one LSTMLayerGrad call."""
    lstm = torch.nn.LSTM(4, 3)
    h0, c0 = (torch.randn(1, 2, 3, requires_grad=True) for _ in range(2))
    out, _ = lstm(torch.randn(6, 2, 4), (h0, c0))
    out.sum().backward()
    assert counted["LSTMLayerGrad"] == 1 and counted["FusedLSTMCellGrad"] == 0
    assert h0.grad is not None and c0.grad is not None


def test_a_float64_lstm_steps_the_cell_one_gradient_per_step(counted):
    """float64 (as PyTorch, whose oneDNN layer is float32 only) steps the fused cell."""
    lstm = torch.nn.LSTM(4, 3).double()
    out, _ = lstm(torch.randn(6, 2, 4, dtype=torch.float64))
    out.sum().backward()
    # the first step's c (zeros) needs no gradient: still one kernel per step
    assert counted["FusedLSTMCellGrad"] == 6 and counted["LSTMLayerGrad"] == 0


def test_a_fused_gru_cells_gradient_runs_once_for_its_three_inputs(counted):
    gru = torch.nn.GRU(4, 3)
    out, _ = gru(torch.randn(5, 2, 4))
    out.sum().backward()
    assert counted["FusedGRUCellGrad"] == 5


def test_create_graph_records_one_gradient_node_for_gates_and_c():
    gates, c, loss = _lstm_step()
    g_gates, g_c = torch.autograd.grad(loss, (gates, c), create_graph=True)
    # each gradient is a piece of one FusedLSTMCellGrad call (not one call per input)
    call_of = lambda g: g.grad_fn.next_functions[0][0]   # noqa: E731
    assert call_of(g_gates) is call_of(g_c)
    # and differentiating again still works, to the same values as two separate backwards
    (g_gates.sum() + g_c.sum()).backward()
    gates2, c2 = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (gates, c))
    h, c_new, _ = torch.fused_lstm_cell(gates2, c2)
    a, b = torch.autograd.grad((h * 2 + c_new * 3).sum(), (gates2, c2), create_graph=True)
    a.sum().backward(retain_graph=True)
    b.sum().backward()
    np.testing.assert_allclose(gates.grad.numpy(), gates2.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.grad.numpy(), c2.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_hooks_on_a_cells_outputs_and_inputs_see_the_shared_gradient():
    gates, c, _ = _lstm_step()
    h, c_new, _ = torch.fused_lstm_cell(gates, c)
    seen = []
    h.register_hook(lambda g: seen.append(("h", g.numpy().copy())))
    c_new.register_hook(lambda g: g * 0)                 # replaces c_new's gradient
    c.register_hook(lambda g: seen.append(("c", g.numpy().copy())))
    (h * 2 + c_new * 3).sum().backward()
    want_gates, want_c = cells._lstm_cell_grad(
        cells._lstm_cell(gates._data, c._data)[2], c._data, np.full((3, 2), 2, np.float32),
        np.zeros((3, 2), np.float32), np.zeros((3, 10), np.float32))
    np.testing.assert_array_equal(gates.grad.numpy(), want_gates)
    assert [k for k, _ in seen] == ["h", "c"]
    np.testing.assert_array_equal(seen[1][1], want_c)


@pytest.mark.parametrize("dtype, other", [(np.float32, 1.5), (np.float64, 1.5), (np.int64, 1.5),
                                          (np.int32, 2), (np.float16, 1.5), (np.complex64, 2.0)])
def test_results_record_and_recast_by_dtype_as_before(dtype, other):
    x = torch.tensor(np.array([1, 2, 3]).astype(dtype))
    want = {np.float32: np.float32, np.float64: np.float64, np.int64: np.float32,
            np.int32: np.int32, np.float16: np.float16, np.complex64: np.complex64}[dtype]
    assert (x + other).numpy().dtype == want
    assert x.exp().numpy().dtype == (np.float32 if dtype in (np.int64, np.int32) else want)
    if np.dtype(dtype).kind in "fc":
        y = torch.tensor(np.array([1, 2, 3]).astype(dtype), requires_grad=True)
        assert (y + other).requires_grad and y.exp().requires_grad
        assert torch.add(y, torch.tensor(np.ones(3, dtype))).requires_grad


def test_a_byte_swapped_float32_result_still_records():
    """(``from_numpy`` refuses such arrays; one made inside the engine takes the long test.)"""
    y = make(np.arange(3, dtype=">f4"), True)
    z = y.reshape(3) * 1.0, y[1:], y + y                 # views keep the byte-swapped dtype
    assert all(t.requires_grad and t.grad_fn is not None for t in z)


def test_random_several_result_ops_are_never_shared():
    """A second call of a sampler draws anew: only deterministic ops share their results."""
    from dyngraph.multi_output import _SEVERAL
    assert {"fused_lstm_cell_grad", "fused_gru_cell_grad", "split", "top_k"} <= _SEVERAL
    assert not {op.fname for op in REGISTRY.values() if op.stateful} & _SEVERAL


# --- a tensor's cached ShapeRef (Tensor._sref) -----------------------------------------


def _grads_of_sum_of_add(x, c):
    (x + c).sum().backward()
    return x.grad, c.grad


def test_a_reused_leafs_shape_reference_follows_a_new_data_array():
    """``y = y + c`` keeps ``c``'s ShapeRef on ``c``; ``c.data = <other shape>`` must drop it,
    or the next gradient would be summed to the old shape."""
    c = torch.ones(3, 4, requires_grad=True)
    x = torch.ones(3, 4, requires_grad=True)
    _grads_of_sum_of_add(x, c)
    assert c._sref is not None and c._sref.shape == (3, 4)
    c.grad = None
    c.data = torch.ones(4)           # now broadcasts along x's rows
    x.grad = None
    _, gc = _grads_of_sum_of_add(x, c)
    assert gc.shape == (4,) and gc.tolist() == [3.0] * 4


def test_an_added_results_shape_reference_is_its_own_or_none():
    x = torch.ones(2, 3, requires_grad=True)
    c = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    y = x + c
    assert y._sref is x._sref and y._sref.shape == (2, 3)
    z = x + b                         # broadcast: a new shape, not known without a lookup
    assert z._sref is None or z._sref.shape == (2, 3)
    w = x + torch.ones(2, 3, dtype=torch.float64, requires_grad=True)   # promoted dtype
    assert w._sref is None or w._sref.dtype == np.float64


def test_rebinding_data_resets_the_shape_reference():
    """Every site that gives a tensor another array forgets its ShapeRef."""
    t = torch.zeros(2, 3)
    t.requires_grad_()
    (t * 1 + t).sum().backward()
    t.requires_grad_(False)
    t._sref = "stale"
    t.resize_(6)
    assert t._sref is None and t.shape == (6,)
    p = torch.nn.Parameter(torch.ones(2, 2))
    lin = torch.nn.Linear(2, 2)
    lin.weight._sref = "stale"
    lin.double()
    assert lin.weight._sref is None
    opt = torch.optim.SGD([p], lr=0.1)
    p.grad = torch.ones(2, 2)
    p._sref, old = "stale", weakref.ref(p._data)
    opt.step()                        # a new array (nothing else holds the old one)
    assert old() is None and p._sref is None
    assert np.allclose(p.tolist(), 0.9)
    out = torch.empty(1)
    out._sref = "stale"
    torch.add(torch.ones(3), 1, out=out)
    assert out._sref is None and out.shape == (3,)


# --- views made without apply when nothing records (engine.plain_view) -------------------


@pytest.mark.parametrize("make_view", [lambda x: x[1], lambda x: x[-3], lambda x: x.t()],
                         ids=["row", "negative row", "t"])
def test_an_unrecorded_view_shares_memory_and_version_with_its_base(make_view):
    x = torch.arange(12.0).reshape(3, 4)
    v = make_view(x)
    assert v.requires_grad is False and v.grad_fn is None and v.dtype == x.dtype
    before = x._version
    v.mul_(2)
    assert x._version == v._version == before + 1
    assert np.shares_memory(v.numpy(), x.numpy())
    expected = torch.arange(12.0).reshape(3, 4)
    expected_v = make_view(expected)
    expected_v.mul_(2)
    assert x.tolist() == expected.tolist()


def test_a_recorded_or_out_of_range_row_takes_the_general_path():
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    assert type(x[1].grad_fn).__name__ == "SelectBackward0"
    assert type(x.t().grad_fn).__name__ == "TBackward0"
    with pytest.raises(IndexError):
        torch.ones(3, 4)[3]
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions"):
        torch.ones(2, 2, 2).t()
    one_d = torch.arange(3.0)[1]       # a 1-D tensor's element: the general path, as before
    assert one_d.shape == () and one_d.item() == 1.0


def test_jit_trace_still_sees_rows_and_transposes():
    xs = torch.arange(12.0).reshape(3, 4)
    traced = torch.jit.trace(lambda a: a[1] + a.t().t()[2], xs)
    other = torch.ones(3, 4) * 5          # (a trace that froze the example values gives 10s no more)
    assert traced(other).tolist() == (other[1] + other[2]).tolist() == [10.0] * 4


# --- the compiled savers (engine._pair_saver): versions of every saved operand ----------


@pytest.mark.parametrize("changed", ["a", "b"])
@pytest.mark.parametrize("grad_of", ["a", "b", "both"])
def test_a_saved_operand_changed_in_place_is_refused(changed, grad_of):
    a = torch.ones(2, 2, requires_grad=grad_of in ("a", "both"))
    b = torch.ones(2, 2, requires_grad=grad_of in ("b", "both"))
    y = a.mm(b)                  # each operand's rule reads the other one
    reader = b if grad_of == "a" else a if grad_of == "b" else (a if changed == "a" else b)
    if changed == "a" and reader is not a or changed == "b" and reader is not b:
        pytest.skip("the changed operand is not saved for this gradient")
    with torch.no_grad():
        reader.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_saved_versions_are_pairs_whichever_operands_are_saved():
    a, b = torch.ones(2, 2, requires_grad=True), torch.ones(2, 2, requires_grad=True)
    c = torch.ones(2, 2)
    for y, n in [(a.mm(b), 2), (a.mm(c), 1), (c.mm(a), 1), (a * b, 2), (a * 2, 0), (a.sin(), 1)]:
        assert len(y.grad_fn.versions) == n
        assert all(isinstance(t, torch.Tensor) and v == 0 for t, v in y.grad_fn.versions)

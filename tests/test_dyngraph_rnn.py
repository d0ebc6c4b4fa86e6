"""dyngraph's recurrent layers against PyTorch's documented equations (written here in numpy),
finite differences, and the per-sequence runs a packed batch must reproduce."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngraph as torch
from dyngraph.nn.utils.rnn import (PackedSequence, pack_padded_sequence, pack_sequence,
                                   pad_packed_sequence, pad_sequence)
from tests.gradcheck import numeric_grad

RNG = np.random.default_rng(0)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _ref_step(mode, x, state, w_ih, w_hh, b_ih, b_hh):
    """PyTorch's equations (docs of nn.RNN / nn.LSTM / nn.GRU), gate orders i,f,g,o and r,z,n."""
    h = state[0]
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    n = h.shape[-1]
    if mode == "LSTM":
        i, f, g, o = (gi + gh)[:, :n], (gi + gh)[:, n:2 * n], (gi + gh)[:, 2 * n:3 * n], (gi + gh)[:, 3 * n:]
        c = _sig(f) * state[1] + _sig(i) * np.tanh(g)
        return (_sig(o) * np.tanh(c), c)
    if mode == "GRU":
        r = _sig(gi[:, :n] + gh[:, :n])
        z = _sig(gi[:, n:2 * n] + gh[:, n:2 * n])
        cand = np.tanh(gi[:, 2 * n:] + r * gh[:, 2 * n:])
        return ((1 - z) * cand + z * h,)
    return (np.tanh(gi + gh) if mode == "RNN_TANH" else np.maximum(gi + gh, 0),)


def _ref_layer(m, x):
    """Reference forward of a whole (time-major) RNNBase from its state_dict."""
    p = {k: v.detach().numpy().astype(np.float64) for k, v in m.state_dict().items()}
    dirs = 2 if m.bidirectional else 1
    finals = []
    for layer in range(m.num_layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w = [p["weight_ih" + sfx], p["weight_hh" + sfx]]
            w += ([p["bias_ih" + sfx], p["bias_hh" + sfx]] if m.bias else [0.0, 0.0])
            state = tuple(np.zeros((x.shape[1], m.hidden_size)) for _ in range(2 if m.mode == "LSTM" else 1))
            seq = [None] * x.shape[0]
            for t in (reversed(range(x.shape[0])) if d else range(x.shape[0])):
                state = _ref_step(m.mode, x[t], state, *w)
                seq[t] = state[0]
            outs.append(np.stack(seq))
            finals.append(state)
        x = np.concatenate(outs, -1)
    return x, [np.stack([f[k] for f in finals]) for k in range(len(finals[0]))]


@pytest.mark.parametrize("cls, kw", [
    (torch.nn.LSTM, {"num_layers": 2, "bidirectional": True}),
    (torch.nn.GRU, {"num_layers": 2, "bidirectional": True}),
    (torch.nn.RNN, {"nonlinearity": "relu", "bidirectional": True}),
    (torch.nn.RNN, {"num_layers": 3}),
    (torch.nn.LSTM, {"bias": False}),
])
def test_layers_match_pytorchs_equations(cls, kw):
    torch.manual_seed(0)
    m = cls(3, 4, **kw)
    x = RNG.standard_normal((5, 2, 3)).astype(np.float32)
    out, h = m(torch.tensor(x))
    ref_out, ref_state = _ref_layer(m, x.astype(np.float64))
    dirs = 2 if m.bidirectional else 1
    assert tuple(out.shape) == (5, 2, 4 * dirs)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, atol=1e-5)
    states = h if m.mode == "LSTM" else (h,)
    for s, r in zip(states, ref_state):
        assert tuple(s.shape) == (m.num_layers * dirs, 2, 4)
        np.testing.assert_allclose(s.detach().numpy(), r, atol=1e-5)


def test_parameter_names_shapes_and_repr_are_pytorchs():
    m = torch.nn.LSTM(10, 20, num_layers=2, bidirectional=True, batch_first=True, dropout=0.5)
    names = [(n, tuple(p.shape)) for n, p in m.named_parameters()]
    assert names[:5] == [("weight_ih_l0", (80, 10)), ("weight_hh_l0", (80, 20)), ("bias_ih_l0", (80,)),
                         ("bias_hh_l0", (80,)), ("weight_ih_l0_reverse", (80, 10))]
    assert names[8] == ("weight_ih_l1", (80, 40)) and len(names) == 16
    assert repr(m) == "LSTM(10, 20, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True)"
    assert repr(torch.nn.GRU(3, 4)) == "GRU(3, 4)"
    assert repr(torch.nn.RNN(3, 4, bias=False)) == "RNN(3, 4, bias=False)"
    assert repr(torch.nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    assert [tuple(p.shape) for p in torch.nn.GRUCell(3, 4).parameters()] == [(12, 3), (12, 4), (12,), (12,)]
    bound = 1 / np.sqrt(20)
    assert all(np.abs(p.detach().numpy()).max() <= bound for p in m.parameters())


def test_state_dict_moves_between_layouts():
    a, b = torch.nn.GRU(3, 4, num_layers=2), torch.nn.GRU(3, 4, num_layers=2)
    b.load_state_dict(a.state_dict())
    x = torch.randn(6, 2, 3)
    np.testing.assert_array_equal(a(x)[0].detach().numpy(), b(x)[0].detach().numpy())


def test_cells_are_one_step_of_the_layer():
    torch.manual_seed(1)
    for layer_cls, cell_cls in [(torch.nn.LSTM, torch.nn.LSTMCell), (torch.nn.GRU, torch.nn.GRUCell),
                                (torch.nn.RNN, torch.nn.RNNCell)]:
        layer, cell = layer_cls(3, 5), cell_cls(3, 5)
        cell.load_state_dict({k[:-3]: v for k, v in layer.state_dict().items()})
        x = torch.randn(4, 2, 3)
        out, _ = layer(x)
        state = None
        for t in range(4):
            state = cell(x[t], state)
            h = state[0] if isinstance(state, tuple) else state
            np.testing.assert_allclose(h.detach().numpy(), out[t].detach().numpy(), atol=1e-6)
    h, c = torch.nn.LSTMCell(3, 4)(torch.randn(3))            # unbatched
    assert tuple(h.shape) == (4,) and tuple(c.shape) == (4,)


def test_batch_first_unbatched_and_initial_state():
    torch.manual_seed(2)
    m = torch.nn.LSTM(3, 4, batch_first=True, num_layers=2)
    x = torch.randn(2, 5, 3)
    h0, c0 = torch.randn(2, 2, 4), torch.randn(2, 2, 4)
    out, (h, c) = m(x, (h0, c0))
    m.batch_first = False
    out_t, (h_t, c_t) = m(x.transpose(0, 1), (h0, c0))
    np.testing.assert_allclose(out.detach().numpy(), out_t.transpose(0, 1).detach().numpy())
    np.testing.assert_allclose(out[:, -1].detach().numpy(), h[-1].detach().numpy(), atol=1e-6)
    one, (h1, _) = m(x[0], (h0[:, 0], c0[:, 0]))
    assert tuple(one.shape) == (5, 4) and tuple(h1.shape) == (2, 4)
    np.testing.assert_allclose(one.detach().numpy(), out_t[:, 0].detach().numpy(), atol=1e-6)


def test_packed_batch_runs_each_sequence_for_its_own_length():
    torch.manual_seed(3)
    m = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    seqs = [torch.randn(n, 3) for n in (2, 5, 3)]
    packed = pack_sequence(seqs, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 3, 2, 1, 1]
    out, h = m(packed)
    assert isinstance(out, PackedSequence)
    padded, lengths = pad_packed_sequence(out, batch_first=True)
    assert lengths.tolist() == [2, 5, 3] and tuple(padded.shape) == (3, 5, 8)
    for i, s in enumerate(seqs):
        alone, h_alone = m(s)
        np.testing.assert_allclose(padded[i, :len(s)].detach().numpy(), alone.detach().numpy(), atol=1e-6)
        assert np.all(padded[i, len(s):].detach().numpy() == 0)
        np.testing.assert_allclose(h[:, i].detach().numpy(), h_alone.detach().numpy(), atol=1e-6)


def test_pad_and_pack_helpers():
    a, b = torch.tensor([[1.], [2.], [3.]]), torch.tensor([[4.]])
    p = pad_sequence([a, b], padding_value=-1.0)
    assert p[:, :, 0].tolist() == [[1.0, 4.0], [2.0, -1.0], [3.0, -1.0]]
    assert pad_sequence([a, b], batch_first=True, padding_side="left")[1, :, 0].tolist() == [-0.0, 0.0, 4.0]
    pk = pack_padded_sequence(p, [3, 1])
    assert pk.data[:, 0].tolist() == [1.0, 4.0, 2.0, 3.0] and pk.sorted_indices is None
    padded, lengths = pad_packed_sequence(pk, total_length=4)
    assert tuple(padded.shape) == (4, 2, 1) and lengths.tolist() == [3, 1]


def test_pack_errors_are_pytorchs():
    p = torch.zeros(3, 3, 2)
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order when "
                                           "`enforce_sorted` is True"):
        pack_padded_sequence(p, [3, 1, 2])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        pack_padded_sequence(p, [3, 0, 2], enforce_sorted=False)
    pk = pack_padded_sequence(p, [3, 2, 1])
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the "
                                         "longest sequence in input, but got total_length=2 and max "
                                         "sequence length being 3"):
        pad_packed_sequence(pk, total_length=2)


def test_layer_errors_are_pytorchs():
    m = torch.nn.LSTM(10, 20, num_layers=2, bidirectional=True)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. "
                                           "Expected 10, got 7"):
        m(torch.randn(2, 5, 7))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(4, 5, 20\), got \[4, 3, 20\]"):
        m(torch.randn(2, 5, 10), (torch.zeros(4, 3, 20), torch.zeros(4, 5, 20)))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        m(torch.randn(2, 5, 10, 1))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 3"):
        torch.nn.LSTMCell(3, 4)(torch.randn(2, 5))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        torch.nn.LSTMCell(3, 4)(torch.randn(2, 3), (torch.randn(3, 4), torch.randn(3, 4)))
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sig'. Select from 'tanh' or 'relu'."):
        torch.nn.RNN(3, 4, nonlinearity="sig")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.nn.LSTM(3, 4, dropout=0.5)
    assert "non-zero dropout expects num_layers greater than 1" in str(w[0].message)
    out, _ = m(torch.randn(2, 5, 10))                      # still usable after the errors
    assert tuple(out.shape) == (2, 5, 40)


def test_dropout_between_layers_only_in_training():
    torch.manual_seed(4)
    m = torch.nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = torch.randn(5, 2, 3)
    a, b = m(x)[0].detach().numpy(), m(x)[0].detach().numpy()
    assert not np.allclose(a, b)
    m.eval()
    e1 = m(x)[0].detach().numpy()
    m.dropout = 0.0
    m.train()
    np.testing.assert_array_equal(e1, m(x)[0].detach().numpy())


@pytest.mark.parametrize("cls", [torch.nn.LSTM, torch.nn.GRU, torch.nn.RNN])
def test_gradients_match_finite_differences(cls):
    torch.manual_seed(5)
    m = cls(2, 3, bidirectional=True)
    for p in m.parameters():
        p.data = torch.tensor(p.detach().numpy().astype(np.float64))
    x = RNG.standard_normal((4, 2, 2))
    w = m.weight_hh_l0_reverse.detach().numpy()

    def loss_np():
        out, _ = m(torch.tensor(x))
        return float((out * out).sum().item())

    xt = torch.tensor(x, requires_grad=True)
    out, h = m(xt)
    ((out * out).sum()).backward()
    np.testing.assert_allclose(m.weight_hh_l0_reverse.grad.detach().numpy(), numeric_grad(loss_np, w), atol=1e-6)
    np.testing.assert_allclose(xt.grad.detach().numpy(), numeric_grad(loss_np, x), atol=1e-6)


def _cell_math(mode, gi, gh, state):
    """One step from the two projections, in dyngraph ops (so autograd gives its gradient)."""
    h, n = state[0], state[0].shape[-1]
    if mode == "LSTM":
        g = gi + gh
        c = g[:, n:2 * n].sigmoid() * state[1] + g[:, :n].sigmoid() * g[:, 2 * n:3 * n].tanh()
        return (g[:, 3 * n:].sigmoid() * c.tanh(), c)
    if mode == "GRU":
        r, z = (gi[:, :n] + gh[:, :n]).sigmoid(), (gi[:, n:2 * n] + gh[:, n:2 * n]).sigmoid()
        return ((1 - z) * (gi[:, 2 * n:] + r * gh[:, 2 * n:]).tanh() + z * h,)
    return ((gi + gh).tanh() if mode == "RNN_TANH" else (gi + gh).relu(),)


def _per_step_layer(m, x, lengths):
    """The layer the per-step way: each sequence alone over its own length, ``x_t @ W_ih.T``
    inside every step.  Returns each sequence's outputs ``(L, dirs*H)`` and final states."""
    P = dict(m.named_parameters())
    dirs = 2 if m.bidirectional else 1
    outs, finals = [], []
    for b, steps in enumerate(lengths):
        seq, fin = [x[t, b:b + 1] for t in range(steps)], []
        for layer in range(m.num_layers):
            per_dir = []
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                w_ih, w_hh = P["weight_ih" + sfx], P["weight_hh" + sfx]
                b_ih, b_hh = (P["bias_ih" + sfx], P["bias_hh" + sfx]) if m.bias else (0.0, 0.0)
                state = tuple(torch.zeros(1, m.hidden_size, dtype=torch.float64)
                              for _ in range(2 if m.mode == "LSTM" else 1))
                res = [None] * steps
                for t in (reversed(range(steps)) if d else range(steps)):
                    state = _cell_math(m.mode, seq[t].matmul(w_ih.t()) + b_ih,
                                       state[0].matmul(w_hh.t()) + b_hh, state)
                    res[t] = state[0]
                per_dir.append(res)
                fin.append(state)
            seq = [torch.cat([r[t] for r in per_dir], dim=-1) for t in range(steps)]
        outs.append(torch.cat(seq))
        finals.append(fin)
    return outs, finals


@pytest.mark.parametrize("cls, kw, packed", [
    (torch.nn.LSTM, {"num_layers": 2, "bidirectional": True}, True),
    (torch.nn.LSTM, {"num_layers": 2}, False),
    (torch.nn.GRU, {"bidirectional": True}, True),
    (torch.nn.GRU, {"num_layers": 2, "bias": False, "batch_first": True}, False),
    (torch.nn.RNN, {"nonlinearity": "relu", "bidirectional": True, "num_layers": 2}, True),
    (torch.nn.RNN, {"bidirectional": True}, False),
])
def test_whole_sequence_projection_is_the_per_step_formula(cls, kw, packed):
    """Projecting the input once for the whole sequence gives the per-step formula's values
    and gradients (float64), padded or packed (unsorted lengths), both directions."""
    torch.manual_seed(7)
    m = cls(3, 4, **kw)
    for p in m.parameters():
        p.data = torch.tensor(p.detach().numpy().astype(np.float64))
    rng = np.random.default_rng(7)
    lengths = [3, 5, 2] if packed else [5, 5, 5]
    x = torch.tensor(rng.standard_normal((5, 3, 3)), requires_grad=True)
    dirs = 2 if m.bidirectional else 1
    w_out = [torch.tensor(rng.standard_normal((n, 4 * dirs))) for n in lengths]
    w_fin = torch.tensor(rng.standard_normal((m.num_layers * dirs, 3, 4)))

    def grads(loss):
        params = list(m.parameters())
        for p in params:
            p.grad = None
        x.grad = None
        loss.backward()
        return [p.grad.numpy().copy() for p in params] + [x.grad.numpy().copy()]

    if packed:
        out, h = m(pack_padded_sequence(x, lengths, enforce_sorted=False))
        out = pad_packed_sequence(out)[0]
    else:
        out, h = m(x.transpose(0, 1) if m.batch_first else x)
        out = out.transpose(0, 1) if m.batch_first else out
    h = h if m.mode == "LSTM" else (h,)
    new_out = [out[:n, b] for b, n in enumerate(lengths)]
    new_loss = sum((o * w).sum() for o, w in zip(new_out, w_out)) + sum((s * w_fin).sum() for s in h)
    new_values = [o.detach().numpy() for o in new_out] + [s.detach().numpy() for s in h]
    new_grads = grads(new_loss)

    ref_out, ref_fin = _per_step_layer(m, x, lengths)
    ref_h = [torch.stack([torch.cat([f[j][k] for f in ref_fin]) for j in range(len(ref_fin[0]))])
             for k in range(len(h))]
    ref_loss = sum((o * w).sum() for o, w in zip(ref_out, w_out)) + sum((s * w_fin).sum() for s in ref_h)
    ref_values = [o.detach().numpy() for o in ref_out] + [s.detach().numpy() for s in ref_h]
    for a, b in zip(new_values + new_grads, ref_values + grads(ref_loss)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)

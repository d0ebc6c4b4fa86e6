"""dyngraph.nn and dyngraph.optim: modules, losses, and optimizer updates by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

import dyngraph as torch
from dyngraph import nn
from dyngraph.nn import functional as F


def test_module_registers_parameters_and_submodules():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1), nn.Tanh())
    names = [name for name, _ in model.named_parameters()]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf
               for p in model.parameters())
    assert [p.shape for p in model.parameters()] == [(3, 2), (3,), (1, 3), (1,)]
    assert repr(model) == ("Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n"
                           "  (1): ReLU()\n  (2): Linear(in_features=3, out_features=1, bias=True)\n"
                           "  (3): Tanh()\n)")
    assert model.eval() is model and not model[0].training
    assert model.train().training and model[2].training and len(model) == 4


def test_linear_computes_x_wt_plus_b_and_its_gradients():
    layer = nn.Linear(3, 2)
    bound = 1 / math.sqrt(3)
    assert np.all(np.abs(layer.weight.detach().numpy()) <= bound)
    x = torch.randn(4, 3)
    y = layer(x)
    expected = x.numpy() @ layer.weight.detach().numpy().T + layer.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), np.tile(x.numpy().sum(0), (2, 1)), rtol=1e-5)
    np.testing.assert_allclose(layer.bias.grad.numpy(), [4.0, 4.0])
    layer.zero_grad()
    assert layer.weight.grad is None


def test_losses_match_their_formulas():
    logits = torch.tensor([[1., 2., 3.], [1., 0., 0.]])
    labels = torch.tensor([2, 0])
    z = logits.numpy()
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    assert F.cross_entropy(logits, labels).item() == pytest.approx(-(logp[0, 2] + logp[1, 0]) / 2)
    assert F.cross_entropy(logits, labels, reduction="sum").item() == pytest.approx(-(logp[0, 2] + logp[1, 0]))
    np.testing.assert_allclose(F.log_softmax(logits, dim=1).numpy(), logp, rtol=1e-6)
    np.testing.assert_allclose(F.softmax(logits, dim=1).numpy(), np.exp(logp), rtol=1e-6)
    assert F.mse_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.])).item() == 2.5
    assert F.mse_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.]), reduction="sum").item() == 5.0
    assert F.relu(torch.tensor([-1., 2.])).tolist() == [0.0, 2.0]


def test_cross_entropy_gradient_is_softmax_minus_onehot():
    logits = torch.tensor([[1., 2., 3.], [1., 0., 0.]], requires_grad=True)
    F.cross_entropy(logits, torch.tensor([2, 0])).backward()
    p = F.softmax(logits.detach(), dim=1).numpy()
    p[0, 2] -= 1
    p[1, 0] -= 1
    np.testing.assert_allclose(logits.grad.numpy(), p / 2, rtol=1e-6)


def test_sgd_with_momentum_follows_its_formula():
    p = nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    grads = [np.array([0.5, 1.0]), np.array([-1.0, 2.0])]
    expected, buf = np.array([1.0, -2.0]), None
    for g in grads:
        opt.zero_grad()
        (p * torch.tensor(g, dtype=torch.float32)).sum().backward()
        opt.step()
        buf = g if buf is None else 0.9 * buf + g
        expected = expected - 0.1 * buf
    np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-6)
    assert p._version == 2


def test_adam_follows_its_formula():
    p = nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
    opt = torch.optim.Adam([p], lr=0.01, betas=(0.9, 0.999), eps=1e-8)
    value, m, v = np.array([1.0, -2.0]), 0.0, 0.0
    for t, g in enumerate([np.array([0.5, 1.0]), np.array([-1.0, 2.0]), np.array([0.1, 0.1])], 1):
        opt.zero_grad()
        (p * torch.tensor(g)).sum().backward()
        opt.step()
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        value = value - 0.01 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    np.testing.assert_allclose(p.detach().numpy(), value, rtol=1e-12)


def test_optimizer_rejects_no_parameters():
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        torch.optim.SGD([], lr=0.1)


def _xor_data():
    x = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
    return x, torch.tensor([0, 1, 1, 0]), torch.tensor([[0.], [1.], [1.], [0.]])


@pytest.mark.parametrize("make_opt,loss_kind", [
    (lambda ps: torch.optim.SGD(ps, lr=0.5, momentum=0.9), "mse"),
    (lambda ps: torch.optim.Adam(ps, lr=0.05), "xent"),
])
def test_training_loop_reduces_the_loss(make_opt, loss_kind):
    torch.manual_seed(0)
    x, labels, targets = _xor_data()
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2 if loss_kind == "xent" else 1))
    opt = make_opt(model.parameters())
    losses = []
    for _ in range(150):
        out = model(x)
        loss = F.cross_entropy(out, labels) if loss_kind == "xent" else F.mse_loss(out, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.1 * losses[0]
    if loss_kind == "xent":
        assert model(x).argmax(1).tolist() == [0, 1, 1, 0]

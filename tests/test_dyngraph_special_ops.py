"""torch.asin...atanh, atan2, lgamma, digamma, polygamma, xlogy, cumprod and poisson on dyngraph.

Expected values and grad_fn names were printed by PyTorch 2.13.
"""
import numpy as np
import pytest

import dyngraph as torch


@pytest.mark.parametrize("name,offset,cls", [
    ("asin", 0, "AsinBackward0"), ("acos", 0, "AcosBackward0"), ("atan", 0, "AtanBackward0"),
    ("sinh", 0, "SinhBackward0"), ("cosh", 0, "CoshBackward0"), ("asinh", 0, "AsinhBackward0"),
    ("acosh", 1, "AcoshBackward0"), ("atanh", 0, "AtanhBackward0"), ("lgamma", 0, "LgammaBackward0"),
    ("digamma", 0, "DigammaBackward0"), ("arcsin", 0, "AsinBackward0")])
def test_unary_grad_fn_names_and_values(name, offset, cls):
    x = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64, requires_grad=True)
    out = getattr(torch, name)(x + offset)
    assert type(out.grad_fn).__name__ == cls
    torch_name = {"arcsin": "arcsin", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
                  "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh"}.get(name, name)
    if hasattr(np, torch_name):
        np.testing.assert_allclose(out.detach().numpy(), getattr(np, torch_name)(x.detach().numpy() + offset))


def test_values_and_gradients_match_pytorch():
    x = torch.tensor([0.3, 1.5, 2.5], dtype=torch.float64, requires_grad=True)
    np.testing.assert_allclose(x.lgamma().detach().numpy(), [1.0957979948180756, -0.12078223763524522,
                                                             0.2846828704729192], rtol=1e-12)
    c = torch.cumprod(x, 0)
    assert type(c.grad_fn).__name__ == "CumprodBackward0"
    c.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.25, 1.05, 0.45])
    y = torch.tensor([1.0], requires_grad=True)
    a = torch.atan2(y, torch.tensor([2.0]))
    assert type(a.grad_fn).__name__ == "Atan2Backward0"
    np.testing.assert_allclose(a.detach().numpy(), [0.4636476], rtol=1e-6)
    p = torch.polygamma(1, x)
    assert type(p.grad_fn).__name__ == "PolygammaBackward0"
    np.testing.assert_allclose(p.detach().numpy()[1], np.pi ** 2 / 2 - 4, rtol=1e-13)  # psi1(3/2)
    z = torch.xlogy(torch.tensor([0., 2.]), torch.tensor([0., 3.]))
    np.testing.assert_allclose(z.numpy(), [0., 2.1972246], rtol=1e-6)


def test_cumprod_integers_widen_as_pytorch():
    assert torch.cumprod(torch.tensor([1, 2, 3], dtype=torch.int32), 0).dtype == torch.int64


def test_poisson_shape_dtype_and_mean():
    torch.manual_seed(0)
    rates = torch.tensor([[1.0, 20.0]] * 3000)
    draws = torch.poisson(rates).numpy()
    assert draws.shape == (3000, 2) and draws.dtype == np.float32
    np.testing.assert_allclose(draws.mean(0), [1.0, 20.0], rtol=0.06)


def test_softplus_and_bce_with_logits_gradients_at_zero_are_pytorchs():
    x = torch.tensor([-1., 0., 2.], requires_grad=True)
    y = torch.nn.functional.softplus(x)
    assert type(y.grad_fn).__name__ == "SoftplusBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.26894143, 0.5, 0.88079708], rtol=1e-6)
    x.grad = None
    loss = torch.nn.functional.binary_cross_entropy_with_logits(x, torch.tensor([1., 1., 0.]),
                                                                reduction="sum")
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.7310586, -0.5, 0.8807971], rtol=1e-6)

"""``size_average=`` / ``reduce=`` on every functional loss and loss module, as PyTorch 2.13.

PyTorch resolves the legacy pair with ``torch.nn._Reduction.legacy_get_string`` (None counts as
True; ``reduce=False`` -> 'none', else ``size_average=False`` -> 'sum', else 'mean'; a given
pair overrides ``reduction=``) and warns.  The sums below are PyTorch's for the same seeded
inputs (``manual_seed(0)``: dyngraph's draws are PyTorch's).
"""
from __future__ import annotations

import warnings

import pytest

import dyngraph as torch
import dyngraph.nn as nn
import dyngraph.nn.functional as F

WARNING = "size_average and reduce args will be deprecated, please use reduction='{}' instead."

LEGACY = [  # keywords -> (reduction PyTorch resolves them to, warns)
    (dict(size_average=False), "sum", True),
    (dict(reduce=False), "none", True),
    (dict(size_average=True), "mean", True),
    (dict(reduce=True), "mean", True),
    (dict(size_average=False, reduce=False), "none", True),
    (dict(size_average=True, reduce=True, reduction="none"), "mean", True),
    (dict(size_average=None, reduce=None, reduction="sum"), "sum", False),
]

TORCH_SUMS = {  # the loss summed over its output, per resolved reduction (PyTorch 2.13)
    "cross_entropy": {"sum": 5.8226, "none": 5.8226, "mean": 1.9409},
    "nll_loss": {"sum": 5.8226, "none": 5.8226, "mean": 1.9409},
    "mse_loss": {"sum": 4.1662, "none": 4.1662, "mean": 0.3472},
    "l1_loss": {"sum": 6.5252, "none": 6.5252, "mean": 0.5438},
    "binary_cross_entropy": {"sum": 11.4269, "none": 11.4269, "mean": 0.9522},
    "binary_cross_entropy_with_logits": {"sum": 7.136, "none": 7.136, "mean": 0.5947},
    "smooth_l1_loss": {"sum": 2.0831, "none": 2.0831, "mean": 0.1736},
    "kl_div": {"sum": 0.6343, "none": 0.6343, "mean": 0.0529},
}
MODULE_OF = {"cross_entropy": "CrossEntropyLoss", "nll_loss": "NLLLoss", "mse_loss": "MSELoss",
             "l1_loss": "L1Loss", "binary_cross_entropy": "BCELoss",
             "binary_cross_entropy_with_logits": "BCEWithLogitsLoss",
             "smooth_l1_loss": "SmoothL1Loss", "kl_div": "KLDivLoss"}


def _inputs() -> dict:
    torch.manual_seed(0)
    p, t = torch.rand(3, 4), (torch.rand(3, 4) > 0.5).float()
    logits, y = torch.randn(3, 4), torch.tensor([0, 3, 1])
    return {"cross_entropy": (logits, y), "nll_loss": (F.log_softmax(logits, 1), y),
            "mse_loss": (p, t), "l1_loss": (p, t), "binary_cross_entropy": (p, t),
            "binary_cross_entropy_with_logits": (logits, t), "smooth_l1_loss": (p, t),
            "kl_div": (F.log_softmax(logits, 1), F.softmax(p, 1))}


def _check(call, name: str, reduction: str, warns: bool):
    """Run ``call()``; its legacy warnings and summed loss must be PyTorch's.  Returns the loss."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    legacy = [str(w.message) for w in caught if "size_average" in str(w.message)]
    assert legacy == ([WARNING.format(reduction)] if warns else [])
    assert round(out.sum().item(), 4) == pytest.approx(TORCH_SUMS[name][reduction], abs=1e-4)
    return out


@pytest.mark.parametrize("name", sorted(TORCH_SUMS))
@pytest.mark.parametrize("keywords, reduction, warns", LEGACY)
def test_functional_losses_resolve_legacy_keywords(name, keywords, reduction, warns):
    args = _inputs()[name]
    out = _check(lambda: getattr(F, name)(*args, **keywords), name, reduction, warns)
    per_element = 1 if name in ("cross_entropy", "nll_loss") else 2   # 'none': one per target
    assert out.dim() == (per_element if reduction == "none" else 0)


@pytest.mark.parametrize("name", sorted(TORCH_SUMS))
@pytest.mark.parametrize("keywords, reduction, warns", LEGACY)
def test_loss_modules_resolve_legacy_keywords(name, keywords, reduction, warns):
    args = _inputs()[name]
    made = []

    def construct_and_call():  # the warning comes from the constructor
        made.append(getattr(nn, MODULE_OF[name])(**keywords))
        return made[0](*args)

    _check(construct_and_call, name, reduction, warns)
    assert made[0].reduction == reduction


def test_positional_legacy_arguments_in_pytorchs_order():
    p, t = _inputs()["binary_cross_entropy"]
    with pytest.warns(UserWarning, match="reduction='none'"):
        assert F.mse_loss(p, t, False, False).shape == (3, 4)    # (size_average, reduce)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        assert round(F.binary_cross_entropy(p, t, None, False).item(), 4) == 11.4269
    assert not isinstance(nn.L1Loss(), nn.MSELoss)               # both plain _Loss subclasses


def test_the_classic_vae_loss():
    """pytorch/examples' VAE: ``F.binary_cross_entropy(recon, x.view(-1, 784), size_average=False)``."""
    torch.manual_seed(0)
    recon, x = torch.rand(2, 784, requires_grad=True), torch.rand(2, 1, 28, 28)
    with pytest.warns(UserWarning, match=r"reduction='sum'"):
        legacy = F.binary_cross_entropy(recon, x.view(-1, 784), size_average=False)
    assert torch.equal(legacy, F.binary_cross_entropy(recon, x.view(-1, 784), reduction="sum"))
    legacy.backward()
    assert recon.grad.shape == (2, 784)

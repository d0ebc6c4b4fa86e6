"""Composite functions: plain Python over registry ops, so every engine gets them free.

Each takes ``F`` first; an engine exposes them with its own ``F`` bound, and
their gradients come from the primitives they are made of.
"""
from __future__ import annotations

__all__ = ["cross_entropy", "mse_loss", "linear"]


def cross_entropy(F, logits, labels):
    """Mean over the batch of ``-log softmax(logits)[label]``."""
    return F.mean(F.sparse_softmax_cross_entropy(logits, labels))


def mse_loss(F, prediction, target):
    """Mean of squared differences."""
    d = F.sub(prediction, target)
    return F.mean(F.mul(d, d))


def linear(F, x, weight, bias=None):
    """``x @ weight^T + bias`` with ``weight`` shaped ``(out, in)``, as torch's Linear."""
    y = F.matmul(x, F.transpose(weight, perm=(1, 0)))
    return y if bias is None else F.add(y, bias)

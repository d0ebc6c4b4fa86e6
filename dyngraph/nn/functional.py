"""``torch.nn.functional``: activations and losses.

The losses are the registry's composites (``common/composites.py``) run with
this engine's ``F``, so their gradients come from the primitives they use.
"""
from __future__ import annotations

from common import composites

from .. import functions as _f
from ..functions import OPS

__all__ = ["relu", "tanh", "sigmoid", "softmax", "log_softmax", "cross_entropy", "mse_loss",
           "linear"]

relu, tanh, sigmoid = _f.relu, _f.tanh, _f.sigmoid


def softmax(input, dim=None):
    return _f.softmax(input, -1 if dim is None else dim)


def log_softmax(input, dim=None):
    return _f.log_softmax(input, -1 if dim is None else dim)


def cross_entropy(input, target, reduction: str = "mean"):
    """Mean over the batch of ``-log softmax(input)[target]`` (class-index targets)."""
    if reduction == "mean":
        return composites.cross_entropy(OPS, input, target)
    losses = OPS.sparse_softmax_cross_entropy(input, target)
    return losses.sum() if reduction == "sum" else losses


def mse_loss(input, target, reduction: str = "mean"):
    if reduction == "mean":
        return composites.mse_loss(OPS, input, target)
    d = input - target
    return (d * d).sum() if reduction == "sum" else d * d


def linear(input, weight, bias=None):
    return composites.linear(OPS, input, weight, bias)


from .functional_layers import *  # noqa: E402,F401,F403  (the layer functions live there)
from .functional_layers import __all__ as _layers_all  # noqa: E402

__all__ += _layers_all

"""``tf.nn``: activations, softmaxes and cross-entropies over registry ops."""
from __future__ import annotations

from common import REGISTRY

from .build import apply, convert_to_tensor
from .math_ops import top_k  # noqa: F401  (tf.nn.top_k)
from .ops import multiply, negative, reduce_sum, sigmoid, square, tanh  # noqa: F401  (re-exported)

__all__ = ["relu", "softmax", "log_softmax", "sigmoid", "tanh",
           "sparse_softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
           "softmax_cross_entropy_with_logits_v2", "l2_loss", "top_k"]


def relu(features, name=None):
    return apply(REGISTRY["Relu"], (convert_to_tensor(features),), {}, name=name)


def softmax(logits, axis=None, name=None, dim=None):
    axis = -1 if axis is None and dim is None else (axis if axis is not None else dim)
    return apply(REGISTRY["Softmax"], (convert_to_tensor(logits),), {"axis": axis}, name=name)


def log_softmax(logits, axis=None, name=None, dim=None):
    axis = -1 if axis is None and dim is None else (axis if axis is not None else dim)
    return apply(REGISTRY["LogSoftmax"], (convert_to_tensor(logits),), {"axis": axis}, name=name)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Per-example ``-log softmax(logits)[label]``; TF insists on keyword arguments."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `sparse_softmax_cross_entropy_with_logits` with named "
                         "arguments (labels=..., logits=..., ...).")
    return apply(REGISTRY["SparseSoftmaxCrossEntropyWithLogits"],
                 (convert_to_tensor(logits), convert_to_tensor(labels)), {}, name=name)


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, axis=-1, name=None):
    """``-sum(labels * log_softmax(logits))`` along ``axis`` (dense labels)."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...)")
    return negative(reduce_sum(multiply(labels, log_softmax(logits, axis=axis)), axis=axis), name=name)


softmax_cross_entropy_with_logits_v2 = softmax_cross_entropy_with_logits


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    return multiply(reduce_sum(square(t)), 0.5, name=name or "L2Loss")


from .nn_layers import *  # noqa: E402,F401,F403  (the layer functions live there)
from .nn_layers import __all__ as _layers_all  # noqa: E402

__all__ += _layers_all

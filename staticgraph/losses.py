"""``tf.losses`` (TF1): mean losses built from the registry's composites and ops."""
from __future__ import annotations

from common import composites

from .build import F, convert_to_tensor
from .ops import reduce_mean, square, subtract

__all__ = ["mean_squared_error", "sparse_softmax_cross_entropy"]


def mean_squared_error(labels, predictions, weights=1.0, scope=None):
    if weights != 1.0:
        raise NotImplementedError("weights other than 1.0 are not supported")
    return reduce_mean(square(subtract(predictions, labels)))


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None):
    if weights != 1.0:
        raise NotImplementedError("weights other than 1.0 are not supported")
    return composites.cross_entropy(F, convert_to_tensor(logits), convert_to_tensor(labels))

"""``tf.losses`` (TF1): per-element losses, weighted and reduced as TF does, and collected.

Every loss goes through :func:`compute_weighted_loss`::

    weighted = losses * weights                      (weights broadcast to the losses)
    NONE                         weighted
    SUM                          sum(weighted)
    MEAN                         sum(weighted) / sum(broadcast weights)
    SUM_OVER_BATCH_SIZE          sum(weighted) / number of elements
    SUM_BY_NONZERO_WEIGHTS       sum(weighted) / number of non-zero weights   (the default)

(a zero denominator gives 0, as TF's ``div_no_nan``) and the result is added
to the ``LOSSES`` collection, which ``get_total_loss`` sums with the
regularization losses.

>>> import staticgraph as tf
>>> tf.losses.mean_squared_error([1.0, 2.0], [1.0, 4.0]).name
'mean_squared_error/value:0'
"""
from __future__ import annotations

from ..framework import dtypes as _dtypes
from ..framework.build import F, constant, convert_to_tensor
from ..framework.graph import get_default_graph, name_scope
from ..framework.graph_keys import GraphKeys
from .nn_ops import relu, sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2
from .core_ops import (abs as _abs, add, add_n, cast, greater, log, minimum, multiply, negative,
                       not_equal, ones_like, reduce_sum, square, subtract, truediv, where,
                       zeros_like)

__all__ = ["Reduction", "compute_weighted_loss", "mean_squared_error", "absolute_difference",
           "huber_loss", "log_loss", "softmax_cross_entropy", "sparse_softmax_cross_entropy",
           "sigmoid_cross_entropy", "hinge_loss", "cosine_distance", "add_loss", "get_losses", "get_regularization_losses",
           "get_regularization_loss", "get_total_loss"]


class Reduction:
    """How a weighted loss tensor becomes the loss (see the module docstring)."""

    NONE = "none"
    SUM = "weighted_sum"
    MEAN = "weighted_mean"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def _div_no_nan(num, den, name: str):
    safe = where(greater(den, 0.0), den, ones_like(den))
    return where(greater(den, 0.0), truediv(num, safe), zeros_like(num), name=name)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``losses`` weighted and reduced (module docstring), added to ``loss_collection``."""
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss"):
        # as TF: computed in float32 whatever the losses' dtype, the result cast back to it
        losses = convert_to_tensor(losses)
        dtype = losses.dtype
        losses = cast(losses, _dtypes.float32)
        weights = cast(convert_to_tensor(weights), _dtypes.float32)
        weighted = multiply(losses, weights, name="Mul")
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            total = reduce_sum(weighted, name="Sum")
            if reduction == Reduction.SUM:
                loss = total
            else:
                wb = multiply(weights, ones_like(losses))
                if reduction == Reduction.MEAN:
                    den = reduce_sum(wb)
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    den = reduce_sum(ones_like(losses))
                else:
                    den = reduce_sum(cast(not_equal(wb, 0.0), losses.dtype), name="num_present")
                loss = _div_no_nan(total, den, name="value")
        loss = cast(loss, dtype)
        if loss_collection:
            get_default_graph().add_to_collection(loss_collection, loss)
        return loss


def _reduce(losses, weights, scope, default, loss_collection, reduction):
    with name_scope(scope, default) as sc:
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``(predictions - labels) ** 2``."""
    with name_scope(scope, "mean_squared_error") as sc:
        predictions, labels = _floats(predictions, labels)
        losses = square(subtract(predictions, labels), name="SquaredDifference")
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``|predictions - labels|``."""
    with name_scope(scope, "absolute_difference") as sc:
        predictions, labels = _floats(predictions, labels)
        losses = _abs(subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``0.5 e^2`` for ``|e| <= delta``, else ``delta (|e| - 0.5 delta)``, with ``e = p - l``."""
    with name_scope(scope, "huber_loss") as sc:
        predictions, labels = _floats(predictions, labels)
        error = _abs(subtract(predictions, labels))
        quadratic = minimum(error, delta)
        linear = subtract(error, quadratic)
        losses = add(multiply(square(quadratic), 0.5), multiply(linear, delta))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``-l log(p + eps) - (1 - l) log(1 - p + eps)``."""
    with name_scope(scope, "log_loss") as sc:
        predictions, labels = _floats(predictions, labels)
        losses = subtract(negative(multiply(labels, log(add(predictions, epsilon)))),
                          multiply(subtract(1.0, labels), log(add(subtract(1.0, predictions), epsilon))))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def _floats(predictions, labels):
    """Both in float32, as TF's regression losses take them (a float64 pair too)."""
    p = cast(convert_to_tensor(predictions), _dtypes.float32)
    lab = cast(convert_to_tensor(labels), _dtypes.float32)
    if p.shape.rank is not None and lab.shape.rank is not None and \
            not p.shape.is_compatible_with(lab.shape):
        raise ValueError(f"Shapes {p.shape} and {lab.shape} are incompatible")
    return p, lab


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Cross-entropy of ``softmax(logits)`` against (smoothed) one-hot labels, per example."""
    with name_scope(scope, "softmax_cross_entropy_loss") as sc:
        logits = convert_to_tensor(logits)
        labels = cast(convert_to_tensor(onehot_labels), logits.dtype)
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError(f"Shapes {logits.shape} and {labels.shape} are incompatible")
        if label_smoothing:
            n = logits.shape.as_list()[-1]
            labels = add(multiply(labels, 1.0 - label_smoothing), label_smoothing / n)
        losses = softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Cross-entropy of ``softmax(logits)`` against integer class labels, per example."""
    with name_scope(scope, "sparse_softmax_cross_entropy_loss") as sc:
        logits, labels = convert_to_tensor(logits), convert_to_tensor(labels)
        losses = F.sparse_softmax_cross_entropy(logits, labels)
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Binary cross-entropy of ``sigmoid(logits)`` against (smoothed) 0/1 labels, per element."""
    with name_scope(scope, "sigmoid_cross_entropy_loss") as sc:
        logits = convert_to_tensor(logits)
        labels = cast(convert_to_tensor(multi_class_labels), logits.dtype)
        if label_smoothing:
            labels = add(multiply(labels, 1.0 - label_smoothing), 0.5 * label_smoothing)
        losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``max(0, 1 - (2 labels - 1) logits)`` for 0/1 labels."""
    with name_scope(scope, "hinge_loss") as sc:
        logits, labels = _floats(logits, labels)
        signed = subtract(multiply(labels, 2.0), 1.0)
        losses = relu(subtract(1.0, multiply(signed, logits)))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
                    dim=None):
    """``1 - sum(labels * predictions, axis)`` for unit-normalized inputs."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with name_scope(scope, "cosine_distance_loss") as sc:
        predictions, labels = _floats(predictions, labels)
        losses = subtract(1.0, reduce_sum(multiply(predictions, labels), axis, keepdims=True))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def add_loss(loss, loss_collection=GraphKeys.LOSSES) -> None:
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES) -> list:
    return get_default_graph().get_collection(loss_collection, scope)


def get_regularization_losses(scope=None) -> list:
    return get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (a constant 0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    return add_n(losses, name=name) if losses else constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the collected losses (and the regularization losses)."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found in the collections.")
    return add_n(losses, name=name)


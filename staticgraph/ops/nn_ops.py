"""``tf.nn``'s own functions: activations, softmaxes and cross-entropies over registry ops.

``staticgraph/nn.py`` (the ``tf.nn`` namespace) re-exports ``__all__`` from here: these, the layer
functions of ``nn_layers``, ``rnn_cell`` and the RNN drivers.
"""
from __future__ import annotations

from common import REGISTRY

from . import rnn_cell
from ..framework import dtypes as _dtypes
from ..framework.build import apply, convert_to_tensor
from ..framework.errors import InvalidArgumentError
from ..framework.graph import name_scope
from .math_ops import in_top_k, log_sigmoid, softplus, top_k
from .nn_layers import *  # noqa: F403  (the layer functions live there)
from .nn_layers import __all__ as _layers_all
from .core_ops import (abs as _abs, add, cast, concat, exp, greater, log, matmul, maximum, minimum,
                       multiply, negative, reduce_sum, sigmoid, sqrt, square, subtract, tanh,
                       truediv, where)
from .rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn

__all__ = ["relu", "softmax", "log_softmax", "sigmoid", "tanh",
           "sparse_softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
           "softmax_cross_entropy_with_logits_v2", "l2_loss", "top_k", "in_top_k", "log_sigmoid",
           "softsign", "xw_plus_b", "selu", "swish", "silu", "weighted_cross_entropy_with_logits",
           "sigmoid_cross_entropy_with_logits", "softplus", "elu", "leaky_relu", "relu6",
           "l2_normalize", "rnn_cell", "dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn",
           "static_bidirectional_rnn", *_layers_all]


def relu(features, name=None):
    return apply(REGISTRY["Relu"], (convert_to_tensor(features),), {}, name=name)


def softmax(logits, axis=None, name=None, dim=None):
    axis = -1 if axis is None and dim is None else (axis if axis is not None else dim)
    logits = convert_to_tensor(logits)
    _check_softmax_axis(logits, axis)
    return apply(REGISTRY["Softmax"], (logits,), {"axis": axis}, name=name)


def log_softmax(logits, axis=None, name=None, dim=None):
    axis = -1 if axis is None and dim is None else (axis if axis is not None else dim)
    logits = convert_to_tensor(logits)
    _check_softmax_axis(logits, axis)
    return apply(REGISTRY["LogSoftmax"], (logits,), {"axis": axis}, name=name)


def _check_softmax_axis(logits, axis) -> None:
    """TF's wrapper refuses an axis outside the rank with an InvalidArgumentError (its words)."""
    rank = logits.ndim
    if rank is not None and isinstance(axis, int) and not -rank <= axis < rank:
        raise InvalidArgumentError(None, None, f"`dim` must be in the range [{-rank}, {rank}) "
                                               f"where {rank} is the number of dimensions in the "
                                               f"input. Received: dim={axis}")


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Per-example ``-log softmax(logits)[label]``; TF insists on keyword arguments."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `sparse_softmax_cross_entropy_with_logits` with named "
                         "arguments (labels=..., logits=..., ...).")
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits"):   # TF: the op inside its scope
        labels, logits = convert_to_tensor(labels), convert_to_tensor(logits)
        _check_sparse_xent_shapes(labels.shape, logits)
        return apply(REGISTRY["SparseSoftmaxCrossEntropyWithLogits"], (logits, labels), {},
                     name=name)


def _check_sparse_xent_shapes(labels, logits) -> None:
    """TF's build-time ValueErrors (its Python wrapper's words, before the op's shape rule)."""
    if logits.shape.ndims == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
    ranks = labels.ndims, logits.shape.ndims
    if None not in ranks and ranks[0] != ranks[1] - 1:
        raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                         f"labels.shape={labels} of rank {ranks[0]} and "
                         f"logits.shape={logits.shape} of rank {ranks[1]}")
    if None not in ranks and not labels.is_compatible_with(logits.shape[:-1]):
        raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last "
                         f"dimension. Received: labels.shape={labels} and "
                         f"logits.shape={logits.shape}")


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None,
                                      axis=None):
    """TF1's spelling: keyword arguments only (``labels=..., logits=...``)."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...)")
    with name_scope(name, "softmax_cross_entropy_with_logits_sg") as scope:
        return softmax_cross_entropy_with_logits_v2(labels, logits,
                                                    axis=dim if axis is None else axis, name=scope)


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=-1, name=None, dim=None):
    """``-sum(labels * log_softmax(logits))`` along ``axis`` (dense labels)."""
    axis = dim if dim is not None else axis
    labels, logits = convert_to_tensor(labels), convert_to_tensor(logits)
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"Shapes {labels.shape} and {logits.shape} are incompatible")
    with name_scope(name, "softmax_cross_entropy_with_logits"):
        if labels.dtype != logits.dtype:   # TF casts the labels to the logits' dtype
            labels = cast(labels, logits.dtype)
        # TF flattens to 2-D and back; its result is the scope's third Reshape, and ours
        # carries that name so a fetch by name finds it
        return negative(reduce_sum(multiply(labels, log_softmax(logits, axis=axis)), axis=axis),
                        name="Reshape_2")


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None):
    """Sigmoid cross-entropy with the positive term weighted by ``pos_weight`` (TF's stable
    form: ``(1 - z) x + (1 + (q - 1) z) (log(1 + exp(-|x|)) + max(-x, 0))``)."""
    labels = targets if labels is None else labels
    with name_scope(name, "logistic_loss") as scope:
        x, z = convert_to_tensor(logits), convert_to_tensor(labels)
        log_weight = add(multiply(z, pos_weight - 1.0), 1.0)
        # TF's composite, kept as TF builds it: its gradient at x == 0 ignores the tail's (0 there)
        tail = add(log(add(exp(negative(_abs(x))), 1.0)), relu(negative(x)))
        return add(multiply(subtract(1.0, z), x), multiply(log_weight, tail), name=scope)


def selu(features, name=None):
    """``scale * elu(x)`` with ``elu``'s negative side scaled by ``alpha`` (the SELU constants)."""
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    with name_scope(name, "Selu") as scope:     # TF's one op: our parts live in its scope
        x = convert_to_tensor(features)
        neg = multiply(subtract(exp(minimum(x, 0.0)), 1.0), alpha)   # exp of x <= 0 only: finite grads
        return multiply(where(greater(x, 0.0), x, neg), scale, name=scope)


def swish(features, beta=1.0, name=None):
    """``x * sigmoid(beta * x)`` (also ``tf.nn.silu``)."""
    with name_scope(name, "swish") as scope:
        x = convert_to_tensor(features)
        return multiply(x, sigmoid(multiply(x, beta) if beta != 1.0 else x), name=scope)


silu = swish


def xw_plus_b(x, weights, biases, name=None):
    """``matmul(x, weights) + biases`` (TF1's ``tf.nn.xw_plus_b``), named ``xw_plus_b``."""
    with name_scope(name, "xw_plus_b") as scope:
        return bias_add(matmul(x, weights), biases, name=scope)


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    with name_scope(name, "L2Loss") as scope:
        return multiply(reduce_sum(square(t)), 0.5, name=scope)


# --- composites TF1 programs reach for (gradients come from the ops they are made of) -------

def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """``softplus(x) - x * z`` (TF's ``max(x, 0) - x * z + log(1 + exp(-|x|))``), overflow-free."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `sigmoid_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...)")
    with name_scope(name, "logistic_loss") as scope:  # TF's layout: the parts under logistic_loss/
        x = convert_to_tensor(logits)
        z = convert_to_tensor(labels, dtype=x.dtype)
        if not x.shape.is_compatible_with(z.shape):
            raise ValueError(f"logits and labels must have the same shape ({x.shape} vs {z.shape})")
        return add(negative(multiply(x, z)), softplus(x), name=scope)


def elu(features, name=None):
    """``x`` where positive, ``exp(x) - 1`` elsewhere."""
    with name_scope(name, "Elu") as scope:
        x = convert_to_tensor(features)
        return where(greater(x, 0.0), x, subtract(exp(minimum(x, 0.0)), 1.0), name=scope)


def leaky_relu(features, alpha=0.2, name=None):
    """``x`` where positive, ``alpha * x`` elsewhere (TF's default ``alpha`` is 0.2; an
    ``alpha`` above 1 or below 0 is no ``max(x, alpha * x)``).  Integer features are cast to
    float32 first, as TF does."""
    with name_scope(name, "LeakyRelu") as scope:
        x = convert_to_tensor(features)
        if x.dtype.is_integer:
            x = cast(x, _dtypes.float32)
        return where(greater(x, 0.0), x, multiply(x, alpha), name=scope)


def relu6(features, name=None):
    """``min(max(x, 0), 6)``; its gradient is TF's ``Relu6Grad``: ``g`` where ``0 < x < 6``
    (none at the bounds, none at NaN: ClipByValue's ``bounds_open``)."""
    with name_scope(name, "Relu6") as scope:
        return apply(REGISTRY["ClipByValue"], (convert_to_tensor(features),),
                     {"lo": 0.0, "hi": 6.0, "bounds_open": True}, name=scope)


def softsign(features, name=None):
    """``x / (1 + |x|)``."""
    with name_scope(name, "Softsign") as scope:
        x = convert_to_tensor(features)
        return truediv(x, add(_abs(x), 1), name=scope)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))``."""
    axis = dim if axis is None else axis
    with name_scope(name, "l2_normalize") as scope:
        x = convert_to_tensor(x)
        ss = reduce_sum(square(x), axis, keepdims=True)
        return truediv(x, sqrt(maximum(ss, epsilon)), name=scope)


# --- issue #30 (TF's relu and conv tests) -------------------------------------------------

def crelu(features, name=None, axis=-1):
    """``relu(concat([x, -x], axis))``: both signs' activations side by side, as TF builds it
    (``CRelu/Neg``, the concat named ``CRelu``, then ``CRelu/Relu``)."""
    with name_scope(name, "CRelu") as scope:
        features = convert_to_tensor(features, name="features")
        both = concat([features, negative(features)], axis, name=scope)
        return relu(both)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None,  # noqa: A002
                     name=None, data_format=None, dilations=None):
    """A depthwise conv2d (one filter set per input channel) then a 1x1 conv2d mixing the
    channels (``pointwise_filter``: ``[1, 1, in * multiplier, out]``), as TF composes it."""
    with name_scope(name, "separable_conv2d") as scope:
        depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, rate=rate,
                                     name="depthwise", data_format=data_format,
                                     dilations=dilations)
        return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], padding="VALID",
                      data_format=data_format or "NHWC", name=scope)


__all__ += ["crelu", "separable_conv2d"]

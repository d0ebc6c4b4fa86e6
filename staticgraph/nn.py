"""``tf.nn``: activations, softmaxes and cross-entropies over registry ops."""
from __future__ import annotations

from common import REGISTRY

from .build import apply, convert_to_tensor
from .ops import multiply, negative, reduce_sum, sigmoid, square, tanh  # noqa: F401  (re-exported)

__all__ = ["relu", "softmax", "log_softmax", "sigmoid", "tanh",
           "sparse_softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
           "softmax_cross_entropy_with_logits_v2", "l2_loss", "sigmoid_cross_entropy_with_logits",
           "softplus", "elu", "leaky_relu", "relu6", "bias_add", "l2_normalize", "moments", "dropout",
           "embedding_lookup"]


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


# --- composites TF1 programs reach for (gradients come from the ops they are made of) -------

def _abs_neg_exp_log1p(x):
    """``log(1 + exp(-|x|))``: the stable tail shared by softplus and the sigmoid cross-entropy."""
    from .ops import abs as _abs, add, exp, log  # noqa: PLC0415
    return log(add(exp(negative(_abs(x))), 1.0))


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """``max(x, 0) - x * z + log(1 + exp(-|x|))``: TF's overflow-free form."""
    from .ops import add, subtract  # noqa: PLC0415
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `sigmoid_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...)")
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels, dtype=x.dtype)
    if not x.shape.is_compatible_with(z.shape):
        raise ValueError(f"logits and labels must have the same shape ({x.shape} vs {z.shape})")
    return add(subtract(relu(x), multiply(x, z)), _abs_neg_exp_log1p(x), name=name or "logistic_loss")


def softplus(features, name=None):
    """``log(1 + exp(x))`` computed as ``max(x, 0) + log(1 + exp(-|x|))``."""
    from .ops import add  # noqa: PLC0415
    x = convert_to_tensor(features)
    return add(relu(x), _abs_neg_exp_log1p(x), name=name or "Softplus")


def elu(features, name=None):
    """``x`` where positive, ``exp(x) - 1`` elsewhere."""
    from .ops import exp, greater, minimum, subtract, where  # noqa: PLC0415
    x = convert_to_tensor(features)
    return where(greater(x, 0.0), x, subtract(exp(minimum(x, 0.0)), 1.0), name=name or "Elu")


def leaky_relu(features, alpha=0.2, name=None):
    """``max(x, alpha * x)`` (TF's default ``alpha`` is 0.2)."""
    from .ops import maximum  # noqa: PLC0415
    x = convert_to_tensor(features)
    return maximum(x, multiply(x, alpha), name=name or "LeakyRelu")


def relu6(features, name=None):
    from .ops import minimum  # noqa: PLC0415
    return minimum(relu(features), 6.0, name=name or "Relu6")


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` along the last axis (``bias`` must be a vector of that size)."""
    from .ops import add  # noqa: PLC0415
    value, bias = convert_to_tensor(value), convert_to_tensor(bias)
    if bias.ndim != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {bias.ndim} for 'BiasAdd'")
    return add(value, bias, name=name or "BiasAdd")


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))``."""
    from .ops import maximum, reduce_sum, sqrt, truediv  # noqa: PLC0415
    x = convert_to_tensor(x)
    axis = dim if axis is None else axis
    ss = reduce_sum(square(x), axis, keepdims=True)
    return truediv(x, sqrt(maximum(ss, epsilon)), name=name or "l2_normalize")


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """``(mean, variance)`` of ``x`` over ``axes``."""
    from .graph import name_scope  # noqa: PLC0415
    from .ops import reduce_mean, squeeze, stop_gradient, subtract  # noqa: PLC0415
    keep = bool(keepdims if keepdims is not None else keep_dims)
    x = convert_to_tensor(x)
    axes = list(axes)
    with name_scope(name, "moments"):
        mean = reduce_mean(x, axes, keepdims=True, name="mean")
        variance = reduce_mean(square(subtract(x, stop_gradient(mean))), axes, keepdims=True,
                               name="variance")
        if not keep:
            mean, variance = squeeze(mean, axes), squeeze(variance, axes)
        return mean, variance


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zero each element with probability ``rate`` (= 1 - keep_prob); scale the rest by 1/keep.

    A fresh mask every run (a random op); ``noise_shape`` broadcasts one mask.
    """
    from .graph import name_scope  # noqa: PLC0415
    from .ops import cast, greater_equal, truediv  # noqa: PLC0415
    from .random_ops import random_uniform  # noqa: PLC0415
    if rate is None:
        if keep_prob is None:
            raise ValueError("Either rate or keep_prob must be provided")
        rate = 1.0 - keep_prob
    x = convert_to_tensor(x)
    if isinstance(rate, (int, float)) and not 0 <= rate < 1:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got {rate}")
    with name_scope(name, "dropout"):
        if noise_shape is not None:
            shape = list(noise_shape)
        elif x.shape.is_fully_defined():
            shape = x.shape.as_list()
        else:
            from .array_ops import shape as shape_of  # noqa: PLC0415
            shape = shape_of(x)  # a None batch dim: the mask is drawn at x's run-time shape
        keep = random_uniform(shape, dtype=x.dtype, seed=seed)
        mask = cast(greater_equal(keep, rate), x.dtype)
        return multiply(truediv(x, 1.0 - rate), mask)


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Rows of ``params`` picked by ``ids`` (a gather on axis 0; its gradient scatters back)."""
    from .array_ops import gather  # noqa: PLC0415
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise ValueError("embedding_lookup over several partitioned tables is not supported here")
        params = params[0]
    if max_norm is not None:
        raise ValueError("embedding_lookup(max_norm=) is not supported here")
    return gather(params, ids, name=name or "embedding_lookup")

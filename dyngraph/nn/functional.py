"""``torch.nn.functional``: activations and losses, as compositions of registry ops.

Gradients come from the primitives each is built from.  The losses check
their arguments as PyTorch does (target dtype and shape, reduction name) and
raise PyTorch's errors; ``mse_loss``/``l1_loss`` warn, as PyTorch does, when
the target's shape differs and broadcasting would silently change the result.

>>> import dyngraph as torch
>>> cross_entropy(torch.tensor([[2.0, 0.0]]), torch.tensor([0])).item() < 0.13
True
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from common import REGISTRY, composites

from .. import functions as _f
from .. import pointwise as _pw
from ..engine import apply, node_class_for as _node_class_for
from ..functions import OPS, _t
from ..linalg import vector_norm
from ..selection import where
from ..node import Node, node_class  # noqa: F401  (public names of this module since before)
from ..node import renamed as _named, torch_node as _torch_node
from ..tensor import make
from .functional_attention import (_canonical_mask, _none_or_dtype,  # noqa: F401 (torch's names)
                                   multi_head_attention_forward, scaled_dot_product_attention)
from . import _reduction
from .functional_layers import *  # noqa: F403  (the layer functions live there)
from .functional_layers import __all__ as _layers_all
from .functional_activations import *  # noqa: F403  (logsigmoid, glu, mish, selu ...)
from .functional_activations import __all__ as _activations_all
from .functional_resample import *  # noqa: F403  (interpolate, pixel_shuffle, group_norm ...)
from .functional_resample import __all__ as _resample_all
from .functional_extra import *  # noqa: F403  (hardshrink, prelu, pdist, dropout2d ...)
from .functional_extra import __all__ as _extra_all
from .functional_losses import *  # noqa: F403  (margin, embedding, triplet, Poisson losses ...)
from .functional_losses import __all__ as _losses_all
from .functional_pool import *  # noqa: F403  (3-d, adaptive, fractional pooling, max_unpool ...)
from .functional_pool import __all__ as _pool_all
from .functional_conv import *  # noqa: F403  (conv3d, conv_transpose1d/3d)
from .functional_conv import __all__ as _conv_all
from .functional_grid import *  # noqa: F403  (grid_sample, affine_grid)
from .functional_grid import __all__ as _grid_all
from .functional_ctc import ctc_loss  # noqa: F401  (listed in __all__ below)

__all__ = ["relu", "relu_", "relu6", "tanh", "sigmoid", "softmax", "log_softmax", "leaky_relu",
           "gelu", "elu", "softplus", "silu", "hardtanh", "linear", "one_hot", "normalize",
           "cosine_similarity",
           "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss", "kl_div",
           "scaled_dot_product_attention", "multi_head_attention_forward", *_layers_all,
           *_activations_all, *_resample_all, *_extra_all, *_losses_all, *_pool_all, *_conv_all, *_grid_all, "ctc_loss"]

_R = REGISTRY

# --- activations -------------------------------------------------------------------------------


def _maybe_inplace(fn, input, inplace: bool, *args):
    return _pw.inplace(fn)(input, *args) if inplace else fn(input, *args)


def relu(input, inplace: bool = False):
    return _maybe_inplace(_f.relu, input, inplace)


def relu_(input):
    return relu(input, True)


tanh, sigmoid = _f.tanh, _f.sigmoid


def softmax(input, dim=None, dtype=None):
    return _f.softmax(input, -1 if dim is None else dim, dtype)


def log_softmax(input, dim=None, dtype=None):
    return _f.log_softmax(input, -1 if dim is None else dim, dtype)


@_torch_node("LeakyReluBackward0")
def _leaky(input, negative_slope):
    return apply(_R["Select"], (_f.gt(input, 0), input, _f.mul(input, negative_slope)),
                 cls=_leaky.node)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    return _maybe_inplace(_leaky, input, inplace, negative_slope)


@_torch_node("EluBackward0")
def _elu(input, alpha):
    """``x`` above 0, ``alpha * expm1(x)`` below. ``expm1`` sees ``min(x, 0)``: on the branch
    not taken it would overflow for large ``x``, and ``0 * inf`` makes the gradient NaN."""
    positive = _f.gt(input, 0)
    below = apply(_R["Select"], (positive, 0.0, input))
    return apply(_R["Select"], (positive, input, _f.mul(_pw.expm1(below), alpha)),
                 cls=_elu.node)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    return _maybe_inplace(_elu, input, inplace, alpha)


@_torch_node("GeluBackward0")
def gelu(input, approximate: str = "none"):
    """``x * Phi(x)`` (erf form) or PyTorch's tanh approximation."""
    if approximate == "tanh":
        inner = _f.mul(_f.add(input, _f.mul(_f.pow(input, 3), 0.044715)), math.sqrt(2 / math.pi))
        return apply(_R["Mul"], (_f.mul(input, 0.5), _f.add(_f.tanh(inner), 1.0)), cls=gelu.node)
    if approximate != "none":
        raise RuntimeError("approximate argument must be either none or tanh.")
    cdf = _f.mul(_f.add(_pw.erf(_f.mul(input, 1 / math.sqrt(2))), 1.0), 0.5)
    return apply(_R["Mul"], (input, cdf), cls=gelu.node)


def _softplus_stable(x):
    """``log(1 + exp(x))`` without overflow; its gradient is ``sigmoid(x)``, 1/2 at 0."""
    return apply(_R["Softplus"], (x,))


@_torch_node("SoftplusBackward0")
def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """``log(1 + exp(beta*x)) / beta``, linear above ``threshold`` (as PyTorch)."""
    bx = _f.mul(input, beta)
    smooth = _f.div(_softplus_stable(bx), beta)
    return apply(_R["Select"], (_f.gt(bx, threshold), input, smooth),
                 cls=softplus.node)


@_torch_node("SiluBackward0")
def _silu(input):
    return apply(_R["Mul"], (input, _f.sigmoid(input)), cls=_silu.node)


def silu(input, inplace: bool = False):
    return _maybe_inplace(_silu, input, inplace)


_HARDTANH = _node_class_for(_R["ClipByValue"], "hardtanh")


def _hardtanh(input, min_val, max_val):
    """``clamp(x, min_val, max_val)`` with torch's ``hardtanh_backward``: no gradient at the
    bounds themselves (``clamp`` passes it there) and ``x``'s gradient at NaN."""
    return apply(_R["ClipByValue"], (input,), {"lo": min_val, "hi": max_val, "bounds_open": True,
                                                "nan_passes": True}, cls=_HARDTANH)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    return _maybe_inplace(_hardtanh, input, inplace, min_val, max_val)


def relu6(input, inplace: bool = False):
    return hardtanh(input, 0.0, 6.0, inplace)


@_torch_node(addmm="AddmmBackward0", view="ViewBackward0")
def linear(input, weight, bias=None):
    """PyTorch runs a 2-D input with a bias as one ``addmm``, any other rank as that on the
    flattened rows and a view back: the last node is named for it (without a bias, the matmul
    names its own node)."""
    if input.dim() == 1:   # a vector: the registry's MatMul takes matrices, dyngraph's matmul both
        y = _f.matmul(input, _f.transpose(weight, 0, 1))
        return y if bias is None else _named(_f.add(y, bias), linear.nodes["view"])
    y = composites.linear(OPS, input, weight, bias)
    return y if bias is None else _named(y, linear.nodes["addmm" if input.dim() == 2 else "view"])


def one_hot(tensor, num_classes: int = -1):
    if tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1 and not tensor._data.size:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    n = int(tensor._data.max()) + 1 if num_classes == -1 else num_classes
    if tensor._data.size and (tensor._data.min() < 0 or tensor._data.max() >= n):
        raise RuntimeError("Class values must be smaller than num_classes."
                           if tensor._data.min() >= 0 else "Class values must be non-negative.")
    return apply(_R["OneHot"], (tensor,), {"depth": n, "dtype": np.dtype(np.int64)})


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """``sum(x1/max(|x1|, eps) * x2/max(|x2|, eps))`` along ``dim`` (PyTorch 2's formula).

    The clamp is applied to the squared norm (``eps**2``) before the square
    root: the same value, and a finite gradient at a zero vector. The inputs are
    broadcast against each other first, as torch does: a norm along ``dim`` is then
    taken over the broadcast length (``[5, 1]`` against ``[1, 5]`` at ``dim=-2``).
    """
    x1, x2 = _f.broadcast_tensors(x1, x2)

    def unit(x):
        return _f.div(x, _f.sqrt(_f.clamp(_f.sum(_f.mul(x, x), dim, True), min=eps * eps)))
    return _f.sum(_f.mul(unit(x1), unit(x2)), dim)


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12):
    """``x / max(||x||_p, eps)`` along ``dim``; any ``p`` the vector norm takes (0, negative).
    A 0-d input is its own norm's one element (its ``dim`` is 0 or -1, as PyTorch wraps it)."""
    x = input if input.dim() else _f.reshape(input, 1)
    n = _f.clamp(vector_norm(x, p, dim, True), min=eps)
    y = _f.div(x, n)
    return y if input.dim() else _f.reshape(y, ())


# --- losses -------------------------------------------------------------------------------------


_REDUCTIONS = _reduction.REDUCTIONS
_reduce, _check_reduction = _reduction.apply_reduction, _reduction.check_reduction


def _size_warning(input, target) -> None:
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      f"broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)


def _class_dim_last(input):
    """``(N, C, d1, ...)`` -> ``(N*d1*..., C)``: classes along the last dim, one row per target."""
    if input.dim() <= 2:
        return input
    perm = (0,) + tuple(range(2, input.dim())) + (1,)
    return _f.reshape(_f.permute(input, perm), -1, input.shape[1])


def _check_targets(input, target, fname: str) -> None:
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.scalar_name}")
    expected = input.dim() - 1 if input.dim() != 1 else 0
    if input.dim() <= 2 and target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dim() != expected:
        raise RuntimeError(f"Expected target size {list(input.shape[:1] + input.shape[2:])}, got "
                           f"{list(target.shape)}")
    if input.dim() >= 2 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")


@_torch_node("NllLossBackward0", nd="NllLoss2DBackward0")
def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean"):
    """``-input[i, target[i]]`` (times ``weight[target[i]]``); ``mean`` divides by the weights' sum."""
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    _check_targets(input, target, "nll_loss")
    logp = _class_dim_last(input)
    flat = target._data.reshape(-1).astype(np.int64)
    keep = flat != ignore_index
    classes = logp.shape[-1]
    bad = flat[keep & ((flat < 0) | (flat >= classes))]
    if bad.size:
        raise IndexError(f"Target {bad[0]} is out of bounds.")
    safe = make(np.where(keep, flat, 0))
    picked = _f.neg(_f.squeeze(apply(_R["TakeAlongAxis"], (
        logp if logp.dim() == 2 else _f.unsqueeze(logp, 0), _f.reshape(safe, -1, 1)),
        {"axis": 1}), -1))
    w = np.ones(classes, logp._data.dtype) if weight is None else weight._data
    wt = make((w[safe._data] * keep).astype(logp._data.dtype))
    losses = _f.mul(picked, wt)
    cls = nll_loss.nodes["nd"] if input.dim() == 4 else nll_loss.node  # PyTorch's nll_loss2d
    if reduction == "none":
        return _named(_f.reshape(losses, target.shape), cls)
    total = _f.sum(losses)
    return _named(_f.div(total, float(wt._data.sum())) if reduction == "mean" else total, cls)


# ndarray.min()/max() call exactly these reductions, after a Python-level dispatch
_lowest, _highest = np.minimum.reduce, np.maximum.reduce


def _range(labels: np.ndarray) -> tuple:
    """``(min, max)`` of the labels; ``(0, -1)`` when there are none (no label is out of range)."""
    return (_lowest(labels), _highest(labels)) if labels.size else (0, -1)


def _holds(labels: np.ndarray, value: int, lo, hi) -> bool:
    """Is ``value`` among the labels?  (One outside ``[lo, hi]``, their range, needs no scan.)"""
    return lo <= value <= hi and bool((labels == value).any())


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
    """``nll_loss(log_softmax(input))`` for class indices, ``-sum(p * log_softmax)`` for
    probabilities (``weight``, ``ignore_index`` and ``label_smoothing`` as PyTorch)."""
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    fast = (weight is None and not label_smoothing and input.dim() == 2 and target.dim() == 1
            and target._data.dtype == np.int64 and input._data.shape[0] == target._data.shape[0])
    if fast:  # (the conditions above are all that _check_targets would check here)
        labels = target._data
        lo, hi = _range(labels)
        fast = not _holds(labels, ignore_index, lo, hi)
    if fast:
        if lo < 0 or hi >= input._data.shape[1]:
            bad = labels[(labels < 0) | (labels >= input._data.shape[1])][0]
            raise IndexError(f"Target {bad} is out of bounds.")
        if reduction == "mean":  # the fused op: one softmax, a short gradient (the common case)
            return _named(composites.cross_entropy(OPS, input, target), nll_loss.node)
        return _named(_reduce(OPS.sparse_softmax_cross_entropy(input, target), reduction),
                      nll_loss.node)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    logp = log_softmax(input, 1 if input.dim() > 1 else 0)
    classes = input.shape[1] if input.dim() > 1 else input.shape[0]
    if target._data.dtype.kind == "f" or (target.shape == input.shape and target.dim() > 0
                                          and target._data.dtype.kind != "f"):
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, classes)
    if input.dim() >= 2 and target.dim() >= 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    hard = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return hard
    # the smoothing term: -sum_c w_c * logp_c / C per element (ignored targets contribute 0)
    keep = target._data != ignore_index
    w = np.ones(classes, logp._data.dtype) if weight is None else weight._data
    shape = [1] * logp.dim()
    if logp.dim() > 1:
        shape[1] = classes
    smooth = _f.neg(_f.sum(_f.mul(logp, make(w.reshape(shape).astype(logp._data.dtype))),
                           1 if logp.dim() > 1 else 0))
    smooth = _f.mul(smooth, make(keep.astype(logp._data.dtype)))
    if reduction == "none":
        pass
    elif reduction == "sum":
        smooth = _f.sum(smooth)
    else:
        safe = np.where(keep, target._data, 0)
        smooth = _f.div(_f.sum(smooth), float((w[safe] * keep).sum()))
    return _f.add(_f.mul(hard, 1 - label_smoothing), _f.mul(smooth, label_smoothing / classes))


def _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, classes):
    if target._data.dtype.kind != "f":
        raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                           f"got {target.dtype.scalar_name}")
    if target.shape != logp.shape:
        if logp.dim() >= 2 and target.dim() >= 1 and logp.shape[0] != target.shape[0]:
            raise ValueError(f"Expected input batch_size ({logp.shape[0]}) to match target "
                             f"batch_size ({target.shape[0]}).")
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.scalar_name}")
    t = target
    if label_smoothing:
        t = _f.add(_f.mul(t, 1 - label_smoothing), label_smoothing / classes)
    terms = _f.mul(logp, t)
    if weight is not None:
        shape = [1] * logp.dim()
        shape[1 if logp.dim() > 1 else 0] = classes
        terms = _f.mul(terms, weight.reshape(shape))
    # as PyTorch: the sum negated last, then (mean) divided by the row count as a number
    if reduction == "none":
        return _f.neg(_f.sum(terms, 1 if logp.dim() > 1 else 0))
    total = _f.neg(_f.sum(terms))
    if reduction == "sum":
        return total
    return apply(_R["RealDiv"], (total, float(logp.numel() // classes)), cls=_DIV_BY_NUMBER)


_DIV_BY_NUMBER = _node_class_for(_R["RealDiv"], "scalar")


@_torch_node("MseLossBackward0")
def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    _size_warning(input, target)
    if reduction == "mean" and target.shape == input.shape:
        return _named(composites.mse_loss(OPS, input, target), mse_loss.node)
    d = _f.sub(input, target)
    return _named(_reduce(_f.mul(d, d), reduction), mse_loss.node)


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    _size_warning(input, target)
    return _reduce(_f.abs(_f.sub(input, target)), reduction)


def _same_size(input, target, message: str) -> None:
    if target.shape != input.shape:
        raise ValueError(message.format(t=target.shape, i=input.shape))


@_torch_node("BinaryCrossEntropyBackward0")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """``-(t log p + (1-t) log(1-p))``, each log clamped at -100 as PyTorch does."""
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    _same_size(input, target, "Using a target size ({t}) that is different to the input size "
                              "({i}) is deprecated. Please ensure they have the same size.")
    if np.any((input._data < 0) | (input._data > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    log_p = _f.clamp(_f.log(input), min=-100.0)
    log_q = _f.clamp(_pw.log1p(_f.neg(input)), min=-100.0)
    loss = _f.neg(_f.add(_f.mul(target, log_p), _f.mul(_f.rsub(target, 1.0), log_q)))
    if weight is not None:
        loss = _f.mul(loss, weight)
    return _named(_reduce(loss, reduction), binary_cross_entropy.node)


@_torch_node("BinaryCrossEntropyWithLogitsBackward0")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None):
    """``pos_weight * t * softplus(-x) + (1 - t) * softplus(x)``: BCE(sigmoid(x)), stably."""
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    _same_size(input, target, "Target size ({t}) must be the same as input size ({i})")
    pos = _softplus_stable(_f.neg(input))
    neg = _softplus_stable(input)
    if pos_weight is not None:
        pos = _f.mul(pos, pos_weight)
    pos_term = _f.mul(target, pos)
    loss = _f.add(pos_term, _f.mul(_f.rsub(target, 1.0), neg))
    if weight is not None:
        loss = _f.mul(loss, weight)
    return _named(_reduce(loss, reduction), binary_cross_entropy_with_logits.node)


@_torch_node("SmoothL1LossBackward0")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``."""
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    _size_warning(input, target)
    d = _f.abs(_f.sub(input, target))
    if beta == 0:
        return _reduce(d, reduction)
    loss = where(_f.lt(d, beta), _f.div(_f.mul(_f.mul(d, d), 0.5), beta), _f.sub(d, 0.5 * beta))
    return _named(_reduce(loss, reduction), smooth_l1_loss.node)


@_torch_node("HuberLossBackward0")
def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0):
    """``0.5 d^2`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)``."""
    _check_reduction(reduction)
    _size_warning(input, target)
    d = _f.abs(_f.sub(input, target))
    loss = where(_f.le(d, delta), _f.mul(_f.mul(d, d), 0.5), _f.mul(_f.sub(d, 0.5 * delta), delta))
    return _named(_reduce(loss, reduction), huber_loss.node)


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False):
    """Pointwise ``target * (log target - input)`` (``input`` holds log-probabilities)."""
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    elif reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    if log_target:
        loss = _f.mul(_f.exp(target), _f.sub(target, input))
    else:  # PyTorch's ``xlogy(t, t) - t * input``: 0 where t == 0
        t = _t(target)
        loss = _f.sub(_pw.xlogy(t, t), _f.mul(t, input))
    if reduction == "batchmean":
        return _f.div(_f.sum(loss), float(input.shape[0]) if input.dim() else 1.0)
    return _reduce(loss, reduction)


# --- linear_cross_entropy (after cross_entropy and linear, which it composes) ------------------

__all__ += ["linear_cross_entropy"]


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction: str = "mean", ignore_index=None, label_smoothing: float = 0.0,
                         options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)`` -- PyTorch's
    reference formula; ``options`` (its chunking of the batch, to save memory) changes how
    PyTorch computes it, not the value, and is accepted for that reason only."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                           f"respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batches, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if out_features:
        linear_weight = _f.reshape(linear_weight, math.prod(out_features, start=classes),
                                   in_features)
        if linear_bias is not None:
            linear_bias = _f.reshape(linear_bias, math.prod(out_features, start=classes))
    logits = _f.reshape(linear(input, linear_weight, linear_bias), *logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)

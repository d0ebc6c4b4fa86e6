"""More of ``torch.nn.functional``'s losses: margins, embeddings, triplets, Poisson and Gaussian
negative log-likelihoods.

Each follows PyTorch 2.13's own formula (ATen's ``Loss.cpp`` / ``LossMultiMargin.cpp`` /
``LossMultiLabelMargin.cpp``, or ``torch/nn/functional.py``) as a composition of registry ops,
so gradients are the primitives'.  Where ATen's backward counts a hinge only where it is
strictly positive, the composition selects with ``where(z > 0, ...)`` to agree at the kink.
The legacy ``size_average=`` / ``reduce=`` pair is accepted wherever PyTorch accepts it
(:func:`dyngraph.nn._reduction.resolve`, with its deprecation warning).

>>> import dyngraph as torch
>>> soft_margin_loss(torch.tensor([0.0]), torch.tensor([1.0])).item() == math.log(2)
True
"""
from __future__ import annotations

import math

import numpy as np

from .. import creation, functions as _f
from ..grad_mode import no_grad
from ..node import renamed, torch_node
from ..selection import gather, where
from . import _reduction
from ._reduction import apply_reduction, check_reduction
from .functional_activations import logsigmoid
from .functional_extra import pairwise_distance

__all__ = ["cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
           "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
           "multilabel_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss"]

_EPSILON = 1e-12   # ATen's cosine_embedding_loss: added to each squared magnitude


def _hinge(z):
    """``z`` where ``z > 0``, else 0: ATen's loops add (and back-propagate) strict positives."""
    return where(_f.gt(z, 0), z, _f.mul(z, 0.0))


def cosine_embedding_loss(input1, input2, target, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean"):
    """``1 - cos`` where ``target == 1``, ``max(0, cos - margin)`` where ``target == -1``."""
    reduction = _reduction.resolve(size_average, reduce, reduction)
    check_reduction(reduction)
    d = target.dim()
    if d not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if d == 1 else 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(f"{d}D target tensor expects {want}D input tensors, but found inputs "
                           f"with sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = _f.sum(_f.mul(input1, input2), d)
    mag1 = _f.add(_f.sum(_f.mul(input1, input1), d), _EPSILON)
    mag2 = _f.add(_f.sum(_f.mul(input2, input2), d), _EPSILON)
    cos = _f.div(prod_sum, _f.sqrt(_f.mul(mag1, mag2)))
    zeros = _f.mul(cos, 0.0)
    pos = where(_f.eq(target, 1), _f.rsub(cos, 1.0), zeros)
    neg = where(_f.eq(target, -1), _f.clamp(_f.sub(cos, margin), min=0.0), zeros)
    return apply_reduction(_f.add(pos, neg), reduction)


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """``x`` where ``target == 1``, ``max(0, margin - x)`` where ``target == -1`` (a target
    of neither value gets both terms, as ATen's two ``where``\\ s give it)."""
    reduction = _reduction.resolve(size_average, reduce, reduction)
    check_reduction(reduction)
    zeros = _f.mul(input, 0.0)
    margin_part = where(_f.ne(target, 1), _f.clamp(_f.rsub(input, margin), min=0.0), zeros)
    self_part = where(_f.ne(target, -1), input, zeros)
    return apply_reduction(_f.add(margin_part, self_part), reduction)


def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean"):
    """``max(0, -target * (x1 - x2) + margin)``."""
    reduction = _reduction.resolve(size_average, reduce, reduction)
    check_reduction(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    z = _f.add(_f.mul(_f.neg(target), _f.sub(input1, input2)), margin)
    return apply_reduction(_f.clamp(z, min=0.0), reduction)


@torch_node("SoftMarginLossBackward0")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``log(1 + exp(-target * x))`` (ATen's ``log1p(exp(...))``, overflow included)."""
    reduction = _reduction.resolve(size_average, reduce, reduction)
    check_reduction(reduction)
    loss = _f.log1p(_f.exp(_f.mul(_f.neg(input), target)))
    return renamed(apply_reduction(loss, reduction), soft_margin_loss.node)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    """The mean over classes (the last dim) of the binary cross-entropy with logits."""
    if size_average is not None or reduce is not None:
        reduction = _reduction.resolve(size_average, reduce, reduction)
    loss = _f.neg(_f.add(_f.mul(target, logsigmoid(input)),
                         _f.mul(_f.rsub(target, 1.0), logsigmoid(_f.neg(input)))))
    if weight is not None:
        loss = _f.mul(loss, weight)
    class_dim = input.dim() - 1
    loss = _f.div(_f.sum(loss, class_dim), float(input.shape[class_dim]))
    if reduction not in _reduction.REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    return apply_reduction(loss, reduction)


def _frames(input, name: str) -> tuple[int, int]:
    """``(frames, classes)`` of a margin loss's vector or matrix input."""
    nd = input.dim()
    if not ((input.numel() > 0 and nd <= 2) or (nd == 2 and input.shape[1] > 0)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    return (1, max(input.numel(), 1)) if nd <= 1 else tuple(input.shape)


@torch_node("MultiMarginLossBackward0")
def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean"):
    """Per sample, ``sum over j != y of max(0, margin - x[y] + x[j]) ** p`` (times
    ``weight[y]``), divided by the number of classes."""
    reduction = _reduction.resolve(size_average, reduce, reduction)
    check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    nframe, dim = _frames(input, "multi_margin_loss")
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{nframe}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    y = target._data.reshape(nframe).astype(np.int64)
    if np.any((y < 0) | (y >= dim)):
        raise RuntimeError("target out of range")
    x = _f.reshape(input, nframe, dim)
    idx = creation.as_tensor(y[:, None])
    z = _f.add(_f.sub(x, gather(x, 1, idx)), margin)
    h = _hinge(z)
    if p == 2:
        h = _f.mul(h, h)
    if weight is not None:
        h = _f.mul(h, _f.reshape(gather(weight, 0, creation.as_tensor(y)), nframe, 1))
    others = creation.as_tensor(np.arange(dim)[None, :] != y[:, None])
    loss = _f.div(_f.sum(_f.mul(h, others.to(input.dtype)), 1), float(dim))
    if reduction == "none":
        out = loss if target.dim() > 0 else _f.reshape(loss, ())
    else:
        out = apply_reduction(loss, reduction)
    return renamed(out, multi_margin_loss.node)


@torch_node("MultilabelMarginLossBackward0")
def multilabel_margin_loss(input, target, size_average=None, reduce=None,
                           reduction: str = "mean"):
    """Per sample, ``sum over targets j and non-targets k of max(0, 1 - (x[j] - x[k]))``
    divided by the number of classes; ``target`` lists class indices, ended by the first -1."""
    reduction = _reduction.resolve(size_average, reduce, reduction)
    check_reduction(reduction)
    nd = input.dim()
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    nframe, dim = (1, 1 if nd == 0 else input.shape[0]) if nd <= 1 else tuple(input.shape)
    ok = (target.dim() <= 1 and target.numel() == dim) if nd <= 1 else \
        (target.dim() == 2 and tuple(target.shape) == (nframe, dim))
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    labels = target._data.reshape(nframe, dim).astype(np.int64)
    count = np.zeros((nframe, dim))
    for n in range(nframe):
        for j in labels[n]:
            if j < 0:
                break
            if j >= dim:
                raise RuntimeError("argument #2 'target' is out of range")
            count[n, j] += 1
    pairs = count[:, :, None] * (count == 0)[:, None, :]   # (target j, non-target k)
    x = _f.reshape(input, nframe, dim)
    z = _f.add(_f.sub(_f.unsqueeze(x, 1), _f.unsqueeze(x, 2)), 1.0)   # 1 - x[j] + x[k]
    w = creation.as_tensor(pairs.astype(input.np_dtype))
    loss = _f.div(_f.sum(_f.mul(_hinge(z), w), (1, 2)), float(dim))
    if reduction == "none":
        out = loss if nd == 2 else _f.reshape(loss, ())
    else:
        out = apply_reduction(loss, reduction)
    return renamed(out, multilabel_margin_loss.node)


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None, reduction: str = "mean"):
    """``exp(x) - t x`` (``log_input``) or ``x - t log(x + eps)``; ``full`` adds Stirling's
    ``t log t - t + log(2 pi t) / 2`` where ``t > 1``."""
    reduction = _reduction.resolve(size_average, reduce, reduction)
    check_reduction(reduction)
    if log_input:
        loss = _f.sub(_f.exp(input), _f.mul(target, input))
    else:
        loss = _f.sub(input, _f.mul(target, _f.log(_f.add(input, eps))))
    if full:
        stirling = _f.add(_f.sub(_f.mul(target, _f.log(target)), target),
                          _f.mul(_f.log(_f.mul(target, 2 * math.pi)), 0.5))
        loss = _f.add(loss, where(_f.le(target, 1), _f.mul(stirling, 0.0), stirling))
    return apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean"):
    """``(log(var) + (x - t)^2 / var) / 2`` (plus ``log(2 pi) / 2`` when ``full``); ``var``
    is clamped at ``eps`` without recording the clamp (the gradient passes as through a copy)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _f.mul(creation.ones_like(input), var)
    elif np.any(var._data < 0):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = _f.unsqueeze(var, -1)
        elif not (input.dim() == var.dim() and
                  sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _reduction.REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    with no_grad():
        lift = _f.sub(_f.clamp(var, min=eps), var)
    var = _f.add(var, lift)
    d = _f.sub(input, target)
    loss = _f.mul(_f.add(_f.log(var), _f.div(_f.mul(d, d), var)), 0.5)
    if full:
        loss = _f.add(loss, 0.5 * math.log(2 * math.pi))
    return apply_reduction(loss, reduction)


def _check_triplet_dims(anchor, positive, negative) -> None:
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {p}D, "
                           f"and negative {n}D inputs")


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the ``p``-norm pairwise distance."""
    reduction = _reduction.resolve(size_average, reduce, reduction)
    check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    return triplet_margin_with_distance_loss(
        anchor, positive, negative, margin=margin, swap=swap, reduction=reduction,
        distance_function=lambda x, y: pairwise_distance(x, y, p, eps))


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean"):
    """The triplet loss with any ``distance_function`` (``pairwise_distance`` by default);
    ``swap`` takes the smaller of ``d(a, n)`` and ``d(p, n)``."""
    if reduction not in _reduction.REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = _f.minimum(dist_neg, distance(positive, negative))
    return apply_reduction(_f.clamp(_f.sub(_f.add(dist_pos, margin), dist_neg), min=0.0),
                           reduction)

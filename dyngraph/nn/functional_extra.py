"""More of ``torch.nn.functional``: shrinkage, PReLU, distances, ``bilinear``, channel shuffle,
local response normalisation, the old ``upsample_*`` names and the feature/alpha dropouts.

Each is a composition of registry ops, so its gradient (and second order, and the static
engine's) is the primitives'; formulas and checks follow PyTorch 2.13's ATen / Python source,
messages in its words.  The dropouts draw their masks through :func:`dropout_mask` (PyTorch's
``bernoulli_(1 - p)`` on the default generator), with one draw per *feature map* for the
``2d``/``3d``/``feature_`` forms.

>>> import dyngraph as torch
>>> hardshrink(torch.tensor([-1.0, 0.25, 2.0]))
tensor([-1.,  0.,  2.])
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import creation, functions as _f
from ..linalg import vector_norm
from ..node import renamed, torch_node
from ..selection import gather, index_select, narrow, where
from .functional_layers import _renorm_rows, dropout_mask, pad
from .functional_resample import interpolate

__all__ = ["hardshrink", "softshrink", "prelu", "pairwise_distance", "pdist", "bilinear",
           "channel_shuffle", "local_response_norm", "upsample_nearest", "upsample_bilinear",
           "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "embedding_bag"]


# --- shrinkage and PReLU ------------------------------------------------------------------------

@torch_node("HardshrinkBackward0")
def hardshrink(input, lambd: float = 0.5):
    """``x`` where ``|x| > lambd``, else 0 (gradient 1 / 0 the same way)."""
    return renamed(where(_f.gt(_f.abs(input), lambd), input, _f.mul(input, 0.0)), hardshrink.node)


@torch_node("SoftshrinkBackward0")
def softshrink(input, lambd: float = 0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    if lambd < 0:
        top = np.finfo(input.np_dtype).max if input.is_floating_point() else np.iinfo(np.int64).max
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{input.dtype.scalar_name}, but found {lambd:g}")
    shrunk = _f.sub(input, _f.mul(_f.sign(input), lambd))
    return renamed(where(_f.gt(_f.abs(input), lambd), shrunk, _f.mul(input, 0.0)), softshrink.node)


@torch_node("PreluKernelBackward0")
def prelu(input, weight):
    """``x`` above 0, ``weight * x`` elsewhere; ``weight`` holds one slope or one per channel
    (dim 1; an input of fewer than two dims has one channel)."""
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        if weight.numel() != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    w = weight
    if input.dim() >= 2 and weight.numel() != 1:
        w = weight.reshape((channels,) + (1,) * (input.dim() - 2))
    elif weight.dim() == 1 and input.dim() < 1:
        w = weight.reshape(())
    return renamed(where(_f.gt(input, 0), input, _f.mul(w, input)), prelu.node)


# --- distances ------------------------------------------------------------------------------------

def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dim (ATen's ``pairwise_distance``)."""
    dim = max(x1.dim(), x2.dim()) - 1
    return vector_norm(_f.add(_f.sub(x1, x2), eps), p, dim, keepdim)


@torch_node("PdistBackward0")
def pdist(input, p: float = 2.0):
    """The ``p``-norm distances between the rows of a 2-D ``input``, pairs ``i < j`` in order."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(input.shape[0], 1)
    left = index_select(input, 0, creation.as_tensor(i.astype(np.int64)))
    right = index_select(input, 0, creation.as_tensor(j.astype(np.int64)))
    return renamed(vector_norm(_f.sub(left, right), p, 1), pdist.node)


# --- layers -------------------------------------------------------------------------------------

def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = x1[..., i] W[o, i, j] x2[..., j] + b[o]``: one matmul against ``W``
    laid out as ``(in1, out*in2)``, then a product and sum over ``j``."""
    out, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {in2}")
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
    w = _f.reshape(_f.permute(weight, (1, 0, 2)), in1, out * in2)
    t = _f.reshape(_f.matmul(input1, w), *input1.shape[:-1], out, in2)
    y = _f.sum(_f.mul(t, _f.unsqueeze(input2, -2)), -1)
    return y if bias is None else _f.add(y, bias)


def channel_shuffle(input, groups: int):
    """``(N, g*k, *)`` -> the channels regrouped as ``(N, k*g, *)`` (ShuffleNet's shuffle)."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    y = _f.transpose(_f.reshape(input, n, groups, c // groups, *rest), 1, 2)
    return _f.reshape(y, *input.shape)


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
    """``x / (k + alpha * mean of x^2 over size neighbouring channels) ** beta``; the window
    is padded with zeros (``size // 2`` before, ``(size - 1) // 2`` after) and always
    divided by ``size``, as PyTorch's average pooling over the channel dim."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got "
                         f"{input.dim()} dimensions)")  # sic: PyTorch's spaces
    if input.numel() == 0:
        return input
    sq = _f.mul(input, input)
    c = input.shape[1]
    padded = pad(sq, (0, 0) * (input.dim() - 2) + (size // 2, (size - 1) // 2))
    total = None
    for off in range(size):
        part = narrow(padded, 1, off, c)
        total = part if total is None else _f.add(total, part)
    div = _f.pow(_f.add(_f.mul(_f.div(total, float(size)), alpha), k), beta)
    return _f.div(input, div)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated alias of ``interpolate(..., mode='nearest')``, with PyTorch's warning."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", FutureWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated alias of ``interpolate(..., mode='bilinear', align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", FutureWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- feature and alpha dropout ------------------------------------------------------------------

_SELU_ALPHA_PRIME = 1.7580993408473766   # -SELU's alpha * scale: the value dropped units take


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_with(input, p: float, training: bool, inplace: bool, shape: tuple, alpha: bool):
    """ATen's ``_dropout_impl``: a Bernoulli(1 - p) ``noise`` of ``shape`` (the input's, or
    one per feature map), then ``x * noise / (1 - p)`` -- or for the alpha forms
    ``x * a*noise + b`` with ``a``, ``b`` keeping SELU's zero mean and unit variance."""
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    dtype = input.np_dtype
    if p == 1.0:
        noise = np.zeros(shape, dtype)
        mul, add = noise, (np.full(shape, -_SELU_ALPHA_PRIME, dtype) if alpha else None)
    else:
        keep = (dropout_mask(shape, p, dtype) != 0).astype(dtype)   # 0 / 1
        if alpha:
            a = 1.0 / math.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
            add = ((keep - 1) * (_SELU_ALPHA_PRIME * a) + _SELU_ALPHA_PRIME * a * p).astype(dtype)
            mul = (keep * a).astype(dtype)
        else:
            mul, add = (keep / np.asarray(1 - p, dtype)).astype(dtype), None
    out = input.mul_(creation.as_tensor(mul)) if inplace else _f.mul(input, creation.as_tensor(mul))
    if add is None:
        return out
    return out.add_(creation.as_tensor(add)) if inplace else _f.add(out, creation.as_tensor(add))


def _feature_shape(input, batched_rank: int) -> tuple:
    """One noise value per ``(N, C)`` feature map; an unbatched input's per ``C``."""
    if input.dim() == batched_rank:
        return tuple(input.shape[:2]) + (1,) * (batched_rank - 2)
    return (input.shape[0],) + (1,) * (input.dim() - 1)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of a ``(N, C, L)`` or ``(C, L)`` input."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D "
                           f"input. Note that dropout1d exists to provide channel-wise dropout "
                           f"on inputs with 1 spatial dimension, a channel dimension, and an "
                           f"optional batch dimension (i.e. 2D or 3D inputs).")
    return _dropout_with(input, p, training, inplace, _feature_shape(input, 3), False)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of a ``(N, C, H, W)`` input (a 3-D input is taken as PyTorch
    takes it: ``(N, C, L)``, with its warning)."""
    _check_p(p)
    if input.dim() not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is "
                      f"deprecated and will result in an error in a future release. To retain "
                      f"the behavior and silence this warning, please use dropout instead. Note "
                      f"that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      f"spatial dimensions, a channel dimension, and an optional batch "
                      f"dimension (i.e. 3D or 4D inputs).", UserWarning, stacklevel=2)
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape "
                      "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch "
                      "to using dropout1d instead.", UserWarning, stacklevel=2)
    return feature_dropout(input, p, training, inplace)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input."""
    _check_p(p)
    if input.dim() not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is "
                      f"deprecated and will result in an error in a future release. To retain "
                      f"the behavior and silence this warning, please use dropout instead. Note "
                      f"that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      f"spatial dimensions, a channel dimension, and an optional batch "
                      f"dimension (i.e. 4D or 5D inputs).", UserWarning, stacklevel=2)
    if input.dim() == 4:   # unbatched (C, D, H, W)
        return _dropout_with(input, p, training, inplace, _feature_shape(input, 5), False)
    return feature_dropout(input, p, training, inplace)


def feature_dropout(input, p: float, training: bool, inplace: bool = False):
    """ATen's ``feature_dropout``: one draw per ``(N, C)`` of an input of 2+ dims."""
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _dropout_with(input, p, training, inplace,
                         tuple(input.shape[:2]) + (1,) * (input.dim() - 2), False)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Dropout for SELU networks: dropped units take SELU's negative saturation, then an
    affine map keeps the mean and variance (ATen's ``alpha_dropout``)."""
    return _dropout_with(input, p, training, inplace, tuple(input.shape), True)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Alpha dropout with one draw per ``(N, C)`` feature map."""
    _check_p(p)
    if training and p and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    return _dropout_with(input, p, training, inplace, shape, True)


# --- embedding_bag --------------------------------------------------------------------------------

def _bags(input, offsets, include_last_offset: bool) -> list[np.ndarray]:
    """The positions in the flat ``input`` of each bag (PyTorch's ``offsets`` rule)."""
    n = input.numel()
    starts = [int(v) for v in np.asarray(offsets._data).reshape(-1)]
    if include_last_offset:
        ends, starts = starts[1:], starts[:-1]
    else:
        ends = starts[1:] + [n]
    return [np.arange(s, min(e, n)) for s, e in zip(starts, ends)]


@torch_node("EmbeddingBagBackward0")
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights=None, include_last_offset: bool = False, padding_idx=None):
    """The sum, mean or max of each bag of ``weight``'s rows: bags are the rows of a 2-D
    ``input``, or the segments of a 1-D one that ``offsets`` starts.  Entries equal to
    ``padding_idx`` are left out (and uncounted); an empty bag gives zeros.  Sum and mean are
    one matrix ``(bags, entries)`` times the looked-up rows; max gathers each bag's winners."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated "
                             f"is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {offsets.type()}")
        bags = [np.arange(r * input.shape[1], (r + 1) * input.shape[1])
                for r in range(input.shape[0])]
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        bags = _bags(input, offsets, include_last_offset)
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on the Pytorch "
                                  f"GitHub.")
    ids = input._data.reshape(-1).astype(np.int64)
    rows_n = weight.shape[0]
    if ids.size and (ids.min() < 0 or ids.max() >= rows_n):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, ids, max_norm, norm_type)
    keep = np.ones(ids.size, bool)
    if padding_idx is not None:
        keep = ids != padding_idx % rows_n
    rows = index_select(weight, 0, creation.as_tensor(ids))
    if mode == "max":
        out = _bag_max(rows, bags, keep)
    else:
        if per_sample_weights is not None:
            rows = _f.mul(rows, _f.unsqueeze(_f.reshape(per_sample_weights, -1), 1))
        m = np.zeros((len(bags), ids.size), weight.np_dtype)
        for b, members in enumerate(bags):
            members = members[keep[members]]
            if members.size:
                m[b, members] = 1.0 if mode == "sum" else 1.0 / members.size
        out = _f.matmul(creation.as_tensor(m), rows)
    return renamed(out, embedding_bag.node)


def _bag_max(rows, bags: list, keep: np.ndarray):
    """Per bag and column the first largest of its (kept) rows, gathered; empty bags zero."""
    data = rows._data
    winners = np.zeros((len(bags), data.shape[1]), np.int64)
    empty = np.zeros((len(bags), 1), bool)
    for b, members in enumerate(bags):
        members = members[keep[members]]
        if members.size:
            winners[b] = members[np.argmax(data[members], 0)]
        else:
            empty[b] = True
    picked = gather(rows, 0, creation.as_tensor(winners))
    return where(creation.as_tensor(empty), _f.mul(picked, 0.0), picked) if empty.any() else picked

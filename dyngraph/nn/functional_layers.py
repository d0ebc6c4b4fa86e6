"""``torch.nn.functional`` for layers: convolution, pooling, dropout, normalisation, embedding.

PyTorch's argument forms (ints or pairs, ``padding='same'``, ``ceil_mode``,
``count_include_pad``) are turned into the registry ops' attributes here; the ops are
channels-first (``data_format="NCHW"``, filters ``"OIHW"``).  Checks that PyTorch makes before
computing are made here too, with its wording.  Everything else -- values and gradients --
is the registry's (``common/ops/conv.py``, ``pool.py``, ``common/layers.py``).

The one random draw (dropout's mask) goes through :func:`dropout_mask`, which draws it as
PyTorch does (``bernoulli_(1 - p)`` on the default generator), so a seeded run drops the
elements PyTorch drops.

>>> import dyngraph as torch
>>> x = torch.ones(1, 1, 4, 4)
>>> max_pool2d(x, 2).shape
torch.Size([1, 1, 2, 2])
"""
from __future__ import annotations

import numpy as np

from common import REGISTRY, ShapeError, ShapeRef, layers
from common.ops.conv import check_channels

from .. import creation
from ..random import default_generator
from ..random_kernels import bernoulli_scalar
from ..engine import apply, node_class_for
from ..errors import SizeMismatchError
from ..functions import OPS, mean, squeeze, unsqueeze
from ..selection import index_select, narrow, where
from ..grad_mode import no_grad
from ..node import renamed, torch_node
from .functional_pool import avg_pool_nd, max_pool_nd

__all__ = ["conv1d", "conv2d", "conv_transpose2d", "max_pool1d", "max_pool2d", "avg_pool1d",
           "avg_pool2d", "adaptive_avg_pool2d", "dropout", "batch_norm", "layer_norm",
           "embedding", "pad", "dropout_mask"]

_R = REGISTRY
_TORCH = {"data_format": "NCHW", "filter_format": "OIHW"}


def _pair(v) -> tuple[int, int]:
    if isinstance(v, (tuple, list)):
        return (int(v[0]), int(v[-1])) if len(v) else (1, 1)
    return int(v), int(v)


def _padding(padding, stride):
    """PyTorch's padding argument as the op's: "SAME", "VALID" or explicit pairs."""
    if isinstance(padding, str):
        if padding == "valid":
            return "VALID"
        if padding == "same":
            if stride != (1, 1):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            return "SAME"
        raise ValueError(f"Invalid padding string '{padding}', should be one of ['valid', 'same']")
    p = _pair(padding)
    return (p[0], p[0]), (p[1], p[1])


def _check_conv_input(input, weight, groups, name, rank):
    shape = input.shape
    if input.dim() not in (rank - 1, rank):
        raise RuntimeError(f"Expected {rank - 1}D (unbatched) or {rank}D (batched) input to {name}, "
                           f"but got input of size: {list(shape)}")
    batched = list(shape) if input.dim() == rank else [1, *shape]   # PyTorch names it batched
    try:
        check_channels(batched[1], weight.shape[1], groups, batched, weight.shape)
    except ShapeError as e:
        raise SizeMismatchError(e.torch) from None


_CONVOLUTION = node_class_for(_R["Conv2D"])


def _add_bias(y, bias):
    """``y`` plus the per-channel bias: part of the convolution's own node in PyTorch, so the
    addition's node takes the convolution's name (``ConvolutionBackward0``)."""
    if bias is None:
        return y
    return renamed(y + bias.reshape((1, -1) + (1,) * (y.dim() - 2)), _CONVOLUTION)


def _batched(fn, input, rank):
    """Run ``fn`` on a batch: an unbatched input gets a batch dim of one for the call."""
    if input.dim() == rank:
        return fn(input)
    return squeeze(fn(unsqueeze(input, 0)), 0)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution (cross-correlation) of NCHW ``input`` by OIHW ``weight``."""
    _check_conv_input(input, weight, groups, "conv2d", 4)
    stride = _pair(stride)
    attrs = dict(strides=stride, padding=_padding(padding, stride), dilations=_pair(dilation),
                 groups=groups, **_TORCH)
    return _batched(lambda x: _add_bias(apply(_R["Conv2D"], (x, weight), attrs), bias), input, 4)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution of NCL ``input``: a 2-d one over a height of one (as TF does it)."""
    _check_conv_input(input, weight, groups, "conv1d", 3)
    pad = padding if isinstance(padding, str) else (0, _pair(padding)[0])
    def run(x):  # a conv2d over a height of 1: one convolution node in PyTorch
        y = conv2d(unsqueeze(x, 2), unsqueeze(weight, 2), bias, (1, _pair(stride)[0]), pad,
                   (1, _pair(dilation)[0]), groups)
        return renamed(squeeze(y, 2), _CONVOLUTION)
    return _batched(run, input, 3)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed convolution: the input-gradient of the conv2d whose weight is ``weight``.

    An ``output_padding`` of a stride or more (allowed when the dilation is larger) would
    give the conv2d it is the gradient of more windows than the input has rows: the excess
    ``extra`` comes off that conv2d's bottom/right padding, and what the padding cannot
    absorb is rows no input reaches, zeros appended after the op."""
    stride, padding, dilation = _pair(stride), _pair(padding), _pair(dilation)
    output_padding = _pair(output_padding)
    extra = [op - op % s for op, s in zip(output_padding, stride)]
    after = [max(e - p, 0) for e, p in zip(extra, padding)]
    pads = tuple((p, max(p - e, 0)) for p, e in zip(padding, extra))
    k = weight.shape[2:]

    def run(x):
        n, _, h, w = x.shape
        hw = [(size - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k[i] - 1)
              + output_padding[i] + 1 - after[i] for i, size in enumerate((h, w))]
        ref = ShapeRef((n, weight.shape[1] * groups, hw[0], hw[1]), x.np_dtype)
        attrs = dict(strides=stride, padding=pads, dilations=dilation, groups=groups, **_TORCH)
        y = apply(_R["Conv2DBackpropInput"], (x, weight, ref), attrs)
        if any(after):
            zeros = ((0, 0), (0, 0), (0, after[0]), (0, after[1]))
            y = renamed(apply(_R["Pad"], (y,), {"paddings": zeros, "constant_values": 0}),
                        _CONVOLUTION)
        return _add_bias(y, bias)
    return _batched(run, input, 4)


# --- pooling -------------------------------------------------------------------------------

def _pool_pads(hw, k, s, p, ceil_mode):
    """Explicit pads: ``p`` each side, plus what ``ceil_mode`` adds at the end."""
    pads = []
    for size, kk, ss, pp in zip(hw, k, s, p):
        if pp > kk // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation=1")
        span = size + 2 * pp - kk
        out = (-(-span // ss) if ceil_mode else span // ss) + 1
        if ceil_mode and (out - 1) * ss >= size + pp:  # the last window must start inside
            out -= 1
        pads.append((pp, pp + max((out - 1) * ss + kk - size - 2 * pp, 0)))
    return tuple(pads)


def _pool_args(input, kernel_size, stride, padding, ceil_mode):
    k = _pair(kernel_size)
    s = k if stride is None or stride == [] or stride == () else _pair(stride)
    pads = _pool_pads(input.shape[-2:], k, s, _pair(padding), ceil_mode)
    return dict(ksize=k, strides=s, padding=pads, data_format="NCHW")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window (padding counts as ``-inf``); with a dilation or
    ``return_indices``, the gather form of :func:`.functional_pool.max_pool_nd`."""
    if _pair(dilation) != (1, 1) or return_indices:
        return max_pool_nd(input, 2, kernel_size, stride, padding, dilation, ceil_mode,
                           return_indices)
    attrs = _pool_args(input, kernel_size, stride, padding, ceil_mode)
    return _batched(lambda x: apply(_R["MaxPool"], (x,), attrs), input, 4)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window; ``count_include_pad`` counts the zero padding in the divisor."""
    if divisor_override is not None:
        return avg_pool_nd(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override)
    attrs = _pool_args(input, kernel_size, stride, padding, ceil_mode)
    p = _pair(padding)
    attrs["count_pads"] = ((p[0], p[0]), (p[1], p[1])) if count_include_pad else ((0, 0), (0, 0))
    return _batched(lambda x: apply(_R["AvgPool"], (x,), attrs), input, 4)


def _one_d(fn, input, kernel_size, stride, padding, **kw):
    k, s = _pair(kernel_size)[0], (None if stride is None else _pair(stride)[0])
    out = fn(unsqueeze(input, -2), (1, k), None if s is None else (1, s), (0, _pair(padding)[0]), **kw)
    return squeeze(out, -2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if _pair(dilation)[0] != 1 or return_indices:
        return max_pool_nd(input, 1, kernel_size, stride, padding, dilation, ceil_mode,
                           return_indices)
    return _one_d(max_pool2d, input, kernel_size, stride, padding, dilation=dilation,
                  ceil_mode=ceil_mode, return_indices=return_indices)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _one_d(avg_pool2d, input, kernel_size, stride, padding, ceil_mode=ceil_mode,
                  count_include_pad=count_include_pad)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output size (``None`` keeps that input size)."""
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size, output_size)
    out = tuple(input.shape[-2 + i] if o is None else int(o) for i, o in enumerate(sizes))
    if out == (1, 1):  # global average pooling: a mean, as PyTorch computes (and names) it
        return mean(input, (-2, -1), True)
    return layers.adaptive_avg_pool2d(OPS, input, out)


# --- dropout ----------------------------------------------------------------------------------

def dropout_mask(shape: tuple, p: float, dtype, like: np.ndarray | None = None) -> np.ndarray:
    """The engine's one random draw for dropout: ``0`` with probability ``p``, else ``1/(1-p)``.

    PyTorch's ``noise = empty_like(input).bernoulli_(1 - p); noise.div_(1 - p)`` on the
    default generator (``torch.manual_seed`` seeds it; ``dyngraph.random``); ``p == 1``
    draws nothing.  ``empty_like`` keeps the layout of a dense input whose dims are permuted
    (a transposed view), and ``bernoulli_`` fills memory in order: so the draws land in
    ``like``'s memory order, not in its index order.
    """
    if p == 1:
        return np.zeros(shape, dtype)
    perm = _memory_order(like) if like is not None else None
    if perm is None:
        keep = bernoulli_scalar(default_generator, int(np.prod(shape)), 1 - p).reshape(shape)
    else:
        stored = tuple(shape[i] for i in perm)
        keep = bernoulli_scalar(default_generator, int(np.prod(shape)), 1 - p).reshape(stored)
        keep = keep.transpose(np.argsort(perm))
    return keep.astype(dtype) / np.asarray(1 - p, dtype)


def _memory_order(a: np.ndarray) -> list[int] | None:
    """The dims of ``a`` from outermost to innermost in memory, when ``a`` is a dense array
    with permuted dims (not C-contiguous); ``None`` when index order is memory order or
    ``a`` is not dense (a slice: PyTorch then allocates contiguously)."""
    if a.flags.c_contiguous or a.ndim < 2:
        return None
    perm = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    return perm if a.transpose(perm).flags.c_contiguous else None


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Inverted dropout: zero each element with probability ``p``, scale the rest by ``1/(1-p)``."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    mask = dropout_mask(input.shape, p, input.np_dtype, input._data)
    if inplace:
        return input.mul_(creation.as_tensor(mask))
    return layers.dropout(OPS, input, mask)


# --- normalisation ------------------------------------------------------------------------------

def _stat_shape(input) -> tuple:
    return (1, -1) + (1,) * (input.dim() - 2)


@torch_node("NativeBatchNormBackward0")
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise per channel (dim 1); in training also update the running statistics.

    Running update as PyTorch: ``running = (1 - momentum) * running + momentum * batch``,
    with the batch variance unbiased (``n / (n - 1)``); ``momentum=None`` is handled by the
    module (cumulative average).
    """
    if input.numel() == 0:   # ATen's empty-input branch: a copy
        return input.clone()
    c = input.shape[1] if input.dim() > 1 else None
    if running_mean is not None and running_mean.shape[0] != c:
        raise RuntimeError(f"running_mean should contain {c} elements not {running_mean.shape[0]}")
    shape = _stat_shape(input)
    w = None if weight is None else weight.reshape(shape)
    b = None if bias is None else bias.reshape(shape)
    if not training:
        return renamed(layers.normalize(OPS, input, running_mean.reshape(shape),
                                        running_var.reshape(shape), b, w, eps), batch_norm.node)
    axes = (0,) + tuple(range(2, input.dim()))
    n = input.numel() // c
    if n <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"torch.Size({list(input.shape)})")
    y, mean, var = layers.batch_norm_train(OPS, input, axes, b, w, eps)
    if running_mean is not None:
        with no_grad():
            running_mean.mul_(1 - momentum).add_(mean.reshape(-1).detach() * momentum)
            running_var.mul_(1 - momentum).add_(var.reshape(-1).detach() * (momentum * n / (n - 1)))
    return renamed(y, batch_norm.node)


@torch_node("NativeLayerNormBackward0")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing ``normalized_shape`` dims."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[-len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    return renamed(layers.layer_norm(OPS, input, len(shape), weight, bias, eps), layer_norm.node)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` at ``input``; the row ``padding_idx`` gets no gradient. With
    ``max_norm``, each looked-up row whose ``norm_type``-norm exceeds it is first scaled
    down to it *in place in* ``weight`` (torch's ``embedding_renorm_``, not recorded)."""
    ids = input._data
    if ids.size and (ids.min() < -weight.shape[0] or ids.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, ids, max_norm, norm_type)
    out = layers.embedding(OPS, weight, input)
    if padding_idx is not None and out.requires_grad:
        padding_idx = padding_idx % weight.shape[0]
        out = where(creation.as_tensor((ids != padding_idx)[..., None]), out, out.detach())
    return renamed(out, _EMBEDDING)


_EMBEDDING = node_class_for(REGISTRY["GetItem"], "embedding")


def _renorm_rows(weight, ids: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Scale the rows ``ids`` of ``weight`` whose norm exceeds ``max_norm`` to
    ``max_norm / (norm + 1e-7)`` of themselves, in place (the weight's version is bumped)."""
    rows = np.unique(ids % weight.shape[0])
    data = weight._data
    norms = np.linalg.norm(data[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    data[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(data.dtype)
    weight._vc[0] += 1


_PAD_MODES = {"reflect": "REFLECT", "replicate": "EDGE", "circular": "WRAP"}
_PAD_COMBOS = ("Supported combinations for non-constant padding:\n"
               "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
               "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
               "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input, pad, mode: str = "constant", value=None):
    """``pad`` lists (before, after) pairs from the last dim backwards: ``value`` (constant),
    the mirror image without the edge (reflect), the edge repeated (replicate) or the other
    end (circular) -- the same ``Pad`` / ``MirrorPad`` ops as ``tf.pad``."""
    if mode != "constant" and mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    n, rank = len(pad) // 2, input.dim()
    if mode != "constant":
        if value is not None:
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        if n > rank:
            raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                               f"dimension but got padding length {len(pad)} and input of dimension {rank}")
        if not 1 <= n <= 3 or rank not in (n + 1, n + 2):
            raise NotImplementedError(f"Padding size {len(pad)} is not supported for {rank}D input "
                                      f"tensor.\n{_PAD_COMBOS}")
    elif n > rank:
        raise RuntimeError("Padding length too large")
    pairs = [(0, 0)] * rank
    for i in range(n):
        pairs[rank - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    negative = any(lo < 0 or hi < 0 for lo, hi in pairs)
    if negative and mode in ("constant", "circular"):   # these crop first, then pad
        input, pairs = _crop(input, pairs)
    if mode == "constant":
        return apply(_R["Pad"], (input,), {"paddings": tuple(pairs),
                                           "constant_values": 0 if value is None else value})
    for axis, (lo, hi) in enumerate(pairs):
        size = input.shape[axis]
        if not lo and not hi:
            continue
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {axis} of input "
                               f"{list(input.shape)}")
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
    if mode != "circular" and (negative or input.numel() == 0):
        return _pad_by_index(input, pairs, mode)   # (MirrorPad checks every dim, as TF)
    return apply(_R["MirrorPad"], (input,), {"paddings": tuple(pairs), "mode": _PAD_MODES[mode]})


def _crop(input, pairs: list) -> tuple:
    """Negative pads cut (PyTorch's constant and circular padding crop first, then pad)."""
    for axis, (lo, hi) in enumerate(pairs):
        if lo < 0 or hi < 0:
            cut_lo, cut_hi = max(-lo, 0), max(-hi, 0)
            input = narrow(input, axis, cut_lo, max(input.shape[axis] - cut_lo - cut_hi, 0))
    return input, [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]


def _pad_by_index(input, pairs: list, mode: str):
    """Replicate and reflect padding with some pads negative (or of an empty input), as
    PyTorch's kernels compute it:
    output ``o`` of each dim reads input ``o - before``, clamped to the edge (replicate) or
    mirrored at it (reflect), so a cut on one side and a pad on the other read what they
    would without the cut.  A gather per dim: the gradient is its scatter-add."""
    for axis, (lo, hi) in enumerate(pairs):
        if not lo and not hi:
            continue
        size = input.shape[axis]
        src = np.arange(size + lo + hi) - lo
        if mode == "replicate":
            src = np.clip(src, 0, size - 1)
        else:
            period = max(2 * size - 2, 1)
            src = src % period
            src = np.where(src >= size, period - src, src)
        input = index_select(input, axis, creation.as_tensor(src.astype(np.int64)))
    return input

"""``torch.nn.functional``'s resampling and the normalisations over groups: ``interpolate``
(nearest, nearest-exact, linear/bilinear/trilinear, bicubic, area), ``pixel_shuffle`` /
``pixel_unshuffle``, ``group_norm``, ``instance_norm``, ``rms_norm``.

Interpolation is separable: along each spatial dim the output is a fixed linear map of the
input, a matrix ``W`` (``out x in``) built here from PyTorch's source-index rule
(``align_corners``, ``scale_factor`` or size ratios, bicubic's ``A = -0.75`` kernel with
clamped taps).  Applying ``W`` is a matmul, so the gradient (``W^T`` times the incoming one)
is the registry's.  Values, gradients and messages are checked against PyTorch 2.13 in
``tests/test_more_ops.py``.

>>> import dyngraph as torch
>>> interpolate(torch.tensor([[[1.0, 3.0]]]), scale_factor=2, mode="linear")
tensor([[[1.0000, 1.5000, 2.5000, 3.0000]]])
"""
from __future__ import annotations

import math

import numpy as np

from .. import functions as _f
from ..grad_mode import no_grad
from ..node import renamed, torch_node
from ..reductions import var as _var
from ._dims import map_dim as _resample_dim
from .functional_layers import adaptive_avg_pool2d
from .functional_pool import adaptive_avg_pool1d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "group_norm",
           "instance_norm", "rms_norm"]

_LINEAR = {3: "linear", 4: "bilinear", 5: "trilinear"}
_A = -0.75  # PyTorch's bicubic kernel parameter


def _source(out: int, size: int, scale: float | None, align_corners: bool, clamp: bool) -> np.ndarray:
    """PyTorch's ``area_pixel_compute_source_index`` for every output position."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        return dst * ((size - 1) / (out - 1) if out > 1 else 0.0)
    ratio = 1.0 / scale if scale else size / out
    src = (dst + 0.5) * ratio - 0.5
    return np.maximum(src, 0.0) if clamp else src


def _weights(mode: str, size: int, out: int, scale: float | None, align_corners: bool) -> np.ndarray:
    """The ``(out, size)`` matrix that resamples one dim."""
    w = np.zeros((out, size))
    rows = np.arange(out)
    if mode in ("nearest", "nearest-exact"):
        ratio = 1.0 / scale if scale else size / out
        shift = 0.5 if mode == "nearest-exact" else 0.0
        idx = np.minimum(np.floor((rows + shift) * np.float32(ratio)).astype(np.int64), size - 1)
        w[rows, idx] = 1.0
    elif mode == "bicubic":
        src = _source(out, size, scale, align_corners, clamp=False)
        i0 = np.floor(src).astype(np.int64)
        t = src - i0
        cc1 = lambda x: ((_A + 2) * x - (_A + 3)) * x * x + 1  # noqa: E731  |x| <= 1
        cc2 = lambda x: ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A  # noqa: E731  1 < |x| < 2
        for k, coef in enumerate((cc2(t + 1), cc1(t), cc1(1 - t), cc2(2 - t))):
            np.add.at(w, (rows, np.clip(i0 - 1 + k, 0, size - 1)), coef)
    else:  # linear along this dim
        src = _source(out, size, scale, align_corners, clamp=True)
        i0 = np.minimum(np.floor(src).astype(np.int64), size - 1)
        i1 = np.minimum(i0 + 1, size - 1)
        lam = src - i0
        np.add.at(w, (rows, i0), 1.0 - lam)
        np.add.at(w, (rows, i1), lam)
    return w


@torch_node(nearest1="UpsampleNearest1DBackward0", nearest2="UpsampleNearest2DBackward0",
            nearest3="UpsampleNearest3DBackward0", nearest_exact1="UpsampleNearestExact1DBackward0",
            nearest_exact2="UpsampleNearestExact2DBackward0",
            nearest_exact3="UpsampleNearestExact3DBackward0", linear1="UpsampleLinear1DBackward0",
            linear2="UpsampleBilinear2DBackward0", linear3="UpsampleTrilinear3DBackward0",
            bicubic2="UpsampleBicubic2DBackward0", area2="AdaptiveAvgPool2DBackward0")
def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False):
    """Resize the spatial dims (all but the first two) to ``size`` or by ``scale_factor``."""
    unsupported = NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
        f"modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})")
    if mode not in ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area",
                    "nearest-exact"):
        raise unsupported
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported here")
    rank = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = [size] * rank if isinstance(size, int) else list(size)
        if len(sizes) != rank:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, "
                             f"but got input with spatial dimensions of {list(input.shape[2:])} "
                             f"and output size of {size}. Please provide input tensor in "
                             f"(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                             f"format.")
        scales = [None] * rank
    elif scale_factor is not None:
        scales = ([scale_factor] * rank if isinstance(scale_factor, (int, float))
                  else list(scale_factor))
        if len(scales) != rank:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and scale_factor of shape "
                             f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, "
                             f"...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
        sizes = [math.floor(n * s) for n, s in zip(input.shape[2:], scales)]
        if recompute_scale_factor:
            scales = [None] * rank
    else:
        raise ValueError("either size or scale_factor should be defined")
    if mode == "area":   # PyTorch's adaptive average pooling of the input's rank
        if rank == 1:
            return adaptive_avg_pool1d(input, sizes)
        if rank == 3:
            return adaptive_avg_pool3d(input, sizes)
        return renamed(adaptive_avg_pool2d(input, sizes), interpolate.nodes["area2"])
    family = "linear" if mode in _LINEAR.values() else mode
    if family == "linear" and _LINEAR.get(input.dim()) != mode:
        needs = {"linear": 3, "bilinear": 4, "trilinear": 5}[mode]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {needs}D input")
    if (mode == "bicubic" and input.dim() != 4) or rank not in (1, 2, 3):
        raise unsupported
    y = input
    for k, (n, out, s) in enumerate(zip(input.shape[2:], sizes, scales)):
        y = _resample_dim(y, 2 + k, _weights(family, n, out, s, align_corners))
    return renamed(y, interpolate.nodes[f"{family.replace('-', '_')}{rank}"])


def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None):
    """The old name of :func:`interpolate`."""
    return interpolate(input, size, scale_factor, mode, align_corners)


# --- pixel (un)shuffle --------------------------------------------------------------------------

def _pixel_factor(input, r: int, name: str, what: str) -> int:
    """The checks both (un)shuffles make first, in PyTorch's words."""
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {r}")
    return r


@torch_node("PixelShuffleBackward0")
def pixel_shuffle(input, upscale_factor: int):
    """``(*, C*r*r, H, W)`` -> ``(*, C, H*r, W*r)``: a reshape, a permute and a reshape."""
    r = _pixel_factor(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={c} is not "
                           f"divisible by {r * r}")
    b = len(batch)
    x = _f.reshape(input, *batch, c // (r * r), r, r, h, w)
    x = _f.permute(x, *range(b), b, b + 3, b + 1, b + 4, b + 2)
    return renamed(_f.reshape(x, *batch, c // (r * r), h * r, w * r), pixel_shuffle.node)


@torch_node("PixelUnshuffleBackward0")
def pixel_unshuffle(input, downscale_factor: int):
    """``(*, C, H*r, W*r)`` -> ``(*, C*r*r, H, W)``: the inverse of :func:`pixel_shuffle`."""
    r = _pixel_factor(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    *batch, c, h, w = input.shape
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    b = len(batch)
    x = _f.reshape(input, *batch, c, h // r, r, w // r, r)
    x = _f.permute(x, *range(b), b, b + 2, b + 4, b + 1, b + 3)
    return renamed(_f.reshape(x, *batch, c * r * r, h // r, w // r), pixel_unshuffle.node)


# --- normalisation over groups, instances and the last dims ------------------------------------

def _standardize(x, axes: tuple, eps: float):
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` (biased variance)."""
    mean = _f.mean(x, axes, True)
    d = _f.sub(x, mean)
    return _f.mul(d, _f.rsqrt(_f.add(_f.mean(_f.mul(d, d), axes, True), eps)))


def _affine(y, weight, bias, channels_dim: int = 1):
    shape = [1] * y.dim()
    shape[channels_dim] = -1
    if weight is not None:
        y = _f.mul(y, _f.reshape(weight, *shape))
    if bias is not None:
        y = _f.add(y, _f.reshape(bias, *shape))
    return y


@torch_node("NativeGroupNormBackward0")
def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """Standardise each of ``num_groups`` channel groups per sample, then scale and shift per
    channel."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    grouped = _f.reshape(input, n, num_groups, -1)
    y = _f.reshape(_standardize(grouped, (2,), eps), *input.shape)
    return renamed(_affine(y, weight, bias), group_norm.node)


@torch_node("ViewBackward0")  # PyTorch runs it as batch_norm on a (1, N*C, ...) view
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5):
    """Standardise each (sample, channel) over its spatial dims; with running statistics, also
    update them (batch mean of the instance statistics, variance unbiased) as PyTorch does."""
    axes = tuple(range(2, input.dim()))
    if not use_input_stats:
        shape = (1, -1) + (1,) * len(axes)
        y = _f.div(_f.sub(input, _f.reshape(running_mean, *shape)),
                   _f.sqrt(_f.add(_f.reshape(running_var, *shape), eps)))
        return renamed(_affine(y, weight, bias), instance_norm.node)
    spatial = math.prod(input.shape[2:])
    if spatial <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"torch.Size({list(input.shape)})")
    if running_mean is not None:
        with no_grad():
            data = input.detach()
            mean = _f.mean(_f.mean(data, axes), 0)
            var = _f.mean(_var(data, axes), 0)  # unbiased, per instance
            running_mean.mul_(1 - momentum).add_(mean * momentum)
            running_var.mul_(1 - momentum).add_(var * momentum)
    return renamed(_affine(_standardize(input, axes, eps), weight, bias), instance_norm.node)


def rms_norm(input, normalized_shape, weight=None, eps: float | None = None):
    """``x / sqrt(mean(x**2) + eps)`` over the trailing ``normalized_shape`` dims, times
    ``weight``; ``eps`` defaults to the dtype's machine epsilon (PyTorch's)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[-len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    e = float(np.finfo(input._data.dtype).eps) if eps is None else eps
    axes = tuple(range(input.dim() - len(shape), input.dim()))
    y = _f.mul(input, _f.rsqrt(_f.add(_f.mean(_f.mul(input, input), axes, True), e)))
    return y if weight is None else _f.mul(y, weight)

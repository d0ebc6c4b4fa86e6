"""``torch.nn.functional``'s 3-d convolution and the 1-d and 3-d transposed convolutions,
built from the registry's 2-d kernels.

A 3-d convolution is a sum over the filter's depth taps of 2-d convolutions: tap ``kd``
reads the input depths ``o*stride + kd*dilation`` (a strided slice of the depth-padded
input), whose depths fold into the batch, so each tap is one ``conv2d`` call::

    y[:, :, o] = sum over kd of conv2d(x[:, :, o*sd + kd*dd], w[:, :, kd])

The transposed one is its adjoint: tap ``kd`` sends input depth ``i`` to output depth
``i*stride + kd*dilation - padding``, so each tap is one ``conv_transpose2d`` whose result
is spread along depth (zeros between, for the stride) and shifted into place.  The 1-d
transposed convolution is the 2-d one over a height of one.  Gradients of every piece are
the registry's (``common/ops/conv.py``), so all orders of differentiation come free.

>>> import dyngraph as torch
>>> conv3d(torch.ones(1, 1, 3, 3, 3), torch.ones(1, 1, 2, 2, 2)).flatten().tolist()[:2]
[8.0, 8.0]
"""
from __future__ import annotations

from .. import creation, functions as _f
from ..node import renamed
from ..selection import narrow
from .functional_layers import (_CONVOLUTION, _add_bias, _batched, _check_conv_input,
                                conv2d, conv_transpose2d, pad)

__all__ = ["conv3d", "conv_transpose1d", "conv_transpose3d"]


def _triple(v) -> tuple[int, int, int]:
    if isinstance(v, (tuple, list)):
        return tuple(int(e) for e in v) if len(v) == 3 else (int(v[0]),) * 3
    return (int(v),) * 3


def _along_depth(y, lo: int, hi: int):
    """``y`` ``(N, L, ...)`` padded with zeros on dim 1 (``lo`` before, ``hi`` after)."""
    if not lo and not hi:
        return y
    return pad(y, (0, 0) * (y.dim() - 2) + (lo, hi))


def _same_pads(k: tuple, d: tuple) -> tuple:
    """PyTorch's ``padding='same'``: ``d*(k-1)`` in all, the odd one after."""
    return tuple((dd * (kk - 1) // 2, dd * (kk - 1) - dd * (kk - 1) // 2) for kk, dd in zip(k, d))


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution (cross-correlation) of NCDHW ``input`` by OIDHW ``weight``."""
    _check_conv_input(input, weight, groups, "conv3d", 5)
    s, dil, k = _triple(stride), _triple(dilation), tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of "
                             f"['valid', 'same']")
        if padding == "same" and s != (1, 1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = _same_pads(k, dil) if padding == "same" else ((0, 0),) * 3
    else:
        pads = tuple((p, p) for p in _triple(padding))

    def run(x):
        n, c, depth = x.shape[:3]
        x = _along_depth(_f.transpose(x, 1, 2), *pads[0])           # (N, D', C, H, W)
        x = pad(x, (*pads[2], *pads[1])) if any(pads[1] + pads[2]) else x
        out_d = (depth + sum(pads[0]) - dil[0] * (k[0] - 1) - 1) // s[0] + 1
        total = None
        for kd in range(k[0]):
            start = kd * dil[0]
            taps = x[:, start:start + s[0] * (out_d - 1) + 1:s[0]]    # (N, Do, C, H', W')
            folded = _f.reshape(taps, n * out_d, c, *taps.shape[3:])
            y = conv2d(folded, weight[:, :, kd], None, s[1:], 0, dil[1:], groups)
            total = y if total is None else _f.add(total, y)
        y = _f.transpose(_f.reshape(total, n, out_d, *total.shape[1:]), 1, 2)
        return renamed(_add_bias(y, bias), _CONVOLUTION)
    return _batched(run, input, 5)


def _check_transposed(input, weight, rank: int, name: str) -> None:
    """PyTorch's input checks for a transposed convolution (the weight is ``(C_in, ...)``)."""
    shape = list(input.shape)
    if input.dim() not in (rank - 1, rank):
        raise RuntimeError(f"Expected {rank - 1}D (unbatched) or {rank}D (batched) input to "
                           f"{name}, but got input of size: {shape}")
    batched = shape if input.dim() == rank else [1, *shape]
    if batched[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{batched} to have {weight.shape[0]} channels, but got "
                           f"{batched[1]} channels instead")


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """1-d transposed convolution: the 2-d one over a height of one."""
    _check_transposed(input, weight, 3, "conv_transpose1d")
    one = lambda v: (1, int(v[0] if isinstance(v, (tuple, list)) else v))  # noqa: E731
    pad_w = (0, one(padding)[1])
    opad = (0, one(output_padding)[1])

    def run(x):
        y = conv_transpose2d(_f.unsqueeze(x, 2), _f.unsqueeze(weight, 2), bias, one(stride),
                             pad_w, opad, groups, one(dilation))
        return renamed(_f.squeeze(y, 2), _CONVOLUTION)
    return _batched(run, input, 3)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """3-d transposed convolution (the adjoint of :func:`conv3d`), one 2-d transposed
    convolution per depth tap, each spread and shifted along depth."""
    _check_transposed(input, weight, 5, "conv_transpose3d")
    s, p, op, dil = _triple(stride), _triple(padding), _triple(output_padding), _triple(dilation)
    k = tuple(weight.shape[2:])

    def run(x):
        n, c, depth = x.shape[:3]
        folded = _f.reshape(_f.transpose(x, 1, 2), n * depth, c, *x.shape[3:])
        full = (depth - 1) * s[0] + dil[0] * (k[0] - 1) + 1
        out_d = full - 2 * p[0] + op[0]
        total = None
        for kd in range(k[0]):
            y = conv_transpose2d(folded, weight[:, :, kd], None, s[1:], p[1:], op[1:], groups,
                                 dil[1:])
            y = _f.reshape(y, n, depth, *y.shape[1:])                  # (N, D, O, H, W)
            if s[0] > 1:   # input depth i lands on i * stride: zeros between
                gap = creation.zeros(n, depth, s[0] - 1, *y.shape[2:], dtype=y.dtype)
                y = _f.reshape(_f.cat([_f.unsqueeze(y, 2), gap], 2), n, depth * s[0], *y.shape[2:])
                y = narrow(y, 1, 0, (depth - 1) * s[0] + 1)
            shift = kd * dil[0]
            y = _along_depth(y, shift, full - y.shape[1] - shift)
            total = y if total is None else _f.add(total, y)
        kept = min(out_d, full - p[0])
        y = _along_depth(narrow(total, 1, p[0], kept), 0, out_d - kept)
        return renamed(_add_bias(_f.transpose(y, 1, 2), bias), _CONVOLUTION)
    return _batched(run, input, 5)

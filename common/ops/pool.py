"""Pooling (max and average, 2-d; 1-d is 2-d with a height of one) and padding.

A pooling window at output ``(i, j)`` covers rows ``i*sh + p`` and columns ``j*sw + q`` of
the padded input for ``p < kh, q < kw``.  Rather than materialising the windows, each op
walks the ``kh*kw`` offsets, every one a strided view of the whole padded input, so the work
is ``kh*kw`` vectorised elementwise steps::

    out = max over (p, q) of  xp[:, p : p + sh*(Ho-1)+1 : sh, q : ... : sw, :]

Max pooling pads with ``-inf``; its gradient goes to the first maximum of each window
(PyTorch's and TF's choice), found without branches: ``np.maximum`` over the offsets, then
per offset ``hit = (view == max) & ~taken``; the gradient of that gradient gathers from the same places
(``MaxPoolGradGrad``), so the family closes under differentiation.  Where windows do not
overlap, the gradient runs as one numba pass instead (``common.conv_jit.max_pool_grad``, the
same bits; 64x28x28x32 by 2x2: 10 -> 4 ms); so does the forward on a channels-last input
(``common.conv_jit.max_pool``, the same bits: 64x28x28x32 by 2x2 0.94 -> 0.49 ms, 64x14x14x64
0.35 -> 0.14 ms, best of 9 on one core; a NCHW input in NCHW memory keeps numpy's chain,
whose result keeps that layout).  Average pooling divides
by the number of window cells inside ``count_pads`` (the input grown by those pads): TF and
PyTorch's ``count_include_pad=False`` count only real cells (``((0, 0), (0, 0))``), PyTorch's
default also counts its symmetric zero padding but not the extra cells ``ceil_mode`` adds.
Padding is ``"VALID"``, ``"SAME"`` or explicit ``((top, bottom), (left, right))``.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..examples import Example as E
from ..registry import Spec, defop
from ..shapes import fmt_shape, require_kind
from .conv import channels_last, from_channels_last, output_size, resolve_padding, spatial
from .conv_algorithms import compiled_kernels

__all__ = ["pool_output_shape"]


def _pads(hw, ksize, strides, padding):
    return tuple(resolve_padding(hw[i], ksize[i], strides[i], 1, padding, i) for i in (0, 1))


def _offsets(xp, ksize, strides, out_hw):
    """``(p, q, view)`` for every window offset: the strided view it reads (channels-last)."""
    (kh, kw), (sh, sw), (ho, wo) = ksize, strides, out_hw
    for p in range(kh):
        for q in range(kw):
            yield p * kw + q, xp[:, p:p + sh * (ho - 1) + 1:sh, q:q + sw * (wo - 1) + 1:sw]


def _geometry(x, ksize, strides, padding):
    """Channels-last padded input and the output's height and width."""
    hw = x.shape[1:3]
    pads = _pads(hw, ksize, strides, padding)
    out = tuple((hw[i] + pads[i][0] + pads[i][1] - ksize[i]) // strides[i] + 1 for i in (0, 1))
    return pads, out


def _check_float(*tensors):
    """Pooling takes floats only (arrays or Specs): impl and infer refuse alike."""
    require_kind("pooling", "f", *tensors)


def _padded(x, pads, value):
    """``x`` padded on its spatial axes, in ``x``'s memory layout (a NCHW input stays NCHW in
    memory behind its channels-last view, so every elementwise step walks memory in order)."""
    (pt, pb), (pl, pr) = pads
    if not (pt or pb or pl or pr):
        return x
    n, h, w, c = x.shape
    out = np.full_like(x, value, shape=(n, h + pt + pb, w + pl + pr, c))
    out[:, pt:pt + h, pl:pl + w] = x
    return out


def _window_max(x, ksize, strides, padding):
    """``(max of each window, pads, padded x)``: a chain of ``np.maximum`` (no branches)."""
    pads, out_hw = _geometry(x, ksize, strides, padding)
    xp = _padded(x, pads, -np.inf)
    best = None
    for _, view in _offsets(xp, ksize, strides, out_hw):
        best = np.copy(view, order="K") if best is None else np.maximum(best, view, out=best)
    return best, pads, xp


def _first_hits(xp, best, ksize, strides):
    """``(view, hit)`` per window offset: ``hit`` marks the windows whose *first* maximum is at
    that offset (PyTorch's and TF's tie rule), computed branch-free from the window maxima."""
    taken = np.zeros_like(best, dtype=bool)
    hit = np.empty_like(taken)
    for _, view in _offsets(xp, ksize, strides, best.shape[1:3]):
        np.equal(view, best, out=hit)
        hit &= ~taken
        taken |= hit
        yield view, hit


def _overlapping(ksize, strides) -> bool:
    return ksize[0] > strides[0] or ksize[1] > strides[1]


def _max_pool(x, ksize=(2, 2), strides=(2, 2), padding="VALID", data_format="NHWC"):
    """The largest value of each window."""
    _check_float(x)
    xc = channels_last(x, data_format)
    pads, out_hw = _geometry(xc, ksize, strides, padding)
    if xc.flags.c_contiguous and min(out_hw) > 0 and (jit := compiled_kernels(x)) is not None:
        best = np.empty((xc.shape[0],) + out_hw + (xc.shape[3],), x.dtype)
        jit.max_pool(xc, pads[0][0], pads[1][0], ksize[0], ksize[1], strides[0], strides[1], best)
    else:
        best, _, _ = _window_max(xc, ksize, strides, padding)
    return from_channels_last(best, data_format)


def _max_pool_grad(x, g, ksize=(2, 2), strides=(2, 2), padding="VALID", data_format="NHWC"):
    """Each window's gradient, sent to the place of its (first) maximum."""
    _check_float(x)
    xc, gc = channels_last(x, data_format), channels_last(g, data_format)
    add = _overlapping(ksize, strides)      # else each cell is in one window at most: assign
    if not add and (jit := compiled_kernels(x, g)) is not None:
        (pt, _), (pl, _) = _pads(xc.shape[1:3], ksize, strides, padding)
        # numba's one pass (the same bits) writes every cell inside a window: where the
        # windows tile the input no zeros are needed first (64x28x28x32 by 2x2: one pass less)
        tiled = tuple(ksize) == tuple(strides) and gc.shape[1] * strides[0] - pt >= xc.shape[1] and \
            gc.shape[2] * strides[1] - pl >= xc.shape[2]
        dx = (np.empty if tiled else np.zeros)(xc.shape, x.dtype)
        jit.max_pool_grad(xc, gc, pt, pl, ksize[0], ksize[1], strides[0], strides[1], dx)
        return from_channels_last(dx, data_format)
    best, pads, xp = _window_max(xc, ksize, strides, padding)
    dx = np.zeros_like(xp, dtype=np.result_type(x.dtype, g.dtype))
    views = _offsets(dx, ksize, strides, best.shape[1:3])
    for (_, hit), (_, target) in zip(_first_hits(xp, best, ksize, strides), views):
        if add:
            target += gc * hit
        else:
            np.multiply(gc, hit, out=target)
    (pt, _), (pl, _) = pads
    return from_channels_last(dx[:, pt:pt + xc.shape[1], pl:pl + xc.shape[2]], data_format)


def _max_pool_grad_grad(x, h, ksize=(2, 2), strides=(2, 2), padding="VALID", data_format="NHWC"):
    """``h`` read at each window's (first) maximum (``h`` is shaped like ``x``)."""
    _check_float(x)
    xc, hc = channels_last(x, data_format), channels_last(h, data_format)
    best, pads, xp = _window_max(xc, ksize, strides, padding)
    hp = _padded(hc, pads, 0)
    out = np.zeros_like(best, dtype=np.result_type(x.dtype, h.dtype))
    views = _offsets(hp, ksize, strides, best.shape[1:3])
    for (_, hit), (_, source) in zip(_first_hits(xp, best, ksize, strides), views):
        out += source * hit
    return from_channels_last(out, data_format)


def _divisor(hw, ksize, strides, pads, out_hw, count_pads):
    """``(Ho, Wo, 1)``: how many cells of each window lie inside the counted region."""
    inside = np.zeros((hw[0] + pads[0][0] + pads[0][1], hw[1] + pads[1][0] + pads[1][1]))
    inside[pads[0][0] - count_pads[0][0]:pads[0][0] + hw[0] + count_pads[0][1],
           pads[1][0] - count_pads[1][0]:pads[1][0] + hw[1] + count_pads[1][1]] = 1
    total = np.zeros(out_hw)
    for _, view in _offsets(inside[None], ksize, strides, out_hw):
        total += view[0]
    return total[:, :, None]


def _avg_pool(x, ksize=(2, 2), strides=(2, 2), padding="VALID", data_format="NHWC",
              count_pads=((0, 0), (0, 0))):
    """The mean of each window (see the module docstring for what the divisor counts)."""
    _check_float(x)
    xc = channels_last(x, data_format)
    pads, out_hw = _geometry(xc, ksize, strides, padding)
    xp = _padded(xc, pads, 0)
    total = None
    for _, view in _offsets(xp, ksize, strides, out_hw):
        total = np.copy(view, order="K") if total is None else np.add(total, view, out=total)
    total /= _divisor(xc.shape[1:3], ksize, strides, pads, out_hw, count_pads).astype(x.dtype)
    return from_channels_last(total, data_format)


def _avg_pool_grad(g, ref, ksize=(2, 2), strides=(2, 2), padding="VALID", data_format="NHWC",
                   count_pads=((0, 0), (0, 0))):
    """Each window's gradient, shared evenly among its counted cells (input sized as ``ref``)."""
    _check_float(g)
    gc = channels_last(g, data_format)
    hw = spatial(ref.shape, data_format)
    pads = _pads(hw, ksize, strides, padding)
    out_hw = gc.shape[1:3]
    share = gc / _divisor(hw, ksize, strides, pads, out_hw, count_pads).astype(g.dtype)
    dx = np.zeros_like(gc, shape=(gc.shape[0], hw[0] + pads[0][0] + pads[0][1],
                                  hw[1] + pads[1][0] + pads[1][1], gc.shape[3]))
    for _, view in _offsets(dx, ksize, strides, out_hw):
        view += share
    return from_channels_last(dx[:, pads[0][0]:pads[0][0] + hw[0], pads[1][0]:pads[1][0] + hw[1]],
                              data_format)


# --- shape rules -------------------------------------------------------------------------

def pool_output_shape(shape, ksize, strides, padding, data_format) -> tuple | None:
    """The pooled shape (dims may be None)."""
    if shape is None:
        return None
    if len(shape) != 4:
        raise ShapeError(f"pooling needs a 4-dimensional input, got shape {fmt_shape(shape)}")
    n, h, w, c = shape if data_format == "NHWC" else (shape[0], shape[2], shape[3], shape[1])
    out = [output_size(s, ksize[i], strides[i], 1, padding, i) for i, s in enumerate((h, w))]
    if any(o is not None and o <= 0 for o in out):
        raise ShapeError(f"pooling output would be empty: input {fmt_shape(shape)}, window "
                         f"{tuple(ksize)}, strides {tuple(strides)}, padding {padding!r}")
    return (n, out[0], out[1], c) if data_format == "NHWC" else (n, c, out[0], out[1])


def _pool_infer(x: Spec, ksize=(2, 2), strides=(2, 2), padding="VALID", data_format="NHWC", **_) -> Spec:
    _check_float(x)
    return Spec(pool_output_shape(x.shape, ksize, strides, padding, data_format), x.dtype)


def _like_first(x: Spec, other: Spec, **_) -> Spec:
    _check_float(x)
    return Spec(x.shape, np.result_type(x.dtype, other.dtype))


def _like_ref(g: Spec, ref: Spec, data_format="NHWC", **_) -> Spec:
    _check_float(g)
    if ref.shape is None or g.shape is None:
        return Spec(ref.shape, g.dtype)
    n, c = (g.shape[0], g.shape[3]) if data_format == "NHWC" else (g.shape[0], g.shape[1])
    h, w = spatial(ref.shape, data_format)
    return Spec((n, h, w, c) if data_format == "NHWC" else (n, c, h, w), g.dtype)


def _max_grad_infer(x: Spec, h: Spec, ksize=(2, 2), strides=(2, 2), padding="VALID", data_format="NHWC"):
    _check_float(x)
    return Spec(pool_output_shape(x.shape, ksize, strides, padding, data_format),
                np.result_type(x.dtype, h.dtype))


# --- registry ops --------------------------------------------------------------------------

def _pool_attrs(ksize, strides, padding, data_format):
    return dict(ksize=ksize, strides=strides, padding=padding, data_format=data_format)


NCHW = {"data_format": "NCHW"}
POOL_EXAMPLES = (
    E(((2, 4, 4, 3),)),
    E(((2, 5, 7, 2),), {"ksize": (3, 3), "strides": (2, 2), "padding": "SAME"}),
    E(((1, 2, 5, 6),), {"ksize": (2, 3), "strides": (1, 2), "padding": ((1, 1), (1, 2)), **NCHW}),
)

defop("MaxPool", _max_pool, _pool_infer, inputs=("x",), fname="max_pool",
      torch_name="MaxPool2DWithIndicesBackward0", examples=POOL_EXAMPLES,
      grads=(lambda F, g, x, ksize, strides, padding, data_format:
             F.max_pool_grad(x, g, **_pool_attrs(ksize, strides, padding, data_format)),))
defop("MaxPoolGrad", _max_pool_grad, _like_first, inputs=("x", "out_backprop"), fname="max_pool_grad",
      torch_name="MaxPool2DWithIndicesBackwardBackward0",
      examples=(E(((2, 4, 4, 3), (2, 2, 2, 3))),
                E(((2, 5, 7, 2), (2, 3, 4, 2)), {"ksize": (3, 3), "strides": (2, 2), "padding": "SAME"}),
                E(((1, 2, 5, 6), (1, 2, 6, 4)), {"ksize": (2, 3), "strides": (1, 2),
                                                 "padding": ((1, 1), (1, 2)), **NCHW})),
      grads=(None, lambda F, g, x, ksize, strides, padding, data_format:
             F.max_pool_grad_grad(x, g, **_pool_attrs(ksize, strides, padding, data_format))))
defop("MaxPoolGradGrad", _max_pool_grad_grad, _max_grad_infer, inputs=("x", "h"),
      fname="max_pool_grad_grad", torch_name="MaxPool2DWithIndicesBackwardBackward0",
      examples=(E(((2, 4, 4, 3), (2, 4, 4, 3))),
                E(((2, 5, 7, 2), (2, 5, 7, 2)), {"ksize": (3, 3), "strides": (2, 2), "padding": "SAME"})),
      grads=(None, lambda F, g, x, ksize, strides, padding, data_format:
             F.max_pool_grad(x, g, **_pool_attrs(ksize, strides, padding, data_format))))

AVG_EXAMPLES = POOL_EXAMPLES + (
    E(((1, 2, 5, 6),), {"ksize": (3, 3), "strides": (2, 2), "padding": ((1, 2), (1, 1)),
                        "count_pads": ((1, 1), (1, 1)), **NCHW}),)

defop("AvgPool", _avg_pool, _pool_infer, inputs=("x",), fname="avg_pool",
      torch_name="AvgPool2DBackward0", examples=AVG_EXAMPLES,
      grads=(lambda F, g, x_shape, ksize, strides, padding, data_format, count_pads:
             F.avg_pool_grad(g, x_shape, count_pads=count_pads,
                             **_pool_attrs(ksize, strides, padding, data_format)),))
defop("AvgPoolGrad", _avg_pool_grad, _like_ref, inputs=("out_backprop", "ref"), fname="avg_pool_grad",
      torch_name="AvgPool2DBackwardBackward0",
      examples=(E(((2, 2, 2, 3), (2, 4, 4, 3))),
                E(((2, 3, 4, 2), (2, 5, 7, 2)), {"ksize": (3, 3), "strides": (2, 2), "padding": "SAME"}),
                E(((1, 2, 3, 3), (1, 2, 5, 6)), {"ksize": (3, 3), "strides": (2, 2),
                                                 "padding": ((1, 2), (1, 1)),
                                                 "count_pads": ((1, 1), (1, 1)), **NCHW})),
      grads=(lambda F, g, ksize, strides, padding, data_format, count_pads:
             F.avg_pool(g, count_pads=count_pads, **_pool_attrs(ksize, strides, padding, data_format)),
             None), shape_only=(1,))


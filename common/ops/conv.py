"""Convolution: 2-d (1-d is 2-d with a height of one), its two gradients, and transposed conv.

One kernel layout serves both frameworks: the input is viewed channels-last (``NHWC``; a
``NCHW`` input is a transposed view) and the filter as ``HWIO`` (PyTorch's ``OIHW`` is a
transposed view), so PyTorch and TF differ only in the ``data_format``/``filter_format``
attributes.  The work is im2col + one BLAS matmul::

    x (N,H,W,C) --pad--> windows = sliding_window_view(...)[strided]   (N,Ho,Wo,C,kh,kw) view
                 cols = windows as (groups, N*Ho*Wo, kh*kw*Cg)           one copy
                 out  = cols @ filter as (groups, kh*kw*Cg, Og)          one matmul

The filter gradient is ``cols^T @ g`` (one matmul); the input gradient is, per filter offset,
``g @ w[p, q]^T`` added into the cells that offset read (col2im without a strided scatter).
These are the exact kernels, for every stride, dilation, group count and dtype.  A float
convolution at stride 1 (no dilation, one group) may instead run Winograd F(2x2, 3x3) (3x3
filters, float32: forward, input and filter gradient) or a shifted direct GEMM (forward and
input gradient), whichever :mod:`.conv_algorithms` measures fastest for the shape -- the eager
engine caches the choice per shape, the static engine fixes it per node
(``defop(static_impl=)``); ``conv_algorithms.set_algorithm("im2col")`` gives the exact bits.

The gradients are ops of their own (a third input, read only for its shape, gives the size
of the input or filter they are the gradient for), each linear in its two data inputs, so they close
under differentiation (second order comes free)::

    y  = conv(x, w)                dx = conv_input_grad(g, w)      dw = conv_filter_grad(x, g)
    d conv_input_grad / dg = conv(h, w)          d / dw = conv_filter_grad(h, g)
    d conv_filter_grad / dx = conv_input_grad(g, h)   d / dg = conv(x, h)

``padding`` is ``"VALID"``, ``"SAME"`` (TF's: ``ceil(size/stride)`` outputs, the odd pad
row/column at the end) or explicit ``((top, bottom), (left, right))``; it is resolved
against the actual input size when the op runs, so a graph may leave sizes unknown.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..blas import matmul
from ..errors import ShapeError
from ..examples import Example as E
from ..fastpath import jit_module_if_loaded, same_float
from ..registry import Spec, defop
from ..shapes import fmt_shape, require_kind, result_dtype
from . import conv_algorithms
from .conv_algorithms import candidates, choose, shifted_gemm, winograd_3x3, winograd_3x3_filter_grad

__all__ = ["resolve_padding", "output_size", "spatial", "channels_last", "from_channels_last",
           "check_channels"]


# --- geometry -------------------------------------------------------------------------

def resolve_padding(size: int, k: int, stride: int, dilation: int, padding, axis: int) -> tuple:
    """``(before, after)`` padding of one spatial axis (TF's SAME puts the odd one after).

    >>> resolve_padding(28, 3, 2, 1, "SAME", 0)
    (0, 1)
    """
    if padding == "VALID":
        return 0, 0
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
        return total // 2, total - total // 2
    return tuple(padding[axis])


def output_size(size, k, stride, dilation, padding, axis) -> int | None:
    """Number of windows along one axis (None when ``size`` is unknown)."""
    if size is None:
        return None
    lo, hi = resolve_padding(size, k, stride, dilation, padding, axis)
    return (size + lo + hi - (k - 1) * dilation - 1) // stride + 1


def spatial(shape, data_format: str) -> tuple:
    """``(H, W)`` of a 4-d shape in ``data_format``."""
    return tuple(shape[1:3]) if data_format == "NHWC" else tuple(shape[2:4])


def channels_last(x: np.ndarray, data_format: str) -> np.ndarray:
    return x if data_format == "NHWC" else x.transpose(0, 2, 3, 1)


def from_channels_last(y: np.ndarray, data_format: str) -> np.ndarray:
    return y if data_format == "NHWC" else y.transpose(0, 3, 1, 2)


def _hwio(w: np.ndarray, filter_format: str) -> np.ndarray:
    return w if filter_format == "HWIO" else w.transpose(2, 3, 1, 0)


def _from_hwio(w: np.ndarray, filter_format: str) -> np.ndarray:
    return w if filter_format == "HWIO" else w.transpose(3, 2, 0, 1)


def _pads(hw, khw, strides, dilations, padding):
    return tuple(resolve_padding(hw[i], khw[i], strides[i], dilations[i], padding, i) for i in (0, 1))


def _check_numbers(*tensors):
    """Convolution takes numbers, not bools (arrays or Specs: impl and infer refuse alike).

    Integers are convolved as both frameworks do (TF 2.21 builds and runs an ``int32``
    ``tf.nn.conv2d`` in graph mode, PyTorch 2.13 an ``int32``/``int64`` ``F.conv2d``), the
    sums wrapping around in the integer dtype as theirs do; both refuse ``bool``.  TF's own
    narrower list (no ``int64``) is its surface's check (``staticgraph.ops.nn_layers.conv2d``).
    """
    require_kind("convolution", "fiu", *tensors)


# --- the three kernels (channels-last, HWIO) ---------------------------------------------

#: Channels per group up to which :func:`_cols` builds the columns transposed (``K`` rows of
#: ``M``): each filter cell's row is then a copy whose inner run is a whole output row (a
#: strided gather), where the ``(M, K)`` layout copies runs of only ``Cg`` elements.  Measured
#: on the CNN's first layer (64x28x28xC, 3x3, SAME, float32, one core, best of 9): C=1 0.92 ->
#: 0.16 ms, C=2 1.08 -> 0.45, C=3 1.01 -> 0.65, C=4 1.05 -> 0.91, but C=8 1.70 -> 3.07, C=32
#: 0.88 -> 6.4; the product is the same GEMM on a transposed operand (the same bits here).
TRANSPOSED_COLS_MAX_CHANNELS = 4


def _cols(x, khw, strides, dilations, pads, groups):
    """im2col: ``(groups, N*Ho*Wo, kh*kw*Cg)`` from ``x`` ``(N,H,W,C)`` (one copy; a transposed
    view of a ``(groups, K, M)`` array for few channels, :data:`TRANSPOSED_COLS_MAX_CHANNELS`)."""
    (pt, pb), (pl, pr) = pads
    if pt or pb or pl or pr:
        x = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    (kh, kw), (sh, sw), (dh, dw) = khw, strides, dilations
    n, c = x.shape[0], x.shape[3]
    cg = c // groups
    ho = (x.shape[1] - (kh - 1) * dh - 1) // sh + 1
    wo = (x.shape[2] - (kw - 1) * dw - 1) // sw + 1
    if cg <= TRANSPOSED_COLS_MAX_CHANNELS and ho > 0 and wo > 0:
        out = np.empty((groups, kh, kw, cg, n, ho, wo), x.dtype)
        for p in range(kh):
            for q in range(kw):
                view = x[:, p * dh:p * dh + sh * (ho - 1) + 1:sh, q * dw:q * dw + sw * (wo - 1) + 1:sw]
                np.copyto(out[:, p, q], view.reshape(n, ho, wo, groups, cg).transpose(3, 4, 0, 1, 2))
        return out.reshape(groups, kh * kw * cg, n * ho * wo).transpose(0, 2, 1), (n, ho, wo)
    win = sliding_window_view(x, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(1, 2))
    win = win[:, ::sh, ::sw, :, ::dh, ::dw]
    win = win.reshape(n, ho, wo, groups, cg, kh, kw).transpose(3, 0, 1, 2, 5, 6, 4)
    return win.reshape(groups, n * ho * wo, kh * kw * cg), (n, ho, wo)


def _filter_matrix(w, groups):
    """HWIO ``(kh,kw,Cg,O)`` as ``(groups, kh*kw*Cg, Og)``."""
    kh, kw, cg, o = w.shape
    return w.reshape(kh, kw, cg, groups, o // groups).transpose(3, 0, 1, 2, 4).reshape(
        groups, kh * kw * cg, o // groups)


def _grad_matrix(g, groups):
    """Output gradient ``(N,Ho,Wo,O)`` as ``(groups, N*Ho*Wo, Og)``."""
    n, ho, wo, o = g.shape
    return g.reshape(n * ho * wo, groups, o // groups).transpose(1, 0, 2)


def _im2col_conv(x, w, strides, pads, dilations, groups):
    """The exact kernel: im2col + one GEMM (any stride, dilation, groups and dtype)."""
    cols, (n, ho, wo) = _cols(x, w.shape[:2], strides, dilations, pads, groups)
    out = matmul(cols, _filter_matrix(w, groups))              # (groups, M, Og)
    return out.transpose(1, 0, 2).reshape(n, ho, wo, w.shape[3])


def _fast_names(x, other, khw, strides, dilations, groups) -> tuple:
    """The algorithms that may compute a convolution of ``x`` with a ``khw`` filter, ``other``
    the second operand (``("im2col",)`` when only it can): the fast ones need stride 1, no
    dilation, one group, non-empty operands of one float dtype."""
    if (tuple(strides) != (1, 1) or tuple(dilations) != (1, 1) or groups != 1
            or x.dtype != other.dtype or not x.size or not other.size):
        return ("im2col",)
    return candidates(x.shape, khw, x.dtype, True)


def _run_forward(name, x, w, strides, pads, dilations, groups):
    if name == "im2col":
        return _im2col_conv(x, w, strides, pads, dilations, groups)
    if name == "winograd":
        return winograd_3x3(x, w, pads)
    return shifted_gemm(np.pad(x, ((0, 0), pads[0], pads[1], (0, 0))), w)


def conv_nhwc_with(x, w, strides, padding, dilations, groups, algorithm: str | None = None) -> tuple:
    """``(algorithm, y)``: the forward on channels-last ``x`` and HWIO ``w``, computed by
    ``algorithm`` or, when None, by the one :func:`~.conv_algorithms.choose` picks for the shape."""
    pads = _pads(x.shape[1:3], w.shape[:2], strides, dilations, padding)
    names = _fast_names(x, w, w.shape[:2], strides, dilations, groups)
    if algorithm is not None:
        algorithm = algorithm if algorithm in names else "im2col"
        return algorithm, _run_forward(algorithm, x, w, strides, pads, dilations, groups)
    if len(names) == 1:
        return "im2col", _im2col_conv(x, w, strides, pads, dilations, groups)
    return choose(("fwd", x.shape, w.shape, x.dtype.str, pads), names,
                  lambda name: _run_forward(name, x, w, strides, pads, dilations, groups))


def conv_nhwc(x, w, strides, padding, dilations, groups):
    """Forward on channels-last ``x`` and HWIO ``w``: ``(N,Ho,Wo,O)``."""
    return conv_nhwc_with(x, w, strides, padding, dilations, groups)[1]


def _col2im_input_grad(g, w, hw, strides, padding, dilations, groups):
    """The exact gradient for an input of spatial size ``hw``: per filter offset ``(p, q)`` one matmul
    ``g @ w[p, q]^T`` added into the window cells that offset read.

    (The same work as col2im of ``g @ filter^T``, but each product lands contiguous, so the
    ``kh*kw`` scatter-adds stream through memory.)
    """
    kh, kw, cg, o = w.shape
    n, ho, wo, _ = g.shape
    (pt, pb), (pl, pr) = _pads(hw, (kh, kw), strides, dilations, padding)
    (sh, sw), (dh, dw) = strides, dilations
    gm = _grad_matrix(g, groups)                                             # (groups, M, Og)
    wg = w.reshape(kh, kw, cg, groups, o // groups).transpose(0, 1, 3, 4, 2)  # (kh, kw, G, Og, Cg)
    dx = np.zeros((n, hw[0] + pt + pb, hw[1] + pl + pr, groups, cg), dtype=np.result_type(g, w))
    for p in range(kh):
        for q in range(kw):
            part = matmul(gm[0], wg[p, q, 0]) if groups == 1 else matmul(gm, wg[p, q]).transpose(1, 0, 2)
            dx[:, p * dh:p * dh + sh * (ho - 1) + 1:sh, q * dw:q * dw + sw * (wo - 1) + 1:sw] += \
                part.reshape(n, ho, wo, groups, cg)
    return dx[:, pt:pt + hw[0], pl:pl + hw[1]].reshape(n, hw[0], hw[1], groups * cg)


def conv_input_grad_nhwc_with(g, w, hw, strides, padding, dilations, groups,
                       algorithm: str | None = None) -> tuple:
    """``(algorithm, dx)``: the input gradient, by ``algorithm`` or the one chosen for the shape.

    At stride 1 (no dilation, one group) the input gradient is itself a convolution: of ``g``
    padded by ``k-1-pad`` on each side with the filter rotated by 180 degrees and its channel
    axes swapped; Winograd and the shifted GEMM then compete with the per-offset col2im.
    """
    kh, kw = w.shape[:2]
    pads = _pads(hw, (kh, kw), strides, dilations, padding)
    gpads = ((kh - 1 - pads[0][0], kh - 1 - pads[0][1]), (kw - 1 - pads[1][0], kw - 1 - pads[1][1]))
    exact = lambda: _col2im_input_grad(g, w, hw, strides, padding, dilations, groups)  # noqa: E731
    if algorithm == "im2col" or min(min(gpads)) < 0:       # a pad wider than the filter: exact only
        return "im2col", exact()
    rotated = w[::-1, ::-1].swapaxes(2, 3)                 # HWIO (kh, kw, O, C)

    def run(name):
        return exact() if name == "im2col" else _run_forward(name, g, rotated, (1, 1), gpads, (1, 1), 1)
    names = _fast_names(g, rotated, (kh, kw), strides, dilations, groups)
    if algorithm is not None:
        algorithm = algorithm if algorithm in names else "im2col"
        return algorithm, run(algorithm)
    if len(names) == 1:
        return "im2col", exact()
    return choose(("dx", g.shape, w.shape, g.dtype.str, pads, tuple(hw)), names, run)


def conv_input_grad_nhwc(g, w, hw, strides, padding, dilations, groups):
    """The gradient for a channels-last input of spatial size ``hw`` from ``g`` ``(N,Ho,Wo,O)``."""
    return conv_input_grad_nhwc_with(g, w, hw, strides, padding, dilations, groups)[1]


def _im2col_filter_grad(x, g, khw, strides, pads, dilations, groups):
    """The exact filter gradient ``cols^T @ g`` (any stride, dilation, groups and dtype)."""
    cols, _ = _cols(x, khw, strides, dilations, pads, groups)
    dw = matmul(cols.transpose(0, 2, 1), _grad_matrix(g, groups))      # (groups, K, Og)
    cg, og = x.shape[3] // groups, g.shape[3] // groups
    return dw.reshape(groups, khw[0], khw[1], cg, og).transpose(1, 2, 3, 0, 4).reshape(
        khw[0], khw[1], cg, groups * og)


def conv_filter_grad_nhwc_with(x, g, khw, strides, padding, dilations, groups,
                        algorithm: str | None = None) -> tuple:
    """``(algorithm, dw)``: the gradient for an HWIO filter of spatial size ``khw``, by
    ``algorithm`` or the one chosen for the shape (im2col, or Winograd for a 3x3 filter)."""
    pads = _pads(x.shape[1:3], khw, strides, dilations, padding)

    def run(name):
        if name == "winograd":
            return winograd_3x3_filter_grad(x, g, pads)
        return _im2col_filter_grad(x, g, khw, strides, pads, dilations, groups)
    names = tuple(n for n in _fast_names(x, g, tuple(khw), strides, dilations, groups) if n != "direct")
    if algorithm is not None:
        algorithm = algorithm if algorithm in names else "im2col"
        return algorithm, run(algorithm)
    if len(names) == 1:
        return "im2col", run("im2col")
    return choose(("dw", x.shape, g.shape, x.dtype.str, pads), names, run)


def conv_filter_grad_nhwc(x, g, khw, strides, padding, dilations, groups):
    """The gradient for an HWIO filter of spatial size ``khw`` (channels-last ``x`` and ``g``)."""
    return conv_filter_grad_nhwc_with(x, g, khw, strides, padding, dilations, groups)[1]


# --- registry ops ------------------------------------------------------------------------

def _pick_conv2d(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1), groups=1,
                 data_format="NHWC", filter_format="HWIO", algorithm=None) -> tuple:
    _check_numbers(x, w)
    name, y = conv_nhwc_with(channels_last(x, data_format), _hwio(w, filter_format), strides, padding,
                           dilations, groups, algorithm)
    return name, from_channels_last(y, data_format)


def _pick_input_grad(g, w, ref, strides=(1, 1), padding="VALID", dilations=(1, 1), groups=1,
                     data_format="NHWC", filter_format="HWIO", algorithm=None) -> tuple:
    _check_numbers(g, w)
    name, dx = conv_input_grad_nhwc_with(channels_last(g, data_format), _hwio(w, filter_format),
                                  spatial(ref.shape, data_format), strides, padding, dilations,
                                  groups, algorithm)
    return name, from_channels_last(dx, data_format)


def _pick_filter_grad(x, g, ref, strides=(1, 1), padding="VALID", dilations=(1, 1), groups=1,
                      data_format="NHWC", filter_format="HWIO", algorithm=None) -> tuple:
    _check_numbers(x, g)
    name, dw = conv_filter_grad_nhwc_with(channels_last(x, data_format), channels_last(g, data_format),
                                   _filter_hw(ref.shape, filter_format), strides, padding,
                                   dilations, groups, algorithm)
    return name, _from_hwio(dw, filter_format)


def _conv2d(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1), groups=1,
            data_format="NHWC", filter_format="HWIO"):
    """2-d cross-correlation (what both frameworks call convolution)."""
    return _pick_conv2d(x, w, strides, padding, dilations, groups, data_format, filter_format)[1]


def _conv2d_input_grad(g, w, ref, strides=(1, 1), padding="VALID", dilations=(1, 1),
                       groups=1, data_format="NHWC", filter_format="HWIO"):
    """The gradient of conv2d for an input whose height and width are ``ref``'s.

    Also the transposed convolution of ``g`` by ``w`` (``ref`` then gives the output size).
    """
    return _pick_input_grad(g, w, ref, strides, padding, dilations, groups, data_format,
                            filter_format)[1]


def _conv2d_filter_grad(x, g, ref, strides=(1, 1), padding="VALID", dilations=(1, 1),
                        groups=1, data_format="NHWC", filter_format="HWIO"):
    """The gradient of conv2d for a filter shaped like ``ref``."""
    return _pick_filter_grad(x, g, ref, strides, padding, dilations, groups, data_format,
                             filter_format)[1]


def _at_call_site(pick):
    """The static engine's ``static_impl`` for a convolution op whose ``pick`` answers
    ``(algorithm, result)``: a node with known shapes picks its algorithm once, on its first
    run (cuDNN's benchmark mode per node), then calls that kernel without the per-shape lookup;
    a change of :func:`~.conv_algorithms.set_algorithm` makes it pick again.  Unknown dims
    keep the op's ``impl`` (its choice is cached per shape)."""
    def static_impl(*shapes):
        if not all(s is not None and None not in s for s in shapes):
            return None
        chosen = [None, -1]                    # the algorithm, and the setting's generation then

        def kernel(*args, **attrs):
            again = chosen[1] != conv_algorithms.GENERATION
            chosen[0], out = pick(*args, algorithm=None if again else chosen[0], **attrs)
            chosen[1] = conv_algorithms.GENERATION
            return out
        return kernel
    return static_impl


def _filter_dims(w_shape, filter_format):
    """``(kh, kw, Cg, O)`` of a filter shape (entries may be None)."""
    if w_shape is None:
        return (None,) * 4
    return tuple(w_shape) if filter_format == "HWIO" else (w_shape[2], w_shape[3], w_shape[1], w_shape[0])


def _nhwc(shape, data_format):
    return tuple(shape) if data_format == "NHWC" else (shape[0], shape[2], shape[3], shape[1])


def _from_nhwc(shape, data_format):
    return tuple(shape) if data_format == "NHWC" else (shape[0], shape[3], shape[1], shape[2])


def _check_rank(name, spec, rank=4):
    if spec.shape is not None and len(spec.shape) != rank:
        raise ShapeError(f"{name} must be {rank}-dimensional, got shape {fmt_shape(spec.shape)}")


def check_channels(c, cg, groups: int, x_shape, w_shape) -> None:
    """A convolution's one channel check: ``c`` input channels must be ``groups`` times the
    filter's ``cg`` channels per group (unknown dims pass).

    Conv2D's shape rule calls it (the static engine, at build time), and so does dyngraph's
    ``F.conv2d``/``F.conv1d`` before it computes (the eager engine runs no shape rules); the
    :class:`ShapeError` carries each framework's wording and the caller's surface picks one:
    ``tf`` (TF 2.21: "Depth of input (3) is not a multiple of input depth of filter (2)",
    followed by the node), ``torch`` (PyTorch 2.13's whole sentence, which names the shapes
    as the user passed them: ``x_shape`` batched, ``w_shape`` OIHW).
    """
    if c is None or cg is None or c == cg * groups:
        return
    raise ShapeError(
        f"Given groups={groups}, weight of {cg} channels per group expects {cg * groups} "
        f"input channels, but got {c} channels instead",
        tf=f"Depth of input ({c}) is not a multiple of input depth of filter ({cg})",
        torch=f"Given groups={groups}, weight of size {list(w_shape)}, expected input"
              f"{list(x_shape)} to have {cg * groups} channels, but got {c} channels instead")


def _conv2d_infer(x: Spec, w: Spec, strides=(1, 1), padding="VALID", dilations=(1, 1), groups=1,
                  data_format="NHWC", filter_format="HWIO") -> Spec:
    _check_rank("input", x)
    _check_rank("filter", w)
    _check_numbers(x, w)
    dtype = result_dtype(x.dtype, w.dtype)
    kh, kw, cg, o = _filter_dims(w.shape, filter_format)
    if x.shape is None:   # TF's shape function: still rank 4, the filter's out channels
        return Spec(_from_nhwc((None, None, None, o), data_format), dtype)
    n, h, wd, c = _nhwc(x.shape, data_format)
    check_channels(c, cg, groups, x.shape, w.shape)
    out = []
    for i, (size, k) in enumerate(((h, kh), (wd, kw))):
        size = None if k is None else output_size(size, k, strides[i], dilations[i], padding, i)
        if size is not None and size <= 0:
            raise ShapeError(f"convolution output would be empty: input {fmt_shape(x.shape)}, "
                             f"filter {fmt_shape(w.shape)}, strides {tuple(strides)}, padding {padding!r}")
        out.append(size)
    return Spec(_from_nhwc((n, out[0], out[1], o), data_format), dtype)


def _input_grad_infer(g: Spec, w: Spec, ref: Spec, strides=(1, 1), padding="VALID", dilations=(1, 1),
                      groups=1, data_format="NHWC", filter_format="HWIO") -> Spec:
    _check_rank("out_backprop", g)
    _check_rank("filter", w)
    _check_numbers(g, w)
    kh, kw, cg, _ = _filter_dims(w.shape, filter_format)
    n = None if g.shape is None else g.shape[0]
    c = None if cg is None else cg * groups
    hw = (None, None) if ref.shape is None else spatial(ref.shape, data_format)
    return Spec(_from_nhwc((n, hw[0], hw[1], c), data_format),
                result_dtype(g.dtype, w.dtype))


def _filter_grad_infer(x: Spec, g: Spec, ref: Spec, strides=(1, 1), padding="VALID",
                       dilations=(1, 1), groups=1, data_format="NHWC", filter_format="HWIO") -> Spec:
    _check_rank("input", x)
    _check_rank("out_backprop", g)
    _check_numbers(x, g)
    c = None if x.shape is None else _nhwc(x.shape, data_format)[3]
    o = None if g.shape is None else _nhwc(g.shape, data_format)[3]
    cg = None if c is None else c // groups
    kh, kw = _filter_hw(ref.shape, filter_format)
    shape = (kh, kw, cg, o) if filter_format == "HWIO" else (o, cg, kh, kw)
    return Spec(shape, result_dtype(x.dtype, g.dtype))


def _filter_hw(shape, filter_format):
    kh, kw, _, _ = _filter_dims(shape, filter_format)
    return kh, kw


def _attrs(strides, padding, dilations, groups, data_format, filter_format):
    return dict(strides=strides, padding=padding, dilations=dilations, groups=groups,
                data_format=data_format, filter_format=filter_format)


def _dconv_dx(F, g, w, x_shape, strides, padding, dilations, groups, data_format, filter_format):
    a = _attrs(strides, padding, dilations, groups, data_format, filter_format)
    return F.conv2d_input_grad(g, w, x_shape, **a)


def _dconv_dw(F, g, x, w_shape, strides, padding, dilations, groups, data_format, filter_format):
    a = _attrs(strides, padding, dilations, groups, data_format, filter_format)
    return F.conv2d_filter_grad(x, g, w_shape, **a)


def _dinput_grad_dg(F, g, w, strides, padding, dilations, groups, data_format, filter_format):
    return F.conv2d(g, w, **_attrs(strides, padding, dilations, groups, data_format, filter_format))


def _dinput_grad_dw(F, g, out_backprop, w_shape, strides, padding, dilations, groups, data_format,
                    filter_format):
    a = _attrs(strides, padding, dilations, groups, data_format, filter_format)
    return F.conv2d_filter_grad(g, out_backprop, w_shape, **a)


def _dfilter_grad_dx(F, g, out_backprop, x_shape, strides, padding, dilations, groups, data_format,
                     filter_format):
    a = _attrs(strides, padding, dilations, groups, data_format, filter_format)
    return F.conv2d_input_grad(out_backprop, g, x_shape, **a)


def _dfilter_grad_dg(F, g, x, strides, padding, dilations, groups, data_format, filter_format):
    return F.conv2d(x, g, **_attrs(strides, padding, dilations, groups, data_format, filter_format))


TORCH = {"data_format": "NCHW", "filter_format": "OIHW"}
CONV_EXAMPLES = (
    E(((2, 4, 4, 2), (3, 3, 2, 3))),
    E(((1, 5, 6, 2), (3, 2, 2, 2)), {"strides": (2, 2), "padding": "SAME"}),
    E(((1, 2, 5, 5), (4, 1, 3, 3)), {"padding": ((1, 1), (2, 0)), "dilations": (1, 2), "groups": 2, **TORCH}),
    E(((2, 2, 4, 5), (2, 2, 2, 3)), {"strides": (2, 1), "padding": "SAME", **TORCH}),
)

defop("Conv2D", _conv2d, _conv2d_infer, static_impl=_at_call_site(_pick_conv2d), inputs=("x", "w"),
      fname="conv2d", torch_name="ConvolutionBackward0", examples=CONV_EXAMPLES,
      grads=(_dconv_dx, _dconv_dw))
defop("Conv2DBackpropInput", _conv2d_input_grad, _input_grad_infer,
      static_impl=_at_call_site(_pick_input_grad), inputs=("out_backprop", "w", "ref"),
      fname="conv2d_input_grad", torch_name="ConvolutionBackward0",
      examples=(E(((2, 2, 2, 3), (3, 3, 2, 3), (2, 4, 4, 2))),
                E(((1, 3, 3, 2), (3, 2, 2, 2), (1, 5, 6, 2)), {"strides": (2, 2), "padding": "SAME"}),
                E(((1, 4, 5, 3), (4, 1, 3, 3), (1, 2, 5, 5)), {"padding": ((1, 1), (2, 0)),
                                                               "dilations": (1, 2), "groups": 2, **TORCH})),
      grads=(_dinput_grad_dg, _dinput_grad_dw, None), shape_only=(2,))
defop("Conv2DBackpropFilter", _conv2d_filter_grad, _filter_grad_infer,
      static_impl=_at_call_site(_pick_filter_grad), inputs=("x", "out_backprop", "ref"),
      fname="conv2d_filter_grad", torch_name="ConvolutionBackward0",
      examples=(E(((2, 4, 4, 2), (2, 2, 2, 3), (3, 3, 2, 3))),
                E(((1, 5, 6, 2), (1, 3, 3, 2), (3, 2, 2, 2)), {"strides": (2, 2), "padding": "SAME"}),
                E(((1, 2, 5, 5), (1, 4, 5, 3), (4, 1, 3, 3)), {"padding": ((1, 1), (2, 0)),
                                                               "dilations": (1, 2), "groups": 2, **TORCH})),
      grads=(_dfilter_grad_dx, _dfilter_grad_dg, None), shape_only=(2,))


# --- bias ---------------------------------------------------------------------------------

def _bias_add(x, bias, data_format="NHWC"):
    """``x + bias`` along the channel axis (the last, or axis 1 for ``NC...`` formats).

    Channels last, numpy's broadcast add runs one inner loop per ``C``-long row; a large
    C-contiguous float ``x`` goes through numba's one loop instead (``conv_jit.bias_add``, the
    same additions): 64x28x28x32 float32 by 32 channels 0.72 -> 0.53 ms (one core, best of
    15, operands out of cache as in a network) -- once numba is loaded (a convolution's
    kernels load it): this saving alone would not repay its import."""
    if data_format.startswith("NC"):
        return x + bias.reshape((-1,) + (1,) * (x.ndim - 2))
    if (x.__class__ is np.ndarray and bias.__class__ is np.ndarray and bias.ndim == 1
            and x.ndim >= 2 and x.shape[-1] == bias.shape[0] and x.flags.c_contiguous
            and x.size >= conv_algorithms.JIT_MIN and same_float(x, bias)
            and (jit := jit_module_if_loaded("common.conv_jit")) is not None):
        out = np.empty(x.shape, x.dtype)
        jit.bias_add(x.reshape(-1, bias.shape[0]), bias, out.reshape(-1, bias.shape[0]))
        return out
    return x + bias


def _bias_add_infer(x: Spec, bias: Spec, data_format="NHWC") -> Spec:
    dtype = result_dtype(x.dtype, bias.dtype)
    if bias.shape is not None and len(bias.shape) != 1:
        raise ShapeError(f"Shape must be rank 1 but is rank {len(bias.shape)} for 'BiasAdd'")
    if x.shape is None:
        return Spec(None, dtype)
    if len(x.shape) < 2:
        raise ShapeError(f"Shape must be at least rank 2 but is rank {len(x.shape)}")
    c = x.shape[1] if data_format.startswith("NC") else x.shape[-1]
    b = None if bias.shape is None else bias.shape[0]
    if c is not None and b is not None and c != b:
        raise ShapeError(f"Dimensions must be equal, but are {c} and {b}")
    return Spec(x.shape, dtype)


def _bias_grad(F, g, data_format):
    r = F.rank(g)
    keep = 1 if data_format.startswith("NC") else r - 1
    return F.sum(g, axis=tuple(i for i in range(r) if i != keep))


defop("BiasAdd", _bias_add, _bias_add_infer, inputs=("x", "bias"), fname="bias_add",
      torch_name="AddBackward0",
      examples=(E(((2, 3, 4), (4,))), E(((2, 3, 4, 5), (3,)), {"data_format": "NCHW"})),
      grads=(lambda F, g: g, _bias_grad))

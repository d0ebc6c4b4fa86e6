"""``torch.nn.functional``'s pooling in 1, 2 and 3 spatial dims beyond the registry's 2-d
kernels: max pooling with dilation and ``return_indices``, 3-d max and average pooling,
adaptive and fractional pooling, ``max_unpool``, and ``divisor_override``.

Two constructions serve them all, each a composition of registry ops:

* **Max pooling picks, then gathers.**  Every form of max pooling is "for each output cell, a
  set of input cells; take the largest".  The sets are built here as flat positions into the
  spatial dims (``-1`` for padding), the winners are found in numpy with PyTorch's rule
  (the first maximum in window order; a NaN wins, the last one), and the output is
  ``gather(x, winners)``.  Its gradient is the gather's (a scatter-add to the winners, as
  ATen's ``max_pool*_backward``), and the winners are PyTorch's ``indices``.
* **Average pooling is separable.**  A box's mean is the mean along each dim in turn, and
  every divisor PyTorch uses (with or without the padding, clipped at the padded end,
  adaptive windows) is a product of per-dim counts: so the pooling is a ``(out, in)``
  matrix per spatial dim, applied as a matmul (:func:`._dims.map_dim`).

>>> import dyngraph as torch
>>> max_pool3d(torch.arange(8.0).reshape(1, 1, 2, 2, 2), 2).flatten().tolist()
[7.0]
"""
from __future__ import annotations

import math

import numpy as np

from .. import creation, functions as _f
from ..random import rand
from ..selection import gather, narrow
from ._dims import map_dim

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool1d",
           "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d",
           "fractional_max_pool2d", "fractional_max_pool3d", "unfold", "fold"]


def _ntuple(v, n: int, name: str = "") -> tuple:
    """An int, or a sequence of 1 or ``n`` ints, as ``n`` ints (PyTorch's ``_ntuple``)."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]),) * n
        return tuple(int(e) for e in v)
    return (int(v),) * n


def _batched_input(input, n: int, name: str):
    """``(input with a batch dim, whether one was added)``; PyTorch's rank check."""
    if input.dim() not in (n + 1, n + 2) or input.numel() == 0 and input.dim() == n + 1:
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for "
                           f"input")
    if input.dim() == n + 1:
        return _f.unsqueeze(input, 0), True
    return input, False


def _unbatched(y, added: bool):
    return _f.squeeze(y, 0) if added else y


# --- windows --------------------------------------------------------------------------------

def pooling_output_size(size: int, k: int, pad: int, stride: int, dilation: int,
                        ceil_mode: bool) -> int:
    """ATen's ``pooling_output_shape``: a ``ceil_mode`` window must start inside the input
    or its left padding."""
    span = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _strided_windows(size: int, out: int, k: int, stride: int, pad: int, dilation: int):
    """``(out, k)`` input positions of each window along one dim, ``-1`` outside the input."""
    pos = np.arange(out)[:, None] * stride - pad + np.arange(k)[None, :] * dilation
    return np.where((pos >= 0) & (pos < size), pos, -1)


def _adaptive_windows(size: int, out: int):
    """``(out, longest)`` positions of PyTorch's adaptive windows
    ``[floor(o*size/out), ceil((o+1)*size/out))``, padded with ``-1``."""
    o = np.arange(out)
    start = (o * size) // out
    end = -((-(o + 1) * size) // out)
    longest = int((end - start).max()) if out else 0
    pos = start[:, None] + np.arange(longest)[None, :]
    return np.where(pos < end[:, None], pos, -1)


def _combine(per_dim: list, sizes: tuple) -> np.ndarray:
    """Per-dim window positions ``(..., O_d, K_d)`` -> flat spatial positions
    ``(..., O_1*...*O_n, K_1*...*K_n)`` (``-1`` where any dim is outside).  Leading dims
    (per-plane windows) broadcast."""
    n = len(per_dim)
    lead = np.broadcast_shapes(*(p.shape[:-2] for p in per_dim))
    flat, valid = 0, True
    for d, pos in enumerate(per_dim):
        shape = [1] * (2 * n)
        shape[d], shape[n + d] = pos.shape[-2], pos.shape[-1]
        p = pos.reshape(pos.shape[:-2] + tuple(shape))
        flat = flat * sizes[d] + np.maximum(p, 0)
        valid = valid & (p >= 0)
    flat = np.where(valid, flat, -1)
    outs = tuple(p.shape[-2] for p in per_dim)
    flat = np.broadcast_to(flat, lead + flat.shape[len(lead):])
    return flat.reshape(lead + (int(np.prod(outs)), -1)), outs


def _max_at(x, positions: np.ndarray, outs: tuple):
    """``(values, indices)``: per output cell of ``x`` ``(N, C, *spatial)`` the largest of
    the cells at ``positions`` (``(..., O, K)``, ``-1`` skipped), PyTorch's tie and NaN
    rule; the values gathered (so the gradient flows to the winners)."""
    n, c = x.shape[:2]
    data = x._data.reshape(n, c, -1)
    pos = np.broadcast_to(positions, (n, c) + positions.shape[-2:])
    o, k = pos.shape[-2:]
    vals = np.take_along_axis(data, np.maximum(pos, 0).reshape(n, c, o * k), 2).reshape(n, c, o, k)
    vals = np.where(pos >= 0, vals, -np.inf)
    nan = np.isnan(vals)
    pick = np.argmax(vals, -1)                                 # the first maximum
    last_nan = k - 1 - np.argmax(nan[..., ::-1], -1)           # a NaN wins, the last one
    pick = np.where(nan.any(-1), last_nan, pick)
    idx = np.take_along_axis(pos, pick[..., None], -1)[..., 0].astype(np.int64)
    flat = _f.reshape(x, n, c, -1)
    out = gather(flat, 2, creation.as_tensor(idx))
    return _f.reshape(out, n, c, *outs), idx.reshape((n, c) + outs)


def _with_indices(values, idx: np.ndarray, return_indices: bool, added: bool):
    out = _unbatched(values, added)
    if not return_indices:
        return out
    ind = creation.as_tensor(idx)
    return out, _unbatched(ind, added)


# --- max pooling ----------------------------------------------------------------------------

def _check_pool_args(k, s, p, d, n: int) -> None:
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got "
                           + " ".join(f"k{a}: {v}" for a, v in zip("THW"[3 - n:], k)))
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got "
                           + " ".join(f"dilation{a}: {v}" for a, v in zip("THW"[3 - n:], d)))
    for kk, pp, dd in zip(k, p, d):
        if pp > ((kk - 1) * dd + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation={dd}")


def _pool_geometry(x, n: int, kernel_size, stride, padding, dilation, ceil_mode):
    k = _ntuple(kernel_size, n)
    s = k if stride is None or stride == [] or stride == () else _ntuple(stride, n)
    p, d = _ntuple(padding, n), _ntuple(dilation, n)
    _check_pool_args(k, s, p, d, n)
    sizes = tuple(x.shape[2:])
    outs = tuple(pooling_output_size(sizes[i], k[i], p[i], s[i], d[i], ceil_mode)
                 for i in range(n))
    if any(o < 1 for o in outs):
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, x.shape[1:]))}). Calculated "
                           f"output size: ({'x'.join(map(str, (x.shape[1],) + outs))}). "
                           f"Output size is too small")
    return k, s, p, d, sizes, outs


def max_pool_nd(input, n: int, kernel_size, stride=None, padding=0, dilation=1,
                ceil_mode: bool = False, return_indices: bool = False):
    """Max pooling over the last ``n`` dims (``n`` = 1, 2, 3), any dilation, with PyTorch's
    ``indices`` (flat positions in each input plane) when ``return_indices``."""
    x, added = _batched_input(input, n, f"max_pool{n}d")
    k, s, p, d, sizes, outs = _pool_geometry(x, n, kernel_size, stride, padding, dilation,
                                             ceil_mode)
    windows = [_strided_windows(sizes[i], outs[i], k[i], s[i], p[i], d[i]) for i in range(n)]
    positions, outs = _combine(windows, sizes)
    values, idx = _max_at(x, positions, outs)
    return _with_indices(values, idx, return_indices, added)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The maximum of each ``(kT, kH, kW)`` window of a ``(N, C, T, H, W)`` input."""
    return max_pool_nd(input, 3, kernel_size, stride, padding, dilation, ceil_mode,
                       return_indices)


# --- average pooling ------------------------------------------------------------------------

def _avg_matrix(size: int, out: int, k: int, stride: int, pad: int, ceil_mode: bool,
                count_include_pad: bool, override: bool) -> np.ndarray:
    """The ``(out, size)`` map of one dim: ATen's divisor is ``hend - hstart`` with the ends
    clipped to the padded input (``count_include_pad``) or to the input itself."""
    w = np.zeros((out, size))
    for o in range(out):
        start = o * stride - pad
        end = min(start + k, size + pad)
        counted = end - start
        lo, hi = max(start, 0), min(end, size)
        if not count_include_pad:
            counted = hi - lo
        w[o, lo:hi] = 1.0 if override else 1.0 / counted
    return w


def avg_pool_nd(input, n: int, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                count_include_pad: bool = True, divisor_override=None):
    """Average pooling over the last ``n`` dims, as one matmul per dim."""
    x, added = _batched_input(input, n, f"avg_pool{n}d")
    k, s, p, _, sizes, outs = _pool_geometry(x, n, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    y = x
    for i in range(n):
        w = _avg_matrix(sizes[i], outs[i], k[i], s[i], p[i], ceil_mode, count_include_pad,
                        divisor_override is not None)
        y = map_dim(y, 2 + i, w)
    if divisor_override is not None:
        y = _f.div(y, float(divisor_override))
    return _unbatched(y, added)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None):
    """The mean of each ``(kT, kH, kW)`` window of a ``(N, C, T, H, W)`` input."""
    return avg_pool_nd(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override)


# --- adaptive pooling -----------------------------------------------------------------------

def _adaptive_sizes(input, output_size, n: int, name: str) -> tuple:
    if isinstance(output_size, (tuple, list)) and len(output_size) != n and n == 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got "
                           f"{len(output_size)})")
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * n
    return tuple(input.shape[input.dim() - n + i] if o is None else int(o)
                 for i, o in enumerate(sizes))


def _adaptive_input(input, n: int, name: str):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got "
                           f"{list(input.shape)}")
    return (_f.unsqueeze(input, 0), True) if input.dim() == n + 1 else (input, False)


def _adaptive_avg(input, output_size, n: int, name: str):
    outs = _adaptive_sizes(input, output_size, n, name)
    x, added = _adaptive_input(input, n, name)
    y = x
    for i, out in enumerate(outs):
        pos = _adaptive_windows(x.shape[2 + i], out)
        w = np.zeros((out, x.shape[2 + i]))
        counts = (pos >= 0).sum(1)
        for o in range(out):
            w[o, pos[o][pos[o] >= 0]] = 1.0 / counts[o]
        y = map_dim(y, 2 + i, w)
    return _unbatched(y, added)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of a ``(N, C, L)`` input to ``output_size`` windows."""
    return _adaptive_avg(input, output_size, 1, "adaptive_avg_pool1d")


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of a ``(N, C, T, H, W)`` input to ``output_size`` windows."""
    return _adaptive_avg(input, output_size, 3, "adaptive_avg_pool3d")


def _adaptive_max(input, output_size, return_indices: bool, n: int, name: str):
    outs = _adaptive_sizes(input, output_size, n, name)
    x, added = _adaptive_input(input, n, name)
    sizes = tuple(x.shape[2:])
    positions, outs = _combine([_adaptive_windows(sizes[i], outs[i]) for i in range(n)], sizes)
    values, idx = _max_at(x, positions, outs)
    return _with_indices(values, idx, return_indices, added)


def adaptive_max_pool1d(input, output_size, return_indices: bool = False):
    return _adaptive_max(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    return _adaptive_max(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices: bool = False):
    return _adaptive_max(input, output_size, return_indices, 3, "adaptive_max_pool3d")


# --- fractional max pooling -------------------------------------------------------------------

def _fractional_windows(samples: np.ndarray, size: int, out: int, k: int, dtype) -> np.ndarray:
    """ATen's ``generate_intervals`` for every plane: window starts
    ``int((i + u) * alpha) - int(u * alpha)`` (in the input's dtype), the last at
    ``size - k``; returned as ``(planes, out, k)`` positions."""
    u = samples.astype(dtype)
    starts = np.empty(u.shape + (out,), np.int64)
    if out > 1:
        alpha = dtype.type(size - k) / dtype.type(out - 1)
        i = np.arange(out - 1, dtype=dtype)
        starts[..., :-1] = (np.trunc((i + u[..., None]) * alpha).astype(np.int64)
                            - np.trunc(u * alpha).astype(np.int64)[..., None])
    if out > 0:
        starts[..., -1] = size - k
    return starts[..., None] + np.arange(k)


def _fractional(input, kernel_size, output_size, output_ratio, return_indices, samples, n: int):
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    k = _ntuple(kernel_size, n)
    if output_size is None:
        ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else \
            (output_ratio,) * n
        output_size = [int(input.shape[input.dim() - n + i] * ratio[i]) for i in range(n)]
    outs = _ntuple(output_size, n)
    if samples is None:
        batch = 1 if input.dim() == n + 1 else input.shape[0]
        samples = rand(batch, input.shape[-n - 1], n, dtype=input.dtype)
    x, added = _batched_input(input, n, name)
    sizes = tuple(x.shape[2:])
    for i in range(n):
        if outs[i] + k[i] - 1 > sizes[i]:
            raise RuntimeError(f"{name}(): pool height {k[i]} too large relative to input "
                               f"height {sizes[i]}" if n == 2 and i == 0 else
                               f"{name}_out(): pool size {k[i]} too large relative to input "
                               f"size {sizes[i]}")
    u = samples._data
    dtype = np.dtype(x.np_dtype)
    # PyTorch reads the samples backwards against the dims: [0] is the last (W), [1] H, [2] T
    per_dim = [_fractional_windows(u[..., n - 1 - i], sizes[i], outs[i], k[i], dtype)
               for i in range(n)]
    per_dim = [np.where(p < sizes[i], p, -1) for i, p in enumerate(per_dim)]
    positions, outs = _combine(per_dim, sizes)
    values, idx = _max_at(x, positions, outs)
    return _with_indices(values, idx, return_indices, added)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    """Max pooling over pseudo-random overlapping windows (Graham 2014); the window offsets
    come from ``_random_samples`` or, as PyTorch draws them, ``rand(N, C, 2)``."""
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, 3)


# --- unpooling ------------------------------------------------------------------------------

def _unpool(input, indices, kernel_size, stride, padding, output_size, n: int):
    """The values of ``input`` placed at ``indices`` in planes of zeros; the gradient of each
    is what arrives at its place (ATen's ``max_unpool`` backward gathers, so two values sent
    to one place both get it)."""
    k = _ntuple(kernel_size, n)
    s = k if stride is None or stride == [] or stride == () else _ntuple(stride, n)
    p = _ntuple(padding, n)
    default = [(input.shape[input.dim() - n + i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(n)]
    if output_size is None:
        outs = tuple(default)
    else:
        size = list(output_size)
        if len(size) == n + 2:
            size = size[2:]
        elif len(size) == n + 1:
            size = size[1:]
        if len(size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default[d] - s[d], default[d] + s[d]
            if not lo < size[d] < hi:
                raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be '
                                 f'between {lo} and {hi})')
        outs = tuple(int(v) for v in size)
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{indices.dtype.scalar_name}")
    x, added = (_f.unsqueeze(input, 0), True) if input.dim() == n + 1 else (input, False)
    idx = indices._data.reshape(x.shape[0], x.shape[1], -1)
    total = int(np.prod(outs))
    bad = (idx < 0) | (idx >= total)
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {int(idx[bad][0])} (output volumes are "
                           f"of size {'x'.join(map(str, outs))})")
    flat = _f.reshape(x, x.shape[0], x.shape[1], -1)
    placed = np.zeros(flat.shape[:2] + (total,), x.np_dtype)
    np.put_along_axis(placed, idx, flat._data, 2)            # values: the last one written
    # gradient: a scatter-add of the (zero-valued) difference carries it to every sender
    carrier = _f.sub(flat, flat.detach())
    zeros = creation.zeros(*placed.shape, dtype=x.dtype)
    out = _f.add(creation.as_tensor(placed), zeros.scatter_add(2, creation.as_tensor(idx), carrier))
    return _unbatched(_f.reshape(out, x.shape[0], x.shape[1], *outs), added)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d``: values back at their ``indices``, zeros elsewhere."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 3)


# --- sliding blocks: unfold (im2col) and its adjoint fold (col2im) ---------------------------

def _blocks(sizes: tuple, kernel_size, dilation, padding, stride, what: str, extra: str = ""):
    """``(C*K rows' flat positions (K, L) with -1 in the padding, block grid (Lh, Lw))``."""
    k, d, p, s = (_ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    outs = tuple((sizes[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in (0, 1))
    if any(o < 1 for o in outs):
        raise RuntimeError(f"Given {what}=({sizes[0]}, {sizes[1]}), kernel_size={k}, "
                           f"dilation={d}, padding={p}, {extra}calculated shape of the array of "
                           f"sliding blocks as ({outs[0]}, {outs[1]}), but its components must "
                           f"be at least one.")
    windows = [_strided_windows(sizes[i], outs[i], k[i], s[i], p[i], d[i]) for i in (0, 1)]
    positions, _ = _combine(windows, sizes)               # (L, K)
    return positions.T, outs, k, d, p, s


def _with_zero_slot(flat_positions: np.ndarray, size: int) -> np.ndarray:
    """Positions into a plane with one more cell, a zero, where ``-1`` (the padding) points."""
    return np.where(flat_positions >= 0, flat_positions, size)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """``(N, C, H, W)`` -> ``(N, C*kh*kw, L)``: every sliding block as a column (im2col),
    padding read as zeros; the gradient of the gather is ATen's col2im."""
    if input.dim() not in (3, 4) or any(v == 0 for v in input.shape[input.dim() - 3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(input.shape)}")
    x, added = (_f.unsqueeze(input, 0), True) if input.dim() == 3 else (input, False)
    n, c, h, w = x.shape
    pos, _, k, *_ = _blocks((h, w), kernel_size, dilation, padding, stride, "input with spatial size")
    flat = _f.reshape(x, n, c, h * w)
    padded = _f.cat([flat, creation.zeros(n, c, 1, dtype=x.dtype)], 2)
    idx = np.broadcast_to(_with_zero_slot(pos, h * w).reshape(1, 1, -1), (n, c, pos.size))
    cols = gather(padded, 2, creation.as_tensor(np.ascontiguousarray(idx)))
    return _unbatched(_f.reshape(cols, n, c * k[0] * k[1], pos.shape[1]), added)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``(N, C*kh*kw, L)`` -> ``(N, C, H, W)``: the columns summed back into their blocks'
    places (col2im, the adjoint of :func:`unfold`); its gradient is the unfold."""
    if input.dim() not in (2, 3) or any(v == 0 for v in input.shape[input.dim() - 2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    x, added = (_f.unsqueeze(input, 0), True) if input.dim() == 2 else (input, False)
    sizes = _ntuple(output_size, 2)
    k = _ntuple(kernel_size, 2)
    n, ck, blocks = x.shape
    if ck % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={ck} and kernel_size={k}.")
    pos, outs, k, d, p, s = _blocks(sizes, kernel_size, dilation, padding, stride,
                                    "output_size", f"stride={_ntuple(stride, 2)}, ")
    if outs[0] * outs[1] != blocks:
        raise RuntimeError(f"Given output_size={sizes}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, stride={s}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {outs[0]} * {outs[1]} "
                           f"= {outs[0] * outs[1]}, but got input.size(2)={blocks}.")
    c, hw = ck // (k[0] * k[1]), sizes[0] * sizes[1]
    idx = np.broadcast_to(_with_zero_slot(pos, hw).reshape(1, 1, -1), (n, c, pos.size))
    zeros = creation.zeros(n, c, hw + 1, dtype=x.dtype)
    summed = zeros.scatter_add(2, creation.as_tensor(np.ascontiguousarray(idx)),
                               _f.reshape(x, n, c, -1))
    out = _f.reshape(narrow(summed, 2, 0, hw), n, c, *sizes)
    return _unbatched(out, added)

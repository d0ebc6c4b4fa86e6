"""``torch.nn.functional.grid_sample`` and ``affine_grid``: sampling an image at the points
of a grid of normalised coordinates (spatial transformer networks).

``grid_sample`` follows ATen's ``GridSampler`` step by step, as a composition of registry
ops so that both the input and the grid get their gradients:

1. each grid coordinate (``x`` for width, ``y`` for height, ``z`` for depth) becomes a source
   position in pixels (``align_corners`` decides whether -1/1 are the centres or the outer
   edges of the corner pixels), then ``padding_mode`` folds it: ``border`` clips it into the
   image, ``reflection`` mirrors it at the edges and clips.  The folds are piecewise
   ``a*x + b`` with ``a`` in {-1, 0, 1}: here ``a`` and ``b`` come from numpy and the
   position stays a differentiable affine function of the grid, with ATen's slope at the
   kinks (zero where a coordinate is clipped, even at the edge itself);
2. the interpolation weights are polynomials in the fractional part (linear for
   ``bilinear``, Keys' cubic with ``A = -0.75`` for ``bicubic``), so the grid's gradient
   flows through them; the integer taps are found in numpy;
3. the tap values are gathered from the flattened image (zero outside it), so the input's
   gradient is the gather's scatter-add.  ``nearest`` reads the rounded (half to even)
   position: no gradient for the grid, as in ATen.

>>> import dyngraph as torch
>>> img = torch.arange(4.0).reshape(1, 1, 2, 2)
>>> grid_sample(img, torch.zeros(1, 1, 1, 2), align_corners=True).item()
1.5
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import creation, functions as _f
from ..selection import gather, where

__all__ = ["grid_sample", "affine_grid"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")
_A = -0.75   # the cubic convolution's parameter, as ATen's (and interpolate's bicubic)


def _const(like, value):
    """A constant shaped like ``like``'s data, for the ``where`` branches that carry no gradient."""
    return creation.as_tensor(np.asarray(value, like.np_dtype))


def _unnormalize(coord, size: int, align_corners: bool):
    """ATen's ``grid_sampler_unnormalize``: -1 and 1 are the corner pixels' centres (aligned)
    or their outer edges."""
    if align_corners:
        return _f.mul(_f.div(_f.add(coord, 1.0), 2.0), float(size - 1))
    return _f.div(_f.sub(_f.mul(_f.add(coord, 1.0), float(size)), 1.0), 2.0)


def _clip(coord, size: int):
    """ATen's ``clip_coordinates`` into ``[0, size - 1]``; the slope is 1 strictly inside only."""
    low, high = _f.le(coord, 0.0), _f.ge(coord, float(size - 1))
    inside = where(high, _const(coord, size - 1), coord)
    return where(low, _const(coord, 0.0), inside)


def _reflect(coord, twice_low: int, twice_high: int):
    """ATen's ``reflect_coordinates``: ``coord`` mirrored into ``[low, high]`` -- the value and
    the slope (+-1) from numpy, so the result is ``slope * coord + offset``."""
    if twice_low == twice_high:
        return _f.mul(coord, 0.0)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    c = coord._data.astype(np.float64) - low
    slope = np.where(c < 0, -1.0, 1.0)
    c = np.abs(c)
    extra, flips = np.fmod(c, span), np.floor(c / span)
    even = flips % 2 == 0
    value = np.where(even, extra + low, span - extra + low)
    slope = np.where(even, slope, -slope)
    offset = value - slope * coord._data
    dtype = coord.np_dtype
    return _f.add(_f.mul(coord, creation.as_tensor(slope.astype(dtype))),
                  creation.as_tensor(offset.astype(dtype)))


def _fold(coord, size: int, padding_mode: str, align_corners: bool):
    """ATen's ``compute_coordinates``: the padding mode applied to a source position."""
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        return _clip(_reflect(coord, *twice), size)
    return coord


class _Taps:
    """Reads an image ``(N, C, *S)`` at integer positions (one array per spatial dim, shaped
    like the grid's points ``(N, *Out)``): values ``(N, C, *Out)``, zero outside the image."""

    def __init__(self, input):
        self.n, self.c = input.shape[:2]
        self.sizes = tuple(input.shape[2:])
        self.flat = _f.reshape(input, self.n, self.c, -1)

    def __call__(self, positions: list):
        inside = np.ones(positions[0].shape, bool)
        flat = np.zeros(positions[0].shape, np.int64)
        for p, size in zip(positions, self.sizes):
            inside &= (p >= 0) & (p < size)
            flat = flat * size + np.clip(p, 0, size - 1)
        out_shape = positions[0].shape[1:]
        idx = np.broadcast_to(flat.reshape(self.n, 1, -1), (self.n, self.c, flat[0].size))
        vals = gather(self.flat, 2, creation.as_tensor(np.ascontiguousarray(idx)))
        vals = _f.reshape(vals, self.n, self.c, *out_shape)
        if inside.all():
            return vals
        keep = creation.as_tensor(inside[:, None].astype(self.flat.np_dtype))
        return _f.mul(vals, keep)


def _cubic_weights(t):
    """ATen's ``get_cubic_upsample_coefficients``: the four taps' weights at fraction ``t``."""
    def near(x):   # |x| <= 1
        return _f.add(_f.mul(_f.mul(_f.sub(_f.mul(x, _A + 2), _A + 3), x), x), 1.0)

    def far(x):    # 1 < |x| < 2
        inner = _f.add(_f.mul(_f.sub(_f.mul(x, _A), 5 * _A), x), 8 * _A)
        return _f.sub(_f.mul(inner, x), 4 * _A)
    rest = _f.rsub(t, 1.0)
    return [far(_f.add(t, 1.0)), near(t), near(rest), far(_f.add(rest, 1.0))]


def _check_grid(input, grid, mode: str) -> None:
    if input.dim() not in (4, 5) or input.dim() != grid.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(input.shape)} and "
                           f"grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners=None):
    """``input`` ``(N, C, [D,] H, W)`` sampled at ``grid`` ``(N, [D',] H', W', 2 or 3)``
    (normalised ``x, y[, z]`` in ``[-1, 1]``): ``(N, C, [D',] H', W')``."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    _check_grid(input, grid, mode)
    taps = _Taps(input)
    n = input.dim() - 2
    # grid coordinate k addresses spatial dim n - 1 - k (x is the width, the last dim)
    raw = [_unnormalize(grid[..., n - 1 - d], taps.sizes[d], align_corners) for d in range(n)]
    if mode == "bicubic":
        return _bicubic(taps, raw, padding_mode, align_corners)
    coords = [_fold(c, size, padding_mode, align_corners) for c, size in zip(raw, taps.sizes)]
    if mode == "nearest":
        return taps([np.rint(c._data).astype(np.int64) for c in coords])
    lows = [np.floor(c._data).astype(np.int64) for c in coords]
    out = None
    for corner in np.ndindex(*(2,) * n):
        weight = None
        for d in reversed(range(n)):   # ATen multiplies the x weight first, then y, then z
            if corner[d]:
                w = _f.sub(coords[d], _const(coords[d], lows[d]))
            else:
                w = _f.sub(_const(coords[d], lows[d] + 1), coords[d])
            weight = w if weight is None else _f.mul(weight, w)
        vals = taps([low + bit for low, bit in zip(lows, corner)])
        term = _f.mul(vals, _f.unsqueeze(weight, 1))
        out = term if out is None else _f.add(out, term)
    return out


def _bicubic(taps, raw: list, padding_mode: str, align_corners: bool):
    """16 taps around the (unfolded) position; each tap position is folded by the padding
    mode on its own (ATen's ``get_value_bounded``), the weights are the cubic's at the
    fractional parts."""
    (iy, ix) = raw
    y0, x0 = np.floor(iy._data), np.floor(ix._data)
    wy = _cubic_weights(_f.sub(iy, _const(iy, y0)))
    wx = _cubic_weights(_f.sub(ix, _const(ix, x0)))

    def folded(pos: np.ndarray, size: int) -> np.ndarray:
        c = creation.as_tensor(pos.astype(iy.np_dtype))
        return _fold(c, size, padding_mode, align_corners)._data.astype(np.int64)

    out = None
    for i in range(4):
        row = None
        for j in range(4):
            vals = taps([folded(y0 - 1 + i, taps.sizes[0]), folded(x0 - 1 + j, taps.sizes[1])])
            term = _f.mul(vals, _f.unsqueeze(wx[j], 1))
            row = term if row is None else _f.add(row, term)
        term = _f.mul(row, _f.unsqueeze(wy[i], 1))
        out = term if out is None else _f.add(out, term)
    return out


def _base_coords(steps: int, align_corners: bool) -> np.ndarray:
    """ATen's ``linspace_from_neg_one``: pixel centres in ``[-1, 1]``."""
    if steps <= 1:
        return np.zeros(1)
    r = np.linspace(-1.0, 1.0, steps)
    return r if align_corners else r * (steps - 1) / steps


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` (``(N, 2, 3)`` or ``(N, 3, 4)``) over
    an output of ``size`` ``(N, C, H, W)`` or ``(N, C, D, H, W)``: ``base @ theta^T``."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", UserWarning,
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    axes = [_base_coords(s, align_corners) for s in spatial]          # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([*reversed(mesh), np.ones_like(mesh[0])], -1)   # x, y, (z,) 1
    base = creation.as_tensor(base.reshape(1, -1, len(spatial) + 1).astype(theta.np_dtype))
    grid = _f.matmul(_f.expand(base, size[0], *base.shape[1:]), _f.transpose(theta, 1, 2))
    return _f.reshape(grid, size[0], *spatial, len(spatial))

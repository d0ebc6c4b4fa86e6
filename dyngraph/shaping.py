"""torch's remaining ways to view, cut, place and copy: ``select``/``*_scatter``,
``as_strided_copy``, ``tensor_split`` and its ``h/v/dsplit``, ``rot90``, ``unfold``, ``take``/``put``,
``masked_scatter``, ``combinations``/``cartesian_prod``, ``diag_embed``/``diagflat``, the index
builders (``tril_indices``, ``unravel_index``...) and the ``*_copy`` variants.

Every differentiable one is a composite over registry ops (``GetItem`` and its scatter
``ScatterLike``, ``Transpose``, ``Reshape``, ``SplitV``...), so its gradient is theirs. A
``*_copy`` name is torch's non-aliasing twin of a view (``transpose_copy`` is ``transpose`` then
a copy): here it is exactly that, the view op followed by :func:`clone`.

Views in torch share memory with their base; dyngraph's results of these ops are new arrays
(the registry's ``aliases`` facts say which ops may share), so ``as_strided_copy`` reads the
input's elements in row-major order -- torch's storage of a contiguous tensor.

>>> import dyngraph as torch
>>> torch.tensor_split(torch.arange(7), 3)
(tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
"""
from __future__ import annotations

import builtins
import itertools
import math

import numpy as np

from common import REGISTRY
from common.indexing import ARRAY, Slice

from .composite import meshgrid
from .creation import as_tensor, new_zeros, tensor as _tensor, zeros
from .dtypes import get_default_dtype, np_dtype_of
from .engine import apply
from .functions import (_shape_args, _t, clone, expand, flatten, permute, reshape, squeeze, stack,
                        sum as _sum, t, transpose, unsqueeze, wrap_dim)
from .nn.functional import pad as _pad
from .reductions import sort
from .selection import (FULL, _diagonal_positions, chunk, diag, diagonal, embed_diagonal, flip,
                        index_put, narrow, nonzero, split, unbind)
from .tensor import Size, Tensor, check_inplace, make

__all__ = ["select", "select_scatter", "slice_scatter", "diagonal_scatter",
           "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes",
           "unsafe_split", "unsafe_chunk", "fliplr", "flipud", "rot90", "ravel", "take", "put",
           "masked_scatter", "combinations", "cartesian_prod", "diag_embed", "diagflat",
           "constant_pad_nd", "broadcast_shapes", "tril_indices", "triu_indices", "unravel_index",
           "argwhere", "nonzero_static", "msort", "scalar_tensor", "logspace", "positive",
           "empty_strided", "empty_permuted",
           "alias_copy", "as_strided_copy", "diagonal_copy", "expand_copy", "narrow_copy",
           "permute_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy",
           "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy"]

METHODS = ["select", "select_scatter", "slice_scatter", "diagonal_scatter",
           "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes",
           "unsafe_split", "unsafe_chunk", "fliplr", "flipud", "rot90", "ravel", "take", "put",
           "masked_scatter", "diag_embed", "diagflat", "argwhere", "msort", "positive", "unfold",
           "sum_to_size", "resize_", "resize_as_", "new_empty_strided"]

_R = REGISTRY


# --- one index along a dim; writing a part back ---------------------------------------------


def select(input, dim: int, index: int):
    """The slice at ``index`` along ``dim`` (that dim removed)."""
    d = wrap_dim(dim, input.dim())
    n = input._data.shape[d] if input.dim() else 1
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input._data.shape)} at dimension {dim}")
    return apply(_R["GetItem"], (input,), {"key": (FULL,) * d + (builtins.int(index) % n,)})


def _scatter_into(input, src, key: tuple, what: str):
    """``input`` with ``src`` written at ``input[key]`` (basic indexing): torch's ``*_scatter``,
    whose ``src`` must have exactly the shape of that part."""
    part = np.broadcast_to(np.zeros((), np.int8), input._data.shape)[key].shape
    src = _t(src)
    if tuple(src._data.shape) != part:
        raise RuntimeError(f"{what}: expected src to have a size equal to the slice of self. src "
                           f"size = {list(src._data.shape)}, slice size = {list(part)}")
    return index_put(input, key, src)


def select_scatter(input, src, dim: int, index: int):
    d = wrap_dim(dim, input.dim())
    n = input._data.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input._data.shape)} at dimension {dim}")
    return _scatter_into(input, src, (slice(None),) * d + (index % n,), "select_scatter")


def slice_scatter(input, src, dim: int = 0, start=None, end=None, step: int = 1):
    d = wrap_dim(dim, input.dim())
    return _scatter_into(input, src, (slice(None),) * d + (slice(start, end, step),),
                         "slice_scatter")


def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """``input`` with ``src`` written on its ``offset``-th diagonal (of dims ``dim1``, ``dim2``)."""
    n = input.dim()
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    part = diagonal(input, offset, dim1, dim2)
    src = _t(src)
    if tuple(src._data.shape) != tuple(part._data.shape):
        raise RuntimeError(f"diagonal_scatter: expected src to have a size equal to the slice of "
                           f"self. src size = {list(src._data.shape)}, slice size = "
                           f"{list(part._data.shape)}")
    rest = [d for d in range(n) if d not in (d1, d2)]
    order = rest + [d1, d2]
    moved = permute(input, order)
    r, c = _diagonal_positions(input._data.shape[d1], input._data.shape[d2], offset)
    placed = index_put(moved, (slice(None),) * len(rest) + (make(r), make(c)), src)
    return permute(placed, tuple(int(i) for i in np.argsort(order)))


# --- strided views over the row-major elements -----------------------------------------------


def _strided_positions(input, size, stride, storage_offset) -> np.ndarray:
    """The flat (row-major) positions an ``as_strided(size, stride, offset)`` view reads, with
    torch's bounds check."""
    size, stride = tuple(size), tuple(stride)
    offset = 0 if storage_offset is None else builtins.int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    need = offset + 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride)) \
        if builtins.all(size) else 0
    if need > input._data.size:
        item = input._data.dtype.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {item} requiring a storage size of "
                           f"{need * item} are out of bounds for storage of size "
                           f"{input._data.size * item}")
    pos = np.full(size, offset, dtype=np.int64)
    for axis, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = n
        pos = pos + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    return pos


def _as_strided(input, size, stride, storage_offset=None):
    """The elements at ``storage_offset + sum(i_k * stride[k])``, shaped ``size``; positions
    read twice get both gradients (summed), as torch's. Only ``as_strided_copy`` is public:
    torch's ``as_strided`` reads a view's whole storage (its base), which dyngraph does not
    keep, and torch's ``as_strided_scatter`` gradient is not the scatter's own."""
    pos = _strided_positions(input, size, stride, storage_offset)
    return apply(_R["GetItem"], (reshape(input, (-1,)), make(pos)), {"key": (ARRAY,)})


# --- splitting ---------------------------------------------------------------------------------


def tensor_split(input, indices_or_sections, dim: int = 0):
    """``sections`` nearly equal pieces along ``dim`` (the first ``n % sections`` one longer),
    or the pieces between the given ``indices``."""
    d = wrap_dim(dim, input.dim())
    n = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype.kind not in "iu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have "
                               f"integer dtype, but got {ios.dtype}")
        if ios.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {ios.dim()} dims")
        ios = ios.item() if ios.dim() == 0 else [builtins.int(i) for i in ios._data]
    if isinstance(ios, (list, tuple)):
        bounds = [builtins.min(builtins.max(i if i >= 0 else i + n, 0), n) for i in ios]
        starts, stops = [0] + bounds, bounds + [n]
    else:
        k = builtins.int(ios)
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        sizes = [n // k + (i < n % k) for i in range(k)]
        stops = list(itertools.accumulate(sizes))
        starts = [0] + stops[:-1]
    return tuple(narrow(input, d, a, builtins.max(b - a, 0)) for a, b in zip(starts, stops))


def _directional_split(input, ios, dim: int, name: str, need: int):
    if input.dim() < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but "
                           f"got a tensor with {input.dim()} dimensions!")
    if isinstance(ios, builtins.int):
        n = input._data.shape[dim]
        if ios == 0 or n % ios:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {n} is not divisible by the split_size "
                               f"{ios}!")
    return tensor_split(input, ios, dim)


def hsplit(input, indices_or_sections):
    return _directional_split(input, indices_or_sections, 1 if input.dim() > 1 else 0, "hsplit",
                              1)


def vsplit(input, indices_or_sections):
    return _directional_split(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    return _directional_split(input, indices_or_sections, 2, "dsplit", 3)


def split_with_sizes(input, split_sizes, dim: int = 0):
    return split(input, [builtins.int(s) for s in split_sizes], dim)


unsafe_split, unsafe_chunk = split, chunk


# --- flips, rotations, windows -------------------------------------------------------------------


def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input):
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


def rot90(input, k: int = 1, dims=(0, 1)):
    """A quarter turn ``k`` times in the plane of ``dims`` (from the first toward the second)."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    a, b = (wrap_dim(d, input.dim()) for d in dims)
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return transpose(flip(input, b), a, b)
    if k == 2:
        return flip(input, (a, b))
    if k == 3:
        return transpose(flip(input, a), a, b)
    return clone(input)


def unfold(input, dimension: int, size: int, step: int):
    """Every window of ``size`` elements along ``dimension``, ``step`` apart, as a new last dim."""
    if input.dim() == 0:
        wrap_dim(dimension, 0)
        if size > 1:
            raise RuntimeError(f"maximum size for tensor at dimension 0 is 1 but size is {size}")
        return reshape(input, (1,))
    d = wrap_dim(dimension, input.dim())
    n = input._data.shape[d]
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    windows = (n - size) // step + 1
    idx = np.arange(windows)[:, None] * step + np.arange(size)[None, :]
    out = apply(_R["GetItem"], (input, make(idx.astype(np.int64))), {"key": (FULL,) * d + (ARRAY,)})
    perm = list(range(out.dim()))
    perm.append(perm.pop(d + 1))
    return permute(out, perm)


def ravel(input):
    return reshape(input, (-1,))


# --- flat positions: take, put, masked_scatter -------------------------------------------------


def _flat_index(index, numel: int) -> np.ndarray:
    idx = as_tensor(index)._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{as_tensor(index).dtype.scalar_name}")
    bad = idx[(idx >= numel) | (idx < -numel)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {builtins.int(bad.flat[0])} on a "
                         f"tensor of {numel} elements.")
    return idx % builtins.max(numel, 1)


def take(input, index):
    """``input``'s elements (in row-major order) at ``index``, shaped as ``index``."""
    idx = _flat_index(index, input._data.size)
    return apply(_R["GetItem"], (reshape(input, (-1,)), make(idx)), {"key": (ARRAY,)})


def put(input, index, source, accumulate: bool = False):
    """``input`` with ``source``'s elements written (or, ``accumulate``, added) at the flat
    positions ``index``."""
    idx = _flat_index(index, input._data.size)
    out = index_put(reshape(input, (-1,)), (make(idx.reshape(-1)),), reshape(_t(source), (-1,)),
                    accumulate)
    return reshape(out, input._data.shape)


def masked_scatter(input, mask, source):
    """``input`` with the positions where ``mask`` (broadcast) is True filled, in row-major order,
    by ``source``'s first elements."""
    mask = as_tensor(mask)
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.scalar_name}")
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    input = expand(input, shape) if input._data.shape != shape else input
    where = np.broadcast_to(mask._data, shape)
    count = builtins.int(where.sum())
    if count > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    picked = apply(_R["GetItem"], (reshape(source, (-1,)),), {"key": (Slice(0, count, None),)})
    return index_put(input, tuple(make(i) for i in np.nonzero(where)), picked)


# --- combinations; diagonals; padding ----------------------------------------------------------


def combinations(input, r: int = 2, with_replacement: bool = False):
    """The length-``r`` combinations of a vector's elements, one per row (``itertools``')."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return make(np.empty((0,), input._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(input._data.shape[0]), r)), np.int64).reshape(-1, r)
    return apply(_R["GetItem"], (input, make(idx)), {"key": (ARRAY,)})


def cartesian_prod(*tensors):
    """Every tuple of one element from each vector, one per row (a single vector: itself)."""
    for x in tensors:
        if x.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(x._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([flatten(g) for g in grids], 1)


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """Each last-dim vector of ``input`` placed on the ``offset``-th diagonal of a new matrix
    spanning dims ``dim1``, ``dim2`` of the result."""
    n = input.dim() + 1
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return embed_diagonal(input, offset, d1, d2)


def diagflat(input, offset: int = 0):
    return diag(reshape(input, (-1,)), offset)


def constant_pad_nd(input, pad, value=0):
    """``pad`` (last dim first, ``(left, right)`` pairs) filled with ``value``; a negative
    amount crops that side instead."""
    pad = tuple(builtins.int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > input.dim():
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}"
                           if len(pad) % 2 else "Length of pad should be no more than twice the "
                           "number of dimensions of the input.")
    for i in range(len(pad) // 2):
        d = input.dim() - 1 - i
        left, right = (builtins.min(p, 0) for p in pad[2 * i:2 * i + 2])
        if left or right:
            n = input._data.shape[d]
            if n + left + right < 0:
                raise RuntimeError(f"The input size {n}, plus negative padding {left} and "
                                   f"{right} resulted in a negative output size, which is "
                                   f"invalid. Check dimension {d} of your input.")
            input = narrow(input, d, -left, n + left + right)
    grow = tuple(builtins.max(p, 0) for p in pad)
    return _pad(input, grow, "constant", value) if builtins.any(grow) else clone(input)


# --- index builders and look-ups (no gradient) -------------------------------------------------


def broadcast_shapes(*shapes):
    """The shape all of ``shapes`` broadcast to (torch's error when they do not)."""
    shapes = [(s,) if isinstance(s, builtins.int) else tuple(s) for s in shapes]
    out: list[int] = []
    for i, s in enumerate(shapes):
        for k in range(1, len(s) + 1):
            if k > len(out):
                out.insert(0, s[-k])
            elif out[-k] == 1 or out[-k] == s[-k]:
                out[-k] = s[-k] if out[-k] == 1 else out[-k]
            elif s[-k] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[-k]} at "
                                   f"{-k}! Mismatching argument at index {i} had {s}; but "
                                   f"expected shape should be broadcastable to {out}")
    return Size(out)


def _triangle_indices(name: str, row: int, col: int, offset: int, dtype, lower: bool):
    target = np.dtype(np.int64) if dtype is None else np_dtype_of(dtype)
    if target.kind not in "iu":
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{_tensor(0.0, dtype=dtype).dtype.scalar_name}'")
    tri = np.tril_indices if lower else np.triu_indices
    return make(np.stack(tri(row, offset, col)).astype(target))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The (row, column) pairs of the lower triangle of a ``row x col`` matrix, as 2 rows."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    return _triangle_indices("triu_indices", row, col, offset, dtype, False)


def unravel_index(indices, shape):
    """The coordinates in ``shape`` of the flat ``indices`` (one tensor per dim)."""
    idx = as_tensor(indices)
    if idx._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {idx.dtype}")
    shape = (shape,) if isinstance(shape, builtins.int) else tuple(shape)
    size = math.prod(shape)
    if np.any((idx._data < -size) | (idx._data >= size)):
        raise RuntimeError("'indices' must be in range [-prod(shape), prod(shape) - 1]")
    coords = np.unravel_index(idx._data % builtins.max(size, 1), shape)
    return tuple(make(np.asarray(c, np.int64)) for c in coords)


def argwhere(input):
    return nonzero(input)


def nonzero_static(input, *, size: int, fill_value: int = -1):
    """``nonzero`` cut or padded (with ``fill_value``) to exactly ``size`` rows."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got "
                           f"{size}")
    idx = nonzero(input)._data[:size]
    pad = np.full((size - idx.shape[0], idx.shape[1]), fill_value, np.int64)
    return make(np.concatenate([idx, pad]))


def msort(input):
    return sort(input, 0).values


def scalar_tensor(s, *, dtype=None, device=None, layout=None, requires_grad: bool = False,
                  pin_memory=None):
    """A 0-d tensor holding ``s``, of the default float dtype unless ``dtype`` says otherwise."""
    return _tensor(s, dtype=get_default_dtype() if dtype is None else dtype,
                   requires_grad=requires_grad)


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None,
             layout=None, requires_grad: bool = False):
    """``base ** linspace(start, end, steps)``."""
    start, end = (builtins.float(v.item() if isinstance(v, Tensor) else v) for v in (start, end))
    target = np_dtype_of(get_default_dtype() if dtype is None else dtype)
    values = np.power(base, np.linspace(start, end, steps, dtype=np.float64))
    return _tensor(values.astype(target), requires_grad=requires_grad)


def positive(input):
    """``+input``: the tensor itself (torch refuses a bool tensor)."""
    if input._data.dtype == np.bool_:
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return input


# --- uninitialised memory (zeros here, as dyngraph's torch.empty) -------------------------------


def empty_strided(size, stride, *, dtype=None, layout=None, device=None,
                  requires_grad: bool = False, pin_memory: bool = False):
    """A new tensor of ``size`` (its ``stride`` is a memory layout dyngraph does not keep)."""
    return zeros(tuple(size), dtype=dtype, device=device, requires_grad=requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad: bool = False, pin_memory: bool = False):
    """A new tensor of ``size`` (``physical_layout`` orders its memory in torch)."""
    dims = [wrap_dim(d, len(size)) for d in physical_layout]
    if len(set(dims)) != len(dims):
        raise RuntimeError("Duplicate dim not allowed")
    return zeros(tuple(size), dtype=dtype, device=device, requires_grad=requires_grad)


def new_empty_strided(input, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad: bool = False, pin_memory: bool = False):
    return new_zeros(input, tuple(size), dtype=dtype, device=device,
                     requires_grad=requires_grad)


# --- shape changes in place: sum_to_size, resize_ ------------------------------------------------


def sum_to_size(input, *size):
    """``input`` summed down to ``size`` (to which it must be expandable): the gradient of a
    broadcast."""
    size = _shape_args(size)
    shape = input._data.shape
    lead = len(shape) - len(size)
    if lead < 0 or builtins.any(s not in (1, n) for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)
    out = _sum(input, dims, True) if dims else input
    return reshape(out, size)


def resize_(input, *sizes, memory_format=None):
    """``input`` given the shape ``sizes`` in place, keeping its first elements in row-major order
    (new ones are 0 here; torch leaves them uninitialised)."""
    sizes = _shape_args(sizes)
    if input.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    check_inplace(input)
    n = math.prod(sizes)
    flat = input._data.reshape(-1)
    data = np.concatenate([flat[:n], np.zeros(builtins.max(n - flat.size, 0), flat.dtype)])
    input._data, input._sref = data.reshape(sizes), None
    input._vc[0] += 1
    return input


def resize_as_(input, the_template, memory_format=None):
    return resize_(input, the_template._data.shape)


# --- the non-aliasing twins of the views ----------------------------------------------------------


def _copying(view, name: str):
    def f(*args, **kwargs):
        out = view(*args, **kwargs)
        return tuple(clone(o) for o in out) if isinstance(out, tuple) else clone(out)
    f.__name__ = name
    f.__doc__ = f"``{view.__name__}`` followed by a copy: the result shares no memory."
    return f


alias_copy = _copying(lambda input: input, "alias_copy")
as_strided_copy = _copying(_as_strided, "as_strided_copy")
diagonal_copy = _copying(diagonal, "diagonal_copy")
expand_copy = _copying(lambda input, size, *, implicit=False: expand(input, size), "expand_copy")
narrow_copy = _copying(narrow, "narrow_copy")
permute_copy = _copying(permute, "permute_copy")
split_with_sizes_copy = _copying(split_with_sizes, "split_with_sizes_copy")
squeeze_copy = _copying(squeeze, "squeeze_copy")
t_copy = _copying(t, "t_copy")
transpose_copy = _copying(transpose, "transpose_copy")
unbind_copy = _copying(unbind, "unbind_copy")
unfold_copy = _copying(unfold, "unfold_copy")
unsqueeze_copy = _copying(unsqueeze, "unsqueeze_copy")
view_copy = _copying(reshape, "view_copy")

"""Picking, placing and cutting: gather/scatter, masks, split/chunk, repeat, roll, einsum.

Everything here is a composite over registry ops -- ``GetItem`` and
``ScatterLike`` (x[key] and its gradient), ``TakeAlongAxis`` and
``ScatterAddAlongAxis`` (gather and its gradient), ``Select`` (where),
``Reshape``/``BroadcastTo``/``ConcatV2`` -- so each gets its gradient from
those rules; the last op of each is named as PyTorch names the call
(``GatherBackward0``, ``SplitBackward0``, ``RepeatBackward0``...).

>>> import dyngraph as torch
>>> x = torch.tensor([[1, 2], [3, 4]])
>>> torch.gather(x, 1, torch.tensor([[1], [0]]))
tensor([[2],
        [3]])
"""
from __future__ import annotations

import builtins

import numpy as np

from common import REGISTRY
from common.indexing import ARRAY, Slice, decode_index, encode_index
from common.ops.gather_scatter import along_axis_index
from common.ops.linalg import einsum_equation

from .creation import as_tensor
from .engine import apply, node_class_for
from .functions import _is_array, _shape_args, _t, expand, matmul, reshape, to, transpose
from .grad_mode import STATE
from .node import torch_node
from .tensor import Tensor, check_inplace, make, rebase

__all__ = ["gather", "take_along_dim", "scatter", "scatter_add", "index_select", "masked_fill",
           "masked_select", "nonzero", "where", "split", "chunk", "unbind", "unflatten", "repeat",
           "tile", "narrow", "roll", "flip", "movedim", "swapaxes", "einsum", "bmm",
           "index_put", "tril", "triu", "diag", "diagonal", "trace", "dot", "outer", "ger", "mv"]

_R = REGISTRY
FULL = Slice(None, None, None)


def _dim(dim: int, rank: int) -> int:
    if not -builtins.max(rank, 1) <= dim < builtins.max(rank, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-builtins.max(rank, 1)}, {builtins.max(rank, 1) - 1}], but got {dim})")
    return dim % builtins.max(rank, 1)


def _cut(x: Tensor, shape: tuple, skip: int) -> Tensor:
    """``x`` sliced down to ``shape`` in every dim but ``skip`` (PyTorch reads only that part)."""
    if builtins.all(s == d for i, (s, d) in enumerate(zip(shape, x._data.shape)) if i != skip):
        return x
    key = tuple(FULL if i == skip else Slice(0, s, None) for i, s in enumerate(shape))
    return apply(_R["GetItem"], (x,), {"key": key})


def _index_tensor(index, input: Tensor, what: str) -> Tensor:
    """``index`` checked as torch checks gather's and scatter's: int64 or int32, as many dims as
    ``input`` (a 0-d tensor counts as 1-d); an empty index passes unchecked."""
    index = as_tensor(index)
    if index._data.size == 0:
        return index
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
    if builtins.max(index.dim(), 1) != builtins.max(input.dim(), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return index


def _as_vector(x: Tensor) -> Tensor:
    """A 0-d tensor as shape ``[1]`` (gather/scatter/index_select see a scalar so)."""
    return reshape(x, (1,)) if x.dim() == 0 else x


# --- gather / scatter ------------------------------------------------------------------------


def gather(input, dim: int, index):
    """``out[i][j] = input[i][index[i][j]]`` (for ``dim=1``)."""
    index = _index_tensor(index, input, "gather")
    d = _dim(dim, input.dim())
    if index._data.size == 0:   # nothing picked (torch then checks neither dtype nor dims)
        return reshape(_slice(reshape(input, (-1,)), 0, 0, 0), index._data.shape)
    if input.dim() == 0 or index.dim() == 0:
        out = gather(_as_vector(input), d, _as_vector(index))
        return out if index.dim() else reshape(out, ())
    x = _cut(input, index._data.shape, d)
    return apply(_R["TakeAlongAxis"], (x, index), {"axis": d})


_TAKE_ALONG_DIM = node_class_for(_R["TakeAlongAxis"], "take_along_dim")


def take_along_dim(input, indices, dim=None):
    """``input`` picked at ``indices`` along ``dim``; both broadcast in the other dims, and with
    no ``dim`` both are flattened first (torch's rules)."""
    indices = as_tensor(indices)
    if dim is None:
        return apply(_R["TakeAlongAxis"], (reshape(input, (-1,)), reshape(indices, (-1,))),
                     {"axis": 0}, cls=_TAKE_ALONG_DIM)
    if input.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for input, "
                           f"and {indices.dim()} dimensions for indices")
    d = _dim(dim, input.dim())
    shape = np.broadcast_shapes(tuple(1 if i == d else n for i, n in enumerate(input._data.shape)),
                                tuple(1 if i == d else n for i, n in enumerate(indices._data.shape)))
    x = expand(input, tuple(input._data.shape[d] if i == d else n for i, n in enumerate(shape)))
    idx = expand(indices, tuple(indices._data.shape[d] if i == d else n
                                for i, n in enumerate(shape)))
    return apply(_R["TakeAlongAxis"], (x, idx), {"axis": d}, cls=_TAKE_ALONG_DIM)


def _source(src, index: Tensor, input: Tensor, d: int):
    if isinstance(src, Tensor):
        return _cut(src, index._data.shape, d)
    return make(np.full(index._data.shape, src, dtype=input._data.dtype))


@torch_node("ScatterAddBackward0")
def scatter_add(input, dim: int, index, src):
    """``input`` plus ``src`` added at ``index`` along ``dim`` (repeats accumulate)."""
    index = _index_tensor(index, input, "scatter_add")
    d = _dim(dim, input.dim())
    if input.dim() == 0:
        return reshape(scatter_add(_as_vector(input), d, _as_vector(index), _as_vector(_t(src))
                                   if isinstance(src, Tensor) else src), ())
    added = apply(_R["ScatterAddAlongAxis"], (_source(src, index, input, d), input, index),
                  {"axis": d})
    return apply(_R["Add"], (input, added), cls=scatter_add.node)


@torch_node(src="ScatterBackward0", value="ScatterBackward1")
def scatter(input, dim: int, index, src=None, *, value=None, reduce=None):
    """A copy of ``input`` with ``src`` (a tensor or number) written at ``index`` along ``dim``."""
    if reduce == "add":
        return scatter_add(input, dim, index, src if src is not None else value)
    if reduce == "multiply":
        return _scatter_multiply(input, dim, index, src if src is not None else value)
    if reduce is not None:
        raise RuntimeError("reduce argument must be either add or multiply.")
    index = _index_tensor(index, input, "scatter")
    d = _dim(dim, input.dim())
    src = src if src is not None else value
    if input.dim() == 0:
        return reshape(scatter(_as_vector(input), d, _as_vector(index), _as_vector(src)
                               if isinstance(src, Tensor) else src), ())
    hits = np.zeros(input._data.shape, dtype=np.int64)
    np.add.at(hits, along_axis_index(index._data, d), 1)
    placed = apply(_R["ScatterAddAlongAxis"], (_source(src, index, input, d), input, index),
                   {"axis": d})
    if hits.max(initial=0) > 1:  # the same place written twice: keep one value, not the sum
        placed = _one_value_per_place(placed, hits)
    cls = scatter.nodes["src" if isinstance(src, Tensor) else "value"]
    return apply(_R["Select"], (make(hits > 0), placed, input), cls=cls)


def _scatter_multiply(input, dim: int, index, src):
    """``input`` with each place hit by ``index`` multiplied by its ``src`` values. No
    gradient: torch has none for ``scatter(reduce=...)`` either."""
    index = _index_tensor(index, input, "scatter")
    d = _dim(dim, input.dim())
    x = np.array(input._data).reshape(builtins.max(input.dim(), 1) * (1,) if input.dim() == 0
                                      else input._data.shape)
    idx = index._data.reshape(x.ndim * (1,)) if index.dim() == 0 else index._data
    values = _source(src, make(idx), input, d)._data
    np.multiply.at(x, along_axis_index(idx.astype(np.int64), d), values)
    return make(x.reshape(input._data.shape))


def _one_value_per_place(placed: Tensor, hits: np.ndarray) -> Tensor:
    """Where several values were added at one place, their mean (equal values: that value)."""
    return apply(_R["RealDiv"], (placed, make(np.maximum(hits, 1).astype(placed._data.dtype))))


_GETITEM = _R["GetItem"]
_INDEX_SELECT, _MASKED_SELECT = (node_class_for(_GETITEM, "index_select"),
                                 node_class_for(_GETITEM, "masked_select"))
_SLICE, _FLIP = node_class_for(_GETITEM, "slice"), node_class_for(_GETITEM, "flip")
_DIAGONAL = {form: node_class_for(_GETITEM, form) for form in ("diag", "diagonal")}


def index_select(input, dim: int, index):
    index = as_tensor(index)
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    d = _dim(dim, input.dim())
    if input.dim() == 0:
        if index._data.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{index._data.size} value(s)")
        if index._data.reshape(-1)[0] not in (0, -1):
            raise IndexError("index out of range in self")
        return reshape(index_select(reshape(input, (1,)), 0, index.reshape(-1)), ())
    return apply(_R["GetItem"], (input, index.reshape(-1)), {"key": (FULL,) * d + (ARRAY,)},
                 cls=_INDEX_SELECT)


_MASKED_FILL = node_class_for(_R["Select"], "masked_fill")


def masked_fill(input, mask, value):
    """``value`` where ``mask`` is True, ``input`` elsewhere (``mask`` broadcasts; bool only)."""
    mask = as_tensor(mask)
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    v = value if isinstance(value, Tensor) else make(np.array(value).astype(input._data.dtype))
    out = apply(_R["Select"], (mask, v, input), cls=_MASKED_FILL)
    if out._data.dtype != input._data.dtype:
        out = apply(_R["Cast"], (out,), {"dtype": input._data.dtype})
    return out


def masked_select(input, mask):
    mask = as_tensor(mask)
    if mask._data.shape != input._data.shape:
        input = expand(input, np.broadcast_shapes(input._data.shape, mask._data.shape))
        mask = make(np.broadcast_to(mask._data, input._data.shape))
    return apply(_R["GetItem"], (input, mask), {"key": (ARRAY,)},
                 cls=_MASKED_SELECT)


def nonzero(input, *, as_tuple: bool = False):
    data = input._data
    idx = np.argwhere(data.reshape(1) if as_tuple and data.ndim == 0 else data).astype(np.int64)
    if as_tuple:
        return tuple(make(np.ascontiguousarray(idx[:, k])) for k in range(idx.shape[1]))
    return make(idx)


def where(condition, input=None, other=None):
    """``input`` where ``condition`` else ``other``; with the condition alone, its nonzero indices."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    return apply(_R["Select"], (_t(condition), _t(input), _t(other)))


@torch_node("IndexPutBackward0", slices="CopySlices")
def index_put(input, key, value, accumulate: bool = False):
    """``input`` with ``value`` written at ``input[key]`` (out of place; ``x[key] = v`` uses it)."""
    if not isinstance(key, tuple):
        key = (key,)
    spec, arrays = encode_index(tuple(k._data if isinstance(k, Tensor) else k for k in key),
                                is_array=_is_array)
    arrays = tuple(np.asarray(a) for a in arrays)
    ref = np.broadcast_to(np.zeros((), input._data.dtype), input._data.shape)
    picked_shape = ref[decode_index(spec, arrays)].shape
    v = _t(value)
    v = to(v, input._data.dtype) if isinstance(v, Tensor) else make(
        np.array(v, dtype=input._data.dtype))
    if v._data.shape != picked_shape:
        v = expand(v, picked_shape)
    placed = apply(_R["ScatterLike"], (v, input, *arrays), {"key": spec})
    if accumulate:
        return apply(_R["Add"], (input, placed), cls=index_put.node)
    hits = np.zeros(input._data.shape, dtype=np.int64)
    np.add.at(hits, decode_index(spec, arrays), 1)
    if hits.max(initial=0) > 1:
        placed = _one_value_per_place(placed, hits)
    # PyTorch: a write through tensor indices is an index_put, one through basic slicing a
    # CopySlices (its hand-written node for writes into a view)
    cls = index_put.node if ARRAY in spec else index_put.nodes["slices"]
    return apply(_R["Select"], (make(hits > 0), placed, input), cls=cls)


def setitem(input, key, value) -> None:
    """``x[key] = value``: in place; recorded (as PyTorch's CopySlices) when grads flow."""
    if STATE.enabled and (input._rg or getattr(value, "_rg", False)):
        check_inplace(input)
        old = make(input._data.copy(), input._rg, input.grad_fn)
        rebase(input, index_put(old, key, value))
        return
    check_inplace(input)
    if isinstance(key, Tensor):
        key = key._data
    elif isinstance(key, tuple):
        key = tuple(k._data if isinstance(k, Tensor) else k for k in key)
    _refuse_negative_steps(key)
    input._data[key] = value._data if isinstance(value, Tensor) else value
    input._vc[0] += 1


def _refuse_negative_steps(key) -> None:
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, slice) and k.step is not None and k.step <= 0:
            raise ValueError("step must be greater than zero")


# --- cutting and joining ---------------------------------------------------------------------


def _slice(input: Tensor, d: int, start: int, stop: int) -> Tensor:
    key = (FULL,) * d + (Slice(start, stop, None),)
    return apply(_GETITEM, (input,), {"key": key}, cls=_SLICE)


_SPLIT_V = _R["SplitV"]
_SPLIT = node_class_for(_SPLIT_V, "split")


def split(tensor, split_size_or_sections, dim: int = 0):
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes."""
    d = _dim(dim, tensor.dim())
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [builtins.int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                               f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
        cls = None
    else:
        step = builtins.int(split_size_or_sections)
        if step <= 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [builtins.min(step, n - i) for i in range(0, n, step)] if n else [0]
        cls = _SPLIT
    return apply(_SPLIT_V, (tensor,), {"sizes": tuple(sizes), "axis": d}, cls=cls)


def chunk(input, chunks: int, dim: int = 0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    n = input._data.shape[_dim(dim, input.dim())]
    return split(input, builtins.max(-(-n // chunks), 1), dim)


def unbind(input, dim: int = 0):
    d = _dim(dim, input.dim())
    return apply(_R["Unpack"], (input,), {"num": input._data.shape[d], "axis": d})


def unflatten(input, dim: int, sizes):
    d = _dim(dim, input.dim())
    shape = input._data.shape
    return reshape(input, shape[:d] + tuple(sizes) + shape[d + 1:])


def narrow(input, dim: int, start: int, length: int):
    d = _dim(dim, input.dim())
    start = builtins.int(start) % builtins.max(input._data.shape[d], 1) if start < 0 else start
    if start + length > input._data.shape[d]:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({input._data.shape[d]}).")
    return _slice(input, d, start, start + length)


@torch_node("RepeatBackward0")
def repeat(input, *sizes):
    """Tile ``input``: ``x.repeat(2, 1)`` stacks two copies along dim 0."""
    sizes = _shape_args(sizes)
    if len(sizes) < input.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    shape = (1,) * (len(sizes) - input.dim()) + input._data.shape
    spread = tuple(v for s in shape for v in (1, s))
    target = tuple(v for r, s in zip(sizes, shape) for v in (r, s))
    x = apply(_R["Reshape"], (input,), {"shape": spread})
    x = apply(_R["BroadcastTo"], (x,), {"shape": target})
    return apply(_R["Reshape"], (x,), {"shape": tuple(r * s for r, s in zip(sizes, shape))},
                 cls=repeat.node)


def tile(input, dims):
    dims = tuple(dims)
    return repeat(input, (1,) * (input.dim() - len(dims)) + dims)


@torch_node("RollBackward0")
def roll(input, shifts, dims=None):
    """Elements shifted along ``dims`` (wrapping around); with no dims, over the flat tensor."""
    if dims is None:
        flat = roll(input if input.dim() == 1 else reshape(input, -1), shifts, 0)
        return flat if input.dim() == 1 else apply(_R["Reshape"], (flat,), {
            "shape": input._data.shape}, cls=roll.node)
    shifts = shifts if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    out = input
    for s, dim in zip(shifts, dims):
        d = _dim(dim, out.dim())
        n = out._data.shape[d]
        k = builtins.int(s) % n if n else 0
        if k:
            out = apply(_R["ConcatV2"], (_slice(out, d, n - k, n), _slice(out, d, 0, n - k)),
                        {"axis": d}, cls=roll.node)
    return out


def flip(input, dims):
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    axes = {_dim(d, input.dim()) for d in dims}
    key = tuple(Slice(None, None, -1) if i in axes else FULL for i in range(input.dim()))
    return apply(_GETITEM, (input,), {"key": key}, cls=_FLIP)


def movedim(input, source, destination):
    src = source if isinstance(source, (tuple, list)) else (source,)
    dst = destination if isinstance(destination, (tuple, list)) else (destination,)
    r = input.dim()
    src, dst = [_dim(s, r) for s in src], [_dim(d, r) for d in dst]
    rest = iter(i for i in range(r) if i not in src)
    perm = [src[dst.index(i)] if i in dst else next(rest) for i in range(r)]
    return apply(_R["Transpose"], (input,), {"perm": tuple(perm)})


def swapaxes(input, axis0: int, axis1: int):
    return transpose(input, axis0, axis1)


def einsum(equation: str, *operands):
    """``einsum("ij,jk->ik", a, b)``; operands may also come as one list."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = tuple(_t(x) for x in operands)
    eq = einsum_equation(equation, [x.dim() for x in operands])
    return apply(_R["Einsum"], operands, {"equation": eq})


_BMM = node_class_for(_R["MatMul"], "bmm")


def bmm(input, mat2):
    for name, x in (("batch1", input), ("batch2", mat2)):
        if x.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if input._data.shape[0] != mat2._data.shape[0] or input._data.shape[2] != mat2._data.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input._data.shape[0]}, {input._data.shape[2]}] but got: "
                           f"[{mat2._data.shape[0]}, {mat2._data.shape[1]}].")
    return apply(_R["MatMul"], (input, mat2), cls=_BMM)


# --- triangles and diagonals; vector products ------------------------------------------------


_TRIANGLES = {form: node_class_for(_R["Select"], form) for form in ("tril", "triu")}


def _triangle(input, diagonal: int, lower: bool, name: str):
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    rows, cols = input._data.shape[-2:]
    keep = np.tri(rows, cols, diagonal, dtype=bool)
    keep = keep if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)
    zero = make(np.zeros((), input._data.dtype))
    return apply(_R["Select"], (make(keep), input, zero), cls=_TRIANGLES[name])


def tril(input, diagonal: int = 0):
    """The lower triangle (on and below ``diagonal``); the rest zero."""
    return _triangle(input, diagonal, True, "tril")


def triu(input, diagonal: int = 0):
    """The upper triangle (on and above ``diagonal``); the rest zero."""
    return _triangle(input, diagonal, False, "triu")


def _diagonal_positions(rows: int, cols: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the ``offset``-th diagonal of a ``rows x cols`` matrix
    (above the main one for ``offset > 0``, below it for ``offset < 0``; empty past the edge)."""
    k = builtins.max(0, builtins.min(rows + builtins.min(offset, 0), cols - builtins.max(offset, 0)))
    i = np.arange(k, dtype=np.int64)
    return i - builtins.min(offset, 0), i + builtins.max(offset, 0)


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """The ``offset``-th diagonal of the matrices spanned by ``dim1`` and ``dim2``, as a last dim."""
    n = input.dim()
    d1, d2 = _dim(dim1, n), _dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _diagonal(input, "diagonal", offset, d1, d2)


def _diagonal(input, form: str, offset: int = 0, d1: int = 0, d2: int = 1):
    """``diagonal`` after its checks: the two dims moved last, then one paired index into them."""
    rest = [d for d in range(input.dim()) if d not in (d1, d2)]
    x = input
    if (d1, d2) != (input.dim() - 2, input.dim() - 1):
        x = apply(_R["Transpose"], (input,), {"perm": tuple(rest + [d1, d2])})
    rows, cols = input._data.shape[d1], input._data.shape[d2]
    r, c = _diagonal_positions(rows, cols, offset)
    return apply(_GETITEM, (x, make(r), make(c)), {"key": (FULL,) * len(rest) + (ARRAY, ARRAY)},
                 cls=_DIAGONAL[form])


_DIAG_EMBED = node_class_for(_R["Mul"], "diag_embed")


def diag(input, diagonal: int = 0):
    """A vector placed on the ``diagonal``-th diagonal of a square matrix, or a matrix's
    ``diagonal``-th diagonal."""
    if input.dim() == 1:
        if diagonal == 0:
            eye = make(np.eye(input._data.shape[0], dtype=input._data.dtype))
            return apply(_R["Mul"], (eye, input), cls=_DIAG_EMBED)
        return embed_diagonal(input, diagonal, 0, 1)
    if input.dim() == 2:
        return _diagonal(input, "diag", diagonal)
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.dim()}D")


def embed_diagonal(input, offset: int, d1: int, d2: int):
    """Zeros with ``input``'s last dim placed on the ``offset``-th diagonal of new dims ``d1``,
    ``d2`` (torch.diag_embed; its gradient is ``diagonal`` of the incoming gradient)."""
    shape = input._data.shape
    m = shape[-1] + builtins.abs(offset)
    rest = list(shape[:-1])
    r, c = _diagonal_positions(m, m, offset)
    zeros = make(np.zeros(tuple(rest) + (m, m), input._data.dtype))
    key = (FULL,) * len(rest) + (ARRAY, ARRAY)
    placed = apply(_R["ScatterLike"], (input, zeros, make(r), make(c)), {"key": key})
    rank = len(rest) + 2
    perm = [0] * rank
    others = iter(range(len(rest)))
    for d in range(rank):
        perm[d] = rank - 2 if d == d1 else rank - 1 if d == d2 else next(others)
    return placed if perm == list(range(rank)) else apply(_R["Transpose"], (placed,),
                                                          {"perm": tuple(perm)})


_TRACE = node_class_for(_R["Sum"], "trace")


def trace(input):
    if input.dim() != 2:
        raise RuntimeError("trace: expected a matrix")
    return apply(_R["Sum"], (_diagonal(input, "diagonal"),), {"axis": None, "keepdims": False},
                 cls=_TRACE)


def dot(input, other):
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           f"tensors")
    return matmul(input, other)


def outer(input, vec2):
    return apply(_R["Mul"], (apply(_R["ExpandDims"], (input,), {"axis": -1}), vec2))


ger = outer


def mv(input, vec):
    return matmul(input, vec)


def expand_as(input, other):
    return expand(input, other._data.shape)


METHODS = ["gather", "take_along_dim", "scatter", "scatter_add", "index_select", "masked_fill",
           "masked_select", "nonzero", "split", "chunk", "unbind", "unflatten", "repeat", "tile",
           "narrow", "roll", "flip", "movedim", "swapaxes", "bmm", "index_put", "tril", "triu",
           "diag", "diagonal", "trace", "dot", "outer", "ger", "mv", "expand_as"]

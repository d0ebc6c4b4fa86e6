"""Shape and indexing ops with TF's names: ``tf.shape``, ``tf.gather``, ``tf.pad``, ``tf.split``...

Most are front ends over a few registry ops: every gather/slice form is the
``GetItem`` op (integer arrays are its extra inputs, its gradient a scatter-add),
``scatter_nd`` is ``ScatterLike``; ``Shape``/``Size``/``Rank``, ``Range``, ``Tile``
and ``Pad`` are their own ops.  Nodes are named as TF names them (``GatherV2``,
``strided_slice``...).

:func:`constant_value` answers what a tensor's value is *at build time* when the
graph already fixes it (a constant, the shape of a fully-known tensor, a stack or
slice of those) -- TF's ``tensor_util.constant_value``; the shape arguments of
``reshape``, ``range``, ``sequence_mask`` use it.

>>> import staticgraph as tf
>>> x = tf.placeholder(tf.float32, [None, 3])
>>> tf.shape(x).name, tf.gather(x, [0, 2], axis=1).shape.as_list()
('Shape:0', [None, 2])
"""
from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from common import REGISTRY
from common.indexing import ARRAY, Slice
from common.ops.shape import range_length

from ..framework import dtypes as _dtypes
from ..framework.build import apply, constant, convert_to_tensor
from ..framework.error_text import shape_inference_error, tf_shape
from ..framework.graph import Tensor, name_scope
from ..framework.shape_values import (constant_value, constant_value_as_shape, is_runtime_shape, shape_tensor,
                                      stack_or_none, static_value)
from .core_ops import (cast, expand_dims, gather_index, less, logical_and, logical_not, logical_or,
                       matmul, maximum, reshape, square, squeeze, subtract, transpose, where, zeros,
                       zeros_like)
from .math_ops import reduce_all

__all__ = ["constant_value", "shape", "size", "rank", "argmax", "argmin", "gather", "gather_nd",
           "scatter_nd", "tile", "pad", "slice", "strided_slice", "split", "range",
           "sequence_mask", "eye", "tensordot", "squared_difference", "logical_xor", "newaxis",
           "boolean_mask"]

newaxis = None
_R = REGISTRY


def _int_list(value, what: str) -> list[int]:
    """``value`` (ints, tensors with build-time values, or a mix) as Python ints."""
    v = constant_value(value) if not isinstance(value, (list, tuple)) else stack_or_none(value)
    if v is None:
        raise ValueError(f"{what} must be known when the graph is built (ints, or tensors whose "
                         f"value the graph fixes, such as tf.shape of a fully-known tensor); "
                         f"{value} is only known at run time")
    return [int(d) for d in np.asarray(v).reshape(-1)]


# --- shape facts ------------------------------------------------------------------------------

def shape(input, name=None, out_type=_dtypes.int32) -> Tensor:  # noqa: A002
    """``input``'s shape as an int32 vector, computed when the graph runs."""
    return apply(_R["Shape"], (convert_to_tensor(input),),
                 {"out_type": _dtypes.as_dtype(out_type)._np}, name=name or "Shape")


def size(input, name=None, out_type=_dtypes.int32) -> Tensor:  # noqa: A002
    return apply(_R["Size"], (convert_to_tensor(input),),
                 {"out_type": _dtypes.as_dtype(out_type)._np}, name=name or "Size")


def rank(input, name=None) -> Tensor:  # noqa: A002
    return apply(_R["Rank"], (convert_to_tensor(input),), {}, name=name or "Rank")


def _arg(op_type, input, axis, name, dimension, output_type):  # noqa: A002
    axis = dimension if axis is None else axis
    attrs = {"axis": 0 if axis is None else int(axis)}
    dt = _dtypes.as_dtype(output_type)
    if dt == _dtypes.int64:
        return apply(_R[op_type], (convert_to_tensor(input),), attrs, name=name or op_type)
    with name_scope(name, op_type) as scope:   # TF's output_type: the result keeps the op's name
        out = apply(_R[op_type], (convert_to_tensor(input),), attrs, name=op_type)
        return cast(out, dt, name=scope)


def argmax(input, axis=None, name=None, dimension=None, output_type=_dtypes.int64) -> Tensor:  # noqa: A002
    """Index of the largest value along ``axis`` (default 0), as int64."""
    return _arg("ArgMax", input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=_dtypes.int64) -> Tensor:  # noqa: A002
    return _arg("ArgMin", input, axis, name, dimension, output_type)


# --- gathers and scatters ---------------------------------------------------------------------

def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0) -> Tensor:
    """``params`` taken at ``indices`` along ``axis``: shape ``p[:axis] + i.shape + p[axis+1:]``.

    ``batch_dims=b``: the first ``b`` dims of ``params`` and ``indices`` are a batch, each
    batch entry gathering from its own slice (shape ``p[:axis] + i.shape[b:] + p[axis+1:]``).
    """
    params = convert_to_tensor(params)
    if batch_dims:
        return _batch_gather(params, _indices(indices), axis, int(batch_dims), name or "GatherV2")
    if isinstance(axis, Tensor):   # a tensor whose value the graph fixes (tf.constant(1))
        axis = _int_list(axis, "gather's axis")[0]
    axis = 0 if axis is None else int(axis) % max(params.ndim or 1, 1)
    if isinstance(indices, Tensor):
        return gather_index(params, (builtins.slice(None),) * axis + (indices,),
                            name=name or "GatherV2", tf_type="GatherV2")
    with name_scope(name, "GatherV2") as scope:   # the indices' Const inside: GatherV2/indices
        return gather_index(params, (builtins.slice(None),) * axis + (_indices(indices),),
                            name=scope, tf_type="GatherV2")


def _gather_nd_ignoring_bad(params: Tensor, indices, name, batch_dims) -> Tensor:
    """``gather_nd`` where each out-of-range index tuple reads row 0 and is then replaced by
    zeros: the gather's gradient adds 0 there, so the ignored rows get none."""
    indices = _indices(indices)
    k = indices.shape.as_list()[-1] if indices.ndim else None
    if batch_dims or k is None or params.ndim is None:
        raise ValueError("gather_nd(bad_indices_policy='IGNORE') here takes batch_dims=0 and "
                         "params and indices of known rank")
    with name_scope(name, "GatherNd"):
        limit = cast(gather_index(shape(params), (builtins.slice(0, k),)), indices.dtype)
        in_range = logical_and(logical_not(less(indices, 0)), less(indices, limit))
        ok = reduce_all(in_range, axis=-1, keepdims=True)
        out = gather_nd(params, where(ok, indices, zeros_like(indices)))
        for _ in builtins.range(params.ndim - k - 1):   # ok: the index shape, then 1s
            ok = expand_dims(ok, -1)
        if params.ndim == k:
            ok = squeeze(ok, -1)
        return where(ok, out, zeros_like(out))


def _batch_positions(params: Tensor, batch_dims: int, rank: int) -> list[Tensor]:
    """``range(n_j)`` shaped to broadcast along dim ``j`` of a rank-``rank`` index array."""
    out = []
    for j in builtins.range(batch_dims):
        n = params._shape[j] if params._shape[j] is not None else shape(params)[j]
        out.append(reshape(range(n), [1] * j + [-1] + [1] * (rank - j - 1)))
    return out


def _batch_gather(params: Tensor, indices: Tensor, axis, batch_dims: int, name: str) -> Tensor:
    rank_i, rank_p = indices.ndim, params.ndim
    if rank_i is None or rank_p is None:
        raise ValueError("gather with batch_dims needs params and indices of known rank")
    if batch_dims < 0:
        batch_dims += rank_i
    axis = batch_dims if axis is None else int(axis) % rank_p
    if not 0 <= batch_dims <= min(rank_i, axis):
        raise ValueError(f"batch_dims ({batch_dims}) must be less than or equal to rank(indices) "
                         f"({rank_i}) and axis ({axis}).")
    moved = axis - batch_dims          # dims between the batch and ``axis``: moved out of the way
    with name_scope(name) as scope:
        p = params
        if moved:
            perm = list(builtins.range(rank_p))
            perm.insert(batch_dims, perm.pop(axis))
            p = transpose(params, perm)
        key = (*_batch_positions(params, batch_dims, rank_i), indices)
        if not moved:
            return gather_index(p, key, name=scope[:-1] + "/")
        out = gather_index(p, key)
        k = rank_i - batch_dims
        b = batch_dims
        perm = [*builtins.range(b), *builtins.range(b + k, b + k + moved), *builtins.range(b, b + k),
                *builtins.range(b + k + moved, rank_i + rank_p - b - 1)]
        return transpose(out, perm, name=scope[:-1] + "/")


def _indices(indices) -> Tensor:
    t = indices if isinstance(indices, Tensor) else constant(indices, name="indices")
    if not t.dtype.is_integer:
        raise TypeError(f"Value passed to parameter 'indices' has DataType {t.dtype.name} not in "
                        f"list of allowed values: int16, int32, int64")
    return t


def _index_columns(indices: Tensor) -> list[Tensor]:
    k = indices._shape[-1] if indices._shape else None
    if k is None:
        raise ValueError(f"the last dimension of indices must be known, got shape {indices.shape}")
    return [gather_index(indices, (Ellipsis, i), name="index") for i in np.arange(k)]


def gather_nd(params, indices, name=None, batch_dims=0, bad_indices_policy="") -> Tensor:
    """``params[tuple(indices[..., j] for j)]``: slices picked by index tuples on the last axis
    (after ``batch_dims`` leading batch dims shared by ``params`` and ``indices``).

    ``bad_indices_policy="IGNORE"``: an index tuple out of range gives zeros (and no gradient)
    instead of TF's run-time error."""
    params = convert_to_tensor(params)
    if str(bad_indices_policy).upper() == "IGNORE":
        return _gather_nd_ignoring_bad(params, indices, name, batch_dims)
    with name_scope(name, "GatherNd") as scope:
        indices = _indices(indices)
        cols = _index_columns(indices)
        if batch_dims:
            if indices.ndim is None:
                raise ValueError("gather_nd with batch_dims needs indices of known rank")
            cols = [*_batch_positions(params, int(batch_dims), indices.ndim - 1), *cols]
        return apply(_R["GetItem"], (params, *cols), {"key": (ARRAY,) * len(cols)}, name=scope[:-1] + "/")


def scatter_nd(indices, updates, shape, name=None) -> Tensor:
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (repeated indices add up)."""
    updates = convert_to_tensor(updates)
    with name_scope(name, "ScatterNd") as scope:
        indices = _indices(indices)
        ref = zeros(shape, updates.dtype)
        cols = _index_columns(indices)
        return apply(_R["ScatterLike"], (updates, ref, *cols), {"key": (ARRAY,) * len(cols)},
                     name=scope[:-1] + "/")


# --- tiling, padding, slicing, splitting ------------------------------------------------------

def tile(input, multiples, name=None) -> Tensor:  # noqa: A002
    """``input`` repeated ``multiples[i]`` times along dim ``i`` (ints, or run-time values)."""
    if is_runtime_shape(multiples) and static_value(multiples) is None:
        with name_scope(name, "Tile") as scope:
            x = convert_to_tensor(input)
            m = shape_tensor(multiples, "multiples")
            out = apply(_R["TileDynamic"], (x, m), {}, name=scope[:-1] + "/")
        ms = constant_value_as_shape(m)
        if ms is not None and x._shape is not None and len(ms) == len(x._shape):
            out.set_shape([None if a is None or b is None else a * b for a, b in zip(x._shape, ms)])
        return out
    return apply(_R["Tile"], (convert_to_tensor(input),),
                 {"multiples": tuple(_int_list(multiples, "multiples"))}, name=name or "Tile")


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0) -> Tensor:
    """``paddings[i] = [before, after]`` values added around dim ``i``: ``constant_values``
    (CONSTANT), the mirror image without the edge (REFLECT) or with it (SYMMETRIC); the mode's
    case does not matter, as in TF."""
    kind = str(mode).upper()
    if kind not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", '
                         f'or "SYMMETRIC". Received `mode` = {mode}')
    pads = tuple(tuple(int(v) for v in p) for p in np.asarray(_int_list(paddings, "paddings")).reshape(-1, 2))
    if kind == "CONSTANT":
        return apply(_R["Pad"], (convert_to_tensor(tensor),),
                     {"paddings": pads, "constant_values": constant_values}, name=name or "Pad")
    return apply(_R["MirrorPad"], (convert_to_tensor(tensor),), {"paddings": pads, "mode": kind},
                 name=name or "MirrorPad")


def slice(input_, begin, size, name=None) -> Tensor:  # noqa: A001
    """``input_[begin[i] : begin[i] + size[i]]`` per dim (``size[i] = -1``: to the end).

    ``begin`` may be known only at run time (one ``SliceDynamic`` node, TF's ``Slice``, which
    checks it when it runs); ``size`` must be known when the graph is built."""
    s = _int_list(size, "size")
    if isinstance(begin, Tensor) and constant_value(begin) is None:
        with name_scope(name, "Slice") as scope:
            return apply(_R["SliceDynamic"], (convert_to_tensor(input_), begin), {"size": tuple(s)},
                         name=scope[:-1] + "/", tf_type="Slice")
    b = _int_list(begin, "begin")
    key = tuple(Slice(i, None if n == -1 else i + n, None) for i, n in zip(b, s))
    return apply(_R["GetItem"], (convert_to_tensor(input_),), {"key": key}, name=name or "Slice",
                 tf_type="Slice")


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None) -> Tensor:
    """TF's strided slice: one ``begin:end:stride`` per entry, with its bit masks."""
    b, e = _int_list(begin, "begin"), _int_list(end, "end")
    st = [1] * len(b) if strides is None else _int_list(strides, "strides")
    key = []
    for i, (lo, hi, step) in enumerate(zip(b, e, st)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(lo)
        else:
            key.append(builtins.slice(None if begin_mask & bit else lo, None if end_mask & bit else hi, step))
    return gather_index(input_, tuple(key), name=name or "StridedSlice")


def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list[Tensor]:
    """Pieces of ``value`` along ``axis``: ``n`` equal ones (a ``Split`` node), or of the given
    sizes, one of which may be -1 (``SplitV``) -- ONE node whose outputs are the pieces,
    ``split:0``, ``split:1``..., as TF.  Bad arguments are TF's ValueErrors, in its words."""
    value = convert_to_tensor(value)
    equal = isinstance(num_or_size_splits, (int, np.integer))
    if not equal and num is None and isinstance(num_or_size_splits, Tensor) and (
            num_or_size_splits.shape.rank is None or None in num_or_size_splits.shape.as_list()):
        raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    if isinstance(axis, Tensor):
        axis = _int_list(axis, "split's axis")[0]
    node = value.graph.unique_name(name or "split", mark_as_used=False)
    sizes = None if equal else _int_list(num_or_size_splits, "size_splits")
    if equal:
        n = int(num_or_size_splits)
        op_type, attrs = "Split", {"T": value.dtype, "num_split": n}
        inputs, shapes, computed = [f"{node}/split_dim", value.op.name], [(), value._shape], {0: axis}
    else:
        op_type = "SplitV"
        attrs = {"T": value.dtype, "Tlen": _dtypes.int32,
                 "num_split": len(sizes) if num is None else num}
        inputs = [value.op.name, "Const", f"{node}/split_dim"]
        shapes, computed = [value._shape, (len(sizes),), ()], {1: list(sizes), 2: axis}

    def fail(reason: str) -> ValueError:
        return ValueError(shape_inference_error(reason, node, op_type, attrs, inputs, shapes,
                                                computed))
    rank = value.ndim
    if rank is not None and not -rank <= axis < max(rank, 1):
        raise fail(f"Dimension size, given by scalar input {axis} must be in range "
                   f"[{-rank}, {rank})")
    axis = axis % rank if rank else axis
    dim = value._shape[axis] if rank else None
    if equal:
        if dim is not None and dim % n:
            raise fail(f"Dimension size must be evenly divisible by {n} but is {dim}\n\tNumber "
                       f"of ways to split should evenly divide the split dimension")
        return list(apply(REGISTRY["Split"], (value,), {"num_split": n, "axis": axis},
                          name=name or "split"))
    if num is not None and num != len(sizes):
        raise fail("Length of size_splits should be equal to num_outputs")
    for i, size in enumerate(sizes):
        if size < 0 and (size != -1 or i != sizes.index(-1)):
            raise fail(f"Split size at index {i} must be >= 0. Got: {size}")
    if -1 in sizes:
        if dim is None:
            raise ValueError("a -1 split size needs the dimension to be known")
        i = sizes.index(-1)
        sizes[i] = dim - (sum(sizes) + 1)
        if sizes[i] < 0:
            raise fail(f"Split size at index {i} must be >= 0. Got: {sizes[i]}")
    if dim is not None and sum(sizes) != dim:
        raise fail(f"can't split axis of size {dim} into pieces of size "
                   f"[{','.join(map(str, sizes))}]")
    return list(apply(REGISTRY["SplitV"], (value,), {"sizes": tuple(sizes), "axis": axis},
                      name=name or "split"))


_RANGE_DTYPES = [np.dtype(t) for t in (np.int32, np.int64, np.float16, np.float32, np.float64)]


def range(start, limit=None, delta=1, dtype=None, name="range") -> Tensor:  # noqa: A001
    """``[start, start + delta, ...)`` up to ``limit`` (one argument: ``[0, start)``).

    Bounds may be tensors known only at run time; the result dtype is the widest of theirs
    (int32 < int64 < float32 < float64, Python numbers as TF converts them) unless ``dtype``
    is given.  The static length is known when the graph fixes all three bounds."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range") as scope:
        dt = None if dtype is None else _dtypes.as_dtype(dtype)._np
        bounds = [b if isinstance(b, Tensor) else constant(b, dtype=dt, name=n)
                  for b, n in ((start, "start"), (limit, "limit"), (delta, "delta"))]
        if dt is None:
            dt = max((b.np_dtype for b in bounds), key=_RANGE_DTYPES.index)
        bounds = [b if b.np_dtype == dt else cast(b, dt) for b in bounds]
        values = [constant_value(b) for b in bounds]
        n = None
        if all(v is not None for v in values):
            try:
                n = range_length(*(v.item() for v in values))
            except ValueError as e:
                node = scope[:-1]
                raise ValueError(shape_inference_error(
                    str(e), node, "Range", {"Tidx": _dtypes.as_dtype(dt)},
                    [b.op.name for b in bounds], [()] * 3, dict(enumerate(values)))) from None
        out = apply(_R["Range"], tuple(bounds), {}, name=scope[:-1] + "/")
    if n is not None:
        out.set_shape((n,))
    return out


def sequence_mask(lengths, maxlen=None, dtype=_dtypes.bool, name=None) -> Tensor:
    """``mask[..., j] = j < lengths[...]``: ``[..., maxlen]`` (maxlen default: max of lengths,
    computed when the graph runs unless the graph fixes the lengths)."""
    with name_scope(name, "SequenceMask"):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            lowest = np.iinfo(lengths.np_dtype).min if lengths.dtype.is_integer else -np.inf
            maxlen = apply(_R["Max"], (lengths,), {"axis": None, "keepdims": False,
                                                   "initial": lowest}, name="Max")  # TF: empty -> lowest
            maxlen = maximum(constant(np.zeros((), maxlen.np_dtype), name="Const"), maxlen)
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.ndim is not None and maxlen.ndim != 0:
            raise ValueError("maxlen must be scalar for sequence_mask")
        row = apply(_R["Range"], (constant(np.zeros((), maxlen.np_dtype), name="Const"), maxlen,
                                  constant(np.ones((), maxlen.np_dtype), name="Const")), {},
                    name="Range")
        m = constant_value(maxlen)
        if m is not None:
            row.set_shape((builtins.max(int(m), 0),))
        # TF's raw Cast op here: a node even when the dtypes agree (``SequenceMask/Cast``)
        column = apply(_R["Cast"], (expand_dims(lengths, -1),), {"dtype": maxlen.np_dtype},
                       name="Cast")
        mask = less(row, column, name="Less")
        dt = _dtypes.as_dtype(dtype)
        return mask if dt == _dtypes.bool else cast(mask, dt)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dtypes.float32, name=None) -> Tensor:
    """The identity matrix (ones on the diagonal), ``batch_shape + [num_rows, num_columns]``;
    its sizes must be known when the graph is built (a constant ``eye/diag``).

    >>> import staticgraph as tf
    >>> tf.eye(2, 3).name
    'eye/diag:0'
    """
    rows = int(_int_list([num_rows], "num_rows")[0])
    cols = rows if num_columns is None else int(_int_list([num_columns], "num_columns")[0])
    batch = [] if batch_shape is None else _int_list(batch_shape, "batch_shape")
    value = np.broadcast_to(np.eye(rows, cols, dtype=_dtypes.as_dtype(dtype)._np), (*batch, rows, cols))
    with name_scope(name, "eye"):
        return constant(np.array(value), name="diag")


def tensordot(a, b, axes, name=None) -> Tensor:
    """Sum over ``axes`` of ``a`` and ``b`` (an int N: the last N of a with the first N of b).

    The contracted dims must be known; free dims may be unknown (a batch of None)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a._shape is None or b._shape is None:
        raise ValueError("tensordot needs operands of known rank")
    if isinstance(axes, (int, np.integer)):
        axes_a = list(builtins.range(a.ndim - int(axes), a.ndim))
        axes_b = list(builtins.range(int(axes)))
    else:
        axes_a, axes_b = ([int(x) % t.ndim for x in np.atleast_1d(ax)] for ax, t in zip(axes, (a, b)))
    dims_a, dims_b = [a._shape[i] for i in axes_a], [b._shape[i] for i in axes_b]
    if None in dims_a and None in dims_b or any(
            x is not None and y is not None and x != y for x, y in zip(dims_a, dims_b)):
        raise ValueError(f"Dimensions must be equal, but are {dims_a} and {dims_b} for tensordot "
                         f"of shapes {tf_shape(a._shape)} and {tf_shape(b._shape)}")
    k = int(np.prod([x if x is not None else y for x, y in zip(dims_a, dims_b)]))
    free_a = [i for i in builtins.range(a.ndim) if i not in axes_a]
    free_b = [i for i in builtins.range(b.ndim) if i not in axes_b]
    with name_scope(name, "Tensordot") as scope:
        a2 = reshape(transpose(a, free_a + axes_a), [-1, k])
        b2 = reshape(transpose(b, axes_b + free_b), [k, -1])
        out_shape = [t._shape[i] if t._shape[i] is not None else shape(t)[i]
                     for t, free in ((a, free_a), (b, free_b)) for i in free]
        product = matmul(a2, b2)
        if out_shape == list(product._shape or ()):   # TF skips a reshape to the same shape:
            return product                              # its result is ``Tensordot/MatMul:0``
        return reshape(product, out_shape, name=scope[:-1] + "/")


def squared_difference(x, y, name=None) -> Tensor:
    with name_scope(name, "SquaredDifference") as scope:   # TF's one op: our parts inside it
        return square(subtract(x, y), name=scope)


def logical_xor(x, y, name="LogicalXor") -> Tensor:
    # TF builds its parts at the top level too (``LogicalOr``, ``LogicalAnd``, ``LogicalNot``)
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None) -> Tensor:
    """The elements (or slices) of ``tensor`` where the K-d ``mask`` is true, the masked dims
    flattened into one of unknown size: ``tensor[mask]`` (TF's ``boolean_mask``)."""
    with name_scope(name):
        tensor, mask = convert_to_tensor(tensor), convert_to_tensor(mask)
        axis = 0 if axis is None else int(axis)
        k, shape = mask.ndim, tensor.shape.as_list()
        if k is None or k == 0:
            raise ValueError("mask cannot be scalar.")
        if None in shape[:axis] + shape[axis + k:]:
            raise ValueError(f"boolean_mask here needs every dim of tensor {tensor.shape} outside "
                             f"the masked ones known")
        if not tensor.shape[axis:axis + k].is_compatible_with(mask.shape):
            raise ValueError(f"Shapes {tensor.shape[axis:axis + k]} and {mask.shape} are incompatible")
        flat = reshape(tensor, shape[:axis] + [-1] + shape[axis + k:])
        indices = squeeze(where(reshape(mask, [-1])), axis=[1])
        return gather(flat, indices, axis=axis)

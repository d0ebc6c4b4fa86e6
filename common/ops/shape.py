"""Ops that move data without arithmetic: reshape, transpose, concat, slicing...

The ``*Like`` ops take a *reference* whose shape they adopt at run time: an
ndarray, a symbolic tensor, or the eager engine's :class:`ShapeRef`.  Gradient
rules use them because a static graph may not know a shape until it runs
(a ``None`` batch dim), and because they close under differentiation:
``SumLike`` and ``BroadcastLike`` are each other's gradient.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError, invalid
from ..examples import Example as E, ints
from ..indexing import ARRAY, Slice, decode_index, index_shape
from ..registry import Algebra, Spec, defop
from ..shapes import broadcast_shapes, fmt_shape, is_known, normalize_axes, sum_to_shape, tf_shape

# --- the *Like family: shapes taken from a reference at run time -------------


def _like(x: Spec, ref: Spec) -> Spec:
    return Spec(ref.shape, x.dtype)


def _broadcast_like_infer(x: Spec, ref: Spec) -> Spec:
    return Spec(broadcast_shapes(x.shape, ref.shape), x.dtype)


def _sum_like(x, ref):
    """Sum a broadcast ``x`` down to ``ref``'s shape."""
    return sum_to_shape(x, ref.shape)


def _broadcast_like(x, ref):
    """``x`` broadcast to ``ref``'s shape, as a writeable array of its own.

    One element (a scalar loss's gradient, the usual case) is written into a new
    C-ordered array: what copying its broadcast view gives, in a seventh of the time."""
    if type(x) is np.ndarray and x.size == 1:
        out = np.empty(ref.shape, x.dtype)
        np.copyto(out, x)
        return out
    return np.array(np.broadcast_to(x, ref.shape))


def _reshape_like(x, ref):
    return np.reshape(x, ref.shape)


defop("SumLike", _sum_like, _like, inputs=("x", "ref"), fname="sum_like",
      aliases=(0,), shape_only=(1,), algebra=Algebra(same_shape_noop=True),
      torch_name="SumToSizeBackward0",
      examples=(E(((2, 3), (3,))), E(((2, 3), (2, 1))), E(((2, 3), (2, 3)))),
      grads=(lambda F, g, x_shape: F.broadcast_like(g, x_shape), None))
defop("BroadcastLike", _broadcast_like, _broadcast_like_infer, inputs=("x", "ref"),
      shape_only=(1,), algebra=Algebra(replicate=True, same_shape_noop=True),
      fname="broadcast_like", torch_name="ExpandBackward0",
      examples=(E(((3,), (2, 3))), E(((2, 1), (2, 3)))),
      grads=(lambda F, g, x_shape: F.sum_like(g, x_shape), None),
      scalar=lambda x, ref: x)
defop("ReshapeLike", _reshape_like, _like, inputs=("x", "ref"), fname="reshape_like",
      aliases=(0,), shape_only=(1,), algebra=Algebra(reshape=True, replicate=True, same_shape_noop=True),
      torch_name="ViewBackward0", examples=(E(((2, 3), (3, 2))),),
      grads=(lambda F, g, x_shape: F.reshape_like(g, x_shape), None))

# --- reshape family ---------------------------------------------------------------


def reshape_size_words(size: int, known: int, inferred: bool) -> str:
    """TF's sentence for a reshape whose sizes disagree (run time, and build time with a -1):
    ``size`` values in, ``known`` the product of the requested dims other than -1, ``inferred``
    whether one dim is -1.  One place for the words the static reshape (its shape rule, the
    compiler's translation of numpy's error) and ``ReshapeDynamic`` all report."""
    return (f"Input to reshape is a tensor with {size} values, but the requested shape "
            + (f"requires a multiple of {known}" if inferred else f"has {known}"))


def tf_missing_dim_of_empty(in_shape, dims) -> tuple | None:
    """TF's ``Reshape`` kernel's answer for a ``-1`` beside a requested 0 (``[0, 6]`` to
    ``[0, -1, 3]`` is ``[0, 2, 3]``): zero dims are left out of both products, so the missing
    dim is what the input's non-zero dims hold per the request's non-zero dims. None when the
    rule does not apply (no -1, or no requested 0: the ordinary arithmetic then holds)."""
    if -1 not in dims or 0 not in dims:
        return None
    have = int(np.prod([d for d in in_shape if d > 0]))
    per = int(np.prod([d for d in dims if d > 0]))
    return tuple(have // per if d == -1 else d for d in dims)


def _reshape_infer(x: Spec, shape) -> Spec:
    shape = tuple(shape)
    if shape.count(-1) > 1:
        raise ShapeError(f"reshape to {list(shape)}: only one dim may be -1")
    if x.shape is not None and is_known(x.shape):
        size = int(np.prod(x.shape))
        known = int(np.prod([d for d in shape if d != -1]))
        if -1 in shape:
            if known == 0 or size % known:
                raise ShapeError(f"cannot reshape {fmt_shape(x.shape)} ({size} elements) "
                                 f"into {list(shape)}",
                                 tf="Reshape cannot infer the missing input size for an empty "
                                    "tensor unless all specified input sizes are non-zero"
                                 if known == 0 else f"Dimension size must be evenly divisible "
                                                    f"by {known} but is {size}")   # TF's shape fn
            shape = tuple(size // known if d == -1 else d for d in shape)
        elif known != size:
            raise ShapeError(f"cannot reshape {fmt_shape(x.shape)} ({size} elements) "
                             f"into {list(shape)} ({known} elements)",
                             tf=f"Cannot reshape a tensor with {size} elements to shape "
                                f"[{','.join(map(str, shape))}] ({known} elements)")
        return Spec(shape, x.dtype)
    return Spec(tuple(None if d == -1 else d for d in shape), x.dtype)


def _reshape(x, shape):
    return np.reshape(x, shape)


defop("Reshape", _reshape, _reshape_infer, inputs=("x",), fname="reshape",
      aliases=(0,), algebra=Algebra(reshape=True, replicate=True, same_shape_noop=True),
      torch_name="ViewBackward0",
      examples=(E(((2, 3),), {"shape": (3, 2)}), E(((2, 3),), {"shape": (-1,)}),
                E(((6,),), {"shape": (2, -1)})),
      grads=(lambda F, g, x_shape: F.reshape_like(g, x_shape),))


def _expand_dims_infer(x: Spec, axis) -> Spec:
    if x.shape is None:
        return Spec(None, x.dtype)
    axes = normalize_axes(axis, len(x.shape) + (1 if isinstance(axis, int) else len(axis)))
    out, dims = [], iter(x.shape)
    for i in range(len(x.shape) + len(axes)):
        out.append(1 if i in axes else next(dims))
    return Spec(tuple(out), x.dtype)


def _squeeze_infer(x: Spec, axis=None) -> Spec:
    if x.shape is None:
        return Spec(None, x.dtype)
    if axis is None:
        if None in x.shape:
            return Spec(None, x.dtype)
        return Spec(tuple(d for d in x.shape if d != 1), x.dtype)
    axes = normalize_axes(axis, len(x.shape))
    for a in axes:
        if x.shape[a] not in (1, None):
            raise ShapeError(f"cannot squeeze axis {a} of size {x.shape[a]} (shape {fmt_shape(x.shape)})",
                             tf=f"Can not squeeze dim[{a}], expected a dimension of 1, got {x.shape[a]}")
    return Spec(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)


def _expand_dims(x, axis):
    """``np.expand_dims``; for one int axis of an array its own last step (the reshape to
    the shape with a 1 inserted) without its Python-level axis normalisation: the same view."""
    if type(axis) is int and type(x) is np.ndarray:
        n = x.ndim + 1
        if -n <= axis < n:
            axis %= n
            shape = x.shape
            return x.reshape(shape[:axis] + (1,) + shape[axis:])
    return np.expand_dims(x, axis)


def _squeeze(x, axis=None):
    return np.squeeze(x, axis)


defop("ExpandDims", _expand_dims, _expand_dims_infer, inputs=("x",), fname="expand_dims",
      aliases=(0,), algebra=Algebra(reshape=True, replicate=True, same_shape_noop=True),
      torch_name="UnsqueezeBackward0",
      examples=(E(((3,),), {"axis": 0}), E(((2, 3),), {"axis": -1}), E(((2, 3),), {"axis": (0, 2)})),
      grads=(lambda F, g, x_shape: F.reshape_like(g, x_shape),))
defop("Squeeze", _squeeze, _squeeze_infer, inputs=("x",), fname="squeeze",
      aliases=(0,), algebra=Algebra(reshape=True, same_shape_noop=True),
      torch_name="SqueezeBackward0",
      torch_names={"dim": "SqueezeBackward1"},
      examples=(E(((1, 3),), {"axis": 0}), E(((2, 1, 3, 1),),), E(((2, 1),), {"axis": -1})),
      grads=(lambda F, g, x_shape: F.reshape_like(g, x_shape),))


def _broadcast_to_infer(x: Spec, shape) -> Spec:
    shape = tuple(shape)
    out = broadcast_shapes(x.shape, shape)
    if x.shape is not None and len(x.shape) > len(shape) or out is not None and any(
            s is not None and o is not None and o != s for s, o in zip(shape, out)):
        raise ShapeError(f"cannot broadcast {fmt_shape(x.shape)} to {list(shape)}")
    return Spec(shape, x.dtype)


def _broadcast_to(x, shape):
    return np.broadcast_to(x, shape)


defop("BroadcastTo", _broadcast_to, _broadcast_to_infer, inputs=("x",), fname="broadcast_to",
      aliases=(0,), algebra=Algebra(replicate=True, same_shape_noop=True),
      torch_name="ExpandBackward0",
      examples=(E(((3,),), {"shape": (2, 3)}), E(((2, 1),), {"shape": (2, 4)})),
      grads=(lambda F, g, x_shape: F.sum_like(g, x_shape),))

# --- transpose ------------------------------------------------------------------


def _transpose_infer(x: Spec, perm=None) -> Spec:
    if x.shape is None:
        return Spec(None, x.dtype)
    if perm is None:
        return Spec(tuple(reversed(x.shape)), x.dtype)
    if sorted(perm) != list(range(len(x.shape))):
        raise ShapeError(f"perm {list(perm)} is not a permutation of the {len(x.shape)} dims "
                         f"of {fmt_shape(x.shape)}")
    return Spec(tuple(x.shape[p] for p in perm), x.dtype)


def _inverse(perm):
    return None if perm is None else tuple(int(i) for i in np.argsort(perm))


def _transpose(x, perm=None):
    """``np.transpose`` without its Python-level dispatch (it calls this method): same view."""
    return x.transpose(perm) if isinstance(x, np.ndarray) else np.transpose(x, perm)


def _transpose_expr(x: str, perm=None) -> str:
    """The method ``np.transpose`` calls (numpy scalars have it too); all axes reversed is
    ``.T``, the same view without a call."""
    return f"{x}.T" if perm is None else f"{x}.transpose({tuple(int(p) for p in perm)!r})"


defop("Transpose", _transpose, _transpose_infer, inputs=("x",), fname="transpose",
      aliases=(0,), algebra=Algebra(permutes=True), expr=_transpose_expr,
      torch_name="PermuteBackward0",
      torch_names={"t": "TBackward0", "transpose": "TransposeBackward0"},
      examples=(E(((2, 3),),), E(((2, 3, 4),), {"perm": (1, 2, 0)})),
      grads=(lambda F, g, perm: F.transpose(g, perm=_inverse(perm)),))

# --- concat, stack, and their gradients' slicing -------------------------------------


def _concat_infer(*xs: Spec, axis=0) -> Spec:
    if not xs:
        raise ShapeError("concat needs at least one tensor")
    ranks = {len(x.shape) for x in xs if x.shape is not None}
    if len(ranks) > 1:
        raise ShapeError(f"concat of tensors of different ranks: {[fmt_shape(x.shape) for x in xs]}")
    dtype = np.result_type(*[x.dtype for x in xs])
    if not ranks:
        return Spec(None, dtype)
    rank = ranks.pop()
    ax = normalize_axes(axis, rank)[0]
    out = []
    for i in range(rank):
        dims = [x.shape[i] for x in xs if x.shape is not None]
        if i == ax:
            out.append(None if None in dims else sum(dims))
            continue
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            first = [x.shape for x in xs if x.shape is not None and x.shape[i] is not None]
            rest = [tuple(d for j, d in enumerate(sh) if j != ax) for sh in first[:2]]
            raise ShapeError(tf=f"Dimension {i - (i > ax)} in both shapes must be equal, but are "
                                f"{first[0][i]} and {first[1][i]}. Shapes are "
                                f"[{','.join(map(str, rest[0]))}] and [{','.join(map(str, rest[1]))}].",
                             message=f"concat along axis {ax}: dims {sorted(known)} disagree at axis {i} "
                             f"in {[fmt_shape(x.shape) for x in xs]}")
        out.append(known.pop() if known else None)
    return Spec(tuple(out), dtype)


def _concat(*xs, axis=0):
    return np.concatenate(xs, axis=axis)


def _split_part(g, *refs, axis=0, part=0):
    """Piece number ``part`` of ``g`` cut along ``axis`` into pieces shaped like ``refs``."""
    ax = axis % g.ndim
    start = sum(r.shape[ax] for r in refs[:part])
    return g[(slice(None),) * ax + (slice(start, start + refs[part].shape[ax]),)]


def _split_part_infer(g: Spec, *refs: Spec, axis=0, part=0) -> Spec:
    return Spec(refs[part].shape, g.dtype)


def _split_part_grad(F, g, xs_shape, index, axis, part):
    """The piece goes back to its place; the other pieces get zeros."""
    if index != 0:
        return None
    return F.concat(*[g if i == part else F.zeros_like(r) for i, r in enumerate(xs_shape[1:])],
                    axis=axis)


defop("ConcatV2", _concat, _concat_infer, inputs=("*xs",), fname="concat", torch_name="CatBackward0",
      examples=(E(((2, 3), (1, 3)), {"axis": 0}), E(((2, 3), (2, 2), (2, 1)), {"axis": -1})),
      grads=(lambda F, g, xs_shape, index, axis: F.split_part(g, *xs_shape, axis=axis, part=index),))
defop("SplitPart", _split_part, _split_part_infer, inputs=("*xs",), fname="split_part",
      aliases=(0,), shape_only="rest",
      torch_name="SplitBackward0",
      examples=(E(((5, 2), (2, 2), (3, 2)), {"axis": 0, "part": 1}),
                E(((2, 5), (2, 4), (2, 1)), {"axis": -1, "part": 0})),
      grads=(_split_part_grad,))


def _stack_infer(*xs: Spec, axis=0) -> Spec:
    merged = _concat_infer(*[_expand_dims_infer(x, 0) for x in xs], axis=0)
    if merged.shape is None:
        return Spec(None, merged.dtype)
    item = merged.shape[1:]
    ax = normalize_axes(axis, len(item) + 1)[0]
    return Spec(item[:ax] + (len(xs),) + item[ax:], merged.dtype)


def _stack(*xs, axis=0):
    return np.stack(xs, axis=axis)


def _stack_grad(F, g, index, axis):
    """Input ``index`` is the slice at position ``index`` along the stacked axis."""
    ax = normalize_axes(axis, F.rank(g))[0]
    return F.getitem(g, key=(FULL,) * ax + (index,))


defop("Pack", _stack, _stack_infer, inputs=("*xs",), fname="stack", torch_name="StackBackward0",
      examples=(E(((3,), (3,)), {"axis": 0}), E(((2, 3), (2, 3), (2, 3)), {"axis": -1})),
      grads=(_stack_grad,))

# --- several results from one op: split, unstack ---------------------------------------
# One node with one output per piece (TF's ``split:0``, ``split:1``); the pieces are views.


def _pieces_infer(x: Spec, sizes: list, axis: int) -> tuple[Spec, ...]:
    """Specs of ``x`` cut along ``axis`` into pieces of ``sizes`` (None: unknown size)."""
    if x.shape is None:
        return tuple(Spec(None, x.dtype) for _ in sizes)
    ax = normalize_axes(axis, len(x.shape))[0]
    return tuple(Spec(x.shape[:ax] + (n,) + x.shape[ax + 1:], x.dtype) for n in sizes)


def _split(x, num_split=1, axis=0):
    """Views of ``x``'s equal pieces, sliced directly: ``np.split``'s Python (swapaxes per
    piece) costs ~3x as much (an LSTM cell's 4 gates of [32, 512]: ~26 us against ~8 us)."""
    if not (-x.ndim <= axis < x.ndim and num_split > 0) or x.shape[axis] % num_split:
        return tuple(np.split(x, num_split, axis=axis))     # numpy's own error
    n, lead = x.shape[axis] // num_split, (slice(None),) * (axis % x.ndim)
    return tuple(x[lead + (slice(i * n, (i + 1) * n),)] for i in range(num_split))


def _split_infer(x: Spec, num_split=1, axis=0) -> tuple[Spec, ...]:
    dim = None if x.shape is None else x.shape[normalize_axes(axis, len(x.shape))[0]]
    if dim is not None and dim % num_split:
        raise ShapeError(f"Dimension size must be evenly divisible by {num_split} but is {dim}")
    return _pieces_infer(x, [None if dim is None else dim // num_split] * num_split, axis)


def _split_v(x, sizes=(), axis=0):
    return tuple(np.split(x, np.cumsum(sizes[:-1]), axis=axis))


def _split_v_infer(x: Spec, sizes=(), axis=0) -> tuple[Spec, ...]:
    dim = None if x.shape is None else x.shape[normalize_axes(axis, len(x.shape))[0]]
    if dim is not None and sum(sizes) != dim:
        raise ShapeError(f"can't split axis of size {dim} into pieces of size "
                         f"[{','.join(map(str, sizes))}]")
    return _pieces_infer(x, list(sizes), axis)


def _unstack(x, num=1, axis=0):
    ax = axis % x.ndim
    return tuple(x[(slice(None),) * ax + (i,)] for i in range(num))


def _unstack_infer(x: Spec, num=1, axis=0) -> tuple[Spec, ...]:
    if x.shape is None:
        return tuple(Spec(None, x.dtype) for _ in range(num))
    ax = normalize_axes(axis, len(x.shape))[0]
    if x.shape[ax] is not None and x.shape[ax] != num:
        raise ShapeError(f"unstack of {num} pieces along axis {ax} of shape {fmt_shape(x.shape)}",
                         tf=f"Dimension must be {num} but is {x.shape[ax]}")
    return tuple(Spec(x.shape[:ax] + x.shape[ax + 1:], x.dtype) for _ in range(num))


defop("Split", _split, _split_infer, inputs=("x",), fname="split", aliases=(0,),
      outputs=lambda attrs: attrs["num_split"], torch_name="SplitBackward0",
      examples=(E(((4, 3),), {"num_split": 2}), E(((2, 6),), {"num_split": 3, "axis": -1})),
      grads=(lambda F, g, axis: F.concat(*g, axis=axis),))
defop("SplitV", _split_v, _split_v_infer, inputs=("x",), fname="split_v", aliases=(0,),
      outputs=lambda attrs: len(attrs["sizes"]), torch_name="SplitWithSizesBackward0",
      torch_names={"split": "SplitBackward0"},
      examples=(E(((4, 3),), {"sizes": (1, 3)}), E(((2, 6),), {"sizes": (2, 0, 4), "axis": 1})),
      grads=(lambda F, g, axis: F.concat(*g, axis=axis),))
defop("Unpack", _unstack, _unstack_infer, inputs=("x",), fname="unstack", aliases=(0,),
      outputs=lambda attrs: attrs["num"], torch_name="UnbindBackward0",
      examples=(E(((3, 2),), {"num": 3}), E(((2, 4),), {"num": 4, "axis": -1})),
      grads=(lambda F, g, axis: F.stack(*g, axis=axis),))

# --- indexing: x[key]; integer arrays in the key are extra inputs ---------------------

FULL = Slice(None, None, None)


def _getitem(x, *arrays, key):
    return x[decode_index(key, arrays)]


def _getitem_infer(x: Spec, *arrays: Spec, key) -> Spec:
    for a in arrays:
        if not np.issubdtype(a.dtype, np.integer):
            raise ShapeError(f"index arrays must hold integers, not {a.dtype}")
    return Spec(index_shape(x.shape, key, [a.shape for a in arrays]), x.dtype)


def _getitem_grad(F, g, xs, xs_shape, index, key):
    """Scatter-add: each picked element sends its gradient home (repeats accumulate)."""
    return F.scatter_like(g, xs_shape[0], *xs[1:], key=key) if index == 0 else None


def _scatter_like(g, ref, *arrays, key):
    """Zeros shaped like ``ref``, plus ``g`` added at ``key``."""
    out = np.zeros(ref.shape, dtype=g.dtype)
    if arrays:
        np.add.at(out, decode_index(key, arrays), g)
    else:                   # basic indexing names each element once: a plain store is enough
        out[decode_index(key, arrays)] = g
    return out


def _scatter_like_infer(g: Spec, ref: Spec, *arrays: Spec, key) -> Spec:
    return Spec(ref.shape, g.dtype)


def _scatter_like_grad(F, g, xs, index, key):
    return F.getitem(g, *xs[2:], key=key) if index == 0 else None


def _getitem_expr(x: str, *arrays: str, key) -> str | None:
    """``x[...]`` with the static parts written out, for at most one index array (several
    are broadcast together: decode_index's job).  A 0-d index array then gathers a copy
    where decode_index's ``int`` picks a view: the same values."""
    if len(arrays) > 1:
        return None
    parts = []
    for k in key:
        if k is ARRAY:
            parts.append(arrays[0])
        elif isinstance(k, Slice):
            bounds = k if k.step is not None else k[:2]
            parts.append(":".join("" if v is None else str(int(v)) for v in bounds))
        else:
            parts.append("..." if k is Ellipsis else str(k if k is None else int(k)))
    return f"{x}[{', '.join(parts) or '()'}]"


defop("GetItem", _getitem, _getitem_infer, inputs=("*xs",), fname="getitem",
      aliases=(0,), expr=_getitem_expr,
      torch_name="IndexBackward0",
      torch_names={"select": "SelectBackward0", "slice": "SliceBackward0",
                   "unsqueeze": "UnsqueezeBackward0", "alias": "AliasBackward0",
                   "embedding": "EmbeddingBackward0", "flip": "FlipBackward0",
                   "index_select": "IndexSelectBackward0",
                   "masked_select": "MaskedSelectBackward0", "diagonal": "DiagonalBackward0",
                   "diag": "DiagonalBackward0_copy"},
      examples=(E(((4, 3),), {"key": (1,)}), E(((4, 3),), {"key": (Slice(1, None, 2), -1)}),
                E(((4, 3), ints((5,), 4)), {"key": (ARRAY,)}),
                E(((4, 3), ints((2,), 3)), {"key": (FULL, ARRAY)}),
                E(((4, 3),), {"key": (None, Ellipsis, 0)})),
      grads=(_getitem_grad,), tf_type="StridedSlice")
defop("ScatterLike", _scatter_like, _scatter_like_infer, inputs=("*xs",), fname="scatter_like",
      shape_only=(1,),
      torch_name="IndexPutBackward0",
      examples=(E(((5, 3), (4, 3), ints((5,), 4)), {"key": (ARRAY,)}),
                E(((4,), (4, 3)), {"key": (FULL, 1)})),
      grads=(_scatter_like_grad,))

# --- run-time shape facts: Shape, Size, Rank (the input is read for its shape only) -----------


def _shape_of(x, out_type=np.dtype(np.int32)):
    """``x``'s shape as a vector (TF's ``tf.shape``)."""
    return np.array(x.shape, dtype=out_type)


def _shape_of_infer(x: Spec, out_type=np.dtype(np.int32)) -> Spec:
    return Spec((None if x.shape is None else len(x.shape),), np.dtype(out_type))


def _size_of(x, out_type=np.dtype(np.int32)):
    return np.array(int(np.prod(x.shape)), dtype=out_type)


def _rank_of(x):
    return np.array(len(x.shape), dtype=np.int32)


defop("Shape", _shape_of, _shape_of_infer, inputs=("x",), fname="shape_of", shape_only=(0,),
      dtype_attr="out_type",
      examples=(E(((2, 3),)), E(((4,),), {"out_type": np.dtype(np.int64)})))
defop("Size", _size_of, lambda x, out_type=np.dtype(np.int32): Spec((), np.dtype(out_type)),
      inputs=("x",), fname="size_of", shape_only=(0,), dtype_attr="out_type",
      examples=(E(((2, 3),)),))
defop("Rank", _rank_of, lambda x: Spec((), np.dtype(np.int32)), inputs=("x",), fname="rank_of",
      shape_only=(0,),
      examples=(E(((2, 3),)),))

# --- range: an arithmetic sequence; its bounds are scalar inputs (TF's Range) -----------------


def range_length(start, limit, delta) -> int:
    """How many values ``range`` yields, with TF's errors for an empty-by-mistake range."""
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}"
                         if delta > 0 else f"Requires start >= limit when delta < 0: {start}/{limit}")
    return len(range(0, int(np.ceil((limit - start) / delta))))


def _range(start, limit, delta):
    """``start + i * delta`` in the bounds' dtype (as TF: float32 steps stay float32)."""
    n = range_length(start.item(), limit.item(), delta.item())
    return np.asarray(start) + np.arange(n, dtype=start.dtype) * np.asarray(delta)


def _range_infer(start: Spec, limit: Spec, delta: Spec) -> Spec:
    for name, s in (("start", start), ("limit", limit), ("delta", delta)):
        if s.shape not in ((), None):
            raise ShapeError(f"Shape must be rank 0 but is rank {len(s.shape)} for '{name}'")
    if not start.dtype == limit.dtype == delta.dtype:
        raise ShapeError(f"range bounds must share one dtype, got {start.dtype}, {limit.dtype}, "
                         f"{delta.dtype}")
    return Spec((None,), start.dtype)


defop("Range", _range, _range_infer, inputs=("start", "limit", "delta"), fname="range_values",
      sized_by_values=True,
      examples=(E((np.array(0, np.int32), np.array(5, np.int32), np.array(1, np.int32))),
                E((np.array(1.0, np.float32), np.array(2.0, np.float32), np.array(0.3, np.float32))),
                E((np.array(5), np.array(1), np.array(-2)))))

# --- tile and its gradient: a closed pair, like SumLike / BroadcastLike -----------------------


def _tile(x, multiples):
    return np.tile(x, multiples)


def _tile_infer(x: Spec, multiples) -> Spec:
    if x.shape is None:
        return Spec((None,) * len(multiples), x.dtype)
    if len(multiples) != len(x.shape):
        raise ShapeError(f"Expected multiples argument to be a vector of length {len(x.shape)} "
                         f"but got length {len(multiples)}")
    return Spec(tuple(None if d is None else d * m for d, m in zip(x.shape, multiples)), x.dtype)


def _tile_sum(g, multiples):
    """The gradient of tile: the ``multiples`` copies of each block summed (g is tiled)."""
    split = []
    for n, m in zip(g.shape, multiples):
        split += [m, n // m]
    return g.reshape(split).sum(axis=tuple(range(0, 2 * len(multiples), 2)), dtype=g.dtype)


def _tile_sum_infer(g: Spec, multiples) -> Spec:
    if g.shape is None:
        return Spec((None,) * len(multiples), g.dtype)
    return Spec(tuple(None if d is None else d // m for d, m in zip(g.shape, multiples)), g.dtype)


defop("Tile", _tile, _tile_infer, inputs=("x",), fname="tile_multiples", torch_name="RepeatBackward0",
      examples=(E(((2, 3),), {"multiples": (2, 1)}), E(((3,),), {"multiples": (3,)}),
                E(((2, 1, 2),), {"multiples": (1, 3, 2)})),
      grads=(lambda F, g, multiples: F.tile_sum(g, multiples=multiples),))
defop("TileSum", _tile_sum, _tile_sum_infer, inputs=("g",), fname="tile_sum",
      examples=(E(((4, 3),), {"multiples": (2, 1)}), E(((2, 6, 4),), {"multiples": (1, 3, 2)})),
      grads=(lambda F, g, multiples: F.tile_multiples(g, multiples=multiples),))

# --- constant padding; its gradient is the slice that drops the padding -----------------------


def _pad(x, paddings, constant_values=0):
    return np.pad(x, paddings, mode="constant", constant_values=constant_values)


def _pad_infer(x: Spec, paddings, constant_values=0) -> Spec:
    if x.shape is None:
        return Spec((None,) * len(paddings), x.dtype)
    if len(paddings) != len(x.shape):
        raise ShapeError(f"The first dimension of paddings must be the rank of inputs"
                         f"[{len(paddings)},2], {fmt_shape(x.shape)}")
    if any(b < 0 or a < 0 for b, a in paddings):
        raise ShapeError(f"Paddings must be non-negative: {[list(p) for p in paddings]}",
                         tf="Paddings must be non-negative")
    return Spec(tuple(None if d is None else d + b + a for d, (b, a) in zip(x.shape, paddings)), x.dtype)


def _pad_grad(F, g, paddings):
    return F.getitem(g, key=tuple(Slice(b, -a if a else None, None) for b, a in paddings))


defop("Pad", _pad, _pad_infer, inputs=("x",), fname="pad_constant", torch_name="ConstantPadNdBackward0",
      examples=(E(((2, 3),), {"paddings": ((1, 0), (2, 1))}),
                E(((3,),), {"paddings": ((0, 2),), "constant_values": 1.5})),
      grads=(_pad_grad,))

# --- padding from the tensor's own values: mirror (TF's REFLECT / SYMMETRIC), edge and wrap ----
# Each padded position copies one source position; per axis that is an index map (np.pad of
# arange with the same mode).  The gradient folds each copy back onto its source (a scatter-add
# along each axis): MirrorPadGrad; folding's adjoint is padding again, so the pair is closed.

PAD_MODES = {"REFLECT": "reflect", "SYMMETRIC": "symmetric", "EDGE": "edge", "WRAP": "wrap"}
"""The non-constant modes: TF's REFLECT (edge not repeated) and SYMMETRIC (edge repeated),
PyTorch's ``replicate`` (EDGE) and ``circular`` (WRAP)."""


def check_mode_paddings(shape, paddings, mode) -> None:
    """TF's run-time rules for how far a mode may reach (TF checks them when the op runs)."""
    for d, (b, a) in zip(shape, paddings):
        if d is None:
            continue
        if mode == "REFLECT" and (b >= d or a >= d):
            raise ValueError(f"paddings must be less than the dimension size: {b}, {a} not less than {d}")
        if mode in ("SYMMETRIC", "WRAP") and (b > d or a > d):
            raise ValueError(f"paddings must be no greater than the dimension size: {b}, {a} greater "
                             f"than {d}")
        if mode == "EDGE" and d == 0 and (a or b):
            raise ValueError(f"paddings of an empty dimension need a value to copy: {b}, {a}")


def _mirror_pad(x, paddings, mode="REFLECT"):
    check_mode_paddings(x.shape, paddings, mode)
    return np.pad(x, paddings, mode=PAD_MODES[mode])


def _source_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each padded position along one axis, the source position it copies."""
    return np.pad(np.arange(n), (before, after), mode=PAD_MODES[mode])


def _mirror_pad_grad(g, paddings, mode="REFLECT"):
    """Each padded copy's gradient added onto its source position, axis by axis."""
    out = g
    for axis, (b, a) in enumerate(paddings):
        if not (b or a):
            continue
        n = out.shape[axis] - b - a
        folded = np.zeros(out.shape[:axis] + (n,) + out.shape[axis + 1:], dtype=g.dtype)
        np.add.at(np.moveaxis(folded, axis, 0), _source_index(n, b, a, mode), np.moveaxis(out, axis, 0))
        out = folded
    return out if out is not g else g.copy()


def _mirror_pad_infer(x: Spec, paddings, mode="REFLECT") -> Spec:
    if mode not in PAD_MODES:
        raise ShapeError(f'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
                         f'"SYMMETRIC". Received `mode` = {mode}')
    return _pad_infer(x, paddings)  # how far a mode may reach is checked when it runs, as TF


def _mirror_pad_grad_infer(g: Spec, paddings, mode="REFLECT") -> Spec:
    if g.shape is None:
        return Spec((None,) * len(paddings), g.dtype)
    return Spec(tuple(None if d is None else d - b - a for d, (b, a) in zip(g.shape, paddings)), g.dtype)


_MIRROR = (E(((3, 4),), {"paddings": ((1, 2), (2, 0)), "mode": "REFLECT"}),
           E(((2, 3),), {"paddings": ((2, 1), (3, 3)), "mode": "SYMMETRIC"}),
           E(((2, 3),), {"paddings": ((0, 0), (4, 1)), "mode": "EDGE"}),
           E(((2, 3),), {"paddings": ((1, 2), (3, 1)), "mode": "WRAP"}))
defop("MirrorPad", _mirror_pad, _mirror_pad_infer, inputs=("x",), fname="mirror_pad",
      torch_name="ReflectionPad2DBackward0", examples=_MIRROR,
      grads=(lambda F, g, paddings, mode: F.mirror_pad_grad(g, paddings=paddings, mode=mode),))
defop("MirrorPadGrad", _mirror_pad_grad, _mirror_pad_grad_infer, inputs=("g",), fname="mirror_pad_grad",
      examples=tuple(E((tuple(n + b + a for n, (b, a) in zip(e.args[0], e.attrs["paddings"])),), e.attrs)
                     for e in _MIRROR),
      grads=(lambda F, g, paddings, mode: F.mirror_pad(g, paddings=paddings, mode=mode),))

# --- a buffer written row by row (TensorArray's storage in loops), functionally ------------------


def _set_item(buf, position, item, size=None):
    """``buf`` with row ``position`` replaced by ``item``; a fresh array (``buf`` is unchanged).

    An empty ``buf`` (shape ``(0,)``: nothing written yet) becomes zeros of ``(size,) +
    item.shape`` first; with ``size=None`` the buffer grows to fit ``position``.
    """
    i = int(position)
    if buf.ndim != item.ndim + 1 or buf.shape[1:] != item.shape or (
            size is not None and len(buf) != size):
        if buf.size:
            raise ShapeError(f"Could not write to TensorArray index {i} because the value shape is "
                             f"{fmt_shape(item.shape)} which is incompatible with the TensorArray's "
                             f"inferred element shape: {fmt_shape(buf.shape[1:])}")
        buf = np.zeros((size or 0,) + item.shape, dtype=item.dtype)
    if i < 0:   # TF's list counts its elements: the size, or a growing buffer's rows
        raise ShapeError(f"Tried to write to index {i} of a TensorArray", tf=f"Trying to modify "
                         f"element {i} in a list with {len(buf) if size is None else size} elements.")
    if i >= len(buf):
        if size is not None:
            raise ShapeError(f"Tried to write to index {i} but array is not resizeable and size "
                             f"is: {size}", tf=f"Trying to modify element {i} in a list with {size} "
                                               f"elements.")
        buf = np.concatenate([buf, np.zeros((i + 1 - len(buf),) + item.shape, item.dtype)])
    out = buf.copy()
    out[i] = item
    return out


def _set_item_into(buf, position, item, size=None):
    """``_set_item`` written into ``buf`` itself when it already has room for row ``position``
    (the in-place form a loop uses on a buffer it owns); otherwise the fresh array."""
    i = int(position)
    if buf.shape[1:] == item.shape and buf.ndim == item.ndim + 1 and 0 <= i < len(buf) and (
            size is None or len(buf) == size):
        buf[i] = item
        return buf
    return _set_item(buf, position, item, size)


def _set_item_infer(buf: Spec, position: Spec, item: Spec, size=None) -> Spec:
    if not np.issubdtype(position.dtype, np.integer) or position.shape not in ((), None):
        raise ShapeError(f"TensorArray index must be an integer scalar, got {position.dtype} "
                         f"shape {fmt_shape(position.shape)}")
    if item.shape is None:
        return Spec(None, item.dtype)
    return Spec((size,) + tuple(item.shape), item.dtype)


def _zero_item(x, ref, position):
    """``x`` made ``ref``-shaped -- rows beyond ``x`` are zeros, rows beyond ``ref`` dropped --
    with row ``position`` zeroed.  It is its own adjoint, and ``TensorListSetItem``'s gradient
    for the buffer: the written row got its value elsewhere, rows the write added (an empty
    or growing buffer) did not come from it."""
    out = np.zeros(ref.shape, dtype=x.dtype)
    if tuple(ref.shape[1:]) == x.shape[1:] and len(ref.shape):
        n = min(len(x), ref.shape[0])
        out[:n] = x[:n]
        if int(position) < ref.shape[0]:
            out[int(position)] = 0
    return out


def _zero_item_into(x, ref, position):
    """``_zero_item`` written into ``x`` itself when it is already ``ref``-shaped (in place)."""
    i = int(position)
    if x.shape == tuple(ref.shape) and x.ndim and 0 <= i < len(x):
        x[i] = 0
        return x
    return _zero_item(x, ref, position)


defop("TensorListSetItem", _set_item, _set_item_infer, inputs=("buf", "position", "item"),
      fname="tensor_list_set_item", torch_name="IndexPutBackward0", into=_set_item_into,
      examples=(E(((4, 3), np.array(2), (3,)), {"size": 4}),
                E(((0,), np.array(1), (2, 2)), {"size": 3}), E(((0,), np.array(2), ()), {"size": 3})),
      grads=(lambda F, g, buf_shape, position: F.tensor_list_zero_item(g, buf_shape, position),
             None,
             lambda F, g, position: F.getitem(g, position, key=(ARRAY,))))
defop("TensorListZeroItem", _zero_item, lambda x, ref, position: Spec(ref.shape, x.dtype),
      inputs=("x", "ref", "position"), fname="tensor_list_zero_item", shape_only=(1,),
      into=_zero_item_into,
      examples=(E(((4, 3), (4, 3), np.array(1))), E(((3, 2), (0,), np.array(0))),
                E(((4,), (2,), np.array(3))), E(((2, 2), (3, 2), np.array(0)))),
      grads=(lambda F, g, x_shape, position: F.tensor_list_zero_item(g, x_shape, position),
             None, None))

def _list_stack(buf, element_shape=None, size=None):
    """A TensorArray's buffer as its stack, when the element shape is not fully known: a buffer
    still the empty marker ``(0,)`` (nothing written) cannot say its elements' shape -- TF's
    refusal then."""
    if buf.shape == (0,):
        shown = "<unknown>" if element_shape is None else tf_shape(element_shape)
        raise invalid(f"Tried to stack elements of an empty list with non-fully-defined "
                      f"element_shape: {shown}" if not size else
                      f"Tried to stack list which only contains uninitialized tensors and has a "
                      f"non-fully-defined element_shape: {shown}")
    return buf


defop("TensorListStack", _list_stack,
      lambda buf, element_shape=None, size=None: Spec(
          None if element_shape is None else (size, *element_shape), buf.dtype),
      inputs=("buf",), fname="tensor_list_stack", aliases=(0,),
      examples=(E(((3, 2),), {"element_shape": (2,), "size": 3}),
                E(((2, 4, 1),), {"element_shape": (4, 1), "size": 2})),
      grads=(lambda F, g: g,))


# --- positions of the true elements (tf.where with one argument) -----------------------------


def _where_indices(condition):
    """``[n_true, rank]`` int64 coordinates of the true (non-zero) elements, in row-major order."""
    return np.argwhere(condition).astype(np.int64)


def _where_indices_infer(condition: Spec) -> Spec:
    return Spec(None if condition.shape is None else (None, len(condition.shape)), np.dtype(np.int64))


defop("Where", _where_indices, _where_indices_infer, inputs=("condition",), fname="where_indices",
      sized_by_values=True,
      examples=(E((np.array([[True, False, True], [False, True, False]]),)),
                E((np.array([0.0, 1.5, 0.0, -2.0]),))))


# --- tf.slice with a begin known only at run time --------------------------------------

def _slice_key(x, begin, size) -> tuple:
    """The window ``begin[i] : begin[i] + size[i]`` per dim, checked as TF's Slice kernel
    checks it (``size[i] = -1``: to the end)."""
    begin = [int(b) for b in np.reshape(begin, -1)]
    key = []
    for i, (b, n, dim) in enumerate(zip(begin, size, x.shape)):
        if not 0 <= b <= dim:
            raise ShapeError(f"slice begin {begin} is out of range for shape {list(x.shape)}",
                             tf=f"Expected begin[{i}] in [0, {dim}], but got {b}")
        n = dim - b if n == -1 else n
        if not 0 <= n <= dim - b:
            raise ShapeError(f"slice size {list(size)} at begin {begin} is out of range for "
                             f"shape {list(x.shape)}",
                             tf=f"Expected size[{i}] in [0, {dim - b}], but got {n}")
        key.append(slice(b, b + n))
    return tuple(key)


def _slice_dynamic(x, begin, size):
    return x[_slice_key(x, begin, size)]


def _slice_dynamic_infer(x: Spec, begin: Spec, size) -> Spec:
    if begin.dtype.kind not in "iu":
        raise ShapeError(f"slice begin must be integers, got {begin.dtype}")
    if x.shape is not None and len(size) != len(x.shape):
        raise ShapeError(f"slice size {list(size)} has {len(size)} entries for a rank-"
                         f"{len(x.shape)} input", tf=f"Expected size to be a vector of length "
                         f"{len(x.shape)}, but got {len(size)}")
    return Spec(tuple(None if n == -1 else int(n) for n in size), x.dtype)


def _slice_dynamic_grad_impl(g, x, begin, size):
    """``g`` placed at the window of a zero array shaped like ``x``."""
    out = np.zeros(x.shape, g.dtype)
    out[_slice_key(x, begin, size)] = g
    return out


def _slice_dynamic_grad_infer(g: Spec, x: Spec, begin: Spec, size) -> Spec:
    return Spec(x.shape, g.dtype)


defop("SliceDynamic", _slice_dynamic, _slice_dynamic_infer, inputs=("x", "begin"),
      fname="slice_dynamic", aliases=(0,), tf_type="Slice", torch_name="SliceBackward0",
      sized_by_values=True,   # a size of -1 runs to the end: how far depends on begin
      doc="``x[begin[i] : begin[i] + size[i]]`` per dim, ``begin`` a tensor (TF's Slice).",
      examples=(E(((4, 6), ints((2,), 2)), {"size": (2, -1)}),
                E(((4, 6), ints((2,), 2)), {"size": (-1, 2)})),
      grads=(lambda F, g, x_shape, begin, size: F.slice_dynamic_grad(g, x_shape, begin, size=size),
             None))
defop("SliceDynamicGrad", _slice_dynamic_grad_impl, _slice_dynamic_grad_infer,
      inputs=("g", "x", "begin"), fname="slice_dynamic_grad", shape_only=(1,),
      doc="The gradient of SliceDynamic: ``g`` in a zero array shaped like ``x``.",
      examples=(E(((2, 3), (4, 6), ints((2,), 2)), {"size": (2, 3)}),),
      grads=(lambda F, g, begin, size: F.slice_dynamic(g, begin, size=size), None, None))

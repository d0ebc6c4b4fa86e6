"""ONNX rules: one table, registry op type -> the ONNX nodes that compute it.

Why a table here and not a fact in each ``defop``: ONNX is an *interchange
format*, one consumer among others, not a property of the op (the op's
forward, shape rule and gradient are what the registry states).  So its
mapping lives next to the exporter, in ONE place, keyed by registry op type::

    RULES["Tanh"] = same("Tanh")                  # one ONNX op of the same meaning
    RULES["NotEqual"] = Rule("Equal + Not", ...)  # a few ONNX ops

Adding a rule for a new op is one line.  A registry op without a rule shows in
the coverage table (``coverage()``, in the README) as "not exportable" with
the reason in :data:`NOT_EXPORTABLE`, or "no rule yet".

A rule's ``export(ctx, op, ins, out)`` writes nodes computing ``out`` (an ONNX
value name) from ``ins`` (the names of ``op``'s inputs), through ``ctx`` (see
``export.Scope``).  ``load(node, ins, op_def, attrs)``, when given, is the way
back for ``import_graph``: the staticgraph tensor for an ONNX ``node`` that
``validate.check_model`` accepted (``ins``: tensors, numpy arrays for constants,
None for an omitted optional input).  A load raises ``ValueError`` for what it
cannot build (the importer reports it naming the file and the node).
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np
from onnx import helper

from common import REGISTRY
from common.indexing import ARRAY, Slice
from common.ops.conv import resolve_padding, spatial

from ...framework.build import apply

__all__ = ["Rule", "RULES", "NOT_EXPORTABLE", "KINDS", "coverage", "coverage_markdown",
           "ExportError"]

INT64_MAX = np.iinfo(np.int64).max


class ExportError(ValueError):
    """A node this exporter cannot express in ONNX (the message says which and why)."""


class Rule(NamedTuple):
    onnx: str                                 # the ONNX op(s) it becomes (coverage table)
    export: Callable                          # export(ctx, op, ins, out) -> None
    load: Callable | None = None              # load(node, ins, op_def, attrs) -> Tensor


def _out_dtype(op) -> np.dtype:
    return op.outputs[0].np_dtype


def _cast_all(ctx, op, ins: list[str], dtype) -> list[str]:
    return [ctx.cast(n, t.np_dtype, dtype) for n, t in zip(ins, op.inputs)]


def _apply_load(node, ins, op_def, attrs):
    if not op_def.variadic and len(ins) != len(op_def.inputs):
        raise ValueError(f"staticgraph's {op_def.name} takes {len(op_def.inputs)} inputs, "
                         f"the node has {len(ins)}")
    return apply(op_def, ins, attrs)


def _static_ints(node, ins, k: int, what: str) -> tuple[int, ...]:
    """Input ``k`` of an ONNX ``node`` as ints.  staticgraph takes ``what`` (a shape, axes) as an
    attribute, so the input must be a constant: an initializer or a Constant node's output."""
    v = ins[k]
    if not isinstance(v, np.ndarray):
        raise ValueError(f"its {what} (input {k}, '{node.input[k]}') is computed at run time; "
                         f"staticgraph takes {what} as an attribute, so the importer needs it "
                         f"constant (an initializer or a Constant node)")
    if v.dtype.kind not in "iu" or v.ndim > 1:
        raise ValueError(f"its {what} (input {k}, '{node.input[k]}') must be a 1-D integer "
                         f"tensor, not {v.dtype} of shape {list(v.shape)}")
    return tuple(int(d) for d in v.reshape(-1))


def _dims(x) -> tuple | None:
    """The static shape of a load's input (a tensor, or a constant's array)."""
    return x.shape if isinstance(x, np.ndarray) else x._shape


def same(onnx_type: str, **fixed: Any) -> Rule:
    """The ONNX op of the same meaning; inputs cast to the result dtype (ONNX does not promote)."""
    def export(ctx, op, ins, out):
        ctx.node(onnx_type, _cast_all(ctx, op, ins, _out_dtype(op)), [out], **fixed)
    return Rule(onnx_type, export, _apply_load)


def compare(onnx_type: str, negate: bool = False, logical: bool = False) -> Rule:
    """A comparison (inputs cast to their common dtype) or logic op (to bool); a bool result."""
    def export(ctx, op, ins, out):
        common = np.dtype(bool) if logical else np.result_type(*[t.np_dtype for t in op.inputs])
        ins = _cast_all(ctx, op, ins, common)
        if negate:
            ctx.node("Not", [ctx.node(onnx_type, ins)], [out])
        else:
            ctx.node(onnx_type, ins, [out])
    return Rule(f"{onnx_type} + Not" if negate else onnx_type, export,
                None if negate else _apply_load)


# --- rules with attributes -----------------------------------------------------------------

def _clip(ctx, op, ins, out):
    dt = _out_dtype(op)
    x = ctx.cast(ins[0], op.inputs[0].np_dtype, dt)
    bounds = [ctx.const(np.array(v, dt), "clip") if v is not None else ""
              for v in (op.attrs.get("lo"), op.attrs.get("hi"))]
    ctx.node("Clip", [x, *bounds], [out])


def _select(ctx, op, ins, out):
    dt = _out_dtype(op)
    cond = ctx.cast(ins[0], op.inputs[0].np_dtype, np.dtype(bool))
    ctx.node("Where", [cond, *_cast_all(ctx, op, ins, dt)[1:]], [out])


def _cast(ctx, op, ins, out):
    ctx.node("Cast", ins, [out], to=ctx.onnx_dtype(_out_dtype(op)))


def _fill_like(value: int):
    def export(ctx, op, ins, out):
        dt = _out_dtype(op)
        ctx.node("ConstantOfShape", [ctx.node("Shape", ins)], [out],
                 value=ctx.tensor(np.array([value], dt)))
    return export


def _fill(ctx, op, ins, out):
    a = op.attrs
    ctx.node("Identity", [ctx.const(np.full(a["shape"], a["value"], dtype=a["dtype"]), "fill")], [out])


def _softmax(onnx_type):
    def export(ctx, op, ins, out):
        x = _cast_all(ctx, op, ins, _out_dtype(op))[0]
        ctx.node(onnx_type, [x], [out], axis=int(op.attrs.get("axis", -1)))

    def load(node, ins, op_def, attrs):
        return apply(op_def, ins, {"axis": attrs.get("axis", -1)})
    return Rule(onnx_type, export, load)


def _one_hot(ctx, op, ins, out):
    a = op.attrs
    labels = ctx.cast(ins[0], op.inputs[0].np_dtype, np.dtype(np.int64))
    ctx.node("OneHot", [labels, ctx.const(np.array(a["depth"], np.int64), "depth"),
                        ctx.const(np.array([0, 1], a["dtype"]), "values")], [out], axis=-1)


def _xent(ctx, op, ins, out):
    """``-log_softmax(logits)[label]`` along the last axis: LogSoftmax + GatherElements."""
    dt = _out_dtype(op)
    logits = ctx.cast(ins[0], op.inputs[0].np_dtype, dt)
    labels = ctx.cast(ins[1], op.inputs[1].np_dtype, np.dtype(np.int64))
    minus_one = ctx.const(np.array([-1], np.int64), "axes")
    picked = ctx.node("GatherElements", [ctx.node("LogSoftmax", [logits], axis=-1),
                                         ctx.node("Unsqueeze", [labels, minus_one])], axis=-1)
    ctx.node("Neg", [ctx.node("Squeeze", [picked, minus_one])], [out])


def _axes(ctx, axis) -> str:
    return ctx.const(np.array([axis] if isinstance(axis, int) else list(axis), np.int64), "axes")


def reduce(onnx_type: str) -> Rule:
    """Sum/Mean/Max/Min: axes as an input (opset 18; ReduceSum from 13), ``keepdims``."""
    def export(ctx, op, ins, out):
        axis, keep = op.attrs.get("axis"), int(bool(op.attrs.get("keepdims", False)))
        x = _cast_all(ctx, op, ins, _out_dtype(op))[0]
        if axis == ():
            ctx.node("Identity", [x], [out])
        elif axis is None:
            ctx.node(onnx_type, [x], [out], keepdims=keep)
        elif onnx_type == "ReduceSum" or ctx.opset >= 18:
            ctx.node(onnx_type, [x, _axes(ctx, axis)], [out], keepdims=keep)
        else:
            ctx.node(onnx_type, [x], [out], keepdims=keep,
                     axes=[axis] if isinstance(axis, int) else list(axis))

    def load(node, ins, op_def, attrs):
        """Axes as an attribute (before opset 18, 13 for ReduceSum) or a constant input; none
        reduces every axis, unless ``noop_with_empty_axes`` (then the input is the result)."""
        axes = attrs.get("axes")
        if len(ins) > 1 and ins[1] is not None:
            axes = _static_ints(node, ins, 1, "axes")
        if not axes and attrs.get("noop_with_empty_axes"):
            return apply(REGISTRY["Identity"], ins[:1], {})
        axis = tuple(axes) if axes else None
        return apply(op_def, ins[:1], {"axis": axis, "keepdims": bool(attrs.get("keepdims", 1))})
    return Rule(onnx_type, export, load)


def _reduce_size(ctx, op, ins, out):
    axis, dt = op.attrs.get("axis"), _out_dtype(op)
    if axis is None:
        n = ctx.node("Size", ins)
    else:
        dims = ctx.node("Gather", [ctx.node("Shape", ins), _axes(ctx, axis)], axis=0)
        n = ctx.node("ReduceProd", [dims], keepdims=0)
    ctx.node("Cast", [n], [out], to=ctx.onnx_dtype(dt))


def _arg(onnx_type: str) -> Rule:
    def export(ctx, op, ins, out):
        axis, keep = op.attrs.get("axis"), bool(op.attrs.get("keepdims", False))
        if axis is not None:
            ctx.node(onnx_type, ins, [out], axis=int(axis), keepdims=int(keep))
            return
        flat = ctx.node("Reshape", [ins[0], ctx.const(np.array([-1], np.int64), "shape")])
        if not keep:
            ctx.node(onnx_type, [flat], [out], axis=0, keepdims=0)
            return
        rank = ctx.rank(op.inputs[0])
        ctx.node("Reshape", [ctx.node(onnx_type, [flat], axis=0, keepdims=1),
                             ctx.const(np.ones(rank, np.int64), "shape")], [out])
    return Rule(onnx_type, export)


# --- shape ops ---------------------------------------------------------------------------------

def _sum_like(ctx, op, ins, out):
    """Sum ``x`` down to ``ref``'s shape: the extra leading axes, then (keeping dims) every axis
    where ``ref`` has size 1 and ``x`` not -- chosen at run time, so unknown sizes are fine."""
    x, ref = ins
    lead = ctx.rank(op.inputs[0]) - ctx.rank(op.inputs[1])
    if lead:
        x = ctx.node("ReduceSum", [x, _axes(ctx, list(range(lead)))], keepdims=0)
    one = ctx.const(np.array(1, np.int64), "one")
    mask = ctx.node("And", [ctx.node("Equal", [ctx.node("Shape", [ref]), one]),
                            ctx.node("Not", [ctx.node("Equal", [ctx.node("Shape", [x]), one])])])
    axes = ctx.node("Reshape", [ctx.node("NonZero", [mask]),
                                ctx.const(np.array([-1], np.int64), "shape")])
    summed = ctx.node("ReduceSum", [x, axes], keepdims=1, noop_with_empty_axes=1)
    ctx.node("Reshape", [summed, ctx.node("Shape", [ref])], [out])


def _with_shape_of(onnx_type):
    def export(ctx, op, ins, out):
        ctx.node(onnx_type, [ins[0], ctx.node("Shape", [ins[1]])], [out])
    return export


def _with_shape_input(onnx_type, data: int = 0):
    """An op whose run-time shape vector is input ``1 - data``: ONNX wants it as int64."""
    def export(ctx, op, ins, out):
        shape = ctx.node("Cast", [ins[1 - data]], to=ctx.onnx_dtype(np.dtype(np.int64)))
        ctx.node(onnx_type, [ins[data], shape], [out])
    return export


def _pad(ctx, op, ins, out):
    """TF's ``[[before, after], ...]`` as ONNX's ``[b1, b2, ..., a1, a2, ...]``; the mode as ONNX
    names it (SYMMETRIC has no ONNX form; ``wrap`` needs opset 19)."""
    paddings, mode = op.attrs["paddings"], op.attrs.get("mode", "CONSTANT")
    onnx_mode = {"CONSTANT": "constant", "REFLECT": "reflect", "EDGE": "edge"}.get(mode)
    if onnx_mode is None:
        raise ExportError(f"{op.name} ({op.type}): pad mode {mode} has no ONNX Pad mode here "
                          f"(ONNX has constant, reflect, edge; wrap from opset 19)")
    pads = ctx.const(np.array([b for b, _ in paddings] + [a for _, a in paddings], np.int64), "pads")
    extra = []
    if mode == "CONSTANT":
        extra = [ctx.const(np.array(op.attrs.get("constant_values", 0), _out_dtype(op)), "value")]
    ctx.node("Pad", [ins[0], pads, *extra], [out], mode=onnx_mode)


def _shape_fact(*onnx_types):
    """``tf.shape``/``tf.size``/``tf.rank``: ONNX's int64 answer, cast to the op's dtype."""
    def export(ctx, op, ins, out):
        x = ins[0]
        for t in onnx_types:
            x = ctx.node(t, [x])
        ctx.node("Cast", [x], [out], to=ctx.onnx_dtype(_out_dtype(op)))
    return export


def _with_shape_attr(onnx_type, load):
    def export(ctx, op, ins, out):
        ctx.node(onnx_type, [ins[0], ctx.const(np.array(op.attrs["shape"], np.int64), "shape")],
                 [out])
    return Rule(onnx_type, export, load)


def _reshape_load(node, ins, op_def, attrs):
    """ONNX's 0 in the shape copies the input's size there (unless ``allowzero``); staticgraph's
    shape holds sizes, so the input's size must be known."""
    shape = list(_static_ints(node, ins, 1, "shape"))
    if not attrs.get("allowzero", 0):
        have = _dims(ins[0])
        for i, d in enumerate(shape):
            if d == 0:
                if have is None or i >= len(have) or have[i] is None:
                    raise ValueError(f"its shape's 0 at position {i} copies the input's size "
                                     f"there, which is not known statically")
                shape[i] = have[i]
    return apply(op_def, ins[:1], {"shape": tuple(shape)})


def _expand_load(node, ins, op_def, attrs):
    """ONNX's Expand broadcasts both ways (a 1 in ``shape`` keeps the input's size, a shorter
    ``shape`` is padded with 1s): the result's shape, for staticgraph's BroadcastTo."""
    shape, have = _static_ints(node, ins, 1, "shape"), _dims(ins[0])
    if any(d < 0 for d in shape):
        raise ValueError(f"its shape {list(shape)} has a negative size")
    if have is None:
        raise ValueError("Expand needs its input's rank known statically")
    n = max(len(have), len(shape))
    out = []
    for x, y in zip((1,) * (n - len(have)) + tuple(have), (1,) * (n - len(shape)) + shape):
        if y == 1 and x is None:
            raise ValueError("Expand keeps an input size that is not known statically")
        out.append(x if y == 1 else y)
    return apply(op_def, ins[:1], {"shape": tuple(out)})


def _axes_op(onnx_type, optional: bool):
    def export(ctx, op, ins, out):
        axis = op.attrs.get("axis")
        if axis is None and optional:
            ctx.node(onnx_type, ins, [out])
        else:
            ctx.node(onnx_type, [ins[0], _axes(ctx, axis)], [out])

    def load(node, ins, op_def, attrs):
        axes = attrs.get("axes")      # before opset 13: an attribute
        if len(ins) > 1 and ins[1] is not None:
            axes = _static_ints(node, ins, 1, "axes")
        return apply(op_def, ins[:1], {"axis": None if axes is None else tuple(axes)})
    return Rule(onnx_type, export, load)


def _transpose(ctx, op, ins, out):
    perm = op.attrs.get("perm")
    if perm is None:
        ctx.node("Transpose", ins, [out])   # ONNX's default reverses the axes, as numpy's
    else:
        ctx.node("Transpose", ins, [out], perm=list(perm))


def _transpose_load(node, ins, op_def, attrs):
    perm = attrs.get("perm")
    return apply(op_def, ins, {"perm": None if perm is None else tuple(perm)})


def _swap_last_axes(ctx, op, ins, out):
    r = ctx.rank(op.inputs[0])
    ctx.node("Transpose", ins, [out], perm=list(range(r - 2)) + [r - 1, r - 2])


def _concat(ctx, op, ins, out):
    ctx.node("Concat", _cast_all(ctx, op, ins, _out_dtype(op)), [out], axis=int(op.attrs.get("axis", 0)))


def _concat_load(node, ins, op_def, attrs):
    return apply(op_def, ins, {"axis": attrs.get("axis", 0)})


def _split_part(ctx, op, ins, out):
    """``g[..., start:start+size]`` along ``axis``; sizes read from the reference tensors."""
    axis, part = op.attrs.get("axis", 0), op.attrs.get("part", 0)

    def size(name):
        return ctx.node("Gather", [ctx.node("Shape", [name]), _axes(ctx, axis)], axis=0)
    start = ctx.const(np.array([0], np.int64), "start")
    for r in ins[1:1 + part]:
        start = ctx.node("Add", [start, size(r)])
    end = ctx.node("Add", [start, size(ins[1 + part])])
    ctx.node("Slice", [ins[0], start, end, _axes(ctx, axis)], [out])


def _slice_dynamic(ctx, op, ins, out):
    """``x[begin : begin + size]`` with ``begin`` a tensor: ONNX's Slice takes its starts as an
    input; a size of -1 (to the end) becomes an end past any dim (ONNX clamps it)."""
    size = np.array([2 ** 62 if n == -1 else n for n in op.attrs["size"]], np.int64)
    start = ctx.node("Cast", [ins[1]], to=ctx.onnx_dtype(np.dtype(np.int64)))
    end = ctx.node("Add", [start, ctx.const(size, "size")])
    axes = ctx.const(np.arange(len(size), dtype=np.int64), "axes")
    ctx.node("Slice", [ins[0], start, end, axes], [out])


def _stack(ctx, op, ins, out):
    axis = int(op.attrs.get("axis", 0))
    ins = _cast_all(ctx, op, ins, _out_dtype(op))
    ctx.node("Concat", [ctx.node("Unsqueeze", [x, _axes(ctx, axis)]) for x in ins], [out], axis=axis)


# --- several outputs: ``outs`` holds one ONNX name per output -----------------------------

def _split(ctx, op, ins, outs):
    """Split/SplitV -> Split (equal pieces when no sizes are given, as TF's ``num_split``)."""
    sizes = op.attrs.get("sizes")
    extra = [] if sizes is None else [ctx.const(np.array(sizes, np.int64), "split")]
    ctx.node("Split", [ins[0], *extra], outs, axis=int(op.attrs.get("axis", 0)),
             **_equal_pieces(ctx, sizes, len(outs)))


def _equal_pieces(ctx, sizes, n: int) -> dict:
    """Equal pieces: opset 18 wants their number (``num_outputs``), earlier ones infer it."""
    return {"num_outputs": n} if sizes is None and ctx.opset >= 18 else {}


def _unstack(ctx, op, ins, outs):
    """Unpack -> Split into size-1 pieces, each squeezed on the axis."""
    axis = int(op.attrs.get("axis", 0))
    pieces = [ctx.fresh("unstack_piece") for _ in outs]
    ctx.node("Split", [ins[0]], pieces, axis=axis, **_equal_pieces(ctx, None, len(pieces)))
    for piece, out in zip(pieces, outs):
        ctx.node("Squeeze", [piece, _axes(ctx, axis)], [out])


def _top_k(ctx, op, ins, outs):
    """TopKV2 -> TopK on the last axis (ties: lower index first in both); int64 indices cast
    to TF's int32."""
    k = ctx.const(np.array([op.attrs["k"]], np.int64), "k")
    indices = ctx.fresh("TopK_indices")
    ctx.node("TopK", [ins[0], k], [outs[0], indices], axis=-1, largest=1, sorted=1)
    ctx.node("Cast", [indices], [outs[1]], to=ctx.onnx_dtype(np.dtype(np.int32)))


def _index(ctx, key, x: str, x_t, arrays: list[str], arrays_t: list) -> str:
    """``x[key]`` as Slice/Gather/Squeeze/Unsqueeze nodes; its name (``x_t``: the indexed tensor)."""
    key = list(key)
    if key.count(ARRAY) > 1:
        op = ctx.exporter.current
        raise ExportError(f"{op.name} ({op.type}): indexing with several integer arrays (numpy's "
                          f"broadcast advanced indexing) has no ONNX counterpart here")
    if Ellipsis in key:
        consuming = sum(1 for k in key if k is not None and k is not Ellipsis)
        i = key.index(Ellipsis)
        key[i:i + 1] = [Slice(None, None, None)] * (ctx.rank(x_t) - consuming)
    slices, squeeze, news, arr_axis, arr_rank, dim, out_dim = [], [], [], None, 0, 0, 0
    for k in key:
        if k is None:
            news.append(out_dim)
            out_dim += 1
        elif k is ARRAY:
            arr_axis, arr_rank = dim, ctx.rank(arrays_t[0])
            dim, out_dim = dim + 1, out_dim + arr_rank
        elif isinstance(k, Slice):
            if k != Slice(None, None, None):
                slices.append((dim, k))
            dim, out_dim = dim + 1, out_dim + 1
        else:
            slices.append((dim, Slice(k, k + 1 if k != -1 else None, 1)))
            squeeze.append(dim)
            dim += 1
    if slices:
        starts, ends, steps = [], [], []
        for _, s in slices:
            step = 1 if s.step is None else s.step
            starts.append(s.start if s.start is not None else (0 if step > 0 else -1))
            ends.append(s.stop if s.stop is not None else (INT64_MAX if step > 0 else -INT64_MAX))
            steps.append(step)
        x = ctx.node("Slice", [x] + [ctx.const(np.array(v, np.int64), "slice")
                                     for v in (starts, ends, [d for d, _ in slices], steps)])
    if arr_axis is not None:
        idx = ctx.cast(arrays[0], arrays_t[0].np_dtype, np.dtype(np.int64))
        x = ctx.node("Gather", [x, idx], axis=arr_axis)
        squeeze = [d if d < arr_axis else d + arr_rank - 1 for d in squeeze]
    if squeeze:
        x = ctx.node("Squeeze", [x, _axes(ctx, squeeze)])
    if news:
        x = ctx.node("Unsqueeze", [x, _axes(ctx, news)])
    return x


def _getitem(ctx, op, ins, out):
    """Basic indexing (ints, slices, None, ...) as Slice/Squeeze/Unsqueeze, one index array as Gather."""
    ctx.node("Identity", [_index(ctx, op.attrs["key"], ins[0], op.inputs[0], ins[1:],
                                 op.inputs[1:])], [out])


def _scatter_like(ctx, op, ins, out):
    """Zeros shaped like ``ref`` plus ``g`` added at ``key``: the flat positions ``key`` picks
    (the same indexing nodes as GetItem, applied to ``arange(size).reshape(shape)``) feed one
    ``ScatterElements(reduction="add")``, so repeated positions accumulate as ``np.add.at``."""
    if ctx.opset < 16:
        raise ExportError(f"{op.name} (ScatterLike): ScatterElements with reduction='add' "
                          f"needs opset 16 or later (asked for {ctx.opset})")
    dt, ref = _out_dtype(op), ins[1]
    shape, size = ctx.node("Shape", [ref]), ctx.node("Size", [ref])
    one, zero = (ctx.const(np.array(v, np.int64), "range") for v in (1, 0))
    positions = ctx.node("Reshape", [ctx.node("Range", [zero, size, one]), shape])
    picked = _index(ctx, op.attrs["key"], positions, op.inputs[1], ins[2:], op.inputs[2:])
    minus_one = ctx.const(np.array([-1], np.int64), "shape")
    g = ctx.node("Expand", [ctx.cast(ins[0], op.inputs[0].np_dtype, dt), ctx.node("Shape", [picked])])
    zeros = ctx.node("ConstantOfShape", [ctx.node("Reshape", [size, minus_one])],
                     value=ctx.tensor(np.array([0], dt)))
    flat = ctx.node("ScatterElements", [zeros, ctx.node("Reshape", [picked, minus_one]),
                                        ctx.node("Reshape", [g, minus_one])], axis=0, reduction="add")
    ctx.node("Reshape", [flat, shape], [out])


# --- convolution, pooling, bias: ONNX is channels-first, TF's default channels-last -------------

_TO_NCHW, _TO_NHWC, _HWIO_TO_OIHW = [0, 3, 1, 2], [0, 2, 3, 1], [3, 2, 0, 1]


def _spatial_pads(op, x, ksize, strides, dilations, padding) -> list[int]:
    """ONNX's ``pads`` (begins then ends) for the op's padding on input ``x``'s known H, W."""
    if padding in ("SAME", "VALID"):
        hw = spatial(x._shape or (None,) * 4, _attrs(op).get("data_format", "NHWC"))
        if padding == "SAME" and None in hw:
            raise ExportError(f"{op.name} ({op.type}): SAME padding needs the input's height and "
                              f"width known statically (TF pads the odd cell after)")
        pairs = [resolve_padding(hw[i] or 0, ksize[i], strides[i], dilations[i], padding, i)
                 for i in (0, 1)]
    else:
        pairs = [tuple(p) for p in padding]
    return [pairs[0][0], pairs[1][0], pairs[0][1], pairs[1][1]]


def _channels_first(ctx, op, name: str) -> str:
    if _attrs(op).get("data_format", "NHWC") == "NCHW":
        return name
    return ctx.node("Transpose", [name], perm=_TO_NCHW)


def _channels_back(ctx, op, name: str, out: str) -> None:
    if _attrs(op).get("data_format", "NHWC") == "NCHW":
        ctx.node("Identity", [name], [out])
    else:
        ctx.node("Transpose", [name], [out], perm=_TO_NHWC)


def _attrs(op) -> dict:
    """The op's attributes, defaults included (examples and callers may leave them out)."""
    return {**op.op_def.defaults, **op.attrs}


def _conv(ctx, op, ins, out):
    a = _attrs(op)
    strides, dilations = list(a.get("strides", (1, 1))), list(a.get("dilations", (1, 1)))
    w = ins[1] if a.get("filter_format", "HWIO") == "OIHW" else ctx.node("Transpose", [ins[1]],
                                                                          perm=_HWIO_TO_OIHW)
    shape = op.inputs[1]._shape
    khw = shape[:2] if a.get("filter_format", "HWIO") == "HWIO" else shape[2:]
    y = ctx.node("Conv", [_channels_first(ctx, op, ins[0]), w], strides=strides,
                 dilations=dilations, group=int(a.get("groups", 1)),
                 pads=_spatial_pads(op, op.inputs[0], khw, strides, dilations, a.get("padding", "VALID")))
    _channels_back(ctx, op, y, out)


def _pool(onnx_type: str):
    def export(ctx, op, ins, out):
        a = _attrs(op)
        ksize, strides = list(a["ksize"]), list(a["strides"])
        pads = _spatial_pads(op, op.inputs[0], ksize, strides, (1, 1), a["padding"])
        extra = {}
        if onnx_type == "AveragePool":
            counted = [c for pair in a.get("count_pads", ((0, 0), (0, 0))) for c in pair]
            counted = [counted[0], counted[2], counted[1], counted[3]]
            if any(counted) and counted != pads:
                raise ExportError(f"{op.name} (AvgPool): a divisor counting some padding cells but "
                                  f"not others (PyTorch's ceil_mode with padding) has no ONNX form")
            extra["count_include_pad"] = int(any(counted))
        y = ctx.node(onnx_type, [_channels_first(ctx, op, ins[0])], kernel_shape=ksize,
                     strides=strides, pads=pads, **extra)
        _channels_back(ctx, op, y, out)
    return Rule(onnx_type, export)


def _where_indices(ctx, op, ins, out):
    """NonZero gives ``[rank, n]``; TF's Where is its transpose."""
    ctx.node("Transpose", [ctx.node("NonZero", ins)], [out], perm=[1, 0])


def _bias_add(ctx, op, ins, out):
    x, b = _cast_all(ctx, op, ins, _out_dtype(op))
    if _attrs(op).get("data_format", "NHWC").startswith("NC"):
        extra = [1] * (ctx.rank(op.inputs[0]) - 2)
        b = ctx.node("Reshape", [b, ctx.const(np.array([-1] + extra, np.int64), "bias_shape")])
    ctx.node("Add", [x, b], [out])


# --- the table ---------------------------------------------------------------------------------

RULES: dict[str, Rule] = {
    "Add": same("Add"), "Sub": same("Sub"), "Mul": same("Mul"), "RealDiv": same("Div"),
    "AddN": same("Sum"),
    "Pow": same("Pow"), "Maximum": same("Max"), "Minimum": same("Min"),
    "Select": Rule("Where", _select, _apply_load),
    "ClipByValue": Rule("Clip", _clip),
    "Neg": same("Neg"), "Exp": same("Exp"), "Log": same("Log"), "Sqrt": same("Sqrt"),
    "Abs": same("Abs"), "Sign": same("Sign"), "Tanh": same("Tanh"), "Sigmoid": same("Sigmoid"),
    "Relu": same("Relu"),
    "Sin": same("Sin"), "Cos": same("Cos"), "Tan": same("Tan"), "Floor": same("Floor"),
    "Ceil": same("Ceil"), "Round": same("Round"), "Erf": same("Erf"),
    "Asin": same("Asin"), "Acos": same("Acos"), "Atan": same("Atan"), "Sinh": same("Sinh"),
    "Cosh": same("Cosh"), "Asinh": same("Asinh"), "Acosh": same("Acosh"), "Atanh": same("Atanh"),
    "Softplus": same("Softplus"),
    "Less": compare("Less"), "LessEqual": compare("LessOrEqual"), "Greater": compare("Greater"),
    "GreaterEqual": compare("GreaterOrEqual"), "Equal": compare("Equal"),
    "NotEqual": compare("Equal", negate=True),
    "LogicalAnd": compare("And", logical=True), "LogicalOr": compare("Or", logical=True),
    "LogicalNot": compare("Not", logical=True),
    "SwapLastAxes": Rule("Transpose", _swap_last_axes),
    "MatMul": same("MatMul"),
    "Cast": Rule("Cast", _cast),
    "Identity": same("Identity"), "StopGradient": same("Identity"),
    "ZerosLike": Rule("Shape + ConstantOfShape", _fill_like(0)),
    "OnesLike": Rule("Shape + ConstantOfShape", _fill_like(1)),
    "Fill": Rule("initializer", _fill),
    "Softmax": _softmax("Softmax"), "LogSoftmax": _softmax("LogSoftmax"),
    "OneHot": Rule("OneHot", _one_hot),
    "SparseSoftmaxCrossEntropyWithLogits": Rule("LogSoftmax + GatherElements + Neg", _xent),
    "Sum": reduce("ReduceSum"), "Mean": reduce("ReduceMean"), "Max": reduce("ReduceMax"),
    "Min": reduce("ReduceMin"), "EuclideanNorm": reduce("ReduceL2"),
    "ReduceSize": Rule("Shape + Gather + ReduceProd + Cast", _reduce_size),
    "ArgMax": _arg("ArgMax"), "ArgMin": _arg("ArgMin"),
    "SumLike": Rule("Shape + Equal + NonZero + ReduceSum + Reshape", _sum_like),
    "BroadcastLike": Rule("Shape + Expand", _with_shape_of("Expand")),
    "ReshapeLike": Rule("Shape + Reshape", _with_shape_of("Reshape")),
    "ReshapeDynamic": Rule("Cast + Reshape", _with_shape_input("Reshape")),
    "BroadcastToDynamic": Rule("Cast + Expand", _with_shape_input("Expand")),
    "FillDynamic": Rule("Cast + Expand", _with_shape_input("Expand", data=1)),
    "TileDynamic": Rule("Cast + Tile", _with_shape_input("Tile")),
    "Range": Rule("Range", lambda ctx, op, ins, out: ctx.node("Range", ins, [out])),
    "Shape": Rule("Shape + Cast", _shape_fact("Shape")),
    "Size": Rule("Size + Cast", _shape_fact("Size")),
    "Rank": Rule("Shape + Size + Cast", _shape_fact("Shape", "Size")),
    "Pad": Rule("Pad", _pad),
    "MirrorPad": Rule("Pad (reflect, edge)", _pad),
    "Reshape": _with_shape_attr("Reshape", _reshape_load),
    "ExpandDims": _axes_op("Unsqueeze", optional=False),
    "Squeeze": _axes_op("Squeeze", optional=True),
    "BroadcastTo": _with_shape_attr("Expand", _expand_load),
    "Transpose": Rule("Transpose", _transpose, _transpose_load),
    "ConcatV2": Rule("Concat", _concat, _concat_load),
    "SplitPart": Rule("Shape + Gather + Slice", _split_part),
    "Pack": Rule("Unsqueeze + Concat", _stack),
    "GetItem": Rule("Slice + Squeeze + Unsqueeze / Gather", _getitem),
    "SliceDynamic": Rule("Cast + Add + Slice", _slice_dynamic),
    "Split": Rule("Split", _split),
    "SplitV": Rule("Split (sizes as input)", _split),
    "Unpack": Rule("Split + Squeeze", _unstack),
    "TopKV2": Rule("TopK + Cast", _top_k),
    "ScatterLike": Rule("Range + (GetItem's nodes) + ScatterElements(add)", _scatter_like),
    "Conv2D": Rule("Conv (+ Transposes for NHWC / HWIO)", _conv),
    "MaxPool": _pool("MaxPool"), "AvgPool": _pool("AveragePool"),
    "BiasAdd": Rule("Add (+ Reshape for NCHW)", _bias_add),
    "Where": Rule("NonZero + Transpose", _where_indices),
}

NOT_EXPORTABLE: dict[str, str] = {}   # registry op -> why it has no rule (none at present)

# Graph-level kinds (not registry ops) and what they become.
KINDS: dict[str, str] = {
    "Placeholder": "graph input", "PlaceholderWithDefault": "graph input if listed, else its default",
    "Const": "initializer", "VarHandleOp + ReadVariableOp": "initializer (the Session's value)",
    "While / StatelessWhile": "Loop (cond region inlined before the loop and at the end of the body)",
    "If / StatelessIf": "If (the regions become then/else branches)",
}


def coverage() -> list[tuple[str, str]]:
    """(registry op, ONNX ops or ``not exportable: why``) for every registered op, in order."""
    rows = []
    for name in REGISTRY:
        rule = RULES.get(name)
        if rule is not None:
            rows.append((name, rule.onnx))
        else:
            rows.append((name, "not exportable: " + NOT_EXPORTABLE.get(
                name, "no ONNX rule written yet (add one line to staticgraph/interop/onnx/rules.py)")))
    return rows


def coverage_markdown() -> str:
    """The coverage table as Markdown, with its totals (the README embeds this)."""
    rows = coverage()
    done = sum(1 for _, v in rows if not v.startswith("not exportable"))
    lines = ["| registry op | ONNX |", "|---|---|"] + [f"| `{n}` | {v} |" for n, v in rows]
    lines += ["", f"{done} of {len(rows)} registry ops export to ONNX; graph kinds: "
              + "; ".join(f"{k} -> {v}" for k, v in KINDS.items()) + "."]
    return "\n".join(lines)


# --- the fused recurrent cells (common/ops/cells.py): their composite, node by node ----------

def _blocks(ctx, x: str, count: int, hint: str) -> list[str]:
    pieces = [ctx.fresh(f"{hint}_{k}") for k in range(count)]
    ctx.node("Split", [x], pieces, axis=-1, **_equal_pieces(ctx, None, count))
    return pieces


def _lstm_cell_nodes(ctx, gates: str, c: str, h_out=None, c_out=None) -> tuple:
    """One LSTM step's nodes: i, f, o = Sigmoid, g = Tanh of the gate blocks; c' = c f + i g;
    h' = tanh(c') o.  Returns ``(h', c', [i, f, g, o, tanh(c')])``."""
    i, f, g, o = _blocks(ctx, gates, 4, "lstm_gate")
    i, f, o = (ctx.node("Sigmoid", [x]) for x in (i, f, o))
    g = ctx.node("Tanh", [g])
    c = ctx.node("Add", [ctx.node("Mul", [c, f]), ctx.node("Mul", [i, g])], c_out)
    t = ctx.node("Tanh", [c])
    return ctx.node("Mul", [t, o], h_out), c, [i, f, g, o, t]


def _fused_lstm_cell(ctx, op, ins, outs):
    """FusedLSTMCell -> :func:`_lstm_cell_nodes`; the workspace as their Concat."""
    _, _, blocks = _lstm_cell_nodes(ctx, ins[0], ins[1], [outs[0]], [outs[1]])
    ctx.node("Concat", blocks, [outs[2]], axis=-1)


def _lstm_layer(ctx, op, ins, outs):
    """LSTMLayer -> one Scan over the steps (backwards for ``reverse``: the workspace and
    ``out`` stay in time order), its body ``(x + b) + h @ w`` and :func:`_lstm_cell_nodes`;
    ``h`` and ``c`` carried, ``out`` and the workspace ``[i, f, g, o, tanh(c'), c']`` scanned
    out."""
    body = type(ctx)(ctx.exporter, ctx, f"{op.name}/body/")
    h, c, x = (body.fresh(n) for n in ("h", "c", "x"))
    gates = body.node("Add", [body.node("Add", [x, ins[4]]), body.node("MatMul", [h, ins[3]])])
    h_new, c_new, blocks = _lstm_cell_nodes(body, gates, c)
    results = [body.node("Identity", [v]) for v in (h_new, c_new, h_new)]
    results.append(body.node("Concat", blocks + [c_new], axis=-1))
    dtype = ctx.onnx_dtype(_out_dtype(op))
    graph = helper.make_graph(body.nodes, f"{op.name}/body",
                              [helper.make_tensor_value_info(n, dtype, None) for n in (h, c, x)],
                              [helper.make_tensor_value_info(n, dtype, None) for n in results])
    backwards = [1 if op.attrs.get("reverse", False) else 0]
    ctx.node("Scan", [ins[1], ins[2], ins[0]], [outs[1], outs[2], outs[0], outs[3]], body=graph,
             num_scan_inputs=1, scan_input_directions=backwards,
             scan_output_directions=backwards * 2)


def _fused_gru_cell(ctx, op, ins, outs):
    """FusedGRUCell -> r, z = Sigmoid(gi + gh) blocks; n = Tanh(gi_n + r gh_n);
    h' = z h + (1 - z) n; the workspace as their Concat."""
    gi_r, gi_z, gi_n = _blocks(ctx, ins[0], 3, "gru_gi")
    gh_r, gh_z, gh_n = _blocks(ctx, ins[1], 3, "gru_gh")
    r = ctx.node("Sigmoid", [ctx.node("Add", [gi_r, gh_r])])
    z = ctx.node("Sigmoid", [ctx.node("Add", [gi_z, gh_z])])
    n = ctx.node("Tanh", [ctx.node("Add", [gi_n, ctx.node("Mul", [r, gh_n])])])
    one = ctx.const(np.array(1, _out_dtype(op)), "one")
    ctx.node("Add", [ctx.node("Mul", [z, ins[2]]), ctx.node("Mul", [ctx.node("Sub", [one, z]), n])],
             [outs[0]])
    ctx.node("Concat", [r, z, n, gh_n], [outs[1]], axis=-1)


RULES["FusedLSTMCell"] = Rule("Split + Sigmoid + Tanh + Mul + Add + Concat", _fused_lstm_cell)
RULES["LSTMLayer"] = Rule("Scan (MatMul + Add + Split + Sigmoid + Tanh + Mul + Add + Concat)",
                         _lstm_layer)
RULES["FusedGRUCell"] = Rule("Split + Add + Sigmoid + Tanh + Mul + Sub + Concat", _fused_gru_cell)

"""Graph-building functions with TensorFlow's names and argument names.

Each is a thin front end over one registry op through :func:`build.apply`:
it maps TF's argument names, checks TF's dtype rule for binary ops (operands
must agree; a Python/numpy value next to a tensor takes the tensor's dtype),
and names the node as TF would (``Add``, ``MatMul``, ``Sum``...).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Sequence

import numpy as np

from common import REGISTRY
from common.indexing import encode_index
from common.ops.shape import tf_missing_dim_of_empty
from common.shapes import is_compatible

from ..framework import dtypes as _dtypes
from ..framework.build import _INPUT_NAMES, apply, checked_array, constant, convert_to_tensor, default_dtype
from ..framework.error_text import ShapeAttr, input_names, shape_inference_error
from ..framework.graph import Tensor, get_default_graph, name_scope, tensor_of
from ..framework.shape import as_shape_tuple
from ..framework.shape_values import constant_value_as_shape, is_runtime_shape, shape_tensor, static_value
from .complex_ops import conj

__all__ = ["add", "subtract", "multiply", "divide", "truediv", "realdiv", "matmul", "pow",
           "maximum", "minimum", "negative", "square", "reciprocal", "tanh", "exp", "log",
           "sqrt", "abs", "sign", "sigmoid", "where", "clip_by_value", "less", "less_equal",
           "greater", "greater_equal", "equal", "not_equal", "logical_and", "logical_or",
           "logical_not", "transpose", "reshape", "broadcast_to", "squeeze", "expand_dims",
           "concat", "stack", "parallel_stack", "unstack", "reduce_sum", "reduce_mean", "reduce_max",
           "reduce_min", "cast", "identity", "stop_gradient", "zeros", "ones", "fill",
           "zeros_like", "ones_like", "one_hot", "add_n", "gather_index", "where_v2"]

_R = REGISTRY


def _operands(op_type: str, *xs: Any, names: Sequence[str] | None = None) -> tuple:
    """TF's rule: tensor operands share one dtype; other values are converted to it.

    ``names``: TF's input names when they are not the registry's mapped ones (MatMul: a, b).
    """
    if len(xs) == 2 and type(xs[0]) is Tensor and type(xs[1]) is Tensor and \
            xs[0]._dtype is xs[1]._dtype:
        return xs                     # the common case: two tensors of one (interned) dtype
    tensors = [tensor_of(x) for x in xs]
    known = [t for t in tensors if t is not None]
    if not known:
        return xs
    dtype = known[0].dtype
    for i, (t, x) in enumerate(zip(tensors, xs)):
        # a tensor of another dtype, or a non-integral float beside an integer tensor (TF 2
        # converts it to float32 first, then refuses the mix with the same sentence)
        other = t.dtype if t is not None else _dtypes.float32 if (
            isinstance(x, float) and not x.is_integer() and dtype.is_integer) else None
        if other is not None and other != dtype:
            names = names or ([_INPUT_NAMES.get(n, n) for n in _R[op_type].inputs]
                              if not _R[op_type].variadic else [f"x_{k}" for k in range(len(xs))])
            raise TypeError(f"Input '{names[i]}' of '{op_type}' Op has type {other.name} that "
                            f"does not match type {dtype.name} of argument '{names[0]}'.")
    return tuple(t if t is not None else _const_like(x, dtype) for t, x in zip(tensors, xs))


def _const_like(x: Any, dtype: _dtypes.DType) -> np.ndarray:
    """The value in ``dtype``; ``apply`` makes it a Const inside the op's scope (``Add/y``)."""
    return checked_array(x, dtype._np)


def _binary(op_type: str, x, y, name):
    if type(x) is Tensor and type(y) is Tensor and x._dtype is y._dtype:   # nothing to convert
        return apply(_R[op_type], (x, y), {}, name=name)
    return apply(_R[op_type], _operands(op_type, x, y), {}, name=name)


def _unary(op_type: str, x, name):
    return apply(_R[op_type], (convert_to_tensor(x),), {}, name=name)


# --- arithmetic ---------------------------------------------------------------------

def add(x, y, name=None): return _binary("Add", x, y, name)
def subtract(x, y, name=None): return _binary("Sub", x, y, name)
def multiply(x, y, name=None): return _binary("Mul", x, y, name)
def realdiv(x, y, name=None): return _binary("RealDiv", x, y, name)
def maximum(x, y, name=None): return _binary("Maximum", x, y, name)
def minimum(x, y, name=None): return _binary("Minimum", x, y, name)
def pow(x, y, name=None): return _binary("Pow", x, y, name)  # noqa: A001  (TF's name)


def truediv(x, y, name=None):
    """``x / y``; integer operands give float64 (as TF's truediv)."""
    return _binary("RealDiv", x, y, name or "truediv")


divide = truediv


def matmul(a, b, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False, name=None,
           output_type=None):
    """Matrix product of rank >= 2 tensors; ``transpose_*`` (for real tensors the same as
    ``adjoint_*``) swap the last two axes first."""
    if transpose_a and adjoint_a or transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_a and adjoint_a can be True."
                         if transpose_a and adjoint_a else
                         "Only one of transpose_b and adjoint_b can be True.")
    a, b = (convert_to_tensor(v) for v in _operands("MatMul", a, b, names=("a", "b")))
    if adjoint_a and a.dtype.is_complex or adjoint_b and b.dtype.is_complex:
        a, b = conj(a) if adjoint_a else a, conj(b) if adjoint_b else b   # TF conjugates first
    transpose_a, transpose_b = transpose_a or adjoint_a, transpose_b or adjoint_b
    if not (transpose_a or transpose_b):
        return _matmul(a, b, name)
    with name_scope(name, "MatMul") as scope:   # TF's transposes are attributes of its one op:
        a = _swap_last(a) if transpose_a else a  # ours live inside that op's scope
        b = _swap_last(b) if transpose_b else b
        return _matmul(a, b, scope)


def _matmul(a: Tensor, b: Tensor, name) -> Tensor:
    batched = a.ndim is None or b.ndim is None or a.ndim > 2 or b.ndim > 2
    return apply(_R["MatMul"], (a, b), {}, name=name, tf_type="BatchMatMulV2" if batched else None)


def _swap_last(x: Tensor) -> Tensor:
    r = x.ndim
    return transpose(x, perm=tuple(range(r - 2)) + (r - 1, r - 2))


def negative(x, name=None): return _unary("Neg", x, name)
def tanh(x, name=None): return _unary("Tanh", x, name)
def exp(x, name=None): return _unary("Exp", x, name)
def log(x, name=None): return _unary("Log", x, name)
def sqrt(x, name=None): return _unary("Sqrt", x, name)
def abs(x, name=None):  # noqa: A001
    """``|x|``; of a complex tensor its magnitude, a real tensor (TF's ``ComplexAbs`` node)."""
    x = convert_to_tensor(x)
    return _unary("ComplexAbs", x, name or "Abs") if x.dtype.is_complex else _unary("Abs", x, name)
def sign(x, name=None): return _unary("Sign", x, name)
def sigmoid(x, name=None): return _unary("Sigmoid", x, name)


def square(x, name=None): return _unary("Square", x, name)


def reciprocal(x, name=None):
    x = convert_to_tensor(x)
    return apply(_R["RealDiv"], (1, x), {}, name=name or "Reciprocal", tf_type="Reciprocal")


def add_n(inputs: Sequence, name=None):
    """Sum of a list of same-shaped tensors: one ``AddN`` node (TF's) for tensors of one
    dtype and compatible shapes (two run as one ``Add`` kernel, typed ``AddN``); other mixes
    (Python numbers, broadcasting shapes) a chain of ``Add`` ending in a node named ``AddN``."""
    inputs = list(inputs) if isinstance(inputs, Iterable) and not isinstance(inputs, Tensor) else []
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the "
                         "same dtype and shape.")
    if len(inputs) == 1:   # TF: the one term itself, unless a name asks for a node
        return identity(inputs[0], name=name) if name else convert_to_tensor(inputs[0])
    if _one_kind(inputs):   # two terms run as one Add (the cheapest kernel), shown as TF's AddN
        if len(inputs) == 2:
            return apply(_R["Add"], tuple(inputs), {}, name=name or "AddN", tf_type="AddN")
        return apply(_R["AddN"], tuple(inputs), {}, name=name)
    total = inputs[0]
    for x in inputs[1:-1]:
        total = add(total, x)
    return add(total, inputs[-1], name=name or "AddN")   # the last sum carries TF's name


def _one_kind(xs: list) -> bool:
    """Are all ``xs`` tensors of one dtype whose static shapes could be equal?"""
    first = xs[0]
    if type(first) is not Tensor:
        return False
    dtype, shape = first._dtype, first._shape
    for x in xs:
        if type(x) is not Tensor or x._dtype is not dtype or (
                x._shape != shape and not is_compatible(shape, x._shape)):
            return False
    return True


def where(condition, x=None, y=None, name=None):
    """Elementwise ``x if condition else y``; with neither, the ``[n, rank]`` int64 coordinates
    of the true (non-zero) elements of ``condition`` (the ``Where`` op)."""
    if x is None and y is None:
        return apply(_R["Where"], (convert_to_tensor(condition),), {}, name=name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = _operands("Select", x, y)
    cond = convert_to_tensor(condition)
    rank = max(np.ndim(v) if tensor_of(v) is None else (tensor_of(v).ndim or 0) for v in (x, y))
    if cond.ndim == 1 and rank > 1:   # TF1's where: a vector condition picks whole rows
        cond = reshape(cond, [-1] + [1] * (rank - 1))
    return apply(_R["Select"], (cond, x, y), {}, name=name)


def where_v2(condition, x=None, y=None, name=None):
    """TF2's ``where``: ``condition``, ``x`` and ``y`` broadcast together (numpy's rule)."""
    if x is None and y is None:
        return where(condition, name=name)
    x, y = _operands("Select", x, y)
    return apply(_R["Select"], (convert_to_tensor(condition), x, y), {}, name=name or "SelectV2")


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``t`` limited to ``[min, max]`` (Python numbers are attributes; tensors use max/min)."""
    with name_scope(name, "clip_by_value") as scope:    # TF's result: ``clip_by_value:0``
        t = convert_to_tensor(t)
        if isinstance(clip_value_min, Tensor) or isinstance(clip_value_max, Tensor):
            return maximum(minimum(t, clip_value_max), clip_value_min, name=scope)
        return apply(_R["ClipByValue"], (t,), {"lo": clip_value_min, "hi": clip_value_max},
                     name=scope)


# --- comparisons and logic ------------------------------------------------------------

def less(x, y, name=None): return _binary("Less", x, y, name)
def less_equal(x, y, name=None): return _binary("LessEqual", x, y, name)
def greater(x, y, name=None): return _binary("Greater", x, y, name)
def greater_equal(x, y, name=None): return _binary("GreaterEqual", x, y, name)
def equal(x, y, name=None): return _binary("Equal", x, y, name)
def not_equal(x, y, name=None): return _binary("NotEqual", x, y, name)
def logical_and(x, y, name=None): return _binary("LogicalAnd", x, y, name)
def logical_or(x, y, name=None): return _binary("LogicalOr", x, y, name)
def logical_not(x, name=None): return _unary("LogicalNot", x, name)


# --- shapes ---------------------------------------------------------------------------

def _axes(axis):
    """An axis argument as ints; a tensor must have a value the graph fixes (``tf.constant(1)``)."""
    if is_runtime_shape(axis):
        value = static_value(axis)
        if value is None:
            raise TypeError(f"an axis known only at run time ({axis}) is not supported here; "
                            f"pass ints (or a tensor the graph fixes)")
        axis = value
    if isinstance(axis, np.ndarray) and axis.ndim == 0:
        return int(axis)
    return tuple(int(a) for a in axis) if isinstance(axis, (list, tuple, np.ndarray)) else axis


def transpose(a, perm=None, name=None, conjugate=False):
    """``a`` with its dims permuted (reversed by default; a negative entry counts from the
    end, as TF); ``conjugate`` conjugates complex values too (a no-op for real dtypes)."""
    a = convert_to_tensor(a)
    if perm is not None:
        perm = _axes(perm) if isinstance(perm, Tensor) or np.ndim(perm) == 1 else perm
        rank, bad = a.ndim, None
        if np.ndim(perm) != 1:
            bad = f"Shape must be rank 1 but is rank {np.ndim(perm)}"
        elif rank is not None:
            bad = next((f"perm dim {p} is out of range of input rank {rank}" for p in perm
                        if not -rank <= p < rank), None)
            perm = tuple(p % rank for p in perm)
        if bad is not None:   # TF's shape function's words
            node = get_default_graph().unique_name(name or "transpose", mark_as_used=False)
            raise ValueError(shape_inference_error(
                bad, node, "Transpose", {"T": a.dtype, "Tperm": _dtypes.int32},
                [*input_names((a,)), f"{node}/perm"], [a._shape, np.shape(perm)]))
    if conjugate and a.dtype.is_complex:
        with name_scope(name, "transpose") as scope:
            return transpose(conj(a), perm, name=scope)
    return apply(_R["Transpose"], (a,), {"perm": perm}, name=name or "transpose")


def reshape(tensor, shape, name=None):
    """``tensor`` in a new shape: ints (one -1), or an int tensor -- ``tf.shape(y)``, or a list
    mixing ints and scalar tensors (``[tf.shape(x)[0] * 2, -1]``), packed as TF packs it."""
    if is_runtime_shape(shape):
        value = static_value(shape)
        if value is not None:
            shape = [int(d) for d in np.reshape(value, -1)]
        elif isinstance(shape, Tensor) and shape.op.type == "Shape":
            return apply(_R["ReshapeLike"], (convert_to_tensor(tensor), shape.op.inputs[0]), {},
                         name=name or "Reshape")
        else:
            return _reshape_at_run_time(tensor, shape, name)
    x = convert_to_tensor(tensor)
    dims = tuple(int(d) for d in shape)
    if -1 in dims and 0 in dims:   # TF's -1 beside a requested 0: from the input's size
        if x._shape is None or None in x._shape:
            return _reshape_at_run_time(x, list(dims), name)
        dims = tf_missing_dim_of_empty(x._shape, dims)
    return apply(_R["Reshape"], (x,), {"shape": dims}, name=name)


def _reshape_at_run_time(tensor, shape, name) -> Tensor:
    """``ReshapeDynamic``: the target shape an int tensor the kernel reads when it runs."""
    with name_scope(name, "Reshape") as scope:
        x = convert_to_tensor(tensor)
        dims = shape_tensor(shape, "shape")
        out = apply(_R["ReshapeDynamic"], (x, dims), {}, name=scope[:-1] + "/")
    out.set_shape(_reshaped(x._shape, constant_value_as_shape(dims)))
    return out


def _reshaped(x_shape, target) -> tuple | None:
    """TF's static rule for a reshape to a partly known shape: the one unknown entry (a -1 or
    a run-time value) is solved when the input's size and every other entry are known."""
    if target is None:
        return None
    out = [None if d is None or d < 0 else d for d in target]
    unknown = [i for i, d in enumerate(out) if d is None]
    if len(unknown) == 1 and x_shape is not None and None not in x_shape:
        known = int(np.prod([d for d in out if d is not None]))
        size = int(np.prod(x_shape))
        if known and size % known == 0:
            out[unknown[0]] = size // known
    return tuple(out)


def broadcast_to(input, shape, name=None):  # noqa: A002
    """``input`` broadcast to ``shape`` (ints, or an int tensor / a list holding scalar tensors)."""
    if is_runtime_shape(shape):
        value = static_value(shape)
        if value is None:
            with name_scope(name, "BroadcastTo") as scope:
                x = convert_to_tensor(input)
                dims = shape_tensor(shape, "shape")
                out = apply(_R["BroadcastToDynamic"], (x, dims), {}, name=scope[:-1] + "/")
            out.set_shape(constant_value_as_shape(dims))
            return out
        shape = np.reshape(value, -1)
    return apply(_R["BroadcastTo"], (convert_to_tensor(input),),
                 {"shape": tuple(int(d) for d in shape)}, name=name)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    axis = _axes(axis if axis is not None else squeeze_dims)
    return apply(_R["Squeeze"], (convert_to_tensor(input),), {"axis": axis}, name=name)


def expand_dims(input, axis, name=None):  # noqa: A002
    return apply(_R["ExpandDims"], (convert_to_tensor(input),), {"axis": _axes(axis)}, name=name)


def concat(values, axis, name="concat"):
    """``ConcatV2`` along ``axis`` (an int, or a scalar tensor the graph fixes); one value is
    its identity (``concat/concat``), as TF's wrapper makes it, after the same axis checks."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:   # TF converts the axis to an int32 scalar: a ValueError if it is not
        axis = _concat_axis(axis, converting=True)
        if np.ndim(axis) != 0:
            raise ValueError(f"Shape {tuple(np.shape(axis))} must have rank 0")
        with name_scope(name):
            return identity(values[0], name=name)
    if not values:
        raise ValueError("List argument 'values' to 'ConcatV2' Op with length 0 shorter than "
                         "minimum length 2.")
    values = _operands("ConcatV2", *values)
    axis_tensor = tensor_of(axis) if isinstance(axis, Tensor) else None
    fixed = _concat_axis(axis, converting=False) if axis_tensor is None or \
        static_value(axis_tensor) is not None else None
    if np.ndim(fixed) != 0 or all(v.ndim == 0 for v in values):   # TF's shape function's words
        node = get_default_graph().unique_name(name or "concat", mark_as_used=False)
        reason = (f"Shape must be rank 0 but is rank {np.ndim(fixed)}" if np.ndim(fixed) != 0
                  else "Can't concatenate scalars (use tf.stack instead)")
        axis_name, axis_shape = ((input_names((axis_tensor,))[0], axis_tensor._shape)
                                 if axis_tensor is not None else (f"{node}/axis", np.shape(fixed)))
        raise ValueError(shape_inference_error(
            reason, node, "ConcatV2",
            {"N": len(values), "T": values[0].dtype, "Tidx": _dtypes.int32},
            [*input_names(values), axis_name], [*(v._shape for v in values), axis_shape]))
    if fixed is None:
        fixed = _axes(axis_tensor)   # known only at run time: refused, saying so
    return apply(_R["ConcatV2"], values, {"axis": int(fixed)}, name=name)


def _concat_axis(axis, converting: bool):
    """``concat``'s axis as a Python int (a list: refused by the caller with TF's words).
    ``converting``: TF converts it to int32 itself (one value), a float tensor is then its
    conversion ValueError; else the op's dtype check, a TypeError."""
    if tensor_of(axis) is not None or hasattr(axis, "_to_tensor"):
        dtype = axis.dtype.base_dtype
        if not dtype.is_integer:
            if converting and hasattr(axis, "_to_tensor"):
                raise ValueError(f"Incompatible type conversion requested to type int32 for "
                                 f"`tf.Variable of type {dtype.name}. (Variable: {axis!r})")
            if converting:
                raise ValueError(f"Tensor conversion requested dtype int32 for Tensor with "
                                 f"dtype {dtype.name}: {axis!r}")
            raise TypeError(f"Value passed to parameter 'axis' has DataType {dtype.name} not in "
                            f"list of allowed values: int32, int64")
        return _axes(axis)
    if isinstance(axis, float) and not axis.is_integer():
        raise TypeError(f"Expected int32, but got {axis!r} of type 'float'.")
    return list(axis) if isinstance(axis, (list, tuple, np.ndarray)) and np.ndim(axis) else int(axis)


def stack(values, axis=0, name="stack"):
    """``Pack``; TF's shortcut first: values with no tensor among them (a numpy array, a
    list of numbers) stacked on axis 0 are one ``Const``."""
    if axis == 0 and not isinstance(values, Tensor) and all(tensor_of(v) is None
                                                              for v in values):
        return convert_to_tensor(values, name=name)
    values = _operands("Pack", *values)
    first = values[0]                      # a tensor, or an array apply makes a Const of
    shape = first._shape if isinstance(first, Tensor) else np.shape(first)
    if shape is not None and not -len(shape) - 1 <= axis <= len(shape):
        rank = len(shape)
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank - 1}, {rank + 1})")
    return apply(_R["Pack"], values, {"axis": int(axis)}, name=name)


def parallel_stack(values, name="parallel_stack"):
    """``stack(values)`` as TF's ``ParallelConcat`` node, which needs every shape known when
    the graph is built (TF's rule: its output is allocated before the inputs are computed)."""
    values = _operands("Pack", *(convert_to_tensor(v) for v in values))
    with name_scope(name) as scope:
        for v in values:
            if v._shape is None or None in v._shape:
                raise ValueError(shape_inference_error(
                    "shape attr must be fully defined.", f"{scope}ParallelConcat", "ParallelConcat",
                    {"N": len(values), "T": v.dtype, "shape": ShapeAttr((len(values), *(v._shape or ())))},
                    input_names(values), [x._shape for x in values]))
        return apply(_R["Pack"], values, {"axis": 0}, name="ParallelConcat", tf_type="ParallelConcat")


def unstack(value, num=None, axis=0, name="unstack"):
    """The slices of ``value`` along ``axis`` (its size there must be known, or ``num``
    given): ONE ``Unpack`` node with an output per slice, ``unstack:0``, ``unstack:1``..."""
    value = convert_to_tensor(value)
    rank = value.ndim
    if rank is not None:
        if not -rank <= axis < rank:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
        axis = axis % rank
    n = num if num is not None else (None if rank is None else value._shape[axis])
    if n is None:
        raise ValueError(f"Cannot infer argument `num` from shape {value.shape}")
    return list(apply(_R["Unpack"], (value,), {"num": int(n), "axis": axis}, name=name or "unstack"))


def gather_index(x, key, name=None, tf_type=None):
    """``x[key]`` (ints, slices, None, ..., integer arrays/tensors): the GetItem op, shown as
    TF's ``StridedSlice`` unless ``tf_type`` says which TF op made it (``GatherV2``...)."""
    x = convert_to_tensor(x)
    key = tuple(map(_static_bounds, key)) if isinstance(key, tuple) else _static_bounds(key)
    spec, arrays = encode_index(key, is_array=lambda k: isinstance(k, (list, np.ndarray, Tensor)))
    arrays = [a if isinstance(a, Tensor) else constant(np.asarray(a), name="index") for a in arrays]
    return apply(_R["GetItem"], (x, *arrays), {"key": spec}, name=name or "strided_slice",
                 tf_type=tf_type)


def _static_bounds(k):
    """A slice whose bounds are tensors the graph fixes (``a[i:i + 1]`` with ``i`` a constant)
    as the same slice of ints; other keys as they are."""
    if not isinstance(k, slice):
        return k
    bounds = []
    for b in (k.start, k.stop, k.step):
        if isinstance(b, Tensor):
            value = static_value(b)
            if value is None or np.ndim(value) != 0:
                raise TypeError(f"slice bounds known only at run time ({b}) are not supported "
                                f"here: pass ints, or tensors whose value the graph fixes")
            b = int(value)
        bounds.append(b)
    return slice(*bounds)


# --- reductions -------------------------------------------------------------------------

def _axis(axis, reduction_indices):
    """TF1's old name for ``axis`` (``reduction_indices=``) still accepted."""
    if axis is not None and reduction_indices is not None:
        raise ValueError("Can not specify both 'axis' and 'reduction_indices'.")
    return axis if axis is not None else reduction_indices


def _reduce(op_type, input_tensor, axis, keepdims, keep_dims, name):
    x = convert_to_tensor(input_tensor)
    keep = bool(keepdims if keep_dims is None else keep_dims)
    if isinstance(axis, (list, tuple)) and np.ndim(axis) > 1:   # TF's shape function's words
        node = get_default_graph().unique_name(name or op_type, mark_as_used=False)
        raise ValueError(shape_inference_error(
            f"Shape must be at most rank 1 but is rank {np.ndim(axis)}", node, op_type,
            {"T": x.dtype, "Tidx": _dtypes.int32, "keep_dims": keep},
            [*input_names((x,)), f"{node}/reduction_indices"], [x._shape, np.shape(axis)]))
    attrs = {"axis": _axes(axis), "keepdims": keep}
    if op_type in ("Sum", "Mean") and (x.dtype.is_integer or x.dtype.is_bool) and \
            _WIDEN[op_type](np.zeros(1, x.dtype._np)).dtype != x.dtype._np:
        # TF keeps an integer tensor's dtype; numpy widens it: the cast back is the result,
        # named as TF's one op, its parts inside that op's scope
        with name_scope(name, op_type) as scope:
            return cast(apply(_R[op_type], (x,), attrs), x.dtype, name=scope)
    return apply(_R[op_type], (x,), attrs, name=name)


_WIDEN = {"Sum": np.sum, "Mean": np.mean}   # what numpy's reduction makes of a dtype


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("Sum", input_tensor, _axis(axis, reduction_indices), keepdims, keep_dims, name)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("Mean", input_tensor, _axis(axis, reduction_indices), keepdims, keep_dims, name)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("Max", input_tensor, _axis(axis, reduction_indices), keepdims, keep_dims, name)


def reduce_min(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("Min", input_tensor, _axis(axis, reduction_indices), keepdims, keep_dims, name)


# --- casts, identities, fills ----------------------------------------------------------------

def cast(x, dtype, name=None):
    dt = _dtypes.as_dtype(dtype)
    if type(x) is Tensor and x._dtype is dt:
        return x         # TF: a tensor already of ``dtype`` is returned as is (no Cast node)
    x = convert_to_tensor(x)
    return apply(_R["Cast"], (x,), {"dtype": dt._np}, name=name or "Cast")


def identity(input, name=None):  # noqa: A002
    return apply(_R["Identity"], (convert_to_tensor(input),), {}, name=name)


def stop_gradient(input, name=None):  # noqa: A002
    return apply(_R["StopGradient"], (convert_to_tensor(input),), {}, name=name)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value`` (dtype: TF's default for ``value``)."""
    if isinstance(value, Tensor):
        return _filled_dynamic(dims, value, name or "Fill", "dims")
    return _filled(dims, value, default_dtype(value), name or "Fill", "dims")


def _filled(shape, value, dtype, name, packed="packed"):
    """A Fill of a static shape; for ``tf.shape(t)`` of a partly unknown ``t``, ``value``
    broadcast like ``t``; for another run-time shape, TF's ``Fill(dims, value)``."""
    if is_runtime_shape(shape):
        static = static_value(shape)
        if static is None:
            if isinstance(shape, Tensor) and shape.op.type == "Shape":
                return apply(_R["BroadcastLike"], (constant(np.array(value, dtype)), shape.op.inputs[0]),
                             {}, name=name)
            return _filled_dynamic(shape, np.array(value, dtype), name, packed)
        shape = [int(d) for d in np.reshape(static, -1)]
    return apply(_R["Fill"], (), {"shape": as_shape_tuple(shape), "value": value, "dtype": dtype},
                 name=name)


def _filled_dynamic(shape, value, name, packed) -> Tensor:
    with name_scope(None, name) as scope:
        dims = shape_tensor(shape, packed) if is_runtime_shape(shape) else constant(
            np.asarray(as_shape_tuple(shape), np.int32), name=packed)
        value = convert_to_tensor(value, name="Const" if packed == "packed" else "value")
        out = apply(_R["FillDynamic"], (dims, value), {}, name=scope[:-1] + "/")
    out.set_shape(constant_value_as_shape(dims))
    return out


def zeros(shape, dtype=_dtypes.float32, name=None):
    return _filled(shape, 0, _dtypes.as_dtype(dtype)._np, name or "zeros")


def ones(shape, dtype=_dtypes.float32, name=None):
    return _filled(shape, 1, _dtypes.as_dtype(dtype)._np, name or "ones")


def zeros_like(tensor, dtype=None, name=None):
    return _like("ZerosLike", "zeros_like", tensor, dtype, name)


def ones_like(tensor, dtype=None, name=None):
    return _like("OnesLike", "ones_like", tensor, dtype, name)


def _like(op_type: str, default_name: str, tensor, dtype, name) -> Tensor:
    """TF names the result ``zeros_like:0``/``ones_like:0``; a cast to ``dtype`` is that result."""
    if dtype is None:
        return apply(_R[op_type], (convert_to_tensor(tensor),), {}, name=name or default_name)
    with name_scope(name, default_name) as scope:
        return cast(apply(_R[op_type], (convert_to_tensor(tensor),), {}), dtype, name=scope)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot along a new axis ``axis`` (default last); ``on_value``/``off_value`` (default 1
    and 0) fill it. The dtype is ``dtype``, else that of the on/off values, else float32 (TF)."""
    given = on_value if on_value is not None else off_value
    if dtype is not None:
        dt = _dtypes.as_dtype(dtype)
    elif given is not None:
        t = tensor_of(given)
        dt = t.dtype if t is not None else _dtypes.as_dtype(default_dtype(given))
    else:
        dt = _dtypes.float32
    t = tensor_of(indices)        # a Python/numpy value is converted inside the op's scope
    rank = t.ndim if t is not None else np.ndim(indices)
    moved = axis not in (None, -1) and rank is not None and axis != rank
    if rank is None and axis not in (None, -1):
        raise ValueError("one_hot with an axis other than -1 needs indices of known rank")
    if axis is not None and rank is not None and not -1 <= axis <= rank:
        raise ValueError(f"Expected axis to be -1 or between [0, {rank + 1}).  But received: {axis}")
    plain = on_value is None and off_value is None
    if plain and not moved:
        return apply(_R["OneHot"], (indices,), {"depth": int(depth), "dtype": dt._np},
                     name=name or "one_hot")
    with name_scope(name, "one_hot") as scope:   # TF's one op: our parts live in its scope
        indices = convert_to_tensor(indices)
        out = apply(_R["OneHot"], (indices,), {"depth": int(depth),
                                               "dtype": dt._np if plain else np.bool_},
                    name=None if moved or plain else "OneHot")
        if not plain:
            on = convert_to_tensor(1 if on_value is None else on_value, dtype=dt)
            off = convert_to_tensor(0 if off_value is None else off_value, dtype=dt)
            out = where(out, on, off, name=None if moved else scope)
        if moved:
            perm = np.arange(rank).tolist()
            perm.insert(axis, rank)
            out = transpose(out, perm, name=scope)
        return out

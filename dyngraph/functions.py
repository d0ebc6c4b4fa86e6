"""The ``torch.*`` functions (and, attached to Tensor, its methods) over registry ops.

Each function maps PyTorch's call form onto one registry op and ``apply``:
argument names (``dim``, ``keepdim``), the ``grad_fn`` name PyTorch gives that
call form (``x.sum()`` -> ``SumBackward0``, ``x.sum(0)`` -> ``SumBackward1``),
and PyTorch's errors where numpy would say something else or nothing.  No
function computes anything itself.  Registry ops without a PyTorch spelling
here are still exported under their registry name (``sum_like``, ...).
"""
from __future__ import annotations

import builtins
from collections import namedtuple

import numpy as np

from common import REGISTRY, Namespace
from common.indexing import ARRAY, Slice, encode_index

from .creation import as_tensor
from .device import check_device, device as _device
from .dtypes import np_dtype_of
from .engine import apply, binary, node_class_for, plain_view
from .errors import broadcast_message, c_type_name
from .memory_format import check_memory_format
from .node import node_class, torch_node
from .grad_mode import STATE, no_grad
from .tensor import Tensor, check_inplace, make, rebase

__all__ = ["OPS", "broadcast_tensors", "add", "sub", "rsub", "mul", "div", "true_divide", "divide", "multiply",
           "subtract", "pow", "neg", "negative", "exp", "log", "sqrt", "tanh", "sigmoid", "relu",
           "abs", "sign", "maximum", "minimum", "clamp", "clip", "softmax",
           "log_softmax", "lt", "le", "gt", "ge", "eq", "ne", "less", "greater", "logical_and",
           "logical_or", "logical_not", "mm", "matmul", "sum", "mean", "max", "min", "argmax",
           "argmin", "reshape", "view", "flatten", "unsqueeze", "squeeze", "t", "transpose",
           "permute", "expand", "broadcast_to", "cat", "concat", "stack", "clone", "getitem",
           "fill"]

OPS = Namespace(apply)
"""``F`` of the registry bound to this engine: every op, plus what composites need."""

_R = REGISTRY


class _ValuesIndices(namedtuple("_ValuesIndices", ["values", "indices"])):
    """``torch.return_types.max(values=..., indices=...)``."""

    __slots__ = ()
    fname = ""

    def __repr__(self) -> str:
        return (f"torch.return_types.{self.fname}(\nvalues={self.values!r},\n"
                f"indices={self.indices!r})")


_RETURN_TYPES = {name: type(name, (_ValuesIndices,), {"__slots__": (), "fname": name})
                 for name in ("max", "min")}


def _t(x):
    """Python (and numpy) numbers stay weak scalars; lists and arrays become tensors."""
    if isinstance(x, (Tensor, builtins.int, builtins.float, builtins.bool)):
        return x
    if isinstance(x, np.generic):
        return x.item()
    return as_tensor(x)


def _axis(dim):
    return tuple(dim) if isinstance(dim, list) else dim


def _shape_args(shape) -> tuple:
    """``f(2, 3)`` and ``f((2, 3))`` both mean shape (2, 3)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(builtins.int(s) for s in shape)


# --- arithmetic -----------------------------------------------------------------------


def add(input, other, *, alpha=1):
    other = other if alpha == 1 else mul(other, alpha)
    return binary(_R["Add"], input, other) if isinstance(input, Tensor) \
        else apply(_R["Add"], (_t(input), _t(other)))


def sub(input, other, *, alpha=1):
    other = other if alpha == 1 else mul(other, alpha)
    return binary(_R["Sub"], input, other) if isinstance(input, Tensor) \
        else apply(_R["Sub"], (_t(input), _t(other)))


_RSUB = node_class_for(_R["Sub"], "rsub")


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (``1 - x``), named RsubBackward1 as in PyTorch."""
    input = _t(input) if alpha == 1 else mul(input, alpha)
    return apply(_R["Sub"], (_t(other), input), cls=_RSUB)


def mul(input, other):
    return binary(_R["Mul"], input, other) if isinstance(input, Tensor) \
        else apply(_R["Mul"], (_t(input), _t(other)))


def _integer_zero_division(input, other) -> None:
    """Integer division by zero raises (as PyTorch); numpy would return 0 with a warning."""
    a, b = getattr(input, "_data", input), getattr(other, "_data", other)
    if np.asarray(a).dtype.kind in "iub" and np.asarray(b).dtype.kind in "iub" \
            and not np.all(b):
        raise RuntimeError("ZeroDivisionError")


def div(input, other, *, rounding_mode=None):
    """``input / other``; ``rounding_mode="trunc"`` rounds the quotient toward zero,
    ``"floor"`` down (Python's ``//``, the FloorDiv op); integers stay integers. A rounded
    quotient's gradient is 0 to both operands, as torch's."""
    a, b = _t(input), _t(other)
    if rounding_mode is None:
        return apply(_R["RealDiv"], (a, b))
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    _integer_zero_division(a, b)
    x, y = (np.asarray(getattr(v, "_data", v)) for v in (a, b))
    if x.dtype.kind in "iub" and y.dtype.kind in "iub":
        if rounding_mode == "floor":
            return apply(_R["FloorDiv"], (a, b))
        q = np.abs(x) // np.abs(y) * (np.sign(x) * np.sign(y))
        dtype = np.result_type(*(v._data if isinstance(v, Tensor) else v for v in (a, b)))
        return as_tensor(q.astype(dtype, copy=False))
    op = _R["FloorDiv"] if rounding_mode == "floor" else _R["Trunc"]
    with no_grad():
        q = apply(op, (a, b)) if rounding_mode == "floor" else apply(op, (apply(_R["RealDiv"], (a, b)),))
    return zero_gradient(q, a, b)


def zero_gradient(value: Tensor, *inputs: Tensor, cls=None) -> Tensor:
    """``value`` (computed from ``inputs`` without a graph) as a result whose gradient to each
    input is exactly 0, as torch's ``div(rounding_mode=)`` and ``fill``: ``where(True, value,
    a + b)`` -- the untaken branch carries the zeros, and never a NaN (``0 / b`` would)."""
    if not STATE.enabled or not builtins.any(getattr(x, "_rg", False) for x in inputs):
        return value
    total = inputs[0]
    for x in inputs[1:]:
        total = apply(_R["Add"], (total, x))
    shape = np.broadcast_shapes(value._data.shape, total._data.shape)
    everywhere = make(np.ones(shape, np.bool_))
    return apply(_R["Select"], (everywhere, value, total), cls=cls)


true_divide = divide = div
multiply, subtract = mul, sub


_POW = _R["Pow"]
_POW_NODES = (node_class_for(_POW, "base"), node_class_for(_POW, "tensor"))


#: PyTorch's conventions at the kinks, as attributes of the registry ops (their defaults are
#: TF's, which staticgraph keeps): see each op's rule.
TORCH_POW = {"masked_at_zero": True}
TORCH_SIGN = {"nan_sign_zero": True}
TORCH_RELU = {"nan_passes": True}
_NONE: dict = {}


def _for_gradient(attrs: dict, *inputs) -> dict:
    """``attrs`` that choose only a gradient's convention, when some input will record one:
    a call without gradients keeps the op's plain call (passing them costs ~0.5 us of a 3 us
    ``abs``). A traced graph of such a call holds TF's default, as staticgraph's own."""
    for x in inputs:
        if isinstance(x, Tensor) and x._rg:
            return attrs
    return _NONE


def pow(input, exponent):
    """PyTorch names ``x ** 2``, ``x ** y`` and ``2 ** x`` apart (the Pow op declares how);
    the gradients at ``0 ** 0`` are PyTorch's (``masked_at_zero``)."""
    if isinstance(exponent, Tensor):
        cls, grads = _POW_NODES[isinstance(input, Tensor)], exponent._rg or getattr(input, "_rg", False)
    else:   # x ** 2: the common case, _for_gradient inline
        cls, grads = None, isinstance(input, Tensor) and input._rg
    return apply(_POW, (_t(input), _t(exponent)), TORCH_POW if grads else _NONE, cls=cls)


def _unary(name: str, grad_attrs: dict = _NONE):
    """``name`` of one tensor; ``grad_attrs``: attributes choosing its gradient's convention."""
    op = REGISTRY[name]

    def f(input):
        return apply(op, (input,))

    def with_grad_attrs(input):   # _for_gradient, inline: this is every relu's path
        return apply(op, (input,), grad_attrs if isinstance(input, Tensor) and input._rg else _NONE)
    f = with_grad_attrs if grad_attrs else f
    f.__name__ = op.fname
    f.__doc__ = f"Elementwise {op.fname} (registry op {name})."
    return f


neg, exp, log, sqrt, tanh, sigmoid = map(_unary, ["Neg", "Exp", "Log", "Sqrt", "Tanh", "Sigmoid"])
relu = _unary("Relu", TORCH_RELU)   # a NaN input passes its gradient
abs = _unary("Abs", TORCH_SIGN)     # gradient 0 at NaN


def sign(input):
    """-1, 0 or 1; 0 at NaN, as torch (numpy's and TF's sign keep the NaN)."""
    return apply(_R["Sign"], (input,), TORCH_SIGN)
negative = neg


def maximum(input, other):
    return apply(_R["Maximum"], (_t(input), _t(other)))


def minimum(input, other):
    return apply(_R["Minimum"], (_t(input), _t(other)))


def clamp(input, min=None, max=None):
    """``input`` limited to ``[min, max]``.

    Tensor bounds follow torch's ``clamp.Tensor``: ``where(x < min, min, x)``, then
    ``where(. > max, max, .)``. So the input's gradient flows where it is kept, a bound's
    where it is taken (not split at ties as ``maximum``'s is), and ``Select``'s rule sums
    each gradient back over the dims it was broadcast along.
    """
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = apply(_R["Select"], (lt(out, min), _t(min), out))
        if max is not None:
            out = apply(_R["Select"], (gt(out, max), _t(max), out))
        return out
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return apply(_R["ClipByValue"], (input,), {"lo": min, "hi": max})


clip = clamp


def softmax(input, dim, dtype=None):
    """Softmax along ``dim``; ``dtype`` casts the input first (as torch)."""
    x = input if dtype is None else to(input, dtype)
    return apply(_R["Softmax"], (x,), {"axis": dim})


def log_softmax(input, dim, dtype=None):
    x = input if dtype is None else to(input, dtype)
    return apply(_R["LogSoftmax"], (x,), {"axis": dim})


def _compare(name: str):
    op = REGISTRY[name]

    def f(input, other):
        return binary(op, input, other) if isinstance(input, Tensor) else apply(op, (_t(input), _t(other)))
    f.__name__ = op.fname
    return f


lt, le, gt, ge, eq, ne = map(_compare, ["Less", "LessEqual", "Greater", "GreaterEqual", "Equal",
                                        "NotEqual"])
less, greater = lt, gt
logical_and, logical_or = _compare("LogicalAnd"), _compare("LogicalOr")
logical_not = _unary("LogicalNot")

# --- matrix products -------------------------------------------------------------------


def _same_dtype(a, b) -> None:
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{c_type_name(a._data.dtype)} != {c_type_name(b._data.dtype)}")


_MATMUL = _R["MatMul"]
_BATCHED = node_class_for(_MATMUL, "batched")


def mm(input, mat2):
    """2-D matrix product (MmBackward0)."""
    if isinstance(input, Tensor) and isinstance(mat2, Tensor):
        a, b = input._data, mat2._data
        if a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype:
            return binary(_MATMUL, input, mat2)   # the usual case: the operators' short path
    for x in (input, mat2):
        if x.dim() != 2:
            raise RuntimeError(f"{'self' if x is input else 'mat2'} must be a matrix")
    _same_dtype(input, mat2)
    return apply(_MATMUL, (input, mat2))


@torch_node(mv="MvBackward0", dot="DotBackward0", vm="SqueezeBackward4")
def matmul(input, other):
    """numpy/PyTorch matmul: 1-D operands become matrices for the product, then lose that dim."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        a, b = input._data, other._data
        if a.ndim >= 2 and b.ndim >= 2 and a.dtype == b.dtype:   # the operators' short path
            return binary(_MATMUL, input, other, _BATCHED if a.ndim > 2 else None)
    input, other = _t(input), _t(other)
    _same_dtype(input, other)
    a1, b1 = input.dim() == 1, other.dim() == 1
    if not (a1 or b1):
        return apply(_MATMUL, (input, other))
    a = unsqueeze(input, 0) if a1 else input
    b = unsqueeze(other, -1) if b1 else other
    out = apply(_R["MatMul"], (a, b))
    form = "dot" if a1 and b1 else ("mv" if b1 else "vm")
    axis = (-2, -1) if a1 and b1 else (-1 if b1 else -2)
    return apply(_R["Squeeze"], (out,), {"axis": axis}, cls=matmul.nodes[form])


# --- reductions ----------------------------------------------------------------------------


_SUM, _MEAN = _R["Sum"], _R["Mean"]
_SUM_NAMES = (node_class_for(_SUM), node_class_for(_SUM, "dim"))
_MEAN_NAMES = (node_class_for(_MEAN), node_class_for(_MEAN, "dim"))


def reduced_dims(input, dim):
    """``dim`` as the registry's ``axis``: a tuple for a list; for a 0-d tensor (whose only
    valid dims are 0 and -1, as torch) ``None``, after torch's range and repeat checks."""
    if dim is None or input._data.ndim:
        return _axis(dim)
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    seen = set()
    for d in dims:
        d = wrap_dim(d, 0)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return None


def sum(input, dim=None, keepdim=False, *, dtype=None):
    if dim is None and keepdim is False and dtype is None:   # a loss: x.sum()
        return apply(_SUM, (input,), _ALL, cls=_SUM_ALL)
    x = input if dtype is None else to(input, dtype)
    return apply(_SUM, (x,), {"axis": reduced_dims(x, dim), "keepdims": keepdim},
                 cls=_SUM_NAMES[dim is not None])


_ALL: dict = {"axis": None, "keepdims": False}
"""``sum()``'s attributes over all elements: what ``reduced_dims(x, None)`` gives for any
``x``; one dict shared by every such node, as ``binary``'s empty one (nothing writes a node's
attributes), so a loss's ``x.sum()`` builds no dict and makes no two calls (~0.2 us)."""
_SUM_ALL = node_class_for(_SUM)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    x = input if dtype is None else to(input, dtype)
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {x.dtype.scalar_name}")
    return apply(_MEAN, (x,), {"axis": reduced_dims(x, dim), "keepdims": keepdim},
                 cls=_MEAN_NAMES[dim is not None])


def _extreme(name: str, arg: str):
    op, argop = REGISTRY[name], REGISTRY[arg]
    by_dim = node_class_for(op, "dim")

    def f(input, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return (maximum if name == "Max" else minimum)(input, dim)
        if dim is None:
            return apply(op, (input,))
        attrs = {"axis": dim, "keepdims": keepdim}
        values = apply(op, (input,), attrs, cls=by_dim)
        return _RETURN_TYPES[op.fname](values, apply(argop, (input,), attrs))
    f.__name__ = op.fname
    f.__doc__ = (f"{op.fname} of all elements, or ``(values, indices)`` along ``dim``; "
                 f"with a tensor second argument, the elementwise {op.fname}imum.")
    return f


max, min = _extreme("Max", "ArgMax"), _extreme("Min", "ArgMin")


def argmax(input, dim=None, keepdim=False):
    return apply(_R["ArgMax"], (input,), {"axis": dim, "keepdims": keepdim})


def argmin(input, dim=None, keepdim=False):
    return apply(_R["ArgMin"], (input,), {"axis": dim, "keepdims": keepdim})


# --- shapes -------------------------------------------------------------------------------


def reshape(input, *shape):
    shape = _shape_args(shape)
    size = input._data.size
    known = builtins.int(np.prod([d for d in shape if d != -1]))
    if shape.count(-1) > 1 or (known != size if -1 not in shape else (known == 0 or size % known)):
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return apply(_R["Reshape"], (input,), {"shape": shape})


view = reshape


def view_as(input, other):
    return reshape(input, other._data.shape)


def flatten(input, start_dim=0, end_dim=-1):
    shape = input._data.shape
    if not shape:
        return reshape(input, 1)
    end = end_dim % len(shape)
    return reshape(input, shape[:start_dim] + (-1,) + shape[end + 1:])


def wrap_dim(dim: int, rank: int) -> int:
    """``dim`` as a non-negative index, or PyTorch's IndexError when it is out of range."""
    n = builtins.max(rank, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def unsqueeze(input, dim):
    wrap_dim(dim, input.dim() + 1)
    return apply(_R["ExpandDims"], (input,), {"axis": dim})


_SQUEEZE_DIM = node_class_for(_R["Squeeze"], "dim")


def squeeze(input, dim=None):
    if isinstance(dim, (tuple, list)):   # the dims of size 1 among ``dim``; the others stay
        rank = input.dim()
        dims = [wrap_dim(d, rank) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {next(d for d in dims if dims.count(d) > 1)} appears "
                               f"multiple times in the list of dims")
        shape = input._data.shape
        keep = tuple(n for i, n in enumerate(shape) if not (i in dims and n == 1))
        return apply(_R["Reshape"], (input,), {"shape": keep}, cls=_SQUEEZE_DIM)
    if dim is not None:
        wrap_dim(dim, input.dim())
    if dim is not None and input._data.shape and input._data.shape[dim] != 1:
        return input.view(input._data.shape)  # PyTorch: squeezing a non-1 dim is a no-op
    return apply(_R["Squeeze"], (input,), {"axis": dim}, cls=None if dim is None else _SQUEEZE_DIM)


_TRANSPOSE = _R["Transpose"]
_T_NAME, _TRANSPOSE_NAME = node_class_for(_TRANSPOSE, "t"), node_class_for(_TRANSPOSE, "transpose")


def t(input):
    d = input._data
    if d.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {d.ndim}D")
    if not input._rg and d.size:
        out = plain_view(input, d.T)   # (Transpose's impl without perm: the same view)
        if out is not None:
            return out
    return apply(_TRANSPOSE, (input,), {"perm": None}, cls=_T_NAME)


def transpose(input, dim0, dim1):
    dim0, dim1 = wrap_dim(dim0, input.dim()), wrap_dim(dim1, input.dim())
    if input.dim() == 0:
        return apply(_R["Transpose"], (input,), {"perm": ()}, cls=_TRANSPOSE_NAME)
    perm = list(range(input.dim()))
    perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
    return apply(_R["Transpose"], (input,), {"perm": tuple(perm)}, cls=_TRANSPOSE_NAME)


def permute(input, *dims):
    dims = _shape_args(dims)
    if len(dims) != input.dim():
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.dim()} is not equal to len(dims) = {len(dims)}")
    return apply(_R["Transpose"], (input,), {"perm": tuple(wrap_dim(d, len(dims)) for d in dims)})


def permute_all(input):
    """``x.T``: all dims reversed (PermuteBackward0)."""
    return permute(input, tuple(reversed(range(input.dim()))))


def expand(input, *sizes):
    sizes = _shape_args(sizes)
    lead = len(sizes) - input.dim()
    if lead < 0:
        raise RuntimeError(f"expand(torch.{input.dtype.legacy}{{{list(input._data.shape)}}}, "
                           f"size={list(sizes)}): the number of sizes provided ({len(sizes)}) must "
                           f"be greater or equal to the number of dimensions in the tensor "
                           f"({input.dim()})")
    shape = tuple(input._data.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    for i, have in enumerate(input._data.shape):
        if have != 1 and have != shape[i + lead]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[i + lead]}) must match the "
                               f"existing size ({have}) at non-singleton dimension {i + lead}.  "
                               f"Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(input._data.shape)}")
    return apply(_R["BroadcastTo"], (input,), {"shape": shape})


def broadcast_to(input, shape):
    return expand(input, shape)


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape (views in torch; ``BroadcastTo`` here)."""
    tensors = [_t(x) for x in tensors]
    shapes = [tuple(x.shape) for x in tensors]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise RuntimeError(broadcast_message([list(s) for s in shapes])) from None
    return tuple(expand(x, shape) for x in tensors)


def cat(tensors, dim=0):
    tensors = [_t(x) for x in tensors]
    if len(tensors) > 1 and builtins.any(x._data.shape == (0,) for x in tensors):
        # torch's legacy rule: a 1-d empty tensor joins anything (it is skipped)
        rest = [x for x in tensors if x._data.shape != (0,)]
        if rest:
            dim = wrap_dim(dim, rest[0].dim())
            tensors = rest
    try:
        return apply(_R["ConcatV2"], tuple(tensors), {"axis": dim})
    except RuntimeError:
        for i, x in enumerate(tensors[1:], 1):
            for d, (p, q) in enumerate(zip(tensors[0]._data.shape, x._data.shape)):
                if d != dim % tensors[0].dim() and p != q:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. "
                                       f"Expected size {p} but got size {q} for tensor number {i} "
                                       f"in the list.") from None
        raise


concat = cat


def stack(tensors, dim=0):
    tensors = [_t(x) for x in tensors]
    for i, x in enumerate(tensors[1:], 1):
        if x._data.shape != tensors[0]._data.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0]._data.shape)} at entry 0 and "
                               f"{list(x._data.shape)} at entry {i}")
    return apply(_R["Pack"], tuple(tensors), {"axis": dim})


# --- dtype conversions and copies ------------------------------------------------------------


def to(input, *args, dtype=None, device=None, non_blocking: bool = False, copy: bool = False,
       memory_format=None):
    """``x.to(torch.float64)``, ``x.to("cpu")``, ``x.to(other)``, ``x.to(device, dtype)``.

    The CPU is the only device: naming it is a no-op, naming a GPU raises
    PyTorch's CPU-build error.  Returns ``input`` itself when nothing changes.
    ``memory_format`` is checked, and memory stays row-major (see dyngraph.memory_format).
    """
    check_memory_format(memory_format, input.dim(), "to")
    flags = [a for a in args if isinstance(a, bool)]  # x.to(device, dtype, non_blocking, copy)
    if len(flags) > 1:
        copy = flags[1]
    for a in (a for a in args if not isinstance(a, bool)):
        if isinstance(a, Tensor):
            dtype = a._data.dtype
        elif isinstance(a, (str, _device)):
            device = a
        elif a is not None:
            dtype = a
    check_device(device)
    target = np_dtype_of(dtype)
    if target is None or target == input._data.dtype:
        return clone(input) if copy else input
    return apply(_R["Cast"], (input,), {"dtype": target})


def _caster(name: str, np_type):
    """``x.float()``, ``x.long()``...: Tensor methods (``torch.float`` itself is a dtype)."""
    def f(input, memory_format=None):
        check_memory_format(memory_format, input.dim(), name)
        return to(input, np.dtype(np_type))
    f.__name__ = name
    return f


CASTS = {name: _caster(name, np_type) for name, np_type in [
    ("float", np.float32), ("double", np.float64), ("half", np.float16), ("long", np.int64),
    ("int", np.int32), ("bool", np.bool_), ("short", np.int16), ("char", np.int8),
    ("byte", np.uint8)]}


def type_as(input, other):
    return to(input, other._data.dtype)


_CLONE = node_class_for(_R["Identity"], "clone")


def clone(input, *, memory_format=None):
    check_memory_format(memory_format, input.dim(), "clone")
    out = apply(_R["Identity"], (input,), cls=_CLONE)
    out._data, out._vc = np.array(out._data, order="C"), [0]  # its own memory, so its own version counter
    return out


# --- indexing ----------------------------------------------------------------------------------


_GETITEM = _R["GetItem"]
_INDEX_NODES = {form: node_class_for(_GETITEM, form) for form in
                (None, "select", "slice", "unsqueeze", "alias")}


def _index_form(spec) -> str | None:
    """PyTorch names the node after the last indexing step: Index (the op's usual name,
    None here), Select, Slice or Unsqueeze; a full ``:`` inside a tuple is no step
    (``x[:, :]``, ``x[...]`` are Aliases), though a bare ``x[:]`` is a Slice (see getitem)."""
    if ARRAY in spec:
        return None
    for k in reversed(spec):
        if isinstance(k, Slice):
            if k != (None, None, None):
                return "slice"
        if k is None:
            return "unsqueeze"
        if k is not Ellipsis:
            return "select"
    return "alias"


def _is_array(k) -> bool:
    return isinstance(k, (list, np.ndarray, Tensor))


_SELECT_NAME = _INDEX_NODES["select"]


def getitem(input, key):
    if type(key) is int:  # x[i], a loop's step: the general path below gives exactly this
        d = input._data
        if not input._rg and d.ndim > 1 and d.size and -d.shape[0] <= key < d.shape[0]:
            t = plain_view(input, d[key])    # (a view: a row of a matrix or more)
            if t is not None:
                return t
        return apply(_GETITEM, (input,), {"key": (key,)}, cls=_SELECT_NAME)
    if isinstance(key, range) or isinstance(key, tuple) and any(isinstance(k, range) for k in key):
        key = tuple(np.arange(k.start, k.stop, k.step) if isinstance(k, range) else k
                    for k in (key if isinstance(key, tuple) else (key,)))  # x[range(n), labels]
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, slice) and k.step is not None and k.step <= 0:
            raise ValueError("step must be greater than zero")
    spec, arrays = encode_index(key, is_array=_is_array)
    arrays = tuple(a if isinstance(a, Tensor) else np.asarray(a) for a in arrays)
    form = "slice" if type(key) is slice else _index_form(spec)
    return apply(_GETITEM, (input, *arrays), {"key": spec}, cls=_INDEX_NODES[form])


# --- in-place methods --------------------------------------------------------------------------


def add_(input, other, *, alpha=1):
    return input.__iadd__(other if alpha == 1 else mul(other, alpha))


def sub_(input, other, *, alpha=1):
    return input.__isub__(other if alpha == 1 else mul(other, alpha))


def mul_(input, other):
    return input.__imul__(other)


def div_(input, other):
    return input.__itruediv__(other)


def _fill(input, value, cls):
    """Every element set to ``value``, in place. A tensor inside a recorded graph keeps
    requiring grad, and the history it overwrites gets gradient 0 (torch's FillBackward0):
    the new value is ``where(True, value, old)``, so no old value leaks into it."""
    check_inplace(input)
    if isinstance(value, Tensor) and value.dim():
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")
    if input._rg and STATE.enabled:
        old = make(input._data.copy(), True, input.grad_fn)
        new = make(np.asarray(value, input._data.dtype))
        return rebase(input, zero_gradient(new, old, cls=cls))
    input._data[...] = value
    input._vc[0] += 1
    return input


@torch_node("FillBackward0")
def fill_(input, value):
    return _fill(input, value, fill_.node)


def fill(input, value):
    """A new tensor shaped like ``input``, every element ``value`` (gradient 0 to ``input``)."""
    return _fill(clone(input), value, fill_.node)


@torch_node("ZeroBackward0")
def zero_(input):
    return _fill(input, 0, zero_.node)


def copy_(input, src):
    """Copy ``src``'s values into ``input`` (broadcasting, casting); recorded like an expand."""
    check_inplace(input)
    return rebase(input, expand(_t(src), input._data.shape) if input._data.shape != np.shape(
        getattr(src, "_data", src)) else apply(_R["Identity"], (_t(src),)))


def _registry_function(op):
    def f(*inputs, **attrs):
        return apply(op, inputs, attrs)
    f.__name__, f.__doc__ = op.fname, op.doc
    return f


# Every registry op is a dyngraph function, under its registry name unless PyTorch's is above.
_TORCH_NAMED = {op.fname for op in REGISTRY.values() if op.fname in globals()}
for _op in REGISTRY.values():
    globals().setdefault(_op.fname, _registry_function(_op))
__all__ += [op.fname for op in REGISTRY.values() if op.fname not in _TORCH_NAMED]

METHODS = ["add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "tanh", "sigmoid",
           "relu", "abs", "sign", "maximum", "minimum", "clamp", "clip", "softmax", "log_softmax",
           "lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_not",
           "mm", "matmul", "sum", "mean", "max", "min", "argmax", "argmin", "reshape", "view",
           "view_as", "flatten", "unsqueeze", "squeeze", "t", "transpose", "permute", "expand",
           "to", "type_as", "clone",
           "add_", "sub_", "mul_", "div_", "fill_", "zero_", "copy_"]

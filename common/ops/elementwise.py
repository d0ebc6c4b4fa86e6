"""Elementwise ops: broadcasting arithmetic, unary math, comparisons, logic.

Every gradient rule reads like the math (``d(a*b)/da = g*b``); ``ub`` sums a
gradient back over the dims that broadcasting added (see ``shapes.unbroadcast``).
"""
from __future__ import annotations

import math

import numpy as np

from ..blocked import blockable, by_blocks
from ..examples import Example as E, pos
from ..registry import Algebra, Spec, defop
from ..errors import DTypeError, ShapeError
from ..fastpath import jit_module_if_loaded
from ..shapes import (broadcast_shapes, dtype_kind, is_float, conjugate as cj, fmt_shape, is_compatible, merge,
                      real_dtype, require_kind, result_dtype, unbroadcast as ub)

BOOL = np.dtype(bool)

# --- shape/dtype rules --------------------------------------------------------


def binary(a: Spec, b: Spec) -> Spec:
    """Broadcast shapes, promote dtypes (numpy rules)."""
    return Spec(broadcast_shapes(a.shape, b.shape), result_dtype(a.dtype, b.dtype))


def true_divide(a: Spec, b: Spec) -> Spec:
    dtype = result_dtype(a.dtype, b.dtype)
    if dtype_kind(dtype) not in "fc":
        dtype = np.dtype(np.float64)
    return Spec(broadcast_shapes(a.shape, b.shape), dtype)


def same(x: Spec, **_) -> Spec:
    return x


def numbers(what: str, rule):
    """``rule`` for an op numpy refuses on bools (``-`` of a bool, ``np.sign`` of one): the
    shape rule refuses them too, so a graph fails where it is built, not where it runs."""
    def infer(*specs: Spec, **attrs) -> Spec:
        require_kind(what, "fiuc", *specs)
        return rule(*specs, **attrs)
    return infer


def with_scalars(*scalar_attrs):
    """Shape of ``x``; dtype promoted with Python-number attributes (weak, as numpy 2)."""
    def infer(x: Spec, **attrs) -> Spec:
        scalars = [attrs[a] for a in scalar_attrs if attrs.get(a) is not None]
        return Spec(x.shape, np.result_type(x.dtype, *scalars))
    return infer


def power(a: Spec, b: Spec, **_) -> Spec:
    """numpy computes ``**``, ``//`` and ``%`` of bools in int8."""
    out = binary(a, b)
    return Spec(out.shape, np.dtype(np.int8)) if out.dtype == BOOL else out


def floating(x: Spec, **_) -> Spec:
    """exp/log/tanh...: ints and bools become floats, as numpy does; a float stays itself
    (numpy would promote bfloat16 with float16 to float32)."""
    return Spec(x.shape, x.dtype if is_float(x.dtype) else result_dtype(x.dtype, np.float16))


def compare(a: Spec, b: Spec) -> Spec:
    result_dtype(a.dtype, b.dtype)
    return Spec(broadcast_shapes(a.shape, b.shape), BOOL)


def logical_unary(x: Spec) -> Spec:
    return Spec(x.shape, BOOL)


def select(cond: Spec, a: Spec, b: Spec) -> Spec:
    return Spec(broadcast_shapes(cond.shape, a.shape, b.shape), result_dtype(a.dtype, b.dtype))


# --- examples -------------------------------------------------------------------

BINARY = (E(((3,), (3,))), E(((2, 3), (3,))), E(((2, 1), (1, 4))), E(((), (2, 2))), E(((2, 3), ())))
UNARY = (E(((),)), E(((4,),)), E(((2, 3),)))
POSITIVE = (E((pos(()),)), E((pos((4,)),)), E((pos((2, 3)),)))

# --- arithmetic ----------------------------------------------------------------

defop("Add", np.add, binary, inputs=("a", "b"), fname="add", examples=BINARY,
      algebra=Algebra(neutral=(-0.0, -0.0)),
      grads=(lambda F, g, a_shape: ub(F, g, a_shape),
             lambda F, g, b_shape: ub(F, g, b_shape)), tf_type="AddV2")


def _add_n(*xs):
    """The sum of same-shaped arrays: one new array, the rest added into it in place."""
    if len(xs) == 1:
        return np.array(xs[0])
    out = np.add(xs[0], xs[1])
    if out.ndim:
        for x in xs[2:]:
            np.add(out, x, out=out)
    else:            # a numpy scalar: nothing to write into
        for x in xs[2:]:
            out = np.add(out, x)
    return out


def _add_n_scalar(xs: tuple) -> str:
    """One element of :func:`_add_n`: the terms added left to right, ``((a + b) + c)``."""
    text = xs[0]
    for x in xs[1:]:
        text = f"({text} + {x})"
    return text


def _add_n_infer(*xs: Spec) -> Spec:
    """TF's rule: one shape (no broadcasting) and one dtype for every input."""
    shape = xs[0].shape
    for x in xs[1:]:
        if x.shape == shape:   # the common case: nothing to check or merge
            continue
        if not is_compatible(shape, x.shape):
            a, b = shape, x.shape
            if len(a) != len(b):
                raise ShapeError(f"Shapes must be equal rank, but are {len(a)} and {len(b)}")
            i = next(i for i, (m, n) in enumerate(zip(a, b)) if None not in (m, n) and m != n)
            raise ShapeError(f"Dimension {i} in both shapes must be equal, but are {a[i]} and {b[i]}. "
                             f"Shapes are {fmt_shape(a)} and {fmt_shape(b)}.")
        shape = merge(shape, x.shape)
    dtype = xs[0].dtype
    if any(x.dtype is not dtype and x.dtype != dtype for x in xs[1:]):
        raise DTypeError(f"AddN's inputs must share one dtype, not {[str(x.dtype) for x in xs]}")
    return Spec(shape, dtype)


# One node for a sum of many terms (a tensor's gradients, gathered from its several uses),
# where a chain of ``Add`` would make one node per term.
defop("AddN", _add_n, _add_n_infer, inputs=("*xs",), fname="add_n", torch_name="AddBackward0",
      examples=(E(((3,), (3,), (3,))), E(((2, 3), (2, 3))), E(((), (), (), ()))),
      grads=(lambda F, g: g,), scalar=lambda *xs: _add_n_scalar(xs))


defop("Sub", np.subtract, numbers("subtraction", binary), inputs=("a", "b"), fname="sub", examples=BINARY,
      torch_names={"rsub": "RsubBackward1"},
      algebra=Algebra(neutral=(None, 0.0)),
      grads=(lambda F, g, a_shape: ub(F, g, a_shape),
             lambda F, g, b_shape: ub(F, F.neg(g), b_shape)))

defop("Mul", np.multiply, binary, inputs=("a", "b"), fname="mul", examples=BINARY,
      torch_names={"diag_embed": "DiagEmbedBackward0"},
      algebra=Algebra(neutral=(1, 1)),
      grads=(lambda F, g, b, a_shape: ub(F, F.mul(g, cj(F, b)), a_shape),
             lambda F, g, a, b_shape: ub(F, F.mul(g, cj(F, a)), b_shape)))

defop("RealDiv", np.true_divide, true_divide, inputs=("a", "b"), fname="div",
      algebra=Algebra(neutral=(None, 1)),
      torch_name="DivBackward0",
      torch_names={"reciprocal": "ReciprocalBackward0", "scalar": "DivBackward1"},
      examples=(E(((3,), pos((3,)))), E(((2, 3), pos((3,)))), E(((2, 1), pos((1, 4))))),
      grads=(lambda F, g, b, a_shape: ub(F, F.div(g, cj(F, b)), a_shape),
             lambda F, g, b, out, b_shape: ub(F, F.neg(F.div(F.mul(g, cj(F, out)), cj(F, b))),
                                              b_shape)))


def _minus_one(F, b):
    """``b - 1``; a Python number stays one (the eager engine passes ``x ** 2``'s exponent as
    the number): numpy would make it a float64 scalar, which turns ``a ** (b - 1)`` of a
    float32 ``a`` into float64 and every product after it into numpy's slow mixed path."""
    return b - 1.0 if isinstance(b, (int, float)) else F.sub(b, 1.0)


def _pow(a, b, masked_at_zero=False):
    """``a ** b`` (``masked_at_zero`` chooses the gradients' convention only: see below)."""
    return np.power(a, b)


def _pow_grad_base(F, g, a, b, a_shape, masked_at_zero):
    """d(a**b)/da = b * a**(b-1); with ``masked_at_zero`` (PyTorch's ``pow_backward``) 0 where
    ``b == 0`` -- TF's rule gives ``0 * 0**-1 = NaN`` at ``0**0``, and staticgraph keeps it."""
    p = F.pow(a, _minus_one(F, b))
    if F.dtype(p).kind == "c":            # complex: the conjugate of the derivative
        d = F.mul(g, F.conj(F.mul(b, p)))
    else:
        d = F.mul(F.mul(g, b), p)
    if not masked_at_zero:
        return ub(F, d, a_shape)
    if isinstance(b, (int, float)):
        return ub(F, F.zeros_like(d) if b == 0 else d, a_shape)
    return ub(F, F.where(F.eq(b, 0.0), F.zeros_like(d), d), a_shape)


def _pow_grad_exponent(F, g, a, b, out, b_shape, masked_at_zero):
    """d(a**b)/db = a**b * log(a). TF's rule takes ``log(a)`` where ``a > 0`` only (0 at a zero
    or negative base); PyTorch's (``masked_at_zero``) takes it everywhere (NaN for a negative
    base, ``-inf`` at ``0**-1``) but gives 0 where ``a == 0 and b >= 0``.  Complex tensors
    (both frameworks): the conjugate of ``a**b * log(a)``, 0 where ``a == 0``.
    TF multiplies left to right, ``(g * a**b) * log(a)``: where ``a**b * log(a)`` overflows
    (float16) a zero ``g`` still gives 0, not ``0 * inf = NaN`` (cwise_ops_binary_test)."""
    if F.dtype(out).kind == "c":
        return ub(F, F.mul(g, cj(F, F.mul(out, F.log(F.where(F.eq(a, 0.0), 1.0, a))))), b_shape)
    if not masked_at_zero:
        positive = F.gt(a, 0.0)
        log_a = F.where(positive, F.log(F.where(positive, a, 1.0)), 0.0)
        return ub(F, F.mul(F.mul(g, out), log_a), b_shape)
    d = F.mul(g, F.mul(out, F.log(a)))
    return ub(F, F.where(F.logical_and(F.eq(a, 0.0), F.ge(b, 0.0)), F.zeros_like(d), d), b_shape)


defop("Pow", _pow, power, inputs=("a", "b"), fname="pow",
      torch_names={"tensor": "PowBackward1", "base": "PowBackward2", "exp2": "Exp2Backward0"},
      examples=(E((pos((3,)), (3,))), E((pos((2, 3)), (3,))), E((pos((2, 3)), ())),
                E((pos((2, 3)), (3,)), {"masked_at_zero": True})),
      grads=(_pow_grad_base, _pow_grad_exponent))


def _pick(F, g, wins, ties):
    """``g`` where an input won, ``g/2`` where it tied (PyTorch splits ties evenly)."""
    return F.where(wins, g, F.where(ties, F.mul(g, 0.5), 0.0))


defop("Maximum", np.maximum, binary, inputs=("a", "b"), fname="maximum", examples=BINARY,
      grads=(lambda F, g, a, b, a_shape: ub(F, _pick(F, g, F.gt(a, b), F.eq(a, b)), a_shape),
             lambda F, g, a, b, b_shape: ub(F, _pick(F, g, F.gt(b, a), F.eq(a, b)), b_shape)))

defop("Minimum", np.minimum, binary, inputs=("a", "b"), fname="minimum", examples=BINARY,
      grads=(lambda F, g, a, b, a_shape: ub(F, _pick(F, g, F.lt(a, b), F.eq(a, b)), a_shape),
             lambda F, g, a, b, b_shape: ub(F, _pick(F, g, F.lt(b, a), F.eq(a, b)), b_shape)))

_BITS = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _select(cond, a, b):
    """``np.where(cond, a, b)``; when one side is a +0.0 scalar (a ReLU's or a mask's
    gradient), the same bits without np.where's per-element branch, which a random mask
    makes ~20x slower than a multiply: the other side's bit pattern times the bool
    (pattern or all-zero bits = +0.0).  From :data:`SELECT_JIT_MIN` elements of C-contiguous
    operands, once numba is loaded, its one loop does that (:func:`common.ops_jit.select_zero`,
    the same bits)."""
    if cond.__class__ is np.ndarray and cond.dtype == np.bool_ and cond.size >= 256:
        for keep, zero, c in ((a, b, cond), (b, a, None)):
            if (keep.__class__ is np.ndarray and keep.shape == cond.shape and
                    keep.dtype in _BITS and _plus_zero_of(zero, keep)):
                bits = keep.view(_BITS[keep.dtype])
                if (cond.size >= SELECT_JIT_MIN and cond.flags.c_contiguous and keep.flags.c_contiguous
                        and (jit := jit_module_if_loaded("common.ops_jit")) is not None):
                    out = np.empty(bits.shape, bits.dtype)
                    jit.select_zero(cond.reshape(-1), c is not None, bits.reshape(-1), out.reshape(-1))
                    return out.view(keep.dtype)
                mask = cond if c is not None else ~cond
                return np.multiply(bits, mask).view(keep.dtype)
    return np.where(cond, a, b)


SELECT_JIT_MIN = 1 << 15
"""Elements from which :func:`_select` against +0.0 runs numba's loop (once numba is loaded):
64x28x28x32 float32 0.75 -> 0.50 ms; below, numpy's multiply costs about what numba's does."""


def _plus_zero_of(zero, keep: np.ndarray) -> bool:
    """Is ``zero`` a +0.0 scalar that leaves ``keep``'s dtype as it is?  A Python float or a
    0-d value of ``keep``'s own dtype is read as a Python float (the cheap, common cases);
    anything else asks numpy's promotion."""
    if zero.__class__ is float or (zero.__class__ is np.ndarray or isinstance(zero, np.generic)) \
            and zero.ndim == 0 and zero.dtype == keep.dtype:
        v = float(zero)
        return v == 0.0 and math.copysign(1.0, v) > 0
    return (np.ndim(zero) == 0 and np.result_type(keep, zero) == keep.dtype and zero == 0 and
            not np.signbit(zero))


defop("Select", _select, select, inputs=("cond", "a", "b"), fname="where",
      torch_name="WhereBackward0",
      torch_names={"masked_fill": "MaskedFillBackward0", "tril": "TrilBackward0",
                   "triu": "TriuBackward0"},
      examples=(E((np.array([True, False, True]), (3,), (3,))),
                E((np.array([[True], [False]]), (2, 3), (3,)))),
      grads=(None,
             lambda F, g, cond, a_shape: ub(F, F.where(cond, g, 0.0), a_shape),
             lambda F, g, cond, b_shape: ub(F, F.where(cond, 0.0, g), b_shape)))


def _clip(x, lo=None, hi=None, bounds_open=False, nan_passes=False):
    """``x`` limited to ``[lo, hi]``; either bound may be None."""
    return np.clip(x, lo, hi)


def _clip_grad(F, g, x, lo, hi, bounds_open, nan_passes):
    """Gradient passes where ``lo <= x <= hi`` (bounds included, as PyTorch's clamp).
    ``bounds_open``: none at the bounds themselves -- TF's ``Relu6Grad`` (``lo < x < hi``, none
    at NaN) or, with ``nan_passes``, PyTorch's ``hardtanh_backward`` (zero where ``x <= lo or
    x >= hi``: a NaN input passes it)."""
    if bounds_open and not nan_passes:
        if lo is not None:
            g = F.where(F.gt(x, lo), g, 0.0)
        if hi is not None:
            g = F.where(F.lt(x, hi), g, 0.0)
        return g
    if bounds_open:
        if lo is not None:
            g = F.where(F.le(x, lo), 0.0, g)
        if hi is not None:
            g = F.where(F.ge(x, hi), 0.0, g)
        return g
    if lo is not None:
        g = F.where(F.ge(x, lo), g, 0.0)
    if hi is not None:
        g = F.where(F.le(x, hi), g, 0.0)
    return g


defop("ClipByValue", _clip, with_scalars("lo", "hi"), inputs=("x",), fname="clip", torch_name="ClampBackward1",
      torch_names={"clamp_min": "ClampMinBackward0", "clamp_max": "ClampMaxBackward0",
                   "hardtanh": "HardtanhBackward0"},
      examples=(E(((5,),), {"lo": -0.5, "hi": 0.5}), E(((2, 3),), {"lo": 0.0, "hi": None}),
                E(((5,),), {"lo": -0.5, "hi": 0.5, "bounds_open": True}),
                E(((5,),), {"lo": -0.5, "hi": 0.5, "bounds_open": True, "nan_passes": True})),
      grads=(_clip_grad,))

# --- unary math -----------------------------------------------------------------

defop("Neg", np.negative, numbers("negation", same), inputs=("x",), fname="neg", examples=UNARY,
      algebra=Algebra(involution=True),
      grads=(lambda F, g: F.neg(g),))
defop("Exp", np.exp, floating, inputs=("x",), fname="exp", examples=UNARY,
      grads=(lambda F, g, out: F.mul(g, cj(F, out)),),
      approx_scalar=lambda x: f"vmath.exp({x})")
defop("Log", np.log, floating, inputs=("x",), fname="log", examples=POSITIVE,
      grads=(lambda F, g, x: F.div(g, cj(F, x)),))
defop("Sqrt", np.sqrt, floating, inputs=("x",), fname="sqrt", examples=POSITIVE,
      grads=(lambda F, g, out: F.div(g, F.mul(cj(F, out), 2.0)),))


def _abs(x, nan_sign_zero=False):
    """``|x|`` (``nan_sign_zero`` chooses the gradient's convention at NaN only)."""
    return np.abs(x)


def _sign(x, nan_sign_zero=False):
    """-1, 0 or 1; at NaN, NaN (numpy's and TF's) or, with ``nan_sign_zero``, 0 (PyTorch's).
    The same attribute makes ``Abs``'s gradient ``g * sign(x)`` 0 at NaN, as PyTorch's."""
    out = np.sign(x)
    if nan_sign_zero and out.dtype.kind == "f":
        out = np.where(np.isnan(out), out.dtype.type(0), out)
    return out


defop("Abs", _abs, lambda x, nan_sign_zero=False: Spec(x.shape, real_dtype(x.dtype)),
      inputs=("x",), fname="abs", scalar=lambda x: f"abs({x})",
      examples=UNARY + (E(((4,),), {"nan_sign_zero": True}),),
      grads=(lambda F, g, x, nan_sign_zero: F.mul(g, F.sign(x, nan_sign_zero=nan_sign_zero)),))
defop("Sign", _sign, numbers("sign", same), inputs=("x",), fname="sign",
      examples=UNARY + (E(((4,),), {"nan_sign_zero": True}),),  # NaN: tests/test_kinks.py
      grads=(lambda F, g: F.zeros_like(g),))
defop("Tanh", np.tanh, floating, inputs=("x",), fname="tanh", examples=UNARY,
      grads=(lambda F, g, out: F.mul(g, cj(F, F.sub(1.0, F.mul(out, out)))),),
      approx_scalar=lambda x: f"vmath.tanh({x})")


def _sigmoid(x):
    """1 / (1 + exp(-x)), computed without overflow for large |x|.

    With ``e = exp(-|x|)``: ``1 / (1 + e)`` where ``x >= 0``, else ``e / (1 + e)``.
    The numerator is picked as ``max(e, x >= 0)`` (1 or e, as ``e <= 1``): the
    same bits as selecting with ``np.where``, at a fraction of its cost.
    """
    if np.iscomplexobj(x):             # no ordering: the formula itself, as TF and torch
        return 1.0 / (1.0 + np.exp(-x))
    if blockable(x):      # a large float array: the same calls, one cached block at a time
        return by_blocks(_sigmoid_block, x)
    e = np.exp(-np.abs(x))
    return np.asarray(np.maximum(e, np.greater_equal(x, 0)) / (1.0 + e))


def _sigmoid_block(x, out, e):
    """:func:`_sigmoid`'s calls on one block, into ``out`` and the scratch ``e``: the same
    ufuncs in the same order (``x >= 0`` written as 0.0/1.0, the values ``maximum`` casts
    the bools to), so the same bits."""
    np.negative(np.abs(x, out=e), out=e)
    np.exp(e, out=e)
    np.maximum(e, np.greater_equal(x, 0, out=out), out=out)
    np.divide(out, np.add(1.0, e, out=e), out=out)


def _relu(x, nan_passes=False):
    """``max(x, 0)`` (NaN stays NaN); ``nan_passes`` chooses the gradient at NaN only: TF's
    ``ReluGrad`` passes none there (``out > 0``), PyTorch's ``threshold_backward`` passes
    ``g`` (it zeroes where ``out <= 0``)."""
    return np.maximum(x, 0)


def _relu_grad(F, g, out, nan_passes):
    if nan_passes:
        return F.where(F.le(out, 0.0), 0.0, g)
    return F.where(F.gt(out, 0.0), g, 0.0)


defop("Sigmoid", _sigmoid, numbers("sigmoid", floating), inputs=("x",), fname="sigmoid", examples=UNARY,
      grads=(lambda F, g, out: F.mul(g, cj(F, F.mul(out, F.sub(1.0, out)))),),
      approx_scalar=lambda x: f"vmath.sigmoid({x})")
defop("Relu", _relu, lambda x, nan_passes=False: Spec(x.shape, np.result_type(x.dtype, 0)),
      inputs=("x",), fname="relu", examples=UNARY + (E(((4,),), {"nan_passes": True}),),
      grads=(_relu_grad,))

# --- comparisons and logic: bool results, no gradient -----------------------------

for _name, _fname, _impl in [("Less", "lt", np.less), ("LessEqual", "le", np.less_equal),
                             ("Greater", "gt", np.greater), ("GreaterEqual", "ge", np.greater_equal),
                             ("Equal", "eq", np.equal), ("NotEqual", "ne", np.not_equal)]:
    defop(_name, _impl, compare, inputs=("a", "b"), fname=_fname, examples=BINARY)

defop("LogicalAnd", np.logical_and, compare, inputs=("a", "b"), fname="logical_and", examples=BINARY)
defop("LogicalOr", np.logical_or, compare, inputs=("a", "b"), fname="logical_or", examples=BINARY)
defop("LogicalNot", np.logical_not, logical_unary, inputs=("x",), fname="logical_not", examples=UNARY)

# --- more unary math (PyTorch's and TF's everyday functions) -----------------------------


def _zero_grad(F, g):
    """Piecewise-constant functions (floor, round...): gradient zero almost everywhere."""
    return F.zeros_like(g)


def _keep_ints(fn):
    """floor/ceil/round/trunc of an integer tensor is the tensor itself (numpy would give floats)."""
    def impl(x):
        x = np.asarray(x)
        return x.copy() if x.dtype.kind in "iub" else fn(x)
    impl.__name__, impl.__doc__ = fn.__name__, f"``{fn.__name__}``; integers pass unchanged."
    return impl


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


defop("Sin", np.sin, floating, inputs=("x",), fname="sin", examples=UNARY,
      grads=(lambda F, g, x: F.mul(g, cj(F, F.cos(x))),))
defop("Cos", np.cos, floating, inputs=("x",), fname="cos", examples=UNARY,
      grads=(lambda F, g, x: F.neg(F.mul(g, cj(F, F.sin(x)))),))
defop("Tan", np.tan, floating, inputs=("x",), fname="tan", examples=UNARY,
      grads=(lambda F, g, out: F.mul(g, cj(F, F.add(F.mul(out, out), 1.0))),))
defop("Rsqrt", _rsqrt, floating, inputs=("x",), fname="rsqrt", examples=POSITIVE,
      grads=(lambda F, g, out: F.mul(F.mul(g, -0.5), cj(F, F.mul(out, F.mul(out, out)))),))
defop("Log1p", np.log1p, floating, inputs=("x",), fname="log1p", torch_name="Log1PBackward0",
      examples=POSITIVE, grads=(lambda F, g, x: F.div(g, cj(F, F.add(x, 1.0))),))
defop("Expm1", np.expm1, floating, inputs=("x",), fname="expm1", examples=UNARY,
      grads=(lambda F, g, out: F.mul(g, cj(F, F.add(out, 1.0))),))
defop("Square", np.square, lambda x: power(x, x), inputs=("x",), fname="square", torch_name="PowBackward0",
      examples=UNARY, grads=(lambda F, g, x: F.mul(g, F.mul(cj(F, x), 2.0)),))
defop("Floor", _keep_ints(np.floor), same, inputs=("x",), fname="floor", examples=UNARY,
      grads=(_zero_grad,))
defop("Ceil", _keep_ints(np.ceil), same, inputs=("x",), fname="ceil", examples=UNARY,
      grads=(_zero_grad,))
defop("Round", _keep_ints(np.round), same, inputs=("x",), fname="round", examples=UNARY,
      doc="Round half to even (0.5 -> 0, 1.5 -> 2), as PyTorch and TF do.", grads=(_zero_grad,))
defop("Trunc", _keep_ints(np.trunc), same, inputs=("x",), fname="trunc", examples=UNARY,
      grads=(_zero_grad,))

# --- integer-style division: floor division, remainders ------------------------------------
# x == floor(x / y) * y + floor_mod(x, y)    (Python's // and %: the remainder has y's sign)
# x == trunc(x / y) * y + fmod(x, y)         (C's fmod: the remainder has x's sign)

DIVMOD = (E(((3,), pos((3,)))), E(((2, 3), pos((3,)))), E(((2, 1), pos((1, 4)))))


def _floordiv(a, b):
    return np.floor_divide(a, b)


defop("FloorDiv", _floordiv, power, inputs=("a", "b"), fname="floor_div", examples=DIVMOD,
      doc="``floor(a / b)``: Python's ``//`` (PyTorch's ``floor_divide``); no gradient.")
defop("FloorMod", np.mod, power, inputs=("a", "b"), fname="floor_mod",
      torch_name="RemainderBackward0", examples=DIVMOD,
      doc="``a - floor(a / b) * b``: Python's ``%``, the sign of the divisor (torch.remainder).",
      grads=(lambda F, g, a_shape: ub(F, g, a_shape),
             lambda F, g, a, b, b_shape: ub(F, F.neg(F.mul(g, F.floor(F.div(a, b)))), b_shape)))
defop("TruncateMod", np.fmod, power, inputs=("a", "b"), fname="truncate_mod",
      torch_name="FmodBackward0", examples=DIVMOD,
      doc="``a - trunc(a / b) * b``: C's fmod, the sign of the dividend (torch.fmod).",
      grads=(lambda F, g, a_shape: ub(F, g, a_shape),
             lambda F, g, a, b, b_shape: ub(F, F.neg(F.mul(g, F.trunc(F.div(a, b)))), b_shape)))

_ERF = np.frompyfunc(__import__("math").erf, 1, 1)


def _erf(x):
    """The error function, elementwise (numpy has none; ``math.erf`` is exact to double precision)."""
    x = np.asarray(x)
    dtype = result_dtype(x.dtype, np.float16)
    return np.asarray(_ERF(x.astype(np.float64)), dtype=np.float64).astype(dtype, copy=False)


defop("Erf", _erf, floating, inputs=("x",), fname="erf", examples=UNARY,
      grads=(lambda F, g, x: F.mul(g, F.mul(F.exp(F.neg(F.mul(x, x))), 1.1283791670955126)),))

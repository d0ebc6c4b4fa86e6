"""IEEE and integer elementwise functions: ``hypot``, ``copysign``, ``fmax``/``fmin``,
``nextafter``, ``fma``, ``logaddexp``/``logaddexp2``, ``heaviside``, running ``logsumexp``, and the
integer ones -- ``gcd``/``lcm``, bitwise logic and shifts.

Each is numpy's ufunc of the same name (C99's and IEEE 754's definitions, which PyTorch's
kernels also follow); the gradient rules are PyTorch's (``derivatives.yaml``)::

    d hypot(a, b)/da   = a / hypot(a, b)
    d fmax(a, b)/da    = g where a >= b or b is NaN (ties go to a), else 0
    d logaddexp(a, b)/da = 1 / (1 + exp(b - a))
    d copysign(a, b)/da  = copysign(a, b) / a, 0 at a == 0

``CumulativeLogsumexp`` is TF's op (``tf.math.cumulative_logsumexp``) and PyTorch's
``logcumsumexp``: ``np.logaddexp.accumulate``, exact where ``log(cumsum(exp(x)))`` would
overflow or lose the small terms; its gradient is TF's, computed in log space.

>>> import numpy as np
>>> from common import REGISTRY
>>> REGISTRY["CumulativeLogsumexp"].impl(np.array([0.0, 0.0])).round(4).tolist()
[0.0, 0.6931]
"""
from __future__ import annotations

import math

import numpy as np

from ..examples import Example as E, ints
from ..fma import fma32, fma64
from ..registry import Spec, defop
from ..shapes import require_kind, result_dtype, unbroadcast as ub
from .elementwise import BINARY, UNARY, binary, compare, logical_unary
from .special import floating_binary

__all__: list[str] = []

_LN2 = math.log(2.0)


def _floating_ufunc(fn):
    """numpy's ``fn`` of two inputs, its float64 result in the inputs' float dtype."""
    def impl(a, b):
        dtype = result_dtype(np.result_type(a, b), np.float16)
        with np.errstate(all="ignore"):
            return np.asarray(fn(a, b)).astype(dtype, copy=False)
    impl.__name__, impl.__doc__ = fn.__name__, f"numpy's ``{fn.__name__}``, elementwise."
    return impl


def _wins(F, g, a, b, other_nan_too: bool, ge: bool):
    """``g`` where ``a`` is the one ``fmax``/``fmin`` returned: ``a >= b`` (or ``<=``), or ``b``
    NaN; ties go to ``a`` (PyTorch's rule)."""
    won = F.ge(a, b) if ge else F.le(a, b)
    won = F.logical_or(won, F.ne(b, b))
    return F.where(won if other_nan_too else F.logical_not(won), g, 0.0)


defop("Hypot", _floating_ufunc(np.hypot), floating_binary, inputs=("a", "b"), fname="hypot",
      examples=BINARY,
      grads=(lambda F, g, a, out, a_shape: ub(F, F.mul(g, F.div(a, out)), a_shape),
             lambda F, g, b, out, b_shape: ub(F, F.mul(g, F.div(b, out)), b_shape)),
      doc="``sqrt(a^2 + b^2)`` without overflow or underflow in the squares.")


def _copysign_grad(F, g, a, out, a_shape):
    ratio = F.div(out, F.where(F.eq(a, 0.0), F.ones_like(a), a))
    return ub(F, F.mul(g, F.where(F.eq(a, 0.0), F.zeros_like(ratio), ratio)), a_shape)


defop("Copysign", _floating_ufunc(np.copysign), floating_binary, inputs=("a", "b"),
      fname="copysign", examples=BINARY,
      grads=(_copysign_grad, lambda F, g, b_shape: ub(F, F.zeros_like(g), b_shape)),
      doc="``|a|`` with the sign of ``b`` (its sign bit: -0.0 counts as negative).")

defop("Fmax", np.fmax, binary, inputs=("a", "b"), fname="fmax", examples=BINARY,
      grads=(lambda F, g, a, b, a_shape: ub(F, _wins(F, g, a, b, True, True), a_shape),
             lambda F, g, a, b, b_shape: ub(F, _wins(F, g, a, b, False, True), b_shape)),
      doc="The larger of ``a`` and ``b``, ignoring a NaN on one side (C's ``fmax``).")
defop("Fmin", np.fmin, binary, inputs=("a", "b"), fname="fmin", examples=BINARY,
      grads=(lambda F, g, a, b, a_shape: ub(F, _wins(F, g, a, b, True, False), a_shape),
             lambda F, g, a, b, b_shape: ub(F, _wins(F, g, a, b, False, False), b_shape)),
      doc="The smaller of ``a`` and ``b``, ignoring a NaN on one side (C's ``fmin``).")
defop("NextAfter", np.nextafter, floating_binary, inputs=("a", "b"), fname="next_after",
      examples=BINARY, doc="The next float after ``a`` towards ``b`` (C's ``nextafter``); its "
      "gradient is PyTorch's: ``g`` to ``a`` where ``a != b`` (a step of one ulp), none to ``b``.",
      grads=(lambda F, g, a, b, a_shape: ub(F, F.where(F.ne(a, b), g, F.zeros_like(g)), a_shape),
             lambda F, g, b_shape: ub(F, F.zeros_like(g), b_shape)))


def _logaddexp_grad(F, g, a, b, base: float):
    """``g / (1 + base^(b - a))``: the share of ``a`` in ``log(base^a + base^b)``."""
    d = F.sub(b, a)
    return F.div(g, F.add(F.exp(d if base == math.e else F.mul(d, _LN2)), 1.0))


defop("Logaddexp", _floating_ufunc(np.logaddexp), floating_binary, inputs=("a", "b"),
      fname="logaddexp", examples=BINARY,
      grads=(lambda F, g, a, b, a_shape: ub(F, _logaddexp_grad(F, g, a, b, math.e), a_shape),
             lambda F, g, a, b, b_shape: ub(F, _logaddexp_grad(F, g, b, a, math.e), b_shape)),
      doc="``log(exp(a) + exp(b))`` without overflow.")
defop("Logaddexp2", _floating_ufunc(np.logaddexp2), floating_binary, inputs=("a", "b"),
      fname="logaddexp2", examples=BINARY,
      grads=(lambda F, g, a, b, a_shape: ub(F, _logaddexp_grad(F, g, a, b, 2.0), a_shape),
             lambda F, g, a, b, b_shape: ub(F, _logaddexp_grad(F, g, b, a, 2.0), b_shape)),
      doc="``log2(2^a + 2^b)`` without overflow.")
def _fma(a, b, c):
    """``a * b + c`` rounded once (C's ``fma``): float32 and float64 exactly (``common.fma``),
    other dtypes through float64 and one cast."""
    dtype = np.result_type(a, b, c)
    if dtype == np.float32:
        return fma32(a, b, c)
    if dtype == np.float64:
        return fma64(a, b, c)
    if dtype.kind in "fiub":
        f64 = [np.asarray(x, np.float64) for x in (a, b, c)]
        return np.asarray(f64[0] * f64[1] + f64[2]).astype(result_dtype(dtype, np.float16))
    return np.asarray(a * b + c)


def _ternary(a: Spec, b: Spec, c: Spec) -> Spec:
    """Broadcast three shapes; promote three dtypes, integers made floats."""
    return floating_binary(binary(a, b), c)


defop("Fma", _fma, _ternary, inputs=("a", "b", "c"), fname="fma",
      examples=(E(((3,), (3,), (3,))), E(((2, 3), (3,), (2, 1))), E(((), (2, 2), ()))),
      grads=(lambda F, g, b, a_shape: ub(F, F.mul(g, b), a_shape),
             lambda F, g, a, b_shape: ub(F, F.mul(g, a), b_shape),
             lambda F, g, c_shape: ub(F, g, c_shape)),
      doc="``a * b + c`` with one rounding, as a compiled kernel's fused multiply-add computes "
      "it: what PyTorch's CPU kernels round once (``x * rstd - mean * rstd`` in layer_norm), "
      "so reproducing their bits needs it.")


def _heaviside(x, values):
    """numpy's ``heaviside`` (float loops only), in the inputs' own dtype: ints stay ints."""
    dtype = np.result_type(x, values)
    return np.asarray(np.heaviside(np.asarray(x, np.float64), np.asarray(values, np.float64))
                      ).astype(dtype, copy=False)


defop("Heaviside", _heaviside, binary, inputs=("x", "values"), fname="heaviside",
      examples=BINARY, doc="0 where ``x < 0``, 1 where ``x > 0``, ``values`` where ``x == 0``.")

# --- running log-sum-exp ------------------------------------------------------------------


def _cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False):
    """``log(cumsum(exp(x)))`` along ``axis`` (TF's ``exclusive``/``reverse`` options)."""
    x = np.asarray(x)
    dtype = result_dtype(x.dtype, np.float16)
    if reverse:
        x = np.flip(x, axis)
    with np.errstate(invalid="ignore"):  # accumulated in float64, as PyTorch's CPU kernel
        out = np.logaddexp.accumulate(x.astype(np.float64), axis=axis).astype(dtype, copy=False)
    if exclusive:  # shift by one along axis, a leading log(0)
        first = np.full_like(np.take(out, [0], axis=axis), -np.inf)
        out = np.concatenate([first, np.delete(out, -1, axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else np.ascontiguousarray(out)


def _cumulative_logsumexp_grad(F, g, x, out, axis, exclusive, reverse):
    """TF's rule: ``exp(x + rcls(log(g) - out))`` for the positive and the negative parts of
    ``g`` apart (``rcls`` the running log-sum-exp the other way): every term stays in log
    space, so neither ``exp(x)`` nor ``exp(-out)`` overflows."""
    empty = F.eq(out, -math.inf)  # an exclusive scan's first sum holds no term of x

    def part(gp):
        none = F.logical_or(empty, F.eq(gp, 0.0))   # log(0): no term (and no warning)
        terms = F.where(none, -math.inf, F.sub(F.log(F.where(none, 1.0, gp)), out))
        back = F.cumulative_logsumexp(terms, axis=axis, exclusive=exclusive, reverse=not reverse)
        return F.exp(F.add(back, x))
    zero = F.zeros_like(g)
    return F.sub(part(F.maximum(g, zero)), part(F.neg(F.minimum(g, zero))))


def _float_like(x: Spec, **_) -> Spec:
    return Spec(x.shape, result_dtype(x.dtype, np.float16))


defop("CumulativeLogsumexp", _cumulative_logsumexp, _float_like, inputs=("x",),
      fname="cumulative_logsumexp", torch_name="LogcumsumexpBackward0",
      # (an exclusive scan starts at log(0) = -inf: finite differences cannot check it)
      examples=(E(((4,),)), E(((2, 3),), {"axis": 1}), E(((2, 3),), {"axis": 0, "reverse": True})),
      grads=(_cumulative_logsumexp_grad,))

# --- integers: gcd, lcm, bits -----------------------------------------------------------------


def integers(what: str, rule=binary, kinds: str = "iu"):
    """``rule`` for ops defined on integers only (and bools, where ``kinds`` says so)."""
    def infer(*specs: Spec, **attrs) -> Spec:
        require_kind(what, kinds, *specs)
        return rule(*specs, **attrs)
    return infer


INT_BINARY = (E((ints((3,), 20, -20), ints((3,), 20, -20))), E((ints((2, 3), 50), ints((3,), 9, 1))))
SHIFTS = (E((ints((4,), 100, -100), ints((4,), 6))), E((ints((2, 3), 1000), ints((2, 1), 9))))
BOOL_BINARY = INT_BINARY + (E((np.array([True, False, True]), np.array([True, True, False]))),)

defop("Gcd", np.gcd, integers("gcd"), inputs=("a", "b"), fname="gcd", examples=INT_BINARY,
      doc="The greatest common divisor (non-negative; ``gcd(0, 0) = 0``).")
defop("Lcm", np.lcm, integers("lcm"), inputs=("a", "b"), fname="lcm", examples=INT_BINARY,
      doc="The least common multiple (non-negative; 0 when either is 0).")
defop("BitwiseAnd", np.bitwise_and, integers("bitwise and", kinds="biu"), inputs=("a", "b"),
      fname="bitwise_and", examples=BOOL_BINARY)
defop("BitwiseOr", np.bitwise_or, integers("bitwise or", kinds="biu"), inputs=("a", "b"),
      fname="bitwise_or", examples=BOOL_BINARY)
defop("BitwiseXor", np.bitwise_xor, integers("bitwise xor", kinds="biu"), inputs=("a", "b"),
      fname="bitwise_xor", examples=BOOL_BINARY)
defop("Invert", np.invert, integers("bitwise not", lambda x: x, kinds="biu"), inputs=("x",),
      fname="invert", examples=(E((ints((4,), 100, -100),)), E((np.array([True, False]),))),
      doc="Bitwise NOT (``~x``; logical not of bools).")


def _shift(shift_fn, fill_negative: bool):
    """C's shifts made total, as PyTorch's kernels do: a count below 0 or of at least the
    type's width shifts everything out (0; -1 for a negative value shifted right)."""
    def impl(a, b):
        dtype = np.result_type(a, b)   # a Python int is weak: int8 << 7 stays int8
        a, b = np.asarray(a, dtype), np.asarray(b, dtype)
        width = dtype.itemsize * 8
        over = (b < 0) | (b >= width)
        out = shift_fn(a, np.where(over, 0, b).astype(dtype, copy=False))
        spill = np.where(a < 0, -1, 0).astype(dtype) if fill_negative else np.zeros((), dtype)
        return np.asarray(np.where(over, spill, out), dtype=dtype)
    impl.__name__ = shift_fn.__name__
    impl.__doc__ = f"numpy's ``{shift_fn.__name__}``, total for any shift count (see _shift)."
    return impl


defop("LeftShift", _shift(np.left_shift, False), integers("left shift"), inputs=("a", "b"),
      fname="left_shift", examples=SHIFTS)
defop("RightShift", _shift(np.right_shift, True), integers("right shift"), inputs=("a", "b"),
      fname="right_shift", examples=SHIFTS)
defop("LogicalXor", np.logical_xor, compare, inputs=("a", "b"), fname="logical_xor",
      examples=BINARY)
defop("Signbit", np.signbit, logical_unary, inputs=("x",), fname="signbit", examples=UNARY,
      doc="True where the sign bit is set (-0.0 and -NaN included).")

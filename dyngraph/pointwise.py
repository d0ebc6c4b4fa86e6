"""Elementwise math beyond the basics: trig, rounding, remainders, and in-place forms.

Each function maps PyTorch's spelling onto one registry op (or a short
composite) and names the backward node as PyTorch does; ``x.sin_()``-style
in-place forms compute the new values and write them into ``x`` with
:func:`dyngraph.tensor.rebase` (so version counters and ``grad_fn`` behave as
PyTorch's).

>>> import dyngraph as torch
>>> torch.tensor([-7, 7]) // 2, torch.tensor([-7, 7]) % torch.tensor([2, -2])
(tensor([-4,  3]), tensor([ 1, -1]))
"""
from __future__ import annotations

import numpy as np

from common import REGISTRY

from . import functions
from .engine import apply, node_class_for
from .functions import TORCH_POW, _for_gradient, _integer_zero_division, _t, _unary, mul
from .grad_mode import STATE
from .node import torch_node
from .tensor import Tensor, check_inplace, make, rebase

__all__ = ["sin", "cos", "tan", "rsqrt", "log1p", "expm1", "floor", "ceil", "trunc", "fix",
           "square", "frac", "round", "erf", "reciprocal", "floor_divide", "remainder", "fmod",
           "log2", "log10", "exp2", "isnan", "isinf", "isfinite", "clamp_min", "clamp_max",
           "relu_", "sigmoid_", "tanh_", "exp_", "inplace", "asin", "acos", "atan", "sinh", "cosh",
           "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
           "lgamma", "digamma", "polygamma", "atan2", "arctan2", "xlogy", "erfinv"]

_R = REGISTRY

sin, cos, tan, rsqrt, log1p, expm1, floor, ceil, trunc, square, erf = map(
    _unary, ["Sin", "Cos", "Tan", "Rsqrt", "Log1p", "Expm1", "Floor", "Ceil", "Trunc", "Square",
             "Erf"])
fix = trunc
asin, acos, atan, sinh, cosh, asinh, acosh, atanh, lgamma = map(
    _unary, ["Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Lgamma"])


def digamma(input):
    """``psi(x)``; at 0 torch's ``-inf`` (``+inf`` at ``-0.0``) where TF's op gives NaN
    (the other poles, -1, -2..., are NaN in both)."""
    return apply(_R["Digamma"], (_t(input),), _INF_AT_ZERO)


_INF_AT_ZERO = {"inf_at_zero": True}
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
erfinv = _unary("Erfinv")


def atan2(input, other):
    """The angle of the point ``(other, input)``: ``atan(input / other)`` in the right quadrant;
    gradient 0 at the origin, as torch (TF's: NaN)."""
    return apply(_R["Atan2"], (input, other), {"zero_at_origin": True})


arctan2 = atan2


PRODUCT_AT_ZERO = {"product_at_zero": True}


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input == 0`` -- unless ``other`` is NaN: NaN then, and
    the gradient to ``other`` is ``input / other`` (NaN at (0, 0)), as torch (TF's: 0)."""
    return apply(_R["Xlogy"], (_t(input), _t(other)), PRODUCT_AT_ZERO)


def polygamma(n: int, input):
    """``psi^(n)(input)``, the ``n``-th derivative of digamma."""
    x = _t(input)
    return apply(_R["Polygamma"], (np.asarray(n, dtype=x._data.dtype), x))


@torch_node(decimals="RoundBackward1")
def round(input, *, decimals: int = 0):
    """Round half to even (``round(2.5) == 2``), optionally to ``decimals`` places."""
    if decimals == 0:
        return apply(_R["Round"], (input,))
    scale = 10.0 ** decimals
    return apply(_R["RealDiv"], (apply(_R["Round"], (mul(input, scale),)), scale),
                 cls=round.nodes["decimals"])


@torch_node("FracBackward0")
def frac(input):
    """``x - trunc(x)``: the fractional part, with the sign of ``x``."""
    return apply(_R["Sub"], (input, trunc(input)), cls=frac.node)


_RECIPROCAL = node_class_for(_R["RealDiv"], "reciprocal")


def reciprocal(input):
    return apply(_R["RealDiv"], (1.0, _t(input)), cls=_RECIPROCAL)


def floor_divide(input, other):
    """``floor(input / other)``: Python's ``//`` (integers stay integers)."""
    _integer_zero_division(input, other)
    return apply(_R["FloorDiv"], (_t(input), _t(other)))


def remainder(input, other):
    """Python's ``%``: the result has the sign of the divisor."""
    _integer_zero_division(input, other)
    return apply(_R["FloorMod"], (_t(input), _t(other)))


def fmod(input, other):
    """C's fmod: the result has the sign of the dividend."""
    _integer_zero_division(input, other)
    return apply(_R["TruncateMod"], (_t(input), _t(other)))


# --- in-place forms --------------------------------------------------------------------------


def inplace(fn):
    """``fn_``: ``input.fn_(*args)`` writes ``fn(input, *args)`` into ``input``.

    When recording, ``fn`` reads a snapshot of the old values (its gradient
    may need them) and ``input`` takes over the result's history.
    """
    def fn_(input, *args, **kwargs):
        recording = STATE.enabled and (input._rg or any(getattr(a, "_rg", False) for a in args))
        src = input
        if recording:
            check_inplace(input)
            src = make(input._data.copy(), input._rg, input.grad_fn)
        return rebase(input, fn(src, *args, **kwargs))
    fn_.__name__ = fn.__name__ + "_"
    fn_.__doc__ = f"In-place ``{fn.__name__}``: writes the result into ``input`` and returns it."
    return fn_


def _public_inplace() -> dict:
    base = {name: getattr(functions, name) for name in (
        "neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs", "sign", "pow", "clamp",
        "clip", "maximum", "minimum")}
    base.update(sin=sin, cos=cos, tan=tan, rsqrt=rsqrt, log1p=log1p, expm1=expm1, floor=floor,
                ceil=ceil, trunc=trunc, square=square, frac=frac, round=round, erf=erf,
                reciprocal=reciprocal, floor_divide=floor_divide, remainder=remainder, fmod=fmod)
    return {name + "_": inplace(fn) for name, fn in base.items()}


INPLACE = _public_inplace()
globals().update(INPLACE)
relu_, sigmoid_, tanh_, exp_ = (INPLACE[n] for n in ("relu_", "sigmoid_", "tanh_", "exp_"))  # torch.*


def _operators() -> dict:
    """``//``, ``%`` and their reflected and in-place forms, attached to Tensor."""
    def ifloordiv(self, other):
        return INPLACE["floor_divide_"](self, other)

    def imod(self, other):
        return INPLACE["remainder_"](self, other)
    return {"__floordiv__": floor_divide, "__rfloordiv__": lambda s, o: floor_divide(o, s),
            "__mod__": remainder, "__rmod__": lambda s, o: remainder(o, s),
            "__ifloordiv__": ifloordiv, "__imod__": imod}


OPERATORS = _operators()


# --- logarithms in other bases, finiteness tests ------------------------------------------------

@torch_node("Log2Backward0")
def log2(input):
    return apply(_R["RealDiv"], (apply(_R["Log"], (input,)), 0.6931471805599453), cls=log2.node)


@torch_node("Log10Backward0")
def log10(input):
    return apply(_R["RealDiv"], (apply(_R["Log"], (input,)), 2.302585092994046), cls=log10.node)


_EXP2 = node_class_for(_R["Pow"], "exp2")


def exp2(input):
    return apply(_R["Pow"], (2.0, _t(input)), _for_gradient(TORCH_POW, input), cls=_EXP2)


def _test(fn, name: str):
    def f(input):
        return make(fn(input._data))
    f.__name__, f.__doc__ = name, f"Elementwise ``{name}`` (a bool tensor; no gradient)."
    return f


isnan, isinf, isfinite = (_test(np.isnan, "isnan"), _test(np.isinf, "isinf"),
                          _test(np.isfinite, "isfinite"))


_CLAMP_MIN, _CLAMP_MAX = (node_class_for(_R["ClipByValue"], "clamp_min"),
                          node_class_for(_R["ClipByValue"], "clamp_max"))


def clamp_min(input, min):
    """A tensor bound takes ``clamp``'s Select form (its gradient reaches the bound)."""
    if isinstance(min, Tensor):
        return functions.clamp(input, min=min)
    return apply(_R["ClipByValue"], (input,), {"lo": min, "hi": None}, cls=_CLAMP_MIN)


def clamp_max(input, max):
    if isinstance(max, Tensor):
        return functions.clamp(input, max=max)
    return apply(_R["ClipByValue"], (input,), {"lo": None, "hi": max}, cls=_CLAMP_MAX)


METHODS = ["sin", "cos", "tan", "rsqrt", "log1p", "expm1", "floor", "ceil", "trunc", "fix",
           "square", "frac", "round", "erf", "reciprocal", "floor_divide", "remainder", "fmod",
           *INPLACE, "log2", "log10", "exp2", "isnan", "isinf", "isfinite", "clamp_min",
           "clamp_max", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "arcsin",
           "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "lgamma", "digamma", "atan2",
           "arctan2", "xlogy", "erfinv"]

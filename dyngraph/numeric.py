"""The rest of PyTorch's elementwise functions: IEEE helpers (``hypot``, ``copysign``,
``fmax``, ``nextafter``, ``frexp``, ``ldexp``, ``logaddexp``...), integer and bit ops
(``gcd``, ``bitwise_*`` and the ``&``, ``|``, ``^``, ``~``, ``<<``, ``>>`` operators), tests
(``signbit``, ``isposinf``...), ``logcumsumexp``, and the top-level names of special functions
(``i0``, ``erfc``, ``sinc``, ``igamma``, ``mvlgamma``).

Each is one registry op (``common/ops/numeric.py``, ``special_fns.py``) or a short composite;
a dtype PyTorch's kernel is not compiled for is refused before numpy sees it, with PyTorch's
``NotImplementedError`` (``"gcd_cpu" not implemented for 'Float'``).

>>> import dyngraph as torch
>>> torch.gcd(torch.tensor([12, 18]), torch.tensor([8, 12])), torch.tensor([6]) & 3
(tensor([4, 6]), tensor([2]))
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from common import REGISTRY

from .creation import as_tensor
from .engine import apply
from .functions import _t, clone, mul, pow, sign, to
from .node import renamed, torch_node
from .pointwise import reciprocal
from .reductions import _running
from .special import erfc, i0, igamma, igammac, multigammaln, sinc
from .tensor import Tensor, make

__all__ = ["hypot", "copysign", "float_power", "fmax", "fmin", "frexp", "gcd", "lcm", "ldexp",
           "logaddexp", "logaddexp2", "nextafter", "heaviside", "signbit", "sgn", "deg2rad",
           "rad2deg", "isneginf", "isposinf", "isreal", "logcumsumexp", "logical_xor",
           "positive", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
           "bitwise_left_shift", "bitwise_right_shift", "i0", "erfc", "sinc", "igamma",
           "igammac", "mvlgamma"]

_R = REGISTRY
mvlgamma = multigammaln


def _dtype_of(x) -> np.dtype:
    return np.asarray(getattr(x, "_data", x)).dtype


def _supported(kernel: str, kinds: str, *xs) -> None:
    """PyTorch's refusal of a dtype its ``kernel`` is not built for (tensors only: a Python
    number takes the tensor's dtype)."""
    for x in xs:
        if isinstance(x, Tensor) and x._data.dtype.kind not in kinds:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{x.dtype.scalar_name}\'')


def _binary(op_name: str, name: str, kinds: str = "biuf", kernel: str | None = None):
    """``name(input, other)``: registry op ``op_name`` over tensors of the ``kinds`` its
    PyTorch kernel (``kernel``, default ``<name>_cpu``) accepts."""
    op = _R[op_name]
    kernel = kernel or f"{name}_cpu"

    def f(input, other):
        _supported(kernel, kinds, input, other)
        return apply(op, (_t(input), _t(other)))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = op.doc or f"Elementwise ``{name}`` (registry op {op_name})."
    return f


hypot = _binary("Hypot", "hypot", "f")
copysign = _binary("Copysign", "copysign")
fmax, fmin = _binary("Fmax", "fmax", "biuf"), _binary("Fmin", "fmin", "biuf")
nextafter = _binary("NextAfter", "nextafter", "f")
logaddexp, logaddexp2 = _binary("Logaddexp", "logaddexp", "f"), _binary("Logaddexp2", "logaddexp2", "f")
gcd, lcm = _binary("Gcd", "gcd", "iu"), _binary("Lcm", "lcm", "iu")
bitwise_and = _binary("BitwiseAnd", "bitwise_and", "biu")
bitwise_or = _binary("BitwiseOr", "bitwise_or", "biu")
bitwise_xor = _binary("BitwiseXor", "bitwise_xor", "biu")
bitwise_left_shift = _binary("LeftShift", "bitwise_left_shift", "iu", "lshift_cpu")
bitwise_right_shift = _binary("RightShift", "bitwise_right_shift", "iu", "rshift_cpu")
logical_xor = _binary("LogicalXor", "logical_xor")


def bitwise_not(input):
    """``~input``: bitwise NOT of integers, logical NOT of bools."""
    _supported("bitwise_not_cpu", "biu", input)
    return apply(_R["Invert"], (input,))


def heaviside(input, values):
    """0 where ``input < 0``, 1 where ``> 0``, ``values`` where ``== 0`` (one dtype for both)."""
    if isinstance(values, Tensor) and values._data.dtype != input._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return apply(_R["Heaviside"], (input, _t(values)))


@torch_node("PowBackward1")
def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (the result is float64 whatever the inputs)."""
    def wide(x):
        return to(x, np.float64) if isinstance(x, Tensor) else float(x)
    return renamed(pow(wide(_t(input)), wide(_t(exponent))), float_power.node)


@torch_node("LdexpBackward0")
def ldexp(input, other):
    """``input * 2 ** other``."""
    return renamed(mul(input, pow(2.0, _t(other))), ldexp.node)


_Frexp = namedtuple("frexp", ["mantissa", "exponent"])
_Frexp.__module__ = "torch.return_types"


@torch_node("FrexpBackward0")
def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, ``0.5 <= |mantissa|
    < 1`` (int32 exponents). The mantissa is ``input`` scaled by ``2 ** -exponent`` -- in two
    power-of-two steps, each exact and in range, so its gradient is ``2 ** -exponent``."""
    x = _t(input)
    if x._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    e = np.frexp(x._data)[1]
    half = -e // 2
    dt = x._data.dtype
    m = mul(mul(x, make(np.ldexp(np.ones((), dt), half).astype(dt))),
            make(np.ldexp(np.ones((), dt), -e - half).astype(dt)))
    return _Frexp(renamed(m, frexp.node), as_tensor(e.astype(np.int32)))


@torch_node("SgnBackward0")
def sgn(input):
    """The sign (``sign`` for real tensors: 0 at NaN; a bool tensor is its own sign)."""
    if input._data.dtype == np.bool_:
        return clone(input)
    return renamed(sign(input), sgn.node)


@torch_node("Deg2RadBackward0")
def deg2rad(input):
    return renamed(mul(input, math.pi / 180.0), deg2rad.node)


@torch_node("Rad2DegBackward0")
def rad2deg(input):
    return renamed(mul(input, 180.0 / math.pi), rad2deg.node)


def positive(input):
    """``input`` itself (``+x``); a bool tensor is refused, as PyTorch refuses ``+`` of one."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def signbit(input):
    """True where the sign bit is set (-0.0 included); False for bools."""
    if input._data.dtype == np.bool_:
        return make(np.zeros(input._data.shape, bool))
    return apply(_R["Signbit"], (input,))


def _infinity_test(negative: bool, name: str):
    def f(input):
        d = input._data
        if d.dtype.kind != "f":
            return make(np.zeros(d.shape, bool))
        return make(np.isinf(d) & (np.signbit(d) == negative))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"True where ``input`` is {'-' if negative else '+'}inf (a bool tensor, no gradient)."
    return f


isneginf, isposinf = _infinity_test(True, "isneginf"), _infinity_test(False, "isposinf")


def isreal(input):
    """True everywhere: a real tensor's imaginary parts are all 0."""
    return make(np.ones(input._data.shape, bool))


def logcumsumexp(input, dim: int):
    """``log(cumsum(exp(input)))`` along ``dim``, without overflow (TF's CumulativeLogsumexp)."""
    _supported("logcumsumexp_out_cpu", "f", input)
    return _running("CumulativeLogsumexp", input, dim, {})


def _operators() -> dict:
    """PyTorch's bitwise operators and their reflected forms (``1 & x``), and ``__rdiv__``."""
    return {"__and__": bitwise_and, "__rand__": lambda s, o: bitwise_and(o, s),
            "__or__": bitwise_or, "__ror__": lambda s, o: bitwise_or(o, s),
            "__xor__": bitwise_xor, "__rxor__": lambda s, o: bitwise_xor(o, s),
            "__invert__": bitwise_not,
            "__lshift__": bitwise_left_shift, "__rlshift__": lambda s, o: bitwise_left_shift(o, s),
            "__rshift__": bitwise_right_shift,
            "__rrshift__": lambda s, o: bitwise_right_shift(o, s),
            "__rdiv__": lambda s, o: mul(reciprocal(s), o)}


OPERATORS = _operators()
METHODS = list(__all__)

"""More of ``torch.nn.functional``'s activations, each a composition of registry ops.

Their gradients come from the primitives; the last node of each is named as PyTorch names
the whole function (``F.mish(x).grad_fn`` is ``MishBackward0``).  Formulas and conventions at
the kinks are PyTorch 2.13's (checked against it: ``tests/test_more_ops.py``).

>>> import dyngraph as torch
>>> round(logsigmoid(torch.tensor(0.0)).item(), 6)
-0.693147
"""
from __future__ import annotations

import warnings

from common import REGISTRY

from .. import creation, functions as _f
from .. import pointwise as _pw
from ..engine import apply
from ..node import renamed as _named, torch_node as _torch_node
from ..selection import split, where

__all__ = ["logsigmoid", "glu", "mish", "hardswish", "hardsigmoid", "selu", "celu", "softmin",
           "softsign", "tanhshrink", "threshold", "threshold_", "rrelu", "hardswish_",
           "hardsigmoid_", "selu_", "celu_", "mish_"]

_R = REGISTRY

# SELU's constants (Klambauer et al. 2017), to the digits PyTorch uses
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _maybe_inplace(fn, input, inplace: bool, *args):
    return _pw.inplace(fn)(input, *args) if inplace else fn(input, *args)


def _softplus(x):
    """``log(1 + exp(x))`` without overflow (the registry's ``Softplus``)."""
    return apply(_R["Softplus"], (x,))


@_torch_node("LogSigmoidBackward0")
def logsigmoid(input):
    """``log(sigmoid(x)) = -softplus(-x)``: finite for every x."""
    return _named(_f.neg(_softplus(_f.neg(input))), logsigmoid.node)


@_torch_node("GluBackward0")
def glu(input, dim: int = -1):
    """``a * sigmoid(b)`` where ``a, b`` are the two halves of ``input`` along ``dim``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim()
    size = input.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    a, b = split(input, size // 2, d)
    return _named(_f.mul(a, _f.sigmoid(b)), glu.node)


@_torch_node("MishBackward0")
def _mish(input):
    return _named(_f.mul(input, _f.tanh(_softplus(input))), _mish.node)


def mish(input, inplace: bool = False):
    """``x * tanh(softplus(x))``."""
    return _maybe_inplace(_mish, input, inplace)


def mish_(input):
    return mish(input, True)


@_torch_node("HardswishBackward0")
def _hardswish(input):
    # pieces whose derivatives are PyTorch's: 0 below -3, x/3 + 1/2 on [-3, 3] (both ends
    # closed), 1 above 3
    mid = _f.div(_f.mul(input, _f.add(input, 3.0)), 6.0)
    out = where(_f.lt(input, -3.0), _f.mul(input, 0.0), where(_f.le(input, 3.0), mid, input))
    return _named(out, _hardswish.node)


def hardswish(input, inplace: bool = False):
    """``x * relu6(x + 3) / 6``."""
    return _maybe_inplace(_hardswish, input, inplace)


def hardswish_(input):
    return hardswish(input, True)


@_torch_node("HardsigmoidBackward0")
def _hardsigmoid(input):
    # gradient 1/6 strictly inside (-3, 3), 0 elsewhere (PyTorch's)
    inside = _f.logical_and(_f.gt(input, -3.0), _f.lt(input, 3.0))
    out = where(inside, _f.add(_f.div(input, 6.0), 0.5),
                where(_f.le(input, -3.0), _f.mul(input, 0.0), _f.add(_f.mul(input, 0.0), 1.0)))
    return _named(out, _hardsigmoid.node)


def hardsigmoid(input, inplace: bool = False):
    """``relu6(x + 3) / 6``."""
    return _maybe_inplace(_hardsigmoid, input, inplace)


def hardsigmoid_(input):
    return hardsigmoid(input, True)


def _elu_form(input, alpha: float, scale: float, input_scale: float, cls):
    """``scale * x`` above 0, ``scale * alpha * (exp(input_scale * x) - 1)`` at and below 0.

    The exponential is taken of ``min(x, 0)`` so its untaken branch cannot overflow.
    """
    neg = _f.mul(_pw.expm1(_f.mul(_f.clamp(input, max=0.0), input_scale)), scale * alpha)
    return apply(_R["Select"], (_f.gt(input, 0), _f.mul(input, scale), neg), cls=cls)


@_torch_node("EluBackward0")
def _selu(input):
    return _elu_form(input, SELU_ALPHA, SELU_SCALE, 1.0, _selu.node)


def selu(input, inplace: bool = False):
    """``scale * elu(x, alpha)`` with SELU's fixed constants."""
    return _maybe_inplace(_selu, input, inplace)


def selu_(input):
    return selu(input, True)


@_torch_node("CeluBackward0")
def _celu(input, alpha):
    return _elu_form(input, alpha, 1.0, 1.0 / alpha, _celu.node)


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _maybe_inplace(_celu, input, inplace, alpha)


def celu_(input, alpha: float = 1.0):
    return celu(input, alpha, True)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    """``softmax(-x)`` along ``dim``."""
    if dim is None:  # PyTorch's legacy implicit choice, with its warning
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=_stacklevel)
        dim = 0 if input.dim() in (0, 1, 3) else 1
    x = input if dtype is None else input.to(dtype)
    return _f.softmax(_f.neg(x), dim)


def softsign(input):
    """``x / (1 + |x|)``."""
    return _f.div(input, _f.add(_f.abs(input), 1))


def tanhshrink(input):
    """``x - tanh(x)``."""
    return _f.sub(input, _f.tanh(input))


@_torch_node("ThresholdBackward0")
def _threshold(input, threshold: float, value: float):
    return apply(_R["Select"], (_f.gt(input, threshold), input, _f.add(_f.mul(input, 0.0), value)),
                 cls=_threshold.node)


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """``x`` where ``x > threshold``, else ``value``."""
    return _maybe_inplace(_threshold, input, inplace, threshold, value)


def threshold_(input, threshold: float, value: float):
    return _maybe_inplace(_threshold, input, True, threshold, value)


@_torch_node("RreluWithNoiseBackward0")
def _rrelu(input, slope):
    return apply(_R["Select"], (_f.ge(input, 0), input, _f.mul(input, slope)), cls=_rrelu.node)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False):
    """Leaky ReLU with slope ``(lower + upper) / 2`` in evaluation; in training each negative
    element gets its own slope drawn uniformly from ``[lower, upper)`` (from dyngraph's
    default generator: the draws are not PyTorch's stream)."""
    if not 0 <= lower <= upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if training:
        slope = creation.empty(*input.shape, dtype=input.dtype).uniform_(lower, upper)
    else:
        slope = (lower + upper) / 2
    return _maybe_inplace(_rrelu, input, inplace, slope)

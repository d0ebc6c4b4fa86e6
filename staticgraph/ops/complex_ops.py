"""TF's complex-number functions: ``tf.math.conj``, ``real``, ``imag``, ``angle``, ``complex``.

As TF does, each accepts a real tensor too: ``conj`` and ``real`` return it as it is, ``imag``
its zeros and ``angle`` ``pi`` where it is negative (a ``Select``, TF's graph); only a complex
tensor gets the op (``Conj``, ``Real``, ``Imag``, ``Angle``).  ``abs`` of a complex tensor is a
``ComplexAbs`` node (:func:`.core_ops.abs`).
"""
from __future__ import annotations

import numpy as np

from common import REGISTRY

from ..framework.build import apply, constant, convert_to_tensor
from ..framework.graph import name_scope

__all__ = ["conj", "real", "imag", "angle", "complex"]

_R = REGISTRY


def conj(x, name=None):
    """The complex conjugate; a real number tensor is its own (returned unchanged)."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return apply(_R["Conj"], (x,), {}, name=name or "Conj")
    if x.dtype.is_floating or x.dtype.is_integer:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


def real(input, name=None):  # noqa: A002  (TF's name)
    """The real parts (float32 for complex64, float64 for complex128); a real tensor itself."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:
        return apply(_R["Real"], (x,), {}, name=name or "Real")
    return x


def imag(input, name=None):  # noqa: A002
    """The imaginary parts; zeros for a real tensor."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:
        return apply(_R["Imag"], (x,), {}, name=name or "Imag")
    with name_scope(name, "Imag"):
        return apply(_R["ZerosLike"], (x,), {}, name="zeros_like")


def angle(input, name=None):  # noqa: A002
    """The argument ``atan2(imag, real)``; for a real tensor ``pi`` where it is negative, else 0
    (TF's ``where(x < 0, pi * ones_like(x), zeros_like(x))``)."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:
        return apply(_R["Angle"], (x,), {}, name=name or "Angle")
    with name_scope(name, "Angle"):
        negative = apply(_R["Less"], (x, constant(0, dtype=x.dtype)), {}, name="Less")
        pi = apply(_R["Mul"], (constant(np.pi, dtype=x.dtype),
                               apply(_R["OnesLike"], (x,), {}, name="ones_like")), {}, name="mul")
        return apply(_R["Select"], (negative, pi, apply(_R["ZerosLike"], (x,), {},
                                                         name="zeros_like")), {}, name="Select")


def complex(real, imag, name=None):  # noqa: A001
    """``real + i imag``: float32 parts give complex64, float64 parts complex128 (both parts
    of one dtype, else TF's ``TypeError``)."""
    re, im = convert_to_tensor(real), convert_to_tensor(imag)
    if re.dtype != im.dtype or re.dtype.name not in ("float32", "float64"):
        raise TypeError(f"The `real` and `imag` components have incorrect types: "
                        f"{re.dtype.name} {im.dtype.name}. They must be consistent, and one of "
                        f"[tf.float32, tf.float64]")
    return apply(_R["Complex"], (re, im), {}, name=name or "Complex")

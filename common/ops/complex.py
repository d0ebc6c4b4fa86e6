"""Complex numbers: conj, real, imag, angle, complex, and the absolute value of a complex tensor.

Gradients follow the convention TF and PyTorch share (measured in TF 2.21 and torch 2.13):
for a real loss L of z = x + iy the gradient is ``dL/dx + i dL/dy``.  So ``real(z)`` passes
``g`` back as ``g + 0j``, ``imag(z)`` as ``0 + gj``, ``conj(z)`` as ``conj(g)``, and a
holomorphic op multiplies ``g`` by its derivative's conjugate (:func:`common.shapes.conjugate`,
which the arithmetic rules call).  An op given a real tensor treats it as a complex one with
zero imaginary part, except where the frameworks refuse (the engines' front ends decide).
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError
from ..examples import Example as E
from ..registry import Spec, defop
from ..shapes import broadcast_shapes, real_dtype, unbroadcast as ub
from .elementwise import BINARY, UNARY, same

_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


def _real_part(x: Spec) -> Spec:
    return Spec(x.shape, real_dtype(x.dtype))


def _conj(x):
    """``conj(x)``: a real tensor is its own conjugate (returned as it is, as TF and torch)."""
    x = np.asarray(x)
    return np.conjugate(x) if x.dtype.kind == "c" else x


def _real(x):
    return np.real(x)          # a view of a complex array's real parts; a real array itself


def _imag(x):
    x = np.asarray(x)
    return np.imag(x).copy() if x.dtype.kind == "c" else np.zeros_like(x)


def _angle(x):
    return np.angle(x)         # atan2(imag, real); 0 or pi for a real tensor


def _angle_infer(x: Spec) -> Spec:
    """numpy's: a float's angle keeps its dtype, an integer's or a bool's is float64."""
    dtype = np.dtype(x.dtype)
    return Spec(x.shape, real_dtype(dtype) if dtype.kind in "fc" else np.dtype(np.float64))


def _complex_infer(re: Spec, im: Spec) -> Spec:
    """TF's rule: both parts of one dtype, float32 (-> complex64) or float64 (-> complex128)."""
    return Spec(broadcast_shapes(re.shape, im.shape), _complex_dtype(re.dtype, im.dtype))


def _complex_dtype(re_t, im_t) -> np.dtype:
    re_t, im_t = np.dtype(re_t), np.dtype(im_t)
    if re_t != im_t or re_t not in _COMPLEX_OF:
        raise DTypeError(f"The `real` and `imag` components have incorrect types: {re_t} {im_t}. "
                         f"They must be consistent, and one of [tf.float32, tf.float64]")
    return _COMPLEX_OF[re_t]


def _complex(re, im):
    """``re + i im``, each part written as it is (``re + 1j * im`` would turn an infinite
    imaginary part's ``0 * inf`` into a NaN real part)."""
    re, im = np.asarray(re), np.asarray(im)
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), _complex_dtype(re.dtype, im.dtype))
    out.real, out.imag = re, im
    return out


def _angle_grad(F, g, x):
    """``g * i z / |z|^2`` (0 where z = 0) for a complex z; zero for a real tensor."""
    if F.dtype(x).kind != "c":
        return F.zeros_like(g)
    re, im = F.real(x), F.imag(x)
    d = F.add(F.mul(re, re), F.mul(im, im))
    nonzero = F.ne(d, 0.0)
    d = F.where(nonzero, d, 1.0)
    return F.complex(F.where(nonzero, F.div(F.mul(F.neg(g), im), d), 0.0),
                     F.where(nonzero, F.div(F.mul(g, re), d), 0.0))


def _to_input_dtype(F, g, x_shape):
    """``g`` as the input's dtype (real -> complex: ``g + 0j``)."""
    return F.cast(g, dtype=F.dtype(x_shape))


defop("Conj", _conj, same, inputs=("x",), fname="conj", aliases=(0,), examples=UNARY,
      grads=(lambda F, g: F.conj(g),))
defop("Real", _real, _real_part, inputs=("x",), fname="real", aliases=(0,), examples=UNARY,
      grads=(_to_input_dtype,))
defop("Imag", _imag, _real_part, inputs=("x",), fname="imag", examples=UNARY,
      grads=(lambda F, g, x_shape: (F.complex(F.zeros_like(g), g) if F.dtype(x_shape).kind == "c"
                                    else F.zeros_like(g)),))
defop("Angle", _angle, _angle_infer, inputs=("x",), fname="angle", examples=UNARY,
      grads=(_angle_grad,))
defop("Complex", _complex, _complex_infer, inputs=("re", "im"), fname="complex", examples=BINARY,
      grads=(lambda F, g, re_shape: ub(F, F.real(g), re_shape),
             lambda F, g, im_shape: ub(F, F.imag(g), im_shape)))
defop("ComplexAbs", np.abs, _real_part, inputs=("x",), fname="complex_abs",
      torch_name="AbsBackward0", examples=UNARY,
      doc="``|z|``: TF's op type for ``tf.abs`` of a complex tensor (``Abs`` for a real one).",
      grads=(lambda F, g, x: F.mul(g, F.sign(x)),))

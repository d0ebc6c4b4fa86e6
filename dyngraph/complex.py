"""Complex tensors: ``torch.conj``, ``real``, ``imag``, ``angle``, ``complex``, ``polar``,
``view_as_real``/``view_as_complex``, ``sgn``, ``vdot``, ``isreal``, ``is_complex``.

Each maps PyTorch's spelling onto the registry's complex ops (``common/ops/complex.py``), so
gradients follow the convention PyTorch and TF share (the conjugate Wirtinger derivative:
``dL/dx + i dL/dy`` for a real loss L).  PyTorch's conjugate is a lazy view (``is_conj()``);
here it is computed, so ``resolve_conj``/``resolve_neg`` have nothing to resolve.

>>> import dyngraph as torch
>>> z = torch.tensor([1 + 2j, 3 - 1j])
>>> z.conj(), z.abs().dtype
(tensor([1.-2.j, 3.+1.j]), torch.float32)
"""
from __future__ import annotations

import numpy as np

from common import REGISTRY

from . import functions
from .creation import ones_like
from .dtypes import bool_
from .engine import apply
from .functions import _t
from .selection import where
from .tensor import Tensor

__all__ = ["conj", "conj_physical", "resolve_conj", "resolve_neg", "real", "imag", "angle",
           "complex", "polar", "view_as_real", "view_as_complex", "sgn", "vdot", "isreal",
           "is_complex", "is_conj"]

METHODS = ["conj", "conj_physical", "resolve_conj", "resolve_neg", "angle", "sgn", "vdot",
           "isreal", "is_complex", "is_conj"]

_R = REGISTRY
_FLOATS = {np.dtype(np.float16): "Half", np.dtype(np.float32): "Float",
           np.dtype(np.float64): "Double"}


def _is_complex(x: Tensor) -> bool:
    return x._data.dtype.kind == "c"


def conj(input: Tensor) -> Tensor:
    """The complex conjugate; a real tensor is returned as it is (PyTorch's ``conj``)."""
    return apply(_R["Conj"], (input,)) if _is_complex(input) else input


def conj_physical(input: Tensor) -> Tensor:
    """The conjugate, always a new tensor (a real one is copied)."""
    return apply(_R["Conj"], (input,)) if _is_complex(input) else functions.clone(input)


def resolve_conj(input: Tensor) -> Tensor:
    """Itself: conjugates here are computed, never lazy views."""
    return input


resolve_neg = resolve_conj


def is_conj(input: Tensor) -> bool:
    """False: no tensor here carries PyTorch's lazy conjugate bit."""
    return False


def real(input: Tensor) -> Tensor:
    """The real parts (a view of a complex tensor); a real tensor itself."""
    return apply(_R["Real"], (input,)) if _is_complex(input) else input


def imag(input: Tensor) -> Tensor:
    """The imaginary parts; PyTorch refuses a real tensor."""
    if not _is_complex(input):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return apply(_R["Imag"], (input,))


def angle(input: Tensor) -> Tensor:
    """The argument of each element (``pi`` for a negative real, 0 otherwise); integers give
    the default float dtype."""
    return apply(_R["Angle"], (input,))


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001  (torch's name)
    """``real + i imag`` from two float tensors of one dtype (PyTorch's checks and words)."""
    a, b = real._data.dtype, imag._data.dtype
    if a not in _FLOATS or b not in _FLOATS:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{real.dtype.scalar_name} and {imag.dtype.scalar_name}")
    if a != b:
        raise RuntimeError(f"Expected object of scalar type {_FLOATS[a]} but got scalar type "
                           f"{_FLOATS[b]} for second argument")
    return apply(_R["Complex"], (real, imag))


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002
    """``abs * (cos(angle) + i sin(angle))``."""
    return complex(functions.mul(abs, angle.cos()), functions.mul(abs, angle.sin()))


def view_as_real(input: Tensor) -> Tensor:
    """A complex tensor as real pairs: shape ``(..., 2)`` (real, imaginary)."""
    if not _is_complex(input):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return functions.stack([real(input), imag(input)], -1)


def view_as_complex(input: Tensor) -> Tensor:
    """A float tensor of shape ``(..., 2)`` as complex numbers (PyTorch's checks)."""
    if input._data.dtype not in _FLOATS or input._data.dtype == np.float16:
        raise RuntimeError("view_as_complex is only supported for float and double tensors, "
                           f"but got a tensor of scalar type: {input.dtype.scalar_name}")
    if input.dim() == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    return complex(input[..., 0], input[..., 1])


def sgn(input: Tensor) -> Tensor:
    """``z / |z|`` (0 at 0) for a complex tensor, ``sign`` for a real one."""
    if not _is_complex(input):
        return functions.sign(input)
    a = input.abs()
    return functions.div(input, where(a == 0, 1.0, a))


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """``sum(conj(input) * other)`` of two 1-D tensors."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           f"tensors")
    return functions.mul(conj(input), other).sum()


def isreal(input) -> Tensor:
    """Which elements have a zero imaginary part (every element of a real tensor)."""
    x = _t(input)
    if _is_complex(x):
        return imag(x) == 0
    return ones_like(x, dtype=bool_)


def is_complex(input: Tensor) -> bool:
    return _is_complex(input)


def _real_property(self):
    return real(self)


def _imag_property(self):
    return imag(self)


PROPERTIES = {"real": property(_real_property), "imag": property(_imag_property)}

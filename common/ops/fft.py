"""Discrete Fourier transforms: complex-to-complex (FFTN), real-to-complex (RFFTN, the onesided
half spectrum) and complex-to-real (IRFFTN), over any set of axes, with numpy's ``norm`` modes.

The front ends resize the input first (torch's ``n``/``s``: trim or zero-pad, ordinary ops with
their own gradients); the transforms here never change an axis' length, except IRFFTN's last
axis (``n`` real samples from ``n // 2 + 1`` frequencies).

Gradients, as PyTorch derives them (``FunctionsManual.cpp``): the DFT is linear, so a
transform's gradient is its adjoint -- the opposite direction with the opposite
normalisation (``backward`` <-> ``forward``, ``ortho`` is its own):

* FFTN: ``ifftn(g)`` (or ``fftn`` for the inverse) under the swapped norm;
* RFFTN (``fft_r2c_backward``): zero-pad ``g`` to the full length, inverse C2C, real part;
* IRFFTN (``fft_c2r_backward``): ``rfftn(g)``, with the frequencies 1 .. n - (n//2 + 1) doubled
  (each stands for itself and its conjugate mirror, which the half spectrum leaves out).

A real input's gradient is the real part (the convention of ``common.ops.complex``).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..errors import DTypeError
from ..examples import Example as E
from ..registry import Spec, defop

NORMS = ("backward", "forward", "ortho")
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


@lru_cache(maxsize=None)
def _fft_dtype(dtype: np.dtype, kind: str) -> np.dtype:
    """The dtype numpy's transform gives for this input dtype (``c``: complex result)."""
    if np.dtype(dtype).kind not in "biufc":
        raise DTypeError(f"FFT is not implemented for {np.dtype(dtype)} tensors")
    if kind == "r" and np.dtype(dtype).kind == "c":
        raise DTypeError("RFFT needs a real input")
    probe = np.zeros(2, dtype)
    out = np.fft.irfft(probe) if kind == "c2r" else np.fft.fft(probe.real if kind == "r" else probe)
    return out.dtype


def _fftn(x, axes, inverse=False, norm="backward"):
    return (np.fft.ifftn if inverse else np.fft.fftn)(x, axes=axes, norm=norm)


def _fftn_infer(x: Spec, axes, inverse=False, norm="backward") -> Spec:
    return Spec(x.shape, _fft_dtype(np.dtype(x.dtype), "c"))


def _real_like(F, g, x_shape):
    """``g`` for an input of ``x_shape``'s dtype: its real part for a real input."""
    return g if F.dtype(x_shape).kind == "c" else F.real(g)


def _fftn_grad(F, g, x_shape, axes, inverse, norm):
    return _real_like(F, F.fftn(g, axes=axes, inverse=not inverse, norm=_SWAP[norm]), x_shape)


def _rfftn(x, axes, norm="backward"):
    return np.fft.rfftn(x, axes=axes, norm=norm)


def _rfftn_infer(x: Spec, axes, norm="backward") -> Spec:
    dtype = _fft_dtype(np.dtype(x.dtype), "r")
    if x.shape is None:
        return Spec(None, dtype)
    last = axes[-1] % len(x.shape)
    shape = list(x.shape)
    shape[last] = None if shape[last] is None else shape[last] // 2 + 1
    return Spec(tuple(shape), dtype)


def _rfftn_grad(F, g, x_shape, axes, norm):
    """torch's fft_r2c_backward: the half spectrum's gradient padded to the full length with
    zeros, then the inverse complex transform; the input is real, so the real part."""
    rank = F.rank(x_shape)
    last = axes[-1] % rank
    n, m = F.shape(x_shape)[last], F.shape(g)[last]
    pads = tuple((0, n - m) if i == last else (0, 0) for i in range(rank))
    full = F.pad_constant(g, paddings=pads) if n > m else g
    return F.real(F.fftn(full, axes=axes, inverse=True, norm=_SWAP[norm]))


def _irfftn(x, axes, n, norm="backward"):
    shape = [x.shape[a] for a in axes[:-1]] + [n]
    return np.fft.irfftn(x, s=shape, axes=axes, norm=norm)


def _irfftn_infer(x: Spec, axes, n, norm="backward") -> Spec:
    dtype = _fft_dtype(np.dtype(x.dtype), "c2r")
    if x.shape is None:
        return Spec(None, dtype)
    shape = list(x.shape)
    shape[axes[-1] % len(shape)] = n
    return Spec(tuple(shape), dtype)


def _irfftn_grad(F, g, x_shape, axes, n, norm):
    """torch's fft_c2r_backward: ``rfftn(g)``, frequencies 1 .. n - (n//2 + 1) doubled."""
    gi = F.rfftn(g, axes=axes, norm=_SWAP[norm])
    rank = F.rank(x_shape)
    last = axes[-1] % rank
    m = n // 2 + 1
    double = n - m
    if double > 0:
        scale = np.ones(m)
        scale[1:1 + double] = 2.0
        scale = scale.reshape((m,) + (1,) * (rank - 1 - last))
        gi = F.mul(gi, scale.astype(np.dtype(F.dtype(g))))
    return _real_like(F, gi, x_shape)


defop("FFTN", _fftn, _fftn_infer, inputs=("x",), fname="fftn", torch_name="FftC2CBackward0",
      examples=(E(((3, 4),), {"axes": (1,)}), E(((2, 3, 4),), {"axes": (0, 2), "norm": "ortho"}),
                E(((5,),), {"axes": (0,), "inverse": True, "norm": "forward"})),
      grads=(_fftn_grad,))
defop("RFFTN", _rfftn, _rfftn_infer, inputs=("x",), fname="rfftn", torch_name="FftR2CBackward0",
      examples=(E(((3, 4),), {"axes": (1,)}), E(((2, 5),), {"axes": (0, 1), "norm": "ortho"})),
      grads=(_rfftn_grad,))
defop("IRFFTN", _irfftn, _irfftn_infer, inputs=("x",), fname="irfftn",
      torch_name="FftC2RBackward0",
      examples=(E(((3, 4),), {"axes": (1,), "n": 6}), E(((3, 4),), {"axes": (1,), "n": 7}),
                E(((2, 3),), {"axes": (0, 1), "n": 4, "norm": "forward"}),
                E(((2, 3),), {"axes": (0, 1), "n": 5, "norm": "ortho"})),
      grads=(_irfftn_grad,))

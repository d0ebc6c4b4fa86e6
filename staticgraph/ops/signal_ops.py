"""``tf.signal``'s Fourier transforms: ``fft``/``ifft`` (and 2D, 3D) of complex tensors,
``rfft``/``irfft`` (and 2D, 3D) between real signals and their half spectra, over the innermost
1, 2 or 3 dims, under TF's op types (``FFT``, ``IFFT2D``, ``RFFT``, ``IRFFT3D``...).

Each is a registry transform (``common/ops/fft.py``), so its gradient is the adjoint transform.
``fft_length`` crops or zero-pads the innermost dims first (TF's ``Pad``/slice); for the inverse
real transforms the default is ``2 * (n - 1)`` along the last dim.
"""
from __future__ import annotations

from common import REGISTRY

from ..framework.build import apply, convert_to_tensor
from ..framework.graph import name_scope
from .array_ops import pad, slice as _slice

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d"]

_R = REGISTRY


def _innermost(x, rank: int) -> tuple[int, ...]:
    if x.ndim is None:
        return tuple(range(-rank, 0))
    if x.ndim < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {x.ndim}")
    return tuple(range(x.ndim - rank, x.ndim))


def _c2c(op_type: str, rank: int, inverse: bool):
    def transform(input, name=None):  # noqa: A002  (TF's name)
        x = convert_to_tensor(input)
        if not x.dtype.is_complex:
            raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not "
                            f"in list of allowed values: complex64, complex128")
        return apply(_R["FFTN"], (x,), {"axes": _innermost(x, rank), "inverse": inverse,
                                        "norm": "backward"}, name=name or op_type, tf_type=op_type)
    transform.__name__ = op_type.lower()
    transform.__doc__ = f"TF's ``{op_type}``: the {'inverse ' if inverse else ''}DFT over the " \
                        f"innermost {rank} dim(s) of a complex tensor."
    return transform


fft, ifft = _c2c("FFT", 1, False), _c2c("IFFT", 1, True)
fft2d, ifft2d = _c2c("FFT2D", 2, False), _c2c("IFFT2D", 2, True)
fft3d, ifft3d = _c2c("FFT3D", 3, False), _c2c("IFFT3D", 3, True)


def _resize(x, axes, lengths):
    """``x`` cropped or zero-padded at the end of each of ``axes`` to ``lengths``."""
    shape = x.shape.as_list()
    if any(shape[a] is None for a in axes):
        raise ValueError("fft_length needs the transformed dims known when the graph is built")
    wanted = dict(zip(axes, lengths))
    target = [wanted.get(a) for a in range(len(shape))]       # None: a dim left as it is
    if any(t is not None and t < s for t, s in zip(target, shape)):
        x = _slice(x, [0] * len(shape), [-1 if t is None else min(t, s)
                                         for t, s in zip(target, shape)])
    if any(t is not None and t > s for t, s in zip(target, shape)):
        x = pad(x, [[0, 0 if t is None else max(0, t - s)] for t, s in zip(target, shape)])
    return x


def _r2c(op_type: str, rank: int):
    def transform(input_tensor, fft_length=None, name=None):
        with name_scope(name, op_type.lower()) as scope:
            x = convert_to_tensor(input_tensor)
            if x.dtype.name not in ("float32", "float64"):
                raise ValueError(f"{op_type} requires tf.float32 or tf.float64 inputs, got: {x}")
            axes = _innermost(x, rank)
            if fft_length is not None and x.ndim is not None:
                x = _resize(x, axes, [int(n) for n in fft_length])
            return apply(_R["RFFTN"], (x,), {"axes": axes, "norm": "backward"},
                         name=scope, tf_type=op_type)
    transform.__name__ = op_type.lower()
    transform.__doc__ = f"TF's ``{op_type}``: the half spectrum of a real signal's innermost " \
                        f"{rank} dim(s)."
    return transform


def _c2r(op_type: str, rank: int):
    def transform(input_tensor, fft_length=None, name=None):
        with name_scope(name, op_type.lower()) as scope:
            x = convert_to_tensor(input_tensor)
            if not x.dtype.is_complex:
                raise ValueError(f"{op_type} requires tf.complex64 or tf.complex128 inputs, "
                                 f"got: {x}")
            axes = _innermost(x, rank)
            shape = x.shape.as_list()
            if fft_length is None:
                lengths = [shape[a] for a in axes[:-1]] + [2 * (shape[axes[-1]] - 1)]
            else:
                lengths = [int(n) for n in fft_length]
            x = _resize(x, axes, lengths[:-1] + [lengths[-1] // 2 + 1])
            return apply(_R["IRFFTN"], (x,), {"axes": axes, "n": lengths[-1], "norm": "backward"},
                         name=scope, tf_type=op_type)
    transform.__name__ = op_type.lower()
    transform.__doc__ = f"TF's ``{op_type}``: the real signal of a half spectrum over the " \
                        f"innermost {rank} dim(s)."
    return transform


rfft, irfft = _r2c("RFFT", 1), _c2r("IRFFT", 1)
rfft2d, irfft2d = _r2c("RFFT2D", 2), _c2r("IRFFT2D", 2)
rfft3d, irfft3d = _r2c("RFFT3D", 3), _c2r("IRFFT3D", 3)

"""``torch.fft``: the 20 transforms and shifts, with PyTorch's ``n``/``s``, ``dim`` and ``norm``.

Every transform is one of three registry primitives (``common/ops/fft.py``: FFTN, RFFTN,
IRFFTN) after the input is resized along the transformed dims (trimmed with ``narrow`` or
zero-padded, ordinary recorded ops), so the gradients are PyTorch's: the primitives carry
``fft_r2c_backward``/``fft_c2r_backward``, the resizing its own.  Hermitian transforms are
the real ones around a conjugate, as PyTorch defines them::

    hfftn(x, s, dim, norm)  = irfftn(conj(x), s, dim, swapped norm)
    ihfftn(x, s, dim, norm) = conj(rfftn(x, s, dim, swapped norm))

>>> import dyngraph as torch
>>> torch.fft.fft(torch.tensor([1., 2., 3., 4.]))
tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
"""
from __future__ import annotations

import builtins

from common import REGISTRY
from common.ops.fft import NORMS

from .complex import conj
from .dtypes import get_default_dtype
from .engine import apply
from .selection import _dim, narrow, roll
from .tensor import Tensor

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftshift",
           "ifftshift"]

_R = REGISTRY
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm(norm: str | None) -> str:
    if norm is None:
        return "backward"
    if norm not in NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _floating(x: Tensor) -> Tensor:
    """Integers and bools are transformed in the default float dtype, as PyTorch."""
    return x if x._data.dtype.kind in "fc" else x.to(get_default_dtype())


def _plan(x: Tensor, s, dim, default_dims) -> tuple[tuple[int, ...], list]:
    """PyTorch's canonical (dims, sizes): ``dim`` wrapped and unique, ``s`` (or the input's
    sizes; -1 keeps one) with every size >= 1."""
    dim = (dim,) if isinstance(dim, builtins.int) else dim     # one dim, as torch accepts
    s = (s,) if isinstance(s, builtins.int) else s
    if s is not None and dim is not None and len(s) != len(dim):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    rank = x.dim()
    if dim is None:
        dim = default_dims(rank) if s is None else tuple(range(rank - len(s), rank))
    dims = tuple(_dim(d, rank) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    sizes = [x.shape[d] if s is None or s[k] == -1 else builtins.int(s[k])
             for k, d in enumerate(dims)]
    return dims, sizes


def _check_sizes(sizes) -> None:
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x: Tensor, dims, sizes) -> Tensor:
    """``x`` trimmed or zero-padded at the end of each dim in ``dims`` to ``sizes``."""
    pads = [(0, 0)] * x.dim()
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if n < have:
            x = narrow(x, d, 0, n)
        elif n > have:
            pads[d] = (0, n - have)
    if any(p != (0, 0) for p in pads):
        x = apply(_R["Pad"], (x,), {"paddings": tuple(pads)})
    return x


def _c2c(input, s, dim, norm, inverse: bool, default_dims) -> Tensor:
    x = _floating(input)
    dims, sizes = _plan(x, s, dim, default_dims)
    _check_sizes(sizes)
    return apply(_R["FFTN"], (_resize(x, dims, sizes),),
                 {"axes": dims, "inverse": inverse, "norm": _norm(norm)})


def _r2c(name: str, input, s, dim, norm, default_dims) -> Tensor:
    x = _floating(input)
    if x._data.dtype.kind == "c":
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype.scalar_name}")
    dims, sizes = _plan(x, s, dim, default_dims)
    _check_sizes(sizes)
    return apply(_R["RFFTN"], (_resize(x, dims, sizes),), {"axes": dims, "norm": _norm(norm)})


def _c2r(input, s, dim, norm, default_dims) -> Tensor:
    x = _floating(input)
    dims, sizes = _plan(x, s, dim, default_dims)
    if s is None or s[-1] == -1:
        sizes[-1] = 2 * (x.shape[dims[-1]] - 1)   # the default: an even length
    _check_sizes(sizes)
    n = sizes[-1]
    x = _resize(x, dims, sizes[:-1] + [n // 2 + 1])
    return apply(_R["IRFFTN"], (x,), {"axes": dims, "n": n, "norm": _norm(norm)})


def _last(rank: int) -> tuple[int, ...]:
    return (-1,)


def _last_two(rank: int) -> tuple[int, ...]:
    return (-2, -1)


def _all(rank: int) -> tuple[int, ...]:
    return tuple(range(rank))


def _one(n, dim) -> tuple:
    return (None if n is None else (n,)), (dim,)


def fft(input, n=None, dim=-1, norm=None):
    return _c2c(input, *_one(n, dim), norm, False, _last)


def ifft(input, n=None, dim=-1, norm=None):
    return _c2c(input, *_one(n, dim), norm, True, _last)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2c(input, s, dim, norm, False, _last_two)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2c(input, s, dim, norm, True, _last_two)


def fftn(input, s=None, dim=None, norm=None):
    return _c2c(input, s, dim, norm, False, _all)


def ifftn(input, s=None, dim=None, norm=None):
    return _c2c(input, s, dim, norm, True, _all)


def rfft(input, n=None, dim=-1, norm=None):
    return _r2c("rfft", input, *_one(n, dim), norm, _last)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    return _r2c("rfftn", input, s, dim, norm, _last_two)


def rfftn(input, s=None, dim=None, norm=None):
    return _r2c("rfftn", input, s, dim, norm, _all)


def irfft(input, n=None, dim=-1, norm=None):
    return _c2r(input, *_one(n, dim), norm, _last)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2r(input, s, dim, norm, _last_two)


def irfftn(input, s=None, dim=None, norm=None):
    return _c2r(input, s, dim, norm, _all)


def hfft(input, n=None, dim=-1, norm=None):
    """The real signal of a Hermitian-symmetric spectrum's half: ``irfft(conj(x))``."""
    return _c2r(conj(_floating(input)), *_one(n, dim), _SWAP[_norm(norm)], _last)


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2r(conj(_floating(input)), s, dim, _SWAP[_norm(norm)], _last_two)


def hfftn(input, s=None, dim=None, norm=None):
    return _c2r(conj(_floating(input)), s, dim, _SWAP[_norm(norm)], _all)


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`hfft`: ``conj(rfft(x))`` of a real signal."""
    return conj(_r2c("ihfft", input, *_one(n, dim), _SWAP[_norm(norm)], _last))


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    return conj(_r2c("ihfftn", input, s, dim, _SWAP[_norm(norm)], _last_two))


def ihfftn(input, s=None, dim=None, norm=None):
    return conj(_r2c("ihfftn", input, s, dim, _SWAP[_norm(norm)], _all))


def _shift(input: Tensor, dim, sign: int) -> Tensor:
    rank = input.dim()
    dims = _all(rank) if dim is None else (dim,) if isinstance(dim, builtins.int) else tuple(dim)
    dims = tuple(_dim(d, rank) for d in dims)
    return roll(input, tuple(sign * (input.shape[d] // 2) for d in dims), dims)


def fftshift(input, dim=None):
    """The zero frequency moved to the centre: each dim rolled by half its size."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift` (they differ for odd sizes)."""
    return _shift(input, dim, -1)

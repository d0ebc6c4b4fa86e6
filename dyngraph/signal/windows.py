"""``torch.signal.windows``: the window functions of spectral analysis, with PyTorch's keyword
arguments, defaults and checks.

Each is PyTorch's formula over a ``linspace`` of ``M`` points computed in the requested dtype
(float32 or float64); ``sym=False`` gives the periodic window (the first ``M`` points of a
symmetric window of ``M + 1``), as ``scipy.signal.windows`` does. The cosine-sum windows
(``hann``, ``hamming``, ``blackman``, ``nuttall``) are ``general_cosine`` with their
coefficients.

>>> import dyngraph as torch
>>> torch.signal.windows.hann(5).tolist()
[0.0, 0.5, 1.0, 0.5, 0.0]
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import scipy.special as sc

from ..creation import _dtype, _leaf
from ..device import check_device
from ..dtypes import to_dtype
from ..memory_format import strided
from ..tensor import Tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _points(name: str, M: int, dtype, layout, device) -> np.dtype:
    """PyTorch's checks of every window (``_window_function_checks``); the numpy dtype."""
    check_device(device)
    dt = _dtype(dtype)
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dt not in (np.float32, np.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {to_dtype(dt)}")
    return dt


def _done(values, dt: np.dtype, requires_grad: bool) -> Tensor:
    return _leaf(np.asarray(values, dt), requires_grad)


def _span(sym: bool, M: int) -> int:
    """The denominator PyTorch spreads a window over: ``M - 1`` points apart when symmetric,
    ``M`` when periodic."""
    return M if not sym else M - 1


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype=None, layout=strided, device=None, requires_grad: bool = False) -> Tensor:
    """``exp(-|n - center| / tau)``; ``center`` defaults to the middle (given only when
    ``sym=False``)."""
    dt = _points("exponential", M, dtype, layout, device)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _done(np.empty(0), dt, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = np.linspace(-center / tau, (-center + (M - 1)) / tau, M, dtype=dt)
    return _done(np.exp(-np.abs(k)), dt, requires_grad)


def cosine(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
           requires_grad: bool = False) -> Tensor:
    """``sin(pi (n + 0.5) / M)`` (``M + 1`` when periodic)."""
    dt = _points("cosine", M, dtype, layout, device)
    if M == 0:
        return _done(np.empty(0), dt, requires_grad)
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = np.linspace(0.5 * constant, (0.5 + (M - 1)) * constant, M, dtype=dt)
    return _done(np.sin(k), dt, requires_grad)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=strided,
             device=None, requires_grad: bool = False) -> Tensor:
    """``exp(-(n - centre)^2 / (2 std^2))``."""
    dt = _points("gaussian", M, dtype, layout, device)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _done(np.empty(0), dt, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = np.linspace(start * constant, (start + (M - 1)) * constant, M, dtype=dt)
    return _done(np.exp(-(k ** 2)), dt, requires_grad)


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=strided,
           device=None, requires_grad: bool = False) -> Tensor:
    """``i0(beta sqrt(1 - (2n/N - 1)^2)) / i0(beta)``, ``N = M - 1`` (``M`` when periodic)."""
    dt = _points("kaiser", M, dtype, layout, device)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _done(np.ones(M), dt, requires_grad)
    b = dt.type(beta)
    constant = 2.0 * b / _span(sym, M)
    k = np.linspace(-b, min(b, -b + (M - 1) * constant), M, dtype=dt)
    with np.errstate(invalid="ignore"):
        root = np.sqrt(b * b - k ** 2)
    return _done(sc.i0(root.astype(np.float64)) / sc.i0(float(b)), dt, requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
             requires_grad: bool = False) -> Tensor:
    """The triangle ``1 - |2n/N - 1|``, ``N = M - 1`` (``M`` when periodic)."""
    dt = _points("bartlett", M, dtype, layout, device)
    if M <= 1:
        return _done(np.ones(M), dt, requires_grad)
    constant = 2 / _span(sym, M)
    k = np.linspace(-1, -1 + (M - 1) * constant, M, dtype=dt)
    return _done(1 - np.abs(k), dt, requires_grad)


def general_cosine(M: int, *, a: Iterable, sym: bool = True, dtype=None, layout=strided,
                   device=None, requires_grad: bool = False) -> Tensor:
    """``sum_i (-1)^i a_i cos(2 pi i n / N)``, ``N = M - 1`` (``M`` when periodic)."""
    dt = _points("general_cosine", M, dtype, layout, device)
    if M <= 1:
        return _done(np.ones(M), dt, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / _span(sym, M)
    k = np.linspace(0, (M - 1) * constant, M, dtype=dt)
    a_i = np.array([(-1) ** i * w for i, w in enumerate(a)], dtype=dt)
    i = np.arange(a_i.shape[0], dtype=dt)
    return _done((a_i[:, None] * np.cos(i[:, None] * k)).sum(0), dt, requires_grad)


def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True, dtype=None,
                    layout=strided, device=None, requires_grad: bool = False) -> Tensor:
    """``alpha - (1 - alpha) cos(2 pi n / N)``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
            requires_grad: bool = False) -> Tensor:
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
         requires_grad: bool = False) -> Tensor:
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
             requires_grad: bool = False) -> Tensor:
    _points("blackman", M, dtype, layout, device)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
            requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)

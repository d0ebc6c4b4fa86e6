"""``torch.nn.init``: in-place parameter initialisers, with PyTorch's fan and gain rules.

Each fills a tensor without recording a graph and returns it.  Draws come
from the default generator (``torch.manual_seed``) or the ``generator`` given, through
the tensor's own ``uniform_``/``normal_`` with the bounds computed in PyTorch's order of
operations -- so a seeded initialisation gives PyTorch's values, bit for bit (but for
``orthogonal_``'s QR, numpy's LAPACK, equal to float32 rounding, and see ``trunc_normal_``).

>>> import dyngraph as torch
>>> w = torch.empty(3, 5)
>>> _ = xavier_uniform_(w)
>>> bool((w.abs() <= (6 / 8) ** 0.5).all())
True
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import random
from ..grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "dirac_", "sparse_"]


def _fill(tensor: Tensor, values) -> Tensor:
    """Write ``values`` into ``tensor``'s memory (no graph: initialisers run as under no_grad)."""
    tensor._data[...] = values
    tensor._vc[0] += 1
    return tensor


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended scale for an activation (PyTorch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1  # an int, as PyTorch returns it
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    with no_grad():
        return random.uniform_(tensor, a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    with no_grad():
        return random.normal_(tensor, mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator=None) -> Tensor:
    """Normal(mean, std) truncated to [a, b], by PyTorch 2.13's rejection sampling.

    When most of the mass is inside (``p > 0.3``): draw the whole tensor, then while any
    value is outside, draw a whole new tensor and take its values there.  Otherwise:
    candidates uniform on [a, b], accepted where ``log(u) <= log_pdf - log_peak`` for a
    second uniform u.  The draws are PyTorch's; in the second recipe the float32 ``log`` is
    numpy's where PyTorch's is SLEEF's, so a value right at the threshold may be accepted
    in one and not the other."""
    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
    dt = tensor._data.dtype
    fresh = tensor.new_empty(tuple(tensor.shape))
    if p > 0.3:
        lo, hi = np.asarray([a, b], dt)
        result = normal_(tensor, mean, std, generator)._data.copy()
        while (outside := (result < lo) | (result > hi)).any():
            result = np.where(outside, normal_(fresh, mean, std, generator)._data, result)
        return _fill(tensor, result)

    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    mean_, std_, peak = (np.asarray(v, dt) for v in (mean, std, log_peak))

    def rejected(candidates: np.ndarray) -> np.ndarray:
        log_pdf = ((candidates - mean_) / std_) ** 2 * np.asarray(-0.5, dt) - peak
        return np.log(uniform_(fresh, 0.0, 1.0, generator)._data) > log_pdf

    result = uniform_(tensor, a, b, generator)._data.copy()
    pending = rejected(result)
    while pending.any():
        candidates = uniform_(fresh, a, b, generator)._data.copy()
        result = np.where(pending, candidates, result)
        pending &= rejected(candidates)
    return _fill(tensor, result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    return _fill(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 1)


def zeros_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 0)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """A convolution kernel that passes its input through: within each of ``groups``, output
    channel ``d`` is a delta at the kernel's centre on input channel ``d``."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    values = np.zeros(tensor.shape, tensor._data.dtype)
    centre = tuple(size // 2 for size in sizes[2:])
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Normal values with ``ceil(sparsity * rows)`` zeros in each column (Martens, 2010).

    As in PyTorch, ``generator`` draws the values but each column's zero rows come from
    ``randperm(rows)`` on the default generator."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    values = normal_(tensor, 0.0, std, generator)._data.copy()
    for col in range(cols):
        values[random.randperm(rows)._data[:num_zeros], col] = 0
    return _fill(tensor, values)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Uniform on +-gain*sqrt(6/(fan_in+fan_out)) (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std  # PyTorch's order of operations: the same float bound
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """Uniform on +-gain*sqrt(3/fan) (He et al.); Linear's default uses ``a=sqrt(5)``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a normal draw (Saxe et al.)."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = normal_(tensor.new_empty((rows, cols)), 0.0, 1.0, generator)._data
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape))

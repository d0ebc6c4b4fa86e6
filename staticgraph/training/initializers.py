"""Initializers (``tf.zeros_initializer()``, ``tf.initializers.glorot_uniform()``...), as TF1's init_ops.

An initializer is an object called as ``init(shape, dtype=None, partition_info=None)``
that builds the initial-value tensor -- random ones through the random ops, so
a variable initialised twice (two Sessions, or ``sess.run(init)`` again) draws
again unless seeds fix the stream.  ``get_variable`` calls it under
``<var>/Initializer/``.

Fan sizes follow TF: ``[in, out]`` for a matrix, and for a conv kernel
``[..., in, out]`` both multiplied by the receptive-field size::

    VarianceScaling(scale, mode, distribution)
        n      = fan_in | fan_out | (fan_in + fan_out) / 2
        normal/truncated_normal: stddev = sqrt(scale / n) / .87962566103423978
        untruncated_normal:      stddev = sqrt(scale / n)
        uniform:                 limit  = sqrt(3 * scale / n)
    glorot_uniform = VarianceScaling(1.0, "fan_avg", "uniform")

>>> import staticgraph as tf
>>> tf.glorot_uniform_initializer()([2, 3]).shape
TensorShape([Dimension(2), Dimension(3)])
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..framework import dtypes as _dtypes
from common import REGISTRY

from ..framework import build as _build
from ..framework import graph as _graph
from ..framework.build import apply
from ..ops.math_ops import eye
from ..ops.core_ops import fill, multiply, reshape, transpose
from ..ops import random_ops as _random
from .variables import global_variables_initializer, variables_initializer

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomNormal", "TruncatedNormal",
           "RandomUniform", "VarianceScaling", "GlorotUniform", "GlorotNormal", "Orthogonal",
           "Identity", "identity",
           "zeros_initializer", "ones_initializer", "constant_initializer",
           "random_normal_initializer", "truncated_normal_initializer",
           "random_uniform_initializer", "glorot_uniform_initializer", "glorot_normal_initializer",
           "variance_scaling_initializer", "orthogonal_initializer", "he_normal", "he_uniform",
           "lecun_normal", "lecun_uniform", "zeros", "ones", "constant", "glorot_uniform",
           "glorot_normal", "variance_scaling", "orthogonal", "global_variables", "variables",
           "random_normal", "truncated_normal", "random_uniform"]



class Initializer:
    """Base class: ``init(shape, dtype=None, partition_info=None) -> Tensor``."""

    dtype: _dtypes.DType = _dtypes.float32

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def _dtype(self, dtype) -> _dtypes.DType:
        return _dtypes.as_dtype(dtype or self.dtype)

    def get_config(self) -> dict:
        return {k.lstrip("_"): v for k, v in vars(self).items()}


def _shape(shape) -> list[int]:
    return [int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape)]


class Zeros(Initializer):
    def __init__(self, dtype=_dtypes.float32):
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dt = self._dtype(dtype)
        return fill(_shape(shape), np.zeros((), dt._np), name="zeros")


class Ones(Initializer):
    def __init__(self, dtype=_dtypes.float32):
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dt = self._dtype(dtype)
        return fill(_shape(shape), np.ones((), dt._np), name="ones")


class Constant(Initializer):
    """``value`` (a scalar is broadcast; a list must have the variable's number of elements)."""

    def __init__(self, value: Any = 0, dtype=_dtypes.float32, verify_shape: bool = False):
        self.value, self.dtype, self._verify_shape = value, _dtypes.as_dtype(dtype), verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        return _build.constant(self.value, dtype=self._dtype(dtype), shape=_shape(shape), name="Const")


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=_dtypes.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, _dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _random.random_normal(_shape(shape), self.mean, self.stddev, self._dtype(dtype), seed=self.seed)


class TruncatedNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=_dtypes.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, _dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _random.truncated_normal(_shape(shape), self.mean, self.stddev, self._dtype(dtype), seed=self.seed)


class RandomUniform(Initializer):
    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=_dtypes.float32):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, _dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _random.random_uniform(_shape(shape), self.minval, self.maxval, self._dtype(dtype), seed=self.seed)


def _fans(shape: list[int]) -> tuple[float, float]:
    if len(shape) < 1:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


class VarianceScaling(Initializer):
    """Samples scaled to the layer's fan (module docstring has the formulas)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=_dtypes.float32):
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.seed, self.dtype = seed, _dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        shape, dt = _shape(shape), self._dtype(dtype)
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution in ("normal", "truncated_normal"):
            return _random.truncated_normal(shape, 0.0, math.sqrt(scale) / .87962566103423978, dt, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return _random.random_normal(shape, 0.0, math.sqrt(scale), dt, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return _random.random_uniform(shape, -limit, limit, dt, seed=self.seed)


class GlorotUniform(VarianceScaling):
    def __init__(self, seed=None, dtype=_dtypes.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None, dtype=_dtypes.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix, reshaped: Q of the QR decomposition of a normal sample."""

    def __init__(self, gain=1.0, seed=None, dtype=_dtypes.float32):
        self.gain, self.seed, self.dtype = gain, seed, _dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        shape, dt = _shape(shape), self._dtype(dtype)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        sample = _random.random_normal((max(rows, cols), min(rows, cols)), dtype=dt, seed=self.seed)
        # TF's steps are Qr, DiagPart, Sign and ``mul`` (Q's columns signed): our one op stands
        # for them and takes the last one's name, so the names that follow are TF's (``mul_1``)
        q = apply(REGISTRY["OrthonormalFactor"], (sample,), {}, name="mul")
        if rows < cols:
            with _graph.name_scope("matrix_transpose"):
                q = transpose(q)
        return multiply(self.gain, reshape(q, shape), name="mul")


class Identity(Initializer):
    """``gain`` times the identity matrix (a 2-D shape; rectangular allowed).

    >>> import staticgraph as tf
    >>> tf.initializers.identity(gain=2.0)([2, 3]).shape.as_list()
    [2, 3]
    """

    def __init__(self, gain=1.0, dtype=_dtypes.float32):
        self.gain, self.dtype = gain, _dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        shape, dt = _shape(shape), self._dtype(dtype)
        if len(shape) != 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must be at "
                             f"least two-dimensional. Received shape={shape}")
        return multiply(eye(shape[0], shape[1], dtype=dt), self.gain, name="mul")


def he_normal(seed=None) -> VarianceScaling:
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None) -> VarianceScaling:
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None) -> VarianceScaling:
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None) -> VarianceScaling:
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


zeros_initializer, ones_initializer, constant_initializer = Zeros, Ones, Constant
random_normal_initializer, truncated_normal_initializer = RandomNormal, TruncatedNormal
random_uniform_initializer, variance_scaling_initializer = RandomUniform, VarianceScaling
glorot_uniform_initializer, glorot_normal_initializer = GlorotUniform, GlorotNormal
orthogonal_initializer = Orthogonal

# ``tf.initializers.<name>``: the same classes under their short names, plus the init ops
zeros, ones, constant = Zeros, Ones, Constant
random_normal, truncated_normal, random_uniform = RandomNormal, TruncatedNormal, RandomUniform
glorot_uniform, glorot_normal = GlorotUniform, GlorotNormal
variance_scaling, orthogonal, identity = VarianceScaling, Orthogonal, Identity
global_variables, variables = global_variables_initializer, variables_initializer

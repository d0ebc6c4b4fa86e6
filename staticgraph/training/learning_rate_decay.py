"""Learning-rate schedules (``tf.train.exponential_decay``, ``tf.train.piecewise_constant``).

Each is a tensor of the global step, recomputed every run::

    exponential_decay   lr * rate ** (step / decay_steps)      staircase: integer division
    piecewise_constant  values[i] for boundaries[i-1] < step <= boundaries[i]

>>> import staticgraph as tf
>>> step = tf.train.get_or_create_global_step()
>>> tf.train.exponential_decay(0.1, step, 100, 0.96).name
'ExponentialDecay:0'
"""
from __future__ import annotations

import math

from ..framework import dtypes as _dtypes
from ..ops import core_ops as ops
from ..framework.build import convert_to_tensor
from ..framework.graph import Tensor, name_scope
from ..ops.math_ops import cos

__all__ = ["exponential_decay", "piecewise_constant", "inverse_time_decay", "polynomial_decay",
           "natural_exp_decay", "cosine_decay"]


def _step(global_step, dtype) -> Tensor:
    if global_step is None:
        raise ValueError("global_step is required for exponential_decay.")
    return ops.cast(convert_to_tensor(global_step), dtype)


def _floor_nonnegative(x: Tensor) -> Tensor:
    """``floor(x)`` for ``x >= 0``: a cast to integers truncates toward zero."""
    return ops.cast(ops.cast(x, _dtypes.int64), x.dtype)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None) -> Tensor:
    """``learning_rate * decay_rate ** (global_step / decay_steps)``."""
    with name_scope(name, "ExponentialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype
        p = ops.truediv(_step(global_step, dtype), ops.cast(convert_to_tensor(decay_steps), dtype))
        if staircase:
            p = _floor_nonnegative(p)
        return ops.multiply(lr, ops.pow(ops.cast(convert_to_tensor(decay_rate), dtype), p),
                            name=scope[:-1] + "/")


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None) -> Tensor:
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    with name_scope(name, "InverseTimeDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        p = ops.truediv(_step(global_step, lr.dtype), float(decay_steps))
        if staircase:
            p = _floor_nonnegative(p)
        return ops.truediv(lr, ops.add(ops.multiply(p, float(decay_rate)), 1.0), name=scope[:-1] + "/")


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None) -> Tensor:
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``."""
    with name_scope(name, "NaturalExpDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        p = ops.truediv(_step(global_step, lr.dtype), float(decay_steps))
        if staircase:
            p = _floor_nonnegative(p)
        return ops.multiply(lr, ops.exp(ops.multiply(p, -float(decay_rate))), name=scope[:-1] + "/")


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None) -> Tensor:
    """``lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)``."""
    with name_scope(name, "CosineDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        frac = ops.truediv(ops.minimum(_step(global_step, lr.dtype), float(decay_steps)),
                           float(decay_steps))
        cosine = ops.multiply(ops.add(cos(ops.multiply(frac, math.pi)), 1.0), 0.5)
        decayed = ops.add(ops.multiply(cosine, 1.0 - alpha), float(alpha))
        return ops.multiply(lr, decayed, name=scope[:-1] + "/")


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0,
                     cycle=False, name=None) -> Tensor:
    """``(lr - end) * (1 - min(step, decay_steps) / decay_steps) ** power + end``."""
    if cycle:
        raise ValueError("polynomial_decay(cycle=True) needs ceil (not available here yet)")
    with name_scope(name, "PolynomialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        step = ops.minimum(_step(global_step, lr.dtype), float(decay_steps))
        frac = ops.subtract(1.0, ops.truediv(step, float(decay_steps)))
        return ops.add(ops.multiply(ops.subtract(lr, end_learning_rate), ops.pow(frac, float(power))),
                       end_learning_rate, name=scope[:-1] + "/")


def piecewise_constant(x, boundaries, values, name=None) -> Tensor:
    """``values[0]`` while ``x <= boundaries[0]``, ``values[1]`` while ``x <= boundaries[1]``..."""
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with name_scope(name, "PiecewiseConstant"):
        x = convert_to_tensor(x)
        vals = [convert_to_tensor(v) for v in values]
        dtype = vals[0].dtype
        for v in vals[1:]:
            if v.dtype != dtype:
                raise ValueError(f"Values must have elements all with the same dtype "
                                 f"({dtype.name} vs {v.dtype.name}).")
        out = vals[-1]
        for b, v in zip(reversed(boundaries), reversed(vals[:-1])):
            b = ops.cast(convert_to_tensor(b), x.dtype) if isinstance(b, Tensor) else b
            out = ops.where(ops.less_equal(x, b), v, out)
        return ops.identity(out, name="Identity")

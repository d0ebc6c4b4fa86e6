"""The update rules: SGD, Adam, AdamW, RMSprop, Adagrad -- PyTorch's formulas, in numpy.

Each ``_update(data, g, state, group)`` reads the group's options (so per-group learning
rates and a scheduler's changes apply at the next step) and *returns* the parameter's new
array and the state entries it changes, as new arrays: it changes nothing itself, so
``Optimizer.step`` can compute every update before it writes any (a step is all or nothing).
The arithmetic is the in-place form's, operation for operation, so the values are the same
bits.  State keys are PyTorch's (``momentum_buffer``, ``exp_avg``, ``exp_avg_sq``,
``square_avg``, ``sum``, ``step``), so state dicts look the same.
"""
from __future__ import annotations

import numpy as np

from ..tensor import make
from .optimizer import Optimizer, check

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


# Options PyTorch keeps in every group for its GPU/compiled variants; kept (with their
# defaults) so param groups and state dicts read as PyTorch's. The numpy updates ignore them.
_NOT_USED_SGD = dict(foreach=None, differentiable=False, fused=None)
_NOT_USED_ADAM = dict(foreach=None, capturable=False, differentiable=False, fused=None)


def _minus(data: np.ndarray, delta) -> np.ndarray:
    """``data - delta`` as a new array laid out as ``data``: what ``data -= delta`` would store
    (and refused as it, when ``delta`` would broadcast ``data`` larger).  ``delta`` is a
    temporary the update made: the result goes into it when it has ``data``'s shape and
    strides (one allocation less; a gradient from a transposed product is column-major)."""
    delta = np.asarray(delta).astype(data.dtype, copy=False)
    same = delta.shape == data.shape and delta.strides == data.strides
    return np.subtract(data, delta, out=delta if same else np.empty_like(data))


def _array(state: dict, key: str, like: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """State entry ``key`` as it stands (read only: updates return new arrays), or, before the
    first step, a new one shaped like the parameter and filled with ``fill``."""
    t = state.get(key)
    return np.full_like(like, fill) if t is None else t._data


def _next_step(state: dict):
    """The step counter after this step (float32, as PyTorch keeps it)."""
    t = state.get("step")
    return (np.array(0.0, np.float32) if t is None else t._data) + np.float32(1)


class SGD(Optimizer):
    """``b = momentum*b + (1-dampening)*g`` (``b = g`` at first), then
    ``p -= lr * (g + momentum*b if nesterov else b)``; ``weight_decay`` adds ``wd*p`` to ``g``.

    >>> import dyngraph as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0])); w.grad = torch.tensor([0.5])
    >>> SGD([w], lr=0.1).step(); w
    Parameter containing:
    tensor([0.9500], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False):
        check(lr, "learning rate")
        check(momentum, "momentum value")
        check(weight_decay, "weight_decay value")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, **_NOT_USED_SGD))

    def _update(self, data, g, state, group):
        if group["weight_decay"]:
            g = g + group["weight_decay"] * data
        momentum, changes = group["momentum"], {}
        if momentum:
            if "momentum_buffer" not in state:
                buf = np.full_like(data, 0.0)
                buf[...] = g
            else:
                buf = state["momentum_buffer"]._data * momentum
                buf += (1 - group["dampening"]) * g
            changes["momentum_buffer"] = buf
            g = g + momentum * buf if group["nesterov"] else buf
        return _minus(data, group["lr"] * g), changes


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; ``amsgrad`` keeps the running max of ``v``."""

    decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, maximize: bool = False):
        check(lr, "learning rate")
        check(eps, "epsilon value")
        for i, b in enumerate(betas):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        check(weight_decay, "weight_decay value")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, **_NOT_USED_ADAM,
                                      decoupled_weight_decay=self.decoupled))

    def _update(self, data, g, state, group):
        lr, (b1, b2), wd = group["lr"], group["betas"], group["weight_decay"]
        if wd and self.decoupled:
            data = data * np.asarray(1 - lr * wd, dtype=data.dtype)
        elif wd:
            g = g + wd * data
        step = _next_step(state)
        t = int(step)
        m, v = _array(state, "exp_avg", data), _array(state, "exp_avg_sq", data)
        m = m + (1 - b1) * (g - m)
        v = v * b2
        v += (1 - b2) * g * g
        changes = {"step": step, "exp_avg": m, "exp_avg_sq": v}
        if group["amsgrad"]:
            v = changes["max_exp_avg_sq"] = np.maximum(_array(state, "max_exp_avg_sq", data), v)
        denom = np.sqrt(v) / np.sqrt(1 - b2 ** t) + group["eps"]
        return _minus(data, lr / (1 - b1 ** t) * m / denom), changes


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr*wd``, then Adam."""

    decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class RMSprop(Optimizer):
    """``v = alpha*v + (1-alpha)*g^2``; ``p -= lr * g / (sqrt(v) + eps)``; centered and momentum
    variants as PyTorch's."""

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, *,
                 maximize: bool = False):
        check(lr, "learning rate")
        check(eps, "epsilon value")
        check(momentum, "momentum value")
        check(weight_decay, "weight_decay value")
        check(alpha, "alpha value")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=False, foreach=None, maximize=maximize,
                                      differentiable=False))

    def _update(self, data, g, state, group):
        if group["weight_decay"]:
            g = g + group["weight_decay"] * data
        alpha = group["alpha"]
        sq = _array(state, "square_avg", data) * alpha
        sq += (1 - alpha) * g * g
        changes = {"step": _next_step(state), "square_avg": sq}
        if group["centered"]:
            ga = _array(state, "grad_avg", data)
            ga = changes["grad_avg"] = ga + (1 - alpha) * (g - ga)
            avg = np.sqrt(sq - ga * ga) + group["eps"]
        else:
            avg = np.sqrt(sq) + group["eps"]
        if group["momentum"] > 0:
            buf = _array(state, "momentum_buffer", data) * group["momentum"]
            buf += g / avg
            changes["momentum_buffer"] = buf
            return _minus(data, group["lr"] * buf), changes
        return _minus(data, group["lr"] * g / avg), changes


class Adagrad(Optimizer):
    """``s += g^2``; ``p -= lr / (1 + (t-1)*lr_decay) * g / (sqrt(s) + eps)``."""

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, *,
                 maximize: bool = False):
        check(lr, "learning rate")
        check(lr_decay, "lr_decay value")
        check(weight_decay, "weight_decay value")
        check(initial_accumulator_value, "initial_accumulator_value value")
        check(eps, "epsilon value")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=None, maximize=maximize, differentiable=False,
                                      fused=None))
        for group in self.param_groups:  # PyTorch creates this state up front
            for p in group["params"]:
                state = self.state.setdefault(p, {})
                state["step"] = make(np.array(0.0, np.float32))
                state["sum"] = make(np.full_like(p._data, group["initial_accumulator_value"]))

    def _update(self, data, g, state, group):
        step = _next_step(state)
        t = int(step)
        if group["weight_decay"]:
            g = g + group["weight_decay"] * data
        clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        s = _array(state, "sum", data, group["initial_accumulator_value"]) + g * g
        return _minus(data, clr * g / (np.sqrt(s) + group["eps"])), {"step": step, "sum": s}

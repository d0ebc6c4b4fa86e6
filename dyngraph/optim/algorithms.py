"""The update rules: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD,
Rprop -- PyTorch's formulas (its single-tensor CPU path), in numpy.

Each ``_update(data, g, state, group)`` reads the group's options (so per-group learning
rates and a scheduler's changes apply at the next step) and *returns* the parameter's new
array and the state entries it changes, as new arrays: it changes nothing itself, so
``Optimizer.step`` can compute every update before it writes any (a step is all or nothing).
The arithmetic is the in-place form's, operation for operation, so the values are the same
bits.  State keys are PyTorch's (``momentum_buffer``, ``exp_avg``, ``exp_avg_sq``,
``square_avg``, ``sum``, ``step``...), in its order, so state dicts look the same.

Every constructor takes PyTorch's keyword arguments for its other kernels -- ``foreach``,
``fused`` (where PyTorch has a fused CPU kernel: SGD, Adam, AdamW, Adagrad), ``capturable``,
``differentiable`` -- and keeps them in the groups as PyTorch does.  ``foreach`` and ``fused``
give the same numbers here (one numpy kernel); ``capturable`` and ``differentiable`` are
refused by ``step`` as PyTorch's CPU step refuses them (see ``Optimizer._refuse_flags``).
"""
from __future__ import annotations

import numpy as np

from ..tensor import make
from .optimizer import Optimizer, check

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "ASGD", "Rprop"]


def _check_fused(fused, foreach, differentiable) -> None:
    """PyTorch's refusals of ``fused=True`` combined with the other kernels."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_adam_options(lr: float, eps: float, betas, weight_decay: float) -> None:
    """The Adam family's checks, in PyTorch's order and words."""
    check(lr, "learning rate")
    check(eps, "epsilon value")
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")
    check(weight_decay, "weight_decay value")


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


def _decayed(data: np.ndarray, g: np.ndarray, group: dict) -> tuple[np.ndarray, np.ndarray]:
    """Weight decay of the Adam family: ``p *= 1 - lr*wd`` when decoupled (AdamW's), else
    ``g += wd*p``; returns the (new) ``data`` and ``g``."""
    wd = group["weight_decay"]
    if wd and group["decoupled_weight_decay"]:
        return data * np.asarray(1 - group["lr"] * wd, dtype=data.dtype), g
    return data, (g + wd * data if wd else g)


def _moments(state: dict, data: np.ndarray, g: np.ndarray, betas) -> tuple:
    """Adam's running averages, ``m = lerp(m, g, 1-beta1)`` and ``v = beta2*v + (1-beta2)*g^2``
    (PyTorch's ``lerp_`` and ``mul_().addcmul_()``), as new arrays."""
    b1, b2 = betas
    m = _array(state, "exp_avg", data)
    m = m + (1 - b1) * (g - m)
    v = _array(state, "exp_avg_sq", data) * b2
    v += (1 - b2) * g * g
    return m, v


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
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None):
        check(lr, "learning rate")
        check(momentum, "momentum value")
        check(weight_decay, "weight_decay value")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))
        _check_fused(fused, foreach, differentiable)

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

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False):
        _check_adam_options(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))
        _check_fused(fused, foreach, differentiable)

    def _update(self, data, g, state, group):
        lr, (b1, b2) = group["lr"], group["betas"]
        data, g = _decayed(data, g, group)
        step = _next_step(state)
        t = int(step)
        m, v = _moments(state, data, g, group["betas"])
        changes = {"step": step, "exp_avg": m, "exp_avg_sq": v}
        if group["amsgrad"]:
            v = changes["max_exp_avg_sq"] = np.maximum(_array(state, "max_exp_avg_sq", data), v)
        denom = np.sqrt(v) / np.sqrt(1 - b2 ** t) + group["eps"]
        return _minus(data, lr / (1 - b1 ** t) * m / denom), changes


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr*wd``, then Adam."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)


class RMSprop(Optimizer):
    """``v = alpha*v + (1-alpha)*g^2``; ``p -= lr * g / (sqrt(v) + eps)``; centered and momentum
    variants as PyTorch's."""

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False):
        check(lr, "learning rate")
        check(eps, "epsilon value")
        check(momentum, "momentum value")
        check(weight_decay, "weight_decay value")
        check(alpha, "alpha value")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))

    def _update(self, data, g, state, group):
        if group["weight_decay"]:
            g = g + group["weight_decay"] * data
        alpha = group["alpha"]
        sq = _array(state, "square_avg", data) * alpha
        sq += (1 - alpha) * g * g
        changes = {"step": _next_step(state), "square_avg": sq}
        if group["momentum"] > 0:
            changes["momentum_buffer"] = None   # PyTorch creates it before grad_avg
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
                 initial_accumulator_value: float = 0, eps: float = 1e-10,
                 foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None):
        check(lr, "learning rate")
        check(lr_decay, "lr_decay value")
        check(weight_decay, "weight_decay value")
        check(initial_accumulator_value, "initial_accumulator_value value")
        check(eps, "epsilon value")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        _check_fused(fused, foreach, differentiable)
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


class Adadelta(Optimizer):
    """``v = rho*v + (1-rho)*g^2``; ``delta = sqrt(u + eps) / sqrt(v + eps) * g``;
    ``u = rho*u + (1-rho)*delta^2``; ``p -= lr * delta`` (Zeiler's ADADELTA, lr scaling it)."""

    _capturable_devices = ("cuda", "xpu", "hpu", "privateuseone")   # PyTorch's, without xla

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False, differentiable: bool = False):
        check(lr, "learning rate")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check(eps, "epsilon value")
        check(weight_decay, "weight_decay value")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable, foreach=foreach,
                                      differentiable=differentiable))

    def _update(self, data, g, state, group):
        rho, eps = group["rho"], group["eps"]
        if group["weight_decay"]:
            g = g + group["weight_decay"] * data
        sq = _array(state, "square_avg", data) * rho
        sq += (1 - rho) * g * g
        delta = np.sqrt(_array(state, "acc_delta", data) + eps) / np.sqrt(sq + eps) * g
        acc = _array(state, "acc_delta", data) * rho
        acc += (1 - rho) * delta * delta
        return (_minus(data, group["lr"] * delta),
                {"step": _next_step(state), "square_avg": sq, "acc_delta": acc})


class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(beta2*u, |g| + eps)``;
    ``p -= lr / (1 - beta1^t) * m / u``."""

    def __init__(self, params, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False):
        _check_adam_options(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update(self, data, g, state, group):
        (b1, b2), step = group["betas"], _next_step(state)
        if group["weight_decay"]:
            g = g + group["weight_decay"] * data
        m = _array(state, "exp_avg", data)
        m = m + (1 - b1) * (g - m)
        u = np.maximum(_array(state, "exp_inf", data) * b2, np.abs(g) + group["eps"])
        clr = group["lr"] / (1 - b1 ** float(step))
        return _minus(data, clr * m / u), {"step": step, "exp_avg": m, "exp_inf": u}


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat), its momentum warmed up by ``momentum_decay``:
    ``mu_t = beta1 * (1 - 0.96^(t*momentum_decay) / 2)``, their running product kept as
    the float32 ``mu_product`` (as PyTorch keeps it)."""

    _scalar_state = ("step", "mu_product")
    _capturable_subject = "params, mu_products and state_steps"

    def __init__(self, params, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False):
        _check_adam_options(lr, eps, betas, weight_decay)
        check(momentum_decay, "momentum_decay value")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _update(self, data, g, state, group):
        lr, (b1, b2) = group["lr"], group["betas"]
        step = _next_step(state)
        t = float(step)
        data, g = _decayed(data, g, group)
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * group["momentum_decay"]))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * group["momentum_decay"]))
        t_mu = state.get("mu_product")
        mu_product = (np.array(1.0, np.float32) if t_mu is None else t_mu._data) * np.float32(mu)
        m, v = _moments(state, data, g, group["betas"])
        denom = np.sqrt(v / (1 - b2 ** t)) + group["eps"]
        product = float(mu_product)
        new = data + (-lr * (1.0 - mu) / (1.0 - product)) * g / denom
        new = new + (-lr * mu_next / (1.0 - product * mu_next)) * m / denom
        return new.astype(data.dtype, copy=False), {"step": step, "mu_product": mu_product,
                                                    "exp_avg": m, "exp_avg_sq": v}


class RAdam(Optimizer):
    """Rectified Adam (Liu et al.): plain momentum SGD while the variance estimate's length
    ``rho_t`` is at most 5, then Adam scaled by the rectification term."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False):
        _check_adam_options(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _update(self, data, g, state, group):
        lr, (b1, b2) = group["lr"], group["betas"]
        step = _next_step(state)
        t = float(step)
        data, g = _decayed(data, g, group)
        m, v = _moments(state, data, g, group["betas"])
        changes = {"step": step, "exp_avg": m, "exp_avg_sq": v}
        bias_correction2 = 1 - b2 ** t
        corrected = m / (1 - b1 ** t)
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * (b2 ** t) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            # PyTorch's ``number / tensor`` is ``tensor.reciprocal() * number``
            adaptive = 1 / (np.sqrt(v) + group["eps"]) * bias_correction2 ** 0.5
            return _minus(data, corrected * lr * adaptive * rect), changes
        return _minus(data, corrected * lr), changes


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky): ``p = p*(1 - lambd*eta) - eta*g`` and the running
    average ``ax`` of the iterates from step ``t0`` on; ``eta`` decays as
    ``lr / (1 + lambd*lr*t)^alpha``.  ``eta`` and ``mu`` are float32 0-dim state, as PyTorch's."""

    _scalar_state = ("step", "eta", "mu")
    _capturable_subject = "params, mus, etas, and state_steps"

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False):
        check(lr, "learning rate")
        check(weight_decay, "weight_decay value")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, data, g, state, group):
        lr, lambd = group["lr"], group["lambd"]
        step = _next_step(state)
        if group["weight_decay"]:
            g = g + group["weight_decay"] * data
        eta = float(state["eta"]._data) if "eta" in state else float(np.float32(lr))
        new = data * np.asarray(1 - lambd * eta, dtype=data.dtype)
        new = _minus(new, eta * g)
        mu = state["mu"]._data if "mu" in state else np.array(1.0, np.float32)
        ax = (_array(state, "ax", data) + (new - _array(state, "ax", data)) * mu if mu != 1
              else new.copy())
        t = float(step)
        return new, {"step": step,
                     "eta": np.array(lr / ((1 + lambd * lr * t) ** group["alpha"]), np.float32),
                     "mu": np.array(1 / max(1, t - group["t0"]), np.float32),
                     "ax": ax.astype(data.dtype, copy=False)}


class Rprop(Optimizer):
    """Resilient backpropagation: each weight's step size grows by ``etas[1]`` while its
    gradient keeps its sign and shrinks by ``etas[0]`` when it flips (that step then skips
    the weight), clamped to ``step_sizes``; the update is ``-sign(g) * step_size``."""

    def __init__(self, params, lr: float = 1e-2, etas: tuple = (0.5, 1.2),
                 step_sizes: tuple = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False):
        check(lr, "learning rate")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, data, g, state, group):
        (minus, plus), (smallest, largest) = group["etas"], group["step_sizes"]
        number = data.dtype.type
        sign = np.sign(g * _array(state, "prev", data))
        factor = np.where(sign > 0, number(plus), np.where(sign < 0, number(minus), number(1)))
        size = np.clip(_array(state, "step_size", data, group["lr"]) * factor, smallest, largest)
        g = np.where(factor == number(minus), number(0), g)
        return (_minus(data, np.sign(g) * size),
                {"step": _next_step(state), "prev": g, "step_size": size})

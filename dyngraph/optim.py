"""Optimizers: SGD (with momentum) and Adam, as PyTorch defines their updates.

Updates run under ``no_grad`` on the parameters' arrays in place (an optimizer
step is not part of any graph), and bump the parameters' version counters.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from .grad_mode import no_grad

__all__ = ["Optimizer", "SGD", "Adam"]


class Optimizer:
    """Holds the parameters and per-parameter state; subclasses define ``_update``."""

    def __init__(self, params: Iterable, defaults: dict):
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        self.defaults = defaults
        self.state: dict = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    @no_grad()
    def step(self) -> None:
        for p in self.params:
            if p.grad is not None:
                self._update(p, p.grad._data, self.state.setdefault(id(p), {}))
                p._vc[0] += 1

    def _update(self, p, g: np.ndarray, state: dict) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    """``b = momentum * b + (1 - dampening) * g`` (``b = g`` at the first step); ``p -= lr * b``."""

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))
        self.lr, self.momentum, self.dampening = lr, momentum, dampening
        self.weight_decay, self.nesterov = weight_decay, nesterov

    def _update(self, p, g, state) -> None:
        if self.weight_decay:
            g = g + self.weight_decay * p._data
        if self.momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.copy()
            else:
                buf *= self.momentum
                buf += (1 - self.dampening) * g
            g = g + self.momentum * buf if self.nesterov else buf
        p._data -= (self.lr * g).astype(p._data.dtype, copy=False)


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction, as ``torch.optim.Adam``."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay

    def _update(self, p, g, state) -> None:
        if self.weight_decay:
            g = g + self.weight_decay * p._data
        b1, b2 = self.betas
        if not state:
            state.update(step=0, m=np.zeros_like(p._data), v=np.zeros_like(p._data))
        state["step"] += 1
        t, m, v = state["step"], state["m"], state["v"]
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        m_hat = m / (1 - b1 ** t)
        v_hat = v / (1 - b2 ** t)
        p._data -= (self.lr * m_hat / (np.sqrt(v_hat) + self.eps)).astype(p._data.dtype, copy=False)

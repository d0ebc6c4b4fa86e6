"""The LSTM floor: a numpy LSTM with hand-derived backpropagation through time.

PyTorch's layout and gate order (``W_x`` is ``weight_ih.T``: ``(input, 4 * hidden)``,
gates i, f, g, o; one bias).  The loss is the sum of every step's output, so
the backward pass starts each step with ``dh = 1`` plus what flows back from
the step after.  Written as a careful numpy programmer would: the input
projection of all steps is one matmul, the loops keep only the recurrence,
and each weight gradient is one matmul over all steps.
"""
from __future__ import annotations

import numpy as np

__all__ = ["lstm_loss_and_grads", "lstm_train_step"]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (np.tanh(0.5 * x) + 1)      # = 1 / (1 + exp(-x)), no overflow warnings


def lstm_loss_and_grads(W_x: np.ndarray, W_h: np.ndarray, b: np.ndarray, xs: np.ndarray) -> tuple:
    """``xs`` is ``(T, batch, input)``; returns ``(loss, dW_x, dW_h, db)``."""
    steps, batch, _ = xs.shape
    hidden = W_h.shape[0]
    G = (xs.reshape(steps * batch, -1) @ W_x + b).reshape(steps, batch, 4 * hidden)
    A = np.empty_like(G)                          # activated gates i, f, g, o
    H = np.zeros((steps + 1, batch, hidden), xs.dtype)
    C = np.zeros((steps + 1, batch, hidden), xs.dtype)
    TC = np.empty((steps, batch, hidden), xs.dtype)
    for t in range(steps):
        z = G[t] + H[t] @ W_h
        a = A[t]
        a[:, :2 * hidden] = _sigmoid(z[:, :2 * hidden])
        a[:, 2 * hidden:3 * hidden] = np.tanh(z[:, 2 * hidden:3 * hidden])
        a[:, 3 * hidden:] = _sigmoid(z[:, 3 * hidden:])
        i, f, g, o = np.split(a, 4, axis=1)
        C[t + 1] = f * C[t] + i * g
        TC[t] = np.tanh(C[t + 1])
        H[t + 1] = o * TC[t]
    dG = np.empty_like(G)
    dh_next = np.zeros((batch, hidden), xs.dtype)
    dc_next = np.zeros((batch, hidden), xs.dtype)
    W_hT = W_h.T
    for t in range(steps - 1, -1, -1):
        i, f, g, o = np.split(A[t], 4, axis=1)
        dh = dh_next + 1
        tc = TC[t]
        dc = dc_next + dh * o * (1 - tc * tc)
        d = dG[t]
        d[:, :hidden] = dc * g * i * (1 - i)
        d[:, hidden:2 * hidden] = dc * C[t] * f * (1 - f)
        d[:, 2 * hidden:3 * hidden] = dc * i * (1 - g * g)
        d[:, 3 * hidden:] = dh * tc * o * (1 - o)
        dc_next = dc * f
        dh_next = d @ W_hT
    flat = dG.reshape(steps * batch, -1)
    dW_x = xs.reshape(steps * batch, -1).T @ flat
    dW_h = H[:steps].reshape(steps * batch, hidden).T @ flat
    return H[1:].sum(), dW_x, dW_h, flat.sum(axis=0)


def lstm_train_step(params: list, xs: np.ndarray, lr: float) -> float:
    """One SGD step in place on ``[W_x, W_h, b]``; returns the loss before the step."""
    loss, *grads = lstm_loss_and_grads(*params, xs)
    for p, g in zip(params, grads):
        p -= lr * g
    return loss

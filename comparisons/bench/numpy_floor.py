"""The floor: every workload in plain numpy, forward plus a hand-derived backward.

No engine can beat these without changing the arithmetic (fusing, skipping
work), so the benchmark reports every engine as a multiple of them.  Each
function is pure over its array arguments (dtype-agnostic), so the test suite
checks every hand-derived gradient against finite differences in float64.

Shapes follow the seeds: the RNN cell works on column vectors
(``next_h = tanh(W_h @ prev_h.T + W_x @ x.T)``), an MLP layer is ``x @ W + b``
with ``W`` shaped ``(in, out)``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["counter", "gradient_example", "rnn_cell", "rnn_unrolled", "mlp_loss_and_grads",
           "mlp_train_step", "chain_forward", "chain_forward_backward"]


def counter(n: float) -> tuple:
    """The seeds' while loop with the bound fed at run time: ``n`` iterations.

    ``first`` gains 2 and ``second`` 1 per iteration, so they meet after
    ``n`` iterations at ``2n``.
    """
    first, second = np.float32(0.0), np.float32(n)
    while first < second:
        first = first + np.float32(2.0)
        second = second + np.float32(1.0)
    return first, second


def gradient_example(x: np.ndarray, w: np.ndarray) -> tuple:
    """``y = (x + w) * (w + 1)``; returns ``(y, dy/dx, dy/dw)``.

    With ``a = x + w`` and ``b = w + 1``: ``dy/dx = b`` and ``dy/dw = b + a``.
    """
    a = x + w
    b = w + 1
    y = a * b
    return y, b, b + a


def rnn_cell(W_h: np.ndarray, W_x: np.ndarray, x: np.ndarray, prev_h: np.ndarray) -> tuple:
    """The seeds' RNN cell and ``loss = sum(next_h)``; returns ``(loss, dW_h, dW_x)``.

    ``d loss / d z = 1 - tanh(z)^2`` (a column), then each weight's gradient
    is that column times the row vector it multiplied.
    """
    h = np.tanh(W_h @ prev_h.T + W_x @ x.T)
    dz = 1 - h * h
    return h.sum(), dz @ prev_h, dz @ x


def rnn_unrolled(W_h: np.ndarray, W_x: np.ndarray, xs: np.ndarray, h0: np.ndarray) -> tuple:
    """``h_t = tanh(W_h @ h_{t-1} + W_x @ xs[t])`` over ``len(xs)`` steps, loss ``sum(h_T)``.

    Backpropagation through time by hand: walk the stored states backwards,
    summing each step's weight gradients.  Returns ``(loss, dW_h, dW_x)``.
    """
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(W_h @ hs[-1] + W_x @ x))
    dh = np.ones_like(h0)
    dW_h, dW_x = np.zeros_like(W_h), np.zeros_like(W_x)
    for t in range(len(xs) - 1, -1, -1):
        dz = dh * (1 - hs[t + 1] * hs[t + 1])
        dW_h += dz @ hs[t].T
        dW_x += dz @ xs[t].T
        dh = W_h.T @ dz
    return hs[-1].sum(), dW_h, dW_x


def mlp_loss_and_grads(params: list, x: np.ndarray, labels: np.ndarray) -> tuple:
    """ReLU MLP, softmax cross-entropy averaged over the batch.

    ``params`` is ``[(W, b), ...]``; ReLU after every layer but the last.
    Returns ``(loss, [(dW, db), ...])``; ``d loss / d logits = (softmax - onehot) / batch``.
    """
    acts, pre = [x], []
    for i, (W, b) in enumerate(params):
        z = acts[-1] @ W + b
        pre.append(z)
        acts.append(z if i == len(params) - 1 else np.maximum(z, 0))
    logits = acts[-1]
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    rows = np.arange(len(labels))
    loss = np.mean(np.log(total[:, 0]) - shifted[rows, labels])
    g = e / total
    g[rows, labels] -= 1
    g /= len(labels)
    grads = []
    for i in range(len(params) - 1, -1, -1):
        W = params[i][0]
        grads.append((acts[i].T @ g, g.sum(axis=0)))
        if i:
            g = (g @ W.T) * (pre[i - 1] > 0)
    return loss, grads[::-1]


def mlp_train_step(params: list, x: np.ndarray, labels: np.ndarray, lr: float) -> float:
    """One SGD step in place (``W -= lr * dW``); returns the loss before the step."""
    loss, grads = mlp_loss_and_grads(params, x, labels)
    for (W, b), (dW, db) in zip(params, grads):
        W -= lr * dW
        b -= lr * db
    return loss


def chain_forward(x: np.ndarray, c: np.ndarray, n: int) -> np.ndarray:
    """``y = x + c + c + ... + c`` as ``n`` separate adds (the per-op overhead workload)."""
    y = x
    for _ in range(n):
        y = y + c
    return y


def chain_forward_backward(x: np.ndarray, c: np.ndarray, n: int) -> tuple:
    """The chain, ``loss = sum(y)``, and its gradients ``(loss, dx, dc)``.

    The backward mirrors a tape: one accumulation into ``dc`` per add (the
    closed form ``n * g`` would hide exactly the per-op cost being measured).
    """
    y = chain_forward(x, c, n)
    g = np.ones_like(y)
    dc = np.zeros_like(c)
    for _ in range(n):
        dc = dc + g
    return y.sum(), g, dc

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
    ``n`` iterations at ``2n``.  The constants are made once, outside the loop,
    as a careful numpy programmer writes it (made inside, they cost more than
    the additions).
    """
    first, second = np.float32(0.0), np.float32(n)
    two, one = np.float32(2.0), np.float32(1.0)
    while first < second:
        first = first + two
        second = second + one
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

    ``xs`` is ``(T, in, 1)``, ``h0`` is ``(hidden, 1)``.  Returns ``(loss, dW_h, dW_x)``.
    Backpropagation through time by hand, as a careful numpy programmer would
    write it: the input projections of all steps are one matmul, the loop
    keeps only what must be sequential (the recurrence), and each weight
    gradient is one matmul over all steps (``dW = sum_t dz_t a_t^T = DZ @ A^T``).
    """
    steps = len(xs)
    X = xs[:, :, 0]                              # (T, in)
    U = W_x @ X.T                                # every step's input projection
    H = np.empty((h0.shape[0], steps + 1), dtype=h0.dtype)
    H[:, :1] = h0
    for t in range(steps):
        H[:, t + 1:t + 2] = np.tanh(W_h @ H[:, t:t + 1] + U[:, t:t + 1])
    DZ = np.empty((h0.shape[0], steps), dtype=h0.dtype)
    dh = np.ones_like(h0)
    W_hT = W_h.T
    for t in range(steps - 1, -1, -1):
        h = H[:, t + 1:t + 2]
        dz = DZ[:, t:t + 1] = dh * (1 - h * h)
        dh = W_hT @ dz
    return H[:, steps].sum(), DZ @ H[:, :steps].T, DZ @ X


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

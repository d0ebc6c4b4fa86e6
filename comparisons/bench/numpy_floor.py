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
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["counter", "gradient_example", "rnn_cell", "rnn_unrolled", "mlp_loss_and_grads",
           "mlp_train_step", "chain_forward", "chain_forward_backward", "conv2d_forward",
           "conv2d_backward", "conv2d_forward_backward", "cnn_train_step"]


def _mean_xent(logits: np.ndarray, labels: np.ndarray) -> tuple:
    """Mean softmax cross-entropy and its gradient for the logits: ``(softmax - onehot) / n``."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    rows = np.arange(len(labels))
    loss = np.mean(np.log(total[:, 0]) - shifted[rows, labels])
    g = e / total
    g[rows, labels] -= 1
    g /= len(labels)
    return loss, g


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
    loss, g = _mean_xent(logits, labels)
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


# --- convolution: im2col by hand (NCHW input, OIHW weight, stride 1, zero padding ``pad``) ----
# The windows are taken channels-last, so the one big copy (im2col) reads whole channel
# vectors; the weight is reordered to match (it is small).

def conv2d_forward(x: np.ndarray, w: np.ndarray, pad: int) -> tuple:
    """``(y, cols)``: ``cols`` is the im2col matrix ``(N*Ho*Wo, kh*kw*C)``, kept for backward."""
    n, c, _, _ = x.shape
    o, _, kh, kw = w.shape
    xh = np.pad(x.transpose(0, 2, 3, 1), ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    win = sliding_window_view(xh, (kh, kw), axis=(1, 2))            # (N, Ho, Wo, C, kh, kw)
    ho, wo = win.shape[1:3]
    cols = win.transpose(0, 1, 2, 4, 5, 3).reshape(n * ho * wo, kh * kw * c)
    y = cols @ w.transpose(2, 3, 1, 0).reshape(kh * kw * c, o)     # (N*Ho*Wo, O)
    return y.reshape(n, ho, wo, o).transpose(0, 3, 1, 2), cols


def conv2d_backward(dy: np.ndarray, cols: np.ndarray, w: np.ndarray, x_shape: tuple, pad: int,
                    need_dx: bool = True) -> tuple:
    """``(dx, dw)`` from the output gradient: ``dw = cols^T dY``, ``dx = col2im(dY W^T)``
    (computed per filter offset, so each product is added in contiguous)."""
    n, c, h, wd = x_shape
    o, _, kh, kw = w.shape
    ho, wo = dy.shape[2:]
    dyr = dy.transpose(0, 2, 3, 1).reshape(-1, o)
    dw = (cols.T @ dyr).reshape(kh, kw, c, o).transpose(3, 2, 0, 1)
    if not need_dx:
        return None, dw
    wt = w.transpose(2, 3, 0, 1)                                     # (kh, kw, O, C)
    dxp = np.zeros((n, h + 2 * pad, wd + 2 * pad, c), dy.dtype)
    for p in range(kh):                      # col2im, one contiguous product per filter offset
        for q in range(kw):
            dxp[:, p:p + ho, q:q + wo] += (dyr @ wt[p, q]).reshape(n, ho, wo, c)
    return dxp[:, pad:pad + h, pad:pad + wd].transpose(0, 3, 1, 2), dw


def conv2d_forward_backward(x: np.ndarray, w: np.ndarray, pad: int) -> tuple:
    """``loss = sum(conv2d(x, w))`` and ``(loss, dx, dw)``."""
    y, cols = conv2d_forward(x, w, pad)
    dx, dw = conv2d_backward(np.ones_like(y), cols, w, x.shape, pad)
    return y.sum(), dx, dw


def _pool2(x: np.ndarray) -> np.ndarray:
    """2x2 max pooling, stride 2: the maximum of the four strided views."""
    return np.maximum(np.maximum(x[:, :, 0::2, 0::2], x[:, :, 0::2, 1::2]),
                      np.maximum(x[:, :, 1::2, 0::2], x[:, :, 1::2, 1::2]))


def _unpool2(dy: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The pool's gradient: ``dy`` goes where ``x`` equals its window's maximum."""
    dx = np.empty_like(x)
    for p in (0, 1):
        for q in (0, 1):
            np.multiply(dy, x[:, :, p::2, q::2] == y, out=dx[:, :, p::2, q::2])
    return dx


def cnn_train_step(params: list, x: np.ndarray, labels: np.ndarray, lr: float) -> float:
    """conv(32, 3x3, pad 1)-relu-pool2 -> conv(64, 3x3, pad 1)-relu-pool2 -> dense, one SGD step.

    ``params`` is ``[w1, b1, w2, b2, W, b]`` (PyTorch layouts; updated in place).  The pool's
    gradient may mark ties, but a tie survives only at a ReLU zero, whose gradient is zero anyway.
    """
    w1, b1, w2, b2, W, b = params
    z1, cols1 = conv2d_forward(x, w1, 1)
    a1 = np.maximum(z1 + b1[:, None, None], 0)
    p1 = _pool2(a1)
    z2, cols2 = conv2d_forward(p1, w2, 1)
    a2 = np.maximum(z2 + b2[:, None, None], 0)
    p2 = _pool2(a2)
    flat = p2.reshape(len(x), -1)
    logits = flat @ W.T + b
    loss, g = _mean_xent(logits, labels)
    dW, db, dflat = g.T @ flat, g.sum(axis=0), g @ W
    da2 = _unpool2(dflat.reshape(p2.shape), a2, p2) * (a2 > 0)
    dp1, dw2 = conv2d_backward(da2, cols2, w2, p1.shape, 1)
    db2 = da2.sum(axis=(0, 2, 3))
    da1 = _unpool2(dp1, a1, p1) * (a1 > 0)
    _, dw1 = conv2d_backward(da1, cols1, w1, x.shape, 1, need_dx=False)
    db1 = da1.sum(axis=(0, 2, 3))
    for p, d in zip(params, (dw1, db1, dw2, db2, dW, db)):
        p -= lr * d
    return loss

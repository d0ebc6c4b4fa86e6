"""The workloads as PyTorch programs, written once for any module with torch's API.

Each ``build(torch, data)`` is called with ``dyngraph`` or with the real
``torch`` (same text, only the module differs: exactly the seeds' promise that
``import dyngraph as torch`` is the only change).  It creates the leaf tensors
and returns ``run()``, one forward (+ backward) pass, whose result is
converted to numpy so the harness can check it against the numpy floor.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["PROGRAMS"]

Run = Callable[[], Any]


def _np(t) -> np.ndarray:
    return np.array(t.detach().numpy())


def _leaf(torch, a: np.ndarray):
    return torch.tensor(a, requires_grad=True)


def _take_grads(*leaves) -> list:
    """Read and clear the leaves' ``.grad`` (so repeated passes do not accumulate)."""
    out = [_np(p.grad) for p in leaves]
    for p in leaves:
        p.grad = None
    return out


def counter(torch, data) -> Run:
    n = float(data["n"])

    def run():
        first, second = torch.tensor(0.0), torch.tensor(n)
        while first < second:
            first += 2
            second += 1
        return [_np(first), _np(second)]
    return run


def gradient(torch, data) -> Run:
    x, w = _leaf(torch, data["x"]), _leaf(torch, data["w"])

    def run():
        a = torch.add(w, x)
        b = torch.add(w, 1)
        y = torch.mul(a, b)
        y.backward()
        return [_np(y)] + _take_grads(x, w)
    return run


def rnn_cell(torch, data) -> Run:
    W_h, W_x = _leaf(torch, data["W_h"]), _leaf(torch, data["W_x"])
    x, prev_h = torch.tensor(data["x"]), torch.tensor(data["prev_h"])

    def run():
        h2h = torch.mm(W_h, prev_h.t())
        i2h = torch.mm(W_x, x.t())
        next_h = (h2h + i2h).tanh()
        loss = next_h.sum()
        loss.backward()
        return [_np(loss)] + _take_grads(W_h, W_x)
    return run


def rnn_unrolled(torch, data) -> Run:
    W_h, W_x = _leaf(torch, data["W_h"]), _leaf(torch, data["W_x"])
    xs, h0 = torch.tensor(data["xs"]), torch.tensor(data["h0"])

    def run():
        h = h0
        for t in range(len(data["xs"])):
            h = torch.tanh(torch.mm(W_h, h) + torch.mm(W_x, xs[t]))
        loss = h.sum()
        loss.backward()
        return [_np(loss)] + _take_grads(W_h, W_x)
    return run


def mlp(torch, data) -> Run:
    params = [(_leaf(torch, W), _leaf(torch, b)) for W, b in data["params"]]
    x, labels = torch.tensor(data["x"]), torch.tensor(data["labels"])
    opt = torch.optim.SGD([p for pair in params for p in pair], lr=data["lr"])
    cross_entropy = torch.nn.functional.cross_entropy

    def run():
        h = x
        for i, (W, b) in enumerate(params):
            h = h @ W + b
            if i < len(params) - 1:
                h = h.relu()
        loss = cross_entropy(h, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return [_np(loss)]
    return run


def chain_forward(torch, data) -> Run:
    x, c, n = _leaf(torch, data["x"]), _leaf(torch, data["c"]), data["n"]

    def run():
        y = x
        for _ in range(n):
            y = y + c
        return [_np(y)]
    return run


def chain_forward_backward(torch, data) -> Run:
    x, c, n = _leaf(torch, data["x"]), _leaf(torch, data["c"]), data["n"]

    def run():
        y = x
        for _ in range(n):
            y = y + c
        loss = y.sum()
        loss.backward()
        return [_np(loss)] + _take_grads(x, c)
    return run


def conv2d(torch, data) -> Run:
    """``loss = sum(conv2d(x, w, padding=1))`` and both gradients."""
    x, w = _leaf(torch, data["x"]), _leaf(torch, data["w"])
    conv = torch.nn.functional.conv2d

    def run():
        loss = conv(x, w, padding=1).sum()
        loss.backward()
        return [_np(loss)] + _take_grads(x, w)
    return run


def cnn(torch, data) -> Run:
    """conv-relu-pool, conv-relu-pool, dense; cross-entropy; one SGD step."""
    F = torch.nn.functional
    w1, b1, w2, b2, W, b = [_leaf(torch, p) for p in data["params"]]
    x, labels = torch.tensor(data["x"]), torch.tensor(data["labels"])
    opt = torch.optim.SGD([w1, b1, w2, b2, W, b], lr=data["lr"])

    def run():
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, w2, b2, padding=1)), 2)
        loss = F.cross_entropy(F.linear(h.flatten(1), W, b), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return [_np(loss)]
    return run


PROGRAMS = {"conv2d": conv2d, "cnn": cnn, "counter": counter, "gradient": gradient, "rnn_cell": rnn_cell,
            "rnn_unrolled": rnn_unrolled, "mlp": mlp, "chain_fwd": chain_forward,
            "chain_fwd_bwd": chain_forward_backward}

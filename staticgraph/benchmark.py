"""Compile once, run many: timings for the seeds' gradient example and RNN cell (fwd + bwd).

``python -m staticgraph.benchmark`` prints, measured in one run: graph build
time, first run (prune + order + plan + codegen + run), steady per-run time,
and the same computation in plain numpy (forward + hand-derived backward).
dyngraph (eager: build and run are one step, timed as steady) and TF1
(``tf.compat.v1``) are timed too when importable.
"""
from __future__ import annotations

import timeit
from typing import Callable

import numpy as np

import staticgraph as tf

__all__ = ["main"]


def _best(fn: Callable[[], object], number: int) -> float:
    """Best-of-5 mean seconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def gradient_example(lib=tf):
    """y = (x + w) * (w + 1); fetch y, dy/dw, dy/dx (the seeds' example, x=2, w=1)."""
    x = lib.placeholder(lib.float32, shape=(1,), name="x")
    w = lib.placeholder(lib.float32, shape=(1,), name="w")
    a = lib.add(w, x)
    b = lib.add(w, 1.0)
    y = lib.multiply(a, b)
    gw, gx = lib.gradients(y, [w, x])
    feed = {x: np.array([2.0], np.float32), w: np.array([1.0], np.float32)}
    return [y, gw, gx], feed


def gradient_numpy(x, w):
    a = x + w
    b = w + 1.0
    return a * b, b + a, b


def rnn_cell(lib=tf):
    """loss = sum(tanh(W_h @ h^T + W_x @ x^T)); fetch loss and its gradients for W_h, W_x."""
    rng = np.random.default_rng(0)
    W_h = lib.placeholder(lib.float32, shape=(20, 20), name="W_h")
    W_x = lib.placeholder(lib.float32, shape=(20, 10), name="W_x")
    x = lib.placeholder(lib.float32, shape=(1, 10), name="x")
    h = lib.placeholder(lib.float32, shape=(1, 20), name="prev_h")
    next_h = lib.tanh(lib.matmul(W_h, lib.transpose(h)) + lib.matmul(W_x, lib.transpose(x)))
    loss = lib.reduce_sum(next_h)
    gh, gx = lib.gradients(loss, [W_h, W_x])
    feed = {W_h: rng.standard_normal((20, 20)).astype(np.float32),
            W_x: rng.standard_normal((20, 10)).astype(np.float32),
            x: rng.standard_normal((1, 10)).astype(np.float32),
            h: rng.standard_normal((1, 20)).astype(np.float32)}
    return [loss, gh, gx], feed


def rnn_numpy(W_h, W_x, x, h):
    next_h = np.tanh(W_h @ h.T + W_x @ x.T)
    g = 1.0 - next_h * next_h
    return next_h.sum(), g @ h, g @ x


def measure(build: Callable, lib=tf, session=None, reset=None) -> dict:
    reset()
    t0 = timeit.default_timer()
    fetches, feed = build(lib)
    t1 = timeit.default_timer()
    sess = session()
    sess.run(fetches, feed)
    t2 = timeit.default_timer()
    steady = _best(lambda: sess.run(fetches, feed), 2000)
    return {"build": t1 - t0, "first_run": t2 - t1, "steady": steady,
            "values": sess.run(fetches, feed), "feed": list(feed.values())}


def _eager_gradient(torch, feed):
    x = torch.tensor(feed[0], requires_grad=True)
    w = torch.tensor(feed[1], requires_grad=True)

    def step():
        x.grad = w.grad = None
        y = torch.mul(torch.add(w, x), torch.add(w, 1.0))
        y.backward()
        return y, w.grad, x.grad
    return step


def _eager_rnn(torch, feed):
    W_h, W_x = (torch.tensor(a, requires_grad=True) for a in feed[:2])
    x, h = (torch.tensor(a) for a in feed[2:])

    def step():
        W_h.grad = W_x.grad = None
        loss = torch.tanh(torch.mm(W_h, h.t()) + torch.mm(W_x, x.t())).sum()
        loss.backward()
        return loss, W_h.grad, W_x.grad
    return step


EAGER = {"gradient example": _eager_gradient, "RNN cell": _eager_rnn}


def _peers(name: str, build: Callable, feed: list) -> dict:
    out = {}
    try:
        import dyngraph  # noqa: PLC0415  (the sibling eager engine; script only)
        step = EAGER[name](dyngraph, feed)
        step()
        out["dyngraph (eager)"] = {"build": None, "first_run": None, "steady": _best(step, 2000)}
    except ImportError:
        pass
    try:
        import tensorflow as real_tf  # noqa: PLC0415  (optional peer, script only)
        v1 = real_tf.compat.v1
        v1.disable_eager_execution()
        out["TF1 (tf.compat.v1)"] = measure(build, v1, v1.Session, v1.reset_default_graph)
    except ImportError:
        pass
    return out


def _ms(seconds: float | None) -> str:
    return f"{'-':>12}" if seconds is None else f"{seconds * 1e3:>10.2f}ms"


def main() -> None:
    rows = [("gradient example", gradient_example, gradient_numpy),
            ("RNN cell", rnn_cell, rnn_numpy)]
    for title, build, ref in rows:
        ours = measure(build, tf, tf.Session, tf.reset_default_graph)
        feed = ours["feed"]
        numpy_t = _best(lambda: ref(*feed), 20000)
        for got, want in zip(ours["values"], ref(*feed)):
            np.testing.assert_allclose(got, want, rtol=1e-5)
        print(f"\n{title} (fwd + bwd)")
        print(f"  {'engine':<22}{'build':>12}{'first run':>12}{'steady/run':>13}{'x numpy':>9}")
        results = {"staticgraph": ours, **_peers(title, build, feed)}
        for name, r in results.items():
            print(f"  {name:<22}{_ms(r['build'])}{_ms(r['first_run'])}"
                  f"{r['steady'] * 1e6:>11.2f}us{r['steady'] / numpy_t:>8.1f}x")
        print(f"  {'numpy (hand-written)':<22}{'':>12}{'':>12}{numpy_t * 1e6:>11.2f}us{1.0:>8.1f}x")


if __name__ == "__main__":
    main()

"""The memory-bound workload: a chain of elementwise ops over two large float32 tensors.

Twenty-odd elementwise ops (ten forward, the rest their gradient) over 4M-element tensors,
so every engine is bounded by memory traffic, not by Python or by arithmetic.  The figure is
an *effective bandwidth*: the bytes the program must move at the least -- read ``x`` and
``y``, write ``dx`` and ``dy`` -- divided by the steady run, set beside the machine's own
copy bandwidth (:func:`copy_bandwidth`, measured in the same run).  One pass per op moves
each intermediate through memory twice or three times, so an unfused engine reaches a small
fraction of the copy bandwidth; a fused one can approach it.

::

    a = x * y;  b = a + x;  c = b * b;  d = c - y;  e = d * 0.5
    f = e + a;  g = f * x;  h = g - b;  k = h * h;  l = k + y;   loss = sum(l)

The three programs (numpy floor with the gradient derived by hand, PyTorch API, TF1 API)
are written once each, like the other workloads'.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .timing import best_of

__all__ = ["chain", "forward", "floor", "eager", "static", "data", "compulsory_bytes", "copy_bandwidth"]

Run = Callable[[], Any]

SIZE, QUICK_SIZE = (1024, 4096), (16, 64)
"""4M float32 values (16 MiB per tensor, twice the L3 cache): every pass goes to memory."""


def data(rng: np.random.Generator, quick: bool) -> dict:
    shape = QUICK_SIZE if quick else SIZE
    return {"x": rng.standard_normal(shape).astype(np.float32),
            "y": rng.standard_normal(shape).astype(np.float32)}


def compulsory_bytes(d: dict) -> int:
    """Bytes one run must move at the least: read ``x`` and ``y``, write ``dx`` and ``dy``."""
    return 4 * d["x"].nbytes


def copy_bandwidth(nbytes: int = 16 << 20, repeat: int = 9) -> float:
    """The machine's copy bandwidth in bytes/s: ``np.copyto`` of ``nbytes`` into a buffer
    already written once (no page faults), counting the bytes read and the bytes written."""
    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    return 2 * nbytes / best_of(lambda: np.copyto(dst, src), repeat=repeat)


def chain(x, y) -> tuple:
    """The chain (any array API with ``*``, ``+``, ``-``): ``(b, f, h, l)``, the values its
    gradient reads and ``l``, whose sum is the loss."""
    a = x * y
    b = a + x
    c = b * b
    d = c - y
    e = d * 0.5
    f = e + a
    g = f * x
    h = g - b
    k = h * h
    return b, f, h, k + y


def forward(x, y):
    """``l``: the loss is its sum."""
    return chain(x, y)[-1]


def floor(d: dict) -> Run:
    """numpy, the gradient derived by hand (13 more elementwise ops)::

        dh = 2h;  df = dh x;  db = b df - dh;  da = df + db
        dx = dh f + db + da y;  dy = 1 - df / 2 + da x
    """
    x, y = d["x"], d["y"]

    def run():
        b, f, h, l = chain(x, y)
        loss = l.sum()
        dh = h + h
        df = dh * x
        db = b * df - dh
        da = df + db
        dx = dh * f + db + da * y
        dy = 1 - df * 0.5 + da * x
        return [loss, dx, dy]
    return run


def eager(torch, d: dict) -> Run:
    x = torch.tensor(d["x"], requires_grad=True)
    y = torch.tensor(d["y"], requires_grad=True)

    def run():
        loss = forward(x, y).sum()
        loss.backward()
        out = [np.array(loss.detach().numpy()), x.grad.numpy(), y.grad.numpy()]
        x.grad = y.grad = None
        return out
    return run


def static(tf, d: dict) -> Run:
    from .static_programs import _session
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=d["x"].shape, name="x")
        y = tf.placeholder(tf.float32, shape=d["y"].shape, name="y")
        loss = tf.reduce_sum(forward(x, y))
        fetches = [loss] + tf.gradients(loss, [x, y])
    return _session(tf, g, fetches, {x: d["x"], y: d["y"]})


EAGER = {"pointwise": eager}
STATIC = {"pointwise": static}

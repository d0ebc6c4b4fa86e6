"""rnn: the seeds' RNN cell, then the same cell unrolled over a sequence, in both engines.

Run: ``python -m comparisons.rnn [--out DIR] [--lengths 10,50,200]``.

An eager RNN is a Python loop: the recorded graph has one copy of the cell per
time step, rebuilt on every pass, so a longer sequence is simply a bigger
graph.  A static RNN is either unrolled at build time (one graph per length)
or a ``while_loop`` whose trip count comes from the fed data (one graph for
every length).  The showcase (:mod:`comparisons.rnn_strategies`) then runs one
LSTM classifier all three ways and measures them by sequence length.
"""
from __future__ import annotations

import dyngraph as torch
import numpy as np
import staticgraph as tf

from .rnn_strategies import DEFAULT_LENGTHS, run_showcase
from .sidebyside import (agree, columns, draw_eager, draw_static, facts, heading,
                         parse_args, recorded_summary, show_programs, static_ops,
                         static_summary)

__all__ = ["main"]

RNG = np.random.default_rng(0)
W_H = RNG.standard_normal((20, 20)).astype(np.float32) * np.float32(0.3)
W_X = RNG.standard_normal((20, 10)).astype(np.float32) * np.float32(0.3)
X = RNG.standard_normal((1, 10)).astype(np.float32)
PREV_H = RNG.standard_normal((1, 20)).astype(np.float32)
XS = RNG.standard_normal((5, 10, 1)).astype(np.float32)


def eager_cell():
    W_h = torch.tensor(W_H, requires_grad=True)
    W_x = torch.tensor(W_X, requires_grad=True)
    x, prev_h = torch.tensor(X), torch.tensor(PREV_H)
    h2h = torch.mm(W_h, prev_h.t())
    i2h = torch.mm(W_x, x.t())
    next_h = h2h + i2h
    next_h = next_h.tanh()
    loss = next_h.sum()
    loss.backward()
    return loss, W_h.grad, W_x.grad


def static_cell():
    g = tf.Graph()
    with g.as_default():
        W_h = tf.Variable(W_H, name="W_h")
        W_x = tf.Variable(W_X, name="W_x")
        x = tf.placeholder(tf.float32, (1, 10))
        prev_h = tf.placeholder(tf.float32, (1, 20))
        h2h = tf.matmul(W_h, tf.transpose(prev_h))
        i2h = tf.matmul(W_x, tf.transpose(x))
        next_h = tf.tanh(h2h + i2h)
        loss = tf.reduce_sum(next_h)
        grads = tf.gradients(loss, [W_h, W_x])
    return g, {x: X, prev_h: PREV_H}, [loss] + grads


def eager_sequence(xs):
    W_h = torch.tensor(W_H, requires_grad=True)
    W_x = torch.tensor(W_X, requires_grad=True)
    h = torch.zeros(20, 1)
    for x in torch.tensor(xs):          # one cell per step
        h = torch.tanh(torch.mm(W_h, h) + torch.mm(W_x, x))
    loss = h.sum()
    return loss, (W_h, W_x)


def static_sequence(steps=None):
    """``steps=None``: one while_loop for any length; an int: unrolled."""
    g = tf.Graph()
    with g.as_default():
        W_h = tf.Variable(W_H, name="W_h")
        W_x = tf.Variable(W_X, name="W_x")
        xs = tf.placeholder(tf.float32, (steps, 10, 1), name="xs")
        n = tf.placeholder(tf.int32, (), name="n")
        cell = lambda h, x: tf.tanh(tf.matmul(W_h, h)
                                    + tf.matmul(W_x, x))
        h = tf.zeros((20, 1))
        if steps is None:
            _, h = tf.while_loop(
                lambda t, h: t < n,
                lambda t, h: (t + 1, cell(h, xs[t])),
                [tf.constant(0), h])
        else:
            for t in range(steps):
                h = cell(h, xs[t])
        loss = tf.reduce_sum(h)
        grads = tf.gradients(loss, [W_h, W_x])
    return g, xs, n, [loss] + grads


def _run(g, fetches, feed):
    with g.as_default():
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        return sess.run(fetches, feed)


def _cell(out) -> list[str]:
    heading("the seeds' RNN cell: next_h = tanh(W_h @ prev_h.T + W_x @ x.T), loss = sum")
    show_programs(eager_cell, static_cell)
    loss, gh, gx = eager_cell()
    g, feed, fetches = static_cell()
    sl, sgh, sgx = _run(g, fetches, feed)
    print()
    columns([("loss", f"{loss.item():.6f}", f"{float(sl):.6f}"),
             ("dW_h[0, :3]", gh[0, :3], sgh[0, :3]), ("dW_x[0, :3]", gx[0, :3], sgx[0, :3])])
    draw_static(out, "rnn_cell_static", g, "staticgraph: the RNN cell with gradients()")
    return [f"RNN cell: loss and both weight gradients "
            f"{agree([(loss, sl), (gh, sgh), (gx, sgx)])}; dyngraph recorded "
            f"{recorded_summary(loss)} per pass, staticgraph holds {static_ops(g)} ops "
            f"(forward, gradients and variable plumbing) built once."]


def _static_while(loss, W_h, W_x, out) -> tuple[str, str]:
    g, xs, n, fetches = static_sequence()
    wl, wgh, wgx = _run(g, fetches, {xs: XS, n: len(XS)})
    draw_static(out, "rnn_while_static", g, "staticgraph: RNN as one while_loop")
    return (f"{float(wl):.6f} (while_loop)",
            f"staticgraph while_loop: {static_summary(g)} serve every length; loss and gradients "
            f"vs eager {agree([(loss, wl), (W_h.grad, wgh), (W_x.grad, wgx)])}.")


def _sequence(out) -> list[str]:
    heading("the cell over a sequence: Python loop vs while_loop")
    show_programs(eager_sequence, static_sequence)
    short, (sh, sx) = eager_sequence(XS[:3])
    sizes = {3: recorded_summary(short), 5: recorded_summary(eager_sequence(XS)[0])}
    draw_eager(out, "rnn_eager", short, "dyngraph: graph recorded for a 3-step sequence",
               {"W_h": sh, "W_x": sx})
    loss, (W_h, W_x) = eager_sequence(XS)
    loss.backward()
    unrolled = {s: static_sequence(s) for s in (3, 5)}
    g5, xs5, _, f5 = unrolled[5]
    ul, ugh, ugx = _run(g5, f5, {xs5: XS})
    while_cell, while_line = _static_while(loss, W_h, W_x, out)
    print()
    columns([("loss (5 steps)", f"{loss.item():.6f}", f"{float(ul):.6f} (unrolled)"),
             ("", "", while_cell)])
    return [f"Eager graph per pass: 3 steps -> {sizes[3]}, 5 steps -> {sizes[5]}: the recorded "
            f"graph is the loop unrolled by running it.",
            f"staticgraph unrolled at build time: 3 steps -> {static_ops(unrolled[3][0])} ops, "
            f"5 steps -> {static_ops(g5)} ops, one graph per length; loss and gradients vs "
            f"eager {agree([(loss, ul), (W_h.grad, ugh), (W_x.grad, ugx)])}.", while_line]


def _lengths(spec: str | None) -> tuple[int, ...]:
    return DEFAULT_LENGTHS if not spec else tuple(int(n) for n in spec.split(","))


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    facts(_cell(args.out) + _sequence(args.out)
          + run_showcase(_lengths(getattr(args, "lengths", None)), args.out))


if __name__ == "__main__":
    main()

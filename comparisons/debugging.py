"""debugging: printing an intermediate value in the middle of a computation.

Run: ``python -m comparisons.debugging``.

In dyngraph a value exists as soon as its line has run, so ``print`` (or a
debugger) shows it right there, and a hook shows its gradient during
``backward()``.  In staticgraph the same ``print`` shows a symbolic Tensor —
no value exists while the graph is built; to see one, add a print op to the
graph (it prints inside ``Session.run``) or fetch the intermediate tensor.
"""
from __future__ import annotations

import contextlib
import io
import sys

import dyngraph as torch
import numpy as np
import staticgraph as tf

from .sidebyside import (columns, draw_eager, draw_static, facts, heading, parse_args,
                         show_programs)

__all__ = ["main"]

X = np.array([[0.1, 0.2], [0.3, 0.4]], np.float32)


def eager_debug():
    x = torch.tensor(X, requires_grad=True)
    h = x @ x
    print("h =", h)           # a value, now
    h.register_hook(lambda g: print("dloss/dh =", g))
    loss = h.tanh().sum()
    loss.backward()           # the hook prints here
    return loss


def static_debug():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (2, 2), name="x")
        h = tf.matmul(x, x)
        print("h =", h)       # no value: a symbol
        show = tf.print("h =", h, output_stream=sys.stdout)
        with tf.control_dependencies([show]):
            loss = tf.reduce_sum(tf.tanh(h))
    return g, x, h, loss


def _captured(fn):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        out = fn()
    return out, buf.getvalue().rstrip()


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    heading("print an intermediate")
    show_programs(eager_debug, static_debug)
    loss, eager_printed = _captured(eager_debug)
    (g, x, h, sloss), build_printed = _captured(static_debug)
    with tf.Session(graph=g) as sess:
        sl, run_printed = _captured(lambda: sess.run(sloss, {x: X}))
        (hv, sl2), _ = _captured(lambda: sess.run([h, sloss], {x: X}))
    print()
    columns([("while building", "(nothing is built ahead)", build_printed),
             ("while computing", eager_printed, f"inside Session.run:\n{run_printed}"),
             ("fetch it instead", "(it is just a variable: h)", f"sess.run([h, loss]) -> h =\n{hv}"),
             ("loss", f"{loss.item():.6f}", f"{float(sl):.6f}")])
    facts([f"dyngraph printed h's value on the line after computing it, "
           f"{len(eager_printed.splitlines())} lines of output during one pass, the gradient "
           f"line coming from the hook during backward().",
           f"staticgraph's print at build time showed `{build_printed[4:]}`: a name, a shape and a "
           f"dtype, no numbers; the print op added to the graph printed the value only when "
           f"Session.run executed it, and fetching h returned it as a numpy array.",
           f"Same loss in both: {loss.item():.6f} vs {float(sl2):.6f}."])
    draw_eager(args.out, "debugging_eager", loss, "dyngraph: the pass that printed h")
    draw_static(args.out, "debugging_static", g,
                "staticgraph: the print op runs first (dashed: control dependency)")


if __name__ == "__main__":
    main()

"""branch: data-dependent control flow — a Python ``if``/``while`` vs ``cond``/``while_loop``.

Run: ``python -m comparisons.branch [--out DIR]``.

In dyngraph the data decides which ops run, so two inputs record two
different graphs; :func:`comparisons.graphdiff.diff` shows how they differ.
In staticgraph a Python ``if`` on a tensor cannot work (the tensor has no
value while the graph is built): both branches become part of one graph and
``cond`` picks one at run time.
"""
from __future__ import annotations

import inspect
import textwrap

import dyngraph as torch
import numpy as np
import staticgraph as tf

from .graphdiff import diff, record
from .sidebyside import (agree, columns, draw_eager, draw_static, facts, heading,
                         parse_args, show_programs, static_summary)

__all__ = ["main"]

POSITIVE, NEGATIVE = [1.0, 2.0, 3.0], [-1.0, 2.0, 3.0]


def eager_branch(values):
    x = torch.tensor(values, requires_grad=True)
    if x[0] > 0:
        y = x * 2
    else:
        y = x + 1
    y.backward(torch.tensor([1.0, 1.0, 1.0]))
    return x, y


def static_branch():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (3,), name="x")
        y = tf.cond(x[0] > 0,
                    lambda: x * 2,
                    lambda: x + 1)
        dx, = tf.gradients(y, [x])
    return g, x, y, dx


def eager_doubling(values):
    """A loop whose trip count depends on the data."""
    x = torch.tensor(values, requires_grad=True)
    y = x
    while y.sum() < 10:
        y = y * 2
    return x, y


def python_branch(x):
    """The tutorial's branch as plain Python, for ``tf.function`` to convert."""
    if x[0] > 0:
        y = x * 2
    else:
        y = x + 1
    return y


def static_doubling():
    """The same loop as one while_loop; ``i`` counts the trips."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (3,), name="x")
        trips, y = tf.while_loop(
            lambda i, y: tf.reduce_sum(y) < 10,
            lambda i, y: (i + 1, y * 2),
            [tf.constant(0), x])
    return g, x, trips, y


def _python_if_on_a_symbolic_tensor() -> str:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (3,), name="x")
        try:
            if x[0] > 0:
                pass
        except TypeError as e:
            return f"{type(e).__name__}: {e}"
    return "no error"


def _static_side(out) -> tuple[list[str], str]:
    g, x, y, dx = static_branch()
    draw_static(out, "branch_static", g, "staticgraph: one graph with cond")
    with tf.Session(graph=g) as sess:
        a = sess.run([y, dx], {x: POSITIVE})
        b = sess.run([y, dx], {x: NEGATIVE})
    cells = [f"y = {a[0]}, dx = {a[1]}", f"y = {b[0]}, dx = {b[1]}",
             f"{static_summary(g)}, one graph for both inputs"]
    return cells, (f"staticgraph built both branches once ({static_summary(g)}, cond and "
                   f"gradients included); each run took one branch, and the graph stayed the same.")


def _autograph(out) -> list[str]:
    heading("the same Python `if` under tf.function: autograph turns it into cond")
    f = tf.function(python_branch)
    a, b = (np.array(v, np.float32) for v in (POSITIVE, NEGATIVE))
    ya, yb = f(a), f(b)
    concrete = f.get_concrete_function(a)
    (_, (ga,)), (_, (gb,)) = concrete.value_and_gradients(a), concrete.value_and_gradients(b)
    print(textwrap.dedent(inspect.getsource(python_branch)))
    columns([(f"x = {v}", f"y = {python_branch(torch.tensor(v))}", f"y = {y}, dx = {g}")
             for v, y, g in ((POSITIVE, ya, ga), (NEGATIVE, yb, gb))],
            left="python_branch(torch.tensor(x))", right="tf.function(python_branch)(x)")
    draw_static(out, "branch_autograph_static", concrete.graph,
                "staticgraph: tf.function traced the Python if into one cond")
    return [f"tf.function traced python_branch {f.experimental_get_tracing_count()} time(s) "
            f"for both inputs into one graph with {concrete.count_kinds('If', 'StatelessIf')} If op "
            f"({static_summary(concrete.graph)}): the Python `if` became graph control flow, "
            f"chosen per run; the very same function runs eagerly on dyngraph tensors."]


def _loops(out) -> list[str]:
    heading("a data-dependent loop: `while y.sum() < 10: y = y * 2`")
    x1, y1 = eager_doubling([1.0, 1.0, 1.0])
    x2, y2 = eager_doubling([0.1, 0.1, 0.1])
    d = diff(record(y1, {"x": x1}), record(y2, {"x": x2}))
    print(d)
    draw_eager(out, "loop_eager", y2, "dyngraph: the doubling loop, input 0.1", {"x": x2})
    return [f"The same loop recorded {d.loops_a[0].trips} trips for x = 1 and "
            f"{d.loops_b[0].trips} trips for x = 0.1: "
            f"{d.a_nodes} vs {d.b_nodes} graph nodes.", _static_doubling(out, y1, y2)]


def _static_doubling(out, y1, y2) -> str:
    g, x, trips, y = static_doubling()
    draw_static(out, "loop_static", g, "staticgraph: the doubling loop as one while_loop")
    with tf.Session(graph=g) as sess:
        t1, v1 = sess.run([trips, y], {x: [1.0, 1.0, 1.0]})
        t2, v2 = sess.run([trips, y], {x: [0.1, 0.1, 0.1]})
    return (f"staticgraph ran one while_loop graph ({static_summary(g)}) for both inputs: "
            f"{t1} and {t2} trips, decided at run time; results vs eager "
            f"{agree([(y1.detach(), v1), (y2.detach(), v2)])}.")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    heading("the tutorial's `if x[0] > 0` with two inputs")
    show_programs(eager_branch, static_branch)
    xa, ya = eager_branch(POSITIVE)
    xb, yb = eager_branch(NEGATIVE)
    static_cells, static_line = _static_side(args.out)
    print()
    columns([(f"x = {POSITIVE}", f"y = {ya.detach()}, x.grad = {xa.grad}", static_cells[0]),
             (f"x = {NEGATIVE}", f"y = {yb.detach()}, x.grad = {xb.grad}", static_cells[1]),
             ("graphs", "one per pass, shaped by the branch taken", static_cells[2])])
    heading("graph diff of the two eager passes (comparisons.graphdiff)")
    d = diff(record(ya, {"x": xa}), record(yb, {"x": xb}))
    print(d)
    draw_eager(args.out, "branch_eager_positive", ya, "dyngraph: pass with x[0] > 0", {"x": xa})
    draw_eager(args.out, "branch_eager_negative", yb, "dyngraph: pass with x[0] <= 0", {"x": xb})
    lines = [f"dyngraph: the Python `if` ran on a concrete value, so each pass recorded only the "
             f"branch it took ({', '.join(d.diverged_a)} vs {', '.join(d.diverged_b)}).",
             static_line,
             "A Python `if` on a staticgraph tensor fails at build time: "
             + _python_if_on_a_symbolic_tensor()]
    lines += _autograph(args.out)
    facts(lines + _loops(args.out))


if __name__ == "__main__":
    main()

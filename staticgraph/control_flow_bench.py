"""Per-iteration cost of the seeds' counter loop, N = 10,000, measured in one run.

Run: ``python -m staticgraph.control_flow_bench [N]``.  Three programs, one
loop each (``first += 2; second += 1`` while ``first < second``, bound fed /
given at run time):

* staticgraph -- one ``while_loop`` node, compiled once, ``Session.run``;
* dyngraph    -- a Python ``while`` over eager tensors;
* numpy       -- a Python ``while`` over numpy float32 scalars (the floor, as
  comparisons/bench/numpy_floor.py writes it), and the same with its two
  constants hoisted out of the loop (what the generated loop does).

Best of several repeats; the compile happens before timing (and is asserted
to happen once).
"""
from __future__ import annotations

import sys
import time
from typing import Callable

import numpy as np

import dyngraph as torch
import staticgraph as tf

__all__ = ["main"]


def _best(fn: Callable[[], object], repeat: int = 7) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _numpy(n: float) -> tuple:
    first, second = np.float32(0.0), np.float32(n)
    while first < second:
        first = first + np.float32(2.0)
        second = second + np.float32(1.0)
    return first, second


def _numpy_hoisted(n: float) -> tuple:
    first, second, two, one = np.float32(0.0), np.float32(n), np.float32(2.0), np.float32(1.0)
    while first < second:
        first = first + two
        second = second + one
    return first, second


def _dyngraph(n: float) -> tuple:
    first, second = torch.tensor(0.0), torch.tensor(n)
    while first < second:
        first = first + 2
        second = second + 1
    return first, second


def main(argv: list[str] | None = None) -> None:
    n = int((argv or sys.argv[1:] or ["10000"])[0])
    g = tf.Graph()
    with g.as_default():
        bound = tf.placeholder(tf.float32, (), name="n")
        c1, c2 = tf.while_loop(lambda a, b: a < b, lambda a, b: (a + 2.0, b + 1.0),
                               [tf.constant(0.0), bound])
    sess = tf.Session(graph=g)
    feed = {bound: np.float32(n)}
    assert sess.run([c1, c2], feed) == [2 * n, 2 * n]
    times = {"staticgraph (while_loop, Session.run)": _best(lambda: sess.run([c1, c2], feed)),
             "dyngraph (Python while over tensors)": _best(lambda: _dyngraph(float(n)), 3),
             "numpy (Python while over float32 scalars)": _best(lambda: _numpy(n)),
             "numpy, constants hoisted out of the loop": _best(lambda: _numpy_hoisted(n))}
    assert sess.compile_count == 1
    floor = times["numpy (Python while over float32 scalars)"]
    print(f"counter loop, N = {n:,} iterations, per iteration (best of repeats):")
    for label, t in times.items():
        print(f"  {label:<44} {t / n * 1e9:8.0f} ns   {t / floor:5.2f}x numpy")


if __name__ == "__main__":
    main()

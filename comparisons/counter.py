"""counter: the seeds' while loop — a Python ``while`` over tensors vs ``tf.while_loop``.

Run: ``python -m comparisons.counter [--out DIR]``.

The eager loop is ordinary Python: each iteration runs its ops right away
and, because nothing requires grad, records nothing.  The static loop is one
graph node built once; the loop bound is fed at run time, so one compiled
graph serves N = 10 and N = 10,000.
"""
from __future__ import annotations

import dyngraph as torch
import staticgraph as tf

from .sidebyside import (columns, draw_eager, draw_static, facts, fmt_s, heading,
                         parse_args, recorded_nodes, run_seed, say, show_programs,
                         static_summary, timed)

__all__ = ["main", "SEED_TORCH", "SEED_TF"]

# The tutorial's snippets, verbatim (the PyTorch one with the missing ':' added).
SEED_TORCH = """import torch
first_counter=torch.Tensor([0])
second_counter=torch.Tensor([10])
while(first_counter < second_counter):
    first_counter+=2
    second_counter+=1
print(first_counter)
print(second_counter)
"""

SEED_TF = """import tensorflow as tf

first_counter = tf.constant(0)
second_counter = tf.constant(10)

def cond(first_counter,second_conter,*args):
    return first_counter<second_counter

def body(first_counter,second_conter):
      first_counter = tf.add(first_counter,2)
      second_conter = tf.add(second_counter,1)
      return first_counter, second_counter


c1,c2 = tf.while_loop(cond,body,[first_counter,second_counter])


with tf.compat.v1.Session() as sess:
      counter_1_res, counter_2_res = sess.run([c1,c2])
      print(counter_1_res,counter_2_res)
"""

CLOSURE_BUG = ("cond and body name their parameter `second_conter` (typo) but read the outer "
               "`second_counter`, the constant 10, so the loop compares against 10 and body "
               "returns that constant as the new second counter: first stops at 10, second "
               "stays 10 (TF 1.x prints `10 10`).")


def eager_count(n: int):
    first = torch.tensor(0.0)
    second = torch.tensor(float(n))
    while first < second:   # Python decides
        first += 2
        second += 1
    return first, second


def static_count_graph():
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.float32, (), name="n")
        first, second = tf.while_loop(
            lambda a, b: a < b,
            lambda a, b: (a + 2.0, b + 1.0),
            [tf.constant(0.0), n])
    return g, n, first, second


def _seeds() -> None:
    heading("the tutorial's snippets, import line changed only")
    eager_out = run_seed(SEED_TORCH, "dyngraph", "torch")
    static_out = run_seed(SEED_TF, "staticgraph", "tf")
    columns([("prints", eager_out, static_out)])
    print()
    say(f"Why the TF snippet differs: {CLOSURE_BUG}")


def _eager_growing_graph(n: int) -> int:
    """The same loop with a step that requires grad: the graph grows with the data."""
    step = torch.tensor(2.0, requires_grad=True)
    first, second = torch.tensor(0.0), torch.tensor(float(n))
    while first < second:
        first = first + step
        second = second + 1
    return recorded_nodes(first)


def _static_side(out: str | None) -> tuple[list, list]:
    (g, n, c1, c2), build_s = timed(static_count_graph)
    draw_static(out, "counter_static", g, "staticgraph: the counter as one while_loop")
    ops = static_summary(g)
    with tf.Session(graph=g) as sess:
        (r10, first_s) = timed(lambda: sess.run([c1, c2], {n: 10}))
        (r10k, run_s) = timed(lambda: sess.run([c1, c2], {n: 10_000}))
    after = static_summary(g)
    cells = [f"{r10[0]:g} {r10[1]:g}", f"{r10k[0]:g} {r10k[1]:g}",
             f"{ops}, built once before any run", f"{after}: unchanged by running"]
    lines = [f"staticgraph built {ops} in {fmt_s(build_s)} before any data existed; "
             f"the first run (compile + 10 iterations) took {fmt_s(first_s)}, N=10,000 took "
             f"{fmt_s(run_s)} ({fmt_s(run_s / 10_000)} per iteration) on the same graph, which "
             f"still has {after}."]
    return cells, lines


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    _seeds()
    heading("the loop with its bound fed at run time")
    show_programs(eager_count, static_count_graph)
    (f10, s10), _ = timed(lambda: eager_count(10))
    (f10k, s10k), eager_s = timed(lambda: eager_count(10_000))
    static_cells, static_lines = _static_side(args.out)
    print()
    columns([("N=10", f"{f10} {s10}", static_cells[0]),
             ("N=10,000", f"{f10k} {s10k}", static_cells[1]),
             ("graph nodes", f"{recorded_nodes(f10k)} recorded (nothing requires grad)",
              static_cells[2]),
             ("after runs", "each pass starts from nothing", static_cells[3])])
    grow3, grow10 = _eager_growing_graph(3), _eager_growing_graph(10)
    step = torch.tensor(2.0, requires_grad=True)
    first = torch.tensor(0.0) + step
    draw_eager(args.out, "counter_eager", first + step, "dyngraph: two iterations with a "
               "step that requires grad", {"step": step})
    facts([f"dyngraph ran the Python loop: 10,000 iterations took {fmt_s(eager_s)} "
           f"({fmt_s(eager_s / 10_000)} per iteration: one comparison + two adds, each computed "
           f"at once); it recorded {recorded_nodes(f10k)} graph nodes because no tensor requires "
           f"grad.",
           f"With a step that requires grad the eager graph follows the data: N=3 recorded "
           f"{grow3} nodes, N=10 recorded {grow10} (one Add per iteration plus the leaf), a new "
           f"graph per pass."] + static_lines)


if __name__ == "__main__":
    main()

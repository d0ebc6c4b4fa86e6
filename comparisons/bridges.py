"""bridges: one Python function, run eagerly, traced (jit.trace) and converted (tf.function + autograph).

Run: ``python -m comparisons.bridges``.

The function has a data-dependent loop (double ``x`` until ``x[0] >= 10``)
and a data-dependent branch (on the sign of ``x[1]``).  Written once with
Python operators only, it runs on dyngraph tensors as they are, and on
staticgraph tensors once autograph has rewritten its ``while``/``if``.

* eager: Python decides the loop and the branch on every call -- always right;
* ``dyngraph.jit.trace``: Python decided them once, on the example, and the
  recorded graph replays that path -- silently wrong for an input that needs
  another trip count or the other branch (the TracerWarnings are the only hint);
* ``staticgraph.function``: autograph made them ``while_loop``/``cond`` nodes,
  decided per call at run time -- right for every input, one trace.
"""
from __future__ import annotations

import inspect
import textwrap
import timeit
import warnings

import numpy as np

import dyngraph as torch
import staticgraph as tf

from .sidebyside import facts, heading, parse_args

__all__ = ["program", "main"]

EXAMPLE = [1.5, 3.0]      # 3 doublings, then the x[1] > 0 branch (the one jit.trace sees)
OTHER = [0.3, -2.0]       # 6 doublings, then the other branch


def program(x):
    """Double ``x`` until ``x[0] >= 10``; then scale by the trip count or shift by it."""
    steps = x[0] * 0.0
    while x[0] < 10.0:
        x = x * 2.0
        steps = steps + 1.0
    if x[1] > 0.0:
        y = x * steps
    else:
        y = x - steps
    return y[0] * y[1]


def _eager(v):
    x = torch.tensor(v, requires_grad=True)
    out = program(x)
    out.backward()
    return out.item(), x.grad.numpy()


def _traced(traced, v):
    x = torch.tensor(v, requires_grad=True)
    out = traced(x)
    out.backward()
    return out.item(), x.grad.numpy()


def _converted(fn, v):
    out, (grad,) = fn.value_and_gradients(np.array(v, np.float32))
    return float(out), grad


def _trace_with_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(program, torch.tensor(EXAMPLE))
    lines = inspect.getsourcelines(program)
    shown = []
    for w in caught:
        code = lines[0][w.lineno - lines[1]].strip() if lines[1] <= w.lineno < lines[1] + len(lines[0]) else ""
        shown.append(f"{w.filename.rsplit('/', 1)[-1]}:{w.lineno}: {w.category.__name__}: "
                     f"{w.message}\n      {code}")
    return traced, shown


def _per_call(fn, number: int = 100, repeat: int = 3) -> float:
    fn()                                                  # warm-up (first call traces/compiles)
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def _fmt(value: float, grad) -> str:
    return f"{value:12.4g}  d/dx = [{', '.join(f'{g:.4g}' for g in np.asarray(grad))}]"


def _table(rows: list[tuple[str, str, str]]) -> None:
    width = max(len(r[1]) for r in rows) + 2
    print(f"{'':28}  {'x = ' + str(EXAMPLE) + ' (the example)':{width}}  x = {OTHER}")
    for label, a, b in rows:
        print(f"{label:28}  {a:{width}}  {b}")


def _timings(traced, fn) -> tuple[list[str], dict]:
    xs = torch.tensor(OTHER)
    xn = np.array(OTHER, np.float32)
    with torch.no_grad():
        t_eager = _per_call(lambda: program(xs))
        t_trace = _per_call(lambda: traced(xs))
    t_fn = _per_call(lambda: fn(xn))
    rows = [("eager (dyngraph)", t_eager), ("jit.trace (frozen graph)", t_trace),
            ("tf.function (autograph)", t_fn)]
    return [f"{name:28}  {t * 1e6:8.1f} us/call" for name, t in rows], dict(rows)


def main(argv: list[str] | None = None) -> None:
    parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    heading("the function (written once; Python operators only)")
    print(textwrap.dedent(inspect.getsource(program)))
    traced, shown = _trace_with_warnings()
    heading("jit.trace on the example: what it warned")
    print("\n".join(shown) if shown else "(no warnings)")
    fn = tf.function(program)
    heading("what autograph made of it (tf.autograph.to_code)")
    print(tf.autograph.to_code(program))
    heading("values and gradients, side by side")
    results = {name: [run(v) for v in (EXAMPLE, OTHER)] for name, run in (
        ("eager", _eager), ("trace", lambda v: _traced(traced, v)),
        ("function", lambda v: _converted(fn, v)))}
    _table([(label, _fmt(*results[key][0]), _fmt(*results[key][1])) for label, key in (
        ("eager (dyngraph)", "eager"), ("jit.trace (dyngraph.jit)", "trace"),
        ("tf.function (autograph)", "function"))])
    right = [np.isclose(results[k][1][0], results["eager"][1][0], rtol=1e-5) and
             np.allclose(results[k][1][1], results["eager"][1][1], rtol=1e-5) for k in ("trace", "function")]
    heading("time per call after warm-up (forward only, same run)")
    lines, times = _timings(traced, fn)
    print("\n".join(lines))
    cf = fn.get_concrete_function(np.array(EXAMPLE, np.float32))
    facts([
        f"jit.trace recorded the example's path: {len(traced.graph.get_operations())} graph ops "
        f"({traced.cf.n_steps} steps in its compiled plan), no loop or branch node; for x = {OTHER} it is {'RIGHT' if right[0] else 'WRONG'} "
        f"({results['trace'][1][0]:.4g} instead of {results['eager'][1][0]:.4g}), with only "
        f"{len(shown)} TracerWarning(s) at trace time as a hint.",
        f"tf.function traced {fn.experimental_get_tracing_count()} time(s) into a graph with "
        f"{cf.count_kinds('While', 'StatelessWhile')} loop and "
        f"{cf.count_kinds('If', 'StatelessIf')} cond node(s); it is "
        f"{'RIGHT' if right[1] else 'WRONG'} for both inputs, gradients included.",
        f"Per call: eager {times['eager (dyngraph)'] * 1e6:.1f} us, traced "
        f"{times['jit.trace (frozen graph)'] * 1e6:.1f} us, tf.function "
        f"{times['tf.function (autograph)'] * 1e6:.1f} us for x = {OTHER}: the traced plan is "
        f"one straight line of numpy calls (and wrong here), the tf.function plan runs its "
        f"while_loop and cond at run time, the eager call runs every op through the engine.",
    ])


if __name__ == "__main__":
    main()

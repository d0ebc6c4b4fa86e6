"""``python -m comparisons --tensorboard DIR``: every comparison's two graphs, and the bench's curves.

Written with the engines' own TensorBoard writers (real event files), so
``tensorboard --logdir DIR`` shows, in the Graphs dashboard, one run per
engine and comparison -- pick ``counter/staticgraph`` then ``counter/dyngraph``
to see the same program as one ``while_loop`` node vs the trace of one
eager pass -- and, in the Scalars dashboard, the amortization curves of the
bench (cumulative time after k runs, one run per engine; from ``--bench-json``, the
newest full run in ``bench-results/``, or a short run)::

    DIR/counter/staticgraph     tf.summary.FileWriter(graph=g)      the built graph
    DIR/counter/dyngraph        SummaryWriter.add_graph(fn, x)      jit.trace of one pass
    ...                         (gradient, rnn_cell, rnn_sequence, branch, bridges)
    DIR/bench/<engine>          scalars "amortization/<workload>" (ms, step = k runs)
"""
from __future__ import annotations

import glob
import json
import os
import warnings
from dataclasses import fields
from typing import Any, Callable

import dyngraph as torch
import numpy as np
import staticgraph as tf
from dyngraph.utils.tensorboard import SummaryWriter

from . import branch, bridges, counter, gradient, rnn

__all__ = ["write", "add_arguments", "PAIRS"]


def eager_counter(n):
    """The seeds' loop on a tensor bound: the trace keeps the trips this ``n`` took."""
    first, second = n * 0.0, n
    while first < second:
        first = first + 2.0
        second = second + 1.0
    return first, second


def eager_gradient(w, x):
    return (x + w) * (w + 1)


def eager_cell(W_h, W_x, x, prev_h):
    return torch.tanh(torch.mm(W_h, prev_h.t()) + torch.mm(W_x, x.t())).sum()


def eager_sequence(W_h, W_x, xs):
    h = torch.zeros(20, 1)
    for t in range(xs.shape[0]):
        h = torch.tanh(torch.mm(W_h, h) + torch.mm(W_x, xs[t]))
    return h.sum()


def _bridges_graph() -> tf.Graph:
    fn = tf.function(bridges.program)
    return fn.get_concrete_function(np.array(bridges.EXAMPLE, np.float32)).graph


# name -> (static graph builder, eager function, its example inputs)
PAIRS: dict[str, tuple[Callable[[], Any], Callable, Callable[[], tuple]]] = {
    "counter": (lambda: counter.static_count_graph()[0], eager_counter,
                lambda: (torch.tensor(10.0),)),
    "gradient": (lambda: gradient.static_gradient()[0], eager_gradient,
                 lambda: (torch.tensor([1.0]), torch.tensor([2.0]))),
    "rnn_cell": (lambda: rnn.static_cell()[0], eager_cell,
                 lambda: tuple(torch.tensor(a) for a in (rnn.W_H, rnn.W_X, rnn.X, rnn.PREV_H))),
    "rnn_sequence": (lambda: rnn.static_sequence()[0], eager_sequence,
                     lambda: tuple(torch.tensor(a) for a in (rnn.W_H, rnn.W_X, rnn.XS))),
    "branch": (lambda: branch.static_branch()[0], branch.python_branch,
               lambda: (torch.tensor(branch.POSITIVE),)),
    "bridges": (_bridges_graph, bridges.program, lambda: (torch.tensor(bridges.EXAMPLE),)),
}


def write_graphs(logdir: str) -> list[str]:
    """Both engines' graphs of every pair; returns the run directories written."""
    runs = []
    for name, (static, eager, example) in PAIRS.items():
        static_dir, eager_dir = (os.path.join(logdir, name, e) for e in ("staticgraph", "dyngraph"))
        with tf.summary.FileWriter(static_dir, graph=static()):
            pass
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", torch.jit.TracerWarning)   # frozen control flow: the point
            with SummaryWriter(eager_dir) as w:
                w.add_graph(eager, example())
        runs += [static_dir, eager_dir]
    return runs


def _latest_bench_json() -> str | None:
    """The newest full (not ``--quick``) run's JSON under the bench's results folder, if any."""
    from .bench.cli import DEFAULT_RESULTS
    runs = sorted(glob.glob(os.path.join(DEFAULT_RESULTS, "*", "bench.json")))
    full = [r for r in runs if not os.path.dirname(r).endswith("-quick")]
    return full[-1] if full else None


def _bench_rows(bench_json: str | None) -> tuple[list, str]:
    """Rows of a bench JSON if given (or the newest full run's), else a short fresh run."""
    from .bench.suite import ENGINES, Row, run_suite
    from .bench.timing import Budget
    path = bench_json or _latest_bench_json()
    if path:
        with open(path) as f:
            names = {fl.name for fl in fields(Row)}
            return [Row(**{k: v for k, v in d.items() if k in names})
                    for d in json.load(f)["rows"]], path
    engines = [e for e in ENGINES if not e.peer]
    budget = Budget(seconds=0.05, min_samples=3, max_samples=10, warmup_s=0.01)
    return run_suite(engines=engines, budget=budget, quick=True), "a short run (small sizes)"


def write_bench(logdir: str, bench_json: str | None = None) -> tuple[list[str], str]:
    """Amortization curves: cumulative ms after k runs, per workload, one run per engine."""
    from .bench.report import cumulative
    rows, source = _bench_rows(bench_json)
    ks = np.unique(np.logspace(0, 4, 41).astype(int))
    runs: dict[str, SummaryWriter] = {}
    for r in rows:
        if r.status != "ok" or r.kind == "numpy" or r.steady_s is None:
            continue
        w = runs.get(r.engine) or runs.setdefault(
            r.engine, SummaryWriter(os.path.join(logdir, "bench", r.engine)))
        for k in ks:
            w.add_scalar(f"amortization/{r.workload}", cumulative(r, int(k)) * 1e3, int(k))
    for w in runs.values():
        w.close()
    return [w.log_dir for w in runs.values()], source


def write(logdir: str, bench_json: str | None = None) -> None:
    """Everything: graphs of both engines for every comparison, then the bench's curves."""
    graphs = write_graphs(logdir)
    curves, source = write_bench(logdir, bench_json)
    print(f"wrote {len(graphs)} graph runs ({len(PAIRS)} comparisons x 2 engines) and "
          f"{len(curves)} bench runs (from {source}) under {logdir}; view them with:\n"
          f"  tensorboard --logdir {logdir}")


def add_arguments(parser) -> None:
    """The options ``python -m comparisons`` takes for this module."""
    parser.add_argument("--tensorboard", metavar="DIR",
                        help="write both engines' graphs for every comparison and the bench's "
                             "curves as TensorBoard event files in DIR")
    parser.add_argument("--bench-json", metavar="PATH",
                        help="with --tensorboard: the bench JSON to plot (default: the newest "
                             "full run in bench-results/, else a short run)")


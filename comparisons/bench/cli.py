"""``python -m comparisons.bench``: measure, print the tables, write JSON and plots.

Each run's files go to its own folder, named for the run (UTC start time),
under ``--results`` (default ``bench-results`` in the current folder)::

    bench-results/2026-12-01T15-04-05Z/bench.json       (+ plots with --plots)
    bench-results/2026-12-01T15-10-44Z-quick/bench.json

``--json PATH`` writes the JSON there instead (``''``: no JSON); ``--plots DIR``
writes the pictures to DIR, ``--plots`` alone into the run's folder.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
from time import perf_counter

from . import plots, pointwise, report
from .suite import ENGINES, WORKLOADS, best_of, run_suite
from .timing import Budget

__all__ = ["main", "DEFAULT_RESULTS", "run_folder"]

DEFAULT_RESULTS = "bench-results"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m comparisons.bench", description=(
        "Benchmark dyngraph and staticgraph against hand-written numpy (forward + hand-derived "
        "backward) and, when installed, PyTorch and TensorFlow 1.x graph mode."), epilog=(
        "On a busy machine multi-threaded BLAS can stall badly; pin the thread pools with "
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m comparisons.bench "
        "(recorded in the JSON's machine.thread_env)."))
    p.add_argument("--quick", action="store_true",
                   help="smoke run: one timed run each, small sizes for the big workloads")
    p.add_argument("--results", default=DEFAULT_RESULTS, metavar="DIR",
                   help="each run writes into its own folder DIR/<UTC start time>/ "
                        "(default %(default)s/ in the current folder)")
    p.add_argument("--json", metavar="PATH",
                   help="where to write all figures (default: bench.json in the run's folder); "
                        "'' to skip")
    p.add_argument("--plots", metavar="DIR", nargs="?", const="",
                   help="write bar charts and the amortization curve into DIR "
                        "(no DIR: the run's folder)")
    p.add_argument("--only", metavar="W1,W2", help="workloads to run: "
                   + ",".join(w.name for w in WORKLOADS))
    p.add_argument("--engines", metavar="E1,E2", help="engines to run (numpy is always first): "
                   + ",".join(e.name for e in ENGINES))
    p.add_argument("--seconds", type=float, default=Budget.seconds,
                   help="time budget per measurement (default %(default)s s)")
    p.add_argument("--rounds", type=int, default=2,
                   help="run the suite this many times, keep each figure's best round "
                        "(default %(default)s; --quick: 1)")
    return p


def _select(items, spec: str | None, what: str, keep=()) -> list:
    if not spec:
        return list(items)
    wanted = set(spec.split(",")) | set(keep)
    unknown = wanted - {i.name for i in items}
    if unknown:
        raise SystemExit(f"unknown {what}: {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(i.name for i in items)}")
    return [i for i in items if i.name in wanted]


def run_folder(root: str, started: _dt.datetime, quick: bool) -> str:
    """``root/2026-12-01T15-04-05Z[-quick]``: sorts by time, safe on every file system."""
    return os.path.join(root, started.strftime("%Y-%m-%dT%H-%M-%SZ") + ("-quick" if quick else ""))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    workloads = _select(WORKLOADS, args.only, "workload")
    engines = _select(ENGINES, args.engines, "engine", keep=("numpy",))
    budget = Budget.quick() if args.quick else Budget(seconds=args.seconds)
    if args.plots is not None and not plots.have_matplotlib():
        print(f"note: {plots.MISSING_HINT}; continuing without plots", file=sys.stderr)
        args.plots = None
    t0, started = perf_counter(), _dt.datetime.now(_dt.timezone.utc)
    folder = run_folder(args.results, started, args.quick)
    json_path = os.path.join(folder, "bench.json") if args.json is None else args.json
    plots_dir = folder if args.plots == "" else args.plots
    if json_path or plots_dir is not None:
        print(f"results go to {os.path.abspath(json_path or plots_dir)}", file=sys.stderr)
    rounds = 1 if args.quick else max(1, args.rounds)
    bandwidths, results = [], []
    for _ in range(rounds):     # the copy bandwidth measured beside each round, best kept
        if any(w.bytes for w in workloads):
            bandwidths.append(pointwise.copy_bandwidth())
        results.append(run_suite(workloads, engines, budget, quick=args.quick))
    rows = best_of(results)
    bandwidth = max(bandwidths, default=None)
    elapsed = perf_counter() - t0
    print("Each engine as a multiple of hand-written numpy (steady run, fastest sample); "
          "numpy column: time per unit." + (" QUICK MODE: not real figures." if args.quick else ""))
    print(report.summary_table(rows))
    print()
    print(report.detail_table(rows))
    print()
    memory_bound = report.bandwidth_table(rows, bandwidth)
    if memory_bound:
        print(memory_bound)
        print()
    compile_cost = report.compile_table(rows)
    if compile_cost:
        print("Compile cost against graph size (the chain with its gradient; static engine, "
              "eager = one dyngraph forward+backward):")
        print(compile_cost)
        print()
    if json_path:
        os.makedirs(os.path.dirname(json_path) or ".", exist_ok=True)
        with open(json_path, "w") as f:
            f.write(report.to_json(rows, quick=args.quick, budget=budget, elapsed_s=elapsed,
                                   rounds=rounds, copy_bandwidth=bandwidth))
        print(f"wrote {os.path.abspath(json_path)}")
    if plots_dir is not None:
        for path in plots.write_plots(rows, plots_dir):
            print(f"wrote {os.path.abspath(path)}")
    return 0

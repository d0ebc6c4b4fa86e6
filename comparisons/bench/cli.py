"""``python -m comparisons.bench``: measure, print the tables, write JSON and plots."""
from __future__ import annotations

import argparse
import os
import sys
from time import perf_counter

from . import plots, report
from .suite import ENGINES, WORKLOADS, best_of, run_suite
from .timing import Budget

__all__ = ["main", "DEFAULT_JSON"]

DEFAULT_JSON = os.path.join("comparisons", "out", "bench.json")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m comparisons.bench", description=(
        "Benchmark dyngraph and staticgraph against hand-written numpy (forward + hand-derived "
        "backward) and, when installed, PyTorch and TensorFlow 1.x graph mode."), epilog=(
        "On a busy machine multi-threaded BLAS can stall badly; pin the thread pools with "
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m comparisons.bench "
        "(recorded in the JSON's machine.thread_env)."))
    p.add_argument("--quick", action="store_true",
                   help="smoke run: one timed run each, small sizes for the big workloads")
    p.add_argument("--json", default=DEFAULT_JSON, metavar="PATH",
                   help=f"where to write all figures (default {DEFAULT_JSON}); '' to skip")
    p.add_argument("--plots", metavar="DIR", help="write bar charts and the amortization curve")
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


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    workloads = _select(WORKLOADS, args.only, "workload")
    engines = _select(ENGINES, args.engines, "engine", keep=("numpy",))
    budget = Budget.quick() if args.quick else Budget(seconds=args.seconds)
    if args.plots and not plots.have_matplotlib():
        print(f"note: {plots.MISSING_HINT}; continuing without plots", file=sys.stderr)
        args.plots = None
    t0 = perf_counter()
    rounds = 1 if args.quick else max(1, args.rounds)
    rows = best_of([run_suite(workloads, engines, budget, quick=args.quick)
                    for _ in range(rounds)])
    elapsed = perf_counter() - t0
    print("Each engine as a multiple of hand-written numpy (steady run, fastest sample); "
          "numpy column: time per unit." + (" QUICK MODE: not real figures." if args.quick else ""))
    print(report.summary_table(rows))
    print()
    print(report.detail_table(rows))
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as f:
            f.write(report.to_json(rows, quick=args.quick, budget=budget, elapsed_s=elapsed,
                                   rounds=rounds))
        print(f"\nwrote {args.json}")
    if args.plots:
        for path in plots.write_plots(rows, args.plots):
            print(f"wrote {path}")
    return 0

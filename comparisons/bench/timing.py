"""Timing: first run apart, warm-up, then adaptively many repeats.

A run's cost is what we report, so the harness separates what a user pays
once from what they pay every time::

    build()   ->  static: graph construction + Session; eager/numpy: tensors
    run() #1  ->  "first run": a static engine compiles here (or, with a COMPILE_AFTER
                  above 0, prepares its plan and interprets it)
    run() #2+ ->  warm-up (caches, allocator; a static engine's tier-up to compiled
                  code) for ~``warmup_s`` and at least ``warmup_runs`` runs; its
                  fastest run is the cost estimate.  The first run and the first
                  ``warmup_runs`` warm-up runs are kept in order (``Timing.early_s``):
                  what a user pays for the first k runs is their sum, whichever run
                  the compile lands in
    run() x n ->  samples; each sample loops ``number`` runs so that even a
                  microsecond run is timed over >= ``min_sample_s``

``repeats`` follow from a time budget, so the whole suite finishes in a few
minutes whatever the machine.  All clocks are :func:`time.perf_counter`.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from time import perf_counter
from typing import Any, Callable

__all__ = ["Budget", "Timing", "measure", "timed", "best_of"]


@dataclass(frozen=True)
class Budget:
    """How long to spend on one (workload, engine) pair."""

    seconds: float = 0.4          # total time aimed at for the samples
    min_samples: int = 5
    max_samples: int = 50
    min_sample_s: float = 2e-3     # a sample loops runs until it lasts this long
    warmup_s: float = 1.0          # 0: no warm-up (quick mode); 1 s covers staticgraph's
    #                                tier-up of a hot plan or loop to fused kernels
    #                                (compiler/fuse.py FUSE_AFTER_S = 0.5 s of running)
    warmup_runs: int = 6           # at least this many warm-up runs: a static engine may
    #                                interpret a signature's first runs and compile it later
    #                                (staticgraph.compiler.pipeline.COMPILE_AFTER, up to 5), so the
    #                                samples and the estimate sizing them are compiled code's

    @classmethod
    def quick(cls) -> "Budget":
        """Smoke mode: one sample of one run, no warm-up (checks the harness, not speed)."""
        return cls(seconds=0.0, min_samples=1, max_samples=1, min_sample_s=0.0, warmup_s=0.0,
                   warmup_runs=0)


@dataclass
class Timing:
    """Per-run seconds: the first run, and the median/min over the samples."""

    first_s: float
    median_s: float
    min_s: float
    runs: int          # runs timed in the samples (not counting first and warm-up)
    samples: int
    early_s: tuple[float, ...] = ()   # the first run and ``warmup_runs`` warm-up runs, in order


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """``(fn(), seconds)``."""
    t0 = perf_counter()
    out = fn()
    return out, perf_counter() - t0


def best_of(fn: Callable[[], Any], number: int = 1, repeat: int = 7) -> float:
    """Seconds per call of ``fn``: the fastest of ``repeat`` samples of ``number`` calls
    (the least-disturbed sample: the figure scripts quote)."""
    best = math.inf
    for _ in range(repeat):
        t0 = perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (perf_counter() - t0) / number)
    return best


def measure(run: Callable[[], Any], budget: Budget) -> tuple[Any, Timing]:
    """Time ``run``; returns the first run's result (for checking) and the timing."""
    first_out, first_s = timed(run)
    estimate, spent, early = first_s, 0.0, [first_s]
    if budget.warmup_s > 0:
        estimate, runs = math.inf, 0
        while spent < budget.warmup_s or runs < budget.warmup_runs or estimate is math.inf:
            _, t = timed(run)
            estimate, spent, runs = min(estimate, t), spent + t, runs + 1
            if runs <= budget.warmup_runs:   # past these, warm-up runs are steady ones
                early.append(t)
    estimate = max(estimate, 1e-7)
    number = max(1, math.ceil(budget.min_sample_s / estimate))
    samples = int(budget.seconds / (estimate * number))
    samples = min(budget.max_samples, max(budget.min_samples, samples))
    per_run = []
    for _ in range(samples):
        t0 = perf_counter()
        for _ in range(number):
            run()
        per_run.append((perf_counter() - t0) / number)
    return first_out, Timing(first_s, statistics.median(per_run), min(per_run),
                             samples * number, samples, tuple(early))

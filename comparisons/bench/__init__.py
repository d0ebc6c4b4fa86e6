"""The benchmark suite: ``python -m comparisons.bench`` (``--quick``, ``--json``, ``--plots``).

Every workload runs as hand-written numpy (forward + hand-derived backward,
the floor), in dyngraph and staticgraph, and in PyTorch and TF1 graph mode
when installed (``pip install -e '.[peers]'``).  Modules:

    numpy_floor      the floor, pure functions (gradients tested by finite differences)
    eager_programs   each workload once in PyTorch's API (run by dyngraph and torch)
    static_programs  each workload once in TF1's API (run by staticgraph and tf.compat.v1)
    timing           first run / warm-up / adaptive repeats; the progress line
    suite            workloads x engines -> rows (each result checked against the floor)
    report, plots    tables, JSON, pictures
"""
from .cli import main

__all__ = ["main"]

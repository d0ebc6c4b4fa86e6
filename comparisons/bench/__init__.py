"""The benchmark suite: ``python -m comparisons.bench`` (``--quick``, ``--json``, ``--plots``).

Every workload runs as hand-written numpy (forward + hand-derived backward,
the floor), in dyngraph and staticgraph, and in PyTorch and TF1 graph mode
when installed (``pip install -e '.[peers]'``).  Modules:

    numpy_floor      the floor, pure functions (gradients tested by finite differences)
    lstm_floor       the LSTM floor: numpy with hand-derived backpropagation through time
    eager_programs   each workload once in PyTorch's API (run by dyngraph and torch)
    static_programs  each workload once in TF1's API (run by staticgraph and tf.compat.v1)
    lstm_programs    the LSTM workloads, one program per API
    timing           the one timer: first run / warm-up / adaptive repeats; best_of
    progress         the progress line (done/total, time left)
    suite            workloads x engines -> rows (each result checked against the floor)
    report, plots    tables, JSON, pictures
    cli              ``python -m comparisons.bench``
    per_op           ``python -m comparisons.bench.per_op``: eager per-op overhead
"""
from .cli import main

__all__ = ["main"]

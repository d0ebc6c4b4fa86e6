"""The workloads, the engines, and the loop that measures every pair.

A workload is its data (made once, seeded) plus one program per API: the
numpy floor, a PyTorch-API program run by ``dyngraph`` and ``torch``, a
TF1-API program run by ``staticgraph`` and ``tensorflow.compat.v1``.  Every
engine's first result is checked against the floor's, so a fast wrong answer
shows up as ``MISMATCH`` in the table, never as a win.
"""
from __future__ import annotations

import contextlib
import gc
import os
import sys
import tracemalloc
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from . import eager_programs, lstm_floor, lstm_programs, numpy_floor as nf, pointwise, static_programs
from .static_programs import NotAvailable
from .progress import Progress
from .timing import Budget, measure, timed

__all__ = ["Workload", "Engine", "Row", "Results", "WORKLOADS", "ENGINES", "run_suite", "best_of"]


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    make_data: Callable[[np.random.Generator, bool], dict]   # (rng, quick) -> data
    floor: Callable[[dict], Callable[[], list]]              # data -> numpy run
    eager: str | None                                        # key in eager_programs
    static: tuple[tuple[str, str], ...]                      # (row suffix, static_programs key)
    unit: str = "step"
    units: Callable[[dict], int] = lambda data: 1            # runs' worth of units (per-unit time)
    memory: bool = False                                     # also measure one run's peak memory
    series: str = ""                                         # one program at several sizes
    bytes: Callable[[dict], int] | None = None               # least bytes a run moves (GB/s)


@dataclass(frozen=True)
class Engine:
    name: str
    kind: str            # "numpy" | "eager" | "static"
    peer: bool
    load: Callable[[], Any]


@dataclass
class Row:
    """One (workload, engine) measurement, as it goes into the table and the JSON."""

    workload: str
    engine: str
    kind: str
    peer: bool
    status: str = "ok"              # "ok" | "n/a" | "error"
    note: str = ""
    build_s: float | None = None
    first_s: float | None = None
    median_s: float | None = None
    min_s: float | None = None
    runs: int = 0
    units: int = 1
    unit: str = "step"
    check: str | None = None
    peak_bytes: int | None = None   # tracemalloc peak of one run (numpy-based engines only)
    graph_ops: int | None = None    # nodes in the graph a static program built
    series: str = ""                # the workload's series (one program at several sizes)
    early_s: tuple = ()             # the first run and the warm-up runs, in order
    bytes: int | None = None        # least bytes one run moves (memory-bound rows: GB/s)

    @property
    def steady_s(self) -> float | None:
        """The figure every ratio uses: the fastest sample's per-run time.

        On a shared 2-core machine other processes only ever add time, so the
        minimum is the least disturbed estimate; the median is reported beside it.
        """
        return self.min_s

    @property
    def early(self) -> tuple:
        """The early runs as timed (rows made before they were kept: the first run alone)."""
        return self.early_s or (self.first_s,)


class Results(list):
    """The rows of a run: a plain ``list`` of :class:`Row` that a notebook shows as the summary
    table (each engine as x numpy, where static pays off) and the amortization plot."""

    def _repr_html_(self) -> str:
        from common.notebook import html_table
        from .plots import amortization_svg
        from .report import summary_cells
        return html_table(*summary_cells(self)) + (amortization_svg(self) or "")


def _randn(rng, *shape, scale=1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _counter_data(n: int, quick_n: int):
    return lambda rng, quick: {"n": quick_n if quick else n}


def _gradient_data(rng, quick):
    return {"x": np.array([2.0], np.float32), "w": np.array([1.0], np.float32)}


def _rnn_cell_data(rng, quick):
    return {"W_h": _randn(rng, 20, 20), "W_x": _randn(rng, 20, 10),
            "x": _randn(rng, 1, 10), "prev_h": _randn(rng, 1, 20)}


def _rnn_seq_data(rng, quick):
    steps = 5 if quick else 50
    return {"W_h": _randn(rng, 20, 20, scale=0.2), "W_x": _randn(rng, 20, 10, scale=0.3),
            "xs": _randn(rng, steps, 10, 1), "h0": _randn(rng, 20, 1)}


def _mlp_data(sizes: tuple, batch: int, quick_sizes: tuple, quick_batch: int):
    def make(rng, quick):
        dims, b = (quick_sizes, quick_batch) if quick else (sizes, batch)
        params = [(_randn(rng, i, o, scale=np.sqrt(2.0 / i)), np.zeros(o, np.float32))
                  for i, o in zip(dims[:-1], dims[1:])]
        return {"params": params, "x": _randn(rng, b, dims[0]),
                "labels": rng.integers(0, dims[-1], size=b).astype(np.int64), "lr": 0.1}
    return make


def _chain_data(n: int, quick_n: int):
    return lambda rng, quick: {"x": _randn(rng, 16, 16), "c": _randn(rng, 16, 16),
                               "n": quick_n if quick else n}


def _chain(size: int, quick_size: int, title: str) -> Workload:
    """The chain with its gradient at ``size`` layers: the compile-cost series (build, first
    run and steady run against size, and where static pays off)."""
    name = "chain_fwd_bwd" if size == 100 else f"chain_fwd_bwd_{size // 1000}k"
    return Workload(name, title, _chain_data(size, quick_size),
                    lambda d: lambda: list(nf.chain_forward_backward(d["x"], d["c"], d["n"])),
                    "chain_fwd_bwd", (("", "chain_fwd_bwd"),), unit="op",
                    units=lambda d: d["n"], series="chain")


def _conv_data(rng, quick):
    n = 2 if quick else 64
    x, w = _randn(rng, n, 32, 14, 14), _randn(rng, 64, 32, 3, 3, scale=0.1)
    return {"x": x, "w": w, "x_nhwc": np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
            "w_hwio": np.ascontiguousarray(w.transpose(2, 3, 1, 0))}


def _cnn_data(rng, quick):
    """PyTorch layouts for the floor and torch programs, the same numbers in TF's for TF programs."""
    n = 2 if quick else 64
    shapes = [(32, 1, 3, 3), (32,), (64, 32, 3, 3), (64,), (10, 64 * 7 * 7), (10,)]
    params = [_randn(rng, *s, scale=np.sqrt(2.0 / np.prod(s[1:])) if len(s) > 1 else 0.0)
              for s in shapes]
    w1, b1, w2, b2, W, b = params
    tf_params = [w1.transpose(2, 3, 1, 0), b1, w2.transpose(2, 3, 1, 0), b2,
                 W.reshape(10, 64, 7, 7).transpose(2, 3, 1, 0).reshape(-1, 10), b]
    x = _randn(rng, n, 1, 28, 28)
    return {"params": params, "tf_params": [np.ascontiguousarray(p) for p in tf_params],
            "x": x, "x_nhwc": np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
            "labels": rng.integers(0, 10, size=n).astype(np.int64), "lr": 0.05}


def _cnn_floor(data):
    params = [p.copy() for p in data["params"]]
    return lambda: [nf.cnn_train_step(params, data["x"], data["labels"], data["lr"])]


def _lstm_data(steps: int, quick_steps: int):
    """LSTM hidden 128, input 32, batch 32 (PyTorch's layout: gates i, f, g, o); quick: tiny."""
    def make(rng, quick):
        n, inp, hidden, batch = (quick_steps, 4, 8, 2) if quick else (steps, 32, 128, 32)
        return {"W_x": _randn(rng, inp, 4 * hidden, scale=0.1),
                "W_h": _randn(rng, hidden, 4 * hidden, scale=0.1),
                "b": _randn(rng, 4 * hidden, scale=0.1), "xs": _randn(rng, n, batch, inp),
                "lr": 0.01}
    return make


def _lstm_train_floor(data):
    params = [data["W_x"].copy(), data["W_h"].copy(), data["b"].copy()]
    return lambda: [lstm_floor.lstm_train_step(params, data["xs"], data["lr"])]


def _mlp_floor(data):
    params = [(W.copy(), b.copy()) for W, b in data["params"]]
    return lambda: [nf.mlp_train_step(params, data["x"], data["labels"], data["lr"])]


WHILE = (("", "counter"),)
WORKLOADS = [
    Workload("counter_10", "counter loop, N=10", _counter_data(10, 10),
             lambda d: lambda: list(nf.counter(d["n"])), "counter", WHILE,
             unit="iteration", units=lambda d: d["n"]),
    Workload("counter_10k", "counter loop, N=10,000", _counter_data(10_000, 100),
             lambda d: lambda: list(nf.counter(d["n"])), "counter", WHILE,
             unit="iteration", units=lambda d: d["n"]),
    Workload("gradient", "seeds' y=(x+w)*(w+1), fwd+bwd", _gradient_data,
             lambda d: lambda: list(nf.gradient_example(d["x"], d["w"])), "gradient",
             (("", "gradient"),)),
    Workload("rnn_cell", "RNN cell (20x20, 20x10), fwd+bwd", _rnn_cell_data,
             lambda d: lambda: list(nf.rnn_cell(d["W_h"], d["W_x"], d["x"], d["prev_h"])),
             "rnn_cell", (("", "rnn_cell"),)),
    Workload("rnn_50", "RNN over 50 steps, fwd+bwd", _rnn_seq_data,
             lambda d: lambda: list(nf.rnn_unrolled(d["W_h"], d["W_x"], d["xs"], d["h0"])),
             "rnn_unrolled", (("", "rnn_while"), ("-unrolled", "rnn_unrolled"))),
    Workload("mlp", "MLP 784-256-10 train step, batch 64", _mlp_data((784, 256, 10), 64,
                                                                    (784, 256, 10), 64),
             _mlp_floor, "mlp", (("", "mlp"),)),
    Workload("mlp_large", "MLP 2048-2048-2048-10 train step, batch 512",
             _mlp_data((2048, 2048, 2048, 10), 512, (64, 64, 64, 10), 16),
             _mlp_floor, "mlp", (("", "mlp"),), memory=True),
    Workload("lstm_50", "LSTM (hidden 128, input 32, batch 32) over 50 steps, fwd+bwd",
             _lstm_data(50, 3),
             lambda d: lambda: list(lstm_floor.lstm_loss_and_grads(d["W_x"], d["W_h"], d["b"],
                                                                   d["xs"])),
             "lstm", (("", "lstm_dynamic"), ("-static_rnn", "lstm_static"))),
    Workload("lstm_50_train", "LSTM over 50 steps, SGD train step", _lstm_data(50, 3),
             _lstm_train_floor, "lstm_train", (("", "lstm_dynamic_train"),)),
    Workload("lstm_200_train", "LSTM over 200 steps, SGD train step (+ peak memory)",
             _lstm_data(200, 4), _lstm_train_floor, "lstm_train",
             (("", "lstm_dynamic_train"),), memory=True),
    Workload("chain_fwd", "100 chained adds (16,16), fwd", _chain_data(100, 100),
             lambda d: lambda: [nf.chain_forward(d["x"], d["c"], d["n"])], "chain_fwd",
             (("", "chain_fwd"),), unit="op", units=lambda d: d["n"]),
    _chain(100, 100, "100 chained adds (16,16), fwd+bwd"),
    _chain(1_000, 20, "1,000 chained adds (16,16), fwd+bwd"),
    _chain(10_000, 40, "10,000 chained adds (16,16), fwd+bwd"),
    Workload("conv2d", "conv2d 64x32x14x14 by 64x32x3x3, fwd+bwd", _conv_data,
             lambda d: lambda: list(nf.conv2d_forward_backward(d["x"], d["w"], 1)), "conv2d",
             (("", "conv2d"),)),
    Workload("cnn", "CNN train step (conv32-pool-conv64-pool-dense10), batch 64", _cnn_data,
             _cnn_floor, "cnn", (("", "cnn"),), memory=True),
    Workload("pointwise", "23 elementwise ops on 4M float32 (memory-bound), fwd+bwd",
             pointwise.data, pointwise.floor, "pointwise", (("", "pointwise"),),
             bytes=pointwise.compulsory_bytes),
]


def _import(name: str):
    return __import__(name)


@contextlib.contextmanager
def _quiet_stderr():
    """Silence the C++ start-up chatter TensorFlow writes straight to file descriptor 2."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _tf1():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")      # tf.nn.rnn_cell needs tf_keras
    with _quiet_stderr():
        import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    return tf.compat.v1


class _SessionConfigured:
    """A module whose ``Session`` always gets ``config``: the same programs, other settings."""

    def __init__(self, module, config):
        self._module, self._config = module, config

    def __getattr__(self, name: str):
        return getattr(self._module, name)

    def Session(self, *args, **kwargs):  # noqa: N802 (TF's name)
        return self._module.Session(*args, config=self._config, **kwargs)


def _staticgraph_without_passes():
    """staticgraph with every optimisation pass off: what the compiler's passes are worth."""
    sg = _import("staticgraph")
    from staticgraph.compiler import PassConfig
    return _SessionConfigured(sg, PassConfig.off())


ENGINES = [
    Engine("numpy", "numpy", False, lambda: np),
    Engine("dyngraph", "eager", False, lambda: _import("dyngraph")),
    Engine("staticgraph", "static", False, lambda: _import("staticgraph")),
    Engine("staticgraph-nopasses", "static", False, _staticgraph_without_passes),
    Engine("torch", "eager", True, lambda: _import("torch")),
    Engine("tf1", "static", True, _tf1),
]


def _builders(work: Workload, engine: Engine, module) -> list[tuple[str, Callable]]:
    """(row name, data -> run) for each program this engine runs for this workload."""
    if engine.kind == "numpy":
        return [(engine.name, work.floor)]
    if engine.kind == "eager":
        program = {**eager_programs.PROGRAMS, **lstm_programs.EAGER, **pointwise.EAGER}[work.eager]
        return [(engine.name, lambda d: program(module, d))]
    programs = {**static_programs.PROGRAMS, **lstm_programs.STATIC, **pointwise.STATIC}
    return [(engine.name + suffix, (lambda p: lambda d: p(module, d))(programs[key]))
            for suffix, key in work.static]


def _check(out, reference) -> str:
    """Compare an engine's first result with the floor's, value by value."""
    out, reference = list(out), list(reference)
    if len(out) != len(reference):
        return f"MISMATCH: {len(out)} results vs {len(reference)}"
    for k, (a, b) in enumerate(zip(out, reference)):
        a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
        if a.shape != b.shape or not np.allclose(a, b, rtol=2e-3, atol=1e-4):
            return f"MISMATCH in result {k}"
    return "ok"


def peak_memory(run: Callable) -> int:
    """Peak bytes allocated during one ``run()`` as tracemalloc sees them.

    numpy reports its buffers to tracemalloc, so this covers numpy, dyngraph
    and staticgraph; PyTorch and TensorFlow allocate outside its view.
    """
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _measure_one(row: Row, build: Callable, data: dict, budget: Budget, reference,
                 memory: bool = False) -> Any:
    try:
        gc.collect()       # every build starts from a collected heap, whatever ran before it
        run, row.build_s = timed(lambda: build(data))
        row.graph_ops = getattr(run, "graph_ops", None)
        out, t = measure(run, budget)
        if memory and not row.peer:
            row.peak_bytes = peak_memory(run)
    except NotAvailable as e:
        row.status, row.note = "n/a", str(e)
        return None
    except Exception as e:  # an engine under construction must not stop the suite
        row.status, row.note = "error", f"{type(e).__name__}: {e}"[:300]
        return None
    row.first_s, row.median_s, row.min_s, row.runs = t.first_s, t.median_s, t.min_s, t.runs
    row.early_s = t.early_s
    if reference is not None:
        row.check = _check(out, reference)
    return out


def _load(engine: Engine):
    try:
        return engine.load(), ""
    except ImportError as e:
        hint = "pip install -e '.[peers]'" if engine.peer else "engine not importable"
        return None, f"not installed ({hint}): {e}"


def run_suite(workloads=WORKLOADS, engines=ENGINES, budget: Budget = Budget(),
              quick: bool = False, seed: int = 0) -> Results:
    """Measure every (workload, engine) pair; never raises for an engine's failure.

    Engines run one after another over all workloads (numpy first, peers
    last), not interleaved: PyTorch's and TensorFlow's thread pools keep
    spinning after a call and would slow whatever numpy runs next.
    """
    data = {w.name: w.make_data(np.random.default_rng(seed), quick) for w in workloads}
    references: dict[str, Any] = {}
    progress = Progress(len(workloads) * len(engines))
    rows = []
    for engine in engines:
        module, why = _load(engine)
        for work in workloads:
            progress.step(f"{engine.name}  {work.name}")
            base = dict(workload=work.name, kind=engine.kind, peer=engine.peer,
                        unit=work.unit, units=work.units(data[work.name]), series=work.series,
                        bytes=work.bytes(data[work.name]) if work.bytes else None)
            if module is None:
                rows.append(Row(engine=engine.name, status="n/a", note=why, **base))
                continue
            for name, build in _builders(work, engine, module):
                row = Row(engine=name, **base)
                out = _measure_one(row, build, data[work.name], budget, references.get(work.name),
                                   work.memory)
                if engine.kind == "numpy":
                    references[work.name] = out
                rows.append(row)
    progress.done()
    order = {w.name: k for k, w in enumerate(workloads)}
    return Results(sorted(rows, key=lambda r: order[r.workload]))   # stable: engine order kept


def best_of(rounds: list[list[Row]]) -> Results:
    """Per (workload, engine), the round with the fastest steady run.

    On a shared machine a burst of other work can slow one measurement window
    many times over; rounds minutes apart rarely all hit one, so the best
    round is the figure closest to the engine's own cost.

    The one-off costs (build, first run, the early runs) are taken the same way but on their
    own: from the round where they summed least, so a collection or page-fault burst in one
    round's build is not reported as the engine's compile cost.
    """
    best: dict[tuple, Row] = {}
    cheapest_start: dict[tuple, Row] = {}
    for row in (r for rows in rounds for r in rows):
        key = (row.workload, row.engine)
        old = best.get(key)
        if old is None or (row.steady_s is not None and
                           (old.steady_s is None or row.steady_s < old.steady_s)):
            best[key] = row
        if row.build_s is not None and row.first_s is not None:
            old = cheapest_start.get(key)
            if old is None or _start_s(row) < _start_s(old):
                cheapest_start[key] = row
    out = []
    for key, row in best.items():
        start = cheapest_start.get(key)
        if start is not None and start is not row and row.steady_s is not None:
            row = replace(row, build_s=start.build_s, first_s=start.first_s,
                          early_s=start.early_s)
        out.append(row)
    return Results(out)


def _start_s(row: Row) -> float:
    """Build plus the early runs (or the first run): what one round paid to get going."""
    return row.build_s + sum(row.early)

"""Turning measured rows into ratios, a terminal table and a JSON document.

Nothing here measures: every figure comes from the :class:`~.suite.Row`
objects of one run, so the table, the JSON and the plots always agree.
"""
from __future__ import annotations

import datetime as _dt
import io
import json
import math
import os
import platform
import sys
from dataclasses import asdict

from rich import box
from rich.console import Console
from rich.table import Table

from .suite import Row

__all__ = ["fmt_s", "ratios", "cumulative", "up_front", "break_even", "summary_table",
           "detail_table", "series_points", "compile_table", "bandwidth_table", "machine_info",
           "to_json"]

# (label, numerator engine, denominator engine)
PAIRS = [("static/eager", "staticgraph", "dyngraph"), ("dyngraph/torch", "dyngraph", "torch"),
         ("staticgraph/tf1", "staticgraph", "tf1"), ("tf1/torch", "tf1", "torch")]


def fmt_s(s: float | None) -> str:
    """Seconds in a readable unit: ``812 ns``, ``12.3 µs``, ``4.56 ms``, ``1.23 s``."""
    if s is None:
        return "-"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def _by_workload(rows: list[Row]) -> dict[str, dict[str, Row]]:
    table: dict[str, dict[str, Row]] = {}
    for r in rows:
        table.setdefault(r.workload, {})[r.engine] = r
    return table


def _ok(row: Row | None) -> bool:
    return row is not None and row.status == "ok" and row.steady_s is not None


def ratios(rows: list[Row]) -> dict[str, dict[str, float]]:
    """Per workload: each engine / numpy (``x numpy``) and the :data:`PAIRS` ratios."""
    out = {}
    for work, engines in _by_workload(rows).items():
        base = engines.get("numpy")
        r = {}
        for name, row in engines.items():
            if _ok(row) and _ok(base):
                r[f"{name}/numpy"] = row.steady_s / base.steady_s
        for label, a, b in PAIRS:
            if _ok(engines.get(a)) and _ok(engines.get(b)):
                r[label] = engines[a].steady_s / engines[b].steady_s
        out[work] = r
    return out


def cumulative(row: Row, k: int) -> float:
    """What the first ``k`` runs of ``row`` cost, build included: a static engine's early runs
    as they were timed (its first run, the runs it interprets, the run it compiles on), then
    its steady run for each further one.  An eager engine is charged ``k * steady``: its best
    case, so static never looks better than it is."""
    if row.kind != "static":
        return k * row.steady_s
    early = row.early
    if k <= len(early):
        return row.build_s + sum(early[:k])
    return row.build_s + sum(early) + (k - len(early)) * row.steady_s


def up_front(row: Row) -> float:
    """What a static engine pays beyond its steady runs: build, plus every early run's excess
    over steady (preparing, interpreting, compiling) -- the cost that must pay off."""
    early = row.early
    return row.build_s + sum(early) - len(early) * row.steady_s


def break_even(static: Row | None, eager: Row | None) -> int | None:
    """Smallest k from which on static's first k runs cost no more than eager's:
    ``cumulative(static, j) <= j * steady_eager`` for every ``j >= k``.

    Past the measured early runs static's cost grows by its steady run and eager's by its
    own, so the crossing is found in closed form there and checked run by run before it.
    None when static's steady run is not faster than eager's (it never pays off).
    """
    if not (_ok(static) and _ok(eager)) or static.steady_s >= eager.steady_s:
        return None
    e = eager.steady_s
    n_early = len(static.early)
    k = max(n_early, math.ceil(up_front(static) / (e - static.steady_s)), 1)
    while k > 1 and cumulative(static, k - 1) <= (k - 1) * e:
        k -= 1
    return k


def _cell(row: Row | None, base: Row | None) -> str:
    if row is None:
        return ""
    if row.status != "ok":
        return row.status
    mark = "" if row.check in (None, "ok") else " MISMATCH"
    if row.engine == "numpy":
        return fmt_s(row.steady_s / row.units) + mark
    return (f"{row.steady_s / base.steady_s:.2f}x" if _ok(base) else fmt_s(row.steady_s)) + mark


def _render(header: list[str], body: list[list[str]]) -> str:
    """A plain-text table (header, a rule, rows) rendered by rich, without colour codes."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    for h in header:
        table.add_column(h, no_wrap=True)
    for row in body:
        table.add_row(*row)
    console = Console(file=io.StringIO(), width=10_000, color_system=None, highlight=False)
    console.print(table)
    return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())


def _column_order(rows: list[Row]) -> list[str]:
    """Engines in suite order, each program variant (``-unrolled``) right after its engine."""
    engine_of = {r.engine: r.engine.removesuffix("-unrolled") for r in rows}
    engines = list(dict.fromkeys(engine_of.values()))
    return sorted(engine_of, key=lambda e: (engines.index(engine_of[e]), e != engine_of[e]))


def summary_table(rows: list[Row]) -> str:
    """One line per workload: numpy's time per unit, every engine as x numpy, key ratios."""
    return _render(*summary_cells(rows))


def summary_cells(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    """The header and rows of :func:`summary_table` (a notebook shows them as HTML)."""
    engines = _column_order(rows)
    rat = ratios(rows)
    header = ["workload", "unit"] + [("numpy /unit" if e == "numpy" else e) for e in engines]
    header += [p[0] for p in PAIRS] + ["static pays off after"]
    body = []
    for work, by in _by_workload(rows).items():
        first = next(iter(by.values()))
        line = [work, first.unit] + [_cell(by.get(e), by.get("numpy")) for e in engines]
        line += [f"{rat[work][p[0]]:.2f}" if p[0] in rat[work] else "-" for p in PAIRS]
        k = break_even(by.get("staticgraph"), by.get("dyngraph"))
        line.append("-" if k is None else f"{k} runs")
        body.append(line)
    return header, body


def detail_table(rows: list[Row]) -> str:
    """Absolute times: build, first run, steady median/min, per unit; notes for n/a rows."""
    header = ["workload", "engine", "build", "first run", "steady median", "steady min",
              "per unit", "runs", "peak mem", "check / note"]
    body = []
    for r in rows:
        per_unit = fmt_s(r.steady_s / r.units) + f"/{r.unit}" if r.steady_s else "-"
        note = r.note if r.status != "ok" else (r.check or "")
        body.append([r.workload, r.engine, fmt_s(r.build_s), fmt_s(r.first_s), fmt_s(r.median_s),
                     fmt_s(r.min_s), per_unit, str(r.runs),
                     f"{r.peak_bytes / 2**20:.1f} MiB" if r.peak_bytes else "", note[:90]])
    return _render(header, body)


def series_points(rows: list[Row], series: str = "chain") -> list[dict]:
    """One dict per size of a workload series (smallest first): the static engine's build,
    first run, up-front cost (:func:`up_front`: build and the early runs' excess, the compile
    included wherever it happened) and steady run, the eager engine's steady run, the graph's
    node count and the break-even run count -- what the compile-cost table and plot show."""
    points = []
    for work, by in _by_workload([r for r in rows if r.series == series]).items():
        static, eager = by.get("staticgraph"), by.get("dyngraph")
        if not _ok(static):
            continue
        tf1 = by.get("tf1")
        points.append({
            "workload": work, "layers": static.units, "graph_ops": static.graph_ops,
            "build_s": static.build_s, "first_s": static.first_s, "up_front_s": up_front(static),
            "steady_s": static.steady_s,
            "eager_s": eager.steady_s if _ok(eager) else None,
            "break_even_runs": break_even(static, eager),
            "tf1_build_s": tf1.build_s if _ok(tf1) else None,
            "tf1_first_s": tf1.first_s if _ok(tf1) else None,
            "tf1_graph_ops": tf1.graph_ops if _ok(tf1) else None})
    return sorted(points, key=lambda p: p["layers"])


def compile_table(rows: list[Row], series: str = "chain") -> str:
    """The cost of building and compiling against graph size: one line per size of the series.

    ``up front`` is :func:`up_front` (build, and what the early runs cost beyond steady: the
    first run, interpreted runs and the run that compiles); ``/ node`` divides it by the
    graph's nodes -- the figure that must stay flat for compilation to stay linear in size.
    """
    header = ["layers", "graph ops", "build", "1st run", "up front", "up front / node", "steady",
              "eager (dyngraph)", "pays off after", "tf1 build", "tf1 1st run"]
    body = []
    for p in series_points(rows, series):
        ops, up = p["graph_ops"], p["up_front_s"]
        k = p["break_even_runs"]
        body.append([f"{p['layers']:,}", f"{ops:,}" if ops else "-", fmt_s(p["build_s"]),
                     fmt_s(p["first_s"]), fmt_s(up), fmt_s(up / ops) if ops else "-",
                     fmt_s(p["steady_s"]), fmt_s(p["eager_s"]), "-" if k is None else f"{k} runs",
                     fmt_s(p["tf1_build_s"]), fmt_s(p["tf1_first_s"])])
    return _render(header, body) if body else ""


def bandwidth_table(rows: list[Row], copy_bandwidth: float | None) -> str:
    """The memory-bound rows: each engine's effective bandwidth (the least bytes a run moves,
    ``Row.bytes``, over its steady run) in GB/s and as a share of the machine's copy bandwidth
    measured in the same run ('' when no row has a byte count)."""
    body = []
    for r in rows:
        if r.bytes and _ok(r):
            rate = r.bytes / r.steady_s
            share = f"{rate / copy_bandwidth:.0%}" if copy_bandwidth else "-"
            body.append([r.workload, r.engine, fmt_s(r.steady_s), f"{rate / 1e9:.2f}", share])
    if not body:
        return ""
    copy = f"{copy_bandwidth / 1e9:.2f} GB/s" if copy_bandwidth else "not measured"
    return (f"Effective bandwidth (least bytes moved / steady run); machine copy bandwidth "
            f"{copy}:\n" + _render(["workload", "engine", "steady", "GB/s", "of copy"], body))


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""Set these (e.g. to 1) before starting the bench to pin the BLAS/OpenMP thread pools."""


def _blas() -> str:
    import numpy
    try:
        blas = numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version')}"
    except (TypeError, KeyError):
        return "unknown"


def machine_info() -> dict:
    """Python, numpy and engine versions, CPU, platform and load: what the figures depend on.

    The load average (1, 5, 15 min, taken when the report is written) tells
    whether other processes competed for the cores during the run.
    """
    import networkx
    import numpy
    info = {"python": sys.version.split()[0], "implementation": platform.python_implementation(),
            "numpy": numpy.__version__, "networkx": networkx.__version__,
            "platform": platform.platform(), "machine": platform.machine(),
            "cpu": _cpu_model(), "cpu_count": os.cpu_count(),
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None}
    info["blas"] = _blas()
    info["thread_env"] = {v: os.environ.get(v) for v in THREAD_VARS}
    for name in ("torch", "tensorflow"):
        if name in sys.modules:
            info[name] = getattr(sys.modules[name], "__version__", "?")
    return info


def to_json(rows: list[Row], *, quick: bool, budget, elapsed_s: float, rounds: int = 1,
            copy_bandwidth: float | None = None) -> str:
    """The whole run as JSON: machine, settings, every row (with derived figures), ratios."""
    items = []
    for r in rows:
        d = asdict(r)
        d["per_unit_steady_s"] = r.steady_s / r.units if r.steady_s else None
        d["steady_s"] = r.steady_s
        items.append(d)
    doc = {"schema": 1, "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
           "quick": quick, "rounds": rounds, "elapsed_s": elapsed_s, "machine": machine_info(),
           "budget": asdict(budget), "rows": items, "ratios": ratios(rows),
           "break_even_runs": {w: break_even(by.get("staticgraph"), by.get("dyngraph"))
                               for w, by in _by_workload(rows).items()},
           "compile_cost": series_points(rows), "copy_bandwidth_bytes_per_s": copy_bandwidth}
    return json.dumps(doc, indent=2)

"""Plots of one benchmark run (matplotlib, from the optional ``[plots]`` extra).

* ``summary.png``: every workload at once -- each engine's steady run as a multiple of
  hand-written numpy (log scale, 1 = the floor): the README's one picture.
* ``bars_<workload>.png``: steady time per run of each engine, labelled ``x numpy``.
* ``amortization.png``: cumulative time against the number of runs k —
  static engines pay their build and each early run as timed (first run, interpreted
  runs, the run that compiles), then ``steady`` per run; eager ones ``k * steady`` —
  so the crossing point is where building once pays off.
* ``compile_cost.png``: the chain with its gradient at 100, 1,000 and 10,000 layers —
  the static engine's build, first run, whole up-front cost and steady run, and one
  eager forward+backward, against size; beside it, the runs after which static pays off.
"""
from __future__ import annotations

import importlib.util
import os

import numpy as np

from .report import break_even, cumulative, series_points
from .suite import Row

__all__ = ["MISSING_HINT", "ENGINES", "have_matplotlib", "write_plots", "amortization_svg"]

MISSING_HINT = "plots need matplotlib: pip install -e '.[plots]'"


def have_matplotlib() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


COLORS = {"numpy": "0.5", "dyngraph": "tab:orange", "torch": "tab:red",
          "staticgraph": "tab:blue", "tf1": "tab:cyan"}


def _color(engine: str) -> str:
    return COLORS.get(engine.split("-")[0], "tab:green")


def _ok(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.status == "ok" and r.steady_s]


def _bars(plt, work: str, rows: list[Row], path: str) -> None:
    rows = _ok(rows)
    base = next((r.steady_s for r in rows if r.engine == "numpy"), None)
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.5))
    y = np.arange(len(rows))
    for i, r in enumerate(rows):
        ax.barh(i, r.steady_s * 1e6, color=_color(r.engine), hatch="//" if "-" in r.engine else None)
    ax.set_yticks(y, [r.engine for r in rows])
    ax.invert_yaxis()
    for i, r in enumerate(rows):
        label = f" {r.steady_s / base:.2f}x numpy" if base else ""
        ax.text(r.steady_s * 1e6, i, label, va="center", fontsize=8)
    ax.set_xlabel("steady time per run (µs, fastest sample)")
    ax.set_title(work)
    ax.margins(x=0.25)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


ENGINES = ("dyngraph", "staticgraph", "torch", "tf1")


def _summary(plt, by_work: dict[str, list[Row]], path: str) -> bool:
    """Grouped bars: per workload, each engine's steady time over numpy's (log axis)."""
    groups = []
    for work, rows in by_work.items():
        by = {r.engine: r for r in _ok(rows)}
        if "numpy" in by and set(by) & set(ENGINES):
            groups.append((work, {e: by[e].steady_s / by["numpy"].steady_s
                                  for e in ENGINES if e in by}))
    if not groups:
        return False
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(groups) + 1.5))
    height = 0.8 / len(ENGINES)
    for j, engine in enumerate(ENGINES):
        ys = [i + (j - (len(ENGINES) - 1) / 2) * height for i, (_, r) in enumerate(groups) if engine in r]
        xs = [r[engine] for _, r in groups if engine in r]
        ax.barh(ys, xs, height=height, color=_color(engine), label=engine)
    ax.axvline(1.0, color="0.3", lw=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(groups)), [w for w, _ in groups], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("steady run / hand-written numpy's (log scale; < 1 is faster than the floor)")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _amortization(plt, by_work: dict[str, list[Row]], path: str) -> bool:
    fig = _amortization_figure(plt, by_work)
    if fig is None:
        return False
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _amortization_figure(plt, by_work: dict[str, list[Row]]):
    """Cumulative time against runs k, one panel per workload measured both ways (or None)."""
    panels = [(w, rs) for w, rs in by_work.items()
              if {r.kind for r in _ok(rs)} >= {"static", "eager"}]
    if not panels:
        return None
    cols = min(3, len(panels))
    nrows = -(-len(panels) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols, 3.6 * nrows), squeeze=False)
    k = np.unique(np.logspace(0, 4, 60).astype(int))
    for ax, (work, rows) in zip(axes.flat, panels):
        for r in _ok(rows):
            if r.kind == "numpy":
                continue
            style = ":" if "-" in r.engine else "-" if r.kind == "static" else "--"
            ax.loglog(k, [cumulative(r, int(j)) for j in k], style, color=_color(r.engine), label=r.engine)
        by = {r.engine: r for r in rows}
        k_even = break_even(by.get("staticgraph"), by.get("dyngraph"))
        if k_even is not None and k_even <= k[-1]:
            y = cumulative(by["dyngraph"], k_even)
            ax.plot([k_even], [y], "ko", ms=4)
            ax.annotate(f" static pays off at k={k_even}", (k_even, y), fontsize=7,
                        va="top")
        ax.set_title(work, fontsize=9)
        ax.set_xlabel("runs k")
        ax.set_ylabel("cumulative seconds")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.suptitle("static: build + its first runs as timed + steady per further run"
                 + ("\nvs   " if cols == 1 else "   vs   ") + "eager: k x steady", fontsize=10)
    fig.tight_layout()
    return fig


def _compile_cost(plt, rows: list[Row], path: str) -> bool:
    points = series_points(rows)
    if len(points) < 2:
        return False
    layers = [p["layers"] for p in points]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 2]})
    lines = [("build_s", "staticgraph build + gradients()", "-", "tab:blue"),
             ("first_s", "staticgraph first run", "--", "tab:blue"),
             ("up_front_s", "staticgraph up front (build + early runs' excess)", "-.",
              "tab:purple"),
             ("steady_s", "staticgraph steady run", ":", "tab:blue"),
             ("eager_s", "dyngraph fwd+bwd (one run)", "-", "tab:orange"),
             ("tf1_build_s", "tf1 build + gradients()", "-", "tab:cyan"),
             ("tf1_first_s", "tf1 first run", "--", "tab:cyan")]
    for key, label, style, color in lines:
        xy = [(p["layers"], p[key]) for p in points if p[key]]
        if xy:
            ax.loglog(*zip(*xy), style, marker="o", ms=3, color=color, label=label)
    ax.set_xticks(layers, [f"{n:,}" for n in layers])
    ax.minorticks_off()
    ax.set_xlabel("layers (y = y + c, with its gradient)")
    ax.set_ylabel("seconds")
    ax.set_title("cost against graph size", fontsize=9)
    ax.legend(fontsize=7)
    k = [p["break_even_runs"] for p in points]
    ax2.bar([str(n) for n in layers], [0 if v is None else v for v in k], color="tab:blue")
    for i, v in enumerate(k):
        ax2.text(i, v or 0, f" {v}" if v is not None else " never", ha="center", va="bottom",
                 fontsize=8)
    ax2.set_xlabel("layers")
    ax2.set_ylabel("runs until static pays off")
    ax2.set_title("build + first k runs <= k eager runs", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _by_work(rows: list[Row]) -> dict[str, list[Row]]:
    by_work: dict[str, list[Row]] = {}
    for r in rows:
        by_work.setdefault(r.workload, []).append(r)
    return by_work


class _Bare:
    """pyplot's ``subplots`` on a bare ``Figure``: a notebook drawing the amortization plot
    inline must not have its backend switched to Agg by :func:`_pyplot`, nor get the figure
    shown a second time by the inline backend."""

    @staticmethod
    def subplots(nrows: int, ncols: int, figsize: tuple, squeeze: bool = True):
        from matplotlib.figure import Figure
        fig = Figure(figsize=figsize)
        return fig, fig.subplots(nrows, ncols, squeeze=squeeze)


def amortization_svg(rows: list[Row]) -> str | None:
    """The amortization plot as inline SVG fitted to a notebook column (None without
    matplotlib, or when no workload has both a static and an eager engine measured)."""
    if not have_matplotlib():
        return None
    from common.display import figure_svg
    fig = _amortization_figure(_Bare, _by_work(rows))
    return None if fig is None else figure_svg(fig)


def write_plots(rows: list[Row], out_dir: str) -> list[str]:
    """Write the PNGs into ``out_dir``; returns their paths."""
    plt = _pyplot()
    os.makedirs(out_dir, exist_ok=True)
    by_work = _by_work(rows)
    paths = []
    path = os.path.join(out_dir, "summary.png")
    if _summary(plt, by_work, path):
        paths.append(path)
    for work, rs in by_work.items():
        if _ok(rs):
            path = os.path.join(out_dir, f"bars_{work}.png")
            _bars(plt, work, rs, path)
            paths.append(path)
    path = os.path.join(out_dir, "amortization.png")
    if _amortization(plt, by_work, path):
        paths.append(path)
    path = os.path.join(out_dir, "compile_cost.png")
    if _compile_cost(plt, rows, path):
        paths.append(path)
    return paths

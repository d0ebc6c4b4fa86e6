"""What every side-by-side script shares: arguments, two-column printing, counting, seeds.

A script shows two programs (eager on the left, static on the right), their
results next to each other, then "what happened differently" as measured
facts: graph nodes each engine built and when, times, where errors surface.
"""
from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import textwrap
from typing import Any

from .bench.report import fmt_s
from .bench.timing import timed
from .graphdiff import record
from .pictures import eager_graph, regions, static_graph, write_graph

__all__ = ["parse_args", "heading", "columns", "show_programs", "facts",
           "run_seed", "say", "recorded_nodes", "recorded_summary", "agree", "static_ops", "static_summary", "timed", "fmt_s", "draw_eager",
           "draw_static"]

WIDTH = 56


def parse_args(argv: list[str] | None, doc: str | None) -> argparse.Namespace:
    """A script's options: the shared ones of :func:`comparisons.cli.add_shared_options`."""
    from .cli import add_shared_options
    p = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])
    add_shared_options(p)
    return p.parse_args(argv)


def heading(title: str) -> None:
    print(f"\n--- {title} " + "-" * max(0, 2 * WIDTH - len(title)))


def _cut(text: str, width: int) -> list[str]:
    out = []
    for line in str(text).splitlines() or [""]:
        out.extend(textwrap.wrap(line, width, subsequent_indent="  ", drop_whitespace=False)
                   or [""])
    return out


def columns(rows: list[tuple[str, Any, Any]], left: str = "dyngraph (eager)",
            right: str = "staticgraph (static)", width: int = WIDTH) -> None:
    """Print ``(label, eager, static)`` rows as a three-column table (cells may be multi-line)."""
    label_w = max(len(r[0]) for r in rows)
    print(f"{'':{label_w}}  {left:{width}}  {right}")
    for label, a, b in rows:
        la, lb = _cut(a, width), _cut(b, 64)
        for k in range(max(len(la), len(lb))):
            cells = (label if k == 0 else "", la[k] if k < len(la) else "",
                     lb[k] if k < len(lb) else "")
            print(f"{cells[0]:{label_w}}  {cells[1]:{width}}  {cells[2]}".rstrip())


def show_programs(eager, static) -> None:
    """The two programs' source (a function or class, or a tuple of them), next to each other."""
    def src(objs) -> str:
        objs = objs if isinstance(objs, tuple) else (objs,)
        return "\n\n".join(textwrap.dedent(inspect.getsource(o)).rstrip() for o in objs)
    a, b = src(eager), src(static)
    columns([("", a, b)], width=max(len(line) for line in a.splitlines()) + 2)


def say(text: str) -> None:
    """Print a paragraph wrapped to the table's width."""
    print(textwrap.fill(text, 2 * WIDTH + 10))


def compare_printed(ours: list[str], theirs: list[str], ours_name: str, theirs_name: str,
                    framework: str) -> str:
    """Print what a script printed in two runs, line under line; return the fact to state:
    how many of the lines are ``framework``'s, character for character."""
    width = max(len(ours_name), len(theirs_name))
    for a, b in zip(ours, theirs):
        print(f"  {ours_name:{width}}  {a}\n  {theirs_name:{width}}  {b}")
    same = sum(a == b for a, b in zip(ours, theirs)) if len(ours) == len(theirs) else 0
    return (f"{same} of {len(theirs)} printed lines are {framework}'s, character for character"
            + ("." if same == len(theirs) == len(ours) else " -- the streams DIFFER."))


def facts(lines: list[str]) -> None:
    print("\nWhat happened differently (measured in this run):")
    for line in lines:
        print(textwrap.fill(line, 2 * WIDTH + 10, initial_indent="  * ", subsequent_indent="    "))


def run_seed(code: str, module: str, alias: str) -> str:
    """Run a tutorial snippet with only its import line changed; return what it printed."""
    real = {"tf": "tensorflow", "torch": "torch"}[alias]
    code = code.replace(f"import {real} as {alias}", f"import {module} as {alias}")
    code = code.replace(f"import {real}\n", f"import {module} as {alias}\n")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, f"<seed snippet, {module}>", "exec"), {"__name__": "__seed__"})
    return buf.getvalue().rstrip()


def recorded_nodes(t) -> int:
    """Nodes in the graph one eager pass recorded behind ``t`` (0 if nothing was recorded)."""
    return 0 if getattr(t, "grad_fn", None) is None else len(record(t).order)


def recorded_summary(t) -> str:
    """``"5 nodes (3 ops + 2 leaves)"`` for the graph recorded behind ``t``."""
    if getattr(t, "grad_fn", None) is None:
        return "0 nodes"
    rec = record(t)
    ops = len(rec.ops)
    return f"{len(rec.order)} nodes ({ops} ops + {len(rec.order) - ops} leaves)"


def agree(pairs: list[tuple[Any, Any]]) -> str:
    """``"agree (max |difference| 0)"`` over pairs of eager/static values."""
    import numpy as np
    worst = max(float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
                for a, b in pairs)
    verdict = "agree" if worst < 1e-4 else "DISAGREE"
    return f"{verdict} (max |difference| {worst:.3g})"


def static_ops(graph) -> int:
    """Ops in a staticgraph Graph, counting those inside control-flow regions."""
    return sum(1 + sum(static_ops(r.graph) for _, r in regions(op)) for op in graph.get_operations())


def static_summary(graph) -> str:
    """``"9 ops (3 in the graph + 6 in while_loop/cond regions)"``, or ``"5 ops"``."""
    total, outer = static_ops(graph), len(graph.get_operations())
    if total == outer:
        return f"{total} ops"
    return f"{total} ops ({outer} in the graph + {total - outer} in while_loop/cond regions)"


def _report(paths: list[str]) -> None:
    for path in paths:
        print(f"wrote {path}")


def draw_eager(out: str | None, name: str, t, title: str, names: dict | None = None) -> None:
    """Picture of the backward graph recorded behind ``t`` (when ``--out`` was given)."""
    if out:
        _report(write_graph(eager_graph(t, names), out, name, title))


def draw_static(out: str | None, name: str, graph, title: str) -> None:
    """Picture of a staticgraph Graph (when ``--out`` was given)."""
    if out:
        _report(write_graph(static_graph(graph), out, name, title))

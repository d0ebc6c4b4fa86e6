"""Pictures of graphs: DOT text always; PNG/SVG via graphviz if installed, else matplotlib.

Two adapters turn each engine's graph into one drawing format, an
``nx.DiGraph`` whose nodes carry ``label`` (text, lines split by ``\\n``) and
``kind`` (colour), with edges pointing from an input to its consumer:

* :func:`eager_graph` — the backward graph recorded by one dyngraph pass (what
  torchviz draws): one box per ``grad_fn`` node, leaves as ``AccumulateGrad``.
* :func:`static_graph` — a staticgraph ``Graph``: one box per op with its type
  and output shape; ``gradients/`` nodes, variables, placeholders and control
  flow coloured apart (it lives in :mod:`common.display`, beside the renderer,
  because a ``Graph`` draws itself in a notebook with it).

Pictures come from Graphviz's ``dot`` when it is installed (``apt-get install
graphviz``, ``brew install graphviz``, ``conda install graphviz``), else from
matplotlib (``pip install -e '.[plots]'``) through :func:`common.display.figure` over
:mod:`common.layout` -- the same drawing a notebook shows inline: layered top to bottom
(inputs at the top, the output at the bottom), edges routed between the layers so none
runs through a box.  DOT text needs nothing.
"""
from __future__ import annotations

import os
import shutil
import subprocess

import networkx as nx

from common.display import COLORS, figure, regions, static_graph
from common.shapes import fmt_shape

from .graphdiff import Recorded, record

__all__ = ["PLOTS_HINT", "eager_graph", "recorded_graph", "static_graph", "by_device", "regions", "to_dot", "write_graph"]

PLOTS_HINT = "PNG/SVG pictures need matplotlib: pip install -e '.[plots]' (DOT text written anyway)"


def eager_graph(output, names: dict | None = None) -> nx.DiGraph:
    """The graph recorded behind ``output`` (a tensor with a ``grad_fn``), leaves named by ``names``."""
    rec = record(output, names)
    g = recorded_graph(rec)
    g.nodes[rec.order[-1]]["label"] += "\n" + fmt_shape(tuple(output.shape))
    return g


def recorded_graph(rec: Recorded) -> nx.DiGraph:
    """The drawing of one recorded pass (:func:`comparisons.graphdiff.record`), the output
    coloured apart."""
    g = nx.DiGraph()
    for i in rec.order:
        label = rec.label[i]
        kind = "leaf" if label.startswith("AccumulateGrad") else "op"
        g.add_node(i, label=label.replace("AccumulateGrad(", "AccumulateGrad\n(", 1), kind=kind)
    g.add_edges_from(rec.edges)
    g.nodes[rec.order[-1]]["kind"] = "output"
    return g


DEVICE_COLORS = ["#cfe2ff", "#ffd8e0", "#c3f0ca", "#ffe0b2", "#e5dbff"]
"""Fill colours of the devices in :func:`by_device` (a node's ``fill`` beats its kind's)."""


def by_device(g: nx.DiGraph, graph) -> dict[str, str]:
    """Colour ``static_graph(graph)``'s nodes by their op's ``tf.device`` (grey: no device);
    each label gets the device as its last line.  Returns device -> colour (a legend)."""
    legend: dict[str, str] = {}
    for op in graph.get_operations():
        if op.name not in g:
            continue
        device = op.device or "(any worker)"
        if device not in legend:
            legend[device] = COLORS["const"] if not op.device else \
                DEVICE_COLORS[sum(1 for d in legend if d != "(any worker)") % len(DEVICE_COLORS)]
        g.nodes[op.name]["fill"] = legend[device]
        g.nodes[op.name]["label"] += "\n" + device
    return legend


def to_dot(g: nx.DiGraph, title: str = "") -> str:
    """Graphviz DOT text (top-to-bottom, coloured boxes); renders with ``dot -Tpng``."""
    esc = lambda s: str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    ids = {n: f"n{k}" for k, n in enumerate(g.nodes)}
    lines = ["digraph G {", "  rankdir=TB;", f'  label="{esc(title)}"; labelloc=t;',
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];']
    clusters: dict = {}
    for n, data in g.nodes(data=True):
        clusters.setdefault(data.get("cluster"), []).append(n)
    for k, (cluster, members) in enumerate(clusters.items()):
        indent = "  " if cluster is None else "    "
        if cluster is not None:
            lines += [f"  subgraph cluster_{k} {{", f'    label="{esc(cluster)}"; style=rounded;']
        for n in members:
            data = g.nodes[n]
            color = data.get("fill") or COLORS.get(data.get("kind", "op"), COLORS["op"])
            lines.append(f'{indent}{ids[n]} [label="{esc(data.get("label", n))}", '
                         f'fillcolor="{color}"];')
        if cluster is not None:
            lines.append("  }")
    for a, b, data in g.edges(data=True):
        style = " [style=dashed]" if data.get("control") else ""
        lines.append(f"  {ids[a]} -> {ids[b]}{style};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_graph(g: nx.DiGraph, out_dir: str, name: str, title: str = "") -> list[str]:
    """Write ``name.dot`` and, where a renderer exists, ``name.png`` and ``name.svg``.

    graphviz's ``dot`` is used when on PATH, matplotlib otherwise; with
    neither, only the DOT text is written (and :data:`PLOTS_HINT` says why).
    """
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, name)
    with open(base + ".dot", "w") as f:
        f.write(to_dot(g, title))
    written = [base + ".dot"]
    images = [base + ".png", base + ".svg"]
    if shutil.which("dot"):
        for path in images:
            subprocess.run(["dot", "-T" + path[-3:], base + ".dot", "-o", path], check=True)
        return written + images
    try:
        fig = figure(g, title)
    except ImportError:
        print(PLOTS_HINT)
        return written
    for path in images:
        fig.savefig(path, dpi=110)
    return written + images

"""Pictures of graphs: DOT text always; PNG/SVG via graphviz if installed, else matplotlib.

Two adapters turn each engine's graph into one drawing format, an
``nx.DiGraph`` whose nodes carry ``label`` (text, lines split by ``\\n``) and
``kind`` (colour), with edges pointing from an input to its consumer:

* :func:`eager_graph` — the backward graph recorded by one dyngraph pass (what
  torchviz draws): one box per ``grad_fn`` node, leaves as ``AccumulateGrad``.
* :func:`static_graph` — a staticgraph ``Graph``: one box per op with its type
  and output shape; ``gradients/`` nodes, variables, placeholders and control
  flow coloured apart.

Pictures come from Graphviz's ``dot`` when it is installed (``apt-get install
graphviz``, ``brew install graphviz``, ``conda install graphviz``), else from
matplotlib (``pip install -e '.[plots]'``) over :mod:`comparisons.layout`:
layered top to bottom (inputs at the top, the output at the bottom), edges
routed between the layers so none runs through a box.  DOT text needs nothing.
"""
from __future__ import annotations

import os
import shutil
import subprocess

import networkx as nx

from .graphdiff import record
from .layout import layout

__all__ = ["PLOTS_HINT", "eager_graph", "static_graph", "by_device", "regions", "to_dot", "write_graph"]

PLOTS_HINT = "PNG/SVG pictures need matplotlib: pip install -e '.[plots]' (DOT text written anyway)"

COLORS = {"leaf": "#cfe2ff", "input": "#fff3bf", "param": "#cfe2ff", "const": "#f1f3f5",
          "op": "#e9ecef", "grad": "#ffd8e0", "control": "#ffe0b2", "output": "#c3f0ca"}


def eager_graph(output, names: dict | None = None) -> nx.DiGraph:
    """The graph recorded behind ``output`` (a tensor with a ``grad_fn``), leaves named by ``names``."""
    rec = record(output, names)
    g = nx.DiGraph()
    for i in rec.order:
        label = rec.label[i]
        kind = "leaf" if label.startswith("AccumulateGrad") else "op"
        g.add_node(i, label=label.replace("AccumulateGrad(", "AccumulateGrad\n(", 1), kind=kind)
    g.add_edges_from(rec.edges)
    root = rec.order[-1]
    g.nodes[root]["kind"] = "output"
    g.nodes[root]["label"] += "\n" + _fmt_shape(tuple(output.shape))
    return g


def _fmt_shape(shape) -> str:
    if shape is None:
        return "<unknown>"
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def _static_kind(name: str, op_type: str) -> str:
    if name.startswith("gradients") or "/gradients" in name:
        return "grad"
    if op_type in ("Placeholder", "PlaceholderWithDefault"):
        return "input"
    if op_type.startswith(("Var", "ReadVariable", "Assign")):   # handles, reads, writes
        return "param"
    if op_type == "Const":
        return "const"
    if op_type in ("While", "StatelessWhile", "If", "StatelessIf", "Cond", "Case", "Enter", "Exit",
                   "Merge", "Switch", "NextIteration"):
        return "control"
    return "op"


def static_graph(graph) -> nx.DiGraph:
    """One node per op of a staticgraph ``Graph``: name, type (if not in the name), output shape.

    Control-flow ops (``While``, ``If``) carry their loop body, condition and
    branches as regions (sub-graphs built once); those are drawn too, each as
    a cluster hanging under its op, with dashed edges for the outer tensors
    they capture.
    """
    g = nx.DiGraph()
    _add_ops(g, graph, prefix="", cluster=None)
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


def _wrap_name(name: str, width: int = 22) -> str:
    """Long scoped names broken at '/' so boxes stay narrow."""
    lines = [""]
    for part in name.split("/"):
        if lines[-1] and len(lines[-1]) + len(part) + 1 > width:
            lines.append("")
        lines[-1] += ("/" if lines[-1] else "") + part
    return "/\n".join(lines)


def _op_label(op) -> str:
    lines = [_wrap_name(op.name)]
    if not op.name.split("/")[-1].startswith(op.type):
        lines.append(op.type)
    if op.outputs:   # a node with several results (split, top_k) shows each one's
        several = getattr(getattr(op, "op_def", None), "multi_output", False)
        lines.append(", ".join(f"{out.dtype.name}{_fmt_shape(_shape_of(out))}"
                               for out in op.outputs[:len(op.outputs) if several else 1]))
    return "\n".join(lines)


def _add_ops(g: nx.DiGraph, graph, prefix: str, cluster: str | None, owner=None) -> None:
    for op in graph.get_operations():
        node = prefix + op.name
        g.add_node(node, label=_op_label(op), kind=_static_kind(op.name, op.type),
                   cluster=cluster, owner=owner)
        for t in op.inputs:
            g.add_edge(prefix + t.op.name, node)
        for c in getattr(op, "control_inputs", ()):
            g.add_edge(prefix + c.name, node, control=True)
        for attr, region in regions(op):
            _add_region(g, node, attr, region, prefix)


def regions(op) -> list[tuple[str, object]]:
    """``(name, region)`` for each sub-graph a control-flow op carries in its attributes.

    A region has ``.graph`` (its sub-graph), ``.args`` and ``.outs`` (a tensor
    has a ``.graph`` too, but it is the graph it lives in); an attribute may
    hold one region (``body``) or a tuple of them (``branches`` -> ``branches[0]``).
    """
    is_region = lambda v: (hasattr(v, "args") and hasattr(v, "outs")
                           and hasattr(getattr(v, "graph", None), "get_operations"))
    found = []
    for attr, value in getattr(op, "attrs", {}).items():
        if is_region(value):
            found.append((attr, value))
        elif isinstance(value, (tuple, list)):
            found += [(f"{attr}[{k}]{_branch_note(op, attr, k)}", v)
                      for k, v in enumerate(value) if is_region(v)]
    return found


def _branch_note(op, attr: str, k: int) -> str:
    """A two-way ``If`` runs ``branches[int(pred)]`` (as TF's ``If``/``Case``): say which."""
    if getattr(op, "type", "") in ("If", "StatelessIf") and attr == "branches" and len(op.attrs[attr]) == 2:
        return f" (pred {bool(k)})"
    return ""


def _add_region(g: nx.DiGraph, owner: str, attr: str, region, prefix: str) -> None:
    """A control-flow op's sub-graph: its ops, a 'runs' edge from the op, capture edges."""
    inner = f"{owner}/{attr}/"
    _add_ops(g, region.graph, inner, cluster=f"{owner}: {attr}", owner=owner)
    for arg in getattr(region, "args", ()):
        g.add_edge(owner, inner + arg.op.name, control=True)
    for outer, placeholder in zip(getattr(region, "captured", ()), getattr(region, "placeholders", ())):
        g.add_edge(prefix + outer.op.name, inner + placeholder.op.name, control=True)


def _shape_of(t):
    shape = t.shape
    dims = getattr(shape, "dims", shape)
    if dims is None:
        return None
    return tuple(getattr(d, "value", d) for d in dims)


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


def _draw_matplotlib(g: nx.DiGraph, paths: list[str], title: str) -> None:
    """Boxes, region frames and routed edges of :func:`comparisons.layout.layout`, one data
    unit per inch, so every box is exactly as large as the layout assumed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch
    lay = layout(g)
    margin, head = 0.25, (0.4 if title else 0.0)
    width = max(lay.width, 0.075 * len(title)) + 2 * margin
    fig = plt.figure(figsize=(width, lay.height + 2 * margin + head))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-margin, width - margin)
    ax.set_ylim(-lay.height - margin, margin + head)
    ax.set_axis_off()
    if title:
        ax.text(width / 2 - margin, head / 2, title, ha="center", va="center", fontsize=10)
    for name, c in lay.clusters.items():
        ax.add_patch(FancyBboxPatch((c.x - c.w / 2, c.bottom), c.w, c.h, zorder=0, lw=1.0,
                                    boxstyle="round,pad=0,rounding_size=0.08",
                                    fc="#fff8e1", ec="#e0a800"))
        ax.text(c.x - c.w / 2 + 0.08, c.top - 0.05, name, fontsize=7, va="top",
                color="#8a6d00", zorder=4)
    for n, b in lay.boxes.items():
        data = g.nodes[n]
        ax.add_patch(FancyBboxPatch((b.x - b.w / 2, b.bottom), b.w, b.h, zorder=3, lw=0.8,
                                    boxstyle="round,pad=0,rounding_size=0.06", ec="0.3",
                                    fc=data.get("fill") or COLORS.get(data.get("kind"), COLORS["op"])))
        ax.text(b.x, b.y, data.get("label", str(n)), ha="center", va="center", fontsize=8,
                zorder=4, linespacing=1.15)
    for (a, b), pts in lay.edges.items():
        style = "--" if g.edges[a, b].get("control") else "-"
        xs, ys = zip(*pts)
        ax.plot(xs, ys, color="0.45", lw=0.9, linestyle=style, zorder=1, solid_capstyle="butt")
        ax.annotate("", xy=pts[-1], xytext=pts[-2], zorder=2,
                    arrowprops=dict(arrowstyle="-|>", color="0.45", lw=0.9,
                                    shrinkA=0, shrinkB=0))
    for path in paths:
        fig.savefig(path, dpi=110)
    plt.close(fig)


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
        _draw_matplotlib(g, images, title)
    except ImportError:
        print(PLOTS_HINT)
        return written
    return written + images

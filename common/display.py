"""Graphs drawn and shown: one drawing format, one layout, one renderer, rich display.

Each engine's graph is turned into one drawing format, an ``nx.DiGraph`` whose nodes carry
``label`` (text, lines split by ``\\n``), ``kind`` (colour) and, for a control-flow
region's ops, ``cluster``/``owner``; edges point from an input to its consumer:

* :func:`static_graph` -- a staticgraph ``Graph``: one box per op with its type and output
  shape; ``while_loop``/``cond`` bodies as framed clusters under their op;
* :func:`tape_graph` -- the tape ``dyngraph.graph_of(t)`` exports (what torchviz draws).

:func:`figure` draws one with matplotlib over :mod:`common.layout` -- the very figure
``python -m comparisons NAME --out DIR`` saves as PNG/SVG -- and :func:`svg` saves it as
inline SVG sized for a notebook column (:data:`COLUMN_PX`), a graph of more than
:data:`COLLAPSE_AT` nodes first folded by name scope (:func:`collapse`, one box per scope
with its op count).  That is what IPython's rich display protocol calls: ``Graph``,
``graph_of(t)``, the eager graph diff and the bench results define ``_repr_svg_``/``_repr_html_`` with these helpers, and import
nothing of IPython: the protocol is only method names.  The HTML pieces around the
pictures (collapsible sections, tables) are in :mod:`common.notebook`.

networkx is imported here at the top, matplotlib only when drawing (the ``[plots]``
extra): the engines import this module only when a graph is displayed.
"""
from __future__ import annotations

import io
import re
from collections import Counter

import networkx as nx

from .layout import layout
from .shapes import fmt_shape

__all__ = ["COLORS", "COLUMN_PX", "COLLAPSE_AT", "static_graph", "tape_graph", "regions",
           "collapse", "figure", "svg", "figure_svg", "svg_or_none"]

COLORS = {"leaf": "#cfe2ff", "input": "#fff3bf", "param": "#cfe2ff", "const": "#f1f3f5",
          "op": "#e9ecef", "grad": "#ffd8e0", "control": "#ffe0b2", "output": "#c3f0ca"}
"""Fill colour of a node by its ``kind`` (a node's own ``fill`` beats it)."""

COLUMN_PX = 720
"""Widest picture shown inline, in CSS pixels: Jupyter's default column, less its prompt."""

COLLAPSE_AT = 60
"""Nodes above which a picture is folded by name scope (a 600-op gradient graph would
otherwise be a few pixels per box once fitted into a column)."""


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
        lines.append(", ".join(f"{out.dtype.name}{fmt_shape(_shape_of(out))}"
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


def figure(g: nx.DiGraph, title: str = ""):
    """THE drawing of a graph: boxes, region frames and routed edges of
    :func:`common.layout.layout`, one data unit per inch, so every box is exactly as large as
    the layout assumed.  Files (PNG/SVG) and notebooks (:func:`svg`) both save this figure.

    A bare ``matplotlib.figure.Figure``, not pyplot's: nothing is registered with a backend,
    so a notebook does not also show it as a stray figure, and nothing needs closing.
    """
    from matplotlib.figure import Figure   # optional extra [plots]
    from matplotlib.patches import FancyBboxPatch
    lay = layout(g)
    margin, head = 0.25, (0.4 if title else 0.0)
    width = max(lay.width, 0.075 * len(title)) + 2 * margin
    fig = Figure(figsize=(width, lay.height + 2 * margin + head))
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
    return fig


def tape_graph(tape: nx.DiGraph) -> nx.DiGraph:
    """The drawing of a ``dyngraph.graph_of(t)`` export: a box per backward node, a leaf
    shown by its name (``graph_of(t, names=...)``) or ``AccumulateGrad``, and its type."""
    g = nx.DiGraph()
    for n, data in tape.nodes(data=True):
        if data.get("op") == "AccumulateGrad":
            g.add_node(n, kind="leaf", label=f"{data.get('name') or 'AccumulateGrad'}\n"
                                             f"{data.get('leaf_type') or '?'}")
        else:
            g.add_node(n, kind="op", label=data.get("label", n))
    g.add_edges_from(tape.edges)
    out = tape.graph.get("output")
    if out in g:
        g.nodes[out]["kind"] = "output"
    return g


def _scope(name) -> str | None:
    return str(name).split("/", 1)[0] + "/" if "/" in str(name) else None


def collapse(g: nx.DiGraph, limit: int = COLLAPSE_AT) -> nx.DiGraph:
    """``g`` itself if it has at most ``limit`` nodes, else the nodes of each top-level name
    scope (``gradients/``, ``while/body/``...) folded into one box ``scope/ (N ops)``.

    The folded picture is flat (a region's ops fold with their scope) and keeps an edge
    between two boxes only from the scope that starts earlier in the graph's topological
    order to the later one, so it stays a DAG however the scopes feed each other.
    """
    if len(g) <= limit:
        return g
    counts = Counter(filter(None, map(_scope, g)))
    group = {n: (s if s and counts[s] > 1 else n) for n in g for s in [_scope(n)]}
    rank: dict = {}
    for k, n in enumerate(nx.topological_sort(g)):
        rank.setdefault(group[n], k)
    out = nx.DiGraph()
    for n in sorted(g, key=lambda n: rank[group[n]]):
        k = group[n]
        if k == n:
            out.add_node(n, **{a: v for a, v in g.nodes[n].items() if a not in ("cluster", "owner")})
        elif k not in out:
            kind = "grad" if k.startswith("gradients") else "op"
            out.add_node(k, label=f"{k}\n({counts[k]} ops)", kind=kind)
        elif g.nodes[n].get("kind") == "control" and out.nodes[k]["kind"] == "op":
            out.nodes[k]["kind"] = "control"
    for a, b, data in g.edges(data=True):
        ga, gb = group[a], group[b]
        if rank[ga] < rank[gb]:
            solid = out.has_edge(ga, gb) and not out.edges[ga, gb].get("control")
            out.add_edge(ga, gb, control=bool(data.get("control")) and not solid)
    out.graph["collapsed_from"] = len(g)
    return out


def svg(g: nx.DiGraph, title: str = "", width_px: int = COLUMN_PX) -> str:
    """:func:`figure` of ``g`` (folded by :func:`collapse` when large) as inline SVG."""
    g = collapse(g)
    if "collapsed_from" in g.graph:
        title = (title + " -- " if title else "") + \
            f"{g.graph['collapsed_from']} nodes, folded by name scope"
    return figure_svg(figure(g, title), width_px)


def figure_svg(fig, width_px: int = COLUMN_PX) -> str:
    """A matplotlib figure as an SVG element (text kept as text, no XML prolog, so the same
    string is a ``_repr_svg_`` and embeds in HTML), at most ``width_px`` wide.

    The ``viewBox`` keeps the drawing's own coordinates; only ``width``/``height`` are
    scaled, so a browser or Jupyter fits the whole picture into the column.
    """
    from matplotlib import rc_context   # optional extra [plots]
    buf = io.StringIO()
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "graph"}):
        fig.savefig(buf, format="svg")
    text = buf.getvalue()
    text = text[text.index("<svg"):]

    def fit(m: re.Match) -> str:
        w, h = float(m.group(1)) * 4 / 3, float(m.group(2)) * 4 / 3   # pt -> CSS px
        scale = min(1.0, width_px / w)
        return f'width="{w * scale:.0f}px" height="{h * scale:.0f}px"'
    return re.sub(r'width="([\d.]+)pt" height="([\d.]+)pt"', fit, text, count=1)


def svg_or_none(g: nx.DiGraph, title: str = "", width_px: int = COLUMN_PX) -> str | None:
    """:func:`svg`, or None without matplotlib (IPython then shows the plain text form)."""
    try:
        return svg(g, title, width_px)
    except ImportError:
        return None

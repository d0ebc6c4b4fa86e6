"""Layered drawing coordinates for the matplotlib fallback (what Graphviz's ``dot`` does, simply).

Sugiyama's method, in inches (one data unit = one inch on the figure):

1. **layers** — ``networkx.topological_generations`` (sources on top); a node
   with consumers then moves down next to its earliest consumer (short edges);
2. **routing points** — an edge spanning several layers gets one waypoint per
   layer it passes, which takes a slot in that layer like a narrow node;
3. **order** — barycentre sweeps down and up (fewer crossings);
4. **x** — each node as close to the mean of its neighbours as the widths of
   its layer allow (boxes are sized from their label text);
5. **edges** — straight down inside a layer's band (from a box's bottom, through
   a waypoint's slot, into a box's top), diagonal only in the gaps between
   bands: an edge never runs through a box.

A control-flow region (nodes sharing a ``cluster``) is laid out on its own the
same way, framed, and then stands as one large node in the layer under the op
that owns it; an edge into it drops straight into its top row.

>>> import networkx as nx
>>> lay = layout(nx.DiGraph([("x", "add"), ("w", "add")]))
>>> lay.boxes["x"].y == lay.boxes["w"].y > lay.boxes["add"].y
True
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

__all__ = ["Box", "Layout", "layout", "label_size", "crossings"]

CHAR_W, LINE_H, PAD_W, PAD_H = 0.068, 0.15, 0.22, 0.14   # 8 pt text, in inches
H_GAP, V_GAP, SLOT_W = 0.25, 0.5, 0.12                   # between boxes, between layers, waypoint
FRAME, TITLE_H = 0.18, 0.2                                # a region's margin, its label's height


@dataclass
class Box:
    """A node's rectangle: centre ``x, y`` and size ``w, h`` (inches; y grows upwards)."""

    x: float
    y: float
    w: float
    h: float

    @property
    def top(self) -> float:
        return self.y + self.h / 2

    @property
    def bottom(self) -> float:
        return self.y - self.h / 2

    def moved(self, dx: float, dy: float) -> "Box":
        return Box(self.x + dx, self.y + dy, self.w, self.h)


@dataclass
class Layout:
    """Boxes of nodes and regions, and each edge as a polyline from its source to its target."""

    boxes: dict = field(default_factory=dict)
    clusters: dict = field(default_factory=dict)     # region name -> Box of its frame
    edges: dict = field(default_factory=dict)        # (a, b) -> [(x, y), ...]
    width: float = 0.0
    height: float = 0.0

    def moved(self, dx: float, dy: float) -> "Layout":
        return Layout({n: b.moved(dx, dy) for n, b in self.boxes.items()},
                      {n: b.moved(dx, dy) for n, b in self.clusters.items()},
                      {e: [(x + dx, y + dy) for x, y in pts] for e, pts in self.edges.items()},
                      self.width, self.height)


def label_size(label: str) -> tuple[float, float]:
    """Width and height (inches) of a box holding ``label`` in 8 pt text."""
    lines = str(label).split("\n")
    return max(map(len, lines)) * CHAR_W + PAD_W, len(lines) * LINE_H + PAD_H


def layout(g: nx.DiGraph) -> Layout:
    """Coordinates for every node, region frame and edge of ``g`` (top-left at ``0, 0``)."""
    members: dict = {}
    for n, data in g.nodes(data=True):
        members.setdefault(data.get("cluster"), []).append(n)
    return _block(g, None, members)


# --- one block: the nodes of one cluster (or the top level) ------------------------------------

def _block(g: nx.DiGraph, cluster, members: dict) -> Layout:
    """Lay out ``cluster``'s own nodes, each child region collapsed into one big node."""
    owned = set(members.get(cluster, []))
    children = {c: _block(g, c, members) for c in members
                if c is not None and g.nodes[members[c][0]].get("owner") in owned}
    units, size, where = _units(g, members.get(cluster, []), children, members)
    layer = _layers(units)
    rows, chains = _with_waypoints(units, layer)
    _order(rows, units, chains)
    xs = _x_positions(rows, size, units, chains)
    heights = [max((size[n][1] for n in row if n in size), default=0.0) for row in rows]
    ys, y = [], 0.0
    for h in heights:
        ys.append(y - h / 2)
        y -= h + V_GAP
    out = Layout()
    for k, row in enumerate(rows):
        out.boxes.update({n: Box(xs[n], ys[k], *size[n]) for n in row if n in owned})
    for c, sub in children.items():
        unit = ("region", c)
        placed = sub.moved(xs[unit] - sub.width / 2, ys[layer[unit]] + size[unit][1] / 2)
        out.boxes.update(placed.boxes)
        out.clusters.update(placed.clusters)
        out.edges.update(placed.edges)
    bands = [(y + h / 2, y - h / 2) for y, h in zip(ys, heights)]
    for a, b in g.edges:
        if a in owned and b in where:
            into = out.clusters[where[b][1]] if where[b] != b else None
            out.edges[(a, b)] = _route(a, b, out, chains.get((a, where[b]), []), xs, bands, into)
    return _framed(out, cluster, ys[-1] - heights[-1] / 2 if rows else 0.0)


def _units(g: nx.DiGraph, own: list, children: dict, members: dict) -> tuple:
    """The graph this block lays out: its own nodes plus one unit per child region (an edge
    into a region's node becomes an edge into the region); sizes; node -> its unit here."""
    owned = set(own)
    where = {n: n for n in own}
    units = nx.DiGraph()
    size = {}
    for n in own:
        units.add_node(n)
        size[n] = label_size(g.nodes[n].get("label", n))
    for c, sub in children.items():
        unit = ("region", c)
        where.update({n: unit for n in sub.boxes})
        units.add_node(unit)
        size[unit] = (sub.width, sub.height)
        units.add_edge(g.nodes[members[c][0]]["owner"], unit)
    for a, b in g.edges:
        if a in owned and b in where:
            units.add_edge(a, where[b])
    return units, size, where


def _framed(out: Layout, cluster, bottom: float) -> Layout:
    """Shift the block so its left edge is at 0 and set its size; a region also gets its
    frame (with room for its name on top) and its origin at the frame's top-left corner."""
    xs = ([b.x - b.w / 2 for b in out.boxes.values()] + [b.x + b.w / 2 for b in out.boxes.values()]
          + [c.x - c.w / 2 for c in out.clusters.values()]
          + [c.x + c.w / 2 for c in out.clusters.values()]
          + [x + d for pts in out.edges.values() for x, _ in pts for d in (-SLOT_W / 2, SLOT_W / 2)])
    left, right = min(xs, default=0.0), max(xs, default=0.0)
    if cluster is None:
        out = out.moved(-left, 0.0)
        out.width, out.height = right - left, -bottom
        return out
    out = out.moved(-left + FRAME, -FRAME - TITLE_H)
    out.width = right - left + 2 * FRAME
    out.height = -bottom + 2 * FRAME + TITLE_H
    out.clusters[cluster] = Box(out.width / 2, -out.height / 2, out.width, out.height)
    return out


def _layers(units: nx.DiGraph) -> dict:
    layer = {n: k for k, gen in enumerate(nx.topological_generations(units)) for n in gen}
    for n in reversed(list(nx.topological_sort(units))):   # as late as possible: short edges
        if units.pred[n] and units.succ[n]:
            layer[n] = min(layer[s] for s in units.successors(n)) - 1
    return layer


def _with_waypoints(units: nx.DiGraph, layer: dict) -> tuple[list[list], dict]:
    """Rows of units plus one waypoint per layer an edge passes through."""
    rows: list[list] = [[] for _ in range(max(layer.values(), default=-1) + 1)]
    for n in units.nodes:                   # creation order: a stable first guess
        rows[layer[n]].append(n)
    chains = {}
    for a, b in units.edges:
        chain = [("via", a, b, k) for k in range(layer[a] + 1, layer[b])]
        for w in chain:
            rows[w[3]].append(w)
        chains[(a, b)] = chain
    return rows, chains


def _neighbours(units: nx.DiGraph, chains: dict) -> tuple[dict, dict]:
    """Up and down neighbours of every unit and waypoint (waypoints link an edge's chain)."""
    up: dict = {}
    down: dict = {}
    for (a, b), chain in chains.items():
        path = [a, *chain, b]
        for s, t in zip(path, path[1:]):
            down.setdefault(s, []).append(t)
            up.setdefault(t, []).append(s)
    return up, down


def _order(rows: list[list], units: nx.DiGraph, chains: dict) -> None:
    up, down = _neighbours(units, chains)
    index = {n: k for row in rows for k, n in enumerate(row)}
    for _ in range(3):
        for sweep, nb in ((range(1, len(rows)), up), (range(len(rows) - 2, -1, -1), down)):
            for d in sweep:
                def centre(n, nb=nb):
                    ks = [index[m] for m in nb.get(n, ())]
                    return sum(ks) / len(ks) if ks else index[n]
                rows[d].sort(key=centre)
                index.update({n: k for k, n in enumerate(rows[d])})


def _x_positions(rows: list[list], size: dict, units: nx.DiGraph, chains: dict) -> dict:
    """Each unit near the mean x of its neighbours, boxes of one row never closer than H_GAP."""
    up, down = _neighbours(units, chains)
    width = lambda n: size[n][0] if n in size else SLOT_W
    xs = {}
    for row in rows:                         # packed left to right, centred on 0
        x = 0.0
        for n in row:
            xs[n] = x + width(n) / 2
            x += width(n) + H_GAP
        shift = (x - H_GAP) / 2
        for n in row:
            xs[n] -= shift
    for _ in range(4):
        for sweep, nb in ((range(1, len(rows)), up), (range(len(rows) - 2, -1, -1), down)):
            for d in sweep:
                wanted = {n: (sum(xs[m] for m in nb[n]) / len(nb[n]) if nb.get(n) else xs[n])
                          for n in rows[d]}
                _place(rows[d], wanted, width, xs)
    return xs


def _place(row: list, wanted: dict, width, xs: dict) -> None:
    """Positions as near ``wanted`` as the order and widths allow (pushed apart both ways)."""
    right = [wanted[n] for n in row]
    for k in range(1, len(row)):
        right[k] = max(right[k], right[k - 1] + (width(row[k - 1]) + width(row[k])) / 2 + H_GAP)
    left = [wanted[n] for n in row]
    for k in range(len(row) - 2, -1, -1):
        left[k] = min(left[k], left[k + 1] - (width(row[k + 1]) + width(row[k])) / 2 - H_GAP)
    for k, n in enumerate(row):
        xs[n] = (right[k] + left[k]) / 2
    for k in range(1, len(row)):            # the average of two valid packings is valid too,
        gap = (width(row[k - 1]) + width(row[k])) / 2 + H_GAP   # but make sure of it
        xs[row[k]] = max(xs[row[k]], xs[row[k - 1]] + gap)


def _route(a, b, out: Layout, chain: list, xs: dict, bands: list, into: Box | None) -> list:
    """Source's bottom, down its band; through each waypoint's band; across the gap to the top
    of the target's band, then straight down into the target (through its region's top)."""
    src, dst = out.boxes[a], out.boxes[b]
    la = chain[0][3] - 1 if chain else None
    pts = [(src.x, src.bottom)]
    for w in chain:
        top, bottom = bands[w[3]]
        pts += [(src.x, bands[w[3] - 1][1])] if w is chain[0] else []
        pts += [(xs[w], top), (xs[w], bottom)]
    if la is None:
        pts.append((src.x, bands[_band_of(src, bands)][1]))
    target_band = bands[_band_of(into or dst, bands)]
    pts.append((dst.x, target_band[0]))
    if into is not None:
        pts.append((dst.x, into.top))
    pts.append((dst.x, dst.top))
    return [p for k, p in enumerate(pts) if k == 0 or p != pts[k - 1]]


def _band_of(box: Box, bands: list) -> int:
    return next(k for k, (top, bottom) in enumerate(bands) if bottom - 1e-9 <= box.y <= top + 1e-9)


# --- checking a layout -------------------------------------------------------------------------

def _segment_hits(p, q, box: Box, eps: float = 1e-6) -> bool:
    """Whether segment ``p``-``q`` passes through the inside of ``box`` (Liang-Barsky clip)."""
    x0, x1 = box.x - box.w / 2 + eps, box.x + box.w / 2 - eps
    y0, y1 = box.bottom + eps, box.top - eps
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for pk, qk in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if pk == 0:
            if qk < 0:
                return False
        else:
            t = qk / pk
            if pk < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
    return t0 < t1


def crossings(lay: Layout) -> list[tuple]:
    """``(edge, node)`` for every edge segment that runs through a node's box."""
    found = []
    for edge, pts in lay.edges.items():
        for p, q in zip(pts, pts[1:]):
            lo, hi = min(p[1], q[1]), max(p[1], q[1])
            found += [(edge, n) for n, box in lay.boxes.items()
                      if box.bottom < hi and box.top > lo and _segment_hits(p, q, box)]
    return found

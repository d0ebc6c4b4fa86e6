"""Diff two recorded forward passes: what one pass built that the other did not.

An eager engine records a new graph on every pass, so two inputs can produce
two different graphs — that is what "dynamic" means.  No framework tells you
*how* they differ; this module does, from the public autograd surface only
(``t.grad_fn``, ``node.next_functions``, ``node.name()``), so it works on
dyngraph tensors and on real PyTorch tensors alike::

    a = record(y1)            # y1 = f(x1), a dyngraph tensor with a grad_fn
    b = record(y2)            # another pass of the same program
    print(diff(a, b))         # nodes/edges added and removed, branches, loops

Matching nodes across passes needs a name that does not depend on object
identity: a node's *structural key* is its op name plus the keys of its
inputs (a Merkle hash), so ``tanh(a + b)`` matches in both passes exactly
when it was computed from matching inputs.  Leaves are labelled by the name
given to them (``names={"w": w}``) or else by first-visit order and shape,
so the same parameters match across passes.

Loops are found as the longest contiguous repetition of one block of ops in
execution order: an unrolled loop of 5 iterations is "block x 5".
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

__all__ = ["Recorded", "GraphDiff", "Loop", "record", "diff", "find_loops"]


@dataclass
class Loop:
    """``block`` (op names) repeated ``trips`` times, starting at op index ``start``."""

    block: tuple[str, ...]
    trips: int
    start: int

    def __str__(self) -> str:
        return f"[{', '.join(self.block)}] x {self.trips}"


@dataclass
class Recorded:
    """One pass's backward graph, in a form that can be compared with another pass.

    ``order`` lists node ids inputs-first (execution order); ``label[i]`` is the
    op name (``MulBackward0``, ``AccumulateGrad(w)``); ``key[i]`` the structural
    key; ``edges`` are ``(input id, consumer id)`` pairs.
    """

    order: list[int]
    label: dict[int, str]
    key: dict[int, int]
    edges: list[tuple[int, int]]
    loops: list[Loop] = field(default_factory=list)

    @property
    def ops(self) -> list[str]:
        """Op names in execution order, leaves excluded."""
        return [self.label[i] for i in self.order if not self.label[i].startswith("AccumulateGrad")]


def _leaf_label(node, names: dict[int, str], seen: dict[int, str]) -> str:
    var = getattr(node, "variable", None)
    if var is not None and id(var) in names:
        return f"AccumulateGrad({names[id(var)]})"
    ident = id(var) if var is not None else id(node)
    if ident not in seen:
        shape = tuple(var.shape) if var is not None else ()
        seen[ident] = f"AccumulateGrad(leaf{len(seen)} {list(shape)})"
    return seen[ident]


def _postorder(root) -> list:
    """Inputs-first order of the nodes reachable from ``root`` (iterative: no recursion limit)."""
    order, done, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in done:
            continue
        done.add(id(node))
        stack.append((node, True))
        parents = [p for p, _ in node.next_functions if p is not None]
        stack.extend((p, False) for p in reversed(parents) if id(p) not in done)
    return order


def record(output, names: dict | None = None) -> Recorded:
    """Capture the graph behind ``output`` (a tensor with ``grad_fn``, or a grad_fn node).

    ``names`` optionally maps leaf tensors to readable names: ``{"w": w, "x": x}``.
    """
    root = getattr(output, "grad_fn", output)
    if root is None:
        raise ValueError("this tensor has no grad_fn: nothing was recorded (does any input "
                         "require grad, and was it computed outside no_grad()?)")
    leaf_names = {id(t): n for n, t in (names or {}).items()}
    nodes = _postorder(root)
    ids = {id(n): k for k, n in enumerate(nodes)}
    label, key, edges, seen = {}, {}, [], {}
    for k, node in enumerate(nodes):
        parents = [ids[id(p)] for p, _ in node.next_functions if p is not None]
        is_leaf = not node.next_functions and hasattr(node, "variable")
        label[k] = _leaf_label(node, leaf_names, seen) if is_leaf else node.name()
        key[k] = hash((label[k], tuple(key[p] for p in parents)))
        edges.extend((p, k) for p in parents)
    rec = Recorded(list(range(len(nodes))), label, key, edges)
    rec.loops = find_loops(rec.ops)
    return rec


def _best_run(ops: list[str], lo: int, hi: int, max_block: int) -> Loop | None:
    """The repetition covering the most ops in ``ops[lo:hi]`` (ties: shorter block)."""
    best = None
    for length in range(1, min(max_block, (hi - lo) // 2) + 1):
        for start in range(lo, hi - 2 * length + 1):
            block = ops[start:start + length]
            trips = 1
            while ops[start + trips * length:start + (trips + 1) * length] == block and \
                    start + (trips + 1) * length <= hi:
                trips += 1
            if trips >= 2 and (best is None or trips * length > best.trips * len(best.block)):
                best = Loop(tuple(block), trips, start)
    return best


def find_loops(ops: list[str], max_block: int = 12) -> list[Loop]:
    """Maximal repeated blocks, left to right, none overlapping (a greedy cover)."""
    loops, spans = [], [(0, len(ops))]
    while spans:
        lo, hi = spans.pop()
        run = _best_run(ops, lo, hi, max_block)
        if run is None:
            continue
        loops.append(run)
        end = run.start + run.trips * len(run.block)
        spans += [(lo, run.start), (end, hi)]
    return sorted(loops, key=lambda r: r.start)


@dataclass
class GraphDiff:
    """What pass ``b`` built compared with pass ``a`` (labels in execution order)."""

    a_nodes: int
    b_nodes: int
    removed: list[str]          # nodes only in a
    added: list[str]            # nodes only in b
    edges_removed: list[tuple[str, str]]
    edges_added: list[tuple[str, str]]
    diverged_a: list[str]       # a-only nodes fed only by shared nodes: the branch a took
    diverged_b: list[str]
    loops_a: list[Loop]
    loops_b: list[Loop]
    a: Recorded | None = field(default=None, repr=False, compare=False)   # the passes, to draw
    b: Recorded | None = field(default=None, repr=False, compare=False)
    only_a: list[int] = field(default_factory=list, repr=False, compare=False)   # their node ids
    only_b: list[int] = field(default_factory=list, repr=False, compare=False)

    @property
    def same(self) -> bool:
        return not (self.removed or self.added or self.edges_removed or self.edges_added)

    def __str__(self) -> str:
        lines = [f"pass A: {self.a_nodes} nodes, pass B: {self.b_nodes} nodes"]
        if self.same:
            return lines[0] + " -- identical graphs"
        lines.append(f"only in A ({len(self.removed)} nodes): {', '.join(self.removed) or '-'}")
        lines.append(f"only in B ({len(self.added)} nodes): {', '.join(self.added) or '-'}")
        lines.append(f"edges: {len(self.edges_removed)} removed, {len(self.edges_added)} added")
        lines.append(f"A left the shared graph at: {', '.join(self.diverged_a) or '-'}")
        lines.append(f"B left the shared graph at: {', '.join(self.diverged_b) or '-'}")
        for name, loops in (("A", self.loops_a), ("B", self.loops_b)):
            if loops:
                lines.append(f"loops in {name}: " + "; ".join(map(str, loops)))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """In a notebook: the text above, then both passes drawn side by side, the nodes only
        one pass built coloured (red: only in A, green: only in B)."""
        from common.display import COLUMN_PX, svg_or_none
        from common.notebook import pre
        from .pictures import recorded_graph
        pictures = []
        for name, rec, only, fill in (("A", self.a, self.only_a, ONLY_A),
                                      ("B", self.b, self.only_b, ONLY_B)):
            if rec is None:
                continue
            g = recorded_graph(rec)
            for i in only:
                g.nodes[i]["fill"] = fill
            pic = svg_or_none(g, f"pass {name}", COLUMN_PX // 2 - 8)
            if pic:
                pictures.append(f'<div style="flex:1 1 0;min-width:0">{pic}</div>')
        return pre(str(self)) + (f'<div style="display:flex;gap:8px;align-items:flex-start">'
                                 f'{"".join(pictures)}</div>' if pictures else "")


ONLY_A, ONLY_B = "#ffc9c9", "#b2f2bb"
"""Fill colours of the nodes only one pass built, in the notebook picture of a diff."""


def _exclusive(mine: list, other: Counter) -> list[int]:
    """Positions of ``mine``'s items left over after cancelling the multiset ``other``."""
    left, out = Counter(other), []
    for pos, item in enumerate(mine):
        if left[item]:
            left[item] -= 1
        else:
            out.append(pos)
    return out


def _diverged(r: Recorded, only: list[int]) -> list[str]:
    """Exclusive nodes whose inputs are all shared: where this pass left the other's path."""
    mine = set(only)
    inputs: dict[int, list[int]] = {}
    for s, d in r.edges:
        inputs.setdefault(d, []).append(s)
    return [f"{r.label[i]}({', '.join(r.label[p] for p in inputs.get(i, []))})"
            for i in only if not mine.intersection(inputs.get(i, []))]


def diff(a, b) -> GraphDiff:
    """Nodes and edges in one pass and not the other, matched by structural key.

    ``a`` and ``b`` are :class:`Recorded` passes or tensors (recorded here).
    """
    a = a if isinstance(a, Recorded) else record(a)
    b = b if isinstance(b, Recorded) else record(b)
    ka, kb = [a.key[i] for i in a.order], [b.key[i] for i in b.order]
    ea = [(a.key[s], a.key[d]) for s, d in a.edges]
    eb = [(b.key[s], b.key[d]) for s, d in b.edges]
    only_a, only_b = _exclusive(ka, Counter(kb)), _exclusive(kb, Counter(ka))
    edge_label = lambda r, e: (r.label[e[0]], r.label[e[1]])
    return GraphDiff(
        len(ka), len(kb), [a.label[i] for i in only_a], [b.label[i] for i in only_b],
        [edge_label(a, a.edges[i]) for i in _exclusive(ea, Counter(eb))],
        [edge_label(b, b.edges[i]) for i in _exclusive(eb, Counter(ea))],
        _diverged(a, only_a), _diverged(b, only_b), a.loops, b.loops,
        a, b, [a.order[i] for i in only_a], [b.order[i] for i in only_b])

"""Export a forward pass's graph as a networkx DiGraph (for analysis and pictures).

Nodes are the backward nodes reachable from ``t.grad_fn`` (named like
PyTorch's ``grad_fn`` classes) and the leaves' ``AccumulateGrad`` nodes.
Edges run forward, from an input's node to the node that consumed it, so a
drawing reads like the forward computation.  Never used on the hot path.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .node import AccumulateGrad, Node

if TYPE_CHECKING:
    import networkx

__all__ = ["graph_of"]


def _label(fn) -> str:
    if isinstance(fn, AccumulateGrad):
        leaf = fn.variable
        shape = list(leaf.shape) if leaf is not None else "?"
        return f"AccumulateGrad {shape}"
    return type(fn).__name__


def graph_of(t) -> "networkx.DiGraph":
    """The graph recorded for ``t``: one node per backward node, ``op`` and ``label`` attributes.

    Each edge's ``inputs`` attribute lists the consumer's input positions it feeds.

    Node ids are ``"<Name>_<k>"`` in discovery order from the output (the
    output's node is ``_0``), so the export is deterministic.
    """
    import networkx  # only here: exporting is never on the hot path

    g = networkx.DiGraph()
    if t.grad_fn is None:
        return g
    ids: dict = {}

    def ident(fn) -> str:
        if fn not in ids:
            ids[fn] = f"{type(fn).__name__}_{len(ids)}"
            g.add_node(ids[fn], label=_label(fn),
                       op=fn.op.name if isinstance(fn, Node) else "AccumulateGrad")
        return ids[fn]

    stack = [t.grad_fn]
    ident(t.grad_fn)
    done = set()
    while stack:
        fn = stack.pop()
        if fn in done or not isinstance(fn, Node):
            continue
        done.add(fn)
        for i, parent in enumerate(fn.parents):
            if parent is not None:
                src, dst = ident(parent), ident(fn)
                if g.has_edge(src, dst):  # x * x: one edge, both input positions
                    g.edges[src, dst]["inputs"] += (i,)
                else:
                    g.add_edge(src, dst, inputs=(i,))
                stack.append(parent)
    return g

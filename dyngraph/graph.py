"""Export a forward pass's graph as a networkx DiGraph (for analysis and pictures).

Nodes are the backward nodes reachable from ``t.grad_fn`` (named like
PyTorch's ``grad_fn`` classes) and the leaves' ``AccumulateGrad`` nodes.
Edges run forward, from an input's node to the node that consumed it, so a
drawing reads like the forward computation.  Never used on the hot path.

``print(graph_of(loss))`` shows the tape as text, in torch.fx's style::

    graph():
        %w : [num_users=2] = placeholder[target=w]  # AccumulateGrad float32[1]
        %x : [num_users=1] = placeholder[target=x]  # AccumulateGrad float32[1]
        %add : [num_users=1] = call_function[target=Add](args = (%w, %x), kwargs = {})  # AddBackward0
        %add_1 : [num_users=1] = call_function[target=Add](args = (%w, _), kwargs = {})  # AddBackward0
        %mul : [num_users=1] = call_function[target=Mul](args = (%add, %add_1), kwargs = {})  # MulBackward0
        return mul

(``_``: an input that needs no gradient, such as a constant.)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .node import AccumulateGrad, Node
from .printing import format_tape

if TYPE_CHECKING:
    import networkx

__all__ = ["graph_of"]


def _tape_graph_class():
    """A networkx DiGraph whose ``str`` is the tape's text form (made once, on first use)."""
    global _TapeGraph
    if _TapeGraph is None:
        import networkx  # ~0.5 s to import: only when a graph is asked for

        class TapeGraph(networkx.DiGraph):
            """The recorded graph; ``print`` shows it in torch.fx's text form."""

            def __str__(self) -> str:
                return format_tape(self)

            def _repr_svg_(self) -> str | None:
                """The tape drawn inline in a notebook (IPython's display protocol), with the
                renderer of the comparisons' PNG/SVG pictures (None without matplotlib)."""
                from common.display import svg_or_none, tape_graph  # matplotlib: on display
                return svg_or_none(tape_graph(self))

        _TapeGraph = TapeGraph
    return _TapeGraph


_TapeGraph = None


def _label(fn) -> str:
    if isinstance(fn, AccumulateGrad):
        leaf = fn.variable
        shape = list(leaf.shape) if leaf is not None else "?"
        return f"AccumulateGrad {shape}"
    return type(fn).__name__


def graph_of(t, names: dict | None = None) -> "networkx.DiGraph":
    """The graph recorded for ``t``: one node per backward node, ``op`` and ``label`` attributes.

    Each edge's ``inputs`` attribute lists the consumer's input positions it feeds.
    Each node also has ``seq`` (recording order), ``arity`` (its op's input count)
    and, for a leaf, ``name`` (from ``names``, ``{"x": x, ...}``) and ``leaf_type``.

    Node ids are ``"<Name>_<k>"`` in discovery order from the output (the
    output's node is ``_0``), so the export is deterministic.

    >>> import dyngraph as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> print(torch.graph_of((x * 2).sum(), names={"x": x}).graph["output"])
    SumBackward0_0
    """
    g = _tape_graph_class()()   # networkx only here: exporting is never on the hot path
    if t.grad_fn is None:
        return g
    ids: dict = {}
    leaf_names = {id(v): k for k, v in (names or {}).items()}

    def ident(fn) -> str:
        if fn not in ids:
            ids[fn] = f"{type(fn).__name__}_{len(ids)}"
            g.add_node(ids[fn], label=_label(fn), seq=fn.seq,
                       op=fn.op.name if isinstance(fn, Node) else "AccumulateGrad")
            if isinstance(fn, Node):
                g.nodes[ids[fn]]["arity"] = len(fn.parents)
            else:
                leaf = fn.variable
                g.nodes[ids[fn]].update(name=leaf_names.get(id(leaf)), leaf_type=(
                    None if leaf is None else f"{leaf.dtype}{list(leaf.shape)}".replace(
                        "torch.", "")))
        return ids[fn]

    g.graph["output"] = ident(t.grad_fn)

    stack = [t.grad_fn]
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

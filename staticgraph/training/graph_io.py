"""``tf.train.write_graph`` / ``tf.io.write_graph``: a graph's ``GraphDef`` in a file.

The proto is :func:`..interop.graph_def.as_graph_def`'s (TensorBoard's ``GraphDef``): text
format by default (``graph.pbtxt``), binary with ``as_text=False``.  The directory is made
when missing, and the file is written atomically (:func:`common.checkpoint.atomic_write`).
"""
from __future__ import annotations

import os

from common.checkpoint import atomic_write

from ..framework.graph import Graph
from ..interop.graph_def import as_graph_def

__all__ = ["write_graph"]


def write_graph(graph_or_graph_def, logdir: str, name: str, as_text: bool = True) -> str:
    """Write the graph (a Graph, or a GraphDef already made) to ``logdir/name``; its path."""
    graph_def = (as_graph_def(graph_or_graph_def) if isinstance(graph_or_graph_def, Graph)
                 else graph_or_graph_def)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        data = str(graph_def).encode("utf-8")   # a proto's str() is its text format
    else:
        data = graph_def.SerializeToString(deterministic=True)
    atomic_write(path, lambda f: f.write(data))
    return path

"""Graphs in and out: the JSON form (``serialize``, checked against ``graph_schema`` on load),
TF's GraphDef text, and ONNX export/import (``python -m staticgraph.interop.onnx --readme``).

Nothing is imported here: the public names are re-exported by the package root's namespaces.
"""

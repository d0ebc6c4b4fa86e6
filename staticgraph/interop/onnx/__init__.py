"""ONNX interchange for staticgraph: ``export`` a graph, ``import_graph`` a model.

Needs the ``[onnx]`` extra (``onnx``, and ``onnxruntime`` to run the models).

>>> import staticgraph.interop.onnx                                  # doctest: +SKIP
>>> staticgraph.interop.onnx.export(sess, [y], [x], "model.onnx")     # doctest: +SKIP
"""
from .export import DEFAULT_OPSET, ExportError, export, to_model
from .importer import import_graph
from .rules import RULES, coverage, coverage_markdown
from .validate import ModelImportError

__all__ = ["export", "to_model", "import_graph", "RULES", "coverage", "coverage_markdown",
           "DEFAULT_OPSET", "ExportError", "ModelImportError"]

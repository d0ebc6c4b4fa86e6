"""``tf.io``: TF's file API as ``tf.io.gfile`` (the same module as TF1's ``tf.gfile``).

>>> import staticgraph as tf
>>> tf.io.gfile.exists("/")
True
"""
from . import gfile
from .training.graph_io import write_graph

__all__ = ["gfile", "write_graph"]

"""Alias namespace: every public staticgraph name, reachable as ``tf.compat.v1.<name>``.

The package fills it in at the end of ``staticgraph/__init__`` (this module never
imports the package back).

>>> import staticgraph as tf
>>> tf.compat.v1.placeholder is tf.placeholder
True
"""
__all__: list[str] = []

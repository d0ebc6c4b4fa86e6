"""Alias namespace: every public staticgraph name, reachable as ``tf.compat.v1.<name>``.

The package fills it in (:func:`export`, called at the end of ``staticgraph/__init__``):
this module never imports the package back.

>>> import staticgraph as tf
>>> tf.compat.v1.placeholder is tf.placeholder
True
"""
from __future__ import annotations

__all__: list[str] = []


def export(namespace: dict, names: list[str]) -> None:
    """Make ``names`` (looked up in ``namespace``, the package's globals) this module's names."""
    __all__[:] = names
    globals().update({name: namespace[name] for name in names})

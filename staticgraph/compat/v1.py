"""Alias namespace: every public staticgraph name, reachable as ``tf.compat.v1.<name>``."""
from __future__ import annotations

import staticgraph as _sg

__all__ = list(_sg.__all__)
globals().update({name: getattr(_sg, name) for name in __all__ if name != "compat"})

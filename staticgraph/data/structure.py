"""Nested element structures (tuples, dicts, single tensors) flattened to lists and back.

tf.data's rules, not tf.nest's (:mod:`staticgraph.nest`): as in TF's ``data/util/nest``,
a list is a leaf (``from_tensor_slices([[1, 2], [3, 4]])`` slices one tensor).  A dict's
leaves come in sorted key order; packing keeps the structure's own key order.

>>> flatten({"b": 1, "a": (2, 3)})
[2, 3, 1]
>>> pack_as({"b": 0, "a": (0, 0)}, [2, 3, 1])
{'b': 1, 'a': (2, 3)}
"""
from __future__ import annotations

from typing import Any

__all__ = ["flatten", "pack_as"]


def flatten(structure: Any) -> list:
    """Leaves in order: tuple items in order, dict values by sorted key (as tf.nest)."""
    if isinstance(structure, dict):
        return [leaf for k in sorted(structure) for leaf in flatten(structure[k])]
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_as(structure: Any, leaves: list) -> Any:
    """``leaves`` arranged like ``structure``."""
    it = iter(leaves)

    def build(s):
        if isinstance(s, dict):
            built = {k: build(s[k]) for k in sorted(s)}
            return {k: built[k] for k in s}
        if isinstance(s, tuple):
            items = [build(i) for i in s]
            return type(s)(*items) if hasattr(s, "_fields") else tuple(items)
        return next(it)
    return build(structure)

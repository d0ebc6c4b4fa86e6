"""Nested element structures (tuples, dicts, single tensors) flattened to lists and back.

>>> flatten({"b": 1, "a": (2, 3)})
[2, 3, 1]
>>> pack_as({"b": 0, "a": (0, 0)}, [2, 3, 1])
{'a': (2, 3), 'b': 1}
"""
from __future__ import annotations

from typing import Any

__all__ = ["flatten", "pack_as", "map_structure", "assert_same_structure"]


def _is_nest(x: Any) -> bool:
    return isinstance(x, (tuple, dict)) and not hasattr(x, "_as_graph_element")


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
            return {k: build(s[k]) for k in sorted(s)}
        if isinstance(s, tuple):
            items = [build(i) for i in s]
            return type(s)(*items) if hasattr(s, "_fields") else tuple(items)
        return next(it)
    return build(structure)


def map_structure(fn, structure: Any) -> Any:
    return pack_as(structure, [fn(x) for x in flatten(structure)])


def assert_same_structure(a: Any, b: Any) -> None:
    """TF's error when two structures differ."""
    if _shape_of(a) != _shape_of(b):
        raise ValueError(f"The two structures don't have the same nested structure.\n\n"
                         f"First structure: {a!r}\n\nSecond structure: {b!r}")


def _shape_of(s: Any):
    if isinstance(s, dict):
        return ("dict", tuple((k, _shape_of(s[k])) for k in sorted(s)))
    if isinstance(s, tuple):
        return ("tuple", tuple(_shape_of(i) for i in s))
    return "leaf"

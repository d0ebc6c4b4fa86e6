"""Nested structures -- tuples, lists, dicts, namedtuples -- as TF's ``tf.nest`` treats them.

The one place the engine flattens and rebuilds them: ``while_loop`` loop variables,
``cond`` results, ``Session.run`` fetches.  Leaves come in TF's order (a dict's by
sorted key); rebuilding keeps each container's type (a dict its key order).

>>> flatten({"b": 1, "a": [2, 3]})
[2, 3, 1]
>>> pack_sequence_as({"b": 0, "a": [0, 0]}, [7, 8, 9])
{'b': 9, 'a': [7, 8]}
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

__all__ = ["is_nested", "is_namedtuple", "flatten", "flatten_up_to", "pack_sequence_as",
           "map_structure", "assert_same_structure", "first_difference", "describe",
           "flatten_with_rebuild", "flatten_dict_items", "LITERAL", "structure_error"]


def is_namedtuple(s: Any) -> bool:
    return isinstance(s, tuple) and hasattr(s, "_fields")


def is_nested(s: Any) -> bool:
    """A container whose items are themselves structures (not a leaf)."""
    return isinstance(s, (list, tuple, dict))


def _children(s: Any) -> list:
    return [s[k] for k in sorted(s)] if isinstance(s, dict) else list(s)


def flatten(s: Any) -> list:
    """The leaves of ``s`` in TF's order (a dict's values by sorted key)."""
    if not is_nested(s):
        return [s]
    return [leaf for c in _children(s) for leaf in flatten(c)]


def flatten_up_to(template: Any, s: Any) -> list:
    """``s`` flattened down to ``template``'s leaves (a leaf of ``s`` there may be a structure)."""
    if isinstance(template, dict):
        return [leaf for k in sorted(template) for leaf in flatten_up_to(template[k], s[k])]
    if isinstance(template, (list, tuple)):
        return [leaf for t, v in zip(template, s, strict=True) for leaf in flatten_up_to(t, v)]
    return [s]


def flatten_dict_items(dictionary: dict) -> dict:
    """A dict whose nested keys (tuples, namedtuples) are split into their leaves, each paired
    with the matching leaf of its value -- how TF reads a ``feed_dict`` keyed by an
    ``LSTMStateTuple`` of placeholders.  Words as TF's ``nest.flatten_dict_items``.

    >>> flatten_dict_items({("a", ("b", "c")): (1, (2, 3)), "d": 4})
    {'a': 1, 'b': 2, 'c': 3, 'd': 4}
    """
    flat: dict = {}
    for key, value in dictionary.items():
        if not is_nested(key):
            pairs = [(key, value)]
        else:
            keys, values = flatten(key), flatten(value) if is_nested(value) else [value]
            if len(keys) != len(values):
                raise ValueError(f"Could not flatten dictionary. Key had {len(keys)} elements, "
                                 f"but value had {len(values)} elements. Key: {keys}, value: "
                                 f"{values}.")
            pairs = zip(keys, values)
        for k, v in pairs:
            if k in flat:
                raise ValueError(f"Cannot flatten dict because this key is not unique: {k}")
            flat[k] = v
    return flat


def _pack(template: Any, leaves: Iterator) -> Any:
    if isinstance(template, dict):
        packed = {k: _pack(template[k], leaves) for k in sorted(template)}
        return type(template)((k, packed[k]) for k in template)
    if is_namedtuple(template):
        return type(template)(*[_pack(v, leaves) for v in template])
    if isinstance(template, (list, tuple)):
        return type(template)(_pack(v, leaves) for v in template)
    return next(leaves)


def pack_sequence_as(structure: Any, flat_sequence) -> Any:
    """``flat_sequence`` arranged like ``structure`` (the inverse of :func:`flatten`)."""
    flat = list(flat_sequence)
    n = len(flatten(structure))
    if len(flat) != n:
        raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but flat_sequence "
                         f"had {len(flat)} items.  Structure: {structure}, flat_sequence: {flat}.")
    return _pack(structure, iter(flat))


LITERAL = object()
"""What a :func:`flatten_with_rebuild` ``leaf`` function returns for a leaf kept as it is."""


def flatten_with_rebuild(structure: Any, leaf: Callable[[Any], Any], flat: list
                         ) -> Callable[[Any], Any]:
    """Append ``leaf(x)`` for each leaf ``x`` of ``structure`` to ``flat`` (containers in their
    own order, as a Session's fetch mapper walks them); return a function rebuilding the
    structure from values given in that order.  Built once per signature, so rebuilding a
    run's results is a few calls.  A leaf whose ``leaf(x)`` is :data:`LITERAL` is rebuilt as
    ``x`` itself.

    >>> flat = []
    >>> rebuild = flatten_with_rebuild({"a": (1, 2), "b": None}, lambda x: LITERAL if x is None else x, flat)
    >>> flat, rebuild([10, 20])
    ([1, 2], {'a': (10, 20), 'b': None})
    """
    if isinstance(structure, dict):
        parts = [(k, flatten_with_rebuild(v, leaf, flat)) for k, v in structure.items()]
        cls = type(structure)
        return lambda vals: cls((k, f(vals)) for k, f in parts)
    if isinstance(structure, (list, tuple)):
        parts = [flatten_with_rebuild(v, leaf, flat) for v in structure]
        if isinstance(structure, list):
            return lambda vals: [f(vals) for f in parts]
        if is_namedtuple(structure):
            cls = type(structure)
            return lambda vals: cls(*[f(vals) for f in parts])
        return lambda vals: tuple(f(vals) for f in parts)
    value = leaf(structure)
    if value is LITERAL:
        return lambda vals: structure
    i = len(flat)
    flat.append(value)
    return lambda vals: vals[i]


def map_structure(fn: Callable, *structures: Any) -> Any:
    """``fn`` applied leaf by leaf across structures of the same shape."""
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    columns = zip(*(flatten(s) for s in structures))
    return pack_sequence_as(structures[0], [fn(*leaves) for leaves in columns])


def describe(s: Any) -> str:
    if isinstance(s, dict):
        return f"a dict with keys {sorted(s)}"
    if is_namedtuple(s):
        return f"a {type(s).__name__} (fields {list(s._fields)})"
    if isinstance(s, (list, tuple)):
        return f"a {type(s).__name__} of {len(s)} items"
    return f"a {type(s).__name__}"


def first_difference(a: Any, b: Any, path: str, check_types: bool = False) -> str | None:
    """Where ``b``'s structure first differs from ``a``'s, as ``"at <path>: <a> vs <b>"``, or None.

    Lists and tuples are alike unless ``check_types``; a namedtuple differs from a tuple."""
    def kind(s):
        if isinstance(s, dict):
            return "dict"
        if is_namedtuple(s):
            return type(s).__name__
        if isinstance(s, (list, tuple)):
            return type(s).__name__ if check_types else "seq"
        return "leaf"
    ka, kb = kind(a), kind(b)
    if ka != kb or (ka not in ("dict", "leaf") and len(a) != len(b)) or (
            ka == "dict" and sorted(a) != sorted(b)):
        return f"at {path}: {describe(a)} vs {describe(b)}"
    if ka == "dict":
        return next((d for k in sorted(a)
                     if (d := first_difference(a[k], b[k], f"{path}[{k!r}]", check_types))), None)
    if ka != "leaf":
        return next((d for i, (x, y) in enumerate(zip(a, b))
                     if (d := first_difference(x, y, f"{path}[{i}]", check_types))), None)
    return None


def _typed(s: Any) -> str:
    return f"type={type(s).__name__} str={s}"


def _skeleton(s: Any) -> str:
    if isinstance(s, dict):
        return "{" + ", ".join(f"{k!r}: {_skeleton(v)}" for k, v in s.items()) + "}"
    if isinstance(s, list):
        return "[" + ", ".join(_skeleton(v) for v in s) + "]"
    if is_namedtuple(s):
        return f"{type(s).__name__}(" + ", ".join(f"{k}={_skeleton(v)}" for k, v in zip(s._fields, s)) + ")"
    if isinstance(s, tuple):
        inner = ", ".join(_skeleton(v) for v in s)
        return f"({inner},)" if len(s) == 1 else f"({inner})"
    return "."


def _mismatch(a: Any, b: Any, check_types: bool) -> tuple[type, str] | None:
    """TF's "More specifically" sentence for the first mismatch (and its exception type)."""
    if is_nested(a) != is_nested(b):
        return ValueError, (f"Substructure \"{_typed(b if is_nested(b) else a)}\" is a sequence, "
                            f"while substructure \"{_typed(a if is_nested(b) else b)}\" is not")
    if not is_nested(a):
        return None
    if check_types and type(a) is not type(b):
        return TypeError, (f"The two namedtuples don't have the same sequence type. First "
                           f"structure {_typed(a)} has type {type(a).__name__}, while second "
                           f"structure {_typed(b)} has type {type(b).__name__}")
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return ValueError, (f"The two dictionaries don't have the same set of keys. First "
                            f"structure has keys {_typed(sorted(a))}, while second structure has "
                            f"keys {_typed(sorted(b))}")
    if len(a) != len(b):
        return ValueError, (f"The two structures don't have the same number of elements. First "
                            f"structure: {_typed(a)}. Second structure: {_typed(b)}")
    for x, y in zip(_children(a), _children(b)):
        found = _mismatch(x, y, check_types)
        if found:
            return found
    return None


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True) -> None:
    """Raise TF's ``ValueError``/``TypeError`` (same words) if the structures differ."""
    found = _mismatch(nest1, nest2, check_types)
    if found is None:
        return
    exc, detail = found
    raise exc(f"The two structures don't have the same nested structure.\n\n"
              f"First structure: {_typed(nest1)}\n\nSecond structure: {_typed(nest2)}\n\n"
              f"More specifically: {detail}\nEntire first structure:\n{_skeleton(nest1)}\n"
              f"Entire second structure:\n{_skeleton(nest2)}")


def structure_error(nest1: Any, nest2: Any, check_types: bool = True) -> str | None:
    """:func:`assert_same_structure`'s message if the structures differ, else None (for a
    caller that words its own error around TF's: ``cond``, ``while_loop``, ``map_fn``)."""
    try:
        assert_same_structure(nest1, nest2, check_types=check_types)
    except (ValueError, TypeError) as e:
        return str(e)
    return None

"""``save(obj, path)`` / ``load(path)``: objects of tensors in one ``.npz``, no pickle.

What ``save`` stores, in one ``.npz`` (see :mod:`common.checkpoint`: atomic
write, no pickle on load)::

    "__manifest__"  JSON text: the structure of obj, e.g.
                    {"format": "dyngraph/1",
                     "root": {"dict": [["weight", {"tensor": 0, "requires_grad": false,
                                                   "parameter": true}], ...]}}
    "t0", "t1", ... one array per distinct tensor (a tensor saved twice is stored once
                    and loads as one tensor, as PyTorch keeps shared storage shared)

Objects allowed: tensors, Python numbers/strings/bools/None, and dicts, lists
and tuples of them (state dicts, ``{"model": ..., "epoch": 3}``).  Anything
else is refused at save time: a file that needs code to load is a file that
can run code, so nothing is pickled.
"""
from __future__ import annotations

import json
import os
from collections import OrderedDict
from typing import Any

import numpy as np

from common.checkpoint import CheckpointError, read_arrays, remove_stale_temps, write_arrays

from .dtypes import to_dtype
from .nn.parameter import Parameter
from .tensor import Tensor, make

__all__ = ["save", "load", "load_state_dict", "CheckpointError"]

FORMAT = "dyngraph/1"
MAX_DEPTH = 100
"""How deeply dicts, lists and tuples may nest in a saved object.  Deeper is refused by save
and load alike, so whatever save writes, load reads (a state dict nests one to three deep),
and a crafted manifest cannot recurse load into a RecursionError."""
_ATOMS = (bool, int, float, str, type(None))
_CONTAINERS = ("dict", "odict", "list", "tuple")


def save(obj: Any, f: str | os.PathLike) -> None:
    """Write ``obj`` (a tensor, a state dict, or a nesting of dicts/lists of them) to ``f``.

    Temp files that an earlier, killed save of ``f`` left behind are deleted first.
    """
    arrays: dict[str, np.ndarray] = {}
    root = _encode(obj, arrays, {}, 0)
    manifest = json.dumps({"format": FORMAT, "root": root})
    arrays["__manifest__"] = np.array(manifest)
    path = os.path.abspath(f)
    remove_stale_temps(os.path.dirname(path), os.path.basename(path).__eq__)
    write_arrays(path, arrays)


def _encode(obj: Any, arrays: dict, seen: dict, depth: int) -> dict:
    """``obj`` as a manifest entry; its tensors' arrays go into ``arrays`` (once each)."""
    if isinstance(obj, Tensor):
        index = seen.get(id(obj))
        if index is None:
            index = seen[id(obj)] = len(seen)
            arrays[f"t{index}"] = obj._data  # (np.ascontiguousarray would make 0-d 1-d)
        return {"tensor": index, "requires_grad": obj.requires_grad,
                "parameter": isinstance(obj, Parameter)}
    if isinstance(obj, (dict, list, tuple)) and depth == MAX_DEPTH:
        raise ValueError(f"dyngraph.save: the object nests deeper than {MAX_DEPTH} containers "
                         f"(one that holds itself?); nothing was written")
    if isinstance(obj, dict):
        for k in obj:
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"dyngraph.save: dict keys must be str or int, got {k!r}")
        kind = "odict" if isinstance(obj, OrderedDict) else "dict"
        return {kind: [[k, _encode(v, arrays, seen, depth + 1)] for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        return {type(obj).__name__ if type(obj) in (list, tuple) else "tuple":
                [_encode(v, arrays, seen, depth + 1) for v in obj]}
    if isinstance(obj, _ATOMS):
        return {"value": obj}
    hint = " (save module.state_dict() instead)" if hasattr(obj, "state_dict") else ""
    raise TypeError(f"dyngraph.save cannot store a {type(obj).__name__}{hint}: only tensors, "
                    f"numbers, strings, None and dicts/lists/tuples of them are saved, so that "
                    f"loading a file never runs code")


def load(f: str | os.PathLike, map_location=None, weights_only: bool = True, **_) -> Any:
    """Read what :func:`save` wrote.  Never unpickles: ``weights_only`` is always in effect.

    Raises the ``OSError`` of opening ``f`` (``FileNotFoundError``, worded as PyTorch's)
    and :class:`CheckpointError` (a ``RuntimeError``, as PyTorch raises for a damaged
    file) for everything else: a truncated or corrupted file, or one that is not a
    dyngraph checkpoint -- whatever its manifest holds, nothing else escapes.
    """
    arrays = read_arrays(f)
    try:
        manifest = arrays.pop("__manifest__", None)
        if manifest is None or manifest.shape != () or manifest.dtype.kind != "U":
            raise ValueError("it has no __manifest__ text")
        manifest = json.loads(str(manifest))
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise ValueError(f"format {_field(manifest, 'format')!r}, expected {FORMAT!r}")
        return _decode(_field(manifest, "root"), arrays, {}, 0)
    except RecursionError:   # json.loads recurses once per bracket
        reason = f"it nests deeper than {MAX_DEPTH} containers"
    except (KeyError, ValueError, TypeError) as e:
        reason = str(e) if type(e) is ValueError else f"{type(e).__name__}: {e}"
    raise CheckpointError(f"{os.fspath(f)!r} is not a dyngraph checkpoint ({reason})")


def _field(entry, key: str):
    """``entry[key]`` of a manifest object (``None`` if ``entry`` is not an object)."""
    return entry.get(key) if isinstance(entry, dict) else None


def _decode(node, arrays: dict, made: dict, depth: int) -> Any:
    """The object a manifest entry stands for; anything :func:`save` never writes is refused."""
    if not isinstance(node, dict) or not node:
        raise ValueError(f"entry {str(node)[:40]} is not an object")
    kind, body = next(iter(node.items()))
    if kind == "tensor":
        if body not in made:
            made[body] = _tensor(body, arrays, node.get("requires_grad"), node.get("parameter"))
        return made[body]
    if kind == "value":
        if not isinstance(body, _ATOMS):
            raise ValueError("a value must be a number, string, bool or null")
        return body
    if kind not in _CONTAINERS:
        raise ValueError(f"unknown entry kind {kind!r}")
    if depth == MAX_DEPTH:
        raise ValueError(f"it nests deeper than {MAX_DEPTH} containers")
    if not isinstance(body, list):
        raise ValueError(f"a {kind} entry must hold a list")
    if kind in ("list", "tuple"):
        items = [_decode(v, arrays, made, depth + 1) for v in body]
        return items if kind == "list" else tuple(items)
    if not all(isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], (str, int))
               and not isinstance(pair[0], bool) for pair in body):
        raise ValueError("dict keys must be strings or integers, in [key, entry] pairs")
    pairs = [(k, _decode(v, arrays, made, depth + 1)) for k, v in body]
    return OrderedDict(pairs) if kind == "odict" else dict(pairs)


def _tensor(index, arrays: dict, requires_grad, parameter) -> Tensor:
    """Tensor ``index`` of the file (its array ``t<index>``), as :func:`_encode` described it."""
    if not isinstance(index, int) or isinstance(index, bool) or f"t{index}" not in arrays:
        raise ValueError(f"no array t{index} for tensor {index}")
    data = arrays[f"t{index}"]
    if not isinstance(requires_grad, bool) or not isinstance(parameter, bool):
        raise ValueError(f"tensor {index}: requires_grad must be true or false, and parameter too")
    to_dtype(data.dtype)  # refuse dtypes dyngraph has no tensor type for
    if requires_grad and data.dtype.kind != "f":
        raise ValueError(f"tensor {index} is {data.dtype}, which cannot require gradients")
    if parameter:
        return Parameter(make(data), requires_grad=requires_grad)
    t = make(data)
    t.requires_grad = requires_grad
    return t

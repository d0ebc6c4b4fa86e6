"""``save(obj, path)`` / ``load(path)`` and the checking half of ``Module.load_state_dict``.

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
from typing import Any, NamedTuple

import numpy as np

from common.checkpoint import CheckpointError, read_arrays, write_arrays

from .dtypes import to_dtype
from .grad_mode import no_grad
from .tensor import Tensor, make

__all__ = ["save", "load", "load_state_dict", "CheckpointError"]

FORMAT = "dyngraph/1"
_ATOMS = (bool, int, float, str, type(None))


def save(obj: Any, f: str | os.PathLike) -> None:
    """Write ``obj`` (a tensor, a state dict, or a nesting of dicts/lists of them) to ``f``."""
    arrays: dict[str, np.ndarray] = {}
    root = _encode(obj, arrays, {})
    manifest = json.dumps({"format": FORMAT, "root": root})
    arrays["__manifest__"] = np.array(manifest)
    write_arrays(f, arrays)


def _encode(obj: Any, arrays: dict, seen: dict) -> dict:
    if isinstance(obj, Tensor):
        index = seen.get(id(obj))
        if index is None:
            index = seen[id(obj)] = len(seen)
            arrays[f"t{index}"] = obj._data  # (np.ascontiguousarray would make 0-d 1-d)
        from .nn.modules import Parameter
        return {"tensor": index, "requires_grad": obj.requires_grad,
                "parameter": isinstance(obj, Parameter)}
    if isinstance(obj, dict):
        for k in obj:
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"dyngraph.save: dict keys must be str or int, got {k!r}")
        kind = "odict" if isinstance(obj, OrderedDict) else "dict"
        return {kind: [[k, _encode(v, arrays, seen)] for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        return {type(obj).__name__ if type(obj) in (list, tuple) else "tuple":
                [_encode(v, arrays, seen) for v in obj]}
    if isinstance(obj, _ATOMS):
        return {"value": obj}
    hint = " (save module.state_dict() instead)" if hasattr(obj, "state_dict") else ""
    raise TypeError(f"dyngraph.save cannot store a {type(obj).__name__}{hint}: only tensors, "
                    f"numbers, strings, None and dicts/lists/tuples of them are saved, so that "
                    f"loading a file never runs code")


def load(f: str | os.PathLike, map_location=None, weights_only: bool = True, **_) -> Any:
    """Read what :func:`save` wrote.  Never unpickles: ``weights_only`` is always in effect.

    Raises ``FileNotFoundError`` for a missing file and :class:`CheckpointError`
    (a ``RuntimeError``, as PyTorch raises for a damaged file) when the file is
    truncated, corrupted or not a dyngraph checkpoint.
    """
    arrays = read_arrays(f)
    try:
        manifest = json.loads(str(arrays.pop("__manifest__")[()]))
        if manifest.get("format") != FORMAT:
            raise ValueError(f"format {manifest.get('format')!r}, expected {FORMAT!r}")
        return _decode(manifest["root"], arrays, {})
    except (KeyError, ValueError, TypeError, AttributeError) as e:
        raise CheckpointError(f"{os.fspath(f)!r} is not a dyngraph checkpoint "
                              f"({type(e).__name__}: {e})") from None


def _decode(node: dict, arrays: dict, made: dict) -> Any:
    (kind, body), *rest = node.items()
    if kind == "tensor":
        if body not in made:
            made[body] = _tensor(arrays[f"t{body}"], node["requires_grad"], node["parameter"])
        return made[body]
    if kind in ("dict", "odict"):
        pairs = [(k, _decode(v, arrays, made)) for k, v in body]
        return OrderedDict(pairs) if kind == "odict" else dict(pairs)
    if kind in ("list", "tuple"):
        items = [_decode(v, arrays, made) for v in body]
        return items if kind == "list" else tuple(items)
    if kind == "value":
        return body
    raise ValueError(f"unknown entry kind {kind!r}")


def _tensor(data: np.ndarray, requires_grad: bool, parameter: bool) -> Tensor:
    to_dtype(data.dtype)  # refuse dtypes dyngraph has no tensor type for
    if parameter:
        from .nn.modules import Parameter
        return Parameter(make(data), requires_grad=requires_grad)
    t = make(data)
    t.requires_grad = requires_grad
    return t


# --- Module.load_state_dict ----------------------------------------------------------


class IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` returns (non-strict loads report what did not match)."""

    missing_keys: list
    unexpected_keys: list

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")


def load_state_dict(module, state_dict: dict, strict: bool = True) -> IncompatibleKeys:
    """Copy ``state_dict``'s values into ``module``'s parameters -- all of them or none.

    PyTorch's checks and wording (missing/unexpected keys when ``strict``, size
    mismatches always), but every check runs before the first copy, so a
    refused state dict leaves the module exactly as it was (PyTorch may have
    copied some parameters by the time it raises).
    """
    own = module.state_dict(keep_vars=True)  # parameters and persistent buffers
    missing = [k for k in own if k not in state_dict]
    unexpected = [k for k in state_dict if k not in own]
    errors = []
    if strict and missing:
        errors.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
    if strict and unexpected:
        errors.append("Unexpected key(s) in state_dict: "
                      + ", ".join(f'"{k}"' for k in unexpected) + ". ")
    for name, p in own.items():
        value = state_dict.get(name)
        if name not in state_dict:
            continue
        if not isinstance(value, Tensor):
            errors.append(f'While copying the parameter named "{name}", expected torch.Tensor or '
                          f"Tensor-like object from checkpoint but received {type(value)}")
        elif value.shape != p.shape:
            errors.append(f"size mismatch for {name}: copying a param with shape {value.shape} "
                          f"from checkpoint, the shape in current model is {p.shape}.")
        elif not np.can_cast(value.np_dtype, p.np_dtype, "same_kind"):
            errors.append(f"dtype mismatch for {name}: cannot copy a {value.dtype} param from "
                          f"checkpoint into the {p.dtype} param of the current model.")
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors))
    with no_grad():
        for name, p in own.items():
            if name in state_dict:
                p.copy_(state_dict[name])
    return IncompatibleKeys(missing, unexpected)

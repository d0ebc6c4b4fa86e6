"""``save(obj, f)`` / ``load(f)``: objects of tensors and modules in one ``.npz``, no pickle.

What ``save`` stores, in one ``.npz`` (see :mod:`common.checkpoint`: atomic
write, no pickle on load)::

    "__manifest__"  JSON text: the structure of obj, e.g.
                    {"format": "dyngraph/1",
                     "root": {"dict": [["weight", {"tensor": 0, "requires_grad": false,
                                                   "parameter": true}], ...]}}
    "t0", "t1", ... one array per distinct tensor (a tensor saved twice is stored once
                    and loads as one tensor, as PyTorch keeps shared storage shared)

Objects allowed: tensors, Python numbers/strings/bools/None, ``torch.dtype`` and
``torch.device`` values, dicts, lists and tuples of them (state dicts,
``{"model": ..., "epoch": 3}``), and whole modules (``torch.save(model, f)``).
Anything else is refused at save time, naming where it sits (``obj.decoder.act``):
a file that needs code to load is a file that can run code, so nothing is pickled.

A whole module is stored as its class's import path (``{"module": "__main__",
"class": "RNNModel", ...}``) and its state: ``training``, parameters, buffers
(which ones are non-persistent), child modules, and every other attribute of the
kinds above.  PyTorch pickles the module's ``__dict__``; this stores the same
state without pickle, so a lambda or an open file as an attribute is refused at
save time (pickle refuses a lambda too, at save; a module with forward hooks is
refused likewise).  Loading one needs the opt-in PyTorch 2.6+ needs:
``weights_only=False``, or the classes listed by
:func:`add_safe_globals` / :class:`safe_globals`.  Even then no code is imported
or run that the program did not already import: a class is looked up in a module
already in ``sys.modules`` (``__main__`` for a script's own classes), must be an
``nn.Module`` subclass, and is created without calling ``__init__``, as pickle does.
"""
from __future__ import annotations

import json
import os
import sys
from collections import OrderedDict
from pickle import UnpicklingError
from typing import Any, Callable

import numpy as np

from common.checkpoint import (CheckpointError, read_arrays, remove_stale_temps, source_name,
                               write_arrays)

from .device import device
from .dtypes import dtype, lookup, to_dtype
from .nn.module import Module
from .nn.parameter import Parameter
from .tensor import Tensor, make

__all__ = ["save", "load", "CheckpointError", "add_safe_globals",
           "clear_safe_globals", "get_safe_globals", "safe_globals"]

FORMAT = "dyngraph/1"
MAX_DEPTH = 100
"""How deeply dicts, lists, tuples and modules may nest in a saved object.  Deeper is refused
by save and load alike, so whatever save writes, load reads (a state dict nests one to three
deep), and a crafted manifest cannot recurse load into a RecursionError."""
_ATOMS = (bool, int, float, str, type(None))
_CONTAINERS = ("dict", "odict", "list", "tuple")
_MODULE_INTERNALS = frozenset(vars(Module()))
"""The attributes ``Module.__init__`` sets (its registries, ``training``, hook lists): a
module entry stores them as fields of their own, never as plain attributes."""
_safe: list = []
"""What :func:`add_safe_globals` allowed: classes, or ``(class, "module.name")`` pairs."""


def save(obj: Any, f) -> None:
    """Write ``obj`` (a tensor, a module, a state dict, or a nesting of dicts/lists of them)
    to ``f``: a path (written atomically; temp files an earlier, killed save of it left
    behind are deleted first) or a binary file object (``io.BytesIO``, ``open(p, "wb")``).

    Everything is encoded before the first byte is written, so an object that cannot be
    stored raises (``TypeError``/``ValueError``/``AttributeError``) and writes nothing.
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")
    arrays: dict[str, np.ndarray] = {}
    root = _Encoder(arrays).encode(obj, "obj", 0)
    arrays["__manifest__"] = np.array(json.dumps({"format": FORMAT, "root": root}))
    if hasattr(f, "write"):
        np.savez(f, **arrays)
        return
    path = os.path.abspath(f)
    remove_stale_temps(os.path.dirname(path), os.path.basename(path).__eq__)
    write_arrays(path, arrays)


class _Encoder:
    """Turns an object into a manifest entry, its tensors' arrays into ``arrays`` (once each).

    ``where`` is the Python expression of the part being encoded (``obj['model'].fc.act``),
    so a refusal names the attribute to fix.
    """

    def __init__(self, arrays: dict):
        self.arrays = arrays
        self.tensors: dict[int, int] = {}   # id(tensor) -> its index (its array "t<index>")
        self.modules: dict[int, int] = {}   # id(module) -> its index (later mentions refer to it)

    def encode(self, obj: Any, where: str, depth: int) -> dict:
        if isinstance(obj, Tensor):
            index = self.tensors.get(id(obj))
            if index is None:
                index = self.tensors[id(obj)] = len(self.tensors)
                self.arrays[f"t{index}"] = obj._data  # (np.ascontiguousarray would make 0-d 1-d)
            return {"tensor": index, "requires_grad": obj.requires_grad,
                    "parameter": isinstance(obj, Parameter)}
        if isinstance(obj, (dict, list, tuple, Module)) and depth == MAX_DEPTH:
            raise ValueError(f"dyngraph.save: the object nests deeper than {MAX_DEPTH} containers "
                             f"(one that holds itself?); nothing was written")
        if isinstance(obj, Module):
            return self.module(obj, where, depth)
        if isinstance(obj, dict):
            for k in obj:
                if not isinstance(k, (str, int)) or isinstance(k, bool):
                    raise TypeError(f"dyngraph.save: dict keys must be str or int, got {k!r} "
                                    f"(in {where})")
            kind = "odict" if isinstance(obj, OrderedDict) else "dict"
            return {kind: [[k, self.encode(v, f"{where}[{k!r}]", depth + 1)]
                           for k, v in obj.items()]}
        if isinstance(obj, (list, tuple)):
            return {type(obj).__name__ if type(obj) in (list, tuple) else "tuple":
                    [self.encode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(obj)]}
        if isinstance(obj, _ATOMS):
            return {"value": obj}
        if isinstance(obj, dtype):
            return {"dtype": obj.name}
        if isinstance(obj, device):
            return {"device": str(obj)}
        raise TypeError(f"dyngraph.save cannot store {where}, a {type(obj).__name__}: only "
                        f"tensors, modules, numbers, strings, None, dtypes, devices and "
                        f"dicts/lists/tuples of them are saved, so that loading a file never "
                        f"runs code")

    def module(self, m: Module, where: str, depth: int) -> dict:
        """A module entry: its class's import path and its state (see the module docstring)."""
        if id(m) in self.modules:
            return {"module_ref": self.modules[id(m)]}
        self.modules[id(m)] = len(self.modules)
        cls = type(m)
        found = _find_class(cls.__module__, cls.__qualname__)
        if found is not cls:
            raise AttributeError(f"dyngraph.save cannot store {where}: its class "
                                 f"{cls.__module__}.{cls.__qualname__} cannot be found by that "
                                 f"import path ({found}), so no load could rebuild it; define "
                                 f"it at the top level of a module")
        if m._forward_hooks or m._forward_pre_hooks:
            raise TypeError(f"dyngraph.save cannot store {where}: it has forward hooks, which "
                            f"are functions; remove them before saving (or save its state_dict())")
        registered = {**m._parameters, **m._buffers, **m._modules}
        attributes = [(k, v) for k, v in vars(m).items()
                      if k not in _MODULE_INTERNALS and k not in registered]
        return {"module": cls.__module__, "class": cls.__qualname__, "training": m.training,
                "parameters": self.named(m._parameters, where, depth),
                "buffers": self.named(m._buffers, where, depth),
                "non_persistent": sorted(m._non_persistent_buffers_set),
                "modules": self.named(m._modules, where, depth),
                "attributes": self.named(dict(attributes), where, depth)}

    def named(self, items: dict, where: str, depth: int) -> list:
        return [[k, self.encode(v, f"{where}.{k}", depth + 1)] for k, v in items.items()]


def _find_class(module: str, qualname: str):
    """The object at ``module``.``qualname``, looked up without importing or running
    anything: ``module`` must already be imported, and each name is read from the
    ``__dict__`` of what holds it (no ``__getattr__`` hook runs).  A string saying why
    not, if it is not there."""
    if module not in sys.modules:
        return f"module {module!r} is not imported"
    obj = sys.modules[module]
    for part in qualname.split("."):
        try:
            obj = vars(obj)[part]
        except (TypeError, KeyError):
            return f"{module!r} has no {qualname!r}"
    return obj


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args) -> Any:
    """Read what :func:`save` wrote, from a path or a seekable binary file object.

    ``map_location`` as ``torch.load`` takes it on a CPU machine: ``"cpu"``, a
    ``torch.device``, a ``{saved: target}`` dict, or ``fn(storage, location)`` (given
    each loaded tensor and ``"cpu"``; it returns a tensor, or ``None`` to keep it);
    a CUDA target raises PyTorch's CPU-only error.  ``weights_only`` (default True)
    refuses module classes not made safe by :func:`add_safe_globals` with PyTorch's
    ``UnpicklingError``; ``weights_only=False`` allows ``nn.Module`` classes of
    modules already imported (see the module docstring).  Nothing is ever unpickled.

    Raises the ``OSError`` of opening ``f`` (``FileNotFoundError``, worded as PyTorch's),
    PyTorch's ``UnpicklingError`` for a module class ``weights_only`` does not allow, the
    errors ``map_location`` raises, and :class:`CheckpointError` (a ``RuntimeError``, as
    PyTorch raises for a damaged file) for everything else: a truncated or corrupted file,
    or one that is not a dyngraph checkpoint -- whatever its manifest holds, nothing else
    escapes.
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "seek"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'seek'. You can "
                             f"only torch.load from a file that is seekable. Please pre-load the "
                             f"data into a buffer like io.BytesIO and try to load from it instead.")
    arrays = read_arrays(f)
    try:
        manifest = arrays.pop("__manifest__", None)
        if manifest is None or manifest.shape != () or manifest.dtype.kind != "U":
            raise ValueError("it has no __manifest__ text")
        manifest = json.loads(str(manifest))
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise ValueError(f"format {_field(manifest, 'format')!r}, expected {FORMAT!r}")
        decoder = _Decoder(arrays, _relocation(map_location), weights_only is not False)
        return decoder.decode(_field(manifest, "root"), 0)
    except _UserCodeError as e:
        raise e.args[0] from None
    except RecursionError:   # json.loads recurses once per bracket
        reason = f"it nests deeper than {MAX_DEPTH} containers"
    except (KeyError, ValueError, TypeError) as e:
        reason = str(e) if type(e) is ValueError else f"{type(e).__name__}: {e}"
    raise CheckpointError(f"{source_name(f)!r} is not a dyngraph checkpoint ({reason})")


def _field(entry, key: str):
    """``entry[key]`` of a manifest object (``None`` if ``entry`` is not an object)."""
    return entry.get(key) if isinstance(entry, dict) else None


class _UserCodeError(Exception):
    """An exception raised by the caller's ``map_location`` function: ``load`` re-raises it
    as it is (it says nothing about the file)."""


class _Decoder:
    """The objects manifest entries stand for; anything :func:`save` never writes is refused
    (``ValueError``/``KeyError``/``TypeError``, which ``load`` reports as a CheckpointError)."""

    def __init__(self, arrays: dict, relocate: Callable[[Tensor], Tensor] | None,
                 weights_only: bool):
        self.arrays, self.relocate, self.weights_only = arrays, relocate, weights_only
        self.tensors: dict[int, Tensor] = {}
        self.modules: list[Module] = []

    def decode(self, node, depth: int) -> Any:
        if not isinstance(node, dict) or not node:
            raise ValueError(f"entry {str(node)[:40]} is not an object")
        kind, body = next(iter(node.items()))
        if kind == "tensor":
            if body not in self.tensors:
                self.tensors[body] = self.tensor(body, node.get("requires_grad"),
                                                 node.get("parameter"))
            return self.tensors[body]
        if kind == "value":
            if not isinstance(body, _ATOMS):
                raise ValueError("a value must be a number, string, bool or null")
            return body
        if kind == "dtype":
            found = lookup(body) if isinstance(body, str) and body.isidentifier() else None
            if found is None or found.name != body:
                raise ValueError(f"unknown dtype {str(body)[:40]!r}")
            return found
        if kind == "device":
            if not isinstance(body, str):
                raise ValueError("a device must be a string")
            try:
                return device(body)
            except RuntimeError as e:   # not a device type
                raise ValueError(str(e)) from None
        if kind == "module_ref":
            if not isinstance(body, int) or not 0 <= body < len(self.modules):
                raise ValueError(f"module_ref {str(body)[:40]} names no module before it")
            return self.modules[body]
        if kind not in _CONTAINERS and kind != "module":
            raise ValueError(f"unknown entry kind {kind!r}")
        if depth == MAX_DEPTH:
            raise ValueError(f"it nests deeper than {MAX_DEPTH} containers")
        if kind == "module":
            return self.module(node, depth)
        if not isinstance(body, list):
            raise ValueError(f"a {kind} entry must hold a list")
        if kind in ("list", "tuple"):
            items = [self.decode(v, depth + 1) for v in body]
            return items if kind == "list" else tuple(items)
        pairs = [(k, self.decode(v, depth + 1)) for k, v in _pairs(body, (str, int))]
        return OrderedDict(pairs) if kind == "odict" else dict(pairs)

    def module(self, node: dict, depth: int) -> Module:
        """A module of the entry's class, made without ``__init__`` (as pickle makes one),
        its state set from the entry's fields."""
        cls = self.module_class(node.get("module"), node.get("class"))
        m = cls.__new__(cls)
        Module.__init__(m)               # the empty registries; the class's own __init__ never runs
        self.modules.append(m)           # (before its contents: they may refer back to it)
        training = node.get("training")
        if not isinstance(training, bool):
            raise ValueError("a module's training must be true or false")
        object.__setattr__(m, "training", training)
        for field, registry, kinds in (("parameters", m._parameters, Parameter),
                                       ("buffers", m._buffers, Tensor),
                                       ("modules", m._modules, Module)):
            for name, entry in _pairs(node.get(field), (str,)):
                value = self.decode(entry, depth + 1)
                if value is not None and not isinstance(value, kinds):
                    raise ValueError(f"{cls.__qualname__}.{name} in {field} is a "
                                     f"{type(value).__name__}")
                registry[name] = value
                object.__setattr__(m, name, value)
        non_persistent = node.get("non_persistent")
        if not isinstance(non_persistent, list) or not set(non_persistent) <= set(m._buffers):
            raise ValueError(f"{cls.__qualname__}'s non_persistent must list some of its buffers")
        m._non_persistent_buffers_set.update(non_persistent)
        for name, entry in _pairs(node.get("attributes"), (str,)):
            if name in _MODULE_INTERNALS or name in vars(m):
                raise ValueError(f"{cls.__qualname__}'s attribute {name!r} is one it has already")
            object.__setattr__(m, name, self.decode(entry, depth + 1))
        return m

    def module_class(self, module, qualname) -> type:
        """The class a module entry names: one of :func:`add_safe_globals`'s, or, with
        ``weights_only=False``, an ``nn.Module`` subclass of a module already imported."""
        if not isinstance(module, str) or not isinstance(qualname, str):
            raise ValueError("a module entry must name its module and class as strings")
        path = f"{module}.{qualname}"
        allowed = _allowed(path)
        if allowed is None and self.weights_only:
            raise UnpicklingError(_WEIGHTS_ONLY.format(path=path))
        found = allowed if allowed is not None else _find_class(module, qualname)
        if isinstance(found, str):
            raise ValueError(f"it names class {path!r}, but {found}: loading never imports "
                             f"code, so import what defines it first")
        if not (isinstance(found, type) and issubclass(found, Module)):
            raise ValueError(f"it names {path!r}, which is not a torch.nn.Module subclass; "
                             f"only module classes are constructed")
        return found

    def tensor(self, index, requires_grad, parameter) -> Tensor:
        """Tensor ``index`` of the file (its array ``t<index>``), as the encoder described it."""
        if not isinstance(index, int) or isinstance(index, bool) or f"t{index}" not in self.arrays:
            raise ValueError(f"no array t{index} for tensor {index}")
        data = self.arrays[f"t{index}"]
        if not isinstance(requires_grad, bool) or not isinstance(parameter, bool):
            raise ValueError(f"tensor {index}: requires_grad must be true or false, and parameter "
                             f"too")
        to_dtype(data.dtype)  # refuse dtypes dyngraph has no tensor type for
        if requires_grad and data.dtype.kind not in "fc":
            raise ValueError(f"tensor {index} is {data.dtype}, which cannot require gradients")
        t = make(data)
        if self.relocate is not None:
            t = self.relocate(t)
        if parameter:
            return Parameter(t, requires_grad=requires_grad)
        t.requires_grad = requires_grad
        return t


def _pairs(body, key_types: tuple) -> list:
    """A manifest's ``[[key, entry], ...]`` list, checked (keys of ``key_types``, no bools)."""
    if not isinstance(body, list) or not all(
            isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], key_types)
            and not isinstance(pair[0], bool) for pair in body):
        names = "strings or integers" if int in key_types else "strings"
        raise ValueError(f"dict keys must be {names}, in [key, entry] pairs")
    return body


# --- map_location ------------------------------------------------------------------------

_CUDA_ON_CPU = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use torch.load with "
                "map_location=torch.device('cpu') to map your storages to the CPU.")


def _relocation(map_location) -> Callable[[Tensor], Tensor] | None:
    """What ``map_location`` does to each loaded tensor (all were saved on ``"cpu"``).

    As ``torch.load``: a string, device or dict names where the ``"cpu"`` tensors go
    (checked when a tensor is restored); a callable gets ``(storage, "cpu")`` -- here the
    tensor -- and returns the tensor to use, or ``None`` for the default; anything else is
    called anyway, which raises ``TypeError``.
    """
    if map_location is None:
        return None
    if isinstance(map_location, dict):
        target = map_location.get("cpu", "cpu")
    elif isinstance(map_location, (str, device)):
        target = map_location
    else:
        return lambda t: _mapped(map_location, t)

    def to_target(t: Tensor) -> Tensor:
        _check_location(str(target))
        return t
    return to_target


def _mapped(map_location, t: Tensor) -> Tensor:
    try:
        out = map_location(t, "cpu")
    except Exception as e:     # the caller's function (or "'int' object is not callable")
        raise _UserCodeError(e) from None
    if out is None:
        return t
    if not isinstance(out, Tensor):
        raise _UserCodeError(TypeError(f"map_location returned a {type(out).__name__}; it must "
                                       f"return the storage (here a tensor) or None"))
    return make(out._data)


def _check_location(location: str) -> None:
    """Refuse a target but ``"cpu"`` with PyTorch's errors for a CPU-only machine (torch
    restores exactly ``"cpu"`` there: ``"cpu:0"`` is refused too)."""
    if location == "cpu":
        return
    if location.startswith("cuda"):
        raise RuntimeError(_CUDA_ON_CPU)
    raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage "
                       f"(tagged with {location}) (dyngraph computes on the CPU only)")


# --- weights_only and safe globals ----------------------------------------------------------

_WEIGHTS_ONLY = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In "
    "PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please "
    "check the recommended steps in the following error message.\n\tWeightsUnpickler error: "
    "Unsupported global: GLOBAL {path} was not an allowed global by default. Please use "
    "`torch.serialization.add_safe_globals([{path}])` or the "
    "`torch.serialization.safe_globals([{path}])` context manager to allowlist this global if "
    "you trust this class/function.\n\nCheck the documentation of torch.load to learn more "
    "about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html. (dyngraph: with "
    "weights_only=False the file's module classes are taken from modules already imported "
    "and made without calling __init__; no other code runs.)")
"""torch 2.13's ``UnpicklingError`` for a class not allowed by ``weights_only=True``."""


def _allowed(path: str):
    """The safe global a file's ``module.Class`` path names, or ``None``."""
    for entry in _safe:
        if isinstance(entry, tuple):
            if entry[1] == path:
                return entry[0]
        elif f"{getattr(entry, '__module__', None)}.{getattr(entry, '__qualname__', None)}" == path:
            return entry
    return None


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes (or ``(class, "module.Name")`` pairs) in ``weights_only`` loads."""
    _safe.extend(g for g in safe_globals if g not in _safe)


def get_safe_globals() -> list:
    """What :func:`add_safe_globals` allowed (PyTorch's list also holds some of its own)."""
    return list(_safe)


def clear_safe_globals() -> None:
    """Forget every class :func:`add_safe_globals` allowed."""
    _safe.clear()


class safe_globals:
    """``with torch.serialization.safe_globals([Net]):``: allowed inside the block only."""

    def __init__(self, safe_globals: list):
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        self.initial = list(_safe)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _safe[:] = self.initial

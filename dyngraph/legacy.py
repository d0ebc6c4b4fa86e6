"""The legacy tensor API of years of tutorials: ``torch.FloatTensor(2, 3)``, ``torch.Tensor([1])``.

PyTorch 2 keeps these names working without keeping separate classes:
``torch.FloatTensor`` is an instance of the metaclass ``torch.tensortype``, not a
subclass of ``Tensor``; calling it runs the *legacy constructor* and returns a
plain ``Tensor``, and ``isinstance(x, torch.FloatTensor)`` asks whether ``x`` is a
float32 CPU tensor.  The legacy constructor reads its arguments by their shape::

    FloatTensor()                  an empty tensor ([0])
    FloatTensor(2, 3)              a (2, 3) tensor (uninitialised in PyTorch; zeros here)
    FloatTensor(torch.Size([2]))   a size too (a plain tuple is data)
    FloatTensor([[1, 2], [3, 4]])  data (lists, numpy arrays, cast to the type's dtype;
                                   a numpy array of that dtype is shared, not copied)
    FloatTensor(t)                 an alias of ``t``, which must have that dtype

``torch.Tensor(...)`` is the same constructor for the default dtype, except that
it takes a tensor of any dtype.  Anything else is refused with PyTorch's words.

>>> import dyngraph as torch
>>> torch.LongTensor(2, 3).shape, torch.FloatTensor([1, 2]).type()
(torch.Size([2, 3]), 'torch.FloatTensor')
>>> isinstance(torch.zeros(2), torch.FloatTensor), isinstance(torch.zeros(2), torch.LongTensor)
(True, False)
"""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from common import REGISTRY

from . import dtypes
from .creation import _infer_array
from .device import check_device
from .engine import apply
from .tensor import Size, Tensor, init_slots

__all__ = ["tensortype", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "tensor_init", "tensor_new",
           "legacy_new", "set_default_tensor_type"]

_ALIAS = REGISTRY["Identity"]  # recorded as AliasBackward0, as PyTorch's alias()

_SIGNATURES = (" * (*, torch.device device = None)\n{why}"
               " * (torch.Storage storage)\n"
               " * (Tensor other)\n"
               " * (tuple of ints size, *, torch.device device = None)\n"
               " * (object data, *, torch.device device = None)\n")
_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


def _describe(value) -> str:
    """How PyTorch's argument parser names a value's type in its messages."""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, Size):
        return f"torch.Size of ({', '.join(type(v).__name__ for v in value)},)"
    if isinstance(value, (list, tuple)):
        kinds = ", ".join(type(v).__name__ for v in value)
        return f"{type(value).__name__} of [{kinds}]"
    if isinstance(value, dtypes.dtype):
        return "torch.dtype"
    return type(value).__name__


def _invalid_combination(args: tuple, kwargs: dict) -> TypeError:
    got = [("torch.Size" if isinstance(a, Size) else _describe(a).split(" of ")[0]) for a in args]
    got += [f"{k}={_describe(v)}" for k, v in kwargs.items()]
    if kwargs.keys() - {"device"}:
        why = "some of the keywords were incorrect: " + ", ".join(
            sorted(kwargs.keys() - {"device"}))
    else:
        why = "some of the arguments have invalid types: (" + ", ".join(
            f"!{_describe(a)}!" for a in args) + ")"
    return TypeError("new() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), "
                     f"but expected one of:\n"
                     + _SIGNATURES.format(why=f"      didn't match because {why}\n"))


def _options(d: dtypes.dtype) -> str:
    return (f"TensorOptions(dtype={_C_NAMES[d.name]}, device=cpu, layout=Strided, requires_grad="
            "false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _size(args: tuple) -> tuple:
    for pos, a in enumerate(args, 1):
        if not isinstance(a, builtins.int) or isinstance(a, builtins.bool):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {pos} with "
                            f"error \"type must be tuple of ints,but got {type(a).__name__}\"")
    for a in args:
        if a < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {a}: {list(args)}")
    return tuple(args)


def legacy_new(dtype: dtypes.dtype | None, args: tuple, kwargs: dict) -> np.ndarray | Tensor:
    """The array (or, for ``FloatTensor(t)``, the aliased tensor) the legacy constructor makes.

    ``dtype`` None is ``torch.Tensor``: the default dtype, and a tensor of any dtype accepted.
    """
    if kwargs.keys() - {"device"}:
        raise _invalid_combination(args, kwargs)
    check_device(kwargs.get("device"))
    target = dtype or dtypes.get_default_dtype()
    first = args[0] if args else None
    if not args:
        return np.zeros(0, target.np)
    if isinstance(first, Size) and len(args) == 1:
        return np.zeros(_size(tuple(first)), target.np)
    if isinstance(first, builtins.int) and not isinstance(first, builtins.bool):
        return np.zeros(_size(args), target.np)
    if len(args) > 1:
        raise _invalid_combination(args, kwargs)
    if isinstance(first, Tensor):
        if "device" in kwargs:
            raise RuntimeError("Legacy tensor constructor of the form torch.Tensor(tensor, "
                               "device=device) is not supported.  Use torch.tensor(...) or "
                               "torch.as_tensor(...) instead.")
        if dtype is not None and first._data.dtype != dtype.np:
            raise TypeError(f"expected {_options(dtype)} (got {_options(first.dtype)})")
        return apply(_ALIAS, (first,))
    if isinstance(first, np.ndarray):
        return np.asarray(first, target.np)  # shares the array when it has the dtype already
    if isinstance(first, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(first, (list, tuple)):
        kind = type(first)
        name = (kind.__name__ if kind.__module__ == "builtins"
                else f"{kind.__module__}.{kind.__name__}")
        raise TypeError(f"new(): data must be a sequence (got {name})")
    return _infer_array(first, target)


def tensor_init(self: Tensor, *args, **kwargs) -> None:
    """``torch.Tensor(...)``: the legacy constructor for the default dtype (see the module doc)."""
    made = legacy_new(None, args, kwargs)
    if isinstance(made, Tensor):  # Tensor(t): an alias of t, its graph and version counter too
        for slot in ("_data", "_rg", "_grad", "grad_fn", "_vc", "_hooks", "_accum", "_sref"):
            setattr(self, slot, getattr(made, slot))
    else:
        init_slots(self, made, False, None)


def tensor_new(self: Tensor, *args, **kwargs) -> Tensor:
    """``x.new(...)``: the legacy constructor with ``x``'s dtype (``x.new(2, 3)``, ``x.new([1])``),
    as pre-0.4 programs make noise of a tensor's type (``std.data.new(std.size()).normal_()``)."""
    made = legacy_new(self.dtype, args, kwargs)
    return made if isinstance(made, Tensor) else _wrap(made)


class tensortype(type):
    """The metaclass of ``torch.FloatTensor`` & co.: an ``isinstance`` test and a constructor."""

    dtype: dtypes.dtype

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np

    def __call__(cls, *args, **kwargs) -> Tensor:
        made = legacy_new(cls.dtype, args, kwargs)
        return made if isinstance(made, Tensor) else _wrap(made)

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


def _wrap(data: np.ndarray) -> Tensor:
    t = object.__new__(Tensor)
    init_slots(t, data, False, None)
    return t


def _legacy_type(d: dtypes.dtype) -> tensortype:
    return tensortype(d.legacy, (), {"dtype": d, "is_cuda": False, "is_sparse": False,
                                     "__module__": "torch",
                                     "__doc__": f"``torch.{d.legacy}``: {d!r} CPU tensors."})


(FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor,
 BoolTensor) = LEGACY_TYPES = tuple(_legacy_type(d) for d in (
    dtypes.float32, dtypes.float64, dtypes.float16, dtypes.int64, dtypes.int32, dtypes.int16,
    dtypes.int8, dtypes.uint8, dtypes.bool_))


_DEPRECATED = ("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
               "torch.set_default_dtype() and torch.set_default_device() as alternatives.")
_warned: list[bool] = []


def set_default_tensor_type(t: tensortype | str) -> None:
    """``torch.set_default_tensor_type(torch.DoubleTensor)`` (or its name): the pre-2.1 spelling
    of ``set_default_dtype``, warning once per process as PyTorch does."""
    if not _warned:
        _warned.append(True)
        warnings.warn(_DEPRECATED, UserWarning, stacklevel=2)
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module != "torch":
            raise ModuleNotFoundError(f"No module named '{module or name}'")
        t = {cls.__name__: cls for cls in LEGACY_TYPES}.get(name)
        if t is None:
            raise AttributeError(f"module 'torch' has no attribute '{name}'")
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    dtypes.set_default_dtype(t.dtype)

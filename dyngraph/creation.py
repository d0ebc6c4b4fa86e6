"""Making tensors: ``tensor``, ``zeros``, ``randn``, ``arange``... with PyTorch's dtype defaults.

Python floats become the default dtype (float32 unless ``set_default_dtype``), Python ints
int64, bools
bool; numpy arrays keep their dtype (``from_numpy`` shares their memory).
"""
from __future__ import annotations

import builtins

import numpy as np

from .device import check_device
from .dtypes import get_default_dtype, np_dtype_of, to_dtype
from .tensor import Tensor, make

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "eye", "zeros_like", "ones_like", "full_like", "empty_like", "is_tensor",
           "numel"]


def _leaf(data: np.ndarray, requires_grad: bool) -> Tensor:
    to_dtype(data.dtype)  # complex and other dtypes without a tensor type: refused now, not later
    if requires_grad and data.dtype.kind not in "fc":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return make(data, bool(requires_grad))


def _plain(data):
    """Nested lists that may hold tensors -> plain Python values."""
    if isinstance(data, Tensor):
        return data._data.tolist()
    if isinstance(data, (list, tuple)):
        return [_plain(x) for x in data]
    return data


def _ragged(data) -> str | None:
    """PyTorch's message for the first nested list whose length differs from its siblings'."""
    level, dim = [data], 0
    while True:
        seqs = [x for x in level if isinstance(x, (list, tuple))]
        if not seqs:
            return None
        for s in seqs:
            if len(s) != len(seqs[0]):
                return f"expected sequence of length {len(seqs[0])} at dim {dim} (got {len(s)})"
        level, dim = [y for s in seqs for y in s], dim + 1


def _first_leaf(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return data


def _infer_array(data, dtype) -> np.ndarray:
    target = np_dtype_of(dtype)
    if isinstance(data, (np.ndarray, Tensor, np.generic)):   # a numpy scalar keeps its dtype, as torch
        return np.array(getattr(data, "_data", data), dtype=target)
    plain = _plain(data)
    try:
        arr = np.array(plain, dtype=target)
    except ValueError as e:
        raise ValueError(_ragged(plain) or str(e)) from None
    if arr.dtype.kind in "OSU":
        raise TypeError(f"new(): invalid data type '{type(_first_leaf(plain)).__name__}' (tensors "
                        f"hold numbers and bools, got {plain!r:.60})")
    if target is None and arr.dtype.kind == "f":
        arr = arr.astype(get_default_dtype().np)
    elif target is None and arr.dtype.kind == "c":   # Python complex: the default dtype's complex
        arr = arr.astype(get_default_dtype().to_complex().np)
    elif target is None and arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
    return arr


def tensor(data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data``."""
    check_device(device)
    return _leaf(_infer_array(data, dtype), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """``data`` as a tensor, without copying when it already is one (or an ndarray)."""
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and dtype is None:
        return make(data)
    return make(_infer_array(data, dtype))


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing ``array``'s memory."""
    to_dtype(array.dtype)
    return make(array)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    return input._data.size


# --- Tensor.new_*: same dtype as the tensor unless told otherwise --------------------------------


def new_tensor(self: Tensor, data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return tensor(data, dtype or self.dtype, device, requires_grad)


def new_zeros(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return zeros(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_ones(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return ones(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_full(self: Tensor, size, fill_value, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    return full(size, fill_value, dtype=dtype or self.dtype, device=device,
                requires_grad=requires_grad)


new_empty = new_zeros
METHODS = ["new_tensor", "new_zeros", "new_ones", "new_full", "new_empty"]


def _shape(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(builtins.int(s) for s in size)


def _dtype(dtype, default: np.dtype | None = None) -> np.dtype:
    """The numpy dtype of a ``dtype=`` argument, else ``default``, else the default dtype."""
    return np_dtype_of(dtype) or default or get_default_dtype().np


def zeros(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    check_device(device)
    return _leaf(np.zeros(_shape(size), _dtype(dtype)), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    check_device(device)
    return _leaf(np.ones(_shape(size), _dtype(dtype)), requires_grad)


empty = zeros


def full(size, fill_value, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    check_device(device)
    default = (np.bool_ if isinstance(fill_value, builtins.bool) else
               np.int64 if isinstance(fill_value, builtins.int) else get_default_dtype().np)
    return _leaf(np.full(_shape((size,)), fill_value, _dtype(dtype, np.dtype(default))),
                 requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    check_device(device)
    if end is None:
        start, end = 0, start
    floats = any(isinstance(v, builtins.float) for v in (start, end, step))
    default = get_default_dtype().np if floats else np.dtype(np.int64)
    return _leaf(np.arange(start, end, step, dtype=_dtype(dtype, default)), requires_grad)


def linspace(start, end, steps: int, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    check_device(device)
    return _leaf(np.linspace(start, end, steps, dtype=_dtype(dtype)), requires_grad)


def eye(n: int, m: int | None = None, dtype=None, device=None,
        requires_grad: bool = False) -> Tensor:
    check_device(device)
    return _leaf(np.eye(n, m, dtype=_dtype(dtype)), requires_grad)


def _like(fill):
    def f(input: Tensor, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
        check_device(device)
        target = _dtype(dtype, input._data.dtype)
        return _leaf(fill(input._data.shape, target), requires_grad)
    return f


zeros_like = _like(np.zeros)
ones_like = _like(np.ones)
empty_like = zeros_like


def full_like(input: Tensor, fill_value, dtype=None, device=None,
              requires_grad: bool = False) -> Tensor:
    check_device(device)
    return _leaf(np.full(input._data.shape, fill_value, _dtype(dtype, input._data.dtype)),
                 requires_grad)

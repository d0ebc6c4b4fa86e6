"""``Tensor``: a numpy array plus what autograd needs to know about it.

Slots, not a ``__dict__``: a tensor is created for every op, so it must be
cheap.  ``_data`` is the ndarray, ``_rg`` whether it requires grad, ``grad_fn``
the Node that made it (None for leaves), ``_vc`` a one-element list used as a
version counter (bumped by every in-place op; nodes remember the version of
what they saved and backward refuses stale values), ``_hooks`` gradient hooks
of a leaf, ``_accum`` the leaf's AccumulateGrad node, ``_sref`` the shared ShapeRef of
``_data`` once recording looked it up (None until then; whatever rebinds ``_data`` to
another array resets it -- the ``data`` setter, ``resize_``, ``Module.to``, an optimizer's
write, ``out=``): a leaf used by every step (``y = y + c``) or an ``x + y`` result read by
the next op finds its reference in a slot (~0.01 us) instead of a ``{shape: ref}`` lookup
(~0.09 us: ``ndarray.shape`` builds a tuple, the dict hashes it).

This module imports none of the op modules.  The methods that run ops (the
operators, ``x.exp()``, ``x.detach()``...) are attached to the class once, by
:func:`dyngraph.methods.attach` when the package is imported.
"""
from __future__ import annotations

import warnings
import weakref

import numpy as np

from .device import CPU, NO_CUDA
from .dtypes import dtype as DType, from_legacy_name, to_dtype
from .errors import scalar_type_name
from .grad_mode import STATE
from .node import AccumulateGrad, RemovableHandle
from .printing import tensor_repr

__all__ = ["Tensor", "Size", "RemovableHandle", "make", "init_slots", "check_inplace", "rebase"]

_object_new = object.__new__

NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information.")


class Size(tuple):
    """A shape; prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        return int(np.prod(self, dtype=np.int64))


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    ``Tensor(2, 3)``, ``Tensor([1, 2])``, ``Tensor(t)``: PyTorch's legacy constructor (default
    dtype), attached by :func:`dyngraph.methods.attach` from :mod:`dyngraph.legacy`.  Use
    :func:`dyngraph.tensor` to infer the dtype from the data.
    """

    __slots__ = ("_data", "_rg", "_grad", "grad_fn", "_vc", "_hooks", "_accum", "_sref",
                 "__weakref__")

    # --- what a tensor is ---------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        return Size(self._data.shape) if dim is None else self._data.shape[dim]

    def dim(self) -> int:
        return self._data.ndim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    @property
    def dtype(self):
        return to_dtype(self._data.dtype)

    @property
    def np_dtype(self) -> np.dtype:
        """The numpy dtype (what the registry's rules read through ``F.dtype``)."""
        return self._data.dtype

    @property
    def device(self):
        """Always ``device(type='cpu')``: this engine computes with numpy."""
        return CPU

    is_cuda = False

    def cpu(self) -> "Tensor":
        return self

    def is_contiguous(self, memory_format=None) -> bool:
        return bool(self._data.flags.c_contiguous)

    def cuda(self, *args, **kwargs) -> "Tensor":
        raise AssertionError(NO_CUDA)

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        """``'torch.FloatTensor'``; given a dtype, a legacy type (``torch.LongTensor``) or its
        name, the tensor cast to it (itself when it has that type already)."""
        dtype = kwargs.pop("dtype", dtype)
        if dtype is None:
            return f"torch.{self.dtype.legacy}"
        if isinstance(dtype, str):
            dtype = from_legacy_name(dtype)
        elif isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), DType):
            dtype = dtype.dtype  # torch.LongTensor & co. (dyngraph.legacy.tensortype)
        elif not isinstance(dtype, DType):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self.to(dtype)

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    @property
    def data(self) -> "Tensor":
        """The same values as a tensor outside any graph (changes to it are not tracked)."""
        return make(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        self._data = value._data if isinstance(value, Tensor) else np.asarray(value)
        self._sref = None

    # --- autograd attributes ---------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if self.grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you "
                               "want to use a computed variable in a subgraph that doesn't require "
                               "differentiation use var_no_grad = var.detach().")
        if flag and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._rg = bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> "Tensor | None":
        """The accumulated gradient: leaves (and retained non-leaves) only, as PyTorch."""
        if self._grad is None and self.grad_fn is not None and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        self._grad = value

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's memory has seen (PyTorch's ``_version``)."""
        return self._vc[0]

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def _accumulator(self) -> AccumulateGrad:
        """This leaf's AccumulateGrad node (one per leaf, so graphs share it)."""
        acc = self._accum
        if acc is None:
            acc = self._accum = AccumulateGrad(self)
        return acc

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf after backward (leaves always keep theirs)."""
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None and self.grad_fn.retained is None:
            self.grad_fn.retained = weakref.ref(self)

    @property
    def retains_grad(self) -> bool:
        fn = self.grad_fn
        return fn is not None and fn.retained is not None and fn.retained() is self

    def register_hook(self, hook) -> "RemovableHandle":
        """``hook(grad)`` runs when this tensor's gradient is computed; may return a new one."""
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            hooks = self.grad_fn.hooks = self.grad_fn.hooks or []
        else:
            hooks = self._hooks = self._hooks or []
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def __deepcopy__(self, memo: dict) -> "Tensor":
        """A leaf with its own copy of the data (and of ``.grad``), as PyTorch's deepcopy."""
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment.  If you were attempting to "
                               "deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        new = memo[id(self)] = make(self._data.copy(), self._rg)
        if self._grad is not None:
            new._grad = make(self._grad._data.copy())
        return new

    def detach_(self) -> "Tensor":
        self.grad_fn, self._rg = None, False
        return self

    # --- conversions -------------------------------------------------------------

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self) -> np.ndarray:
        if self._rg:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self._data)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self._data)))

    def __format__(self, spec: str) -> str:
        return format(self.item(), spec) if self._data.ndim == 0 and spec else repr(self)

    def __repr__(self) -> str:
        return tensor_repr(self)

    __str__ = __repr__
    __hash__ = object.__hash__


def init_slots(t: Tensor, data: np.ndarray, rg: bool, grad_fn) -> None:
    t._data, t._rg, t.grad_fn = data, rg, grad_fn
    t._vc = [0]
    t._grad = t._hooks = t._accum = t._sref = None


def make(data: np.ndarray, rg: bool = False, grad_fn=None) -> Tensor:
    """A new Tensor around ``data`` (no copy, no checks: the engine's constructor).

    Same as ``init_slots`` written inline: one call less on every op.
    """
    t = _object_new(Tensor)
    t._data, t._rg, t.grad_fn = data, rg, grad_fn
    t._vc = [0]
    t._grad = t._hooks = t._accum = t._sref = None
    return t


# --- in-place updates ----------------------------------------------------------------


def check_inplace(t: Tensor) -> None:
    """PyTorch refuses in-place writes into a leaf that requires grad, directly or via a view."""
    if not STATE.enabled:
        return
    if t._rg and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if t.grad_fn is not None and len(t._vc) > 1:
        base = t._vc[1]()
        if base is not None and base._rg and base.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")


def rebase(t: Tensor, result: Tensor) -> Tensor:
    """Write ``result`` into ``t``'s memory; ``t`` takes over ``result``'s history."""
    if result._data.shape != t._data.shape:
        raise RuntimeError(f"output with shape {list(t._data.shape)} doesn't match the broadcast "
                           f"shape {list(result._data.shape)}")
    if not np.can_cast(result._data.dtype, t._data.dtype, "same_kind"):
        raise RuntimeError(f"result type {scalar_type_name(result._data.dtype)} can't be cast to the "
                           f"desired output type {scalar_type_name(t._data.dtype)}")
    np.copyto(t._data, result._data, casting="unsafe")
    t._vc[0] += 1
    if result._rg and t._data.dtype.kind in "fc":
        t._rg, t.grad_fn = True, result.grad_fn
    return t

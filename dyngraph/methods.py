"""Tensor's operators and math methods, attached to the class in one place.

:mod:`dyngraph.tensor` defines what a tensor *is* (its slots, attributes and
conversions) and imports none of the op modules, so nothing imports back into
it.  The methods that *run ops* live here, next to the modules they call, and
:func:`attach` copies them onto ``Tensor`` once, when the package is imported:

* ``x.backward()``, which runs :mod:`dyngraph.autograd.engine`;
* the operators (``x + y``, ``x[i]``, ``x += y``) below, which call
  :func:`dyngraph.engine.binary` directly -- the shortest path to numpy;
* every name in the ``METHODS`` lists of the op modules (``x.exp()`` *is*
  ``dyngraph.exp``: the function object itself, no wrapper), the in-place
  variants, the casts (``x.float()``) and ``x.T``.

Attaching copies function objects onto the class, so a method call costs what it
cost when the methods were written in the class body.

>>> import dyngraph as torch
>>> (torch.ones(2) + 1).exp().sum().item() > 14
True
"""
from __future__ import annotations

from common import REGISTRY

from . import (composite, creation, functions, legacy, linalg, pointwise, random, reductions,
               scatter_reduce, selection, shaping, statistics)
from . import decompositions, numeric
from . import complex as complex_
from .autograd.engine import backward as _backward
from .engine import base_counter, binary
from .grad_mode import STATE
from .memory_format import check_memory_format
from .tensor import Tensor, check_inplace, make, rebase

__all__ = ["attach"]

_ADD, _SUB, _MUL, _DIV = (REGISTRY[n] for n in ("Add", "Sub", "Mul", "RealDiv"))


class _EngineMethods:
    """The Tensor methods that run ops (a namespace: :func:`attach` copies them onto Tensor)."""

    def contiguous(self, memory_format=None) -> Tensor:
        """Itself when its memory is in row-major order already, else a row-major copy."""
        check_memory_format(memory_format, self.dim(), "contiguous")
        return self if self._data.flags.c_contiguous else functions.clone(self)

    def detach(self) -> Tensor:
        """Same data, no graph (shares memory and the version counter, as PyTorch)."""
        t = make(self._data)
        t._vc = base_counter(self)
        return t

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Gradients of this tensor w.r.t. the leaves, accumulated into their ``.grad``."""
        _backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # --- operators ---------------------------------------------------------------

    def __add__(self, other):
        return binary(_ADD, self, other)

    def __sub__(self, other):
        return binary(_SUB, self, other)

    def __mul__(self, other):
        return binary(_MUL, self, other)

    def __truediv__(self, other):
        return binary(_DIV, self, other)

    def __radd__(self, other):
        return binary(_ADD, self, other)

    def __rmul__(self, other):
        return binary(_MUL, self, other)

    def __rsub__(self, other):
        return functions.rsub(self, other)

    def __rtruediv__(self, other):
        return functions.mul(pointwise.reciprocal(self), other)  # PyTorch's ``2 / x``

    def __pow__(self, exponent):
        return functions.pow(self, exponent)

    def __rpow__(self, base):
        return functions.pow(base, self)

    def __matmul__(self, other):
        return functions.matmul(self, other)

    def __rmatmul__(self, other):
        return functions.matmul(other, self)

    def __neg__(self):
        return functions.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return functions.abs(self)

    def __lt__(self, other):
        return functions.lt(self, other)

    def __le__(self, other):
        return functions.le(self, other)

    def __gt__(self, other):
        return functions.gt(self, other)

    def __ge__(self, other):
        return functions.ge(self, other)

    def __eq__(self, other):
        return functions.eq(self, other)

    def __ne__(self, other):
        return functions.ne(self, other)

    def __and__(self, other):
        return functions.logical_and(self, other)

    def __or__(self, other):
        return functions.logical_or(self, other)

    def __invert__(self):
        return functions.logical_not(self)

    def __iadd__(self, other):
        return _inplace(self, _ADD, other)

    def __isub__(self, other):
        return _inplace(self, _SUB, other)

    def __imul__(self, other):
        return _inplace(self, _MUL, other)

    def __itruediv__(self, other):
        return _inplace(self, _DIV, other)

    def __getitem__(self, key):
        return functions.getitem(self, key)

    def __setitem__(self, key, value):
        selection.setitem(self, key, value)


def _inplace(t: Tensor, op, other) -> Tensor:
    """``t op= other``: compute the result, then write it into ``t``'s memory.

    When recording, the op reads a snapshot of ``t`` (its rule may need the old
    values, as ``mul_`` does), and ``t`` becomes the op's output.  Either way
    ``t``'s version counter is bumped, so nodes that saved ``t`` notice.
    ``jit.trace`` replaces this function while it records.
    """
    recording = STATE.enabled and (t._rg or getattr(other, "_rg", False))
    if not recording:
        b = other._data if isinstance(other, Tensor) else other
        try:
            op.impl(t._data, b, out=t._data, casting="same_kind")
        except (TypeError, ValueError):  # let rebase word the error as PyTorch does
            return rebase(t, binary(op, t, other))
        t._vc[0] += 1
        return t
    check_inplace(t)
    old = make(t._data.copy(), t._rg, t.grad_fn)
    return rebase(t, binary(op, old, other))


def attach(cls: type = Tensor) -> None:
    """Put the methods that run ops onto ``cls`` (the package ``__init__`` calls this once)."""
    for name, fn in vars(_EngineMethods).items():
        if callable(fn):
            fn.__qualname__ = f"{cls.__name__}.{name}"
            setattr(cls, name, fn)
    for module in (functions, pointwise, reductions, selection, random, creation, composite,
                   shaping, statistics, scatter_reduce):
        for name in module.METHODS:
            setattr(cls, name, getattr(module, name))
    for name, fn in pointwise.OPERATORS.items():
        setattr(cls, name, fn)
    for name in ("scatter", "scatter_add", "masked_fill", "index_put"):
        setattr(cls, name + "_", pointwise.inplace(getattr(selection, name)))
    for name in ("index_add", "index_copy", "index_fill", "addmm", "addcmul", "addcdiv", "lerp",
                 "baddbmm", "addbmm", "addmv", "addr", "nan_to_num", "logit"):
        setattr(cls, name + "_", pointwise.inplace(getattr(composite, name)))
    cls.erfinv_ = pointwise.inplace(pointwise.erfinv)
    cls.norm = linalg.tensor_norm
    cls.__rdiv__ = cls.__rtruediv__   # torch keeps Python 2's name too
    for name, cast in functions.CASTS.items():
        setattr(cls, name, cast)
    for name in decompositions.METHODS:   # A.det(), A.cholesky(), b.lu_solve(LU, pivots)
        setattr(cls, name, decompositions.TOP_LEVEL[name])
    cls.dist, cls.renorm = linalg.dist, linalg.renorm
    cls.T = property(functions.permute_all)
    cls.mT, cls.mH = property(composite.mT), property(composite.mH)
    cls.__init__, cls.new = legacy.tensor_init, legacy.tensor_new
    for name in numeric.METHODS:  # the rest of the elementwise math, and the bitwise operators
        setattr(cls, name, getattr(numeric, name))
    for name, fn in numeric.OPERATORS.items():
        setattr(cls, name, fn)
    for name in complex_.METHODS:                     # complex tensors (issue #28)
        setattr(cls, name, getattr(complex_, name))
    for name, prop in complex_.PROPERTIES.items():
        setattr(cls, name, prop)

"""Generic ops' inner loops compiled with numba: numpy's bits, without numpy's short inner loops.

Two ops a CNN's gradient runs over every activation, where numpy's loop structure, not
memory, bounds the time:

* :func:`leading_sum` -- ``np.add.reduce(x, (0, ..., ndim-2))`` of a C-contiguous float
  array whose last axis is kept (a bias's gradient) adds the rows of ``x`` viewed as
  ``(rows, C)`` one after the other into a zeroed row (numpy's iterator puts the kept,
  contiguous axis innermost: its inner loop is an ``add`` of two ``C``-long rows).  With a
  short row -- a CNN's 32 or 64 channels -- that is a call per row: 64x28x28x32 float32 takes
  ~1.05 ms, ~6 GB/s.  Here: the same additions in the same order (no ``fastmath``: no
  reassociation), one vectorised loop, ~0.24 ms (one core, best of 15).
* :func:`select_zero` -- ``where(cond, a, +0.0)`` (a ReLU's gradient): numpy's code
  multiplies ``a``'s bit pattern by the bool (a cast per element, then an integer
  multiply); here one loop copies the bit pattern or writes zero bits (+0.0; the same bits):
  64x28x28x32 float32 0.75 -> 0.50 ms (operands out of cache, as in a network).

Nothing here is called directly: :mod:`common.ops.reduce` and :mod:`common.ops.elementwise`
use this module for ops large enough to repay a call, once numba is loaded by kernels that
repay its import (:func:`common.fastpath.jit_module_if_loaded`: a CNN's convolutions load it
first); numpy runs before that and where numba is missing.  ``cache=True`` keeps
the machine code between processes.
"""
from __future__ import annotations

from numba import njit

__all__ = ["leading_sum", "select_zero"]


@njit(cache=True, nogil=True)
def leading_sum(x, out):    # pragma: no cover (numba)
    """``out`` ``(C,)`` = the sum of the rows of ``x`` ``(rows, C)``, from zero, in row order."""
    out[:] = 0
    for r in range(x.shape[0]):
        for c in range(x.shape[1]):
            out[c] += x[r, c]


@njit(cache=True, nogil=True)
def select_zero(cond, keep_when, a, out):    # pragma: no cover (numba)
    """``out[i]`` = ``a[i]`` where ``cond[i] == keep_when``, else 0 -- on flat arrays of one
    length, ``a`` and ``out`` a float array's bit patterns (unsigned integers: a value is
    copied bit for bit, and all-zero bits are +0.0)."""
    zero = a.dtype.type(0)          # (a literal 0 would unify with uint64 as float64)
    for i in range(a.shape[0]):
        out[i] = a[i] if cond[i] == keep_when else zero

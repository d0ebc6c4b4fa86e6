"""The products of :mod:`common.blas` on MKL: ``cblas_?gemm`` called from numba-compiled code.

Why numba and not ctypes alone: a ctypes call of ``cblas_sgemm`` (14 converted arguments) and
the three ``a.ctypes.data`` it needs cost ~3-5 us per product in Python, more than a whole
``[32, 128] @ [128, 512]``'s gain; numba reads the shapes, strides and data pointers while it
unboxes the arrays, and the whole call (allocation of the result included) costs about what
numpy's own ``matmul`` call costs (4x4 float32: 0.72 us against numpy's 0.65 us, measured).

The library: :func:`common.blas.mkl_library` loads ``libmkl_rt`` with ctypes, and this
module gives LLVM the two functions' addresses under names of its own
(``llvmlite.binding.add_symbol``), which the compiled code -- cached on disk, ``cache=True``
-- refers to by name: whichever library defines ``cblas_sgemm`` first in the process (see
:mod:`common.blas` on PyTorch), the products call the one ``libmkl_rt`` loaded.

Layout.  Each operand is a 2-D view; a row-major one is passed as is, a column-major one (a
transposed view, ``w.T``) as the row-major matrix it is the transpose of, with ``CblasTrans``:
no copy.  Another layout (a strided slice of both axes) is left to numpy.  A column-major
result is computed as its transpose, ``c^T = b^T a^T``.  Nothing is allocated here: the
caller allocates the result with numpy, so ``tracemalloc`` (the bench's peak memory) sees it
as it sees numpy's own products (numba's allocator is invisible to it).  Nothing here is called directly; it is loaded by
:func:`common.blas.gemm` through :func:`common.fastpath.jit_module`.
"""
from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
import numpy as np
from numba import njit, types

from .blas import mkl_library

__all__ = ["gemm", "gemm_stack", "SYMBOLS"]

SYMBOLS = {"sgemm": "common_blas_mkl_cblas_sgemm", "dgemm": "common_blas_mkl_cblas_dgemm"}
"""MKL's ``cblas_?gemm`` as the compiled code names them (names no library exports)."""

_lib = mkl_library()
if _lib is None:                          # (common.blas imports this only when MKL loaded)
    raise ImportError("common.blas_jit needs MKL's libmkl_rt (the `mkl` wheel)")
for _name, _symbol in SYMBOLS.items():
    llvm.add_symbol(_symbol, ctypes.cast(getattr(_lib, f"cblas_{_name}"), ctypes.c_void_p).value)

_I = types.intc


def _signature(real):
    return types.void(_I, _I, _I, _I, _I, _I, real, types.voidptr, _I, types.voidptr, _I, real,
                      types.voidptr, _I)


_sgemm = types.ExternalFunction(SYMBOLS["sgemm"], _signature(types.float32))
_dgemm = types.ExternalFunction(SYMBOLS["dgemm"], _signature(types.float64))

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_INT_MAX = 2 ** 31 - 1


@njit(cache=True, nogil=True, inline="always")
def _operand(x):    # pragma: no cover (numba)
    """``(trans, ld)`` of the 2-D view ``x`` as a row-major BLAS operand, or ``(0, 0)``: not
    one (copy it).  A dimension of length 1 may have any stride (numpy's relaxed strides)."""
    rows, cols = x.shape
    s0, s1 = x.strides
    size = x.itemsize
    if (cols == 1 or s1 == size) and s0 > 0 and s0 % size == 0:
        ld = s0 // size if rows > 1 else max(cols, 1)
        if ld >= max(cols, 1) and ld <= _INT_MAX:
            return _NO_TRANS, ld
    if (rows == 1 or s0 == size) and s1 > 0 and s1 % size == 0:
        ld = s1 // size if cols > 1 else max(rows, 1)
        if ld >= max(rows, 1) and ld <= _INT_MAX:
            return _TRANS, ld
    if rows == 1 and cols == 1:
        return _NO_TRANS, 1
    return 0, 0


@njit(cache=True, nogil=True, inline="always")
def _into(a, b, c, beta):    # pragma: no cover (numba)
    """``c = a @ b + beta * c``, all three of one float dtype; False (nothing done) when the
    shapes do not match, or are past MKL's 32-bit integers, or an operand is neither row- nor
    column-major (the caller runs numpy's product, which raises numpy's error or copes)."""
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k or c.shape[0] != m or c.shape[1] != n:
        return False
    if m > _INT_MAX or n > _INT_MAX or k > _INT_MAX:
        return False
    tc, ldc = _operand(c)
    if tc == 0:
        return False
    if m == 0 or n == 0:
        return True
    if k == 0:                        # BLAS: c = beta * c (beta 0: zeros, whatever c held)
        if beta == 0:
            c[...] = 0
        else:
            c *= beta
        return True
    ta, lda = _operand(a)
    tb, ldb = _operand(b)
    if ta == 0 or tb == 0:
        return False
    pa, pb = a.ctypes.data, b.ctypes.data
    if tc == _TRANS:                  # column-major c: c^T = b^T @ a^T, row-major
        m, n, ta, tb, lda, ldb, pa, pb = n, m, _flip(tb), _flip(ta), ldb, lda, pb, pa
    if c.itemsize == 4:               # float32 (the callers pass float32 or float64 only)
        _sgemm(_ROW_MAJOR, ta, tb, m, n, k, np.float32(1.0), pa, lda, pb, ldb,
               np.float32(beta), c.ctypes.data, ldc)
    else:
        _dgemm(_ROW_MAJOR, ta, tb, m, n, k, 1.0, pa, lda, pb, ldb, np.float64(beta),
               c.ctypes.data, ldc)
    return True


@njit(cache=True, nogil=True, inline="always")
def _flip(trans):    # pragma: no cover (numba)
    return _TRANS if trans == _NO_TRANS else _NO_TRANS


def _kernel_signatures(ndim: int) -> list:
    """One signature per float dtype, every array of any layout (``A``; the operands read-only
    or not, the result writable): two machine-code versions in all, compiled once (``cache=True``) -- not one per layout combination met
    (C, F or A for each of three arrays), each compiled on first use (~1 s)."""
    return [types.boolean(types.Array(t, ndim, "A", readonly=True),
                          types.Array(t, ndim, "A", readonly=True), types.Array(t, ndim, "A"),
                          types.float64)
            for t in (types.float32, types.float64)]


@njit(_kernel_signatures(2), cache=True, nogil=True)
def gemm(a, b, c, beta):    # pragma: no cover (numba)
    """``c = a @ b + beta * c`` in place (matrices of one float dtype); False: use numpy."""
    return _into(a, b, c, beta)


@njit(_kernel_signatures(3), cache=True, nogil=True)
def gemm_stack(a, b, c, beta):    # pragma: no cover (numba)
    """``c = a @ b + beta * c`` in place, stacks of matrices (3-D, the same number); False
    (nothing done): use numpy."""
    if a.shape[0] != b.shape[0] or a.shape[0] != c.shape[0] or a.shape[1] != c.shape[1] or \
            b.shape[2] != c.shape[2] or a.shape[2] != b.shape[1]:
        return False
    for i in range(a.shape[0]):     # (what fails the first fails them all: nothing done)
        if not _into(a[i], b[i], c[i], beta):
            return False
    return True

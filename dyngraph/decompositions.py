"""``torch.linalg``'s inverses, solves and factorizations, and the matrix functions of ``torch``.

Each is one registry op (``common/ops/decompositions.py``: LAPACK forward, PyTorch's gradient)
or a composition of such ops, called with PyTorch's arguments and refusing with PyTorch's
words.  PyTorch's conventions kept here:

- ``solve(A, b)`` takes ``b`` as a vector when it is 1-D, or has exactly ``A``'s shape
  without the last dim; ``left=False`` solves ``X A = B``.
- ``cholesky``/``eigvalsh`` read one triangle of ``A`` (``UPLO``); for the symmetric matrices
  they are meant for, the op's symmetric part is ``A`` itself and the gradient is PyTorch's
  symmetric one; a non-symmetric ``A`` is first completed from the triangle read.
- A singular matrix raises ``torch.linalg.LinAlgError`` (a ``RuntimeError``) with PyTorch's
  sentence; the ``*_ex`` forms return ``info`` instead (LAPACK's: 0, or the failing position).

``linalg.eigh`` is not offered: its eigenvectors' signs are LAPACK's free choice, and the
library PyTorch ships (MKL) chooses differently from numpy's OpenBLAS, so values and
gradients would disagree with PyTorch (``eigvalsh`` and everything built on ``eigh`` that does
not depend on the signs -- ``pinv(hermitian=True)`` -- agree).

>>> import dyngraph as torch
>>> torch.linalg.det(torch.tensor([[2.0, 1.0], [1.0, 3.0]])).item()
5.0
"""
from __future__ import annotations

import builtins
import math
from collections import namedtuple

import numpy as np

from common import REGISTRY
from common.ops.decompositions import _first_zero_pivot, permutation_matrix, scipy_linalg

from .dtypes import lookup
from .engine import apply
from .errors import _LinAlgError
from .functions import (_t, abs as _abs, add, cat, div, expand, log, matmul, mul, reshape, sub,
                        sum as _sum)
from .reductions import cumprod
from .selection import index_select, where
from .tensor import Tensor, make

__all__ = ["inv", "inv_ex", "det", "slogdet", "solve", "solve_ex", "cholesky", "cholesky_ex",
           "qr", "eigvalsh", "svd", "svdvals", "pinv", "lstsq", "matrix_power", "matrix_rank",
           "multi_dot", "solve_triangular", "vecdot", "vander", "tensorinv", "tensorsolve",
           "cross", "LinAlgError"]

_R = REGISTRY


LinAlgError = _LinAlgError


def _result(name: str, fields: str):
    """A ``torch.return_types.<name>`` named tuple (PyTorch's repr)."""
    base = namedtuple(name, fields)

    def __repr__(self) -> str:
        inner = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{inner})"
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


_SLOGDET = _result("linalg_slogdet", "sign logabsdet")
_INV_EX = _result("linalg_inv_ex", "inverse info")
_SOLVE_EX = _result("linalg_solve_ex", "result info")
_CHOLESKY_EX = _result("linalg_cholesky_ex", "L info")
_QR = _result("linalg_qr", "Q R")
_SVD = _result("linalg_svd", "U S Vh")
_TORCH_SVD = _result("svd", "U S V")
_LSTSQ = _result("linalg_lstsq", "solution residuals rank singular_values")
_TRI = _result("triangular_solve", "solution cloned_coefficient")


# --- checks, in PyTorch's words -------------------------------------------------------------

def _floating(A: Tensor, fname: str) -> None:
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype.scalar_name}")


def _matrices(A, fname: str, square: bool = True) -> Tensor:
    """``A`` as a tensor, checked to be a (batch of) floating (square) matrices."""
    A = _t(A)
    if A.dim() < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    m, n = A._data.shape[-2:]
    if square and m != n:
        raise RuntimeError(f"{fname}: A must be batches of square matrices, but they are {m} by "
                           f"{n} matrices")
    _floating(A, fname)
    return A


def _mT(x):
    return apply(_R["SwapLastAxes"], (x,))


def _info(A: Tensor, failed) -> Tensor:
    """LAPACK's ``info`` per matrix of ``A`` (int32, batch shape): ``failed(matrix)``."""
    mats = A._data.reshape((-1,) + A._data.shape[-2:])
    return make(np.array([failed(a) for a in mats], np.int32).reshape(A._data.shape[:-2]))


def _from_triangle(A: Tensor, lower: bool) -> Tensor:
    """``A`` when symmetric; else ``A`` plus the constant that makes it the symmetric matrix
    holding its lower (upper) triangle -- the only part PyTorch's kernels read.  The gradient
    passes to ``A`` as it is: PyTorch's (symmetric) gradient lands on the whole of ``A``."""
    a = A._data
    at = np.swapaxes(a, -1, -2)
    if np.array_equal(a, at, equal_nan=True):
        return A
    tri = np.tril(a) if lower else np.triu(a)
    full = tri + np.swapaxes(tri, -1, -2) - a * np.eye(a.shape[-1], dtype=a.dtype)
    return add(A, make(full - a))


# --- inverse, determinants ------------------------------------------------------------------

def inv(A, *, out=None):
    """The inverse of each square matrix of ``A``."""
    return apply(_R["MatrixInverse"], (_matrices(A, "linalg.inv"),))


def inv_ex(A, *, check_errors: bool = False, out=None):
    """``(inverse, info)``: ``info`` is 0, or the position of LU's first zero pivot (the
    inverse of that matrix is then NaN)."""
    A = _matrices(A, "linalg.inv_ex")
    try:
        return _INV_EX(inv(A), make(np.zeros(A._data.shape[:-2], np.int32)))
    except _LinAlgError:
        if check_errors:
            raise
    return _INV_EX(make(np.full(A._data.shape, np.nan, A._data.dtype)),
                   _info(A, _first_zero_pivot))


inverse = inv


def det(A, *, out=None):
    """The determinant of each square matrix of ``A``."""
    return apply(_R["MatrixDeterminant"], (_matrices(A, "linalg.det"),))


def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` of the determinant of each square matrix of ``A``."""
    return _SLOGDET(*apply(_R["LogMatrixDeterminant"], (_matrices(A, "linalg.slogdet"),)))


def logdet(input):
    """``log(det(A))``: NaN for a negative determinant, ``-inf`` for zero."""
    sign, logabs = slogdet(_matrices(input, "linalg.slogdet"))
    return add(log(sign), logabs)


# --- solves ---------------------------------------------------------------------------------

def _vector_case(A: Tensor, B: Tensor) -> bool:
    """PyTorch's rule: ``B`` is a (batch of) vector(s) when 1-D, or shaped as ``A`` without
    its last dim."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and B._data.shape == A._data.shape[:-1])


def solve(A, B, *, left: bool = True, out=None):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``)."""
    A, B = _matrices(A, "linalg.solve"), _t(B)
    vector = _vector_case(A, B)
    rhs = apply(_R["ExpandDims"], (B,), {"axis": -1}) if vector else B
    n = A._data.shape[-1]
    k = -1 if rhs.dim() < 2 else rhs._data.shape[-2] if left else rhs._data.shape[-1]
    if n != k or not left and vector:
        shape = "x".join(map(str, rhs._data.shape[-2:])) if rhs.dim() >= 2 else "?"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {shape})")
    if left:
        X = apply(_R["MatrixSolve"], (A, rhs))
    else:
        X = _mT(apply(_R["MatrixSolve"], (A, _mT(rhs)), {"adjoint": True}))
    return apply(_R["Squeeze"], (X,), {"axis": (-1,)}) if vector else X


def solve_ex(A, B, *, left: bool = True, check_errors: bool = False, out=None):
    """``(result, info)`` of :func:`solve`."""
    A = _matrices(A, "linalg.solve_ex")
    try:
        return _SOLVE_EX(solve(A, B, left=left), make(np.zeros(A._data.shape[:-2], np.int32)))
    except _LinAlgError:
        if check_errors:
            raise
    X = solve(make(np.eye(A._data.shape[-1], dtype=A._data.dtype)), B, left=left)
    return _SOLVE_EX(mul(X, math.nan), _info(A, _first_zero_pivot))


def solve_triangular(A, B, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out=None):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) for triangular ``A``: only its
    upper (lower) triangle is read."""
    A, B = _matrices(A, "linalg.solve_triangular"), _t(B)
    attrs = {"lower": not upper, "unit_diagonal": unitriangular}
    if left:
        return apply(_R["MatrixTriangularSolve"], (A, B), attrs)
    return _mT(apply(_R["MatrixTriangularSolve"], (A, _mT(B)), {**attrs, "adjoint": True}))


def triangular_solve(b, A, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False):
    """``(X, A)`` with ``op(A) X = b`` (``op``: transposed when ``transpose``), the legacy
    form of :func:`solve_triangular`."""
    A = _matrices(A, "triangular_solve")
    X = apply(_R["MatrixTriangularSolve"], (A, _t(b)),
              {"lower": not upper, "adjoint": transpose, "unit_diagonal": unitriangular})
    return _TRI(X, A.clone())


# --- Cholesky -------------------------------------------------------------------------------

def cholesky(A, *, upper: bool = False, out=None):
    """Lower ``L`` with ``A = L L^T`` (upper ``U = L^T`` when ``upper``)."""
    A = _matrices(A, "linalg.cholesky")
    L = apply(_R["Cholesky"], (_from_triangle(A, not upper),))
    return _mT(L) if upper else L


def cholesky_ex(A, *, upper: bool = False, check_errors: bool = False, out=None):
    """``(L, info)``: ``info`` is 0, or the order of the first leading minor that is not
    positive-definite (that matrix's factor is then NaN)."""
    A = _matrices(A, "linalg.cholesky_ex")
    try:
        return _CHOLESKY_EX(cholesky(A, upper=upper),
                            make(np.zeros(A._data.shape[:-2], np.int32)))
    except _LinAlgError:
        if check_errors:
            raise
    return _CHOLESKY_EX(make(np.full(A._data.shape, np.nan, A._data.dtype)),
                        _info(A, _leading_minor))


def _leading_minor(a: np.ndarray) -> int:
    for k in range(1, a.shape[-1] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def cholesky_solve(B, L, upper: bool = False, *, out=None):
    """``X`` with ``(L L^T) X = B`` given the Cholesky factor ``L`` (``U^T U`` when
    ``upper``); PyTorch's gradient, which treats the factor as a full matrix."""
    L = _matrices(L, "cholesky_solve")
    return apply(_R["CholeskySolve"], (_t(B), L), {"upper": upper})


def cholesky_inverse(L, upper: bool = False, *, out=None):
    """``(L L^T)^-1`` (``(U^T U)^-1`` when ``upper``) from the Cholesky factor."""
    L = _matrices(L, "cholesky_inverse")
    eye = make(np.broadcast_to(np.eye(L._data.shape[-1], dtype=L._data.dtype),
                               L._data.shape).copy())
    return cholesky_solve(eye, L, upper)


# --- QR, eigenvalues, singular values -------------------------------------------------------

def qr(A, mode: str = "reduced", *, out=None):
    """``(Q, R)`` with ``A = Q R``; ``mode``: ``'reduced'``, ``'complete'``, or ``'r'`` (Q
    empty).  (The legacy ``torch.qr(A, some=True)`` is the same call.)"""
    if isinstance(mode, builtins.bool):
        mode = "reduced" if mode else "complete"
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    A = _matrices(A, "linalg.qr", square=False)
    Q, R = apply(_R["Qr"], (A,), {"full_matrices": mode == "complete"})
    if mode == "r":
        return _QR(make(np.zeros((0,), A._data.dtype)), R)
    return _QR(Q, R)


def eigvalsh(A, UPLO: str = "L", *, out=None):
    """The eigenvalues, ascending, of each symmetric matrix of ``A`` (its ``UPLO`` triangle)."""
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    A = _matrices(A, "linalg.eigvalsh")
    return apply(_R["SelfAdjointEigV2"], (_from_triangle(A, UPLO == "L"),))[0]


def _eigh(A: Tensor):
    return apply(_R["SelfAdjointEigV2"], (_from_triangle(A, True),))


def svd(A, full_matrices: bool = True, *, driver=None, out=None, some=None,
        compute_uv=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh`` (the legacy ``torch.svd(A, some=True)``:
    ``(U, S, V)``, reduced unless ``some=False``)."""
    A = _matrices(A, "linalg.svd", square=False)
    s, u, v = apply(_R["Svd"], (A,), {"full_matrices": full_matrices})
    return _SVD(u, s, _mT(v))


def _torch_svd(input, some: bool = True, compute_uv: bool = True):
    A = _matrices(input, "svd", square=False)
    s, u, v = apply(_R["Svd"], (A,), {"full_matrices": not some})
    return _TORCH_SVD(u, s, v)


def svdvals(A, *, driver=None, out=None):
    """The singular values of each matrix of ``A``, descending."""
    A = _matrices(A, "linalg.svdvals", square=False)
    return apply(_R["Svd"], (A,), {"compute_uv": False})[0]


def _number(x):
    """A tolerance as a Python float (a 0-d tensor's value; PyTorch takes those too)."""
    return None if x is None else builtins.float(x.item() if isinstance(x, Tensor) else x)


def pinv(A, *, atol=None, rtol=None, hermitian: bool = False, out=None):
    """The pseudo-inverse: ``V diag(1/s) U^T`` over the singular values above
    ``max(atol, rtol * max(s))`` (``hermitian``: from ``A``'s lower triangle, by ``eigh``)."""
    A = _matrices(A, "linalg.pinv", square=hermitian)
    return apply(_R["Pinv"], (A,), {"rtol": _number(rtol), "atol": _number(atol),
                                    "hermitian": hermitian})


def pinverse(input, rcond: float = 1e-15):
    return pinv(input, rtol=rcond)


def lstsq(A, B, rcond=None, *, driver=None):
    """``(solution, residuals, rank, singular_values)`` of ``min ||A X - B||``: the solution
    is ``pinv(A) B`` (the minimum-norm one), as PyTorch's gradient takes it."""
    A, B = _matrices(A, "torch.linalg.lstsq", square=False), _t(B)
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of "
                           f"(gels, gelsy, gelsd, gelss)")
    m, n = A._data.shape[-2:]
    vector = B.dim() == A.dim() - 1
    rhs = apply(_R["ExpandDims"], (B,), {"axis": -1}) if vector else B
    dtype = A._data.dtype
    eps = float(np.finfo(dtype).eps)
    X = matmul(pinv(A, rtol=rcond if rcond is not None else eps * builtins.max(m, n)), rhs)
    sv = np.linalg.svd(A._data, compute_uv=False) if A._data.size else \
        np.zeros(A._data.shape[:-2] + (0,), dtype)
    tol = (rcond if rcond is not None else eps * builtins.max(m, n))
    ranks = (sv > tol * sv[..., :1]).sum(-1) if sv.shape[-1] else np.zeros(sv.shape[:-1], int)
    rank = make(ranks.astype(np.int64)) if driver != "gels" else make(np.zeros((0,), np.int64))
    full = driver != "gelsy" and m > n and bool(np.all(ranks == n))
    if full:
        r = sub(matmul(A, X), rhs)
        residuals = _sum(mul(r, r), -2)
    else:       # empty, but on the graph when the solution is (as PyTorch's)
        residuals = reshape(X, (-1,))[:0]
    values = make(sv) if driver in ("gelsd", "gelss") else make(np.zeros((0,), dtype))
    if vector:
        X = apply(_R["Squeeze"], (X,), {"axis": (-1,)})
    return _LSTSQ(X, residuals, rank, values)


def matrix_rank(A, *, atol=None, rtol=None, hermitian: bool = False, out=None):
    """The number of singular values above the cutoff (int64, no gradient)."""
    A = _matrices(A, "torch.linalg.matrix_rank", square=False)
    m, n = A._data.shape[-2:]
    s = (svdvals(A.detach()) if not hermitian else _abs(_eigh(A.detach())[0]))._data
    if s.shape[-1] == 0:
        return make(np.zeros(A._data.shape[:-2], np.int64))
    atol, rtol = _number(atol), _number(rtol)
    if rtol is None:
        rtol = 0.0 if atol is not None else float(np.finfo(s.dtype).eps) * builtins.max(m, n)
    cutoff = np.maximum(rtol * s.max(-1, keepdims=True), atol or 0.0)
    return make((s > cutoff).sum(-1).astype(np.int64))


# --- products -------------------------------------------------------------------------------

def matrix_power(A, n: int, *, out=None):
    """``A`` multiplied by itself ``n`` times (``inv(A)`` when ``n < 0``; ``I`` when 0), by
    PyTorch's binary decomposition of ``n``."""
    A = _matrices(A, "linalg.matrix_power")
    if n == 0:   # the identity, with a zero gradient (PyTorch copies I into a clone of A)
        eye = np.broadcast_to(np.eye(A._data.shape[-1], dtype=A._data.dtype), A._data.shape)
        return where(make(np.ones(A._data.shape, bool)), make(eye.copy()), A)
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    if n in (2, 3):
        return matmul(A, A) if n == 2 else matmul(matmul(A, A), A)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def multi_dot(tensors, *, out=None):
    """The product of the matrices in ``tensors`` (the first may be a row vector, the last a
    column vector)."""
    ts = [_t(t) for t in tensors]
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first_vec, last_vec = ts[0].dim() == 1, ts[-1].dim() == 1
    if first_vec:
        ts[0] = apply(_R["ExpandDims"], (ts[0],), {"axis": 0})
    if last_vec:
        ts[-1] = apply(_R["ExpandDims"], (ts[-1],), {"axis": -1})
    for i, t in enumerate(ts):
        if t.dim() != 2:
            which = "first" if i == 0 else "last" if i == len(ts) - 1 else None
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got "
                               f"{t.dim()}D" if which else
                               f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    out_ = ts[0]
    for t in ts[1:]:
        out_ = matmul(out_, t)
    if first_vec:
        out_ = apply(_R["Squeeze"], (out_,), {"axis": (0,)})
    if last_vec:
        out_ = apply(_R["Squeeze"], (out_,), {"axis": (-1,)})
    return out_


def vecdot(x, y, *, dim: int = -1, out=None):
    """``sum(x * y, dim)`` (broadcasting)."""
    return _sum(mul(_t(x), _t(y)), dim)


def inner(input, other, *, out=None):
    """Products summed over the last dim of both (a scalar operand multiplies)."""
    input, other = _t(input), _t(other)
    if not isinstance(input, Tensor) or not isinstance(other, Tensor) or input.dim() == 0 \
            or other.dim() == 0:
        return mul(input, other)
    lead = input._data.shape[:-1]
    trail = other._data.shape[:-1]
    a = reshape(input, (-1, input._data.shape[-1]))
    b = reshape(other, (-1, other._data.shape[-1]))
    return reshape(matmul(a, _mT(b)), lead + trail)


def kron(input, other, *, out=None):
    """The Kronecker product: every entry of ``input`` times the whole of ``other``."""
    a, b = _t(input), _t(other)
    nd = builtins.max(a.dim(), b.dim())
    a = reshape(a, (1,) * (nd - a.dim()) + a._data.shape)
    b = reshape(b, (1,) * (nd - b.dim()) + b._data.shape)
    a_exp = reshape(a, tuple(s for d in a._data.shape for s in (d, 1)))
    b_exp = reshape(b, tuple(s for d in b._data.shape for s in (1, d)))
    shape = tuple(x * y for x, y in zip(a._data.shape, b._data.shape))
    return reshape(mul(a_exp, b_exp), shape)


def vander(x, N=None):
    """Columns ``x**0, x**1, ..., x**(N-1)`` (a cumulative product, as PyTorch)."""
    x = _t(x)
    if x.dim() == 0:          # a number: one row
        x = reshape(x, (1,))
    n = x._data.shape[-1] if N is None else N
    if n <= 1:
        if n < 0:
            raise RuntimeError("N must be non-negative.")
        return make(np.ones(x._data.shape + (n,), x._data.dtype)) if n == 0 or not \
            x.requires_grad else add(mul(apply(_R["ExpandDims"], (x,), {"axis": -1}), 0.0), 1.0)
    ones = make(np.ones(x._data.shape + (1,), x._data.dtype))
    cols = expand(apply(_R["ExpandDims"], (x,), {"axis": -1}), *(x._data.shape + (n - 1,)))
    return cumprod(cat([ones, cols], -1), -1)


def cross(input, other, dim=None, *, out=None):
    """The 3-vector cross product along ``dim`` (``linalg.cross``: the last dim; the legacy
    ``torch.cross``: the first dim of size 3 when ``dim`` is None)."""
    a, b = _t(input), _t(other)
    if dim is None:
        dim = next((d for d, s in enumerate(np.broadcast_shapes(a._data.shape, b._data.shape))
                    if s == 3), -1)
    if a._data.shape[dim] != 3 or b._data.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a._data.shape[dim]} and {b._data.shape[dim]}")
    i1, i2 = make(np.array([1, 2, 0])), make(np.array([2, 0, 1]))
    return sub(mul(index_select(a, dim, i1), index_select(b, dim, i2)),
               mul(index_select(a, dim, i2), index_select(b, dim, i1)))


def _linalg_cross(input, other, *, dim: int = -1, out=None):
    return cross(input, other, dim)


def tensorinv(A, ind: int = 2, *, out=None):
    """The inverse of ``A`` as a linear map from its first ``ind`` dims to the rest."""
    A = _t(A)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape, in_shape = A._data.shape[:ind], A._data.shape[ind:]
    rows = int(np.prod(out_shape))
    if rows != int(np.prod(in_shape)):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {int(np.prod(in_shape))} != {rows}")
    return reshape(inv(reshape(A, (rows, rows))), in_shape + out_shape)


def tensorsolve(A, B, dims=None, *, out=None):
    """``X`` with ``tensordot(A, X, X.ndim) = B``."""
    A, B = _t(A), _t(B)
    if dims is not None:
        nd = A.dim()
        moved = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in moved]
        A = apply(_R["Transpose"], (A,), {"perm": tuple(rest + moved)})
    rows = int(np.prod(B._data.shape))
    x_shape = A._data.shape[B.dim():]
    X = solve(reshape(A, (rows, -1)), reshape(B, (rows,)))
    return reshape(X, x_shape)


def _torch_cholesky(input, upper: bool = False, *, out=None):
    """The legacy ``torch.cholesky(A, upper=False)``."""
    return cholesky(input, upper=upper)


def _torch_matrix_power(input, n: int):
    return matrix_power(input, n)


#: The ``torch.*`` functions (and Tensor methods) of this module, by PyTorch's name.
TOP_LEVEL = {"det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse,
             "pinverse": pinverse, "matrix_power": _torch_matrix_power,
             "cholesky": _torch_cholesky, "triangular_solve": triangular_solve,
             "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse,
             "qr": qr, "svd": _torch_svd, "kron": kron, "inner": inner,
             "cross": cross}


# --- LU -------------------------------------------------------------------------------------

_LU_FACTOR = _result("linalg_lu_factor", "LU pivots")
_LU_FACTOR_EX = _result("linalg_lu_factor_ex", "LU pivots info")
_LU = _result("linalg_lu", "P L U")
_LU_UNPACK = _result("lu_unpack", "P L U")


def _zero_pivot_info(LU: Tensor) -> np.ndarray:
    """LAPACK's ``info`` of a packed LU: the 1-based position of U's first zero pivot, or 0."""
    d = np.diagonal(LU._data, axis1=-2, axis2=-1) == 0
    return np.where(d.any(-1), d.argmax(-1) + 1, 0).astype(np.int32)


def _no_pivoting(pivot: bool, fname: str) -> None:
    if not pivot:
        raise RuntimeError(f"{fname}: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A, *, pivot: bool = True, check_errors: bool = False, out=None):
    """``(LU, pivots, info)``: L and U packed in one matrix, LAPACK's 1-based int32 pivots,
    and ``info`` (the first zero pivot of U, 1-based; 0 when there is none)."""
    A = _matrices(A, "linalg.lu_factor_ex", square=False)
    _no_pivoting(pivot, "linalg.lu_factor_ex")
    LU, pivots, _ = apply(_R["LuFactor"], (A,))
    info = _zero_pivot_info(LU)
    if check_errors and info.any():
        i = int(np.flatnonzero(info.reshape(-1))[0])
        raise _LinAlgError(f"torch.linalg.lu_factor_ex: {_batch(A, i)}U[{info.reshape(-1)[i]},"
                           f"{info.reshape(-1)[i]}] is zero")
    return _LU_FACTOR_EX(LU, pivots, make(info))


def _batch(A: Tensor, i: int) -> str:
    return f"(Batch element {i}): " if A.dim() > 2 else ""


def lu_factor(A, *, pivot: bool = True, out=None):
    """``(LU, pivots)`` of :func:`lu_factor_ex`; a zero pivot of U is refused, as PyTorch
    refuses it (``lu_solve`` would divide by it)."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    if info._data.any():
        i = int(np.flatnonzero(info._data.reshape(-1))[0])
        k = int(info._data.reshape(-1)[i])
        raise RuntimeError(f"torch.linalg.lu_factor: {_batch(LU, i)}U[{k},{k}] is zero and "
                           f"using it on lu_solve would result in a division by zero. If you "
                           f"still want to perform the factorization, consider calling "
                           f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return _LU_FACTOR(LU, pivots)


def _unpacked(LU: Tensor):
    """``(L, U)`` of a packed ``LU``: unit-lower ``m x k`` and upper ``k x n``."""
    m, n = LU._data.shape[-2:]
    k = builtins.min(m, n)
    band = _R["MatrixBandPart"]
    lower = sub(apply(band, (LU,), {"num_lower": -1, "num_upper": 0}),
                apply(band, (LU,), {"num_lower": 0, "num_upper": 0}))
    L = add(lower[..., :, :k], make(np.eye(m, k, dtype=LU._data.dtype)))
    U = apply(band, (LU,), {"num_lower": 0, "num_upper": -1})[..., :k, :]
    return L, U


def lu(A, *, pivot: bool = True, out=None):
    """``(P, L, U)`` with ``A = P L U`` (P a permutation, L unit lower, U upper)."""
    A = _matrices(A, "linalg.lu", square=False)
    _no_pivoting(pivot, "linalg.lu")
    LU, _, P = apply(_R["LuFactor"], (A,))
    return _LU(P.detach(), *_unpacked(LU))


def lu_unpack(LU_data, LU_pivots, unpack_data: bool = True, unpack_pivots: bool = True, *,
              out=None):
    """``(P, L, U)`` from the packed ``LU`` and ``pivots`` of :func:`lu_factor` (empty
    tensors for the parts not asked for)."""
    LU = _matrices(LU_data, "lu_unpack", square=False)
    empty = make(np.zeros((0,), LU._data.dtype))
    P = make(permutation_matrix(np.asarray(_t(LU_pivots)._data), LU._data.shape[-2],
                                LU._data.dtype)) if unpack_pivots else empty
    L, U = _unpacked(LU) if unpack_data else (empty, empty)
    return _LU_UNPACK(P, L, U)


def lu_solve(LU, pivots, B, *, left: bool = True, adjoint: bool = False, out=None):
    """``X`` with ``A X = B`` (``A^T X = B`` when ``adjoint``; ``X A = B`` when not ``left``)
    for ``A = P L U`` given by :func:`lu_factor`: two triangular solves and the permutation."""
    LU, B = _matrices(LU, "linalg.lu_solve"), _t(B)
    if not left:
        return _mT(lu_solve(LU, pivots, _mT(B), adjoint=not adjoint))
    P = make(permutation_matrix(np.asarray(_t(pivots)._data), LU._data.shape[-1],
                                LU._data.dtype))
    tri = _R["MatrixTriangularSolve"]
    if adjoint:     # A^T = U^T L^T P^T
        y = apply(tri, (LU, B), {"lower": False, "adjoint": True})
        return matmul(P, apply(tri, (LU, y), {"lower": True, "adjoint": True,
                                              "unit_diagonal": True}))
    y = apply(tri, (LU, matmul(_mT(P), B)), {"lower": True, "unit_diagonal": True})
    return apply(tri, (LU, y), {"lower": False})


def _torch_lu(A, pivot: bool = True, get_infos: bool = False, out=None):
    """The legacy ``torch.lu``: ``(LU, pivots)``, and ``infos`` when ``get_infos``."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def _torch_lu_solve(b, LU_data, LU_pivots, *, out=None):
    """The legacy ``torch.lu_solve(b, LU, pivots)``."""
    return lu_solve(LU_data, LU_pivots, b)


TOP_LEVEL.update({"lu": _torch_lu, "lu_solve": _torch_lu_solve, "lu_unpack": lu_unpack})


def matrix_exp(A):
    """``exp(A) = sum A^k / k!`` of each square matrix (scipy's Padé approximation)."""
    return apply(_R["MatrixExponential"], (_matrices(A, "linalg.matrix_exp"),))


def tensordot(a, b, dims=2, out=None):
    """Products summed over ``dims`` pairs of dims (the last ``dims`` of ``a`` with the first
    of ``b`` when an int): the free dims of ``a`` then of ``b``."""
    a, b = _t(a), _t(b)
    if isinstance(dims, builtins.int) or isinstance(dims, Tensor) and dims.dim() == 0:
        k = builtins.int(dims)
        if k < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={k}")
        dims_a, dims_b = list(range(a.dim() - k, a.dim())), list(range(k))
    else:
        dims_a, dims_b = ([d] if isinstance(d, builtins.int) else list(d) for d in dims)
    dims_a = [d % a.dim() for d in dims_a]
    dims_b = [d % b.dim() for d in dims_b]
    sizes_a, sizes_b = list(a._data.shape), list(b._data.shape)
    for da, db in zip(dims_a, dims_b):   # a contracted dim of size 1 broadcasts (as torch)
        if sizes_a[da] != sizes_b[db]:
            if 1 not in (sizes_a[da], sizes_b[db]):
                raise RuntimeError(f"contracted dimensions need to match, but first has size "
                                   f"{sizes_a[da]} in dim {da} and second has size "
                                   f"{sizes_b[db]} in dim {db}")
            if sizes_a[da] == 1:
                sizes_a[da] = sizes_b[db]
            else:
                sizes_b[db] = sizes_a[da]
    a, b = expand(a, *sizes_a), expand(b, *sizes_b)
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    shape_a, shape_b = a._data.shape, b._data.shape
    inner_size = int(np.prod([shape_a[d] for d in dims_a]))
    at = reshape(apply(_R["Transpose"], (a,), {"perm": tuple(free_a + dims_a)}), (-1, inner_size)) \
        if a._data.size else reshape(a, (int(np.prod([shape_a[d] for d in free_a])), inner_size))
    bt = reshape(apply(_R["Transpose"], (b,), {"perm": tuple(dims_b + free_b)}),
                 (inner_size, int(np.prod([shape_b[d] for d in free_b]))))
    return reshape(matmul(at, bt), tuple(shape_a[d] for d in free_a) +
                   tuple(shape_b[d] for d in free_b))


def block_diag(*tensors):
    """The tensors (0-d: 1 x 1, 1-d: one row) along the diagonal of one matrix, zeros
    elsewhere."""
    mats = []
    for t in map(_t, tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {len(mats)} has {t.dim()} dimensions")
        mats.append(reshape(t, (1, -1) if t.dim() == 1 else (1, 1)) if t.dim() < 2 else t)
    if not mats:
        return make(np.zeros((1, 0), np.float32))
    dtype = np.result_type(*[m._data.dtype for m in mats])
    width = builtins.sum(m._data.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m._data.shape
        parts = [make(np.zeros((r, left), dtype)), m.to(lookup(dtype)),
                 make(np.zeros((r, width - left - c), dtype))]
        rows.append(cat(parts, 1))
        left += c
    return cat(rows, 0)


TOP_LEVEL.update({"matrix_exp": matrix_exp, "tensordot": tensordot, "block_diag": block_diag})
#: Those that are Tensor methods too (``A.det()``, ``b.lu_solve(LU, pivots)``).
METHODS = [name for name in TOP_LEVEL if name not in ("lu_unpack", "tensordot", "block_diag")]


# --- Householder reflections (LAPACK's geqrf and what reads its output) ---------------------

_GEQRF = _result("geqrf", "a tau")
_LDL = _result("linalg_ldl_factor", "LD pivots")
_LDL_EX = _result("linalg_ldl_factor_ex", "LD pivots info")


def _per_matrix(A: np.ndarray, kernel, *outs):
    """Run ``kernel(matrix) -> tuple`` over the matrices of ``A``, filling ``outs``."""
    flat = [o.reshape((-1,) + o.shape[len(A.shape) - 2:]) for o in outs]
    for i, a in enumerate(A.reshape((-1,) + A.shape[-2:])):
        for o, r in zip(flat, kernel(a)):
            o[i] = r
    return outs


def geqrf(input, *, out=None):
    """LAPACK's ``geqrf``: R on and above the diagonal, the Householder vectors below it, and
    their scales ``tau`` (no gradient, as in PyTorch)."""
    A = _matrices(input, "geqrf", square=False)
    a = A._data
    m, n = a.shape[-2:]
    qr, tau = np.zeros_like(a), np.zeros(a.shape[:-2] + (builtins.min(m, n),), a.dtype)
    if a.size:
        raw = scipy_linalg().get_lapack_funcs("geqrf", (a,))
        _per_matrix(a, lambda x: raw(x)[:2], qr, tau)
    return _GEQRF(make(qr), make(tau))


def _householder_q(A: Tensor, tau: Tensor) -> Tensor:
    """``H_1 ... H_k`` (``m x m``), ``H_i = I - tau_i v_i v_i^T`` with ``v_i`` the column ``i``
    of ``A`` below the diagonal and 1 on it -- composed of products, so its gradient is."""
    m, k = A._data.shape[-2], tau._data.shape[-1]
    eye = np.eye(m, dtype=A._data.dtype)
    Q = add(make(eye), mul(_sum(A, (-2, -1), True), 0.0))   # on the graph, as PyTorch's
    for i in range(k):
        below = make((np.arange(m) > i).astype(A._data.dtype))
        v = add(mul(A[..., :, i], below), make(eye[i]))
        qv = matmul(Q, apply(_R["ExpandDims"], (v,), {"axis": -1}))
        outer = matmul(qv, apply(_R["ExpandDims"], (v,), {"axis": -2}))
        Q = sub(Q, mul(apply(_R["ExpandDims"], (tau[..., i],), {"axis": (-2, -1)}), outer))
    return Q


def householder_product(A, tau, *, out=None):
    """The first ``n`` columns of ``H_1 ... H_k`` (``orgqr``): Q from :func:`geqrf`'s output."""
    A, tau = _matrices(A, "torch.linalg.householder_product", square=False), _t(tau)
    m, n = A._data.shape[-2:]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if n < tau._data.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    return _householder_q(A, tau)[..., :, :n]


def ormqr(input, input2, input3, left: bool = True, transpose: bool = False, *, out=None):
    """``op(Q) C`` (``C op(Q)`` when not ``left``; ``op``: transposed when ``transpose``) for
    the full ``Q`` of :func:`geqrf`'s reflections ``(input, input2)``."""
    A, tau, C = _matrices(input, "ormqr", square=False), _t(input2), _t(input3)
    Q = _householder_q(A, tau)
    Q = _mT(Q) if transpose else Q
    return matmul(Q, C) if left else matmul(C, Q)


def ldl_factor_ex(A, *, hermitian: bool = False, check_errors: bool = False, out=None):
    """LAPACK's ``sytrf`` (Bunch-Kaufman) of the lower triangle: ``(LD, pivots, info)``, no
    gradient (as in PyTorch)."""
    A = _matrices(A, "torch.linalg.ldl_factor_ex")
    a = A._data
    n = a.shape[-1]
    ld, piv = np.zeros_like(a), np.zeros(a.shape[:-1], np.int32)
    info = np.zeros(a.shape[:-2], np.int32)
    if a.size:
        sytrf = scipy_linalg().get_lapack_funcs("sytrf", (a,))
        _per_matrix(a, lambda x: (np.tril(sytrf(x, lower=1)[0]), sytrf(x, lower=1)[1]), ld, piv)
        info = _info(A, lambda x: builtins.max(sytrf(x, lower=1)[2], 0))._data
    if check_errors and info.any():
        raise _LinAlgError(f"torch.linalg.ldl_factor_ex: The factorization could not be "
                           f"completed because the input is singular (D[{info.max()},"
                           f"{info.max()}] is zero)")
    del n
    return _LDL_EX(make(ld), make(piv), make(info))


def ldl_factor(A, *, hermitian: bool = False, out=None):
    """``(LD, pivots)`` of :func:`ldl_factor_ex`."""
    LD, pivots, _ = ldl_factor_ex(A, hermitian=hermitian)
    return _LDL(LD, pivots)


def ldl_solve(LD, pivots, B, *, hermitian: bool = False, out=None):
    """``X`` with ``A X = B`` from :func:`ldl_factor`'s output (``sytrs``; no gradient)."""
    LD, B, piv = _matrices(LD, "torch.linalg.ldl_solve"), _t(B), _t(pivots)
    batch = np.broadcast_shapes(LD._data.shape[:-2], B._data.shape[:-2])
    ld = np.broadcast_to(LD._data, batch + LD._data.shape[-2:])
    p = np.broadcast_to(piv._data, batch + piv._data.shape[-1:])
    b = np.broadcast_to(B._data, batch + B._data.shape[-2:])
    x = np.zeros(b.shape, np.result_type(ld, b))
    if x.size:
        sytrs = scipy_linalg().get_lapack_funcs("sytrs", (ld,))
        flat_x = x.reshape((-1,) + b.shape[-2:])
        for i, (l_, p_, b_) in enumerate(zip(ld.reshape((-1,) + ld.shape[-2:]),
                                            p.reshape((-1, p.shape[-1])),
                                            b.reshape((-1,) + b.shape[-2:]))):
            flat_x[i] = sytrs(l_, p_, b_, lower=1)[0]
    return make(x)


TOP_LEVEL.update({"geqrf": geqrf, "ormqr": ormqr})
METHODS += ["geqrf", "ormqr"]

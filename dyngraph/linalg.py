"""``torch.linalg``'s norms: ``vector_norm``, ``matrix_norm`` and ``norm``, as compositions.

Each is made of registry reductions, so its gradient is theirs; the conventions PyTorch
chose are kept: the gradient of a 2-norm (or any ``p > 0`` norm) at a zero vector is 0, not
NaN; ``ord=inf`` splits the gradient evenly among the largest entries (``amax``'s rule);
``ord=0`` counts the non-zero entries and has a zero gradient.

The spectral norms (``ord=2``, ``-2`` of a matrix, and ``'nuc'``) are the largest, smallest
and summed singular values (``svdvals``, whose gradient is ``U diag(g) V^T``).

>>> import dyngraph as torch
>>> torch.linalg.vector_norm(torch.tensor([3.0, 4.0])).item()
5.0
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from common import REGISTRY

from .decompositions import _matrices, inv, svdvals
from .engine import apply
from .functions import (_t, abs as _abs, add, div, eq, mul, ne, pow as _pow, sub, sum as _sum,
                        to)
from .pointwise import isfinite
from .selection import where
from .node import renamed, torch_node
from .reductions import _root, amax, amin

__all__ = ["vector_norm", "matrix_norm", "norm", "cond"]
# (``tensor_norm`` is ``torch.norm`` / ``Tensor.norm``: the package exports it under that name)

_R = REGISTRY


def _floating(x, dtype, name: str):
    if dtype is not None:
        x = to(x, dtype)
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype.scalar_name}")
    return x


def _dims(dim):
    if dim is None:
        return None
    return (dim,) if isinstance(dim, builtins.int) else tuple(dim)


def _p_root(s, p: float, cls):
    """``s ** (1/p)`` whose gradient is 0 (not NaN/inf) where ``s == 0`` (PyTorch's choice)."""
    zero = eq(s, 0)
    root = apply(_R["Pow"], (apply(_R["Select"], (zero, 1.0, s)), 1.0 / p))
    return apply(_R["Select"], (zero, 0.0, root), cls=cls)


def _masked_pow(x, a, p: float):
    """``|x| ** p`` whose gradient is 0 at ``x == 0`` for ``p < 1`` (PyTorch masks the
    infinite ``p |x|**(p-1)`` there), not NaN."""
    if p >= 1:
        return _pow(a, p)
    zero = eq(x, 0)
    return where(zero, 0.0 if p > 0 else math.inf, _pow(where(zero, 1.0, a), p))


@torch_node("LinalgVectorNormBackward0")
def vector_norm(x, ord=2, dim=None, keepdim: bool = False, *, dtype=None):
    """``sum(|x|**ord) ** (1/ord)`` over ``dim`` (all elements by default); ``inf``/``-inf``
    the largest/smallest ``|x|``, ``0`` the number of non-zeros."""
    x = _floating(_t(x), dtype, "linalg.vector_norm")
    axes = _dims(dim)
    a = _abs(x)
    if ord in (math.inf, -math.inf):
        if x.numel() == 0 and ord == math.inf and axes is None:
            raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor "
                               "because the operation does not have an identity")
        extreme = amax if ord == math.inf else amin
        out = extreme(a, () if axes is None else axes, keepdim)
    elif ord == 0:  # a count: zero gradient (a zero times the finite entries keeps the node)
        zero = mul(_sum(where(isfinite(x), x, 0.0), axes, keepdim), 0.0)
        out = add(_sum(to(ne(x, 0), x.dtype), axes, keepdim), zero)
    elif ord == 1:
        out = _sum(a, axes, keepdim)
    elif ord == 2:
        out = _root(_sum(mul(x, x), axes, keepdim), vector_norm.node)
    elif ord > 0:
        out = _p_root(_sum(_masked_pow(x, a, ord), axes, keepdim), ord, vector_norm.node)
    else:
        out = _pow(_sum(_masked_pow(x, a, ord), axes, keepdim), 1.0 / ord)
    return renamed(out, vector_norm.node)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None):
    """Frobenius norm, or the largest/smallest absolute column (``ord=1``/``-1``) or row
    (``inf``/``-inf``) sum, of the matrices in the two dims ``dim``."""
    A = _floating(_t(A), dtype, "linalg.matrix_norm")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    d0, d1 = (d % A.dim() for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        return _spectral_norm(A, ord, d0, d1, keepdim)
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    summed, over = (d0, d1) if ord in (1, -1) else (d1, d0)
    sums = _sum(_abs(A), summed, True)
    return (amax if ord > 0 else amin)(sums, (d0, d1), keepdim)


def _spectral_norm(A, ord, d0: int, d1: int, keepdim: bool):
    """The sum (``'nuc'``), largest (2) or smallest (-2) singular value of the matrices in
    dims ``d0``, ``d1``."""
    rest = [d for d in range(A.dim()) if d not in (d0, d1)]
    s = svdvals(apply(_R["Transpose"], (A,), {"perm": tuple(rest + [d0, d1])}))
    out = _sum(s, -1) if ord == "nuc" else (amax if ord == 2 else amin)(s, -1)
    for d in sorted((d0, d1)) if keepdim else ():
        out = apply(_R["ExpandDims"], (out,), {"axis": d})
    return out


def norm(A, ord=None, dim=None, keepdim: bool = False, *, dtype=None):
    """``vector_norm`` or ``matrix_norm`` as ``dim``/``A.dim()`` say (``ord=None``: the 2-norm of
    all entries, or Frobenius)."""
    dims = _dims(dim)
    if dims is not None and len(dims) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if dims is None and ord is not None:
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.dim() != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {A.dim()}D.")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord}")
    return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)


def tensor_norm(input, p="fro", dim=None, keepdim: bool = False, dtype=None):
    """``torch.norm``, as torch 2.13 defines it over ``torch.linalg``: a number ``p`` (``0``,
    negative, ``+-inf`` too) is ``vector_norm``; ``"fro"`` the 2-norm over at most two dims;
    another string (``"nuc"``) ``matrix_norm`` over ``dim`` (all dims by default)."""
    dims = _dims(dim)
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            return vector_norm(input, 2, dims, keepdim, dtype=dtype)
        return matrix_norm(input, p, tuple(range(input.dim())) if dims is None else dims,
                           keepdim, dtype=dtype)
    return vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype)


def cond(A, p=None, *, out=None):
    """The condition number: ``s_max / s_min`` (``p`` None, 2; -2 the reverse), else
    ``norm(A, p) * norm(inv(A), p)``."""
    A = _matrices(A, "linalg.cond", square=False)
    if p in (None, 2, -2):
        s = svdvals(A)
        hi = apply(_R["Max"], (s,), {"axis": -1, "keepdims": False})
        lo = apply(_R["Min"], (s,), {"axis": -1, "keepdims": False})
        return div(hi, lo) if p != -2 else div(lo, hi)
    A = _matrices(A, "linalg.cond")
    return mul(matrix_norm(A, p), matrix_norm(inv(A), p))


def diagonal(A, *, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """The ``offset`` diagonal of the matrices in dims ``dim1``, ``dim2``, as the last dim."""
    A = _t(A)
    nd = A.dim()
    d1, d2 = dim1 % nd, dim2 % nd
    rest = [d for d in range(nd) if d not in (d1, d2)]
    y = apply(_R["Transpose"], (A,), {"perm": tuple(rest + [d1, d2])})
    rows, cols = y._data.shape[-2:]
    size = builtins.max(0, builtins.min(rows + builtins.min(offset, 0),
                                        cols - builtins.max(offset, 0)))
    r = np.arange(size) - builtins.min(offset, 0)
    return y[..., r, r + offset]


def renorm(input, p: float, dim: int, maxnorm: float):
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to it
    (``maxnorm / (norm + 1e-7)``, PyTorch's factor)."""
    x = _t(input)
    dims = tuple(d for d in range(x.dim()) if d != dim % x.dim())
    n = vector_norm(x, p, dims, True)
    factor = where(apply(_R["Greater"], (n, maxnorm)), div(maxnorm, add(n, 1e-7)), 1.0)
    return mul(x, factor)


def dist(input, other, p: float = 2):
    """The ``p``-norm of ``input - other``."""
    return vector_norm(sub(_t(input), _t(other)), p)


# The inverses, solves and factorizations (dyngraph/decompositions.py) are torch.linalg's too.
from .decompositions import (LinAlgError, cholesky, cholesky_ex, det, eigvalsh,  # noqa: E402
                             inv, inv_ex, lstsq, matrix_power, matrix_rank, multi_dot, pinv, qr,
                             slogdet, solve, solve_ex, solve_triangular, svd, svdvals, tensorinv,
                             tensorsolve, vander, vecdot, lu, lu_factor, lu_factor_ex, lu_solve,
                             matrix_exp, householder_product, ldl_factor, ldl_factor_ex,
                             ldl_solve)
from .decompositions import _linalg_cross as cross  # noqa: E402  (dim is keyword-only, -1)

__all__ += ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "eigvalsh", "inv",
            "inv_ex", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "pinv", "qr",
            "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv",
            "tensorsolve", "vander", "vecdot", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matrix_exp", "householder_product", "ldl_factor", "ldl_factor_ex",
            "ldl_solve", "diagonal"]

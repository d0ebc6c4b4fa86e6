"""``tf.linalg``: inverses, determinants, solves and factorizations, with TF's op types.

Each function adds one registry op (``common/ops/decompositions.py``), so the node prints TF's
type (``MatrixInverse``, ``Cholesky``, ``Svd`` ...) and ``tf.gradients`` differentiates it with
the op's rule.  Multi-output ops return TF's tuples: ``qr`` ``(q, r)``, ``svd`` ``(s, u, v)``
(``s`` alone without ``compute_uv``), ``eigh`` ``(e, v)``, ``slogdet`` ``(sign, log_abs_det)``.
"""
from __future__ import annotations

import numpy as np

from common import REGISTRY

from .framework.build import apply, convert_to_tensor
from .framework.graph import name_scope
from .ops.core_ops import expand_dims, matmul, squeeze  # (matmul: tf.linalg.matmul)
from .ops.math_ops import einsum  # noqa: F401  (tf.linalg.einsum)

__all__ = ["inv", "det", "slogdet", "logdet", "cholesky", "qr", "svd", "eigh", "eigvalsh",
           "solve", "triangular_solve", "band_part", "diag", "matmul", "einsum", "pinv",
           "cholesky_solve", "lstsq", "expm", "trace", "diag_part", "matvec"]
#: TF 1's top-level names of the same functions (``tf.matrix_inverse`` ...).
V1_ALIASES = {"matrix_inverse": "inv", "matrix_determinant": "det", "cholesky": "cholesky",
              "qr": "qr", "svd": "svd", "self_adjoint_eig": "eigh",
              "self_adjoint_eigvals": "eigvalsh", "matrix_solve": "solve",
              "matrix_triangular_solve": "triangular_solve", "matrix_band_part": "band_part",
              "matrix_diag": "diag", "cholesky_solve": "cholesky_solve",
              "matrix_solve_ls": "lstsq", "trace": "trace", "matrix_diag_part": "diag_part"}

_R = REGISTRY


def _one(op: str, x, name, **attrs):
    return apply(_R[op], (convert_to_tensor(x),), attrs, name=name)


def inv(input, adjoint: bool = False, name=None):  # noqa: A002  (TF's argument name)
    x = _one("MatrixInverse", input, name)
    return x if not adjoint else apply(_R["SwapLastAxes"], (x,), {})


def det(input, name=None):  # noqa: A002
    return _one("MatrixDeterminant", input, name)


def slogdet(input, name=None):  # noqa: A002
    return _one("LogMatrixDeterminant", input, name)


def logdet(matrix, name=None):
    """``log(det(matrix))`` of a symmetric positive-definite matrix: twice the log of the
    Cholesky factor's diagonal, summed (as TF)."""
    chol = cholesky(matrix)
    diag = apply(_R["Sum"], (apply(_R["Mul"], (chol, _eye_like(chol)), {}),), {"axis": -1})
    return apply(_R["Mul"], (apply(_R["Sum"], (apply(_R["Log"], (diag,), {}),), {"axis": -1}),
                             2.0), {}, name=name)


def _eye_like(x):
    ones = apply(_R["OnesLike"], (apply(_R["Sum"], (x,), {"axis": -1}),), {})
    return apply(_R["MatrixDiag"], (ones,), {})


def cholesky(input, name=None):  # noqa: A002
    return _one("Cholesky", input, name)


def qr(input, full_matrices: bool = False, name=None):  # noqa: A002
    return _one("Qr", input, name, full_matrices=full_matrices)


def svd(tensor, full_matrices: bool = False, compute_uv: bool = True, name=None):
    s, u, v = _one("Svd", tensor, name, full_matrices=full_matrices, compute_uv=compute_uv)
    return (s, u, v) if compute_uv else s


def eigh(tensor, name=None):
    return _one("SelfAdjointEigV2", tensor, name)


def eigvalsh(tensor, name=None):
    return _one("SelfAdjointEigV2", tensor, name)[0]


def solve(matrix, rhs, adjoint: bool = False, name=None):
    return apply(_R["MatrixSolve"], (convert_to_tensor(matrix), convert_to_tensor(rhs)),
                 {"adjoint": adjoint}, name=name)


def triangular_solve(matrix, rhs, lower: bool = True, adjoint: bool = False, name=None):
    return apply(_R["MatrixTriangularSolve"], (convert_to_tensor(matrix), convert_to_tensor(rhs)),
                 {"lower": lower, "adjoint": adjoint}, name=name)


def band_part(input, num_lower: int, num_upper: int, name=None):  # noqa: A002
    return _one("MatrixBandPart", input, name, num_lower=int(num_lower), num_upper=int(num_upper))


def diag(diagonal, name=None, **_):
    return _one("MatrixDiag", diagonal, name)


def _mT(x):
    return apply(_R["SwapLastAxes"], (x,), {})


def pinv(a, rcond=None, validate_args: bool = False, name=None):
    """TF's composition: ``V diag(1/s) U^T`` over ``s > rcond * max(s)`` (``rcond``:
    ``10 * max(m, n) * eps``)."""
    a = convert_to_tensor(a)
    s, u, v = svd(a)
    if rcond is None:
        m, n = a.shape[-2:] if a.ndim is not None else (None, None)
        rcond = 10.0 * max(m or 1, n or 1) * float(np.finfo(a.np_dtype).eps)
    cutoff = apply(_R["Mul"], (apply(_R["Max"], (s,), {"axis": -1, "keepdims": True}), rcond), {})
    big = apply(_R["Select"], (apply(_R["Greater"], (s, cutoff), {}), s, np.inf), {})
    scaled = apply(_R["RealDiv"], (v, apply(_R["ExpandDims"], (big,), {"axis": -2}), ), {})
    return apply(_R["MatMul"], (scaled, _mT(u)), {}, name=name)


def cholesky_solve(chol, rhs, name=None):
    """``(L L^T)^-1 rhs``: two triangular solves (TF's composition)."""
    chol, rhs = convert_to_tensor(chol), convert_to_tensor(rhs)
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True, name=name)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast: bool = True, name=None):
    """The least-squares solution by the normal equations and Cholesky (TF's ``fast`` path):
    ``(A^T A + l2 I)^-1 A^T b``, or ``A^T (A A^T + l2 I)^-1 b`` for a wide ``A``."""
    a, b = convert_to_tensor(matrix), convert_to_tensor(rhs)
    m, n = a.shape[-2:]
    at = _mT(a)
    if m is not None and n is not None and m < n:
        gram = apply(_R["MatMul"], (a, at), {})
        if l2_regularizer:
            gram = apply(_R["Add"],
                         (gram, apply(_R["Mul"], (_eye_like(gram), l2_regularizer), {})), {})
        return apply(_R["MatMul"], (at, cholesky_solve(cholesky(gram), b)), {}, name=name)
    gram = apply(_R["MatMul"], (at, a), {})
    if l2_regularizer:
        gram = apply(_R["Add"],
                     (gram, apply(_R["Mul"], (_eye_like(gram), l2_regularizer), {})), {})
    return cholesky_solve(cholesky(gram), apply(_R["MatMul"], (at, b), {}), name=name)


def expm(input, name=None):  # noqa: A002
    """The matrix exponential (one ``MatrixExponential`` node; TF composes a Padé
    approximation of its own)."""
    return _one("MatrixExponential", input, name)


def diag_part(input, name=None, **_):  # noqa: A002
    """The main diagonal of each (square) matrix."""
    x = convert_to_tensor(input)
    return apply(_R["Sum"], (apply(_R["Mul"], (x, _eye_like(x)), {}),), {"axis": -1}, name=name)


def trace(x, name=None):
    """The sum of each matrix's main diagonal."""
    return apply(_R["Sum"], (diag_part(x),), {"axis": -1}, name=name)


def matvec(a, b, transpose_a: bool = False, adjoint_a: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name=None):
    """``a @ b`` for a (batch of) matrix ``a`` and vector ``b``: TF's sugar over ``matmul``,
    ``b`` made a column (``MatVec/ExpandDims``) and the result's last axis squeezed away."""
    with name_scope(name, "MatVec"):
        column = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a,
                        a_is_sparse=a_is_sparse, b_is_sparse=b_is_sparse)
        return squeeze(column, axis=-1)

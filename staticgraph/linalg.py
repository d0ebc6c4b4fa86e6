"""``tf.linalg``: inverses, determinants, solves and factorizations, with TF's op types.

Each function adds one registry op (``common/ops/decompositions.py``), so the node prints TF's
type (``MatrixInverse``, ``Cholesky``, ``Svd`` ...) and ``tf.gradients`` differentiates it with
the op's rule.  Multi-output ops return TF's tuples: ``qr`` ``(q, r)``, ``svd`` ``(s, u, v)``
(``s`` alone without ``compute_uv``), ``eigh`` ``(e, v)``, ``slogdet`` ``(sign, log_abs_det)``.
"""
from __future__ import annotations

from common import REGISTRY

from .framework.build import apply, convert_to_tensor
from .ops.core_ops import matmul  # noqa: F401  (tf.linalg.matmul)
from .ops.math_ops import einsum  # noqa: F401  (tf.linalg.einsum)

__all__ = ["inv", "det", "slogdet", "logdet", "cholesky", "qr", "svd", "eigh", "eigvalsh",
           "solve", "triangular_solve", "band_part", "diag", "matmul", "einsum", "pinv"]

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


def pinv(a, rcond=None, validate_args: bool = False, name=None):
    return _one("Pinv", a, name, rtol=None if rcond is None else float(rcond))

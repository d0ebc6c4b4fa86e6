"""Inverses, determinants, solves and factorizations of (batches of) matrices.

LAPACK does the work (numpy's batched ``linalg``; scipy's ``solve_triangular`` and
``lu_factor`` where numpy has none).  Each op carries TF's op type (``MatrixInverse``,
``Cholesky``, ``Svd`` ...) and the gradient PyTorch derives (``FunctionsManual.cpp``), written
with registry ops so it serves eager backward, ``create_graph`` and static ``gradients()``::

    op                       gradient of the input (real matrices, X^-T = inverse transposed)
    MatrixInverse   A^-1     -A^-T G A^-T
    MatrixDeterminant det A  g det(A) A^-T
    LogMatrixDeterminant     g_logabsdet A^-T            (the sign has none)
    MatrixSolve     A^-1 B   B: A^-T G;  A: -(A^-T G) X^T
    MatrixTriangularSolve    the same, kept to A's triangle
    Cholesky        L        L^-T Phi(L^T G) L^-1        (Phi: lower half, symmetrised)
    Qr              Q, R     (G_Q + Q copyltu(R G_R^T - G_Q^T Q)) R^-T, split when m < n
    SelfAdjointEigV2  e, V   V (diag(g_e) + skew(V^T G_V) / (e_j - e_i)) V^T
    Svd             s, U, V  PyTorch's svd_backward

Cholesky and the symmetric eigensolver factor the symmetric part ``(A + A^T) / 2``: equal to
``A`` for the symmetric matrices they are meant for, and it makes the symmetric gradient that
PyTorch and TF both return the true derivative (finite differences agree with it).

A matrix the kernel cannot handle raises :class:`~common.errors.LinAlgError` with PyTorch's
sentence (and TF's in ``.tf``), naming the batch element as PyTorch does.
"""
from __future__ import annotations

import re
import warnings

import numpy as np

from ..errors import DTypeError, LinAlgError, ShapeError
from ..examples import Example as E
from ..registry import Spec, defop
from ..shapes import broadcast_shapes, fmt_shape, unbroadcast as ub
from .linalg import matrix_transpose as mT

# A symmetric positive-definite and a symmetric matrix with distinct eigenvalues: the
# examples of the ops meant for them (random data is neither).
_SPD = np.array([[4.0, 1.2, -0.6], [1.2, 3.0, 0.4], [-0.6, 0.4, 2.5]])
_SYM = np.array([[1.0, 0.5, -0.3], [0.5, -2.0, 0.8], [-0.3, 0.8, 3.0]])
_UPPER = np.array([[2.0, 0.3, -0.5], [0.0, 1.5, 0.7], [0.0, 0.0, -1.8]])


def scipy_linalg():
    """``scipy.linalg``, imported by the first kernel that needs it (not at ``import``)."""
    import scipy.linalg  # noqa: PLC0415  (~0.3 s to import: only LU, triangular solves, expm)
    return scipy.linalg


def _floating(x: np.ndarray, what: str) -> None:
    if x.dtype.kind != "f":
        raise DTypeError(f"{what} needs a floating-point matrix, not {x.dtype}")


def _matrices_infer(x: Spec, what: str, square: bool = True) -> tuple | None:
    """``x``'s shape checked to be a (batch of) matrices (square ones when ``square``)."""
    if np.dtype(x.dtype).kind != "f":
        raise DTypeError(f"{what} needs a floating-point matrix, not {np.dtype(x.dtype)}")
    if x.shape is None:
        return None
    if len(x.shape) < 2:
        raise ShapeError(f"{what} needs a matrix, got shape {fmt_shape(x.shape)}",
                         tf=f"Input tensor 0 must have rank >= 2, but got shape "
                            f"{fmt_shape(x.shape)}")
    m, n = x.shape[-2:]
    if square and m is not None and n is not None and m != n:
        raise ShapeError(f"{what} needs square matrices, got shape {fmt_shape(x.shape)}",
                         tf=f"Input matrix must be square, got {m} by {n}")
    return x.shape


def _batch_words(shape: tuple, i: int) -> str:
    return f"(Batch element {i}): " if len(shape) > 2 else ""


def _first_zero_pivot(a: np.ndarray) -> int:
    """1-based position of LU's first zero pivot (LAPACK's ``info``), 0 when there is none."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lu, _ = scipy_linalg().lu_factor(a, check_finite=False)
    zeros = np.flatnonzero(np.diagonal(lu) == 0)
    return int(zeros[0]) + 1 if zeros.size else 0


def _singular(x: np.ndarray, words: str, tf: str) -> LinAlgError:
    """The error for singular ``x``: ``words`` formatted with the first singular batch element
    (``{batch}``) and its zero pivot (``{k}``)."""
    mats = x.reshape((-1,) + x.shape[-2:])
    for i, a in enumerate(mats):
        k = _first_zero_pivot(a)
        if k:
            return LinAlgError(words.format(batch=_batch_words(x.shape, i), k=k), tf=tf)
    return LinAlgError(words.format(batch="", k=0), tf=tf)


def _expand2(F, v):
    """``v[..., None, None]``: one number per matrix, against the matrix."""
    return F.expand_dims(v, axis=(-2, -1))


# --- band part and diagonal matrices: the masks the gradients below need --------------------

def _band_part(x, num_lower=-1, num_upper=-1):
    """Entries within ``num_lower`` below and ``num_upper`` above the diagonal (-1: all), the
    rest zero -- TF's ``MatrixBandPart`` (``tril`` is ``(-1, 0)``, ``triu`` ``(0, -1)``)."""
    m, n = x.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((num_lower < 0) | (i - j <= num_lower)) & ((num_upper < 0) | (j - i <= num_upper))
    return np.where(keep, x, np.zeros((), x.dtype))


def _band_part_infer(x: Spec, num_lower=-1, num_upper=-1) -> Spec:
    if x.shape is not None and len(x.shape) < 2:
        raise ShapeError(f"band part needs a matrix, got shape {fmt_shape(x.shape)}",
                         tf=f"input must be at least 2-dim, received shape: "
                            f"{fmt_shape(x.shape)}")
    return x


defop("MatrixBandPart", _band_part, _band_part_infer, inputs=("x",), fname="matrix_band_part",
      examples=(E(((3, 4),), {"num_lower": -1, "num_upper": 0}),
                E(((2, 4, 3),), {"num_lower": 1, "num_upper": -1})),
      grads=(lambda F, g, num_lower, num_upper:
             F.matrix_band_part(g, num_lower=num_lower, num_upper=num_upper),))


def _matrix_diag(d):
    """The square matrices with ``d``'s last axis on the diagonal, zeros elsewhere (TF's
    ``MatrixDiag``, torch's ``diag_embed``)."""
    k = d.shape[-1]
    out = np.zeros(d.shape + (k,), d.dtype)
    idx = np.arange(k)
    out[..., idx, idx] = d
    return out


def _matrix_diag_infer(d: Spec) -> Spec:
    if d.shape is None:
        return d
    if not d.shape:
        raise ShapeError("a diagonal needs at least one dimension",
                         tf="input must be at least 1-dim, received shape: []")
    return Spec(d.shape + (d.shape[-1],), d.dtype)


def _main_diagonal(F, g):
    """The main diagonal of square ``g`` (MatrixDiag's gradient): the row sums of ``g * I``."""
    eye = F.matrix_diag(F.ones_like(F.sum(g, axis=-1)))
    return F.sum(F.mul(g, eye), axis=-1)


defop("MatrixDiag", _matrix_diag, _matrix_diag_infer, inputs=("diagonal",), fname="matrix_diag",
      torch_name="DiagEmbedBackward0", tf_type="MatrixDiagV3",
      examples=(E(((3,),)), E(((2, 4),))),
      grads=(_main_diagonal,))


# --- inverse, determinants ------------------------------------------------------------------

def _inverse(x):
    _floating(x, "MatrixInverse")
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise _singular(x, "linalg.inv: {batch}The diagonal element {k} is zero, the inversion "
                           "could not be completed because the input matrix is singular.",
                        "Input is not invertible.") from None


def _square_infer(what: str):
    def infer(x: Spec, **attrs) -> Spec:
        _matrices_infer(x, what)
        return x
    return infer


defop("MatrixInverse", _inverse, _square_infer("MatrixInverse"), inputs=("x",),
      fname="matrix_inverse", torch_name="LinalgInvExBackward0",
      examples=(E(((3, 3),)), E(((2, 4, 4),))),
      grads=(lambda F, g, out: F.neg(F.matmul(mT(F, out), F.matmul(g, mT(F, out)))),))


def _det(x):
    _floating(x, "MatrixDeterminant")
    return np.asarray(np.linalg.det(x))


def _det_infer(x: Spec) -> Spec:
    shape = _matrices_infer(x, "MatrixDeterminant")
    return Spec(None if shape is None else shape[:-2], x.dtype)


defop("MatrixDeterminant", _det, _det_infer, inputs=("x",), fname="matrix_determinant",
      torch_name="LinalgDetBackward0",
      examples=(E(((3, 3),)), E(((2, 4, 4),))),
      grads=(lambda F, g, x, out:
             F.mul(_expand2(F, F.mul(g, out)), mT(F, F.matrix_inverse(x))),))


def _slogdet(x):
    _floating(x, "LogMatrixDeterminant")
    sign, logabs = np.linalg.slogdet(x)
    return np.asarray(sign), np.asarray(logabs)


def _slogdet_infer(x: Spec) -> tuple[Spec, Spec]:
    spec = _det_infer(x)
    return spec, spec


defop("LogMatrixDeterminant", _slogdet, _slogdet_infer, inputs=("x",),
      fname="log_matrix_determinant", outputs=2, torch_name="LinalgSlogdetBackward0",
      examples=(E(((3, 3),)), E(((2, 4, 4),))),
      grads=(lambda F, g, x: F.mul(_expand2(F, g[1]), mT(F, F.matrix_inverse(x))),))


# --- solves ---------------------------------------------------------------------------------

def _solve(matrix, rhs, adjoint=False):
    """``X`` with ``A X = B`` (``A^T X = B`` when ``adjoint``); batch dims broadcast."""
    _floating(matrix, "MatrixSolve")
    a = np.swapaxes(matrix, -1, -2) if adjoint else matrix
    try:
        return np.linalg.solve(a, rhs)
    except np.linalg.LinAlgError:
        batch = broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
        raise _singular(np.broadcast_to(a, batch + a.shape[-2:]),
                        "torch.linalg.solve: {batch}The solver failed because the input matrix "
                        "is singular.", "Input matrix is not invertible.") from None


def _solve_infer(matrix: Spec, rhs: Spec, adjoint=False, lower=True, unit_diagonal=False) -> Spec:
    a = _matrices_infer(matrix, "MatrixSolve")
    b = _matrices_infer(rhs, "MatrixSolve", square=False)
    dtype = np.result_type(matrix.dtype, rhs.dtype)
    if a is None or b is None:
        return Spec(None, dtype)
    if a[-1] is not None and b[-2] is not None and a[-1] != b[-2]:
        raise ShapeError(f"solve: A {fmt_shape(a)} and B {fmt_shape(b)} do not fit AX = B",
                         tf=f"Input matrix and right-hand side must have the same number of "
                            f"rows: {a[-1]} vs. {b[-2]}")
    return Spec(broadcast_shapes(a[:-2], b[:-2]) + b[-2:], dtype)


def _solve_grad_matrix(F, g, matrix, out, matrix_shape, adjoint):
    gb = F.matrix_solve(matrix, g, adjoint=not adjoint)
    ga = F.matmul(out, mT(F, gb)) if adjoint else F.matmul(gb, mT(F, out))
    return ub(F, F.neg(ga), matrix_shape)


defop("MatrixSolve", _solve, _solve_infer, inputs=("matrix", "rhs"), fname="matrix_solve",
      torch_name="LinalgSolveExBackward0",
      examples=(E(((3, 3), (3, 2))), E(((2, 3, 3), (3, 1)), {"adjoint": True})),
      grads=(_solve_grad_matrix,
             lambda F, g, matrix, rhs_shape, adjoint:
                 ub(F, F.matrix_solve(matrix, g, adjoint=not adjoint), rhs_shape)))


def _triangular_solve(matrix, rhs, lower=True, adjoint=False, unit_diagonal=False):
    """``X`` with ``A X = B`` for triangular ``A`` (only its ``lower`` or upper triangle is
    read; ``unit_diagonal``: its diagonal is taken as ones), batch dims broadcast."""
    _floating(matrix, "MatrixTriangularSolve")
    batch = broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    dtype = np.result_type(matrix.dtype, rhs.dtype)
    out = np.zeros(batch + rhs.shape[-2:], dtype)
    if out.size == 0:
        return out
    a = np.broadcast_to(matrix, batch + matrix.shape[-2:]).reshape((-1,) + matrix.shape[-2:])
    b = np.broadcast_to(rhs, batch + rhs.shape[-2:]).reshape((-1,) + rhs.shape[-2:])
    flat = out.reshape((-1,) + rhs.shape[-2:])
    solve_triangular = scipy_linalg().solve_triangular
    with np.errstate(all="ignore"):
        for i in range(len(flat)):
            flat[i] = solve_triangular(a[i], b[i], trans=1 if adjoint else 0, lower=lower,
                                           unit_diagonal=unit_diagonal, check_finite=False)
    return out


def _triangular_solve_grad_matrix(F, g, matrix, out, matrix_shape, lower, adjoint,
                                  unit_diagonal):
    gb = F.matrix_triangular_solve(matrix, g, lower=lower, adjoint=not adjoint,
                                   unit_diagonal=unit_diagonal)
    ga = F.neg(F.matmul(out, mT(F, gb)) if adjoint else F.matmul(gb, mT(F, out)))
    ga = F.matrix_band_part(ga, num_lower=-1 if lower else 0, num_upper=0 if lower else -1)
    if unit_diagonal:  # the diagonal is not read: no gradient
        ga = F.sub(ga, F.matrix_band_part(ga, num_lower=0, num_upper=0))
    return ub(F, ga, matrix_shape)


defop("MatrixTriangularSolve", _triangular_solve, _solve_infer, inputs=("matrix", "rhs"),
      fname="matrix_triangular_solve", torch_name="LinalgSolveTriangularBackward0",
      examples=(E((_UPPER, (3, 2)), {"lower": False}),
                E((np.ascontiguousarray(_UPPER.T), (2, 3, 1)), {"lower": True, "adjoint": True}),
                E((_UPPER, (3, 2)), {"lower": False, "unit_diagonal": True})),
      grads=(_triangular_solve_grad_matrix,
             lambda F, g, matrix, rhs_shape, lower, adjoint, unit_diagonal:
                 ub(F, F.matrix_triangular_solve(matrix, g, lower=lower, adjoint=not adjoint,
                                                 unit_diagonal=unit_diagonal), rhs_shape)))


# --- Cholesky -------------------------------------------------------------------------------

def _symmetric_part(x):
    return (x + np.swapaxes(x, -1, -2)) / 2


def _cholesky(x):
    """Lower ``L`` with ``L L^T`` = the symmetric part of ``x``."""
    _floating(x, "Cholesky")
    s = _symmetric_part(x)
    try:
        return np.linalg.cholesky(s)
    except np.linalg.LinAlgError:
        raise _not_positive_definite(s) from None


def _not_positive_definite(s: np.ndarray) -> LinAlgError:
    mats = s.reshape((-1,) + s.shape[-2:])
    for i, a in enumerate(mats):
        try:
            scipy_linalg().cholesky(a, lower=True, check_finite=False)
        except np.linalg.LinAlgError as e:
            found = re.match(r"\s*(\d+)", str(e))
            order = found.group(1) if found else "?"
            return LinAlgError(f"linalg.cholesky: {_batch_words(s.shape, i)}The factorization "
                               f"could not be completed because the input is not "
                               f"positive-definite (the leading minor of order {order} is not "
                               f"positive-definite).",
                               tf="Cholesky decomposition was not successful. The input might "
                                  "not be valid.")
    return LinAlgError("linalg.cholesky: The factorization could not be completed because the "
                       "input is not positive-definite.")


def _cholesky_grad(F, g, out):
    """PyTorch's ``cholesky_backward``: ``L^-T Phi L^-1`` with ``P = tril(L^T G)`` and
    ``Phi = (P + tril(P, -1)^T) / 2`` -- symmetric, as the input is meant to be."""
    p = F.matrix_band_part(F.matmul(mT(F, out), g), num_lower=-1, num_upper=0)
    strictly_lower = F.sub(p, F.matrix_band_part(p, num_lower=0, num_upper=0))
    phi = F.mul(F.add(p, mT(F, strictly_lower)), 0.5)
    t = F.matrix_triangular_solve(out, phi, lower=True, adjoint=True)
    return mT(F, F.matrix_triangular_solve(out, mT(F, t), lower=True, adjoint=True))


defop("Cholesky", _cholesky, _square_infer("Cholesky"), inputs=("x",), fname="cholesky",
      torch_name="LinalgCholeskyExBackward0",
      examples=(E((_SPD,)), E((np.stack([_SPD, _SPD @ _SPD]),))),
      grads=(_cholesky_grad,))


# --- QR -------------------------------------------------------------------------------------

def _qr(x, full_matrices=False):
    _floating(x, "Qr")
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q, r


def _qr_infer(x: Spec, full_matrices=False) -> tuple[Spec, Spec]:
    shape = _matrices_infer(x, "Qr", square=False)
    if shape is None:
        return Spec(None, x.dtype), Spec(None, x.dtype)
    m, n = shape[-2:]
    k = m if full_matrices else (None if m is None or n is None else min(m, n))
    return Spec(shape[:-2] + (m, k), x.dtype), Spec(shape[:-2] + (k, n), x.dtype)


def _copyltu(F, m):
    """The symmetric matrix whose lower triangle is ``m``'s."""
    lower = F.matrix_band_part(m, num_lower=-1, num_upper=0)
    return F.add(lower, mT(F, F.sub(lower, F.matrix_band_part(m, num_lower=0, num_upper=0))))


def _qr_square_grad(F, gq, gr, q, r):
    """``(G_Q + Q copyltu(R G_R^T - G_Q^T Q)) R^-T`` for ``m >= n`` (R square)."""
    m = F.sub(F.matmul(r, mT(F, gr)), F.matmul(mT(F, gq), q))
    b = F.add(gq, F.matmul(q, _copyltu(F, m)))
    return mT(F, F.matrix_triangular_solve(r, mT(F, b), lower=False))


def _qr_grad(F, g, x, out, full_matrices):
    gq, gr = g
    q, r = out
    m, n = F.shape(x)[-2:]
    if m is None or n is None:   # a graph's unknown dims: taken as m >= n (R square; a wide
        # matrix then fails at run time in the triangular solve, naming the node)
        return _qr_square_grad(F, gq, gr, q, r)
    if full_matrices and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    if m >= n:
        return _qr_square_grad(F, gq, gr, q, r)
    # A = [X | Y] with X square: R = [U | V], X = Q U, Y = Q V.
    _, y = F.split_v(x, sizes=(m, n - m), axis=-1)
    gu, gv = F.split_v(gr, sizes=(m, n - m), axis=-1)
    u, _ = F.split_v(r, sizes=(m, n - m), axis=-1)
    gx = _qr_square_grad(F, F.add(gq, F.matmul(y, mT(F, gv))), gu, q, u)
    return F.concat(gx, F.matmul(q, gv), axis=-1)


defop("Qr", _qr, _qr_infer, inputs=("x",), fname="qr", outputs=2,
      torch_name="LinalgQrBackward0",
      examples=(E(((4, 3),)), E(((3, 3),)), E(((2, 3, 5),)), E(((2, 3, 4),), {"full_matrices": True})),
      grads=(_qr_grad,))


# --- symmetric eigenproblem, singular values ------------------------------------------------

def _eigh(x):
    """Eigenvalues (ascending) and eigenvectors of the symmetric part of ``x``."""
    _floating(x, "SelfAdjointEigV2")
    e, v = np.linalg.eigh(_symmetric_part(x))
    return e, v


def _eigh_infer(x: Spec) -> tuple[Spec, Spec]:
    shape = _matrices_infer(x, "SelfAdjointEigV2")
    return Spec(None if shape is None else shape[:-1], x.dtype), Spec(shape, x.dtype)


def _off_diagonal_ratio(F, numer, d):
    """``numer / (d_j - d_i)`` off the diagonal, where ``numer`` is 0 (its diagonal is)."""
    diff = F.sub(F.expand_dims(d, axis=-2), F.expand_dims(d, axis=-1))
    return F.div(numer, F.add(diff, F.matrix_diag(F.ones_like(d))))


def _skew(F, a):
    return F.sub(a, mT(F, a))


def _eigh_grad(F, g, out):
    """PyTorch's ``linalg_eig_backward`` for symmetric input:
    ``V (diag(g_e) + skew(V^T G_V) / 2 / (e_j - e_i)) V^T``."""
    ge, gv = g
    e, v = out
    inner = F.mul(_off_diagonal_ratio(F, _skew(F, F.matmul(mT(F, v), gv)), e), 0.5)
    inner = F.add(inner, F.matrix_diag(ge))
    return F.matmul(v, F.matmul(inner, mT(F, v)))


defop("SelfAdjointEigV2", _eigh, _eigh_infer, inputs=("x",), fname="self_adjoint_eig",
      outputs=2, torch_name="LinalgEighBackward0",
      examples=(E((_SYM,)), E((np.stack([_SYM, _SPD]),))),
      grads=(_eigh_grad,))


def _svd(x, full_matrices=False, compute_uv=True):
    """``s, U, V`` with ``x = U diag(s) V^T`` (TF's order; V, not V^T); without ``compute_uv``
    U and V are empty, as TF returns them."""
    _floating(x, "Svd")
    if not compute_uv:
        empty = np.zeros((0,), x.dtype)
        return np.linalg.svd(x, compute_uv=False), empty, empty
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return s, u, np.swapaxes(vh, -1, -2)


def _svd_infer(x: Spec, full_matrices=False, compute_uv=True) -> tuple[Spec, Spec, Spec]:
    shape = _matrices_infer(x, "Svd", square=False)
    if shape is None:
        unknown = Spec(None, x.dtype)
        empty = Spec((0,), x.dtype)
        return (unknown, empty, empty) if not compute_uv else (unknown, unknown, unknown)
    m, n = shape[-2:]
    k = None if m is None or n is None else min(m, n)
    batch = shape[:-2]
    if not compute_uv:
        empty = Spec((0,), x.dtype)
        return Spec(batch + (k,), x.dtype), empty, empty
    return (Spec(batch + (k,), x.dtype), Spec(batch + (m, m if full_matrices else k), x.dtype),
            Spec(batch + (n, n if full_matrices else k), x.dtype))


def _svd_grad(F, g, x, out, full_matrices, compute_uv):
    """PyTorch's ``svd_backward`` (the columns past ``min(m, n)`` of full U or V get none)."""
    gs, gu, gv = g
    s, u, v = out
    m, n = F.shape(x)[-2:]
    if not compute_uv:          # svdvals: U diag(g_s) V^T, U and V computed again
        _, u, v = F.svd(x)
        return F.matmul(F.mul(u, F.expand_dims(gs, axis=-2)), mT(F, v))
    unknown = m is None or n is None      # a graph's unknown dims: the formula for any shape
    k = None if unknown else min(m, n)
    if full_matrices and not unknown and m != n:
        def narrow(a, size):
            return F.split_v(a, sizes=(k, size - k), axis=-1)[0]
        u, gu = (narrow(a, m) for a in (u, gu))
        v, gv = (narrow(a, n) for a in (v, gv))
    s_row, s_col = F.expand_dims(s, axis=-2), F.expand_dims(s, axis=-1)
    both = F.add(F.mul(_skew(F, F.matmul(mT(F, u), gu)), s_row),
                 F.mul(s_col, _skew(F, F.matmul(mT(F, v), gv))))
    inner = F.add(_off_diagonal_ratio(F, both, F.mul(s, s)), F.matrix_diag(gs))
    if unknown:     # both corrections below (the one for a square factor is zero)
        gus, gvs = F.div(gu, s_row), F.div(gv, s_row)
        left = F.add(F.matmul(u, inner), F.sub(gus, F.matmul(u, F.matmul(mT(F, u), gus))))
        right = F.sub(mT(F, gvs), F.matmul(F.matmul(mT(F, gvs), v), mT(F, v)))
        return F.add(F.matmul(left, mT(F, v)), F.matmul(u, right))
    if m > n:       # U's columns span only part of the space: (I - U U^T) G_U S^-1
        gus = F.div(gu, s_row)
        left = F.add(F.matmul(u, inner), F.sub(gus, F.matmul(u, F.matmul(mT(F, u), gus))))
        return F.matmul(left, mT(F, v))
    if m < n:       # likewise for V
        gvs = F.div(gv, s_row)
        right = F.add(F.matmul(inner, mT(F, v)),
                      F.sub(mT(F, gvs), F.matmul(F.matmul(mT(F, gvs), v), mT(F, v))))
        return F.matmul(u, right)
    return F.matmul(u, F.matmul(inner, mT(F, v)))


defop("Svd", _svd, _svd_infer, inputs=("x",), fname="svd", outputs=3,
      torch_name="LinalgSvdBackward0",
      examples=(E(((3, 3),)), E(((4, 2),)), E(((2, 2, 4),)), E(((4, 3),), {"compute_uv": False}),
                E(((3, 3),), {"full_matrices": True})),
      grads=(_svd_grad,))


# --- pseudo-inverse -------------------------------------------------------------------------

def _pinv(x, rtol=None, atol=None, hermitian=False):
    """``V diag(1/s) U^T`` over the singular values ``s > max(atol, rtol * max(s))``
    (PyTorch's defaults: ``rtol = eps * max(m, n)``, or 0 when only ``atol`` is given).
    ``hermitian``: ``x``'s lower triangle holds a symmetric matrix (its eigenvalues' sizes are
    its singular values)."""
    _floating(x, "Pinv")
    m, n = x.shape[-2:]
    if x.size == 0:
        return np.zeros(x.shape[:-2] + (n, m), x.dtype)
    if rtol is None:
        rtol = 0.0 if atol is not None else float(np.finfo(x.dtype).eps) * max(m, n)
    if hermitian:
        low = np.tril(x)
        e, u = np.linalg.eigh(low + np.swapaxes(np.tril(x, -1), -1, -2))
        s, inv_s, v = np.abs(e), e, u
    else:
        u, s, vh = np.linalg.svd(x, full_matrices=False)
        inv_s, v = s, np.swapaxes(vh, -1, -2)
    cutoff = np.maximum(rtol * np.max(s, axis=-1, keepdims=True), atol or 0.0)
    with np.errstate(divide="ignore"):
        scale = np.where(s > cutoff, 1 / np.where(s > cutoff, inv_s, 1), 0).astype(x.dtype)
    return np.matmul(v * scale[..., None, :], np.swapaxes(u, -1, -2))


def _pinv_infer(x: Spec, rtol=None, atol=None, hermitian=False) -> Spec:
    shape = _matrices_infer(x, "Pinv", square=hermitian)
    return Spec(None if shape is None else shape[:-2] + (shape[-1], shape[-2]), x.dtype)


def _pinv_grad(F, g, x, out):
    """PyTorch's ``pinv_backward`` (the derivative of the pseudo-inverse at constant rank),
    in the orientation that keeps the products small."""
    p, pt, gt = out, mT(F, out), mT(F, g)
    m, n = F.shape(x)[-2:]
    if m is None or n is None or m <= n:   # either orientation is exact; this one is smaller
        k = F.matmul(gt, p)
        kpt = F.matmul(k, pt)
        return F.add(F.sub(kpt, mT(F, F.matmul(p, k))),
                     F.sub(F.matmul(F.matmul(pt, p), F.sub(gt, F.matmul(k, x))),
                           F.matmul(F.matmul(x, p), kpt)))
    k = F.matmul(p, gt)
    ptk = F.matmul(pt, k)
    return F.add(F.sub(ptk, mT(F, F.matmul(k, p))),
                 F.sub(F.matmul(F.matmul(F.sub(gt, F.matmul(x, k)), p), pt),
                       F.matmul(F.matmul(ptk, p), x)))


defop("Pinv", _pinv, _pinv_infer, inputs=("x",), fname="pinv", torch_name="LinalgPinvBackward0",
      examples=(E(((3, 3),)), E(((2, 4, 3),)), E(((3, 5),)), E(((3, 3),), {"rtol": 1e-3})),
      grads=(_pinv_grad,))


# --- LU with partial pivoting ---------------------------------------------------------------

def permutation_of(pivots: np.ndarray, m: int) -> np.ndarray:
    """The row order LAPACK's 1-based ``pivots`` (row ``i`` swapped with row ``pivots[i]``,
    in turn) make of ``m`` rows: ``A[order] = L U``."""
    order = np.broadcast_to(np.arange(m), pivots.shape[:-1] + (m,)).copy()
    flat, piv = order.reshape(-1, m), pivots.reshape(-1, pivots.shape[-1]) - 1
    for row, p in zip(flat, piv):
        for i, j in enumerate(p):
            row[i], row[j] = row[j], row[i]
    return order


def permutation_matrix(pivots: np.ndarray, m: int, dtype) -> np.ndarray:
    """``P`` with ``A = P L U`` for LAPACK's ``pivots``."""
    order = permutation_of(pivots, m)
    return np.swapaxes(np.eye(m, dtype=dtype)[order], -1, -2)


def _lu_factor(x):
    """``(LU, pivots, P)``: L (unit lower, below the diagonal) and U packed in one matrix,
    LAPACK's 1-based int32 pivots, and the permutation matrix with ``x = P L U``."""
    _floating(x, "LuFactor")
    m, n = x.shape[-2:]
    k = min(m, n)
    lu = np.array(x, copy=True)
    pivots = np.broadcast_to(np.arange(1, k + 1, dtype=np.int32), x.shape[:-2] + (k,)).copy()
    if x.size:
        flat_lu, flat_piv = lu.reshape((-1, m, n)), pivots.reshape((-1, k))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")    # a zero pivot is reported by info, not here
            for i, a in enumerate(flat_lu):
                flat_lu[i], piv = scipy_linalg().lu_factor(a, check_finite=False)
                flat_piv[i] = piv + 1
    return lu, pivots, permutation_matrix(pivots, m, x.dtype)


def _lu_factor_infer(x: Spec) -> tuple[Spec, Spec, Spec]:
    shape = _matrices_infer(x, "LuFactor", square=False)
    if shape is None:
        return Spec(None, x.dtype), Spec(None, np.dtype(np.int32)), Spec(None, x.dtype)
    m, n = shape[-2:]
    k = None if m is None or n is None else min(m, n)
    return (Spec(shape, x.dtype), Spec(shape[:-2] + (k,), np.dtype(np.int32)),
            Spec(shape[:-2] + (m, m), x.dtype))


def _strictly_lower(F, a):
    return F.sub(F.matrix_band_part(a, num_lower=-1, num_upper=0),
                 F.matrix_band_part(a, num_lower=0, num_upper=0))


def _upper(F, a):
    return F.matrix_band_part(a, num_lower=0, num_upper=-1)


def _lu_square_grad(F, packed, g_l, g_u):
    """``L^-T (tril_-1(L^T G_L) + triu(G_U U^T)) U^-T`` for square unit-lower L and upper U,
    both read from ``packed`` (PyTorch's ``linalg_lu_backward``, m == n)."""
    unit_lower = F.add(_strictly_lower(F, packed),
                       F.matrix_diag(F.ones_like(F.sum(packed, axis=-1))))
    u = _upper(F, packed)
    gx = F.add(_strictly_lower(F, F.matmul(mT(F, unit_lower), g_l)),
               _upper(F, F.matmul(g_u, mT(F, u))))
    t = F.matrix_triangular_solve(packed, gx, lower=True, adjoint=True, unit_diagonal=True)
    return mT(F, F.matrix_triangular_solve(packed, mT(F, t), lower=False))


def _lu_grad(F, g, x, out):
    """The gradient of the packed ``LU`` (L's part below the diagonal, U's on and above);
    a wide matrix's extra columns of U and a tall one's extra rows of L fold into the square
    block's cotangents, as PyTorch derives them."""
    g_lu = g[0]
    packed, _, p = out
    m, n = F.shape(x)[-2:]
    if m is None or n is None or m == n:   # unknown dims: taken as square (another shape
        # fails at run time, naming the node)
        grad = _lu_square_grad(F, packed, _strictly_lower(F, g_lu), _upper(F, g_lu))
    elif m < n:     # U = [U1 | U2], U2 = L^-1 P^T A2
        sq, u2 = F.split_v(packed, sizes=(m, n - m), axis=-1)
        g1, g2 = F.split_v(g_lu, sizes=(m, n - m), axis=-1)
        g_a2 = F.matrix_triangular_solve(sq, g2, lower=True, adjoint=True, unit_diagonal=True)
        g_l = _strictly_lower(F, F.sub(g1, F.matmul(g_a2, mT(F, u2))))
        grad = F.concat(_lu_square_grad(F, sq, g_l, _upper(F, g1)), g_a2, axis=-1)
    else:           # L = [L1; L2], L2 = P^T A2 U^-1
        sq, l2 = F.split_v(packed, sizes=(n, m - n), axis=-2)
        g1, g2 = F.split_v(g_lu, sizes=(n, m - n), axis=-2)
        g_a2 = mT(F, F.matrix_triangular_solve(sq, mT(F, g2), lower=False))
        g_u = _upper(F, F.sub(g1, F.matmul(mT(F, l2), g_a2)))
        grad = F.concat(_lu_square_grad(F, sq, _strictly_lower(F, g1), g_u), g_a2, axis=-2)
    return F.matmul(p, grad)


defop("LuFactor", _lu_factor, _lu_factor_infer, inputs=("x",), fname="lu_factor", outputs=3,
      torch_name="LinalgLuFactorExBackward0",
      examples=(E(((3, 3),)), E(((2, 3, 5),)), E(((2, 5, 3),)), E(((2, 4, 4),))),
      grads=(_lu_grad,))


# --- matrix exponential ---------------------------------------------------------------------

def _expm(x):
    """scipy's scaling-and-squaring Padé ``expm``; a float32 (or narrower) matrix in float64,
    rounded once at the end.  In float32 the squarings amplify the products' rounding: on one
    of torch's ``op_db`` samples (5x5, entries up to 9) torch's own float32 answer is 0.24% off
    the true value and scipy's float32 one 0.15% -- a figure that moved with the BLAS's SIMD
    path from machine to machine.  In float64 the answer is the true value rounded, the same
    bits on every machine."""
    _floating(x, "MatrixExponential")
    if x.size == 0:
        return np.array(x, copy=True)
    work = x if x.dtype.itemsize >= 8 else x.astype(np.float64)
    return np.asarray(scipy_linalg().expm(work), dtype=x.dtype)


def _expm_grad(F, g, x):
    """PyTorch's ``matrix_exp_backward``: the upper-right block of
    ``exp([[A^T, G], [0, A^T]])`` (the Fréchet derivative's adjoint)."""
    at = mT(F, x)
    top = F.concat(at, g, axis=-1)
    bottom = F.concat(F.zeros_like(at), at, axis=-1)
    n = F.shape(x)[-1]
    upper, _ = F.split_v(F.matrix_exponential(F.concat(top, bottom, axis=-2)), sizes=(n, n),
                         axis=-2)
    return F.split_v(upper, sizes=(n, n), axis=-1)[1]


defop("MatrixExponential", _expm, _square_infer("MatrixExponential"), inputs=("x",),
      fname="matrix_exponential", torch_name="LinalgMatrixExpBackward0",
      examples=(E(((3, 3),)), E(((2, 2, 2),))),
      grads=(_expm_grad,))


# --- solves with a Cholesky factor ----------------------------------------------------------

def _cholesky_solve(rhs, chol, upper=False):
    """``X`` with ``(L L^T) X = B`` (``U^T U`` when ``upper``).  The product is formed from the
    whole factor, so the op's derivative is PyTorch's ``cholesky_solve_backward`` (which
    treats the factor as a full matrix)."""
    _floating(chol, "CholeskySolve")
    t = np.swapaxes(chol, -1, -2)
    return np.linalg.solve(t @ chol if upper else chol @ t, rhs)


def _cholesky_solve_infer(rhs: Spec, chol: Spec, upper=False) -> Spec:
    return _solve_infer(chol, rhs)


def _cholesky_solve_grad_chol(F, g, rhs, chol, out, chol_shape, upper):
    gb = F.cholesky_solve(g, chol, upper=upper)
    s = F.matmul(gb, mT(F, out))
    s = F.add(s, mT(F, s))
    return ub(F, F.neg(F.matmul(chol, s) if upper else F.matmul(s, chol)), chol_shape)


defop("CholeskySolve", _cholesky_solve, _cholesky_solve_infer, inputs=("rhs", "chol"),
      fname="cholesky_solve", torch_name="CholeskySolveBackward0",
      examples=(E(((3, 2), np.linalg.cholesky(_SPD))),
                E(((2, 3, 1), np.ascontiguousarray(np.linalg.cholesky(_SPD).T)), {"upper": True})),
      grads=(lambda F, g, chol, rhs_shape, upper:
                 ub(F, F.cholesky_solve(g, chol, upper=upper), rhs_shape),
             _cholesky_solve_grad_chol))

"""Matrix multiplication: 2-D and batched (numpy ``matmul`` semantics, rank >= 2).

Gradients: ``dA = G @ B^T`` and ``dB = A^T @ G``, summed over broadcast batch dims.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..blas import matmul, matmul_for
from ..errors import DTypeError, ShapeError
from ..examples import Example as E
from ..registry import Spec, defop
from ..shapes import broadcast_shapes, conjugate, fmt_shape, result_dtype, unbroadcast as ub


def _matmul_infer(a: Spec, b: Spec) -> Spec:
    dtype = result_dtype(a.dtype, b.dtype)
    if a.shape is None or b.shape is None:
        return Spec(None, dtype)
    if len(a.shape) < 2 or len(b.shape) < 2:
        low = min(len(a.shape), len(b.shape))
        raise ShapeError(f"matmul needs tensors of rank >= 2, got {fmt_shape(a.shape)} "
                         f"and {fmt_shape(b.shape)}", tf=f"Shape must be rank 2 but is rank {low}")
    k1, k2 = a.shape[-1], b.shape[-2]
    if k1 is not None and k2 is not None and k1 != k2:
        raise ShapeError(tf=f"Dimensions must be equal, but are {k1} and {k2}", message=
                         f"matmul of {fmt_shape(a.shape)} and {fmt_shape(b.shape)}: inner dims "
                         f"{k1} and {k2} differ")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return Spec(batch + (a.shape[-2], b.shape[-1]), dtype)


def matrix_transpose(F, x):
    """Swap the last two axes (the batch axes stay); of unknown rank: the SwapLastAxes op."""
    r = F.rank(x)
    if r == 2:
        return F.transpose(x)   # a matrix: all axes reversed, no perm (generated code: x.T)
    if r is None:
        return F.swap_last_axes(x)
    return F.transpose(x, perm=tuple(range(r - 2)) + (r - 1, r - 2))


def adjoint(F, x):
    """The conjugate transpose of (a stack of) matrices: a product's gradient rule multiplies
    by it (for real matrices it is the transpose).  A real float32/float64 numpy matrix (the
    eager backward's every 2-D product) goes straight to the one ``F.transpose`` the general
    path ends in: ~0.33 -> ~0.12 us a call, two calls per product node."""
    if type(x) is np.ndarray and x.ndim == 2 and (x.dtype is _FLOAT32 or x.dtype is _FLOAT64):
        return F.transpose(x)
    return conjugate(F, matrix_transpose(F, x))


_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)


def _swap_last_axes_infer(x: Spec) -> Spec:
    if x.shape is None:
        return Spec(None, x.dtype)
    if len(x.shape) < 2:
        raise ShapeError(f"swapping the last two axes needs rank >= 2, got {fmt_shape(x.shape)}")
    return Spec(x.shape[:-2] + (x.shape[-1], x.shape[-2]), x.dtype)


defop("SwapLastAxes", lambda x: np.swapaxes(x, -1, -2), _swap_last_axes_infer, inputs=("x",),
      fname="swap_last_axes", torch_name="TransposeBackward0", aliases=(0,),
      examples=(E(((2, 3),)), E(((4, 2, 3),))),
      grads=(lambda F, g: F.swap_last_axes(g),))


def _static_matmul(a_shape, b_shape):
    """A product of matrices known to be at most 2-D never folds: :func:`common.blas.matmul_for`
    picks its function once, numpy's own ``matmul`` for a small one (no Python call between:
    ~0.3 us a product, which a small RNN step feels).  (The impl, :func:`common.blas.matmul`:
    MKL from a size where installed; a stack times a matrix folded into one product.)"""
    return matmul_for(a_shape, b_shape) if a_shape is not None and len(a_shape) <= 2 else None


defop("MatMul", matmul, _matmul_infer, static_impl=_static_matmul, inputs=("a", "b"), fname="matmul",
      torch_name="MmBackward0",
      torch_names={"bmm": "BmmBackward0", "batched": "UnsafeViewBackward0"},
      examples=(E(((2, 3), (3, 4))), E(((5, 2, 3), (3, 4))), E(((5, 2, 3), (5, 3, 1))),
                E(((1, 2, 3), (4, 3, 2)))),
      grads=(lambda F, g, b, a_shape: ub(F, F.matmul(g, adjoint(F, b)), a_shape),
             lambda F, g, a, b_shape: ub(F, F.matmul(adjoint(F, a), g), b_shape)))


def _orthonormal_factor(x):
    """``Q`` of ``x = Q R`` (reduced), signs fixed so that ``diag(R) >= 0``: the unique factor."""
    if x.dtype.kind != "f":
        raise TypeError(f"QR needs a floating-point matrix, not {x.dtype}")
    q, r = np.linalg.qr(x)
    d = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return q * np.where(d == 0, 1, d)[..., None, :]


def _orthonormal_factor_infer(x: Spec) -> Spec:
    if np.dtype(x.dtype).kind != "f":
        raise DTypeError(f"QR needs a floating-point matrix, not {np.dtype(x.dtype)}")
    if x.shape is None:
        return x
    if len(x.shape) < 2:
        raise ShapeError(f"QR needs a matrix, got shape {fmt_shape(x.shape)}")
    m, n = x.shape[-2:]
    return Spec(x.shape[:-1] + (None if m is None or n is None else min(m, n),), x.dtype)


defop("OrthonormalFactor", _orthonormal_factor, _orthonormal_factor_infer, inputs=("x",),
      fname="orthonormal_factor", examples=(E(((4, 3),)), E(((3, 3),))))


# --- einsum ---------------------------------------------------------------------------------
# The op's equation is always explicit ("ij,jk->ik", no "..." and no implicit output):
# ``einsum_equation`` spells a user's equation out once the operands' ranks are known, so the
# gradient rule can read every subscript.


def einsum_equation(equation: str, ranks: Sequence[int]) -> str:
    """``equation`` with ``...`` replaced by letters and the output written out.

    >>> einsum_equation("...ij,jk", (3, 2))
    'aij,jk->aik'
    """
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ValueError("einsum(): more operands were provided than specified in the equation"
                         if len(ranks) > len(terms) else
                         "einsum(): fewer operands were provided than specified in the equation")
    used = set(equation) - set(".,->")
    free = (c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used)
    n_ell = max((r - len(t.replace("...", "")) for t, r in zip(terms, ranks) if "..." in t),
                default=0)
    ell = "".join(next(free) for _ in range(n_ell))
    spelled = []
    for t, r in zip(terms, ranks):
        if "..." in t:
            k = r - len(t.replace("...", ""))
            t = t.replace("...", ell[n_ell - k:] if k else "")
        if len(t) != r:
            raise ValueError(f"einsum(): the number of subscripts in the equation ({len(t)}) does "
                             f"not match the number of dimensions ({r}) for operand "
                             f"{len(spelled)} and no ellipsis was given")
        spelled.append(t)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {c: "".join(spelled).count(c) for c in "".join(spelled)}
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return ",".join(spelled) + "->" + out


def _einsum(*xs, equation):
    return np.einsum(equation, *xs, optimize=len(xs) > 2)


def _einsum_infer(*xs: Spec, equation) -> Spec:
    lhs, out = equation.split("->")
    sizes: dict = {}
    for term, x in zip(lhs.split(","), xs):
        if x.shape is None:
            continue
        if len(term) != len(x.shape):
            raise ShapeError(f"einsum {equation!r}: operand {fmt_shape(x.shape)} needs "
                             f"{len(term)} dims")
        for c, d in zip(term, x.shape):
            if d is not None and sizes.get(c, d) not in (d, 1) and d != 1:
                raise ShapeError(f"einsum {equation!r}: subscript {c!r} has sizes "
                                 f"{sizes[c]} and {d}")
            if d is not None and (sizes.get(c) in (None, 1)):
                sizes[c] = d
    dtype = result_dtype(*[x.dtype for x in xs])
    return Spec(tuple(sizes.get(c) for c in out), dtype)


def _einsum_grad(F, g, xs, xs_shape, index, equation):
    """Operand i's gradient is an einsum of ``g`` with the other operands.

    Subscripts of operand i that appear nowhere else were summed over: the
    product is computed without them and then broadcast back along them.
    """
    lhs, out = equation.split("->")
    terms = lhs.split(",")
    mine = terms[index]
    if len(set(mine)) != len(mine):
        raise ValueError(f"einsum {equation!r}: the gradient of an operand with a repeated "
                         f"subscript (a diagonal) is not supported")
    others = [t for k, t in enumerate(terms) if k != index]
    elsewhere = set(out).union(*others)
    kept = "".join(c for c in mine if c in elsewhere)
    grad = F.einsum(g, *[x for k, x in enumerate(xs) if k != index],
                    equation=",".join([out] + others) + "->" + kept)
    if kept != mine:
        dropped = tuple(k for k, c in enumerate(mine) if c not in elsewhere)
        grad = F.broadcast_like(F.expand_dims(grad, axis=dropped), xs_shape[index])
    return grad


defop("Einsum", _einsum, _einsum_infer, inputs=("*xs",), fname="einsum",
      torch_name="EinsumBackward0", aliases=(0,),  # a pure permutation ("ij->ji") is a view
      examples=(E(((2, 3), (3, 4)), {"equation": "ij,jk->ik"}),
                E(((5, 2, 3), (5, 3, 4)), {"equation": "bij,bjk->bik"}),
                E(((2, 3),), {"equation": "ij->j"}), E(((2, 3),), {"equation": "ij->ji"}),
                E(((3,), (4,)), {"equation": "i,j->ij"}),
                E(((2, 3), (2, 3), (3,)), {"equation": "ij,ij,j->i"})),
      grads=(_einsum_grad,))

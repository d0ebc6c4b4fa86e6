"""The fused cells' gradient kernels compiled with numba: one pass, the numpy code's bits.

An LSTM step's gradient (``common.ops.cells._lstm_cell_grad``) is some twenty numpy calls
over ``(batch, hidden)`` blocks -- products and sums only, the activations come from the
forward's workspace.  Here it is one loop doing per element what those calls do per array:
the same IEEE operations in the same order and precision (no ``fastmath``; float32 stays
float32 because ``one`` is passed in the arrays' dtype -- numba would widen ``1 - x`` to
float64), so the same bits.  Nothing here is called directly: ``common.ops.cells`` imports
this module (and so numba, through :func:`common.fastpath.numba_module`) on the first
gradient large enough to repay it, and runs its numpy code where numba is missing.
``cache=True`` keeps the machine code between processes.
"""
from __future__ import annotations

from numba import njit

__all__ = ["lstm_cell_grad", "gru_cell_grad"]


@njit(cache=True, nogil=True)
def lstm_cell_grad(ws, c, gh, gc, gws, dgates, dc, one):    # pragma: no cover (numba)
    """Rows of ``(batch, H)``: ``ws``/``gws`` ``(rows, 5H)``, ``dgates`` ``(rows, 4H)``."""
    rows, n = c.shape
    for r in range(rows):
        for k in range(n):
            i, f, g = ws[r, k], ws[r, n + k], ws[r, 2 * n + k]
            o, t = ws[r, 3 * n + k], ws[r, 4 * n + k]
            d = gh[r, k] * o
            d += gws[r, 4 * n + k]
            d *= one - t * t
            d += gc[r, k]
            dgates[r, k] = (d * g + gws[r, k]) * (i * (one - i))
            dgates[r, n + k] = (d * c[r, k] + gws[r, n + k]) * (f * (one - f))
            dgates[r, 2 * n + k] = (d * i + gws[r, 2 * n + k]) * (one - g * g)
            dgates[r, 3 * n + k] = (gh[r, k] * t + gws[r, 3 * n + k]) * (o * (one - o))
            dc[r, k] = d * f


@njit(cache=True, nogil=True)
def gru_cell_grad(ws, h, dh, gws, d_gi, d_gh, d_h, one):    # pragma: no cover (numba)
    """Rows of ``(batch, H)``: ``ws``/``gws`` ``(rows, 4H)``, ``d_gi``/``d_gh`` ``(rows, 3H)``."""
    rows, n = h.shape
    for q in range(rows):
        for k in range(n):
            r, z, new, gh_n = ws[q, k], ws[q, n + k], ws[q, 2 * n + k], ws[q, 3 * n + k]
            g = dh[q, k]
            a_n = (one - z) * g
            a_n += gws[q, 2 * n + k]
            a_n *= one - new * new
            a_r = a_n * gh_n
            a_r += gws[q, k]
            a_r *= r * (one - r)
            a_z = (h[q, k] - new) * g
            a_z += gws[q, n + k]
            a_z *= z * (one - z)
            d_gi[q, k], d_gi[q, n + k], d_gi[q, 2 * n + k] = a_r, a_z, a_n
            d_gh[q, k], d_gh[q, n + k] = a_r, a_z
            d_gh[q, 2 * n + k] = a_n * r + gws[q, 3 * n + k]
            d_h[q, k] = z * g

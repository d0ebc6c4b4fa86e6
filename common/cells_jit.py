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

__all__ = ["lstm_cell_grad"]


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

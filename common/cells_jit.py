"""The fused cells' kernels compiled with numba: the forward in one vectorised pass, the
gradient in one pass with the numpy code's bits.

An LSTM step's gradient (``common.ops.cells._lstm_cell_grad``) is some twenty numpy calls
over ``(batch, hidden)`` blocks -- products and sums only, the activations come from the
forward's workspace.  Here it is one loop doing per element what those calls do per array:
the same IEEE operations in the same order and precision (no ``fastmath``; float32 stays
float32 because ``one`` is passed in the arrays' dtype -- numba would widen ``1 - x`` to
float64), so the same bits.

The forward kernels (:func:`lstm_cell`, :func:`gru_cell`) compute the sigmoids and tanhs
with :mod:`common.vmath`'s polynomials, which LLVM vectorises (numpy's and libm's are
scalar here): within a few ulps of the numpy code, not its bits -- ``common.ops.cells``
runs them only when its exact switch is off.

Nothing here is called directly: ``common.ops.cells`` imports this module (and so numba,
through :func:`common.fastpath.numba_module`) on the first cell large enough to repay it,
and runs its numpy code where numba is missing.  ``cache=True`` keeps the machine code
between processes.
"""
from __future__ import annotations

from numba import njit

from . import vmath

__all__ = ["lstm_cell", "gru_cell", "lstm_cell_grad", "gru_cell_grad", "lstm_layer_step",
           "lstm_layer_step_grad"]


@njit(cache=True, nogil=True)
def lstm_cell(gates, c, ws, h_c):    # pragma: no cover (numba)
    """Rows of ``(batch, H)``: ``gates`` ``(rows, 4H)``; writes ``[i, f, g, o, tanh(c')]``
    into ``ws`` ``(rows, 5H)`` and ``h'``, ``c'`` into ``h_c`` ``(2, rows, H)``.

    Each block of a row is its own slice: LLVM vectorises a loop that writes several
    slices of one array (checking at run time that they do not overlap), not one that
    writes one array at offsets ``k`` and ``n + k``."""
    rows, n = c.shape
    for r in range(rows):
        g_i, g_f, g_g, g_o = gates[r, :n], gates[r, n:2 * n], gates[r, 2 * n:3 * n], gates[r, 3 * n:]
        w_i, w_f, w_g, w_o, w_t = ws[r, :n], ws[r, n:2 * n], ws[r, 2 * n:3 * n], \
            ws[r, 3 * n:4 * n], ws[r, 4 * n:]
        c_old, h_new, c_new = c[r], h_c[0, r], h_c[1, r]
        for k in range(n):
            i, f = vmath.sigmoid(g_i[k]), vmath.sigmoid(g_f[k])
            g, o = vmath.tanh(g_g[k]), vmath.sigmoid(g_o[k])
            cell = c_old[k] * f + i * g
            t = vmath.tanh(cell)
            w_i[k], w_f[k], w_g[k], w_o[k], w_t[k] = i, f, g, o, t
            h_new[k], c_new[k] = t * o, cell


@njit(cache=True, nogil=True)
def gru_cell(gi, gh, h, h_new, ws, one):    # pragma: no cover (numba)
    """Rows of ``(batch, H)``: ``gi``/``gh`` ``(rows, 3H)``; writes ``h'`` and
    ``[r, z, n, gh_n]`` into ``ws`` ``(rows, 4H)`` (block slices, as :func:`lstm_cell`)."""
    rows, n = h.shape
    for q in range(rows):
        i_r, i_z, i_n = gi[q, :n], gi[q, n:2 * n], gi[q, 2 * n:]
        h_r, h_z, h_n = gh[q, :n], gh[q, n:2 * n], gh[q, 2 * n:]
        w_r, w_z, w_n, w_hn = ws[q, :n], ws[q, n:2 * n], ws[q, 2 * n:3 * n], ws[q, 3 * n:]
        h_old, out = h[q], h_new[q]
        for k in range(n):
            r = vmath.sigmoid(i_r[k] + h_r[k])
            z = vmath.sigmoid(i_z[k] + h_z[k])
            new = vmath.tanh(i_n[k] + r * h_n[k])
            w_r[k], w_z[k], w_n[k], w_hn[k] = r, z, new, h_n[k]
            out[k] = z * h_old[k] + (one - z) * new


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


@njit(cache=True, nogil=True)
def lstm_layer_step(gx, b, hw, c_src, c_off, ws, h):    # pragma: no cover (numba)
    """One step of ``common.ops.rnn_layer``'s ``LSTMLayer``: :func:`lstm_cell` on the gates
    ``(gx + b) + hw`` (``(rows, 4H)``: the projected input, the bias ``(4H,)`` and ``h @
    W_hh.T``, summed here rather than in passes of their own), the previous cell state in
    columns ``c_off`` to ``c_off + H`` of ``c_src`` (``c0``, or the previous step's
    workspace); writes ``h'`` into ``h`` and ``[i, f, g, o, tanh(c'), c']`` into ``ws``
    ``(rows, 6H)``."""
    rows, n = h.shape
    b_i, b_f, b_g, b_o = b[:n], b[n:2 * n], b[2 * n:3 * n], b[3 * n:]
    for r in range(rows):
        x_i, x_f, x_g, x_o = gx[r, :n], gx[r, n:2 * n], gx[r, 2 * n:3 * n], gx[r, 3 * n:]
        y_i, y_f, y_g, y_o = hw[r, :n], hw[r, n:2 * n], hw[r, 2 * n:3 * n], hw[r, 3 * n:]
        w_i, w_f, w_g, w_o = ws[r, :n], ws[r, n:2 * n], ws[r, 2 * n:3 * n], ws[r, 3 * n:4 * n]
        w_t, w_c = ws[r, 4 * n:5 * n], ws[r, 5 * n:]
        c_old, h_new = c_src[r, c_off:c_off + n], h[r]
        for k in range(n):
            i = vmath.sigmoid((x_i[k] + b_i[k]) + y_i[k])
            f = vmath.sigmoid((x_f[k] + b_f[k]) + y_f[k])
            g = vmath.tanh((x_g[k] + b_g[k]) + y_g[k])
            o = vmath.sigmoid((x_o[k] + b_o[k]) + y_o[k])
            cell = c_old[k] * f + i * g
            t = vmath.tanh(cell)
            w_i[k], w_f[k], w_g[k], w_o[k], w_t[k], w_c[k] = i, f, g, o, t, cell
            h_new[k] = t * o


@njit(cache=True, nogil=True)
def lstm_layer_step_grad(ws, c_src, c_off, g_out, dh, dc, dgates, one):    # pragma: no cover
    """One step of ``LSTMLayerGrad``: :func:`lstm_cell_grad` with a zero workspace cotangent,
    ``gh = g_out + dh`` (the output's cotangent and the next step's ``dgates @ W_hh``) and
    ``gc = dc``, which it overwrites with the previous cell state's gradient (each element
    is read before it is written); ``ws`` is the step's ``(rows, 6H)`` workspace, the
    previous cell state in ``c_src``'s columns ``c_off`` to ``c_off + H``.  Block slices per
    row, as :func:`lstm_cell`: 7 us for a (32, 128) state where indexing the rows at offsets
    took 10.4 (the same bits)."""
    rows, n = dc.shape
    for r in range(rows):
        w_i, w_f, w_g, w_o = ws[r, :n], ws[r, n:2 * n], ws[r, 2 * n:3 * n], ws[r, 3 * n:4 * n]
        w_t, c_old = ws[r, 4 * n:5 * n], c_src[r, c_off:c_off + n]
        go, dh_r, dc_r = g_out[r], dh[r], dc[r]
        d_i, d_f, d_g, d_o = dgates[r, :n], dgates[r, n:2 * n], dgates[r, 2 * n:3 * n], \
            dgates[r, 3 * n:]
        for k in range(n):
            i, f, g, o, t = w_i[k], w_f[k], w_g[k], w_o[k], w_t[k]
            gh = go[k] + dh_r[k]
            d = gh * o
            d *= one - t * t
            d += dc_r[k]
            d_i[k] = (d * g) * (i * (one - i))
            d_f[k] = (d * c_old[k]) * (f * (one - f))
            d_g[k] = (d * i) * (one - g * g)
            d_o[k] = (gh * t) * (o * (one - o))
            dc_r[k] = d * f

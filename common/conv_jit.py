"""The convolution's Winograd F(2x2, 3x3) transforms and the max-pool gradient compiled with
numba: one pass each, the numpy code's bits.

:mod:`common.ops.conv_algorithms` spends a Winograd convolution's time in 16 GEMMs and in the
transforms around them, which numpy runs as a dozen strided calls each (``B^T d B`` of every
4x4 input tile, ``A^T m A`` of every output block, ``A g A^T`` of every gradient block): on
the bench's 64x14x14x32 input those calls took ~4 ms beside ~8 ms of GEMMs.  Here each
transform is one loop over the tiles, the channels innermost (contiguous, vectorised), doing
per channel what the numpy calls do per array -- the same IEEE additions in the same order
(no ``fastmath``), so the same bits.  Each row of a transform is its own inner loop
(``_input_row``, ``_grad_row``) with four stores: sixteen stores in one loop would need more
aliasing checks than LLVM's vectoriser makes, and it would run scalar.  The max-pool
forward (:func:`max_pool`) is numpy's chain of ``np.maximum`` over the offsets' strided views
(plus a copy) as one pass over the windows, and its gradient (:func:`max_pool_grad`) is numpy's ~16 calls over the offsets' strided views (the
window maxima again, then first hits) as one pass over the windows.

Nothing here is called directly: :func:`common.ops.conv_algorithms.compiled_kernels` imports
this module (and so numba, through :func:`common.fastpath.numba_module`) for the first input
of ``JIT_MIN`` elements or more, and the numpy code runs below that or where numba is
missing.  ``cache=True`` keeps the machine code between processes.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["winograd_input", "winograd_output", "winograd_grad_blocks", "max_pool", "max_pool_grad",
           "bias_add"]


@njit(cache=True, nogil=True, inline="always")
def _input_row(s, i0, i1, minus, j, d, k, t):    # pragma: no cover (numba)
    """Rows ``k..k+3`` of ``B^T s B`` for the tile at column ``j``: the tile row ``s[i0] - s[i1]``
    (or ``+`` when not ``minus``), then ``B`` along its four columns."""
    for ch in range(s.shape[2]):
        if minus:
            r0, r1 = s[i0, j, ch] - s[i1, j, ch], s[i0, j + 1, ch] - s[i1, j + 1, ch]
            r2, r3 = s[i0, j + 2, ch] - s[i1, j + 2, ch], s[i0, j + 3, ch] - s[i1, j + 3, ch]
        else:
            r0, r1 = s[i0, j, ch] + s[i1, j, ch], s[i0, j + 1, ch] + s[i1, j + 1, ch]
            r2, r3 = s[i0, j + 2, ch] + s[i1, j + 2, ch], s[i0, j + 3, ch] + s[i1, j + 3, ch]
        d[k, t, ch] = r0 - r2
        d[k + 1, t, ch] = r1 + r2
        d[k + 2, t, ch] = r2 - r1
        d[k + 3, t, ch] = r1 - r3


@njit(cache=True, nogil=True)
def winograd_input(x, top, left, a, b, th, tw, d):    # pragma: no cover (numba)
    """``d[:, t]`` = ``B^T tile B`` of the ``th x tw`` 4x4 tiles (stride 2) of images ``a..b-1``
    of channels-last ``x``, zero-padded by ``top`` rows and ``left`` columns (and zeros past
    its far edges); ``d`` is ``(16, (b-a)*th*tw, C)``.  Each image is first copied into a
    zeroed scratch image (in cache), so the tiles read no bounds."""
    h, w = x.shape[1], x.shape[2]
    s = np.zeros((2 * th + 2, 2 * tw + 2, x.shape[3]), d.dtype)
    t = 0
    for n in range(a, b):
        s[top:top + h, left:left + w] = x[n]
        for ti in range(th):
            i = 2 * ti
            for tj in range(tw):
                j = 2 * tj          # B^T's rows: d0 - d2, d1 + d2, d2 - d1, d1 - d3
                _input_row(s, i, i + 2, True, j, d, 0, t)
                _input_row(s, i + 1, i + 2, False, j, d, 4, t)
                _input_row(s, i + 2, i + 1, True, j, d, 8, t)
                _input_row(s, i + 1, i + 3, True, j, d, 12, t)
                t += 1


@njit(cache=True, nogil=True)
def winograd_output(m, a, b, th, tw, y):    # pragma: no cover (numba)
    """``y[a:b]`` (channels-last, ``(N, 2*th, 2*tw, O)``): ``A^T m A`` of each tile's 16 GEMM
    results ``m[:, t]`` (``A^T = [[1,1,1,0], [0,1,-1,-1]]``, along the tile rows, then columns)."""
    t = 0
    for n in range(a, b):
        for ti in range(th):
            i = 2 * ti
            for tj in range(tw):
                j = 2 * tj
                for ch in range(m.shape[2]):
                    p0 = m[0, t, ch] + m[4, t, ch] + m[8, t, ch]
                    p1 = m[1, t, ch] + m[5, t, ch] + m[9, t, ch]
                    p2 = m[2, t, ch] + m[6, t, ch] + m[10, t, ch]
                    p3 = m[3, t, ch] + m[7, t, ch] + m[11, t, ch]
                    q0 = m[4, t, ch] - m[8, t, ch] - m[12, t, ch]
                    q1 = m[5, t, ch] - m[9, t, ch] - m[13, t, ch]
                    q2 = m[6, t, ch] - m[10, t, ch] - m[14, t, ch]
                    q3 = m[7, t, ch] - m[11, t, ch] - m[15, t, ch]
                    y[n, i, j, ch] = p0 + p1 + p2
                    y[n, i, j + 1, ch] = p1 - p2 - p3
                    y[n, i + 1, j, ch] = q0 + q1 + q2
                    y[n, i + 1, j + 1, ch] = q1 - q2 - q3
                t += 1


@njit(cache=True, nogil=True, inline="always")
def _grad_row(g, n, i, mode, j, e, k, t):    # pragma: no cover (numba)
    """Rows ``k..k+3`` of ``A gy A^T`` for the 2x2 block at ``(i, j)``: the block-row combination
    ``mode`` (0: ``r0``, 1: ``r0 + r1``, 2: ``r0 - r1``, 3: ``-r1``), then the same along its
    two columns."""
    for ch in range(g.shape[3]):
        if mode == 0:
            v0, v1 = g[n, i, j, ch], g[n, i, j + 1, ch]
        elif mode == 1:
            v0, v1 = g[n, i, j, ch] + g[n, i + 1, j, ch], g[n, i, j + 1, ch] + g[n, i + 1, j + 1, ch]
        elif mode == 2:
            v0, v1 = g[n, i, j, ch] - g[n, i + 1, j, ch], g[n, i, j + 1, ch] - g[n, i + 1, j + 1, ch]
        else:
            v0, v1 = -g[n, i + 1, j, ch], -g[n, i + 1, j + 1, ch]
        e[k, t, ch] = v0
        e[k + 1, t, ch] = v0 + v1
        e[k + 2, t, ch] = v0 - v1
        e[k + 3, t, ch] = -v1


@njit(cache=True, nogil=True)
def winograd_grad_blocks(g, a, b, th, tw, e):    # pragma: no cover (numba)
    """``e[:, t]`` = ``A gy A^T`` of the 2x2 blocks ``gy`` of images ``a..b-1`` of the output
    gradient ``g`` ``(N, 2*th, 2*tw, O)``; ``e`` is ``(16, (b-a)*th*tw, O)``."""
    t = 0
    for n in range(a, b):
        for ti in range(th):
            i = 2 * ti
            for tj in range(tw):
                j = 2 * tj          # one call per mode: a constant, so each inner loop is branch-free
                _grad_row(g, n, i, 0, j, e, 0, t)
                _grad_row(g, n, i, 1, j, e, 4, t)
                _grad_row(g, n, i, 2, j, e, 8, t)
                _grad_row(g, n, i, 3, j, e, 12, t)
                t += 1


@njit(cache=True, nogil=True)
def max_pool(x, top, left, kh, kw, sh, sw, y):    # pragma: no cover (numba)
    """``y`` ``(N, Ho, Wo, C)``: the maximum of each window of channels-last ``x`` padded with
    ``-inf`` by ``top``/``left`` (and past its far edges), folded in offset order by the rule
    numpy 2.4's ``np.maximum(best, v)`` follows (its AVX-512 loop and its scalar tail alike,
    checked on this machine) -- ``b if b > v or b != b else v``: a NaN wins and stays, and of
    two equal zeros the later one's sign -- so the same bits as the numpy chain."""
    h, w = x.shape[1], x.shape[2]
    ninf = x.dtype.type(-np.inf)
    for n in range(x.shape[0]):
        for i in range(y.shape[1]):
            for j in range(y.shape[2]):
                best = y[n, i, j]
                for p in range(kh):
                    row = i * sh + p - top
                    for q in range(kw):
                        col = j * sw + q - left
                        inside = 0 <= row < h and 0 <= col < w
                        first = p == 0 and q == 0
                        for ch in range(x.shape[3]):
                            v = x[n, row, col, ch] if inside else ninf
                            b = best[ch]
                            best[ch] = v if first or not (b > v or b != b) else b


@njit(cache=True, nogil=True, inline="always")
def _window_pass(x, n, i, j, top, left, kh, kw, sh, sw, best, taken, g, dx, grad):    # pragma: no cover
    """One pass over the cells of window ``(i, j)`` of image ``n`` for every channel, in offset
    order: ``grad`` false folds them into the window maxima ``best`` (``np.maximum``'s rule:
    a NaN, once in, stays), true hands ``g`` out to the first maximum (``taken`` marks it)."""
    h, w = x.shape[1], x.shape[2]
    ninf = x.dtype.type(-np.inf)
    one, zero = g.dtype.type(1), g.dtype.type(0)
    for p in range(kh):
        row = i * sh + p - top
        for q in range(kw):
            col = j * sw + q - left
            inside = 0 <= row < h and 0 <= col < w
            for ch in range(x.shape[3]):
                v = x[n, row, col, ch] if inside else ninf
                if not grad:
                    b = best[ch]
                    best[ch] = v if (p == 0 and q == 0) or (b == b and (v != v or v > b)) else b
                else:
                    hit = v == best[ch] and not taken[ch]
                    taken[ch] = taken[ch] or hit
                    if inside:
                        dx[n, row, col, ch] = g[n, i, j, ch] * (one if hit else zero)


@njit(cache=True, nogil=True)
def max_pool_grad(x, g, top, left, kh, kw, sh, sw, dx):    # pragma: no cover (numba)
    """``dx`` (zeros, shaped like channels-last ``x``) gets ``g * hit`` at every cell of every
    window, ``hit`` true at the window's first maximum only -- windows that do not overlap
    (``kh <= sh``, ``kw <= sw``), ``x`` padded with ``-inf`` by ``top``/``left`` (and past its
    far edges).  What :func:`common.ops.pool._max_pool_grad` computes with ``np.maximum`` over
    the offsets, then ``equal``/``&``/``|``/``multiply`` per offset: NaN wins the maximum (so no
    cell of its window equals it), a padding cell may take the hit (and its gradient is
    dropped), and ``g * 0`` keeps its sign and NaN as numpy's product does."""
    best = np.empty(x.shape[3], x.dtype)
    taken = np.empty(x.shape[3], np.bool_)
    for n in range(x.shape[0]):
        for i in range(g.shape[1]):
            for j in range(g.shape[2]):
                _window_pass(x, n, i, j, top, left, kh, kw, sh, sw, best, taken, g, dx, False)
                taken[:] = False
                _window_pass(x, n, i, j, top, left, kh, kw, sh, sw, best, taken, g, dx, True)


@njit(cache=True, nogil=True)
def bias_add(x, bias, out):    # pragma: no cover (numba)
    """``out`` = ``x + bias`` for ``x`` and ``out`` ``(rows, C)`` and ``bias`` ``(C,)``: numpy's
    broadcast add (the same IEEE additions) as one loop -- numpy's inner loop would be one
    ``C``-long row per call."""
    for r in range(x.shape[0]):
        for c in range(x.shape[1]):
            out[r, c] = x[r, c] + bias[c]

"""The fast convolution kernels and the per-shape choice between them (cuDNN's benchmark mode).

``common.ops.conv`` owns the convolution (its geometry, its gradients, the registry ops); this
module holds the two kernels that compete with its exact im2col GEMM on channels-last input
``x`` ``(N,H,W,C)`` (Winograd pads it as it transforms the tiles, the shifted GEMM takes it
padded) and a filter ``w`` HWIO ``(kh,kw,C,O)``, stride 1, no dilation, one group:

* :func:`winograd_3x3` -- Winograd's minimal filtering F(2x2, 3x3) (Lavin & Gray, 2015): each
  2x2 block of outputs costs 16 multiplies per channel pair instead of 36 (2.25x fewer); the
  work is 16 GEMMs ``(tiles, C) @ (C, O)`` between an input and an output transform that are
  additions only (numba's one pass each, :mod:`common.conv_jit`, where numba loads; the numpy
  code's bits either way).  The transforms change the rounding: float32 values agree with a
  float64 reference to float32 tolerance, not bit for bit with im2col.
* :func:`shifted_gemm` -- a direct GEMM over strided windows without im2col: the padded input,
  flattened to ``(N*Hp*Wp, C)`` rows, read at offset ``p*Wp + q`` is the window cell ``(p, q)``
  of every output position, so the convolution is ``kh*kw`` GEMMs on contiguous slices of the
  input itself, accumulated (no copy of the input; the rows that wrap a border are computed
  and cropped).

:func:`choose` picks between them and im2col once per shape by timing each on the real
operands (the first call of a shape pays ~3 convolutions), as ``torch.backends.cudnn.benchmark``
does; :data:`ALGORITHM` forces one (``"im2col"`` gives the exact bits of the plain GEMM).
"""
from __future__ import annotations

import time
from types import ModuleType
from typing import Callable

import numpy as np

from ..blas import gemm
from ..fastpath import jit_module, same_float

__all__ = ["ALGORITHM", "set_algorithm", "choose", "winograd_3x3", "winograd_3x3_filter_grad",
           "shifted_gemm", "winograd_filter", "compiled_kernels"]

#: ``"auto"`` (measured per shape), or one of ``"im2col"``, ``"winograd"``, ``"direct"``
#: forced wherever it applies (im2col elsewhere).
ALGORITHM = "auto"
#: Counts :func:`set_algorithm` calls: a static call site that picked under an older setting
#: picks again.
GENERATION = 0
_CHOICES: dict = {}      # shape key -> the chosen algorithm's name


def set_algorithm(name: str) -> str:
    """Force the convolution algorithm (``"auto"``, ``"im2col"``, ``"winograd"``, ``"direct"``);
    returns the previous setting.  ``"im2col"`` reproduces the plain GEMM's bits exactly."""
    global ALGORITHM, GENERATION
    if name not in ("auto", "im2col", "winograd", "direct"):
        raise ValueError(f"unknown convolution algorithm {name!r}: expected one of "
                         "'auto', 'im2col', 'winograd', 'direct'")
    previous, ALGORITHM = ALGORITHM, name
    GENERATION += 1
    _CHOICES.clear()
    return previous


# --- Winograd F(2x2, 3x3) -------------------------------------------------------------------

def winograd_filter(w: np.ndarray) -> np.ndarray:
    """``G g G^T`` of every ``(c, o)`` 3x3 filter: HWIO ``(3,3,C,O)`` -> ``(16, C, O)``.

    ``G = [[1,0,0], [1/2,1/2,1/2], [1/2,-1/2,1/2], [0,0,1]]``; written as sums so a float32
    filter stays float32 (the halves are exact)."""
    def rows(a):            # G applied along axis 0 of a (3, ...) array -> (4, ...)
        s = (a[0] + a[2]) * 0.5
        return np.stack((a[0], s + a[1] * 0.5, s - a[1] * 0.5, a[2]))
    u = rows(rows(w).swapaxes(0, 1)).swapaxes(0, 1)                 # (4, 4, C, O)
    return np.ascontiguousarray(u, dtype=w.dtype).reshape(16, w.shape[2], w.shape[3])


def _tile_counts(x_shape, pads) -> tuple:
    """``(ho, wo, th, tw)``: the valid 3x3 output of ``x`` padded by ``pads`` and the 2x2 output
    blocks (4x4 input tiles, stride 2) that cover it; an odd output size gets one more block,
    whose extra row/column is computed from zeros and cropped."""
    (pt, pb), (pl, pr) = pads
    ho, wo = x_shape[1] + pt + pb - 2, x_shape[2] + pl + pr - 2
    return ho, wo, -(-ho // 2), -(-wo // 2)


JIT_MIN = 1 << 12
"""Input elements from which a convolution's transforms (or a pooling gradient) run numba's
kernels (:mod:`common.conv_jit`, the same bits): below, numpy's calls are cheap enough not to
load numba for them."""

def compiled_kernels(x: np.ndarray, *others: np.ndarray) -> ModuleType | None:
    """:mod:`common.conv_jit` for an input ``x`` of :data:`JIT_MIN` elements or more, whose
    operands ``others`` share its dtype, float32 or float64 (what the kernels are compiled
    for); else None: run the numpy code."""
    if x.size < JIT_MIN or not same_float(x, *others):
        return None
    return jit_module("common.conv_jit")


def _input_transform(x: np.ndarray, pads, a: int, b: int, th: int, tw: int, d: np.ndarray) -> None:
    """``B^T t B`` of every 4x4 tile ``t`` of images ``a..b-1`` of ``x`` zero-padded by ``pads``,
    written into ``d`` ``(16, (b-a)*th*tw, C)`` (``B^T = [[1,0,-1,0], [0,1,1,0], [0,-1,1,0],
    [0,1,0,-1]]``): numba's one pass, or rows on strided views of all tiles at once, then
    columns (the same additions in the same order: the same bits)."""
    (pt, _), (pl, _) = pads
    jit = compiled_kernels(x, d)
    if jit is not None:
        jit.winograd_input(x, pt, pl, a, b, th, tw, d)
        return
    _, h, w, c = x.shape
    xp = np.zeros((b - a, 2 * th + 2, 2 * tw + 2, c), d.dtype)
    xp[:, pt:pt + h, pl:pl + w] = x[a:b]
    r = [xp[:, i:i + 2 * th:2] for i in range(4)]
    rows = (r[0] - r[2], r[1] + r[2], r[2] - r[1], r[1] - r[3])     # each (n, th, Wp, C)
    out = d.reshape(16, b - a, th, tw, c)
    for i, v in enumerate(rows):
        col = [v[:, :, j:j + 2 * tw:2] for j in range(4)]
        np.subtract(col[0], col[2], out=out[4 * i])
        np.add(col[1], col[2], out=out[4 * i + 1])
        np.subtract(col[2], col[1], out=out[4 * i + 2])
        np.subtract(col[1], col[3], out=out[4 * i + 3])


def _output_transform(m: np.ndarray, a: int, b: int, th: int, tw: int, y: np.ndarray) -> None:
    """``y[a:b]`` ``(N, 2*th, 2*tw, O)`` from the 16 GEMM results ``m`` ``(16, (b-a)*th*tw, O)``
    of each tile: ``A^T m A`` (``A^T = [[1,1,1,0], [0,1,-1,-1]]``)."""
    jit = compiled_kernels(y, m)
    if jit is not None:
        jit.winograd_output(m, a, b, th, tw, y)
        return
    m = m.reshape(4, 4, b - a, th, tw, m.shape[2])
    s0 = m[0] + m[1]                        # A^T along the tile rows: (4, chunk, th, tw, O)
    s0 += m[2]
    s1 = np.subtract(m[1], m[2], out=m[0])
    s1 -= m[3]
    for k, s in enumerate((s0, s1)):        # A along the tile columns
        t = np.add(s[0], s[1], out=y[a:b, k::2, 0::2])
        t += s[2]
        t = np.subtract(s[1], s[2], out=y[a:b, k::2, 1::2])
        t -= s[3]


def _grad_transform(g: np.ndarray, a: int, b: int, th: int, tw: int, e: np.ndarray) -> None:
    """``A gy A^T`` of every 2x2 block ``gy`` of images ``a..b-1`` of ``g`` ``(N, 2*th, 2*tw, O)``,
    written into ``e`` ``(16, (b-a)*th*tw, O)`` (additions only)."""
    jit = compiled_kernels(g, e)
    if jit is not None:
        jit.winograd_grad_blocks(g, a, b, th, tw, e)
        return
    r0, r1 = g[a:b, 0::2], g[a:b, 1::2]
    rows = (r0, r0 + r1, r0 - r1, -r1)                   # A along the block rows
    out = e.reshape(16, b - a, th, tw, g.shape[3])
    for i, v in enumerate(rows):                         # ... and along the block columns
        c0, c1 = v[:, :, 0::2], v[:, :, 1::2]
        np.copyto(out[4 * i], c0)
        np.add(c0, c1, out=out[4 * i + 1])
        np.subtract(c0, c1, out=out[4 * i + 2])
        np.negative(c1, out=out[4 * i + 3])


#: Bytes of the largest transformed block (16 x tiles x channels) one chunk of images makes:
#: the transforms then run in cache and the steady peak memory stays below im2col's.
CHUNK_BYTES = 1 << 20


def _chunks(n: int, th: int, tw: int, channels: int, itemsize: int) -> tuple:
    """``(starts, step)``: the chunks of images the Winograd kernels work through."""
    step = min(n, max(1, CHUNK_BYTES // (16 * th * tw * channels * itemsize)))
    return range(0, n, step), step


def winograd_3x3(x: np.ndarray, w: np.ndarray, pads, u: np.ndarray | None = None) -> np.ndarray:
    """Valid 3x3 convolution, stride 1, of channels-last ``x`` zero-padded by ``pads``
    (``((top, bottom), (left, right))``) by HWIO ``w``.

    ``u`` is :func:`winograd_filter` of ``w`` when the caller has it.  Per chunk of images:
    the input transform, 16 GEMMs, and the output transform, which writes straight into the
    result; the chunk's two transformed blocks are allocated once per call.
    """
    n, c, o = x.shape[0], x.shape[3], w.shape[3]
    ho, wo, th, tw = _tile_counts(x.shape, pads)
    if u is None:
        u = winograd_filter(w)
    y = np.empty((n, 2 * th, 2 * tw, o), np.result_type(x, u))
    starts, step = _chunks(n, th, tw, max(c, o), y.itemsize)
    d = np.empty((16, step * th * tw, c), y.dtype)
    m = np.empty((16, step * th * tw, o), y.dtype)
    for a in starts:
        b = min(a + step, n)
        rows = (b - a) * th * tw
        _input_transform(x, pads, a, b, th, tw, d[:, :rows])
        gemm(d[:, :rows], u, m[:, :rows])
        _output_transform(m[:, :rows], a, b, th, tw, y)
    return y if (ho, wo) == (2 * th, 2 * tw) else y[:, :ho, :wo]


def winograd_3x3_filter_grad(x: np.ndarray, g: np.ndarray, pads) -> np.ndarray:
    """The HWIO ``(3,3,C,O)`` gradient of :func:`winograd_3x3`'s filter for output gradient ``g``.

    The forward is ``y = A^T [(G w G^T) * (B^T d B)] A`` per tile, so the gradient runs it
    backwards: ``A gy A^T`` of every 2x2 block of ``g`` (4x4, additions only), 16 GEMMs
    ``(B^T d B)^T @ (A gy A^T)`` summed over the tiles (chunk by chunk of images), and
    ``G^T (.) G`` of the 4x4 sums -- the filter gradient's multiplies drop 2.25x as the
    forward's do.
    """
    n, c, o = x.shape[0], x.shape[3], g.shape[3]
    _, _, th, tw = _tile_counts(x.shape, pads)
    if g.shape[1:3] != (2 * th, 2 * tw):
        grown = np.zeros((n, 2 * th, 2 * tw, o), g.dtype)
        grown[:, :g.shape[1], :g.shape[2]] = g
        g = grown
    du = np.zeros((16, o, c), np.result_type(x, g))
    starts, step = _chunks(n, th, tw, max(c, o), du.itemsize)
    d = np.empty((16, step * th * tw, c), du.dtype)
    e = np.empty((16, step * th * tw, o), du.dtype)
    for a in starts:
        b = min(a + step, n)
        rows = (b - a) * th * tw
        _grad_transform(g, a, b, th, tw, e[:, :rows])
        _input_transform(x, pads, a, b, th, tw, d[:, :rows])
        # (O, T) @ (T, C): OpenBLAS runs this orientation ~25% faster than (C, T) @ (T, O) at
        # C=32, O=64, T=3136 (12.0 against 16.0 ms CPU time, interleaved best of 7)
        gemm(e[:, :rows].transpose(0, 2, 1), d[:, :rows], du, beta=1.0)

    def rows_gt(a):         # G^T applied along axis 0 of a (4, ...) array -> (3, ...)
        s = (a[1] + a[2]) * 0.5
        return np.stack((a[0] + s, (a[1] - a[2]) * 0.5, s + a[3]))
    du = du.transpose(0, 2, 1).reshape(4, 4, c, o)
    return rows_gt(rows_gt(du).swapaxes(0, 1)).swapaxes(0, 1)


# --- direct GEMM over shifted windows ---------------------------------------------------------

def shifted_gemm(xp: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Valid convolution, stride 1, of padded channels-last ``xp`` by HWIO ``w``: one GEMM per
    filter cell on a contiguous slice of the flattened input, accumulated."""
    n, hp, wp, c = xp.shape
    kh, kw, _, o = w.shape
    ho, wo = hp - kh + 1, wp - kw + 1
    flat = np.ascontiguousarray(xp).reshape(n * hp * wp, c)
    rows = (n - 1) * hp * wp + (ho - 1) * wp + wo   # the last output position's row, plus one
    out = np.empty((n * hp * wp, o), np.result_type(xp, w))
    acc = out[:rows]
    gemm(flat[:rows], w[0, 0], acc)
    for p in range(kh):
        for q in range(kw):
            if p or q:
                off = p * wp + q
                gemm(flat[off:off + rows], w[p, q], acc, beta=1.0)    # acc += (in place)
    return out.reshape(n, hp, wp, o)[:, :ho, :wo]


# --- the choice ---------------------------------------------------------------------------------

def candidates(xp_shape, w_shape, dtype, stride_one: bool) -> tuple:
    """The algorithms that apply: Winograd to 3x3 float32 filters at stride 1 (float64 keeps
    the plain GEMM's accuracy), the shifted GEMM to any float stride-1 convolution."""
    names = ["im2col"]
    if stride_one and np.dtype(dtype).kind == "f":
        if w_shape[:2] == (3, 3) and np.dtype(dtype) == np.float32:
            names.append("winograd")
        names.append("direct")
    return tuple(names)


def choose(key, names: tuple, run: Callable[[str], np.ndarray]) -> tuple:
    """``(name, result)``: the algorithm for ``key`` -- forced by :data:`ALGORITHM`, cached,
    or measured now by running each of ``names`` twice (interleaved, best time; the machine
    may be busy) through ``run(name)``; the result of the chosen one's last run comes back.

    The time is the process's CPU time, not the wall clock's: on a busy machine a run the
    scheduler preempts would look slow (with 5 processes on 2 vCPUs, wall time picked
    Winograd's ~2.1 ms filter gradient over im2col's ~1.4 ms for the bench CNN's first layer in
    2 of 6 processes; CPU time picked im2col in each of 6).  A multi-threaded BLAS's time
    counts all its threads: what the algorithm costs the machine."""
    if ALGORITHM != "auto":
        name = ALGORITHM if ALGORITHM in names else "im2col"
        return name, run(name)
    name = _CHOICES.get(key)
    if name is not None:
        return name, run(name)
    if len(names) == 1:
        _CHOICES[key] = names[0]
        return names[0], run(names[0])
    best, results = {}, {}
    for _ in range(2):
        for cand in names:
            t0 = time.process_time()
            results[cand] = run(cand)
            best[cand] = min(best.get(cand, np.inf), time.process_time() - t0)
    name = min(names, key=best.__getitem__)
    _CHOICES[key] = name
    return name, results[name]

"""A whole LSTM layer (one direction over a padded sequence) as ONE op, as PyTorch's CPU path.

``nn.LSTM`` stepping :class:`~common.ops.cells` ``FusedLSTMCell`` in Python records ~8 tape
nodes a step (the hidden product, its sum with the projected input, the cell, the split
of the projection, the stack of outputs) and its backward walks them, adding a weight
product per step.  PyTorch's CPU ``nn.LSTM`` is one node per layer and direction
(``MkldnnRnnLayerBackward0``, oneDNN's whole-sequence RNN); so is this op::

    gx (T, B, 4H)  input projection x @ W_ih.T  --+
    h0, c0 (B, H)                                  +--> LSTMLayer --> out (T, B, H), h_T, c_T,
    w (H, 4H)      W_hh.T                          |                 ws (T, B, 6H)
    b (4H,)        b_ih + b_hh                   --+

    per step t (t = T-1 .. 0 when ``reverse``):  gates = (gx[t] + b) + h @ w   (one product
    into a buffer, the sums in the kernel),  then the cell kernel writes h' into out[t] and
    [i, f, g, o, tanh c', c'] into the workspace ws[t]

The bias is added in the step kernel, not by an ``Add`` over the whole projection: that pass
and its ``(T, B, 4H)`` array cost 0.34 ms of a 50-step forward (hidden 128, batch 32,
measured); its gradient is ``dgates`` summed over steps and rows.

``ws`` is a workspace: what the gradient reads.  Its cotangent is None unless a
higher-order gradient differentiates through it (``undefined_grads``, PyTorch's undefined
gradient), so no zero array of its size is made on each backward.  The gradient is then
one ``LSTMLayerGrad`` call: the backward recurrence over the steps (per step the cell's
gradient kernel, then ``dgates[t] @ w.T``) returning the gates' gradients
``dgates (T, B, 4H)`` -- which are the input projection's gradient as they are -- and
``c0``'s; the rules of ``h0`` and ``w`` are products over it (``b``'s its sum): ``w``'s is
ONE product over all steps' rows (``out[:-1]`` reshaped to ``(T-1)*B`` rows, ``dgates[1:]``
likewise, plus ``h0``'s step), not one per step.  Every rule of ``LSTMLayer`` calls
``lstm_layer_grad`` with the same values, so the eager engine runs it once for all of them
(``dyngraph.multi_output``'s shared results).

``LSTMLayerGrad``'s own rules (second order) run its adjoint -- a loop forward in time over
``FusedLSTMCellGrad``'s registry rules -- and the workspace's cotangent they produce comes
back to ``LSTMLayer``'s rules, which then take the per-step form (``FusedLSTMCellGrad``
with the workspace's cotangent at each step): so ``create_graph`` and static
``gradients()`` of any order work.  Both unroll the steps, whose count the ``steps``
attribute carries where a static shape does not know it.

Values: the per-step path's bits.  The forward adds ``(gx[t] + b) + h @ w`` inside the
kernel, the same float sums the per-step ``(x @ W_ih.T + b) + h.matmul(w)`` makes, then the
same cell (``common.cells_jit`` kernels from :data:`~common.ops.cells.JIT_MIN` state
elements, the numpy code below it or in exact mode); the gradient kernel is the cell
gradient's with a zero workspace cotangent.  Only ``w``'s and ``b``'s gradients sum in
another order (one product, one sum over all steps).
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..examples import Example as E
from ..fastpath import same_float
from ..indexing import Slice
from ..registry import Spec, defop
from ..shapes import fmt_shape, require_kind, result_dtype
from .cells import (JIT_MIN, _forward_kernels, _kernels, _lstm_cell_grad_numpy, _lstm_cell_numpy,
                    _lstm_grad_c, _lstm_grad_gc, _lstm_grad_gh, _lstm_grad_ws)

__all__: list[str] = []   # registry ops only: F.lstm_layer, F.lstm_layer_grad


# --- shapes --------------------------------------------------------------------------------

def _unify(name: str, pairs) -> dict:
    """Named dims from ``(spec, pattern)`` pairs, a pattern's entries ``"T"`` or ``("H", k)``
    (a dim of ``k * H``): each name's value where some spec knows it; a conflict is a
    ShapeError naming the operands."""
    dims: dict = {}
    for what, spec, pattern in pairs:
        if spec.shape is None:
            continue
        if len(spec.shape) != len(pattern):
            raise ShapeError(f"{name}: {what} must have rank {len(pattern)}, got "
                             f"{fmt_shape(spec.shape)}")
        for d, p in zip(spec.shape, pattern):
            sym, k = (p, 1) if isinstance(p, str) else p
            if d is None:
                continue
            if d % k:
                raise ShapeError(f"{name}: {what}'s dim {d} is not {k} blocks")
            if dims.setdefault(sym, d // k) != d // k:
                raise ShapeError(f"{name}: {what} {fmt_shape(spec.shape)} does not match the "
                                 f"other operands ({sym} = {dims[sym]})")
    return dims


def _shape(dims: dict, *pattern) -> tuple:
    out = []
    for p in pattern:
        sym, k = (p, 1) if isinstance(p, str) else p
        out.append(None if dims.get(sym) is None else k * dims[sym])
    return tuple(out)


def _dtype(*specs: Spec) -> np.dtype:
    return result_dtype(*(s.dtype for s in specs), np.float16)


_LAYER_DIMS = (("T", "B", ("H", 4)), ("B", "H"), ("B", "H"), ("H", ("H", 4)), (("H", 4),))


def _layer_infer(gx: Spec, h0: Spec, c0: Spec, w: Spec, b: Spec, reverse=False):
    require_kind("LSTMLayer", "f", gx, h0, c0, w, b)
    d = _unify("LSTMLayer", zip(("gx", "h0", "c0", "w", "b"), (gx, h0, c0, w, b), _LAYER_DIMS))
    dt = _dtype(gx, h0, c0, w, b)
    state = Spec(_shape(d, "B", "H"), dt)
    return (Spec(_shape(d, "T", "B", "H"), dt), state, state,
            Spec(_shape(d, "T", "B", ("H", 6)), dt))


def _grad_infer(ws: Spec, c0: Spec, w: Spec, g_out: Spec, g_h: Spec, g_c: Spec, reverse=False,
                steps=None):
    require_kind("LSTMLayerGrad", "f", ws, c0, w, g_out, g_h, g_c)
    d = _unify("LSTMLayerGrad", [("ws", ws, ("T", "B", ("H", 6))), ("c0", c0, ("B", "H")),
                                 ("w", w, ("H", ("H", 4))), ("g_out", g_out, ("T", "B", "H")),
                                 ("g_h", g_h, ("B", "H")), ("g_c", g_c, ("B", "H"))])
    if steps is not None:
        d.setdefault("T", steps)
    dt = _dtype(ws, c0, w, g_out, g_h, g_c)
    return Spec(_shape(d, "T", "B", ("H", 4)), dt), Spec(_shape(d, "B", "H"), dt)


def _check(name: str, specs) -> None:
    """The eager run's shape check: :func:`_unify` on the arrays (once per layer, not per step)."""
    _unify(name, [(what, Spec(np.shape(a), None), p) for what, a, p in specs])


def _positions(steps: int, reverse: bool) -> range:
    """The steps in the order the layer runs them."""
    return range(steps - 1, -1, -1) if reverse else range(steps)


# --- forward -------------------------------------------------------------------------------

def _lstm_layer(gx, h0, c0, w, b, reverse=False):
    """``(out, h_T, c_T, ws)`` of one LSTM layer-direction over ``gx``'s ``T`` steps."""
    require_kind("LSTMLayer", "f", gx, h0, c0, w, b)
    _check("LSTMLayer", zip(("gx", "h0", "c0", "w", "b"), (gx, h0, c0, w, b), _LAYER_DIMS))
    dt = np.result_type(gx, h0, c0, w, b, np.float16)
    # C order: the kernel reads rows; and OpenBLAS's h @ w is ~30% faster with w in C order
    # than with it as nn.LSTM hands it, W_hh.T (a transposed view): 38 against 54 us for
    # (32, 128) @ (128, 512), measured -- a copy of w (256 KB) once per layer repays it
    gx, c0, w, b = (np.ascontiguousarray(a, dt) for a in (gx, c0, w, b))
    h0 = np.asarray(h0, dt)
    steps, batch, n = gx.shape[0], gx.shape[1], h0.shape[-1]
    out = np.empty((steps, batch, n), dt)
    ws = np.empty((steps, batch, 6 * n), dt)
    hw = np.empty((batch, 4 * n), dt)
    jit = _forward_kernels(c0, gx)
    h, c_src, c_off = h0, c0, 0
    for t in _positions(steps, reverse):
        np.matmul(h, w, out=hw)
        if jit is not None:
            jit.lstm_layer_step(gx[t], b, hw, c_src, c_off, ws[t], out[t])
        else:
            h_new, c_new, cell_ws = _lstm_cell_numpy((gx[t] + b) + hw, c_src[:, c_off:c_off + n])
            ws[t, :, :5 * n], ws[t, :, 5 * n:], out[t] = cell_ws, c_new, h_new
        h, c_src, c_off = out[t], ws[t], 5 * n
    return out, h.copy(), c_src[:, c_off:c_off + n].copy(), ws


# --- gradient ------------------------------------------------------------------------------

def _lstm_layer_grad(ws, c0, w, g_out, g_h, g_c, reverse=False, steps=None):
    """``(d gx, d c0)``: the backward recurrence from the cotangents of ``out``, ``h_T`` and
    ``c_T`` (``d gx`` is every step's gates' gradient, ``(T, B, 4H)``)."""
    require_kind("LSTMLayerGrad", "f", ws, c0, w, g_out, g_h, g_c)
    _check("LSTMLayerGrad", [("ws", ws, ("T", "B", ("H", 6))), ("c0", c0, ("B", "H")),
                             ("w", w, ("H", ("H", 4))), ("g_out", g_out, ("T", "B", "H")),
                             ("g_h", g_h, ("B", "H")), ("g_c", g_c, ("B", "H"))])
    if steps is not None and steps != ws.shape[0]:
        raise ShapeError(f"LSTMLayerGrad: steps={steps} but the workspace holds {ws.shape[0]}")
    dt = np.result_type(ws, c0, w, g_out, g_h, g_c, np.float16)
    ws, c0 = np.ascontiguousarray(ws, dt), np.ascontiguousarray(c0, dt)
    w_t = np.ascontiguousarray(np.asarray(w, dt).T)    # (W_hh itself from nn.LSTM: no copy)
    g_out = np.asarray(g_out, dt)           # (a broadcast stays one: its steps are copied)
    steps, batch, n = ws.shape[0], ws.shape[1], c0.shape[-1]
    dgates = np.empty((steps, batch, 4 * n), dt)
    dh, dc = np.array(g_h, dt), np.array(g_c, dt)   # C order, ours: updated step by step
    jit = _kernels() if c0.size >= JIT_MIN and same_float(ws, c0) else None
    zeros = None if jit is not None else np.zeros((batch, 5 * n), dt)
    order = _positions(steps, reverse)
    for k in range(steps - 1, -1, -1):
        t = order[k]
        c_src, c_off = (c0, 0) if k == 0 else (ws[order[k - 1]], 5 * n)
        go = g_out[t]
        if jit is not None:
            if not go.flags.c_contiguous:
                go = np.ascontiguousarray(go)
            jit.lstm_layer_step_grad(ws[t], c_src, c_off, go, dh, dc, dgates[t], dt.type(1))
        else:
            dgates[t], dc = _lstm_cell_grad_numpy(ws[t, :, :5 * n], c_src[:, c_off:c_off + n],
                                                  go + dh, dc, zeros)
        if k:
            np.matmul(dgates[t], w_t, out=dh)
    return dgates, dc


def _grads(F, g, c0, w, out, reverse):
    """``(dgates, dc0)``: the one ``lstm_layer_grad`` call every rule of ``LSTMLayer``
    shares, or, when the workspace got a cotangent (a higher-order gradient), the per-step
    form :func:`_grads_through_ws`."""
    if g[3] is not None:
        return _grads_through_ws(F, g, c0, w, out, reverse)
    return F.lstm_layer_grad(out[3], c0, w, g[0], g[1], g[2], reverse=reverse,
                             steps=F.shape(out[0])[0])


def _steps(F, x) -> int:
    """The number of steps (``x``'s first dim), which unrolling the steps needs."""
    steps = F.shape(x)[0]
    if steps is None:
        raise ShapeError("LSTMLayer: this gradient unrolls the steps, and their number is "
                         "unknown when the graph is built (give the sequence a static length)")
    return steps


def _grads_through_ws(F, g, c0, w, out, reverse):
    """``LSTMLayerGrad``'s recurrence written with registry ops, the workspace's cotangent
    taken in at each step: ``FusedLSTMCellGrad`` with its ``[i, f, g, o, tanh c']`` blocks'
    cotangent, and its ``c'`` block's added to that step's ``gc``."""
    steps = _steps(F, out[0])
    order = _positions(steps, reverse)
    parts = [F.split(x, num_split=6, axis=-1) for x in F.unstack(out[3], num=steps, axis=0)]
    g_parts = [F.split(x, num_split=6, axis=-1) for x in F.unstack(g[3], num=steps, axis=0)]
    g_out, w_t = F.unstack(g[0], num=steps, axis=0), F.transpose(w)
    dgates, dh, dc = [None] * steps, g[1], g[2]
    for k in range(steps - 1, -1, -1):
        t = order[k]
        c_prev = c0 if k == 0 else parts[order[k - 1]][5]
        dgates[t], dc = F.fused_lstm_cell_grad(
            F.concat(*parts[t][:5], axis=-1), c_prev, F.add(g_out[t], dh),
            F.add(dc, g_parts[t][5]), F.concat(*g_parts[t][:5], axis=-1))
        dh = F.matmul(dgates[t], w_t)
    return F.stack(*dgates, axis=0), dc


def _grad_gx(F, g, c0, w, out, reverse):
    return _grads(F, g, c0, w, out, reverse)[0]


def _grad_b(F, g, c0, w, out, reverse):
    return F.sum(_grads(F, g, c0, w, out, reverse)[0], axis=(0, 1))


def _grad_c0(F, g, c0, w, out, reverse):
    return _grads(F, g, c0, w, out, reverse)[1]


def _grad_h0(F, g, c0, w, out, reverse):
    """``dgates`` of the first step run, times ``w.T``."""
    first = F.getitem(_grads(F, g, c0, w, out, reverse)[0], key=(-1 if reverse else 0,))
    return F.matmul(first, F.transpose(w))


def _rows(F, x):
    """``x`` as 2-D rows ``(-1, its last dim)`` (a view of a contiguous slice)."""
    return F.reshape(x, shape=(-1, F.shape(x)[-1]))


def _grad_w(F, g, h0, c0, w, out, reverse):
    """``sum_t h_{t-1}.T @ dgates[t]``: ``h0``'s step, plus ONE product over the other
    steps' rows (the outputs shifted by a step against the gates' gradients)."""
    dgates = _grads(F, g, c0, w, out, reverse)[0]
    head, tail = Slice(None, -1, None), Slice(1, None, None)
    first, hs, gs = (-1, tail, head) if reverse else (0, head, tail)
    return F.add(F.matmul(F.transpose(h0), F.getitem(dgates, key=(first,))),
                 F.matmul(F.transpose(_rows(F, F.getitem(out[0], key=(hs,)))),
                          _rows(F, F.getitem(dgates, key=(gs,)))))


# --- the gradient's gradient ---------------------------------------------------------------

def _adjoint(F, u, ws, c0, w, g_out, g_h, g_c, out, reverse, steps):
    """The cotangents of ``LSTMLayerGrad``'s six inputs for cotangents ``u`` of ``(dgates,
    dc0)``: its recurrence re-run to get each step's ``gh`` and ``gc``, then walked forward in
    time through ``FusedLSTMCellGrad``'s rules (the adjoint of a backward loop)."""
    if steps is None:
        steps = _steps(F, ws)
    pos = _positions(steps, reverse)
    parts = [F.split(x, num_split=6, axis=-1) for x in F.unstack(ws, num=steps, axis=0)]
    cell_ws = [F.concat(*p[:5], axis=-1) for p in parts]
    cells = [p[5] for p in parts]
    go, dg = F.unstack(g_out, num=steps, axis=0), F.unstack(out[0], num=steps, axis=0)
    us = F.unstack(u[0], num=steps, axis=0)
    w_t, zeros = F.transpose(w), F.zeros_like(cell_ws[0])
    c_prev = [c0] + [cells[pos[k - 1]] for k in range(1, steps)]
    gh = [F.add(go[pos[k]], g_h if k == steps - 1 else F.matmul(dg[pos[k + 1]], w_t))
          for k in range(steps)]
    gc = [None] * steps
    gc[-1] = g_c
    for k in range(steps - 1, 0, -1):
        gc[k - 1] = F.fused_lstm_cell_grad(cell_ws[pos[k]], c_prev[k], gh[k], gc[k], zeros)[1]
    a_cell, a_c, a_go = [None] * steps, [None] * steps, [None] * steps
    a_w = a_gh = a_gc = a_c0 = None
    for k in range(steps):
        t = pos[k]
        if k:
            u_k = (F.add(us[t], F.matmul(a_gh, w)), a_gc)
            term = F.matmul(F.transpose(a_gh), dg[t])
            a_w = term if a_w is None else F.add(a_w, term)
        else:
            u_k = (us[t], u[1])
        args = (cell_ws[t], c_prev[k], gh[k], gc[k], zeros)
        a_cell[t] = _lstm_grad_ws(F, u_k, *args)
        a_prev = _lstm_grad_c(F, u_k, *args)
        a_gh, a_gc = _lstm_grad_gh(F, u_k, *args), _lstm_grad_gc(F, u_k, *args)
        if k:
            a_c[pos[k - 1]] = a_prev
        else:
            a_c0 = a_prev
        a_go[t] = a_gh
    a_c[pos[-1]] = F.zeros_like(cells[pos[-1]])      # the last c' feeds no step
    a_ws = F.stack(*(F.concat(a_cell[t], a_c[t], axis=-1) for t in range(steps)), axis=0)
    return (a_ws, a_c0, F.zeros_like(w) if a_w is None else a_w,
            F.stack(*a_go, axis=0), a_gh, a_gc)


def _adjoint_rule(k: int):
    """``LSTMLayerGrad``'s rule for input ``k``: that piece of :func:`_adjoint`."""
    def rule(F, g, ws, c0, w, g_out, g_h, g_c, out, reverse, steps):
        return _adjoint(F, g, ws, c0, w, g_out, g_h, g_c, out, reverse, steps)[k]
    return rule


def _grad_ws(shape, reverse=False) -> np.ndarray:
    """A workspace for the examples: ``LSTMLayer``'s own over random inputs, float64."""
    rng = np.random.default_rng(39)
    steps, batch, n = shape
    return _lstm_layer(rng.standard_normal((steps, batch, 4 * n)), rng.standard_normal((batch, n)),
                       rng.standard_normal((batch, n)), rng.standard_normal((n, 4 * n)),
                       rng.standard_normal(4 * n), reverse)[3]


defop("LSTMLayer", _lstm_layer, _layer_infer, inputs=("gx", "h0", "c0", "w", "b"),
      fname="lstm_layer", outputs=4, undefined_grads=(3,), torch_name="MkldnnRnnLayerBackward0",
      examples=(E(((3, 2, 8), (2, 2), (2, 2), (2, 8), (8,))),
                E(((3, 2, 8), (2, 2), (2, 2), (2, 8), (8,)), {"reverse": True}),
                E(((1, 3, 4), (3, 1), (3, 1), (1, 4), (4,)))),
      grads=(_grad_gx, _grad_h0, _grad_c0, _grad_w, _grad_b))
defop("LSTMLayerGrad", _lstm_layer_grad, _grad_infer,
      inputs=("ws", "c0", "w", "g_out", "g_h", "g_c"), fname="lstm_layer_grad", outputs=2,
      torch_name="MkldnnRnnLayerBackwardBackward0",
      examples=(E((_grad_ws((3, 2, 2)), (2, 2), (2, 8), (3, 2, 2), (2, 2), (2, 2)), {"steps": 3}),
                E((_grad_ws((2, 1, 2), True), (1, 2), (2, 8), (2, 1, 2), (1, 2), (1, 2)),
                  {"reverse": True, "steps": 2}),
                E(((3, 2, 12), (2, 2), (2, 8), (3, 2, 2), (2, 2), (2, 2)), {"steps": 3})),
      grads=tuple(_adjoint_rule(k) for k in range(6)))

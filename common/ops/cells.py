"""Fused recurrent cells: an LSTM step's and a GRU step's pointwise part as one op each.

After the gate products, one LSTM step is a dozen elementwise ops (split, three sigmoids, two
tanh, three products, a sum) -- a dozen nodes on the eager tape, a dozen backward steps, a
dozen temporaries.  PyTorch fuses them (``_thnn_fused_lstm_cell``/``_gru_cell``); so do these
ops, forward and backward::

    gates (..., 4H) --+
                      +--> FusedLSTMCell --> h' = o * tanh(c'),  c' = f * c + i * g
    c     (..., H)  --+        (i, f, o = sigmoid, g = tanh of the blocks i, f, g, o)

    gi, gh (..., 3H), h (..., H) --> FusedGRUCell --> h' = z * h + (1 - z) * n
        (r, z = sigmoid(gi + gh) of the blocks r, z;  n = tanh(gi_n + r * gh_n))

The gate orders are PyTorch's (``i, f, g, o``; ``r, z, n`` with ``b_hn`` inside ``r * (...)``).
The forward's numpy code calls the ufuncs ``common.layers``' composite cells call, on the same
elements in the same order, so the values are the composite's bits (``Sigmoid``'s kernel
included).  From :data:`JIT_MIN` elements a compiled kernel (:mod:`common.cells_jit`) does
the whole step in one vectorised pass instead, its sigmoid and tanh :mod:`common.vmath`'s
polynomials: a few ulps from those bits (2-3x faster, as PyTorch's SLEEF-vectorised cell is
not numpy's bits either).  :func:`set_exact` turns the kernel off: the composite's bits at
every size.  The gradients are ``...Grad`` ops that recompute the activations from the
pre-activations (PyTorch recomputes ``tanh(c')`` the same way) rather than keeping them;
their own gradients are written with registry ops, so ``create_graph=True`` and static
``gradients()`` of any order work, and the registry tests check every rule against finite
differences in both engines.
"""
from __future__ import annotations

from types import ModuleType

import numpy as np

from ..fastpath import jit_module, same_float

from ..errors import ShapeError
from ..examples import Example as E
from ..registry import Spec, defop
from ..shapes import fmt_shape, require_kind
from .elementwise import _sigmoid_block, floating


# --- shapes --------------------------------------------------------------------------------

def _blocks_infer(name: str, gates: Spec, count: int, *states: Spec, activates: bool = True) -> Spec:
    """``gates`` is ``(..., count * H)``, every state ``(..., H)`` with the same leading dims:
    the state's Spec, in the operands' common dtype (a float one when ``activates``: a cell
    runs sigmoid/tanh on its gates; its gradient only multiplies and adds)."""
    require_kind(name, "fiu", gates, *states)      # numpy's sigmoid refuses bools
    dtype = np.result_type(*(s.dtype for s in states), floating(gates).dtype if activates
                           else gates.dtype)
    shape = next((s.shape for s in states if s.shape is not None), None)
    if gates.shape is not None:
        last = gates.shape[-1] if gates.shape else None
        want = gates.shape[:-1] + (None if last is None else last // count,)
        if last is not None and last % count:
            raise ShapeError(f"{name}: the gates' last dimension {last} is not {count} blocks")
        for s in states:
            if s.shape is not None and (len(s.shape) != len(want) or any(
                    a is not None and b is not None and a != b for a, b in zip(s.shape, want))):
                raise ShapeError(f"{name}: gates {fmt_shape(gates.shape)} need a state of shape "
                                 f"{fmt_shape(want)}, got {fmt_shape(s.shape)}")
        shape = shape if shape is not None and None not in shape else want
    return Spec(shape, dtype)


# --- LSTM ----------------------------------------------------------------------------------

def _lstm_cell(gates, c):
    """``(h', c', ws)`` of one LSTM step.  ``ws`` is the workspace ``[i, f, g, o, tanh(c')]``
    (``(..., 5H)``, PyTorch's fused cell keeps the first four): what the gradient reads,
    so it recomputes no transcendental.  From the compiled kernel where it applies (see
    :func:`_forward_kernels`), else :func:`_lstm_cell_numpy`."""
    require_kind("FusedLSTMCell", "fiu", gates)
    n = gates.shape[-1] // 4
    if c.shape == gates.shape[:-1] + (n,) and (jit := _forward_kernels(c, gates)) is not None:
        h_c = np.empty((2,) + c.shape, c.dtype)       # h' and c': one buffer, fewer alias checks
        ws = np.empty(c.shape[:-1] + (5 * n,), c.dtype)
        jit.lstm_cell(*_rows(gates, c, ws), h_c.reshape(2, -1, n))
        return h_c[0], h_c[1], ws
    return _lstm_cell_numpy(gates, c)


def _lstm_cell_numpy(gates, c):
    """:func:`_lstm_cell` with ``common.layers.lstm_cell``'s ufuncs on the same elements (the
    sigmoid is ``Sigmoid``'s kernel): the composite's bits."""
    n = gates.shape[-1] // 4
    ws = np.empty(gates.shape[:-1] + (5 * n,), np.result_type(gates, c, np.float16))
    _sigmoid_block(gates, ws[..., :4 * n], np.empty(gates.shape, ws.dtype))
    np.tanh(gates[..., 2 * n:3 * n], out=ws[..., 2 * n:3 * n])
    i, f, g, o, t = _lstm_blocks(ws)
    c_new = np.multiply(c, f)
    c_new += i * g
    np.tanh(c_new, out=t)
    return t * o, c_new, ws


def _lstm_blocks(ws):
    """The workspace's five blocks ``i, f, g, o, t`` (views)."""
    n = ws.shape[-1] // 5
    return tuple(ws[..., k * n:(k + 1) * n] for k in range(5))


JIT_MIN = 1 << 11
"""Elements of the state from which a cell and its gradient run numba's kernels
(:mod:`common.cells_jit`): below, the numpy code's calls are cheap enough not to load numba
for them."""

EXACT = False
"""Does the forward keep the composite cells' bits at every size (:func:`set_exact`)?"""


def set_exact(exact: bool) -> bool:
    """``True``: the fused cells' forward runs the numpy code at every size -- the composite
    cells' bits (``common.layers.lstm_cell``/``gru_cell``), slower from :data:`JIT_MIN`
    elements; ``False`` (the default): the compiled kernel there, within a few ulps.  The
    gradients have the numpy code's bits either way.  Returns the previous setting."""
    global EXACT
    previous, EXACT = EXACT, bool(exact)
    return previous

def _kernels() -> ModuleType | None:
    """:mod:`common.cells_jit`, loaded on first use; None where numba is missing."""
    return jit_module("common.cells_jit")


def _forward_kernels(state, *arrays) -> ModuleType | None:
    """The kernel module for a forward whose state is ``state``, or None: the numpy code runs
    (exact mode, a small state, mixed or non-float dtypes, numba missing)."""
    if EXACT or state.size < JIT_MIN or not same_float(state, *arrays):
        return None
    return _kernels()


def _lstm_cell_grad(ws, c, gh, gc, gws):
    """:func:`_lstm_cell_grad_numpy`'s results, from the compiled kernel where it applies (one
    float dtype, exact shapes, numba there): the same bits in one pass instead of ~20 calls."""
    if c.size >= JIT_MIN and same_float(ws, c, gh, gc, gws) and c.shape == gh.shape == gc.shape \
            and ws.shape == gws.shape and (jit := _kernels()) is not None:
        dgates = np.empty(c.shape[:-1] + (4 * c.shape[-1],), c.dtype)
        dc = np.empty(c.shape, c.dtype)           # (C order: the kernel writes through rows)
        jit.lstm_cell_grad(*_rows(ws, c, gh, gc, gws, dgates, dc), c.dtype.type(1))
        return dgates, dc
    return _lstm_cell_grad_numpy(ws, c, gh, gc, gws)


def _rows(*arrays) -> list:
    """Each array as C-contiguous rows ``(-1, its last dim)``: the kernels' layout."""
    return [np.ascontiguousarray(a).reshape(-1, a.shape[-1]) for a in arrays]


def _lstm_cell_grad_numpy(ws, c, gh, gc, gws):
    """``(d gates, d c)`` from the workspace and the cotangents of ``(h', c', ws)``::

        D = gc + (gh o + w_t)(1 - t^2)                              (d c')
        d gates = [(D g + w_i) i(1-i), (D c + w_f) f(1-f), (D i + w_g)(1-g^2),
                   (gh t + w_o) o(1-o)],       d c = D f

    (``w_*``: ``gws``'s blocks, zeros unless something read the workspace)."""
    i, f, g, o, t = _lstm_blocks(ws)
    w_i, w_f, w_g, w_o, w_t = _lstm_blocks(gws)
    d = gh * o
    d += w_t
    d *= 1 - t * t
    d += gc
    n = d.shape[-1]
    out = np.empty(d.shape[:-1] + (4 * n,), d.dtype)
    di, df, dg, do = (out[..., k * n:(k + 1) * n] for k in range(4))
    np.multiply(d, g, out=di)
    di += w_i
    di *= i * (1 - i)
    np.multiply(d, c, out=df)
    df += w_f
    df *= f * (1 - f)
    np.multiply(d, i, out=dg)
    dg += w_g
    dg *= 1 - g * g
    np.multiply(gh, t, out=do)
    do += w_o
    do *= o * (1 - o)
    return out, d * f


def _lstm_infer(gates: Spec, c: Spec) -> tuple[Spec, Spec, Spec]:
    spec = _blocks_infer("FusedLSTMCell", gates, 4, c)
    ws = None if spec.shape is None else spec.shape[:-1] + (
        None if spec.shape[-1] is None else 5 * spec.shape[-1],)
    return spec, spec, Spec(ws, spec.dtype)


def _lstm_grad_infer(ws: Spec, c: Spec, gh: Spec, gc: Spec, gws: Spec) -> tuple[Spec, Spec]:
    spec = _blocks_infer("FusedLSTMCellGrad", ws, 5, c, gh, gc, activates=False)
    require_kind("FusedLSTMCellGrad", "fiu", gws)     # the workspace's cotangent: ws's shape
    dtype = np.result_type(spec.dtype, gws.dtype)
    gates = None if spec.shape is None else spec.shape[:-1] + (
        None if spec.shape[-1] is None else 4 * spec.shape[-1],)
    return Spec(gates, dtype), Spec(spec.shape, dtype)


def _lstm_second(F, ws, c, gh, gc, gws, u):
    """What every rule of ``FusedLSTMCellGrad`` (the gradient of the gradient) shares, for
    cotangents ``u = (u_gates, u_c)`` of its results and ``L = <u, (d gates, d c)>``:
    the blocks, ``i' = i(1-i)``..., ``D``, ``1 - t^2`` and ``P = dL/dD``."""
    i, f, g, o, t = F.split(ws, num_split=5, axis=-1)
    w_i, w_f, w_g, w_o, w_t = F.split(gws, num_split=5, axis=-1)
    u_i, u_f, u_g, u_o = F.split(u[0], num_split=4, axis=-1)
    di, df, do = (F.mul(x, F.sub(1.0, x)) for x in (i, f, o))
    dg = F.sub(1.0, F.mul(g, g))
    one_t2 = F.sub(1.0, F.mul(t, t))
    d = F.add(gc, F.mul(F.add(F.mul(gh, o), w_t), one_t2))
    p = F.add(F.add(F.mul(F.mul(u_i, g), di), F.mul(F.mul(u_f, c), df)),
              F.add(F.mul(F.mul(u_g, i), dg), F.mul(u[1], f)))
    return (i, f, g, o, t), (w_i, w_f, w_g, w_o, w_t), (u_i, u_f, u_g, u_o), \
        (di, df, dg, do), d, one_t2, p


def _twice_less(F, x):
    """``1 - 2x``: the derivative of ``x(1-x)``."""
    return F.sub(1.0, F.mul(2.0, x))


def _lstm_grad_ws(F, g, ws, c, gh, gc, gws):
    (i, f, gg, o, t), (w_i, w_f, w_g, w_o, w_t), (u_i, u_f, u_g, u_o), (di, df, dg, do), d, \
        one_t2, p = _lstm_second(F, ws, c, gh, gc, gws, g)
    return F.concat(
        F.add(F.mul(F.mul(u_i, F.add(F.mul(d, gg), w_i)), _twice_less(F, i)), F.mul(F.mul(u_g, d), dg)),
        F.add(F.mul(F.mul(u_f, F.add(F.mul(d, c), w_f)), _twice_less(F, f)), F.mul(g[1], d)),
        F.sub(F.mul(F.mul(u_i, d), di), F.mul(F.mul(u_g, F.add(F.mul(d, i), w_g)), F.mul(2.0, gg))),
        F.add(F.mul(F.mul(p, gh), one_t2), F.mul(F.mul(u_o, F.add(F.mul(gh, t), w_o)), _twice_less(F, o))),
        F.sub(F.mul(F.mul(u_o, gh), do), F.mul(F.mul(p, F.add(F.mul(gh, o), w_t)), F.mul(2.0, t))),
        axis=-1)


def _lstm_grad_c(F, g, ws, c, gh, gc, gws):
    _, _, (_, u_f, _, _), (_, df, _, _), d, _, _ = _lstm_second(F, ws, c, gh, gc, gws, g)
    return F.mul(F.mul(u_f, d), df)


def _lstm_grad_gh(F, g, ws, c, gh, gc, gws):
    (_, _, _, o, t), _, (_, _, _, u_o), (_, _, _, do), _, one_t2, p = \
        _lstm_second(F, ws, c, gh, gc, gws, g)
    return F.add(F.mul(F.mul(p, o), one_t2), F.mul(F.mul(u_o, t), do))


def _lstm_grad_gc(F, g, ws, c, gh, gc, gws):
    return _lstm_second(F, ws, c, gh, gc, gws, g)[-1]


def _lstm_grad_gws(F, g, ws, c, gh, gc, gws):
    _, _, (u_i, u_f, u_g, u_o), (di, df, dg, do), _, one_t2, p = \
        _lstm_second(F, ws, c, gh, gc, gws, g)
    return F.concat(F.mul(u_i, di), F.mul(u_f, df), F.mul(u_g, dg), F.mul(u_o, do),
                    F.mul(p, one_t2), axis=-1)


def _lstm_cell_rule(k: int):
    """``FusedLSTMCell``'s rule for input ``k`` (0: gates, 1: c): one ``FusedLSTMCellGrad``."""
    return lambda F, g, c, out: F.fused_lstm_cell_grad(out[2], c, g[0], g[1], g[2])[k]


def _ws(gates) -> np.ndarray:
    """A valid workspace for the examples: ``FusedLSTMCell``'s own for ``gates`` and zeros."""
    return _lstm_cell(gates, np.zeros(gates.shape[:-1] + (gates.shape[-1] // 4,)))[2]


_RNG = np.random.default_rng(32)
LSTM_EXAMPLES = (E(((3, 8), (3, 2))), E(((12,), (3,))), E(((2, 2, 4), (2, 2, 1))))

defop("FusedLSTMCell", _lstm_cell, _lstm_infer, inputs=("gates", "c"), fname="fused_lstm_cell",
      outputs=3, torch_name="ThnnFusedLstmCellBackward0", torch_names={"cell": "MulBackward0"},
      examples=LSTM_EXAMPLES, grads=(_lstm_cell_rule(0), _lstm_cell_rule(1)))
defop("FusedLSTMCellGrad", _lstm_cell_grad, _lstm_grad_infer,
      inputs=("ws", "c", "gh", "gc", "gws"), fname="fused_lstm_cell_grad", outputs=2,
      torch_name="ThnnFusedLstmCellBackwardBackward0",
      examples=(E((_ws(_RNG.standard_normal((3, 8))), (3, 2), (3, 2), (3, 2), (3, 10))),
                E((_ws(_RNG.standard_normal(12)), (3,), (3,), (3,), (15,)))),
      grads=(_lstm_grad_ws, _lstm_grad_c, _lstm_grad_gh, _lstm_grad_gc, _lstm_grad_gws))


# --- GRU -----------------------------------------------------------------------------------

def _gru_cell(gi, gh, h):
    """``(h', ws)`` of one GRU step from the two projections ``gi``, ``gh`` (biases in, ``r, z,
    n`` blocks) and ``h``.  ``ws`` is ``[r, z, n, gh_n]`` (``(..., 4H)``, PyTorch's fused
    cell's workspace).  From the compiled kernel where it applies (see
    :func:`_forward_kernels`), else :func:`_gru_cell_numpy`."""
    require_kind("FusedGRUCell", "fiu", gi, gh)
    n = h.shape[-1]
    if gi.shape == gh.shape == h.shape[:-1] + (3 * n,) and \
            (jit := _forward_kernels(h, gi, gh)) is not None:
        h_new, ws = np.empty(h.shape, h.dtype), np.empty(h.shape[:-1] + (4 * n,), h.dtype)
        jit.gru_cell(*_rows(gi, gh, h, h_new, ws), h.dtype.type(1))
        return h_new, ws
    return _gru_cell_numpy(gi, gh, h)


def _gru_cell_numpy(gi, gh, h):
    """:func:`_gru_cell` with ``common.layers.gru_cell``'s ufuncs (``_gru_step``'s reset after
    the product): the composite's bits."""
    n = h.shape[-1]
    ws = np.empty(h.shape[:-1] + (4 * n,), np.result_type(gi, gh, h, np.float16))
    a = gi[..., :2 * n] + gh[..., :2 * n]
    _sigmoid_block(a, ws[..., :2 * n], np.empty(a.shape, ws.dtype))
    r, z, new, gh_n = _gru_blocks(ws)
    gh_n[...] = gh[..., 2 * n:]
    np.tanh(gi[..., 2 * n:] + r * gh_n, out=new)
    return z * h + (1.0 - z) * new, ws


def _gru_blocks(ws):
    """The workspace's four blocks ``r, z, n, gh_n`` (views)."""
    n = ws.shape[-1] // 4
    return tuple(ws[..., k * n:(k + 1) * n] for k in range(4))


def _gru_cell_grad(ws, h, dh, gws):
    """:func:`_gru_cell_grad_numpy`'s results, from the compiled kernel where it applies."""
    if h.size >= JIT_MIN and same_float(ws, h, dh, gws) and h.shape == dh.shape \
            and ws.shape == gws.shape and (jit := _kernels()) is not None:
        d_gi = np.empty(h.shape[:-1] + (3 * h.shape[-1],), h.dtype)
        d_gh, d_h = np.empty_like(d_gi), np.empty(h.shape, h.dtype)
        jit.gru_cell_grad(*_rows(ws, h, dh, gws, d_gi, d_gh, d_h), h.dtype.type(1))
        return d_gi, d_gh, d_h
    return _gru_cell_grad_numpy(ws, h, dh, gws)


def _gru_cell_grad_numpy(ws, h, dh, gws):
    """``(d gi, d gh, d h)`` from the workspace and the cotangents of ``(h', ws)``::

        a_n = ((1 - z) dh + w_n)(1 - n^2),   a_r = (a_n gh_n + w_r) r(1-r)
        a_z = ((h - n) dh + w_z) z(1-z)
        d gi = [a_r, a_z, a_n],  d gh = [a_r, a_z, a_n r + w_hn],  d h = z dh
    """
    r, z, new, gh_n = _gru_blocks(ws)
    w_r, w_z, w_n, w_hn = _gru_blocks(gws)
    n = h.shape[-1]
    d_gi = np.empty(h.shape[:-1] + (3 * n,), np.result_type(ws, h, dh, gws))
    a_r, a_z, a_n = (d_gi[..., k * n:(k + 1) * n] for k in range(3))
    np.multiply(1 - z, dh, out=a_n)
    a_n += w_n
    a_n *= 1 - new * new
    np.multiply(a_n, gh_n, out=a_r)
    a_r += w_r
    a_r *= r * (1 - r)
    np.multiply(h - new, dh, out=a_z)
    a_z += w_z
    a_z *= z * (1 - z)
    d_gh = d_gi.copy()
    d_gh[..., 2 * n:] *= r
    d_gh[..., 2 * n:] += w_hn
    return d_gi, d_gh, z * dh


def _gru_infer(gi: Spec, gh: Spec, h: Spec) -> tuple[Spec, Spec]:
    spec = _blocks_infer("FusedGRUCell", gi, 3, h)
    _blocks_infer("FusedGRUCell", gh, 3, h)
    return spec, Spec(_times(spec.shape, 4), spec.dtype)


def _times(shape, k: int):
    """``shape`` with its last dimension ``k`` times as long (None stays None)."""
    if shape is None:
        return None
    return shape[:-1] + (None if shape[-1] is None else k * shape[-1],)


def _gru_grad_infer(ws: Spec, h: Spec, dh: Spec, gws: Spec) -> tuple[Spec, Spec, Spec]:
    spec = _blocks_infer("FusedGRUCellGrad", ws, 4, h, dh, activates=False)
    require_kind("FusedGRUCellGrad", "fiu", gws)
    dtype = np.result_type(spec.dtype, gws.dtype)
    gates = Spec(_times(spec.shape, 3), dtype)
    return gates, gates, Spec(spec.shape, dtype)


def _gru_second(F, ws, h, dh, gws, u):
    """What every rule of ``FusedGRUCellGrad`` shares, for cotangents ``u = (u_gi, u_gh,
    u_h)`` of its results and ``L = <u, results>``: with ``s_r = u_gi_r + u_gh_r`` (and
    ``s_z``), ``A = dL/da_n = u_gi_n + u_gh_n r + s_r r' gh_n``."""
    r, z, new, gh_n = F.split(ws, num_split=4, axis=-1)
    w_r, w_z, w_n, w_hn = F.split(gws, num_split=4, axis=-1)
    p_r, p_z, p_n = F.split(u[0], num_split=3, axis=-1)
    q_r, q_z, q_n = F.split(u[1], num_split=3, axis=-1)
    s_r, s_z = F.add(p_r, q_r), F.add(p_z, q_z)
    dr, dz = F.mul(r, F.sub(1.0, r)), F.mul(z, F.sub(1.0, z))
    dn = F.sub(1.0, F.mul(new, new))
    b_n = F.add(F.mul(F.sub(1.0, z), dh), w_n)             # d n (before tanh's derivative)
    a_n = F.mul(b_n, dn)
    a = F.add(F.add(p_n, F.mul(q_n, r)), F.mul(F.mul(s_r, dr), gh_n))
    b_z = F.add(F.mul(F.sub(h, new), dh), w_z)             # d z (before sigmoid's)
    b_r = F.add(F.mul(a_n, gh_n), w_r)                     # d r (before sigmoid's)
    return (r, z, new, gh_n), (s_r, s_z, q_n, u[2]), (dr, dz, dn), (b_r, b_z, b_n, a_n, a)


def _gru_grad_ws(F, g, ws, h, dh, gws):
    (r, z, new, gh_n), (s_r, s_z, q_n, u_h), (dr, dz, dn), (b_r, b_z, b_n, a_n, a) = \
        _gru_second(F, ws, h, dh, gws, g)
    return F.concat(
        F.add(F.mul(F.mul(s_r, b_r), _twice_less(F, r)), F.mul(q_n, a_n)),
        F.add(F.mul(F.mul(s_z, b_z), _twice_less(F, z)),
              F.mul(F.sub(u_h, F.mul(a, dn)), dh)),
        F.neg(F.add(F.mul(F.mul(a, b_n), F.mul(2.0, new)), F.mul(F.mul(s_z, dz), dh))),
        F.mul(F.mul(s_r, dr), a_n),
        axis=-1)


def _gru_grad_h(F, g, ws, h, dh, gws):
    _, (_, s_z, _, _), (_, dz, _), _ = _gru_second(F, ws, h, dh, gws, g)
    return F.mul(F.mul(s_z, dz), dh)


def _gru_grad_dh(F, g, ws, h, dh, gws):
    (r, z, new, gh_n), (s_r, s_z, q_n, u_h), (dr, dz, dn), (b_r, b_z, b_n, a_n, a) = \
        _gru_second(F, ws, h, dh, gws, g)
    return F.add(F.add(F.mul(F.mul(a, dn), F.sub(1.0, z)), F.mul(F.mul(s_z, dz), F.sub(h, new))),
                 F.mul(u_h, z))


def _gru_grad_gws(F, g, ws, h, dh, gws):
    _, (s_r, s_z, q_n, _), (dr, dz, dn), (*_, a) = _gru_second(F, ws, h, dh, gws, g)
    return F.concat(F.mul(s_r, dr), F.mul(s_z, dz), F.mul(a, dn), q_n, axis=-1)


def _gru_cell_rule(k: int):
    """``FusedGRUCell``'s rule for input ``k`` (0: gi, 1: gh, 2: h): one ``FusedGRUCellGrad``."""
    return lambda F, g, h, out: F.fused_gru_cell_grad(out[1], h, g[0], g[1])[k]


def _gru_ws(shape) -> np.ndarray:
    """A valid workspace for the examples: ``FusedGRUCell``'s own on random projections."""
    n = shape[-1]
    return _gru_cell(_RNG.standard_normal(shape[:-1] + (3 * n,)),
                     _RNG.standard_normal(shape[:-1] + (3 * n,)), _RNG.standard_normal(shape))[1]


defop("FusedGRUCell", _gru_cell, _gru_infer, inputs=("gi", "gh", "h"), fname="fused_gru_cell",
      outputs=2, torch_name="ThnnFusedGruCellBackward0", torch_names={"cell": "AddBackward0"},
      examples=(E(((3, 6), (3, 6), (3, 2))), E(((9,), (9,), (3,)))),
      grads=(_gru_cell_rule(0), _gru_cell_rule(1), _gru_cell_rule(2)))
defop("FusedGRUCellGrad", _gru_cell_grad, _gru_grad_infer, inputs=("ws", "h", "dh", "gws"),
      fname="fused_gru_cell_grad", outputs=3, torch_name="ThnnFusedGruCellBackwardBackward0",
      examples=(E((_gru_ws((3, 2)), (3, 2), (3, 2), (3, 8))), E((_gru_ws((3,)), (3,), (3,), (12,)))),
      grads=(_gru_grad_ws, _gru_grad_h, _gru_grad_dh, _gru_grad_gws))



"""Random well-typed programs over the registry's ops, run by three interpreters.

A :class:`Program` is data: input shapes and a list of :class:`Node` s, each a
*kind* applied to earlier values.  A kind is written once against ``F`` (the
registry namespace) and ``cf`` (control flow), so the same text runs as::

    numpy      F = common.numpy_namespace()       cf: Python if / for   (reference, finite differences)
    dyngraph   F = Namespace(dyngraph apply)      cf: Python if / for   (eager; backward())
    static     F = staticgraph.framework.build.F            cf: tf.cond / tf.while_loop
               (built ONCE on placeholders whose shapes may hold None; run on two feeds;
                gradients() nodes for the gradients)

:func:`programs` is the hypothesis strategy (DAGs of 1-30 nodes, broadcasting
shapes, reductions over random axes, ``where``, ``cond`` and data-dependent
bounded loops); :func:`check` runs a program all three ways and asserts that
values and gradients agree (float64).  ``repr(program)`` is valid Python, so a
failing example pastes straight into a regression test.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np
from hypothesis import assume, strategies as st

import dyngraph
import staticgraph as tf
from common import Namespace, numpy_namespace
from common.indexing import ARRAY, Slice
from dyngraph.engine import apply as dyn_apply
from staticgraph.framework.build import F as STATIC_F

__all__ = ["Node", "Program", "programs", "check", "run_numpy", "run_dyngraph", "run_static",
           "KINDS"]

NUMPY_F = numpy_namespace()
DYN_F = Namespace(dyn_apply)
MAX_ELEMENTS = 200
MAX_ABS = 1e5


class Node(NamedTuple):
    kind: str
    args: tuple
    attrs: tuple = ()


class Program(NamedTuple):
    shapes: tuple          # concrete input shapes
    declared: tuple        # placeholder shapes (None = unknown dim)
    nodes: tuple
    seeds: tuple = (0, 1)  # data of the two feeds


# --- control flow, per interpreter ---------------------------------------------------

class PythonFlow:
    """Eager control flow: a Python ``if`` / ``for`` on the computed value."""

    @staticmethod
    def cond(pred, true_fn, false_fn):
        return true_fn() if bool(pred) else false_fn()

    @staticmethod
    def loop(n, body, x):
        for _ in range(int(n.item())):
            x = body(x)
        return x


class GraphFlow:
    """Static control flow: the branch / the loop is a graph node, decided at run time."""

    @staticmethod
    def cond(pred, true_fn, false_fn):
        return tf.cond(pred, true_fn, false_fn)

    @staticmethod
    def loop(n, body, x):
        i0 = tf.constant(0, dtype=tf.int64)
        _, out = tf.while_loop(lambda i, v: tf.less(i, n), lambda i, v: (tf.add(i, 1), body(v)),
                               (i0, x))
        return out


# --- kinds: each written once, against F and cf ---------------------------------------

def _cond(F, cf, a, b):
    """Branch on the sign of sum(a): both branches give broadcast(a, b)'s shape."""
    return cf.cond(F.gt(F.sum(a), 0.0), lambda: F.add(F.tanh(a), b), lambda: F.mul(a, F.sigmoid(b)))


def _loop(F, cf, x, c):
    """Iterate ``x <- tanh(0.9 x + mean(c))`` as many times as c has positive entries (max 3)."""
    n = F.minimum(F.sum(F.cast(F.gt(c, 0.0), dtype=np.dtype(np.int64))), 3)
    shift = F.mean(c)
    return cf.loop(n, lambda v: F.tanh(F.add(F.mul(v, 0.9), shift)), x)


def _loop_cond(F, cf, x, c):
    """A loop whose body branches: nested control flow, with a captured outer value."""
    n = F.minimum(F.sum(F.cast(F.lt(c, 0.5), dtype=np.dtype(np.int64))), 2)
    shift = F.tanh(F.sum(c))
    return cf.loop(n, lambda v: cf.cond(F.gt(F.sum(v), 0.0), lambda: F.tanh(v),
                                        lambda: F.mul(v, shift)), x)


def _matmul(F, cf, a, b, tb=False):
    if tb and b.ndim is None:  # unknown rank (static): no perm can be stated
        b = F.swap_last_axes(b)
    elif tb:
        b = F.transpose(b, perm=tuple(range(b.ndim - 2)) + (b.ndim - 1, b.ndim - 2))
    return F.matmul(a, b)


def _getitem(F, cf, x, axis, start, stop):
    """``x[:, ..., start:stop]`` with the slice on ``axis``."""
    return F.getitem(x, key=(Slice(None, None, None),) * axis + (Slice(start, stop, None),))


def _take(F, cf, x, indices):
    """``x[indices]``: integer-array indexing (repeats and negative positions included)."""
    return F.getitem(x, np.array(indices), key=(ARRAY,))


def _index(F, cf, x, axis, i):
    """``x[:, ..., i]``: an integer index drops the dim."""
    return F.getitem(x, key=(Slice(None, None, None),) * axis + (i,))

KINDS: dict[str, Callable] = {
    "neg": lambda F, cf, x: F.neg(x),
    "exp": lambda F, cf, x: F.exp(x),
    "log": lambda F, cf, x: F.log(F.add(F.mul(x, x), 1.0)),
    "sqrt": lambda F, cf, x: F.sqrt(F.add(F.mul(x, x), 0.25)),
    "tanh": lambda F, cf, x: F.tanh(x),
    "sigmoid": lambda F, cf, x: F.sigmoid(x),
    "abs": lambda F, cf, x: F.abs(x),
    "relu": lambda F, cf, x: F.relu(x),
    "clip": lambda F, cf, x, lo, hi: F.clip(x, lo=lo, hi=hi),
    "softmax": lambda F, cf, x, axis: F.softmax(x, axis=axis),
    "log_softmax": lambda F, cf, x, axis: F.log_softmax(x, axis=axis),
    "add": lambda F, cf, a, b: F.add(a, b),
    "sub": lambda F, cf, a, b: F.sub(a, b),
    "mul": lambda F, cf, a, b: F.mul(a, b),
    "div": lambda F, cf, a, b: F.div(a, F.add(F.mul(b, b), 0.5)),
    "pow": lambda F, cf, a, b: F.pow(F.add(F.mul(a, a), 0.5), F.tanh(b)),
    "maximum": lambda F, cf, a, b: F.maximum(a, b),
    "minimum": lambda F, cf, a, b: F.minimum(a, b),
    "scale": lambda F, cf, x, c: F.add(F.mul(x, c), 0.25),
    "where": lambda F, cf, p, a, b: F.where(F.gt(p, 0.0), a, b),
    "sum": lambda F, cf, x, axis, keepdims: F.sum(x, axis=axis, keepdims=keepdims),
    "mean": lambda F, cf, x, axis, keepdims: F.mean(x, axis=axis, keepdims=keepdims),
    "max": lambda F, cf, x, axis, keepdims: F.max(x, axis=axis, keepdims=keepdims),
    "min": lambda F, cf, x, axis, keepdims: F.min(x, axis=axis, keepdims=keepdims),
    "transpose": lambda F, cf, x, perm: F.transpose(x, perm=perm),
    "reshape": lambda F, cf, x, shape: F.reshape(x, shape=shape),
    "expand_dims": lambda F, cf, x, axis: F.expand_dims(x, axis=axis),
    "squeeze": lambda F, cf, x, axis: F.squeeze(x, axis=axis),
    "broadcast_to": lambda F, cf, x, shape: F.broadcast_to(x, shape=shape),
    "concat": lambda F, cf, a, b, axis: F.concat(a, b, axis=axis),
    "stack": lambda F, cf, a, b, axis: F.stack(a, b, axis=axis),
    "getitem": _getitem,
    "take": _take,
    "index": _index,
    "rsub": lambda F, cf, x, c: F.sub(c, x),
    "rdiv": lambda F, cf, x, c: F.div(c, F.add(F.mul(x, x), 0.5)),
    "squeeze_all": lambda F, cf, x: F.squeeze(x),
    "loop_cond": _loop_cond,
    "matmul": _matmul,
    "cond": _cond,
    "loop": _loop,
}


def evaluate(program: Program, F, cf, inputs: list) -> list:
    """All values of ``program`` (inputs first) under one interpreter."""
    values = list(inputs)
    for node in program.nodes:
        values.append(KINDS[node.kind](F, cf, *[values[i] for i in node.args], **dict(node.attrs)))
    return values


def sinks(program: Program) -> list[int]:
    """Values nothing else reads: the program's outputs (every node's work reaches one)."""
    used = {i for node in program.nodes for i in node.args}
    n = len(program.shapes) + len(program.nodes)
    return [i for i in range(n) if i not in used and i >= len(program.shapes)]


# --- the strategy ----------------------------------------------------------------------

DIMS = st.integers(1, 4)


@st.composite
def _input_shapes(draw) -> tuple[tuple, tuple]:
    base = draw(st.lists(DIMS, min_size=0, max_size=3))
    shapes, declared = [], []
    for _ in range(draw(st.integers(1, 3))):
        rank = draw(st.integers(0, len(base)))
        shape = tuple(d if draw(st.booleans()) or d == 1 else 1 for d in base[len(base) - rank:])
        shapes.append(shape)
        declared.append(tuple(None if draw(st.integers(0, 3)) == 0 else d for d in shape))
    return tuple(shapes), tuple(declared)


def _broadcasts(*shapes) -> tuple | None:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


UNARY = ["neg", "exp", "log", "sqrt", "tanh", "sigmoid", "abs", "relu", "clip"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum"]
OTHER = ["scale", "where", "sum", "mean", "max", "min", "softmax", "log_softmax", "transpose",
         "reshape", "expand_dims", "squeeze", "broadcast_to", "concat", "stack", "getitem",
         "matmul", "cond", "loop", "take", "index", "rsub", "rdiv", "squeeze_all", "loop_cond"]


ELEMENTWISE = {*UNARY, *BINARY, "scale", "cond", "loop", "loop_cond", "rsub", "rdiv", "where"}


@st.composite
def _node(draw, shapes: list[tuple], kinds: tuple | None = None) -> Node:
    """One node over values of ``shapes``, well-typed by construction (of ``kinds``, if given)."""
    n = len(shapes)
    a = draw(st.integers(0, n - 1) | st.integers(max(0, n - 3), n - 1))  # favour recent values
    kind = draw(st.sampled_from(kinds or UNARY + BINARY + OTHER))
    build = _elementwise if kind in ELEMENTWISE else _reshaping
    node = build(draw, kind, a, shapes)
    return node or Node(draw(st.sampled_from(UNARY[:-1])), (a,))  # the kind does not fit


def _elementwise(draw, kind: str, a: int, shapes: list[tuple]) -> Node:
    """Kinds whose result broadcasts their operands (control flow included)."""
    sa, n = shapes[a], len(shapes)
    partners = [j for j in range(n) if _broadcasts(sa, shapes[j]) is not None]
    if kind in UNARY:
        attrs = (("lo", -0.5), ("hi", draw(st.sampled_from([0.5, None])))) if kind == "clip" else ()
        return Node(kind, (a,), attrs)
    if kind in ("loop", "loop_cond"):
        return Node(kind, (a, draw(st.integers(0, n - 1))))
    if kind in ("rsub", "rdiv"):
        return Node(kind, (a,), (("c", draw(st.sampled_from([-1.5, 0.5, 2.0]))),))
    b = draw(st.sampled_from(partners))
    if kind != "where":
        return Node(kind, (a, b))
    c = draw(st.sampled_from([j for j in partners if _broadcasts(sa, shapes[b], shapes[j]) is not None]))
    return Node(kind, (a, b, c))


def _reshaping(draw, kind: str, a: int, shapes: list[tuple]) -> Node | None:
    """Kinds that change the shape; None when ``kind`` cannot apply to value ``a``."""
    sa, n, rank = shapes[a], len(shapes), len(shapes[a])
    axis = st.integers(-rank, rank - 1) if rank else st.just(None)
    if kind in ("sum", "mean", "max", "min"):
        sets = st.sets(st.integers(0, rank - 1), min_size=1).map(lambda s: tuple(sorted(s)))
        axes = st.none() | axis | sets if rank else st.none()
        return Node(kind, (a,), (("axis", draw(axes)), ("keepdims", draw(st.booleans()))))
    if kind in ("softmax", "log_softmax") and rank:
        return Node(kind, (a,), (("axis", draw(axis)),))
    if kind == "transpose" and rank >= 2:
        return Node(kind, (a,), (("perm", tuple(draw(st.permutations(range(rank))))),))
    if kind == "reshape":
        size = int(np.prod(sa))
        first = draw(st.sampled_from([d for d in range(1, size + 1) if size % d == 0]))
        shape = draw(st.sampled_from([(size,), (first, size // first), (first, -1), (-1, first, 1)]))
        return Node(kind, (a,), (("shape", shape),))
    if kind == "expand_dims" and rank < 4:
        return Node(kind, (a,), (("axis", draw(st.integers(-rank - 1, rank))),))
    ones = [i for i, d in enumerate(sa) if d == 1]
    if kind == "squeeze" and ones:
        return Node(kind, (a,), (("axis", draw(st.sampled_from(ones))),))
    if kind == "squeeze_all" and ones:
        return Node(kind, (a,))
    if kind == "broadcast_to" and rank < 4:
        target = tuple(draw(st.integers(1, 3)) if d == 1 else d for d in sa)
        return Node(kind, (a,), (("shape", (draw(st.integers(1, 3)),) + target),))
    if kind == "concat" and rank:
        ax = draw(st.integers(0, rank - 1))
        same = [j for j in range(n) if len(shapes[j]) == rank and all(
            x == y for k, (x, y) in enumerate(zip(sa, shapes[j])) if k != ax)]
        return Node(kind, (a, draw(st.sampled_from(same))), (("axis", ax - rank * draw(st.booleans())),))
    if kind == "stack":
        same = [j for j in range(n) if shapes[j] == sa]
        return Node(kind, (a, draw(st.sampled_from(same))), (("axis", draw(st.integers(0, rank))),))
    return _indexing(draw, kind, a, shapes)


def _indexing(draw, kind: str, a: int, shapes: list[tuple]) -> Node | None:
    """Slices, integer and integer-array indexing, and matmul."""
    sa, rank = shapes[a], len(shapes[a])
    if kind == "getitem" and rank and max(sa) > 1:
        ax = draw(st.sampled_from([i for i, d in enumerate(sa) if d > 1]))
        start = draw(st.integers(0, sa[ax] - 1))
        stop = draw(st.integers(start + 1, sa[ax]))
        return Node(kind, (a,), (("axis", ax), ("start", start), ("stop", stop)))
    if kind == "take" and rank:
        ids = draw(st.lists(st.integers(-sa[0], sa[0] - 1), min_size=1, max_size=4))
        return Node(kind, (a,), (("indices", tuple(ids)),))
    if kind == "index" and rank:
        ax = draw(st.integers(0, rank - 1))
        return Node(kind, (a,), (("axis", ax), ("i", draw(st.integers(-sa[ax], sa[ax] - 1)))))
    if kind == "matmul" and rank >= 2:
        fits = [j for j in range(len(shapes)) if len(shapes[j]) >= 2 and shapes[j][-2] == sa[-1]
                and _broadcasts(sa[:-2], shapes[j][:-2]) is not None]
        if fits and draw(st.booleans()):
            return Node(kind, (a, draw(st.sampled_from(fits))))
        return Node(kind, (a, a), (("tb", True),))
    return None


@st.composite
def programs(draw, max_nodes: int = 30, kinds: tuple | None = None) -> Program:
    """A random program: 1-3 broadcast-compatible inputs, 1-``max_nodes`` nodes (of ``kinds``)."""
    shapes, declared = draw(_input_shapes())
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(s) for s in shapes]
    nodes = []
    for _ in range(draw(st.integers(1, max_nodes))):
        node = draw(_node([np.shape(v) for v in values], kinds))
        out = KINDS[node.kind](NUMPY_F, PythonFlow, *[values[i] for i in node.args], **dict(node.attrs))
        if np.size(out) > MAX_ELEMENTS:
            continue
        nodes.append(node)
        values.append(np.asarray(out))
    assume(nodes)
    seeds = (draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 2**32 - 1)))
    return Program(shapes, declared, tuple(nodes), seeds)


# --- the three interpreters ------------------------------------------------------------

def feeds(program: Program, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in program.shapes]


def cotangents(program: Program) -> list[np.ndarray]:
    """Fixed random weights: the scalar checked is sum_k <output_k, w_k>."""
    values = evaluate(program, NUMPY_F, PythonFlow, feeds(program, 0))
    rng = np.random.default_rng(12345)
    return [rng.standard_normal(np.shape(values[i])) for i in sinks(program)]


def tame(program: Program, xs: list[np.ndarray]) -> bool:
    """Every value (intermediates too) finite and moderate: float64 comparisons mean something.

    An overflow inside (exp(exp(exp(x))) = inf, then tanh(inf) = 1) makes the exact gradient
    0 * inf = NaN in every engine while finite differences say 0: such programs are skipped.
    """
    with np.errstate(all="ignore"):
        values = evaluate(program, NUMPY_F, PythonFlow, xs)
    return all(np.all(np.isfinite(v)) and np.all(np.abs(v) < MAX_ABS) for v in values)


def run_numpy(program: Program, xs: list[np.ndarray]) -> list[np.ndarray]:
    values = evaluate(program, NUMPY_F, PythonFlow, xs)
    return [np.asarray(values[i]) for i in sinks(program)]


def run_dyngraph(program: Program, xs, ws) -> tuple[list, list]:
    leaves = [dyngraph.tensor(x, dtype=dyngraph.float64, requires_grad=True) for x in xs]
    values = evaluate(program, DYN_F, PythonFlow, leaves)
    outs = [values[i] for i in sinks(program)]
    pairs = [(o, dyngraph.tensor(w)) for o, w in zip(outs, ws) if o.requires_grad]
    if pairs:
        dyngraph.autograd.backward([o for o, _ in pairs], [w for _, w in pairs])
    grads = [np.zeros(x.shape) if t.grad is None else t.grad.numpy() for x, t in zip(xs, leaves)]
    return [o.detach().numpy() for o in outs], grads


class StaticProgram:
    """The program built ONCE as a graph: placeholders, outputs, gradients; run per feed."""

    def __init__(self, program: Program, ws):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.xs = [tf.placeholder(tf.float64, shape=list(d)) for d in program.declared]
            values = evaluate(program, STATIC_F, GraphFlow, self.xs)
            self.outs = [values[i] for i in sinks(program)]
            grads = tf.gradients(self.outs, self.xs, grad_ys=[tf.constant(w) for w in ws])
            self.grads = [g if g is not None else tf.zeros_like(x) for g, x in zip(grads, self.xs)]
        self.sess = tf.Session(graph=self.graph)

    def run(self, xs) -> tuple[list, list]:
        outs, grads = self.sess.run((self.outs, self.grads), dict(zip(self.xs, xs)))
        return [np.asarray(o) for o in outs], [np.asarray(g) for g in grads]


def run_static(program: Program, ws, feed_list) -> list[tuple[list, list]]:
    built = StaticProgram(program, ws)
    try:
        return [built.run(xs) for xs in feed_list]
    finally:
        built.sess.close()


def finite_differences(program: Program, xs, ws, eps: float = 1e-6) -> list[np.ndarray]:
    """Central differences of sum_k <out_k, w_k>; NaN where the one-sided slopes disagree (a kink)."""
    def loss(vals):
        return sum(float(np.sum(o * w)) for o, w in zip(run_numpy(program, vals), ws))
    base = loss(xs)
    grads = []
    for i, x in enumerate(xs):
        g = np.zeros(x.shape)
        for idx in np.ndindex(x.shape):
            h = eps * max(1.0, abs(x[idx]))
            vals = [v.copy() for v in xs]
            vals[i][idx] = x[idx] + h
            up = loss(vals)
            vals[i][idx] = x[idx] - h
            down = loss(vals)
            right, left = (up - base) / h, (base - down) / h
            smooth = abs(right - left) <= 1e-3 * (1 + abs(right) + abs(left))
            g[idx] = (up - down) / (2 * h) if smooth else np.nan
        grads.append(g)
    return grads


# --- the check ---------------------------------------------------------------------------

def _close(name: str, a, b, rtol: float, atol: float, program: Program) -> None:
    for k, (x, y) in enumerate(zip(a, b)):
        ok = np.shape(x) == np.shape(y) and np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
        assert ok, f"{name} disagree at output {k}:\n{x}\nvs\n{y}\nprogram: {program!r}"


def check(program: Program, fd: bool = True) -> bool:
    """Values and gradients agree: dyngraph == staticgraph (two feeds) == numpy; == finite diffs.

    Returns False (nothing checked) when a value overflows or gets huge (see
    :func:`tame`); raises
    AssertionError naming what disagrees, with the program's repr.
    """
    ws = cotangents(program)
    feed_list = [feeds(program, s) for s in program.seeds]
    if not all(tame(program, xs) for xs in feed_list):
        return False
    refs = [run_numpy(program, xs) for xs in feed_list]
    static = run_static(program, ws, feed_list)
    for xs, ref, (s_out, s_grad) in zip(feed_list, refs, static):
        d_out, d_grad = run_dyngraph(program, xs, ws)
        _close("dyngraph and numpy values", d_out, ref, 1e-10, 1e-12, program)
        _close("staticgraph and numpy values", s_out, ref, 1e-10, 1e-12, program)
        _close("dyngraph and staticgraph gradients", d_grad, s_grad, 1e-8, 1e-10, program)
        if fd:
            scale = 1 + max(float(np.max(np.abs(o), initial=0)) for o in ref)
            numeric = finite_differences(program, xs, ws)  # NaN at kinks: not compared there
            _close("dyngraph gradients and finite differences", d_grad,
                   [np.where(np.isnan(n), d, n) for n, d in zip(numeric, d_grad)],
                   1e-4, 1e-6 * scale, program)
    return True


# --- second order: Hessian-vector products ------------------------------------------------

CONTROL_FLOW = {"cond", "loop", "loop_cond"}


def _hvp_dyngraph(program: Program, xs, ws, vs) -> tuple[float, list]:
    """phi(x) = <grad L(x), v> and its gradient (H v), through create_graph=True."""
    leaves = [dyngraph.tensor(x, dtype=dyngraph.float64, requires_grad=True) for x in xs]
    values = evaluate(program, DYN_F, PythonFlow, leaves)
    pairs = [(values[i], w) for i, w in zip(sinks(program), ws) if values[i].requires_grad]
    if not pairs:
        return 0.0, [np.zeros(x.shape) for x in xs]
    loss = sum((o * dyngraph.tensor(w)).sum() for o, w in pairs)
    grads = dyngraph.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)
    terms = [(g * dyngraph.tensor(v)).sum() for g, v in zip(grads, vs) if g is not None and g.requires_grad]
    if not terms:
        return 0.0, [np.zeros(x.shape) for x in xs]
    phi = sum(terms)
    hv = dyngraph.autograd.grad(phi, leaves, allow_unused=True)
    return phi.item(), [np.zeros(x.shape) if h is None else h.numpy() for x, h in zip(xs, hv)]


def _hvp_static(program: Program, xs, ws, vs) -> list:
    graph = tf.Graph()
    with graph.as_default():
        phs = [tf.placeholder(tf.float64, shape=list(d)) for d in program.declared]
        values = evaluate(program, STATIC_F, GraphFlow, phs)
        outs = [values[i] for i in sinks(program)]
        grads = tf.gradients(outs, phs, grad_ys=[tf.constant(w) for w in ws])
        terms = [tf.reduce_sum(g * tf.constant(v)) for g, v in zip(grads, vs) if g is not None]
        if not terms:
            return [np.zeros(x.shape) for x in xs]
        hv = tf.gradients(tf.add_n(terms) if len(terms) > 1 else terms[0], phs)
        hv = [h if h is not None else tf.zeros_like(p) for h, p in zip(hv, phs)]
        with tf.Session() as sess:
            return [np.asarray(h) for h in sess.run(hv, dict(zip(phs, xs)))]


def check_second_order(program: Program, eps: float = 1e-5) -> bool:
    """H v agrees between dyngraph (create_graph) and staticgraph (gradients of gradients),
    and with a finite difference of <grad, v> along a random direction.  False: not checkable."""
    if CONTROL_FLOW & {node.kind for node in program.nodes}:
        return False
    ws = cotangents(program)
    xs = feeds(program, program.seeds[0])
    if not tame(program, xs):
        return False
    rng = np.random.default_rng(program.seeds[1] % 2**32)
    vs = [rng.standard_normal(x.shape) for x in xs]
    us = [rng.standard_normal(x.shape) for x in xs]
    phi0, d_hv = _hvp_dyngraph(program, xs, ws, vs)
    s_hv = _hvp_static(program, xs, ws, vs)
    _close("dyngraph and staticgraph Hessian-vector products", d_hv, s_hv, 1e-7, 1e-9, program)
    up = _hvp_dyngraph(program, [x + eps * u for x, u in zip(xs, us)], ws, vs)[0]
    down = _hvp_dyngraph(program, [x - eps * u for x, u in zip(xs, us)], ws, vs)[0]
    right, left = (up - phi0) / eps, (phi0 - down) / eps
    if abs(right - left) > 1e-3 * (1 + abs(right) + abs(left)):
        return True  # a kink along u: the directional check does not apply
    numeric = (up - down) / (2 * eps)
    analytic = sum(float(np.sum(h * u)) for h, u in zip(d_hv, us))
    scale = 1 + abs(phi0)
    assert abs(numeric - analytic) <= 1e-4 * (abs(numeric) + scale), (
        f"H v disagrees with finite differences: {analytic} vs {numeric}\nprogram: {program!r}")
    return True

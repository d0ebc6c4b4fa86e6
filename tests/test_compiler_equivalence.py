"""Every pass is result-equivalent: optimised vs unoptimised vs dyngraph, on random graphs.

A random program is a list of instructions over a pool of float64 values
(inputs hold NaN, +-Inf and -0.0 on purpose), interpreted once against
staticgraph's graph-building ``F`` and once against dyngraph's eager ``OPS``.
The instruction menu is biased toward what the passes rewrite: neutral
elements (1, 0, -0.0, ones_like), duplicate ops, transposes and reshapes of
reshapes, shape ops that do nothing, and elementwise chains that run in place.
Forward values and gradients must be *bit-identical* between the optimised
and unoptimised static plans (each pass alone and all together) and equal
to dyngraph's (gradients to rounding: the engines may sum in another order).
"""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph
import staticgraph as tf
from staticgraph.framework.build import F as SF
from staticgraph.compiler import PassConfig

SHAPES = {"a": (3, 4), "b": (3, 4), "c": (4,), "d": (1, 4)}
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum"]
UNARY = ["neg", "tanh", "exp", "abs", "identity", "sigmoid", "relu", "stop_gradient"]
SCALARS = [1.0, 0.0, -0.0, 2.0, 0.5]
MATRIX = ["gram", "softmax", "rowsum", "where"]


def _broadcasts(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def random_program(rng: np.random.Generator, n: int = 14) -> tuple[list, list[int]]:
    """Instructions ``(kind, args)`` over pool indices, and the indices to fetch."""
    shapes = list(SHAPES.values())
    prog = []

    def pick(): return int(rng.integers(len(shapes)))
    def partner(i):
        """A pool index whose shape broadcasts with ``shapes[i]`` (``i`` itself always does)."""
        ok = [j for j, sh in enumerate(shapes) if _broadcasts(sh, shapes[i])]
        return int(rng.choice(ok))
    for _ in range(n):
        kind = rng.choice(["binary", "scalar", "fill", "unary", "shape", "reduce", "again",
                           "matrix"])
        i = pick()
        if kind == "binary":
            j = partner(i)
            out = np.broadcast_shapes(shapes[i], shapes[j])
            args = (str(rng.choice(BINARY)), i, j)
        elif kind == "matrix":
            if len(shapes[i]) != 2:
                continue
            args = (str(rng.choice(MATRIX)), i, partner(i))
            out = {"gram": (shapes[i][0], shapes[i][0]), "softmax": shapes[i],
                   "rowsum": (shapes[i][0], 1), "where": np.broadcast_shapes(shapes[i], shapes[args[2]])
                   }[args[0]]
        elif kind == "scalar":
            args = (str(rng.choice(BINARY[:4])), i, float(rng.choice(SCALARS)), bool(rng.integers(2)))
            out = shapes[i]
        elif kind == "fill":
            args = (str(rng.choice(["mul", "add", "sub"])), i, str(rng.choice(["ones_like", "zeros_like"])))
            out = shapes[i]
        elif kind == "unary":
            args, out = (str(rng.choice(UNARY)), i), shapes[i]
        elif kind == "shape":
            args, out = (str(rng.choice(["transpose2", "reshape2", "like", "cast"])), i), shapes[i]
        elif kind == "reduce":
            args, out = ("sum_back", i), shapes[i]
        else:
            if not prog:
                continue
            k = int(rng.integers(len(prog)))
            args, out = prog[k][1], prog[k][2]
            kind = prog[k][0]
        prog.append((kind, args, out))
        shapes.append(out)
    fetch = sorted({len(shapes) - 1, len(shapes) - 2, int(rng.integers(len(SHAPES), len(shapes)))})
    return prog, fetch


def interpret(F, inputs: list, prog: list) -> list:
    pool = list(inputs)
    for kind, args, _ in prog:
        x = pool[args[1]]
        if kind == "binary":
            y = getattr(F, args[0])(x, pool[args[2]])
        elif kind == "scalar":
            op, _, s, left = args
            y = getattr(F, op)(s, x) if left else getattr(F, op)(x, s)
        elif kind == "fill":
            y = getattr(F, args[0])(x, getattr(F, args[2])(x))
        elif kind == "unary":
            y = getattr(F, args[0])(x)
        elif kind == "reduce":
            y = F.broadcast_like(F.sum(x, axis=0, keepdims=True), x)
        elif kind == "matrix":
            y = _matrix_op(F, args[0], x, pool[args[2]])
        else:
            y = _shape_op(F, args[0], x)
        pool.append(y)
    return pool


def _matrix_op(F, name: str, x, y):
    if name == "gram":
        return F.matmul(x, F.transpose(x, perm=None))
    if name == "softmax":
        return F.softmax(x, axis=-1)
    if name == "rowsum":
        return F.sum(x, axis=-1, keepdims=True)
    return F.where(F.gt(x, 0.0), x, y)


def _shape_op(F, name: str, x):
    shape = tuple(-1 if d is None else d for d in F.shape(x))
    if name == "transpose2":
        return F.transpose(F.transpose(x, perm=None), perm=None)
    if name == "reshape2":
        return F.reshape(F.reshape(x, shape=(-1,)), shape=shape)
    if name == "like":
        return F.reshape_like(F.sum_like(F.broadcast_like(x, x), x), x)
    return F.cast(x, dtype=np.dtype(np.float64))


def feeds(rng: np.random.Generator) -> dict[str, np.ndarray]:
    out = {}
    for name, shape in SHAPES.items():
        v = rng.standard_normal(shape)
        flat = v.reshape(-1)
        flat[rng.integers(flat.size, size=2)] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0], size=2)
        out[name] = v
    return out


def run_static(prog, fetch, values, config: PassConfig, batch_known: bool = True):
    """``batch_known=False``: placeholders of rank 2 get a None first dim (run-time sizes)."""
    tf.reset_default_graph()
    phs = [tf.placeholder(tf.float64, name=n, shape=s if batch_known or len(s) < 2 or s[0] == 1
                          else (None,) + s[1:]) for n, s in SHAPES.items()]
    pool = interpret(SF, phs, prog)
    outs = [pool[i] for i in fetch]
    loss = SF.add(*[SF.sum(o) for o in outs[:2]]) if len(outs) > 1 else SF.sum(outs[0])
    grads = [g for g in tf.gradients(loss, phs) if g is not None]
    with tf.Session(config=config) as s:
        return s.run(outs + grads, dict(zip(phs, values.values())))


def run_eager(prog, fetch, values):
    xs = [dyngraph.tensor(v, requires_grad=True) for v in values.values()]
    pool = interpret(dyngraph.OPS, xs, prog)
    outs = [pool[i] for i in fetch]
    loss = dyngraph.OPS.add(*[dyngraph.OPS.sum(o) for o in outs[:2]]) if len(outs) > 1 \
        else dyngraph.OPS.sum(outs[0])
    loss.backward()
    return [o.detach().numpy() for o in outs] + [x.grad.numpy() for x in xs if x.grad is not None]


def assert_bitwise(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))   # -0.0 stays -0.0


CONFIGS = {"all": PassConfig(), **{name: PassConfig(**{n: n == name for n in PassConfig().names})
                                   for name in PassConfig().names}}


@pytest.mark.parametrize("batch_known", [True, False], ids=["static-shapes", "none-batch"])
@pytest.mark.parametrize("seed", range(25))
def test_random_graph_optimised_equals_unoptimised_and_dyngraph(seed, batch_known, tier):
    """In both tiers (``tier``): compiled plans (each pass alone and all together) and
    interpreted ones must agree bit for bit with the unoptimised plan."""
    rng = np.random.default_rng(seed)
    prog, fetch = random_program(rng)
    values = feeds(rng)
    with np.errstate(all="ignore"):
        base = run_static(prog, fetch, values, PassConfig.off())
        for name, config in CONFIGS.items():
            assert_bitwise(run_static(prog, fetch, values, config, batch_known), base), name
        eager = run_eager(prog, fetch, values)
    n_out = len(fetch)
    assert_bitwise(base[:n_out], eager[:n_out])
    for g, w in zip(base[n_out:], eager[n_out:]):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0, equal_nan=True)


def compiled_random_programs(count: int = 25):
    """The first ``count`` seeds' random programs, each compiled with every placeholder fed
    (a new default graph each): what the compiler made of the generator's graphs."""
    for seed in range(count):
        prog, fetch = random_program(np.random.default_rng(seed))
        tf.reset_default_graph()
        phs = [tf.placeholder(tf.float64, shape=s, name=n) for n, s in SHAPES.items()]
        pool = interpret(SF, phs, prog)
        yield tf.Session().compiled([pool[i] for i in fetch], {p: None for p in phs})


def test_random_programs_exercise_every_pass():
    """The generator is worth something only if the passes actually fire on its graphs."""
    fired = set()
    for exe in compiled_random_programs():
        fired |= {r.name for r in exe.report.records if r.changes}
        fired |= {"inplace"} if "out=" in exe.source else set()
    assert {"fold", "simplify", "cse", "dce", "inplace"} <= fired

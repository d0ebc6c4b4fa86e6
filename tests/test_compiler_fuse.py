"""Fused elementwise kernels (``staticgraph/compiler/fuse.py``): same bits, state untouched.

A fused plan must return what the unfused plan returns, bit for bit (its ops are IEEE
operations numba computes as numpy does), NaN, Inf and -0.0 included; no member of a chain
may move past a stateful step; and a plan is fused only once it is hot.  The fusion
threshold and the hot time are lowered here (``fused`` fixture) so small tensors fuse.
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.compiler import PassConfig, fuse
from tests.test_compiler_equivalence import compiled_random_programs, feeds, random_program, run_static

pytestmark = pytest.mark.skipif(not fuse.available(), reason="numba is not installed")


def assert_bitwise(got, want):
    """Bit for bit, -0.0 included -- except *which* NaN a NaN is: its sign and payload are
    not IEEE results (LLVM may commute the operands of ``a * b``, and x86 makes a negative
    "default NaN" where numpy's loops may hand an operand's NaN on)."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
        nan = np.isnan(w)
        np.testing.assert_array_equal(np.signbit(g)[~nan], np.signbit(w)[~nan])


@pytest.fixture
def fused(monkeypatch):
    """Fuse every chain, whatever its size, when the plan is compiled."""
    monkeypatch.setattr(fuse, "MIN_ELEMENTS", 1)
    monkeypatch.setattr(fuse, "FUSE_AFTER_S", 0.0)


def _pointwise(shape=(8, 16)):
    """The bench's memory-bound chain with its gradient: ``(fetches, feed)``."""
    from comparisons.bench.pointwise import forward
    rng = np.random.default_rng(3)
    xv, yv = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    xv.flat[:4] = [np.nan, np.inf, -0.0, -np.inf]
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, shape=shape, name="x")
    y = tf.placeholder(tf.float32, shape=shape, name="y")
    loss = tf.reduce_sum(forward(x, y))
    return [loss] + tf.gradients(loss, [x, y]), {x: xv, y: yv}


def _run(fetches, feed, config=None):
    with np.errstate(all="ignore"):
        sess = tf.Session(config=config)
        return sess.run(fetches, feed), sess.compiled(fetches, feed)


def test_a_chain_and_its_gradient_run_as_one_fused_loop_with_the_unfused_bits(fused):
    """The gradient's steps join the forward chain across the ``Sum`` (they do not read it),
    and the ``Sum`` joins too: one loop sums ``l`` (without writing it) and writes both
    gradients."""
    fetches, feed = _pointwise()
    want, _ = _run(fetches, feed, PassConfig(fuse=False))
    got, exe = _run(fetches, feed)
    assert_bitwise(got, want)
    assert exe.report.changed("fuse") == ["fuse: 23 steps -> FusedElementwise 'gradients/AddN_4'"]
    lines = [line for line in exe.source.splitlines() if "  # " in line]
    assert [line.split("  # ")[1].split()[0] for line in lines] == ["FusedElementwise"]
    assert lines[0].split(" = ")[0].strip() == "r0, r1, r2"      # dx, dy, sum(l)
    off, _ = _run(fetches, feed, PassConfig.off())
    assert_bitwise(got, off)


def test_the_large_chain_fuses_its_broadcast_too(fused, monkeypatch):
    """At the bench's size the gradient of ``sum`` stays a ``BroadcastLike`` of the scalar
    (too large to fold): it joins the loop as its declared per-element form, the scalar."""
    monkeypatch.setattr(fuse, "MIN_ELEMENTS", 1 << 16)
    fetches, feed = _pointwise((256, 512))
    want, _ = _run(fetches, feed, PassConfig(fuse=False))
    got, exe = _run(fetches, feed)
    assert_bitwise(got, want)
    assert exe.report.changed("fuse") == ["fuse: 24 steps -> FusedElementwise 'gradients/AddN_4'"]


@pytest.mark.parametrize("seed", range(25))
def test_random_graphs_fused_equal_unoptimised_bit_for_bit(seed, fused):
    """The equivalence suite's random programs (NaN, Inf, -0.0 inputs; broadcasts, neutral
    elements, in-place chains): every pass and fusion against no pass at all."""
    rng = np.random.default_rng(seed)
    prog, fetch = random_program(rng)
    values = feeds(rng)
    with np.errstate(all="ignore"):
        base = run_static(prog, fetch, values, PassConfig.off())
        assert_bitwise(run_static(prog, fetch, values, PassConfig()), base)
        assert_bitwise(run_static(prog, fetch, values, PassConfig.off().__class__(
            **{n: n == "fuse" for n in PassConfig().names})), base)


def test_random_programs_do_fuse(fused):
    """The random programs above are worth something only if chains are fused in them."""
    fused_steps = sum(exe.source.count("FusedElementwise") for exe in compiled_random_programs())
    assert fused_steps >= 10


def test_a_plan_is_fused_only_once_it_is_hot(monkeypatch):
    monkeypatch.setattr(fuse, "MIN_ELEMENTS", 1)
    monkeypatch.setattr(fuse, "FUSE_AFTER_S", 1e9)
    fetches, feed = _pointwise()
    sess = tf.Session()
    with np.errstate(all="ignore"):
        first = sess.run(fetches, feed)
        first_again = sess.run(fetches, feed)
        exe = sess.compiled(fetches, feed)
        assert "FusedElementwise" not in exe.source
        monkeypatch.setattr(fuse, "FUSE_AFTER_S", 1e-9)   # now the time spent is enough
        fused_now = sess.run(fetches, feed)               # (this run fuses the plan after it)
        assert "FusedElementwise" in exe.source
        second = sess.run(fetches, feed)
    assert_bitwise(first_again, first)
    assert_bitwise(fused_now, first)
    assert_bitwise(second, first)


def test_small_plans_are_not_watched(fused, monkeypatch):
    """Below the size threshold a plan has no chain: its ``fn`` is the generated function
    itself, with no timing around it."""
    monkeypatch.setattr(fuse, "MIN_ELEMENTS", 1 << 16)
    monkeypatch.setattr(fuse, "FUSE_AFTER_S", 1.0)
    fetches, feed = _pointwise()
    _, exe = _run(fetches, feed)
    assert exe.fn.__name__.startswith("plan_") and "FusedElementwise" not in exe.source


def test_without_numba_the_plan_stays_unfused(fused, monkeypatch):
    monkeypatch.setattr(fuse, "available", lambda: False)
    fetches, feed = _pointwise()
    want, _ = _run(fetches, feed, PassConfig(fuse=False))
    got, exe = _run(fetches, feed)
    assert "FusedElementwise" not in exe.source
    assert_bitwise(got, want)


def test_no_chain_crosses_a_variable_update(fused):
    """``t = v * 2 + 1``, ``assign_add(v, t)``, ``u = v * t - 3``: the update is stateful, so
    the steps before it and after it fuse apart, and ``u`` reads the updated ``v``."""
    tf.reset_default_graph()
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    t = v.read_value() * 2.0 + 1.0
    up = tf.assign_add(v, t)
    with tf.control_dependencies([up]):
        r = v.read_value()
    u = (r * t - 3.0) * 0.5
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    got = sess.run([u, t])
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    want_t = base * np.float32(2) + np.float32(1)
    assert_bitwise(got, [((base + want_t) * want_t - np.float32(3)) * np.float32(0.5), want_t])
    src = sess.compiled([u, t]).source
    lines = src.splitlines()
    assign = next(i for i, line in enumerate(lines) if "AssignAdd" in line)
    fused_at = [i for i, line in enumerate(lines) if "FusedElementwise" in line]
    assert len(fused_at) == 2 and fused_at[0] < assign < fused_at[1]


def test_views_and_broadcasts_feed_a_chain(fused):
    """A transposed (non-contiguous) input and a broadcast scalar are read as they are."""
    tf.reset_default_graph()
    a = tf.placeholder(tf.float32, shape=(4, 3), name="a")
    b = tf.placeholder(tf.float32, shape=(3, 4), name="b")
    s = tf.placeholder(tf.float32, shape=(), name="s")
    out = (tf.transpose(a) * b + tf.ones_like(b) * s) - b
    av = np.arange(12, dtype=np.float32).reshape(4, 3)
    bv = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    got, exe = _run([out], {a: av, b: bv, s: np.float32(0.25)})
    assert "FusedElementwise" in exe.source
    assert_bitwise(got, [(av.T * bv + np.float32(0.25)) - bv])


def test_kernel_source_names_ops_only_in_repr_comments(fused):
    """An op name is graph data: it reaches the generated loop only inside a comment, through
    ``repr()`` -- a quote or a line break in it cannot become code."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, shape=(2, 2), name="x")
    y = tf.multiply(x, 2.0)
    y.op.name = "evil')\nimport_os"      # (as a loaded graph could name it: no name check)
    z = tf.add(y, 1.0, name="z")
    got, exe = _run([z], {x: np.ones((2, 2), np.float32)})
    step = next(s for s in exe.plan.steps if isinstance(s.kernel, fuse.FusedKernel))
    assert "# Mul \"evil')\\nimport_os\"" in step.kernel.source
    assert_bitwise(got, [np.full((2, 2), 3.0, np.float32)])


def test_an_output_array_is_written_again_only_once_nobody_holds_it(fused):
    """The kernel reuses an output array only when its own reference is the last one: results
    a caller keeps stay as they were, and a dropped one's memory serves the next run (which
    then allocates no array of the chain's size: tracemalloc's peak stays below one)."""
    import tracemalloc
    fetches, feed = _pointwise((256, 256))
    one = 256 * 256 * 4
    sess = tf.Session()
    with np.errstate(all="ignore"):
        first = sess.run(fetches, feed)
        kept = [a.copy() for a in first]
        second = sess.run(fetches, feed)
        assert all(not np.shares_memory(a, b) for a, b in zip(first[1:], second[1:]))
        assert_bitwise(first, kept)                 # the first run's results are untouched
        del second
        tracemalloc.start()
        try:
            third = sess.run(fetches, feed)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < one
    assert_bitwise(third, kept)


def test_a_chain_numba_refuses_stays_unfused(fused, monkeypatch):
    """numba compiles each kernel when the plan is fused; one it refuses (here: a loop
    calling a name it cannot type) leaves that chain's steps as they were."""
    real = fuse.kernel_source

    def refused(plan, chain, name):
        source, env = real(plan, chain, name)
        return source.replace("):\n", "):\n    unknown_name()\n", 1), env
    monkeypatch.setattr(fuse, "kernel_source", refused)
    fetches, feed = _pointwise()
    want, _ = _run(fetches, feed, PassConfig(fuse=False))
    got, exe = _run(fetches, feed)
    assert "FusedElementwise" not in exe.source and exe.report.changed("fuse") == []
    assert_bitwise(got, want)


# --- a chain's full Sum, summed inside the loop --------------------------------------------------

def _numpy_pairwise(x: np.ndarray):
    """Run :func:`fuse.pairwise_schedule` over ``x`` with numpy scalars (the kernel's stack
    machine, slowly): numpy's own summation order, if the schedule is right."""
    flat = x.reshape(-1)
    lo, length, pops = fuse.pairwise_schedule(flat.size)
    zero, stack = x.dtype.type(0), []
    for a, m, p in zip(lo, length, pops):
        if m < 8:
            s = zero
            for v in flat[a:a + m]:
                s = s + v
        else:
            e = a + m - m % 8
            r = list(flat[a:a + 8])
            for j in range(a + 8, e, 8):
                r = [r[i] + flat[j + i] for i in range(8)]
            s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
            for v in flat[e:a + m]:
                s = s + v
        stack.append(s)
        for _ in range(p):
            right = stack.pop()
            stack.append(stack.pop() + right)
    return zero + stack[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_pairwise_schedule_is_numpys_summation_order(dtype):
    """``np.add.reduce`` over all axes of a contiguous array is ``0 + pairwise_sum`` over the
    whole array in one inner loop, whatever the shape: the schedule gives its bits on random
    shapes and sizes (below 8, up to 128, not multiples of 8 or 128; values spread over many
    magnitudes so that any other order rounds differently)."""
    rng = np.random.default_rng(7)
    shapes = [(1,), (5,), (8,), (9,), (127,), (128,), (129,), (136,), (1000,), (3, 7, 11),
              (64, 65), (2, 1, 517), (4099,)] + \
        [tuple(int(v) for v in rng.integers(1, 40, rng.integers(1, 4))) for _ in range(20)]
    for shape in shapes:
        x = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 6, shape)).astype(dtype)
        want = np.add.reduce(x, None)
        got = _numpy_pairwise(x)
        assert type(got) is type(want) and got.tobytes() == want.tobytes(), shape
    assert _numpy_pairwise(np.full(200, -0.0, dtype)).tobytes() == np.sum(
        np.full(200, -0.0, dtype)).tobytes()                     # +0.0: numpy starts from 0


def _summed_chain(rng, shape, dtype):
    """A random elementwise chain over two placeholders ending in ``reduce_sum``."""
    tf.reset_default_graph()
    x = tf.placeholder(dtype, shape=shape, name="x")
    y = tf.placeholder(dtype, shape=shape, name="y")
    v, w = x, y
    for _ in range(int(rng.integers(2, 7))):
        op = rng.choice(["add", "sub", "mul", "div", "max", "sq"])
        v, w = {"add": lambda: (v + w, v), "sub": lambda: (w - v, w),
                "mul": lambda: (v * w, w), "div": lambda: (v / (w + 3.0), v),
                "max": lambda: (tf.maximum(v, w) * 0.5, w),
                "sq": lambda: (tf.square(v) - w, v)}[op]()
    return tf.reduce_sum(v), x, y


@pytest.mark.parametrize("seed", range(12))
def test_a_summed_chain_keeps_the_unfused_bits(seed, fused):
    """Random chains ending in a full sum, on sizes below 8, up to 128 and beyond, not
    multiples of 8 or 128, with NaN and Inf inputs: the loop sums the last member itself
    (no ``Sum`` step is left) and gives the unfused plan's bits."""
    rng = np.random.default_rng(seed)
    dtype = [np.float32, np.float64][seed % 2]
    shape = [(3,), (9,), (127,), (129,), (7, 37), (300, 41), (5, 13, 17), (2, 1025),
             (130, 130), (1,), (8, 16), (65537,)][seed]
    loss, x, y = _summed_chain(rng, shape, dtype)
    xv = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 5, shape)).astype(dtype)
    yv = rng.standard_normal(shape).astype(dtype)
    if seed % 3 == 1:
        xv.flat[rng.integers(0, xv.size)] = [np.nan, np.inf, -np.inf][seed % 3]
    if seed % 4 == 2:
        yv.flat[rng.integers(0, yv.size)] = np.inf
    feed = {x: xv, y: yv}
    want, _ = _run([loss], feed, PassConfig(fuse=False))
    got, exe = _run([loss], feed)
    assert_bitwise(got, want)
    assert type(got[0]) is type(want[0])
    assert "FusedElementwise" in exe.source and " Sum " not in exe.source


def test_a_summed_array_that_is_also_fetched_is_still_written(fused):
    """A member the ``Sum`` reads but that is fetched too must exist as an array: the loop
    writes it and the ``Sum`` stays a step of its own."""
    fetches, feed = _pointwise()
    graph = tf.get_default_graph()
    summed = graph.get_operation_by_name("Sum").inputs[0]
    want, _ = _run(fetches + [summed], feed, PassConfig(fuse=False))
    got, exe = _run(fetches + [summed], feed)
    assert_bitwise(got, want)
    lines = [line for line in exe.source.splitlines() if "  # " in line]
    assert [line.split("  # ")[1].split()[0] for line in lines] == ["FusedElementwise", "Sum"]


@pytest.mark.parametrize("keepdims, axis", [(True, None), (False, 1), (False, (0, 1))])
def test_only_a_full_sum_to_a_scalar_joins_the_loop(fused, keepdims, axis):
    """A sum over some axes, or keeping them, is not numpy's one pairwise sum over the
    whole array (nor a scalar): it stays a step.  A sum over every axis named one by one
    is the full sum and joins."""
    rng = np.random.default_rng(1)
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, shape=(40, 70), name="x")
    loss = tf.reduce_sum(x * x + x, axis=axis, keepdims=keepdims)
    xv = rng.standard_normal((40, 70)).astype(np.float32)
    want, _ = _run([loss], {x: xv}, PassConfig(fuse=False))
    got, exe = _run([loss], {x: xv})
    assert_bitwise(got, want)
    assert (" Sum " in exe.source) == (axis != (0, 1))

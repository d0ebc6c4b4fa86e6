"""Liveness and in-place reuse: bounded live buffers, and never a write into a shared array.

In-place writes are only safe into a buffer the plan allocated in this run
and that nothing else can still see; each test below builds a graph where a
careless rule would corrupt a fed array, a constant, a variable, a view, a
fetched value, or a value a non-registry kernel might keep -- and checks the
numbers.  The last tests check that a cached ``run`` does no graph work.
"""
from __future__ import annotations

import sys
import tracemalloc

import numpy as np
import pytest

import staticgraph as tf
import staticgraph.compiler
from staticgraph.compiler import PassConfig

pytestmark = pytest.mark.usefixtures("fresh_graph")


def chain(n: int, shape, backward: bool = False):
    x = tf.placeholder(tf.float64, shape=shape, name="x")
    c = tf.placeholder(tf.float64, shape=shape, name="c")
    y = x
    for _ in range(n):
        y = y + c
    fetches = [y]
    if backward:
        loss = tf.reduce_sum(tf.tanh(y))
        fetches = [loss] + tf.gradients(loss, [x, c])
    return x, c, fetches


def test_a_100_add_chain_runs_in_a_constant_number_of_buffers():
    x, c, (y,) = chain(100, (16, 16))
    with tf.Session() as s:
        exe = s.compiled(y, {x: None, c: None})
        feed = {x: np.ones((16, 16)), c: np.full((16, 16), 0.5)}
        np.testing.assert_array_equal(s.run(y, feed), np.full((16, 16), 51.0))
    alloc = exe.allocation
    assert alloc.n_registers == 1 and len(alloc.out) == 99      # one local, 99 steps in place
    assert exe.source.count("out=r0") == 99
    np.testing.assert_array_equal(feed[x], np.ones((16, 16)))   # the fed arrays are untouched
    np.testing.assert_array_equal(feed[c], np.full((16, 16), 0.5))


def test_forward_and_backward_of_the_chain_keep_few_locals():
    x, c, fetches = chain(100, (16, 16), backward=True)
    with tf.Session() as s:
        exe = s.compiled(fetches, {x: None, c: None})
    assert exe.allocation.n_registers <= 4
    assert "SumLike" not in exe.source and "BroadcastLike" not in exe.source


def _peak(config: PassConfig) -> int:
    """Peak traced memory of a second run of a 60-add chain of (256, 256) float64 arrays."""
    x, c, (y,) = chain(60, (256, 256))
    feed = {x: np.zeros((256, 256)), c: np.ones((256, 256))}
    with tf.Session(config=config) as s:
        s.run(y, feed)
        tracemalloc.start()
        s.run(y, feed)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_intermediates_are_released_right_after_their_last_use(monkeypatch):
    monkeypatch.setattr(staticgraph.compiler.pipeline, "COMPILE_AFTER", 0)   # the compiled tier
    one = 256 * 256 * 8
    assert _peak(PassConfig(inplace=False)) < 3.5 * one         # liveness alone: ~2 live arrays
    assert _peak(PassConfig()) < 1.5 * one                      # in place: the result only
    assert _peak(PassConfig.off()) > 50 * one                   # every intermediate kept


def test_the_interpreter_releases_intermediates_after_their_last_use(monkeypatch):
    """The interpreted tier forgets a value after its last reader (it never writes in place)."""
    monkeypatch.setattr(staticgraph.compiler.pipeline, "COMPILE_AFTER", 10 ** 9)
    one = 256 * 256 * 8
    assert _peak(PassConfig()) < 3.5 * one
    assert _peak(PassConfig.off()) < 3.5 * one


def run_both(fetches, feed):
    """Values with every pass on, checked against the unoptimised plan; and the source."""
    with tf.Session(config=PassConfig.off()) as s:
        want = s.run(fetches, {k: v.copy() for k, v in feed.items()})
    with tf.Session() as s:
        got = s.run(fetches, feed)
        src = s.compiled(fetches, feed).source
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    return got, src


def test_fed_arrays_constants_and_variables_are_never_written():
    x = tf.placeholder(tf.float64, shape=(3,), name="x")
    k = tf.constant(np.array([1.0, 2.0, 3.0]), name="k")
    v = tf.Variable(np.array([5.0, 6.0, 7.0]), name="v")
    y = tf.tanh(tf.exp(x)) + tf.exp(k) * tf.exp(v.read_value() if hasattr(v, "read_value") else v)
    z = tf.negative(tf.negative(x) * 3.0)
    feed = {x: np.array([0.1, 0.2, 0.3])}
    with tf.Session() as s:
        s.run(v.initializer)
        s.run([y, z], feed)
        consts = {k: c.copy() for k, c in s._cache[((list, y, z), (x,))].exe.plan.consts.items()
                  if isinstance(c, np.ndarray)}
        for _ in range(3):
            s.run([y, z], feed)
        np.testing.assert_array_equal(s.run(v), [5.0, 6.0, 7.0])
        for slot, value in s._cache[((list, y, z), (x,))].exe.plan.consts.items():
            if slot in consts:
                np.testing.assert_array_equal(value, consts[slot])
    np.testing.assert_array_equal(feed[x], [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(k.op.attrs["value"], [1.0, 2.0, 3.0])


def test_a_live_view_keeps_its_base_buffer_from_being_overwritten():
    x = tf.placeholder(tf.float64, shape=(2, 3), name="x")
    a = x + 1.0                           # owned
    r = tf.reshape(a, (3, 2))             # a view of a, read later
    t = tf.transpose(a)                   # another view
    b = tf.tanh(a)                        # a's last direct use: must not write into a
    out = [b, r * 2.0, t - 1.0]
    got, src = run_both(out, {x: np.arange(6.0).reshape(2, 3)})
    tanh_line = next(line for line in src.splitlines() if "# Tanh" in line)
    assert "out=" not in tanh_line
    np.testing.assert_array_equal(got[1], (np.arange(6.0) + 1).reshape(3, 2) * 2)


def test_fetched_values_and_broadcast_inputs_are_not_overwritten():
    x = tf.placeholder(tf.float64, shape=(3, 1), name="x")
    w = tf.placeholder(tf.float64, shape=(3, 4), name="w")
    a = x * 2.0                           # fetched: must survive
    b = a + 1.0                           # a dies here but is fetched
    c = (x + 1.0) + w                     # (3,1) buffer cannot hold the (3,4) result
    got, _ = run_both([a, b, c], {x: np.ones((3, 1)), w: np.ones((3, 4))})
    np.testing.assert_array_equal(got[0], np.full((3, 1), 2.0))


def test_values_read_by_structural_kernels_are_not_reused():
    """A non-registry kernel (Print, control flow) might keep a reference: hands off."""
    x = tf.placeholder(tf.float64, shape=(3,), name="x")
    a = x + 1.0
    p = tf.Print(a, [a], message="a=")
    b = tf.exp(p)
    got, src = run_both([b], {x: np.zeros(3)})
    assert "out=" not in src


def test_in_place_chains_follow_values_through_unary_and_binary_ufuncs():
    x = tf.placeholder(tf.float32, shape=(4, 5), name="x")
    y = tf.placeholder(tf.float32, shape=(5,), name="y")
    h = tf.exp(tf.tanh(x * 3.0) - y) / (tf.abs(x) + 1.0)
    got, src = run_both([h], {x: np.linspace(-2, 2, 20, dtype=np.float32).reshape(4, 5),
                              y: np.linspace(0, 1, 5, dtype=np.float32)})
    assert src.count("out=") >= 4


# --- a cached run does no graph work ----------------------------------------------------

def _calls_during(fn) -> set[tuple[str, str]]:
    seen = set()

    def prof(frame, event, arg):
        if event == "call":
            seen.add((frame.f_code.co_filename, frame.f_code.co_name))
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def test_a_cached_run_calls_no_compiler_or_graph_code(monkeypatch):
    monkeypatch.setattr(staticgraph.compiler.pipeline, "COMPILE_AFTER", 1)   # interpreted once, then compiled
    x = tf.placeholder(tf.float32, shape=(1,), name="x")
    w = tf.placeholder(tf.float32, shape=(1,), name="w")
    y = (x + w) * (w + 1.0)
    fetches = [y, *tf.gradients(y, [x, w])]
    feed = {x: np.array([2.0], np.float32), w: np.array([1.0], np.float32)}
    with tf.Session() as s:
        first = _calls_during(lambda: s.run(fetches, feed))
        s.run(fetches, feed)                                      # compiles
        calls = _calls_during(lambda: s.run(fetches, feed))
        assert s.compile_count == 1
    engine = ("/staticgraph/compiler/", "/staticgraph/framework/graph.py", "/staticgraph/framework/kinds.py",
              "/staticgraph/framework/build.py")
    assert any(e in f for f, _ in first for e in engine)         # the tracer does see them
    assert not any(e in f for f, _ in calls for e in engine)
    assert {name for f, name in calls if f.endswith("session.py")} <= {"run", "_run_key"}


def test_shape_only_readers_do_not_pin_a_buffer_and_unknown_batch_dims_still_run_in_place():
    """``matmul(x, W) + b`` with a None batch: the add writes into the matmul's buffer even
    though the bias gradient's SumLike later reads that tensor (for its shape only)."""
    x = tf.placeholder(tf.float32, shape=(None, 3), name="x")
    W = tf.placeholder(tf.float32, shape=(3, 4), name="W")
    b = tf.placeholder(tf.float32, shape=(4,), name="b")
    z = tf.matmul(x, W) + b
    loss = tf.reduce_sum(tf.tanh(z))
    fetches = [loss, *tf.gradients(loss, [W, b])]
    rng = np.random.default_rng(0)
    feed = {x: rng.standard_normal((5, 3)).astype(np.float32),
            W: rng.standard_normal((3, 4)).astype(np.float32),
            b: rng.standard_normal(4).astype(np.float32)}
    got, src = run_both(fetches, feed)
    add_line = next(line for line in src.splitlines() if "# AddV2 'add'" in line)
    assert "out=" in add_line and "SumLike" in src

"""Tiered execution: a signature's first runs are interpreted, later ones run generated code.

The two tiers must be indistinguishable from outside: the same values bit for bit, the same
order of effects, the same feed checks and errors, the same copies of fetched state.  Each
test runs a program through the switch (``COMPILE_AFTER`` runs interpreted, then compiled)
and compares every run with a Session that compiled at once.
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
import staticgraph.compiler
from tests.tf_errors import op_message

AFTER = 2


pytestmark = pytest.mark.usefixtures("fresh_graph")


@pytest.fixture(autouse=True)
def compile_after(monkeypatch):
    """Plans are compiled after ``AFTER`` interpreted runs (restored after the test)."""
    monkeypatch.setattr(staticgraph.compiler.pipeline, "COMPILE_AFTER", AFTER)


def _runs(make, n: int = AFTER + 3, after: int = AFTER):
    """``n`` results of ``make()``'s (session, run) with plans compiled after ``after`` runs."""
    staticgraph.compiler.pipeline.COMPILE_AFTER = after
    tf.reset_default_graph()
    sess, run = make()
    with sess:
        return [run(sess) for _ in range(n)]


def _same(a, b):
    if isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    assert type(a) is type(b)
    np.testing.assert_array_equal(a, b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape


def _agree(make, n: int = AFTER + 3):
    tiered, compiled = _runs(make, n), _runs(make, n, after=0)
    for a, b in zip(tiered, compiled):
        _same(a, b)
    return tiered


def test_a_signature_is_interpreted_then_compiled_once():
    x = tf.placeholder(tf.float32, shape=(3,), name="x")
    y = tf.tanh(x * 2.0 + 1.0)
    feed = {x: np.arange(3, dtype=np.float32)}
    with tf.Session() as s:
        s.run(y, feed)
        exe = next(iter(s._cache.values())).exe
        assert not exe.compiled and exe.runs == 1
        for _ in range(AFTER):
            s.run(y, feed)
        assert exe.compiled and s.compile_count == 1
        assert "Tanh" in exe.source


def test_reading_the_source_compiles_and_the_runs_agree():
    x = tf.placeholder(tf.float32, shape=(2, 2), name="x")
    y = tf.matmul(x, x) + 1.0
    feed = {x: np.eye(2, dtype=np.float32) * 3}
    with tf.Session() as s:
        first = s.run(y, feed)
        assert "MatMul" in s.compiled(y, feed).source    # compiles now, before COMPILE_AFTER
        np.testing.assert_array_equal(s.run(y, feed), first)


def test_chain_with_gradient_agrees_across_the_switch():
    def make():
        x = tf.placeholder(tf.float32, shape=(4, 4), name="x")
        c = tf.placeholder(tf.float32, shape=(None, 4), name="c")
        y = x
        for _ in range(30):
            y = y * 0.5 + c
        loss = tf.reduce_sum(tf.tanh(y))
        fetches = [loss, *tf.gradients(loss, [x, c])]
        rng = np.random.default_rng(0)
        feed = {x: rng.standard_normal((4, 4)).astype(np.float32),
                c: rng.standard_normal((4, 4)).astype(np.float32)}
        return tf.Session(), lambda s: s.run(fetches, feed)
    _agree(make)


def test_variable_updates_keep_their_order_and_fetched_state_is_a_copy():
    def make():
        v = tf.Variable(np.array([1.0, 2.0]), name="v")
        with tf.control_dependencies([v.assign_add(np.array([1.0, 1.0]))]):
            read = v.read_value()
        twice = v.assign(read * 2.0)
        s = tf.Session()
        s.run(v.initializer)

        def run(s):
            got = s.run([read, twice, v])
            got[0][...] = -7.0 if got[0].flags.writeable else got[0]   # a copy: state unchanged
            return got
        return s, run
    runs = _agree(make)
    np.testing.assert_array_equal(runs[-1][2], [46.0, 62.0])   # (v + 1) * 2, five times


def test_while_loop_cond_and_tensor_array_agree_across_the_switch():
    def make():
        n = tf.placeholder(tf.int32, shape=(), name="n")
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

        def body(i, acc, ta):
            acc = tf.cond(tf.equal(i % 2, 0), lambda: acc + 1.0, lambda: acc * 2.0)
            return i + 1, acc, ta.write(i, acc)
        _, acc, ta = tf.while_loop(lambda i, a, t: i < n, body, [0, tf.constant(0.5), ta])
        return tf.Session(), lambda s: s.run([acc, ta.stack()], {n: 5})
    _agree(make)


def test_random_draws_continue_across_the_switch():
    def make():
        tf.set_random_seed(3)
        r = tf.random_uniform((3,), seed=7)
        return tf.Session(), lambda s: s.run(r)
    draws = _agree(make, n=AFTER + 2)
    assert not np.array_equal(draws[0], draws[1])


def test_print_counts_first_n_across_the_switch(capsys):
    x = tf.placeholder(tf.float32, shape=(), name="x")
    y = tf.Print(x, [x], message="x=", first_n=3)
    with tf.Session() as s:
        for k in range(AFTER + 3):
            s.run(y, {x: float(k)})
    assert capsys.readouterr().err.count("x=") == 3


def test_feed_checks_and_scalars_are_the_same_in_both_tiers():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    k = tf.placeholder(tf.float32, shape=(), name="k")
    y = x * k
    errors = []
    for after in (10 ** 9, 0):
        staticgraph.compiler.pipeline.COMPILE_AFTER = after
        with tf.Session() as s:
            got = s.run([y, k], {x: [1, 2], k: np.float32(3.0)})
            assert got[1].__class__ is np.float32
            np.testing.assert_array_equal(got[0], np.array([3.0, 6.0], np.float32))
            for bad in ({x: np.zeros(3, np.float32), k: 1.0}, {x: ["a", "b"], k: 1.0}):
                with pytest.raises((ValueError, TypeError)) as e:
                    s.run(y, bad)
                errors.append((type(e.value), str(e.value)))
    assert errors[:2] == errors[2:]


def test_a_failing_step_is_reported_alike_by_both_tiers():
    a = tf.placeholder(tf.float32, shape=(None,), name="a")
    b = tf.placeholder(tf.float32, shape=(None,), name="b")
    y = tf.exp(a) + b
    messages = []
    for after in (10 ** 9, 0):
        staticgraph.compiler.pipeline.COMPILE_AFTER = after
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(y, {a: np.ones(2, np.float32), b: np.ones(3, np.float32)})
            messages.append(op_message(e.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith("Incompatible shapes: [2] vs. [3]")
    assert "in node 'add' (AddV2) with input shapes: [2], [3]" in messages[0]


def test_the_compiled_tier_is_the_same_code_whether_compiled_at_once_or_after_interpreting():
    """Kernels reused from the interpreted tier (a loop's) and the plan compiled after it are
    the very code a plan compiled at once runs (the generated text, up to the functions' names)."""
    import re

    def explain(after: int) -> str:
        staticgraph.compiler.pipeline.COMPILE_AFTER = after
        tf.reset_default_graph()
        x = tf.placeholder(tf.float32, shape=(3,), name="x")
        w = tf.Variable(np.ones(3, np.float32), name="w")
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.tanh(y * w + x)),
                             [0, x])
        loss = tf.reduce_sum(y)
        fetches = [loss, *tf.gradients(loss, [x, w])]
        with tf.Session() as s:
            s.run(w.initializer)
            for _ in range(after + 1):
                s.run(fetches, {x: np.arange(3, dtype=np.float32)})
            exe = list(s._cache.values())[-1].exe      # the signature run last (after init)
            assert exe.compiled                       # by running, not by reading its source
            return re.sub(r"_\d+\b", "_N", exe.explain())
    at_once, tiered = explain(0), explain(AFTER)
    assert "while" in at_once and at_once == tiered


def test_an_interpreted_plan_is_freed_with_its_session_without_the_cycle_collector():
    """No reference cycle through the interpreter: dropping the Session frees its plans (and
    the variables' arrays they reach) at once, as for compiled plans."""
    import gc
    import weakref
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    y = x * 2.0
    s = tf.Session()
    s.run(y, {x: np.ones(2, np.float32)})
    exe = weakref.ref(next(iter(s._cache.values())).exe)
    assert exe() is not None and not exe().compiled
    gc.disable()
    try:
        del s
        assert exe() is None
    finally:
        gc.enable()


def test_making_a_plan_leaves_the_cycle_collector_as_it_found_it():
    """The collector is paused while a plan is made or compiled, then restored -- also after
    a failure, and a collector the user switched off stays off."""
    import gc

    from staticgraph.compiler import lower_plan
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    y = x + 1.0
    seen = []
    real = staticgraph.compiler.pipeline._Job.compile

    def spy(job):
        seen.append(gc.isenabled())
        return real(job)
    try:
        staticgraph.compiler.pipeline._Job.compile = spy
        with tf.Session() as s:
            for _ in range(AFTER + 1):
                s.run(y, {x: np.ones(2, np.float32)})
            assert gc.isenabled() and seen == [False]
            gc.disable()
            s.run(y * 2.0, {x: np.ones(2, np.float32)})
            assert not gc.isenabled()
            gc.enable()
            staticgraph.compiler.pipeline.lower_plan = broken
            with pytest.raises(RuntimeError, match="lowering failed"):
                s.run(y * 3.0, {x: np.ones(2, np.float32)})
            assert gc.isenabled()
    finally:
        staticgraph.compiler.pipeline._Job.compile = real
        staticgraph.compiler.pipeline.lower_plan = lower_plan
        gc.enable()


def broken(*args, **kwargs):
    raise RuntimeError("lowering failed")

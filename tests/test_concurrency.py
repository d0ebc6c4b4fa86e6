"""Session.run on one Session from several threads.

Same results as sequential runs; a new run signature is compiled once even
when threads race for it.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
import staticgraph.client.session as session_module

THREADS = 8


def _model():
    """A graph with a matmul, a data-dependent loop, a cond and gradients: several plans' worth."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [None, 3], name="x")
        w = tf.Variable(np.linspace(-1, 1, 6).reshape(3, 2), name="w")
        h = tf.tanh(tf.matmul(x, w))
        n = tf.cast(tf.reduce_sum(tf.cast(x > 0, tf.int32)), tf.int32)
        looped = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tf.sigmoid(v) * 1.5),
                               (tf.constant(0), h))[1]
        out = tf.cond(tf.reduce_sum(looped) > 1.0, lambda: looped * 2.0, lambda: looped - 1.0)
        loss = tf.reduce_mean(out)
        grad, = tf.gradients(loss, [w])
    return g, x, w, (out, loss, grad)


def _feeds(k: int) -> list[np.ndarray]:
    rng = np.random.default_rng(k)
    return [rng.standard_normal((1 + i % 4, 3)) for i in range(40)]


def test_concurrent_runs_match_sequential_runs():
    g, x, w, fetches = _model()
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        feeds = [f for k in range(THREADS) for f in _feeds(k)]
        expected = [sess.run(fetches, {x: f}) for f in feeds]
        barrier = threading.Barrier(THREADS)

        def worker(k: int):
            barrier.wait()
            part = feeds[k::THREADS]
            return k, [sess.run(fetches, {x: f}) for f in part]

        with ThreadPoolExecutor(THREADS) as pool:
            results = list(pool.map(worker, range(THREADS)))
        for k, got in results:
            for want, have in zip(expected[k::THREADS], got):
                for a, b in zip(want, have):
                    assert np.array_equal(a, b)
        assert sess.compile_count == 2  # the initializer and the fetches: nothing recompiled


@pytest.fixture
def slow_compile(monkeypatch):
    """compile_plan made slow and counted, so racing threads really overlap inside it."""
    calls = []
    real = session_module.compile_plan

    def slow(*args, **kwargs):
        calls.append(threading.get_ident())
        time.sleep(0.05)
        return real(*args, **kwargs)
    monkeypatch.setattr(session_module, "compile_plan", slow)
    return calls


def _race(sess, fetch, feed, threads: int = THREADS) -> list:
    barrier = threading.Barrier(threads)

    def worker(_):
        barrier.wait()
        return sess.run(fetch, feed)
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(worker, range(threads)))


def test_a_new_signature_is_compiled_once_when_threads_race_for_it(slow_compile):
    g, x, w, (out, loss, grad) = _model()
    feed = {x: np.ones((2, 3))}
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        slow_compile.clear()
        results = _race(sess, loss, feed)
        assert len(slow_compile) == 1 and sess.compile_count == 2  # initializer + loss
        assert all(r == results[0] for r in results)
        _race(sess, grad, feed)  # another new signature: once more, exactly once
        assert len(slow_compile) == 2


def test_the_race_test_fails_without_the_lock(slow_compile, monkeypatch):
    """Control: compiling outside the lock lets every racing thread compile (so the test above bites)."""
    def unlocked(self, key, fetches, feed_dict):
        c = self._cache[key] = self._compile(fetches, feed_dict)
        return c
    monkeypatch.setattr(tf.Session, "_compile_once", unlocked)
    g, x, w, (out, loss, grad) = _model()
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        slow_compile.clear()
        _race(sess, loss, {x: np.ones((2, 3))})
        assert len(slow_compile) > 1


def test_different_signatures_at_once_each_compile_once(slow_compile):
    g, x, w, (out, loss, grad) = _model()
    fetch_sets = [out, loss, grad, [out, loss], (loss, grad), {"g": grad}]
    feed = {x: np.full((3, 3), 0.5)}
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        expected = [sess.run(f, feed) for f in fetch_sets]
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        slow_compile.clear()
        barrier = threading.Barrier(len(fetch_sets) * 2)

        def worker(i):
            barrier.wait()
            return sess.run(fetch_sets[i % len(fetch_sets)], feed)
        with ThreadPoolExecutor(len(fetch_sets) * 2) as pool:
            got = list(pool.map(worker, range(len(fetch_sets) * 2)))
        assert len(slow_compile) == len(fetch_sets)
    for i, value in enumerate(got):
        want = expected[i % len(fetch_sets)]
        for a, b in zip(_leaves(want), _leaves(value), strict=True):
            assert np.array_equal(a, b)


def _leaves(v) -> list:
    if isinstance(v, dict):
        return list(v.values())
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _totals_read_while_writing(sess, writes: list, total) -> set:
    """Every value of ``total`` four reader threads see (200 reads each) while a writer thread
    runs ``writes`` over and over in one shared Session."""
    stop = threading.Event()

    def writer():
        while not stop.is_set():
            for w in writes:
                sess.run(w)

    def reader(_):
        return {float(sess.run(total)) for _ in range(200)}
    t = threading.Thread(target=writer)
    t.start()
    try:
        with ThreadPoolExecutor(4) as pool:
            return set().union(*pool.map(reader, range(4)))
    finally:
        stop.set()
        t.join()


def test_reads_never_see_a_half_written_variable():
    """Assignments race as in TF, but a value is replaced whole: a read sees old or new, never a mix."""
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros(100_000), name="v")
        to_ones, to_zeros = v.assign(np.ones(100_000)), v.assign(np.zeros(100_000))
        total = tf.reduce_sum(v)
        with tf.Session() as sess:
            sess.run(v.initializer)
            seen = _totals_read_while_writing(sess, [to_ones, to_zeros], total)
    assert seen <= {0.0, 100_000.0}


def test_dyngraph_no_grad_in_one_thread_does_not_affect_another():
    """Grad mode is thread-local, as PyTorch's."""
    inside, done = threading.Event(), threading.Event()

    def other():
        with torch.no_grad():
            inside.set()
            done.wait(5)
    t = threading.Thread(target=other)
    t.start()
    inside.wait(5)
    try:
        x = torch.tensor([1.0], requires_grad=True)
        assert (x * 2).requires_grad
    finally:
        done.set()
        t.join()


def test_dyngraph_a_new_thread_starts_with_grad_enabled():
    seen = []
    with torch.no_grad():
        t = threading.Thread(target=lambda: seen.append(torch.is_grad_enabled()))
        t.start()
        t.join()
        assert not torch.is_grad_enabled()
    assert seen == [True]


def test_reads_never_see_a_half_updated_variable():
    """With other threads alive, assign_add computes the new value in a fresh array (never in
    the variable's own: see kinds.IN_PLACE_MIN_SIZE) and then replaces the old one whole:
    every total a reader sees is a whole number of adds."""
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros(100_000), name="v")
        add = v.assign_add(np.ones(100_000))
        total = tf.reduce_sum(v)
        with tf.Session() as sess:
            sess.run(v.initializer)
            seen = _totals_read_while_writing(sess, [add.op], total)
    assert all(s % 100_000 == 0 for s in seen), sorted(seen)[:5]

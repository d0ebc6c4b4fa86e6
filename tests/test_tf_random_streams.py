"""Same seeds, same numbers: staticgraph draws what TF 2.21 drew, bit for bit.

The programs are ``tests/tf_random_cases.py``, one text for both engines; what TensorFlow
2.21 (``compat.v1`` graph mode, x86-64 Linux, glibc 2.36) fetched is in
``tests/fixtures/tf_random.npz``, recorded by ``tests/fixtures/record_tf_random.py``.  Every
fetched value of every run must be equal bit for bit -- long ones through a digest of their
bytes -- and every random op must get TF's ``(seed, seed2)``.
"""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.framework import kinds
from tests.tf_random_cases import APPROXIMATE, CASES, DOUBLE_LIBM, summarize

FIXTURE = np.load(pathlib.Path(__file__).parent / "fixtures" / "tf_random.npz")


def numpy_computes_as_tfs_libm() -> bool:
    """Does numpy's float64 log/sin/cos give what the recording machine's libm gave?  (numpy
    calls libm on most machines; with AVX-512 it may use its own kernels, which differ from
    glibc's in rare last bits -- and then so do the doubles drawn from them.)"""
    x = FIXTURE["libm/x"]
    return (np.array_equal(np.log(x), FIXTURE["libm/log"])
            and np.array_equal(np.sin(2 * np.pi * x), FIXTURE["libm/sin"])
            and np.array_equal(np.cos(2 * np.pi * x), FIXTURE["libm/cos"]))


def run_case(name: str, monkeypatch, full: bool = False) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Our seeds and fetched values for a case, keyed as the fixture keys them, in a process
    whose thread pool is the one TF's had: the case's own (it ran first in a process of its
    own), else the recording machine's CPUs."""
    graph = tf.Graph()
    out = {}
    with graph.as_default():
        program = CASES[name](tf)
        threads = program.config.get("intra_op_parallelism_threads") or int(FIXTURE["meta"][3])
        monkeypatch.setattr(kinds, "_POOL_THREADS", [threads])
        seeds = np.array([(op.get_attr("seed"), op.get_attr("seed2")) for op in graph.get_operations()
                          if "seed2" in op.attrs], np.int64).reshape(-1, 2)
        with tf.Session(config=tf.ConfigProto(**program.config)) as sess:
            for r, fetches in enumerate(program.runs):
                for i, value in enumerate(sess.run(fetches)):
                    if value is not None:
                        out[f"{name}/{r}/{i}"] = np.asarray(value) if full else summarize(value)
    return seeds, out


def recorded(name: str) -> dict[str, np.ndarray]:
    return {k: FIXTURE[k] for k in FIXTURE.files if k.startswith(name + "/") and k != f"{name}/seeds"}


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "U":
        return bool((a == b).all())
    return np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8))


@pytest.mark.parametrize("name", [n for n in CASES if n not in APPROXIMATE])
def test_staticgraph_draws_what_tf_drew(name, monkeypatch, random_kernels):
    if name in DOUBLE_LIBM and not numpy_computes_as_tfs_libm():
        pytest.skip("numpy's float64 log/sin/cos differ from the libm TF used (recorded probe)")
    seeds, got = run_case(name, monkeypatch)
    np.testing.assert_array_equal(seeds, FIXTURE[f"{name}/seeds"], err_msg="op seeds differ from TF's")
    want = recorded(name)
    assert sorted(got) == sorted(want)
    for key in want:
        assert same_bits(got[key], want[key]), f"{key}: {got[key].reshape(-1)[:4]} vs {want[key].reshape(-1)[:4]}"


def test_orthogonal_draws_tfs_sample_and_factors_it_to_rounding(monkeypatch):
    """Why not bit for bit: APPROXIMATE["orthogonal"].  The evidence: the normal sample the
    initializer factors is TF's to the bit, and the Q made from it is TF's to ~1e-7."""
    seeds, got = run_case("orthogonal", monkeypatch, full=True)
    np.testing.assert_array_equal(seeds, FIXTURE["orthogonal/seeds"])
    assert same_bits(summarize(got["orthogonal/0/1"]), FIXTURE["orthogonal/0/1"])   # the sample
    ours, theirs = got["orthogonal/1/0"], FIXTURE["orthogonal/1/0"].astype(np.float32)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-5)
    np.testing.assert_allclose(ours.T @ ours, 4.0 * np.eye(12), atol=1e-4)            # gain 2

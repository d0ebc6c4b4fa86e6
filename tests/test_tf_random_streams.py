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
from staticgraph import kinds
from tests.tf_random_cases import CASES, summarize

FIXTURE = np.load(pathlib.Path(__file__).parent / "fixtures" / "tf_random.npz")


def run_case(name: str, monkeypatch) -> tuple[np.ndarray, dict[str, np.ndarray]]:
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
                        out[f"{name}/{r}/{i}"] = summarize(value)
    return seeds, out


def recorded(name: str) -> dict[str, np.ndarray]:
    return {k: FIXTURE[k] for k in FIXTURE.files if k.startswith(name + "/") and k != f"{name}/seeds"}


@pytest.mark.parametrize("name", list(CASES))
def test_staticgraph_draws_what_tf_drew(name, monkeypatch):
    seeds, got = run_case(name, monkeypatch)
    np.testing.assert_array_equal(seeds, FIXTURE[f"{name}/seeds"], err_msg="op seeds differ from TF's")
    want = recorded(name)
    assert sorted(got) == sorted(want)
    for key in want:
        g, w = got[key], want[key]
        assert g.dtype == w.dtype and g.shape == w.shape, (key, g.dtype, w.dtype, g.shape, w.shape)
        same = (g == w).all() if g.dtype.kind == "U" else np.array_equal(
            g.reshape(-1).view(np.uint8), w.reshape(-1).view(np.uint8))
        assert same, f"{key}: first differences at {np.flatnonzero(g.reshape(-1) != w.reshape(-1))[:5]}"

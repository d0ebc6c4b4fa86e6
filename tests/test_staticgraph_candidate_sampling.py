"""Candidate samplers and sampled losses against TF 2.21: the same seeds draw the same ids.

The programs are ``tests/tf_candidate_cases.py``, one text for both engines; what TF 2.21
(``compat.v1`` graph mode, x86-64 Linux, glibc 2.36) fetched is in
``tests/fixtures/tf_candidate_sampling.json``, recorded by
``tests/fixtures/record_tf_candidate_sampling.py``.  Sampled ids, hit positions, op seeds and
expected counts must be TF's exactly (the counts of a unique draw through glibc's float
``log1pf``/``expm1f``, which :mod:`common.libm` computes); losses and gradients TF's to
float32 rounding (sums in another order).
"""
from __future__ import annotations

import json
import pathlib
import re

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import InvalidArgumentError
from tests.tf_candidate_cases import CASES
from tests.tf_errors import op_message

pytestmark = pytest.mark.usefixtures("fresh_graph")

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                      "tf_candidate_sampling.json").read_text())
_LOSSES = {n for n in CASES if "nce" in n or "softmax" in n}


def run_case(name: str) -> tuple[list, list]:
    graph = tf.Graph()
    with graph.as_default():
        program = CASES[name](tf)
        seeds = [[op.get_attr("seed"), op.get_attr("seed2")] for op in graph.get_operations()
                 if "seed2" in op.attrs]
        with tf.Session() as sess:
            runs = [sess.run(fetches) for fetches in program.runs]
    return seeds, runs


@pytest.mark.parametrize("name", sorted(CASES))
def test_staticgraph_fetches_what_tf_fetched(name):
    seeds, runs = run_case(name)
    want = FIXTURE[name]
    assert seeds == want["seeds"], "op seeds differ from TF's"
    assert len(runs) == len(want["runs"])
    for r, (got_run, want_run) in enumerate(zip(runs, want["runs"])):
        assert len(got_run) == len(want_run)
        for i, (got, rec) in enumerate(zip(got_run, want_run)):
            where = f"run {r} fetch {i}"
            if rec is None:
                assert got is None, where
                continue
            expected = np.array(rec["value"], rec["dtype"])
            got = np.asarray(got)
            assert got.dtype == expected.dtype and got.shape == expected.shape, where
            if name in _LOSSES and expected.dtype.kind == "f":
                np.testing.assert_allclose(got, expected, rtol=2e-6, atol=2e-6, err_msg=where)
            else:
                assert got.tobytes() == expected.tobytes(), f"{where}: {got} vs {expected}"


def test_word2vec_draw_needs_glibcs_float_functions():
    """word2vec's draw (64 distinct ids of 1000) took more tries than ids, so its expected
    counts are ``-expm1f(tries * log1pf(-p))``: rounding float64 math instead misses TF's
    float for some of them."""
    _, runs = run_case("log_uniform_word2vec")
    want = FIXTURE["log_uniform_word2vec"]["runs"][0]
    assert len(set(runs[0][0].tolist())) == 64
    ours = runs[0][2]
    p = np.log((runs[0][0] + 2.0) / (runs[0][0] + 1.0)) / np.log1p(1000)
    tries = np.log1p(-ours.astype(np.float64)) / np.log1p(-p)
    assert np.allclose(tries, tries[0], rtol=1e-3) and tries[0] > 64.5
    rounded = (-np.expm1(np.float32(round(tries[0])) * np.log1p(-p.astype(np.float32)).astype(
        np.float64))).astype(np.float32)
    assert ours.tolist() == want[2]["value"] and (rounded != ours).any()


def test_sampler_outputs_are_tfs_named_tuple_and_nodes():
    s = tf.nn.log_uniform_candidate_sampler(np.array([[1], [2]]), 1, 3, True, 10)
    h = tf.nn.compute_accidental_hits(np.array([[1], [2]]), s[0], 1)
    assert repr(s) == (
        "LogUniformCandidateSampler(sampled_candidates=<tf.Tensor 'LogUniformCandidateSampler:0' "
        "shape=(3,) dtype=int64>, true_expected_count=<tf.Tensor 'LogUniformCandidateSampler:1' "
        "shape=(2, 1) dtype=float32>, sampled_expected_count=<tf.Tensor "
        "'LogUniformCandidateSampler:2' shape=(3,) dtype=float32>)")
    assert repr(h) == (
        "ComputeAccidentalHits(indices=<tf.Tensor 'ComputeAccidentalHits:0' shape=(None,) "
        "dtype=int32>, ids=<tf.Tensor 'ComputeAccidentalHits:1' shape=(None,) dtype=int64>, "
        "weights=<tf.Tensor 'ComputeAccidentalHits:2' shape=(None,) dtype=float32>)")
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "LogUniformCandidateSampler/true_classes", "LogUniformCandidateSampler",
        "ComputeAccidentalHits/true_classes", "ComputeAccidentalHits"]
    assert tf.compat.v1.random.log_uniform_candidate_sampler is tf.nn.log_uniform_candidate_sampler


def test_two_identical_samplers_are_two_streams_and_a_new_session_replays():
    """Stateful: never merged by the compiler; each run continues the op's stream."""
    tf.set_random_seed(1)
    a = tf.nn.uniform_candidate_sampler(np.array([[0]]), 1, 4, True, 1000)
    b = tf.nn.uniform_candidate_sampler(np.array([[0]]), 1, 4, True, 1000)
    with tf.Session() as sess:
        first = sess.run([a[0], b[0]])
        second = sess.run(a[0])
    assert first[0].tolist() != first[1].tolist() and second.tolist() != first[0].tolist()
    with tf.Session() as sess:
        assert sess.run(a[0]).tolist() == first[0].tolist()


def test_learned_sampler_learns_per_session():
    true = np.array([[3, 3]] * 50)
    s = tf.nn.learned_unigram_candidate_sampler(true, 2, 1, False, 10, seed=1)
    with tf.Session() as sess:
        before = sess.run(s.sampled_expected_count)
        after = sess.run(s.sampled_expected_count)
    with tf.Session() as sess:
        again = sess.run(s.sampled_expected_count)
    assert before == pytest.approx([0.1]) and again.tolist() == before.tolist()
    assert after[0] in (pytest.approx(1 / 110), pytest.approx(101 / 110))


def test_sampled_values_carry_no_gradient():
    w = tf.Variable(np.ones((6, 2), np.float32))
    b = tf.Variable(np.zeros(6, np.float32))
    x = tf.placeholder(tf.float32, [None, 2])
    labels = tf.placeholder(tf.int64, [None, 1])
    loss = tf.reduce_sum(tf.nn.nce_loss(w, b, labels, x, 3, 6))
    s = tf.nn.uniform_candidate_sampler(labels, 1, 3, True, 6)
    assert tf.gradients(tf.reduce_sum(s.sampled_expected_count), [labels]) == [None]
    gw, gb, gx = tf.gradients(loss, [w, b, x])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([loss, gw, gb, gx], {x: [[1.0, 2.0], [0.5, -1.0]], labels: [[1], [4]]})
    assert np.isfinite(values[0]) and values[3].shape == (2, 2)


def test_partitioned_lookup_picks_tfs_rows():
    table = np.arange(7 * 2, dtype=np.float32).reshape(7, 2)
    ids = np.array([6, 0, 3, 4, 1])
    mod = [tf.constant(table[s::3]) for s in range(3)]
    div = [tf.constant(p) for p in np.array_split(table, 3)]
    with tf.Session() as sess:
        got_mod, got_div = sess.run([tf.nn.embedding_lookup(mod, ids),
                                     tf.nn.embedding_lookup(div, ids, partition_strategy="div")])
    np.testing.assert_array_equal(got_mod, table[ids])
    np.testing.assert_array_equal(got_div, table[ids])
    with pytest.raises(ValueError, match="Unrecognized partition strategy: both"):
        tf.nn.embedding_lookup(mod, ids, partition_strategy="both")


_TRUE = np.array([[1], [2]], np.int64)


@pytest.mark.parametrize("build,message", [
    (lambda: tf.nn.uniform_candidate_sampler(_TRUE, 1, 5, True, 4), "Sampler's range is too small."),
    (lambda: tf.nn.log_uniform_candidate_sampler(np.array([[1], [12]]), 1, 3, True, 10),
     "`true_candidate` out of range [0, 10), received 12"),
    (lambda: tf.nn.log_uniform_candidate_sampler(tf.placeholder_with_default(_TRUE, [None, None]),
                                                 2, 3, True, 10),
     "true_classes must have num_true columns, expected: 1 was: 2"),
    (lambda: tf.nn.fixed_unigram_candidate_sampler(_TRUE, 1, 3, True, 10),
     "Must provide either vocab_file or unigrams."),
    (lambda: tf.nn.fixed_unigram_candidate_sampler(_TRUE, 1, 3, True, 3, vocab_file="v.txt",
                                                   unigrams=[1.0, 2.0, 3.0]),
     "Must only provide one of vocab_file and unigrams."),
    (lambda: tf.nn.fixed_unigram_candidate_sampler(_TRUE, 1, 3, True, 10, unigrams=[1.0, 2.0, 3.0]),
     "range is 10 must be equal to weights size  3"),
    (lambda: tf.nn.compute_accidental_hits(tf.placeholder_with_default(_TRUE, [None, None]),
                                           np.array([1]), 2),
     "true_candidates must be a batch_size * num_true matrix"),
])
def test_run_time_errors_are_tfs(build, message):
    """TF 2.21's words (recorded): an ``InvalidArgumentError`` when the Session runs the node."""
    t = build()
    with tf.Session() as sess:
        with pytest.raises(InvalidArgumentError) as info:
            sess.run(t)
    assert op_message(info.value).startswith(message)


def test_bad_vocabulary_line_is_tfs_error(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("a,1\nb,x\n")
    t = tf.nn.fixed_unigram_candidate_sampler(_TRUE[:1], 1, 1, True, 2, vocab_file=str(path))
    with tf.Session() as sess, pytest.raises(InvalidArgumentError) as info:
        sess.run(t)
    assert op_message(info.value).startswith("Wrong vocabulary format at line: b,x")


@pytest.mark.parametrize("build,error,message", [
    (lambda: tf.nn.uniform_candidate_sampler(_TRUE, 1, 1, True, 0), ValueError,
     "Attr 'range_max' of 'UniformCandidateSampler' Op passed 0 less than minimum 1."),
    (lambda: tf.nn.learned_unigram_candidate_sampler(_TRUE, 1, 1, True, 2**31), ValueError,
     "Value of range_max:2147483648 is too large to handle"),
    (lambda: tf.nn.log_uniform_candidate_sampler(np.array([1, 2]), 1, 3, True, 10), ValueError,
     "Shape must be rank 2 but is rank 1"),
    (lambda: tf.nn.compute_accidental_hits(_TRUE, np.array([[1]]), 1), ValueError,
     "Shape must be rank 1 but is rank 2"),
])
def test_build_time_errors_are_tfs(build, error, message):
    with pytest.raises(error, match=re.escape(message)):
        build()


def test_losses_with_dimensions_known_only_at_run_time():
    w = tf.placeholder(tf.float32, [None, None])
    b = tf.placeholder(tf.float32, [None])
    x = tf.placeholder(tf.float32, [None, None])
    nce = tf.nn.nce_loss(w, b, tf.constant([[1, 2], [3, 0]]), x, 3, 6, num_true=2)
    softmax = tf.nn.sampled_softmax_loss(w, b, tf.constant([[1], [3]]), x, 3, 6)
    with tf.Session() as sess:
        got = sess.run([nce, softmax], {w: np.ones((6, 2)), b: np.zeros(6), x: np.ones((2, 2))})
    assert [g.shape for g in got] == [(2,), (2,)] and all(np.isfinite(g).all() for g in got)

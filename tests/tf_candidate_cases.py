"""Candidate samplers and sampled losses, written once against the TF1 surface: run on TF 2.21
by ``tests/fixtures/record_tf_candidate_sampling.py`` and on staticgraph by
``tests/test_staticgraph_candidate_sampling.py``, which checks we fetch what TF fetched.

Each case builds a graph with ``tf`` (``tensorflow.compat.v1`` with eager disabled, or
``staticgraph``) and returns a :class:`~tests.tf_random_cases.Program`: the fetch lists to
run, in order, in one Session -- several runs, since a sampler continues its stream (and a
learned sampler its counts) from run to run.
"""
from __future__ import annotations

import os
import tempfile
from typing import Any, Callable

import numpy as np

from tests.tf_random_cases import Program

__all__ = ["CASES", "WEIGHTS", "INPUTS", "BIASES"]

CASES: dict[str, Callable[[Any], Program]] = {}

_RNG = np.random.RandomState(0)
WEIGHTS = _RNG.randn(12, 4).astype(np.float32)
BIASES = _RNG.randn(12).astype(np.float32)
INPUTS = _RNG.randn(3, 4).astype(np.float32)
_TRUE2 = np.array([[1, 3], [2, 5]], np.int64)


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _three_runs(*samplers) -> Program:
    return Program([[t for s in samplers for t in s]] * 3)


@case
def log_uniform(tf):
    tf.set_random_seed(5)
    return _three_runs(
        tf.nn.log_uniform_candidate_sampler(_TRUE2, 2, 5, True, 10, seed=7),
        tf.nn.log_uniform_candidate_sampler(_TRUE2, 2, 5, False, 10),
        tf.random.log_uniform_candidate_sampler(_TRUE2, 2, 7, True, 7))   # all of the range


@case
def log_uniform_op_seed_only(tf):
    return _three_runs(tf.nn.log_uniform_candidate_sampler(_TRUE2, 2, 5, True, 10, seed=3))


@case
def log_uniform_word2vec(tf):
    """word2vec's draw: 64 distinct ids of 1000, for a batch of 16 labels."""
    tf.set_random_seed(1)
    labels = np.arange(0, 160, 10, dtype=np.int64).reshape(16, 1)
    return Program([list(tf.nn.log_uniform_candidate_sampler(labels, 1, 64, True, 1000))] * 2)


@case
def uniform(tf):
    tf.set_random_seed(2)
    return _three_runs(
        tf.nn.uniform_candidate_sampler(_TRUE2, 2, 5, True, 10),    # rejection from 64 bits
        tf.nn.uniform_candidate_sampler(_TRUE2, 2, 5, False, 8),    # a power of two: masked
        tf.random.uniform_candidate_sampler(_TRUE2, 2, 6, True, 6))


@case
def learned_unigram(tf):
    """Counts grow by each run's true classes: the draws lean towards 1, 3, 2, 5."""
    tf.set_random_seed(3)
    return Program([list(tf.nn.learned_unigram_candidate_sampler(_TRUE2, 2, 5, True, 10)) +
                    list(tf.random.learned_unigram_candidate_sampler(_TRUE2, 2, 4, False, 6))] * 4)


@case
def fixed_unigram(tf):
    tf.set_random_seed(4)
    unigrams = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]
    return _three_runs(
        tf.nn.fixed_unigram_candidate_sampler(_TRUE2, 2, 5, True, 10, distortion=0.75,
                                              num_reserved_ids=2, unigrams=unigrams),
        tf.nn.fixed_unigram_candidate_sampler(_TRUE2, 2, 6, False, 8, unigrams=unigrams),
        tf.random.fixed_unigram_candidate_sampler(np.array([[1], [3]]), 1, 3, True, 4,
                                                  num_reserved_ids=1, num_shards=2, shard=1,
                                                  unigrams=unigrams, distortion=0.5))


@case
def fixed_unigram_vocab_file(tf):
    path = os.path.join(tempfile.mkdtemp(), "vocab.csv")
    with open(path, "w") as f:
        f.write("the,50\nof,30\nand,25\nto,20\na,10\nin,8\nis,3\nit,1\n")
    tf.set_random_seed(6)
    return _three_runs(tf.nn.fixed_unigram_candidate_sampler(_TRUE2, 2, 4, True, 8,
                                                             vocab_file=path, distortion=0.75))


@case
def accidental_hits_and_seed_counting(tf):
    """``compute_accidental_hits`` asks for a seed (TF's ``get_seed``), so the unseeded op
    after it gets the graph's third op seed."""
    tf.set_random_seed(8)
    true = np.array([[0, 1], [2, 0], [4, 4]], np.int64)
    s = tf.nn.uniform_candidate_sampler(true, 2, 4, False, 5)
    hits = tf.nn.compute_accidental_hits(true, s.sampled_candidates, 2)
    after = tf.random_uniform([2])
    return Program([[s.sampled_candidates, *hits, after]] * 3)


def _loss_case(kind: str, num_true: int, shards: int | None, strategy: str, **kw):
    def build(tf):
        tf.set_random_seed(11)
        if shards:
            parts = ([WEIGHTS[s::shards] for s in range(shards)] if strategy == "mod"
                     else np.array_split(WEIGHTS, shards))
            w = [tf.Variable(p, name=f"w{s}") for s, p in enumerate(parts)]
        else:
            w = tf.Variable(WEIGHTS, name="w")
        b = tf.Variable(BIASES, name="b")
        x = tf.constant(INPUTS)
        labels = (np.array([[1], [5], [0]], np.int64) if num_true == 1
                  else np.array([[1, 2], [5, 5], [0, 7]], np.int32))
        fn = tf.nn.nce_loss if kind == "nce" else tf.nn.sampled_softmax_loss
        loss = fn(weights=w, biases=b, labels=labels, inputs=x, num_sampled=6, num_classes=12,
                  num_true=num_true, partition_strategy=strategy, **kw)
        grads = tf.gradients(tf.reduce_sum(loss), (w if shards else [w]) + [b, x])
        grads = [tf.convert_to_tensor(g) for g in grads]
        return Program([[tf.global_variables_initializer()], [loss, *grads], [loss, *grads]])
    return build


for _name, _args, _kw in (
        ("nce", ("nce", 1, None, "mod"), {}),
        ("nce_num_true_2_removing_hits", ("nce", 2, None, "mod"), {"remove_accidental_hits": True}),
        ("nce_mod_shards", ("nce", 1, 3, "mod"), {}),
        ("nce_div_shards", ("nce", 1, 3, "div"), {}),
        ("sampled_softmax", ("softmax", 1, None, "mod"), {}),
        ("sampled_softmax_div_shards_keeping_hits", ("softmax", 2, 2, "div"),
         {"remove_accidental_hits": False}),
        ("sampled_softmax_num_true_2", ("softmax", 2, 3, "mod"), {})):
    CASES[_name] = _loss_case(*_args, **_kw)

"""Sampled losses and their candidate samplers: ``tf.nn.nce_loss``, ``tf.nn.sampled_softmax_loss``,
``tf.nn.*_candidate_sampler`` and ``tf.nn.compute_accidental_hits``, as TF 1's graph mode.

A model over many classes (word2vec's vocabulary) scores, per example, its true classes and
a few *sampled* ones instead of all of them.  The sampler nodes draw TF's very ids from
TF's Philox stream (:mod:`common.ops.candidate`), seeded as every random op
(``tf.set_random_seed`` plus the op's ``seed``), and continue the stream at each run.  The
loss then follows TF's ``_compute_sampled_logits``::

    logits  = [inputs . w[true] + b[true],  inputs . w[sampled] + b[sampled]]
              - log(expected count)                     (subtract_log_q)
              with a sampled id that is its row's true class pushed to -FLT_MAX
    labels  = [1 / num_true ...,  0 ...]
    nce_loss              = sum over the row of sigmoid cross-entropy
    sampled_softmax_loss  = softmax cross-entropy

The sampled ids and counts carry no gradient (TF stops it there); the weights, biases and
inputs get theirs through the lookups and products.

>>> import staticgraph as tf
>>> s = tf.nn.log_uniform_candidate_sampler(tf.constant([[1], [2]], tf.int64), 1, 4, True, 10)
>>> s.sampled_candidates.op.type, s.sampled_candidates.shape
('LogUniformCandidateSampler', TensorShape([4]))
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from common import REGISTRY
from common.indexing import ARRAY

from .. import dtypes as _dtypes
from ..framework.build import apply, checked_array, convert_to_tensor
from ..framework.graph import Tensor, name_scope
from .core_ops import (add, cast, concat, expand_dims, log, matmul, minimum, multiply, ones_like,
                       realdiv, reshape, stop_gradient, subtract, zeros_like)
from .array_ops import shape
from .nn_layers import embedding_lookup
from .nn_ops import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2
from .random_ops import get_seed

__all__ = ["uniform_candidate_sampler", "log_uniform_candidate_sampler",
           "learned_unigram_candidate_sampler", "fixed_unigram_candidate_sampler",
           "compute_accidental_hits", "nce_loss", "sampled_softmax_loss"]

_MAXINT32 = 2**31 - 1

_SAMPLED = ["sampled_candidates", "true_expected_count", "sampled_expected_count"]
_OUTPUTS = {op: namedtuple(op, _SAMPLED) for op in (
    "UniformCandidateSampler", "LogUniformCandidateSampler", "LearnedUnigramCandidateSampler",
    "FixedUnigramCandidateSampler")}
"""What a sampler returns, as TF's op output tuple named after the op:
``LogUniformCandidateSampler(sampled_candidates=..., true_expected_count=..., ...)``."""

AccidentalHits = namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])
"""What ``compute_accidental_hits`` returns: rows, positions in the sample, ``-FLT_MAX``s."""


def _sampler(op_type: str, true_classes, num_true, num_sampled, unique, range_max, seed, name,
             **config) -> tuple:
    """One sampler node: TF asks for its seeds before building it (so an unseeded sampler
    counts in ``tf.set_random_seed``'s sequence like every random op)."""
    s1, s2 = get_seed(seed)
    if int(range_max) < 1:
        raise ValueError(f"Attr 'range_max' of '{op_type}' Op passed {range_max} less than "
                         f"minimum 1.")
    attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
             "range_max": int(range_max), "seed": s1, "seed2": s2, **config}
    outs = apply(REGISTRY[op_type], (_int64(true_classes),), attrs, name=name or op_type)
    return _OUTPUTS[op_type](*outs)


def _int64(value):
    """Ids for an int64 op input: a Python or numpy value as int64 (its Const named after the
    input, ``LogUniformCandidateSampler/true_classes``); a tensor must be int64 already."""
    return value if isinstance(value, Tensor) else checked_array(value, np.dtype(np.int64))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                              name=None) -> tuple:
    """``num_sampled`` ids uniform over ``[0, range_max)`` (distinct ones if ``unique``)."""
    return _sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                    range_max, seed, name)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None) -> tuple:
    """``num_sampled`` ids with P(k) = log((k + 2) / (k + 1)) / log(range_max + 1): for ids
    sorted by decreasing frequency (Zipf's law), the sampler of ``nce_loss``."""
    return _sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                    range_max, seed, name)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None) -> tuple:
    """``num_sampled`` ids drawn by how often each was a true class in this Session so far."""
    if range_max > _MAXINT32:
        raise ValueError(f"Value of range_max:{range_max} is too large to handle")
    return _sampler("LearnedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique,
                    range_max, seed, name)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0, num_shards=1,
                                    shard=0, unigrams=(), seed=None, name=None) -> tuple:
    """``num_sampled`` ids drawn by given weights (``unigrams``, or the last comma-separated
    field of each line of ``vocab_file``) to the power ``distortion``; ids below
    ``num_reserved_ids`` have weight 0; ``num_shards``/``shard`` keep one shard's ids."""
    return _sampler("FixedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique,
                    range_max, seed, name, vocab_file=str(vocab_file), distortion=float(distortion),
                    num_reserved_ids=int(num_reserved_ids), num_shards=int(num_shards),
                    shard=int(shard), unigrams=tuple(float(u) for u in unigrams))


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None,
                            name=None) -> AccidentalHits:
    """Where a sampled id is one of its row's true classes (TF asks for seeds here too,
    though nothing is drawn: it counts in the graph's seed sequence)."""
    s1, s2 = get_seed(seed)
    outs = apply(REGISTRY["ComputeAccidentalHits"],
                 (_int64(true_classes), _int64(sampled_candidates)),
                 {"num_true": int(num_true), "seed": s1, "seed2": s2},
                 name=name or "ComputeAccidentalHits")
    return AccidentalHits(*outs)


def _sum_rows(x: Tensor) -> Tensor:
    """Each row's sum, as TF's: ``x @ ones([cols, 1])`` flattened (its gradient is a matmul)."""
    ones = ones_like(x[:1], name="ones")
    return reshape(matmul(x, ones, transpose_b=True), [-1])


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                            sampled_values, subtract_log_q, remove_accidental_hits,
                            partition_strategy, name, seed=None) -> tuple[Tensor, Tensor]:
    """``(logits, labels)`` over each row's true classes then the sampled ones (module doc)."""
    weights = list(weights) if isinstance(weights, (list, tuple)) else [weights]
    with name_scope(name, "compute_sampled_logits"):
        labels = convert_to_tensor(labels)
        if labels.dtype != _dtypes.int64:
            labels = cast(labels, _dtypes.int64)
        labels_flat = reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes, seed=seed)
        sampled, true_expected_count, sampled_expected_count = (
            stop_gradient(s) for s in sampled_values)
        sampled = cast(sampled, _dtypes.int64)
        inputs = convert_to_tensor(inputs)

        def lookup(params, ids):
            rows = embedding_lookup(params, ids, partition_strategy=partition_strategy)
            return rows if rows.dtype == inputs.dtype else cast(rows, inputs.dtype)

        true_w, sampled_w = lookup(weights, labels_flat), lookup(weights, sampled)
        true_b, sampled_b = lookup(biases, labels_flat), lookup(biases, sampled)
        sampled_logits = add(matmul(inputs, sampled_w, transpose_b=True), sampled_b)
        dim = inputs.shape[-1] if inputs.shape.rank else None
        if dim is None:                       # known only at run time: TF's shape(true_w)[1]
            dim = shape(true_w)[1]
        row_dots = multiply(expand_dims(inputs, 1), reshape(true_w, [-1, num_true, dim]))
        true_logits = add(reshape(_sum_rows(reshape(row_dots, [-1, dim])), [-1, num_true]),
                          reshape(true_b, [-1, num_true]))
        if remove_accidental_hits:
            hits = compute_accidental_hits(labels, sampled, num_true=num_true)
            sampled_logits = add(sampled_logits, _hit_mask(hits, sampled_logits))
        if subtract_log_q:
            true_logits = subtract(true_logits, log(true_expected_count))
            sampled_logits = subtract(sampled_logits, log(sampled_expected_count))
        out_logits = concat([true_logits, sampled_logits], 1)
        out_labels = concat([realdiv(ones_like(true_logits), float(num_true)),
                             zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def _hit_mask(hits: AccidentalHits, sampled_logits: Tensor) -> Tensor:
    """``hits.weights`` (``-FLT_MAX``) at each accidental hit, 0 elsewhere: TF's
    ``sparse_to_dense``, which *sets* -- a row naming one true class twice hits the same
    place twice and still gets one ``-FLT_MAX`` (added twice it would be ``-inf``, and the
    sigmoid loss of ``-inf`` is NaN).  So: a count of hits per place, capped at 1, times the
    weight."""
    rows, ids = cast(hits.indices, _dtypes.int64), hits.ids
    count = apply(REGISTRY["ScatterLike"], (ones_like(hits.weights), zeros_like(sampled_logits),
                                            rows, ids), {"key": (ARRAY, ARRAY)}, name="hits")
    weight = np.asarray(-np.finfo(np.float32).max, sampled_logits.dtype.as_numpy_dtype)
    return multiply(minimum(count, 1.0), weight)


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss") -> Tensor:
    """Noise-contrastive estimation loss per example (``[batch]``): logistic regression of
    the true classes against ``num_sampled`` log-uniform noise classes (word2vec's loss)."""
    logits, labels = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
        True, remove_accidental_hits, partition_strategy, name)
    losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return _sum_rows(losses)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss",
                         seed=None) -> Tensor:
    """Softmax cross-entropy per example (``[batch]``) over the true classes and
    ``num_sampled`` sampled ones -- an estimate of the full softmax loss for training."""
    logits, labels = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
        True, remove_accidental_hits, partition_strategy, name, seed)
    labels = stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)

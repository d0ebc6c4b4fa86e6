"""Candidate samplers (``tf.nn.log_uniform_candidate_sampler``...): TF's CPU kernels, drawing
TF's very candidates from its Philox stream.

A sampler draws ``num_sampled`` class ids from a distribution over ``[0, range_max)`` --
the negatives of a sampled loss (``nce_loss``, ``sampled_softmax_loss``) -- and says, for
those and for the true classes, how many times each is expected among the draws.  Every
run reserves ``2048 * num_sampled`` uint32 of the op's stream (TF's estimate; a long
rejection loop reads on past it) and reads it one word at a time, as TF's ``SimplePhilox``::

    UniformCandidateSampler         Uniform64(range): rejection from 64-bit words
    LogUniformCandidateSampler      exp(u * log(range + 1)) - 1, one double u per draw
    LearnedUnigramCandidateSampler  counts learned from the true classes of earlier runs
    FixedUnigramCandidateSampler    Walker's alias table over given unigram weights

``unique=True`` draws until ``num_sampled`` distinct ids came up; the expected count of an
id of probability ``p`` after ``tries`` draws is then ``1 - (1 - p)**tries`` (TF's
``ExpectedCountHelper``), else ``p * num_sampled``.  All float math is TF's float32.

The learned and fixed samplers keep more than a stream for the Session's life (the learned
counts; the alias table built from the unigrams or the vocabulary file): that lives in the
generator's ``kept`` slot, next to the stream it belongs with.

>>> import numpy as np                  # TF: tf.nn.log_uniform_candidate_sampler(..., seed=3)
>>> from common import REGISTRY
>>> ids, _, _ = REGISTRY["LogUniformCandidateSampler"].impl(
...     np.array([[1], [2]]), num_true=1, num_sampled=4, unique=True, range_max=10,
...     seed=87654321, seed2=3)
>>> ids.tolist()
[0, 6, 4, 1]
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .. import libm, libm64
from ..errors import DTypeError, invalid
from ..examples import Example as E, ints
from ..philox import GuardedPhiloxRandom, PhiloxRandom
from ..registry import Spec, defop
from ..shapes import ShapeError
from .random import stream

__all__ = ["SimplePhilox", "expected_count", "alias_table"]

_M32, _M64 = 0xFFFFFFFF, (1 << 64) - 1
_F32 = np.float32
_INT32_MAX = 2**31 - 1


class SimplePhilox:
    """TF's ``SimplePhilox``: a Philox stream read one uint32 at a time, in block order, and
    the few ways TF turns those words into numbers (``simple_philox.cc``)."""

    __slots__ = ("_gen", "_words", "_at", "_block")
    _FETCH = 64
    """Blocks fetched per numpy call: a run of 64 ``unique`` draws rarely needs more."""

    def __init__(self, gen: PhiloxRandom):
        self._gen, self._words, self._at, self._block = gen, [], 0, 0

    def rand32(self) -> int:
        if self._at == len(self._words):
            offsets = np.arange(self._block, self._block + self._FETCH, dtype=np.uint64)
            self._words = self._gen.blocks_at(offsets).reshape(-1).tolist()
            self._block, self._at = self._block + self._FETCH, 0
        self._at += 1
        return self._words[self._at - 1]

    def rand64(self) -> int:
        low = self.rand32()
        return low | self.rand32() << 32

    def rand_float(self) -> float:
        """Uniform in [0, 1) from 23 bits (``Uint32ToFloat``; exact as a Python float)."""
        return (self.rand32() & 0x7FFFFF) / 2.0**23

    def rand_double(self) -> float:
        """Uniform in [0, 1) from 52 bits of two words (``Uint64ToDouble``)."""
        high = self.rand32() & 0xFFFFF
        return (high << 32 | self.rand32()) / 2.0**52

    def uniform(self, n: int, bits: int = 32) -> int:
        """An integer uniform in ``[0, n)`` (TF's ``ExactUniformInt``): a power of two masks a
        word; otherwise words below ``(2**bits - 1) % n + 1`` are drawn again."""
        draw = self.rand32 if bits == 32 else self.rand64
        if n == 0:
            draw()                     # TF consumes a word anyway
            return 0
        if n & (n - 1) == 0:
            return draw() & (n - 1)
        reject = ((1 << bits) - 1) % n + 1
        while True:
            x = draw()
            if x >= reject:
                return x % n


def expected_count(p: np.ndarray, num_sampled: int, tries: int) -> np.ndarray:
    """How often each id of probability ``p`` (float32) is expected among the draws:
    ``p * num_sampled`` when every try was kept, else ``1 - (1 - p)**tries`` -- TF's float
    ``-expm1f(tries * log1pf(-p))``, with glibc's two functions (:mod:`common.libm`)."""
    p = np.asarray(p, _F32)
    if tries == num_sampled:
        return p * _F32(num_sampled)
    return -libm.expm1f(_F32(tries) * libm.log1pf(-p))


def alias_table(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table over ``weights`` (TF's ``DistributionSampler``): bucket ``i``
    keeps ``i`` with probability ``prob[i]`` (float32), else gives ``alt[i]``.

    Buckets are paired in TF's order (the last small one with the last large one, stacks),
    so a draw ``(r, i)`` picks the id TF picks."""
    n = len(weights)
    total = 0.0
    for w in weights:            # TF's running double sum, in order
        total += float(w)
    pr = [float(w) * n / total for w in weights]
    alt = [-1] * n
    low = [i for i in range(n) if pr[i] < 1.0]
    high = [i for i in range(n) if pr[i] >= 1.0]
    while high and low:
        small, large = low.pop(), high.pop()
        alt[small] = large
        pr[large] -= 1.0 - pr[small]
        (low if pr[large] < 1.0 else high).append(large)
    for i in high + low:         # rounding leftovers: certain, and their own alternative
        pr[i], alt[i] = 1.0, i
    return np.array(pr, _F32), np.array(alt, np.int64)


# --- the four samplers: one draw, and the probability of an id ---------------------------------

class _Sampler:
    """One kernel's distribution: ``sample(rnd)`` one id, ``probability(ids)`` float32."""

    range_max: int

    def sample(self, rnd: SimplePhilox) -> int:
        raise NotImplementedError

    def probability(self, ids: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def update(self, true_ids: np.ndarray) -> None:
        """Learn from a run's true classes (only the learned sampler does)."""


class _Uniform(_Sampler):
    def __init__(self, range_max: int):
        self.range_max = range_max

    def sample(self, rnd):
        return rnd.uniform(self.range_max, 64)

    def probability(self, ids):
        return np.full(np.shape(ids), _F32(1.0 / self.range_max))


class _LogUniform(_Sampler):
    """P(k) = log((k + 2) / (k + 1)) / log(range_max + 1): small ids are common (Zipf-like)."""

    def __init__(self, range_max: int):
        self.range_max, self.log_range = range_max, math.log1p(range_max)

    def sample(self, rnd):
        return (int(math.exp(rnd.rand_double() * self.log_range)) - 1) % self.range_max

    def probability(self, ids):
        ids = np.asarray(ids, np.float64)
        return (libm64.log((ids + 2.0) / (ids + 1.0)) / self.log_range).astype(_F32)


class _Learned(_Sampler):
    """Each id's weight starts at 1 and grows by one each time it is a true class (TF's
    ``WeightedPicker``: a draw is the id whose share of the cumulative weights covers a
    uniform integer below the total)."""

    def __init__(self, range_max: int):
        self.range_max = range_max
        self.weights = np.ones(range_max, np.int64)
        self.cumulative = np.cumsum(self.weights)

    def sample(self, rnd):
        return int(np.searchsorted(self.cumulative, rnd.uniform(int(self.cumulative[-1])),
                                   side="right"))

    def probability(self, ids):
        return self.weights[np.asarray(ids)].astype(_F32) / _F32(self.cumulative[-1])

    def update(self, true_ids):
        room = _INT32_MAX - int(self.cumulative[-1])       # TF stops at int32's total
        np.add.at(self.weights, np.asarray(true_ids).reshape(-1)[:max(room, 0)], 1)
        self.cumulative = np.cumsum(self.weights)


class _Fixed(_Sampler):
    """Given unigram weights (``unigrams`` or the last field of each line of ``vocab_file``),
    raised to ``distortion``, after ``num_reserved_ids`` ids of weight 0; of every
    ``num_shards`` ids only those with ``id % num_shards == shard`` are kept.  As TF, the
    word ids go on from the number of reserved ids *kept*, not from ``num_reserved_ids``."""

    def __init__(self, range_max, vocab_file, distortion, num_reserved_ids, num_shards, shard,
                 unigrams):
        if not vocab_file and not len(unigrams):
            raise invalid("Must provide either vocab_file or unigrams.")
        if vocab_file and len(unigrams):
            raise invalid("Must only provide one of vocab_file and unigrams.")
        self.range_max = range_max
        reserved = sum(1 for i in range(num_reserved_ids) if i % num_shards == shard)
        raw = _vocab_weights(vocab_file) if vocab_file else [float(w) for w in unigrams]
        word_ids = range(reserved, reserved + len(raw))   # TF counts on from what it kept
        kept = np.array([w for i, w in zip(word_ids, raw) if i % num_shards == shard], _F32)
        kept = libm64.powf(kept, _F32(distortion))
        self.weights = np.concatenate([np.zeros(reserved, _F32), kept])
        if len(self.weights) != range_max:
            raise invalid(f"range is {range_max} must be equal to weights size  "
                         f"{len(self.weights)}")
        self.total = _F32(0)
        for w in kept:                  # TF's running float sum, in order
            self.total = _F32(self.total + w)
        self.prob, self.alt = alias_table(self.weights)

    def sample(self, rnd):
        r = rnd.rand_float()
        i = rnd.uniform(len(self.prob))
        return i if r < self.prob[i] else int(self.alt[i])

    def probability(self, ids):
        ids = np.asarray(ids)
        inside = (ids >= 0) & (ids < len(self.weights))
        return np.where(inside, self.weights[np.where(inside, ids, 0)] / self.total, _F32(0))


def _vocab_weights(path: str) -> list[float]:
    """The last comma-separated field of each line of a vocabulary file, as floats."""
    weights = []
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            field = line.split(",")[-1]
            try:
                weights.append(float(field))
            except ValueError:
                raise invalid(f"Wrong vocabulary format at line: {line}") from None
    return weights


# --- the kernel ------------------------------------------------------------------------------

def _check_true(true_classes, num_true: int) -> np.ndarray:
    true_classes = np.asarray(true_classes)
    if true_classes.ndim != 2:
        raise invalid("true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise invalid(f"true_classes must have num_true columns, expected: "
                       f"{true_classes.shape[1]} was: {num_true}")
    return true_classes


def _draw(sampler: _Sampler, gen: GuardedPhiloxRandom, true_classes, num_true: int,
          num_sampled: int, unique: bool):
    """One run of TF's ``BaseCandidateSamplerOp``: the sampled ids, the true classes'
    expected counts, the sampled ids' expected counts; then the sampler learns (if it does)."""
    true_classes = _check_true(true_classes, num_true)       # in TF's order of checks
    if unique and num_sampled > sampler.range_max:
        raise invalid("Sampler's range is too small.")
    bad = (true_classes < 0) | (true_classes >= sampler.range_max)
    if bad.any():
        raise invalid(f"`true_candidate` out of range [0, {sampler.range_max}), received "
                       f"{true_classes[bad][0]}")
    rnd = SimplePhilox(gen.reserve_samples32(2048 * num_sampled))
    if unique:
        picked: dict[int, None] = {}
        tries = 0
        while len(picked) < num_sampled:
            tries += 1
            picked.setdefault(sampler.sample(rnd))
        sampled = np.fromiter(picked, np.int64, num_sampled)
    else:
        sampled = np.array([sampler.sample(rnd) for _ in range(num_sampled)], np.int64)
        tries = num_sampled
    ids = np.concatenate([true_classes.reshape(-1), sampled])      # one pass for both
    counts = expected_count(sampler.probability(ids), num_sampled, tries)
    sampler.update(true_classes)
    return sampled, counts[:true_classes.size].reshape(true_classes.shape), counts[true_classes.size:]


def _kernel(make: Callable[..., _Sampler], doc: str):
    """The impl of one sampler op: its sampler is built on the Session's first run and kept
    with the op's stream (a learned sampler goes on learning across runs)."""
    def impl(true_classes, num_true, num_sampled, unique, range_max, seed=None, seed2=None,
             rng=None, **config):
        gen = stream(rng, seed, seed2)
        if gen.kept is None:
            if range_max <= 0:
                raise invalid("range_max must be positive")
            gen.kept = make(int(range_max), **config)
        return _draw(gen.kept, gen, true_classes, int(num_true), int(num_sampled), bool(unique))
    impl.__doc__ = doc
    return impl


def _infer(true_classes: Spec, num_true, num_sampled, unique, range_max, **_) -> tuple:
    if true_classes.dtype != np.int64:
        raise DTypeError(f"Input 'true_classes' has type {true_classes.dtype} that does not "
                         f"match expected type of int64.")
    shape = true_classes.shape
    if shape is not None and len(shape) != 2:
        raise ShapeError(f"Shape must be rank 2 but is rank {len(shape)}")
    batch = None if shape is None else shape[0]
    n = int(num_sampled)
    return (Spec((n,), np.dtype(np.int64)), Spec((batch, int(num_true)), np.dtype(_F32)),
            Spec((n,), np.dtype(_F32)))


def _unigram_sampler(range_max: int) -> _Learned:
    if range_max >= _INT32_MAX:
        raise invalid(f"range_max must be less than {_INT32_MAX} for unigram samplers, "
                     f"got {range_max}")
    return _Learned(range_max)


_TRUE = ints((3, 2), 10)
_SEEDS = {"seed": 1, "seed2": 2}
_BASE = {"num_true": 2, "num_sampled": 4, "range_max": 10, **_SEEDS}
_EXAMPLES = (E((_TRUE,), {**_BASE, "unique": True}), E((_TRUE,), {**_BASE, "unique": False}))

for _name, _make, _doc in (
        ("UniformCandidateSampler", _Uniform, "Candidates uniform over ``[0, range_max)``."),
        ("LogUniformCandidateSampler", _LogUniform,
         "Candidates with P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)."),
        ("LearnedUnigramCandidateSampler", _unigram_sampler,
         "Candidates by the counts of the true classes seen so far (each starts at 1).")):
    defop(_name, _kernel(_make, _doc), _infer, inputs=("true_classes",), stateful=True,
          outputs=3, examples=_EXAMPLES)

defop("FixedUnigramCandidateSampler", _kernel(_Fixed, "Candidates by given unigram weights."),
      _infer, inputs=("true_classes",), stateful=True, outputs=3,
      examples=tuple(E(e.args, {**e.attrs, "vocab_file": "", "distortion": 0.75,
                                "num_reserved_ids": 2, "num_shards": 1, "shard": 0,
                                "unigrams": (3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0)})
                     for e in _EXAMPLES))


def _accidental_hits(true_classes, sampled_candidates, num_true, seed=None, seed2=None):
    """Where a sampled id is one of its row's true classes: ``(rows int32, positions in the
    sample int64, -FLT_MAX float32)``, rows in order (a repeated sampled id: its last place)."""
    true_classes = np.asarray(true_classes)
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise invalid("true_candidates must be a batch_size * num_true matrix")
    sampled = np.asarray(sampled_candidates)
    if sampled.ndim != 1:
        raise invalid("sampled_candidates must be a vector, which is typically an output "
                     "from CandidateSampler")
    position = {int(c): i for i, c in enumerate(sampled.tolist())}
    hits = [(row, position[c]) for row, cs in enumerate(true_classes.tolist()) for c in cs
            if c in position]
    rows = np.array([r for r, _ in hits], np.int32)
    ids = np.array([i for _, i in hits], np.int64)
    return rows, ids, np.full(len(hits), -np.finfo(_F32).max, _F32)


def _accidental_hits_infer(true_classes: Spec, sampled_candidates: Spec, num_true, **_) -> tuple:
    for spec, rank in ((true_classes, 2), (sampled_candidates, 1)):
        if spec.shape is not None and len(spec.shape) != rank:
            raise ShapeError(f"Shape must be rank {rank} but is rank {len(spec.shape)}")
    return (Spec((None,), np.dtype(np.int32)), Spec((None,), np.dtype(np.int64)),
            Spec((None,), np.dtype(_F32)))


defop("ComputeAccidentalHits", _accidental_hits, _accidental_hits_infer,
      inputs=("true_classes", "sampled_candidates"), outputs=3, sized_by_values=True,
      examples=(E((ints((3, 2), 5), ints((4,), 5)), {"num_true": 2}),))

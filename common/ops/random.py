"""Random ops: TensorFlow's CPU kernels, drawing TF's Philox stream bit for bit.

They are *stateful* (``defop(..., stateful=True)``): two identical random ops
are not one value, and a random op with constant inputs is not a constant, so
no compiler pass merges or folds them.  The forward takes ``rng``, the op's
:class:`~common.philox.GuardedPhiloxRandom`: the static engine keeps one per
(Session, op), seeded from the op's ``seed``/``seed2`` attributes, so a new
Session replays the stream and each run continues it -- as TF's kernels, which
keep theirs for the Session's life.  Without ``rng`` (an op called directly,
the registry tests) the draw is the first run of a fresh stream from the seeds.

Each kernel reserves what TF reserves per run (``outputs * 256`` blocks for the
plain draws) and reads the stream where TF reads it::

    RandomStandardNormal  N(0, 1): Box-Muller pairs, in order
    TruncatedNormal       N(0, 1) below 2 in size; 4 outputs per 256-block group
    RandomUniform         U[0, 1) from mantissa bits
    RandomUniformInt      minval + bits % (maxval - minval)
    RandomShuffle         Fisher-Yates over the first axis, one uint32 per swap
    Multinomial           inverse CDF of softmax(logits) rows, one double per sample
    RandomPoissonV2       Poisson(lam), ``shape + lam.shape``; 256 blocks per output
    RandomGamma           Gamma(alpha, 1), ``shape + alpha.shape``; 256 blocks per output

>>> import numpy as np                      # TF: tf.random_uniform([3], seed=7), first run
>>> from common import REGISTRY
>>> REGISTRY["RandomUniform"].impl(shape=(3,), dtype=np.float32, seed=87654321, seed2=7)
array([0.48394096, 0.50620306, 0.25514376], dtype=float32)
"""
from __future__ import annotations

import math

import numpy as np

from .. import philox, rejection
from ..errors import ShapeError
from ..examples import Example as E, ints
from ..philox import GuardedPhiloxRandom
from ..registry import Spec, defop
from ..shapes import require_kind

__all__ = ["DEFAULT_GRAPH_SEED", "stream"]


DEFAULT_GRAPH_SEED = 87654321
"""TF's graph seed for an op that has only its own seed."""


def stream(rng: GuardedPhiloxRandom | None, seed: int | None, seed2: int | None) -> GuardedPhiloxRandom:
    """The generator to draw from: the engine's (it lives as long as its Session), else a
    fresh one from the op's seeds (no seeds: random ones)."""
    return rng if rng is not None else GuardedPhiloxRandom(seed, seed2)


def _shape_infer(shape, dtype, **_) -> Spec:
    return Spec(tuple(shape), np.dtype(dtype))


def _plain(draw):
    """A kernel that reserves ``outputs * 256`` blocks per run and draws ``outputs`` values
    with ``draw(gen, n, dtype)`` (TF's ``PhiloxRandomOp``)."""
    def impl(shape, dtype, seed=None, seed2=None, rng=None):
        n = math.prod(shape)
        gen = stream(rng, seed, seed2).reserve_random_outputs(n, 256)
        return draw(gen, n, dtype).reshape(shape)
    return impl


_standard_normal = _plain(philox.normal)
_standard_normal.__doc__ = "Samples of N(0, 1)."
_truncated_normal = _plain(philox.truncated_normal)
_truncated_normal.__doc__ = "Samples of N(0, 1), where samples 2 or more from the mean are drawn again."
_uniform = _plain(philox.uniform)
_uniform.__doc__ = "Samples of U[0, 1)."


def _uniform_int(shape, dtype, minval, maxval, seed=None, seed2=None, rng=None):
    """Integers uniform in ``[minval, maxval)`` (as TF: ``minval + bits % (maxval - minval)``)."""
    n = math.prod(shape)
    if n == 0:                              # TF returns before reserving: nothing advances
        return np.empty(shape, dtype)
    gen = stream(rng, seed, seed2).reserve_random_outputs(n, 256)
    return philox.uniform_int(gen, n, int(minval), int(maxval), dtype).reshape(shape)


def _uniform_int_infer(shape, dtype, minval, maxval, **_) -> Spec:
    if not minval < maxval:
        raise ShapeError(f"Need minval < maxval, got {minval} >= {maxval}")
    return Spec(tuple(shape), np.dtype(dtype))


def _shuffle(x, seed=None, seed2=None, rng=None):
    """``x`` with its first axis in a random order: TF's Fisher-Yates, position ``i`` swapped
    with ``i + bits % (n - i)`` for one uint32 per position (a scalar or one row: a copy)."""
    x = np.asarray(x)
    if x.size <= 1 or x.shape[0] <= 1:      # TF copies these without reserving anything
        return x.copy()
    n = x.shape[0]
    bits = stream(rng, seed, seed2).reserve_samples32(n - 1).uint32s(n - 1)
    i = np.arange(n - 1, dtype=np.uint64)
    swaps = (i + bits % (np.uint64(n) - i)).tolist()
    order = list(range(n))
    for a, b in enumerate(swaps):
        order[a], order[b] = order[b], order[a]
    return x[order]


def _multinomial(logits, num_samples, dtype, seed=None, seed2=None, rng=None):
    """``num_samples`` class indices per row, drawn with probabilities ``softmax(row)``: TF's
    inverse CDF over unnormalised ``exp(logit - max)`` sums, one double per sample.

    TF shards the rows over the Session's threads and each shard runs its own sequential
    stream from ``start_row * (num_samples + 3) / 4`` blocks on, so the draws depend on the
    split: :func:`~common.philox.shard_blocks` reproduces it for ``rng.threads``."""
    logits = np.asarray(logits)
    require_kind("multinomial", "f", logits)   # (numpy's finfo below would say "not inexact")
    batch, classes = logits.shape
    out = np.empty((batch, int(num_samples)), dtype)
    if out.size == 0:
        return out
    op_stream = stream(rng, seed, seed2)
    gen = op_stream.reserve_random_outputs(batch * -(-num_samples // 4) * 4 * 2, 256)
    finite = np.isfinite(logits)
    top = np.where(finite, logits, np.finfo(logits.dtype).min).max(axis=1).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        weights = np.where(finite, np.exp(logits.astype(np.float64) - top[:, None]), 0.0)
    cdf = np.cumsum(weights, axis=1)         # TF's running total, skipping non-finite logits
    cost = int(50 * (num_samples * math.log(classes) / math.log(2) + classes))
    for start, limit in philox.shard_blocks(batch, cost, op_stream.threads):
        bits = gen.skip(start * (num_samples + 3) // 4).uint32s(2 * (limit - start) * num_samples)
        u = philox.uint64_to_double(bits[0::2], bits[1::2]).reshape(limit - start, num_samples)
        for row in range(start, limit):
            out[row] = np.searchsorted(cdf[row], u[row - start] * cdf[row, -1], side="right")
    return out


def _multinomial_infer(logits: Spec, num_samples, dtype, **_) -> Spec:
    """Float logits only: PyTorch 2.13 refuses others ("multinomial only supports floating-point
    dtypes"), TF 2.21 builds the node and fails when it runs (no int kernel); refused here at
    build time, the earlier of the two."""
    require_kind("multinomial", "f", logits)
    if logits.shape is not None and len(logits.shape) != 2:
        raise ShapeError(f"logits should be a matrix, got shape {list(logits.shape)}")
    batch = None if logits.shape is None else logits.shape[0]
    return Spec((batch, int(num_samples)), np.dtype(dtype))


_F32 = np.dtype(np.float32)
_SEEDS = {"seed": 1, "seed2": 2}  # a Session draws, on its first run, what the impl draws
_SHAPES = (E((), {"shape": (3, 4), "dtype": _F32, **_SEEDS}),
           E((), {"shape": (), "dtype": np.dtype(np.float64), **_SEEDS}))

defop("RandomStandardNormal", _standard_normal, _shape_infer, inputs=(), fname="random_standard_normal",
      stateful=True, dtype_attr="dtype", examples=_SHAPES)
defop("TruncatedNormal", _truncated_normal, _shape_infer, inputs=(), fname="truncated_normal",
      stateful=True, dtype_attr="dtype", examples=_SHAPES)
defop("RandomUniform", _uniform, _shape_infer, inputs=(), fname="random_uniform",
      stateful=True, dtype_attr="dtype", examples=_SHAPES)
defop("RandomUniformInt", _uniform_int, _uniform_int_infer, inputs=(), fname="random_uniform_int",
      stateful=True, dtype_attr="dtype",
      examples=(E((), {"shape": (5,), "dtype": np.dtype(np.int32), "minval": -2, "maxval": 3, **_SEEDS}),))
defop("RandomShuffle", _shuffle, lambda x, **_: x, inputs=("x",), fname="random_shuffle",
      stateful=True, examples=(E(((5, 2),), _SEEDS), E((ints((4,), 9),), _SEEDS)))
defop("Multinomial", _multinomial, _multinomial_infer, inputs=("logits",), fname="multinomial_logits",
      stateful=True, dtype_attr="dtype",
      examples=(E(((2, 3),), {"num_samples": 4, "dtype": np.dtype(np.int64), **_SEEDS}),))

# --- the same draws shaped like a tensor known only at run time (tf.random_normal(tf.shape(x))) ---


def _like(draw):
    def impl(ref, dtype, seed=None, seed2=None, rng=None):
        return draw(tuple(ref.shape), dtype, seed, seed2, rng)
    impl.__doc__ = f"{draw.__doc__.strip()}  Shaped like ``ref`` (read for its shape only)."
    return impl


def _like_infer(ref: Spec, dtype, **_) -> Spec:
    return Spec(ref.shape, np.dtype(dtype))


_LIKE = (E(((3, 2),), {"dtype": _F32, **_SEEDS}),)
defop("RandomStandardNormalLike", _like(_standard_normal), _like_infer, inputs=("ref",),
      fname="random_standard_normal_like", stateful=True, dtype_attr="dtype", shape_only=(0,),
      examples=_LIKE)
defop("TruncatedNormalLike", _like(_truncated_normal), _like_infer, inputs=("ref",),
      fname="truncated_normal_like", stateful=True, dtype_attr="dtype", shape_only=(0,),
      examples=_LIKE)
defop("RandomUniformLike", _like(_uniform), _like_infer, inputs=("ref",),
      fname="random_uniform_like", stateful=True, dtype_attr="dtype", shape_only=(0,),
      examples=_LIKE)

# --- the same draws of a shape given as a run-time int vector (tf.random_normal([n, 4])) -------


def _dynamic(draw):
    def impl(shape, dtype, seed=None, seed2=None, rng=None):
        return draw(tuple(int(d) for d in np.reshape(shape, -1)), dtype, seed, seed2, rng)
    impl.__doc__ = f"{draw.__doc__.strip()}  Of the run-time shape ``shape`` (an int vector)."
    return impl


def _dynamic_infer(shape: Spec, dtype, **_) -> Spec:
    if shape.shape is not None and len(shape.shape) != 1:
        raise ShapeError(f"Shape must be rank 1 but is rank {len(shape.shape)}")
    n = None if shape.shape is None else shape.shape[0]
    return Spec(None if n is None else (None,) * n, np.dtype(dtype))


_DYNAMIC = (E((np.array([3, 2], np.int32),), {"dtype": _F32, **_SEEDS}),)
defop("RandomStandardNormalDynamic", _dynamic(_standard_normal), _dynamic_infer, inputs=("shape",),
      fname="random_standard_normal_dynamic", stateful=True, dtype_attr="dtype",
      sized_by_values=True, examples=_DYNAMIC, tf_type="RandomStandardNormal")
defop("TruncatedNormalDynamic", _dynamic(_truncated_normal), _dynamic_infer, inputs=("shape",),
      fname="truncated_normal_dynamic", stateful=True, dtype_attr="dtype", sized_by_values=True,
      examples=_DYNAMIC, tf_type="TruncatedNormal")
defop("RandomUniformDynamic", _dynamic(_uniform), _dynamic_infer, inputs=("shape",),
      fname="random_uniform_dynamic", stateful=True, dtype_attr="dtype", sized_by_values=True,
      examples=_DYNAMIC, tf_type="RandomUniform")


def _uniform_int_dynamic(shape, dtype, minval, maxval, seed=None, seed2=None, rng=None):
    """Integers uniform in ``[minval, maxval)``, of the run-time shape ``shape``."""
    return _uniform_int(tuple(int(d) for d in np.reshape(shape, -1)), dtype, minval, maxval, seed,
                        seed2, rng)


def _uniform_int_dynamic_infer(shape: Spec, dtype, minval, maxval, **_) -> Spec:
    if not minval < maxval:
        raise ShapeError(f"Need minval < maxval, got {minval} >= {maxval}")
    return _dynamic_infer(shape, dtype)


defop("RandomUniformIntDynamic", _uniform_int_dynamic, _uniform_int_dynamic_infer, inputs=("shape",),
      fname="random_uniform_int_dynamic", stateful=True, dtype_attr="dtype", sized_by_values=True,
      examples=(E((np.array([5], np.int32),), {"dtype": np.dtype(np.int32), "minval": -2, "maxval": 3,
                                              **_SEEDS}),), tf_type="RandomUniformInt")

# --- draws whose distribution has tensor parameters (tf.random.poisson, tf.random.gamma) -------
# The result is ``shape + param.shape``: ``shape`` draws for every parameter value, as TF.


def _per_output(draw, param, shape, seed, seed2, rng):
    """``draw(gen, params)`` for ``shape + param.shape`` outputs, laid out as TF lays them:
    output ``o`` is sample ``o % samples`` of parameter ``o // samples``."""
    param = np.asarray(param)
    samples, params = math.prod(shape), param.size
    out_shape = tuple(shape) + param.shape
    if samples * params == 0:               # TF returns before reserving: nothing advances
        return np.empty(out_shape, np.float64), None
    gen = stream(rng, seed, seed2).reserve_random_outputs(samples * params, 256)
    o = np.arange(samples * params)
    values = draw(gen, param.reshape(-1)[o // samples])
    flat = np.empty(samples * params, values.dtype)
    flat[(o % samples) * params + o // samples] = values
    return flat.reshape(out_shape), values


def _poisson(lam, shape, dtype, seed=None, seed2=None, rng=None):
    """Poisson samples with rates ``lam``, of shape ``shape + lam.shape``."""
    dtype = np.dtype(dtype)
    top = float(np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max)
    draw = lambda gen, rate: rejection.poisson(gen, rate, top)  # noqa: E731
    return _per_output(draw, lam, shape, seed, seed2, rng)[0].astype(dtype)


def _gamma(alpha, shape, seed=None, seed2=None, rng=None):
    """Gamma(alpha, 1) samples, of shape ``shape + alpha.shape`` and ``alpha``'s dtype."""
    alpha = np.asarray(alpha)
    draw = lambda gen, a: rejection.gamma(gen, a.astype(np.float64))  # noqa: E731
    return _per_output(draw, alpha, shape, seed, seed2, rng)[0].astype(alpha.dtype)


def _param_infer(param: Spec, shape, dtype=None, **_) -> Spec:
    tail = None if param.shape is None else tuple(param.shape)
    return Spec(None if tail is None else tuple(shape) + tail,
                np.dtype(dtype) if dtype is not None else param.dtype)


defop("RandomPoissonV2", _poisson, _param_infer, inputs=("lam",), fname="random_poisson",
      stateful=True, dtype_attr="dtype",
      examples=(E((np.array([0.5, 4.0]),), {"shape": (3,), "dtype": _F32, **_SEEDS}),
                E((np.array(2.0),), {"shape": (2, 2), "dtype": np.dtype(np.int64), **_SEEDS})))
defop("RandomGamma", _gamma, _param_infer, inputs=("alpha",), fname="random_gamma",
      stateful=True,
      doc="Gamma(alpha, 1) draws.  No gradient for ``alpha`` (TF has an implicit one; not here).",
      examples=(E((np.array([0.5, 4.0]),), {"shape": (3,), **_SEEDS}),))

"""Random ops: each run draws new values from a generator the engine owns.

They are *stateful* (``defop(..., stateful=True)``): two identical random ops
are not one value, and a random op with constant inputs is not a constant, so
no compiler pass merges or folds them.  The forward takes ``rng``, a
``numpy.random.Generator``: the static engine passes one per (Session, op),
seeded from the op's ``seed``/``seed2`` attributes (TF's graph-level and
op-level seeds), so the same seeds give the same sequence in every new
Session and each run continues it.  Without ``rng`` (eager use, the registry
tests) a module-level generator is used.

The streams are numpy's, not TF's Philox bits; the distributions, shapes and
dtypes are TF's::

    RandomStandardNormal  N(0, 1)
    TruncatedNormal       N(0, 1) with |x| > 2 redrawn
    RandomUniform         U[0, 1)
    RandomUniformInt      integers in [minval, maxval)
    RandomShuffle         a permutation of the first axis
    Multinomial           class indices drawn from softmax(logits) rows
    RandomPoissonV2       Poisson(lam), ``shape + lam.shape`` draws
    RandomGamma           Gamma(alpha, 1), ``shape + alpha.shape`` draws

>>> import numpy as np
>>> from common import REGISTRY
>>> REGISTRY["RandomUniform"].impl(shape=(2,), dtype=np.float32, rng=np.random.default_rng(0)).shape
(2,)
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..examples import Example as E, ints
from ..registry import Spec, defop

__all__ = ["generator"]

_FALLBACK = np.random.default_rng()


DEFAULT_GRAPH_SEED = 87654321
"""TF's graph seed for an op that has only its own seed."""


def generator(seed: int | None, seed2: int | None) -> np.random.Generator:
    """The generator a fresh Session gives a random op: fixed by its seeds, else from entropy.

    An op seed alone (graph seed at TF's default) starts ``default_rng(op_seed)`` -- the
    stream ``dyngraph.manual_seed(op_seed)`` starts, so both engines can be made to draw alike
    (the CNN comparison's dropout masks)."""
    if seed is None and seed2 is None:
        return np.random.default_rng()
    if seed == DEFAULT_GRAPH_SEED:
        return np.random.default_rng(int(seed2))
    return np.random.default_rng([int(seed or 0), int(seed2 or 0)])


def _rng(rng, seed, seed2) -> np.random.Generator:
    """The generator to draw from: the engine's, else one fixed by the op's seeds (so a
    seeded op called directly is reproducible), else the module-level one."""
    if rng is not None:
        return rng
    return _FALLBACK if seed is None and seed2 is None else generator(seed, seed2)


def _shape_infer(shape, dtype, **_) -> Spec:
    return Spec(tuple(shape), np.dtype(dtype))


def _standard_normal(shape, dtype, seed=None, seed2=None, rng=None):
    """Samples of N(0, 1)."""
    return _rng(rng, seed, seed2).standard_normal(shape).astype(dtype)


def _truncated_normal(shape, dtype, seed=None, seed2=None, rng=None):
    """Samples of N(0, 1), where samples more than 2 from the mean are drawn again."""
    rng = _rng(rng, seed, seed2)
    out = rng.standard_normal(shape)
    bad = np.abs(out) > 2.0
    while bad.any():
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2.0
    return out.astype(dtype)


def _uniform(shape, dtype, seed=None, seed2=None, rng=None):
    """Samples of U[0, 1)."""
    return _rng(rng, seed, seed2).random(shape).astype(dtype)


def _uniform_int(shape, dtype, minval, maxval, seed=None, seed2=None, rng=None):
    """Integers uniform in ``[minval, maxval)``."""
    return _rng(rng, seed, seed2).integers(minval, maxval, shape).astype(dtype)


def _uniform_int_infer(shape, dtype, minval, maxval, **_) -> Spec:
    if not minval < maxval:
        raise ShapeError(f"Need minval < maxval, got {minval} >= {maxval}")
    return Spec(tuple(shape), np.dtype(dtype))


def _shuffle(x, seed=None, seed2=None, rng=None):
    """``x`` with its first axis in a random order (a scalar is returned as is)."""
    x = np.asarray(x)
    if x.ndim == 0:
        return x.copy()
    return x[_rng(rng, seed, seed2).permutation(x.shape[0])]


def _multinomial(logits, num_samples, dtype, seed=None, seed2=None, rng=None):
    """``num_samples`` class indices per row, drawn with probabilities ``softmax(row)``."""
    rng = _rng(rng, seed, seed2)
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    cdf = np.cumsum(p / p.sum(axis=1, keepdims=True), axis=1)
    u = rng.random((logits.shape[0], num_samples))
    out = np.empty(u.shape, dtype=dtype)
    for i in range(logits.shape[0]):
        out[i] = np.minimum(np.searchsorted(cdf[i], u[i] * cdf[i, -1], side="right"),
                            logits.shape[1] - 1)
    return out


def _multinomial_infer(logits: Spec, num_samples, dtype, **_) -> Spec:
    if logits.shape is not None and len(logits.shape) != 2:
        raise ShapeError(f"logits should be a matrix, got shape {list(logits.shape)}")
    batch = None if logits.shape is None else logits.shape[0]
    return Spec((batch, int(num_samples)), np.dtype(dtype))


_F32 = np.dtype(np.float32)
_SEEDS = {"seed": 1, "seed2": 2}  # engines given these seeds draw the same stream as generator(1, 2)
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


def _poisson(lam, shape, dtype, seed=None, seed2=None, rng=None):
    """Poisson samples with rates ``lam``, of shape ``shape + lam.shape``."""
    lam = np.asarray(lam)
    return _rng(rng, seed, seed2).poisson(lam, tuple(shape) + lam.shape).astype(dtype)


def _gamma(alpha, shape, seed=None, seed2=None, rng=None):
    """Gamma(alpha, 1) samples, of shape ``shape + alpha.shape`` and ``alpha``'s dtype."""
    alpha = np.asarray(alpha)
    return _rng(rng, seed, seed2).standard_gamma(alpha, tuple(shape) + alpha.shape).astype(alpha.dtype)


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

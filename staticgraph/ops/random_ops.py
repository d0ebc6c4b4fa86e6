"""Random tensors (``tf.random_normal``...) and TF's two-level seeds.

::

    tf.set_random_seed(1)              graph-level seed: graph.seed = 1
    tf.random_normal([2], seed=7)      op seeds (seed, seed2) = (1, 7)
    tf.random_normal([2])              (1, n): the graph's n-th op seed drawn this way (0, 1, ...)
    no graph seed, seed=7              (87654321, 7)
    no seeds at all                    fresh entropy in every Session

The ``n`` is TF 2's rule (``random_seed.get_seed``): a count kept per graph of the seeds
handed out without an op seed -- not the number of ops, so ops built in between change
nothing, but every call that asks for a seed counts (``tf.nn.dropout(x, rate=0)`` asks and
draws nothing; ``Dataset.shuffle`` without a seed asks).  The body of a ``while_loop`` or a
``cond`` branch is a graph of its own: it inherits the graph seed and counts from 0.

Each Session gives each random op TF's Philox generator seeded from ``(seed, seed2)``
(see :mod:`common.ops.random`), so with seeds set a new Session replays TF's very
numbers, and every ``run`` draws the next ones.

>>> import staticgraph as tf
>>> tf.random_uniform([2, 3]).shape
TensorShape([2, 3])
"""
from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from common import REGISTRY
from common.ops.random import DEFAULT_GRAPH_SEED

from ..framework import dtypes as _dtypes
from ..framework.build import apply, convert_to_tensor
from ..framework.graph import Graph, SubGraph, Tensor, get_default_graph, name_scope
from .core_ops import add, maximum, multiply, ones_like, realdiv, subtract
from ..framework.shape_values import constant_value_as_shape, is_runtime_shape, shape_tensor, static_value

__all__ = ["set_random_seed", "get_seed", "random_normal", "truncated_normal", "random_uniform",
           "random_shuffle", "multinomial", "categorical", "random_poisson", "random_gamma",
           "DEFAULT_GRAPH_SEED"]

_MAXINT32 = 2**31 - 1
_SEEDS_GIVEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Per graph, how many op seeds :func:`get_seed` has derived from its graph seed (TF's
``_graph_to_seed_dict``)."""


def set_random_seed(seed: int | None) -> None:
    """The default graph's seed: random ops created after this are repeatable per Session."""
    get_default_graph().seed = None if seed is None else int(seed)


def _graph_seed(graph: Graph) -> int | None:
    """The graph's seed; a loop body or branch has its enclosing graph's (TF's FuncGraph)."""
    while graph.seed is None and isinstance(graph, SubGraph):
        graph = graph.outer
    return graph.seed


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """``(seed, seed2)`` for a new random op, by TF's rules (module docstring)."""
    graph = get_default_graph()
    global_seed = _graph_seed(graph)
    if global_seed is not None:
        if op_seed is None:
            op_seed = _SEEDS_GIVEN.setdefault(graph, 0)
            _SEEDS_GIVEN[graph] = op_seed + 1
        seeds = (global_seed % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        return None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _static_shape(shape: Any) -> tuple:
    if is_runtime_shape(shape):
        value = static_value(shape)
        if value is None:
            raise TypeError(f"this random op needs a shape known when the graph is built (ints, "
                            f"or tf.shape(t)); {shape} is only known at run time")
        shape = value
    arr = np.asarray(shape)
    return (int(arr),) if arr.ndim == 0 else tuple(int(d) for d in arr)


def _float(dtype) -> _dtypes.DType:
    dt = _dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"Invalid dtype {dt.name}: a floating dtype is needed")
    return dt


def _draw(op_type: str, shape, dtype, seed, name: str) -> Tensor:
    s1, s2 = get_seed(seed)
    attrs = {"dtype": dtype._np, "seed": s1, "seed2": s2}
    if is_runtime_shape(shape) and static_value(shape) is None:
        if isinstance(shape, Tensor) and shape.op.type == "Shape":  # drawn shaped like t at run time
            return apply(REGISTRY[op_type + "Like"], (shape.op.inputs[0],), attrs, name=name)
        dims = shape_tensor(shape, "shape")  # [tf.shape(x)[0], 4]: TF's packed shape input
        out = apply(REGISTRY[op_type + "Dynamic"], (dims,), attrs, name=name)
        out.set_shape(constant_value_as_shape(dims))
        return out
    return apply(REGISTRY[op_type], (), {"shape": _static_shape(shape), **attrs}, name=name)


def _scaled(op_type: str, shape, scale, shift, dtype, seed, name, default: str) -> Tensor:
    """``shift + scale * draw`` under one name scope (TF's layout: ``random_normal/mul``)."""
    dt = _float(dtype)
    with name_scope(name, default) as scope:
        shift = convert_to_tensor(shift, dtype=dt, name="mean")
        scale = convert_to_tensor(scale, dtype=dt, name="stddev")
        rnd = _draw(op_type, shape, dt, seed, op_type)
        return add(multiply(rnd, scale, name="mul"), shift, name=scope[:-1] + "/")


def random_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples of N(mean, stddev**2)."""
    return _scaled("RandomStandardNormal", shape, stddev, mean, dtype, seed, name, "random_normal")


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples of N(mean, stddev**2) with those beyond two stddevs drawn again."""
    return _scaled("TruncatedNormal", shape, stddev, mean, dtype, seed, name, "truncated_normal")


def random_uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Uniform samples in ``[minval, maxval)`` (``maxval`` defaults to 1 for floats)."""
    dt = _dtypes.as_dtype(dtype)
    if dt.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dt!r}")
        s1, s2 = get_seed(seed)
        attrs = {"dtype": dt._np, "minval": int(minval), "maxval": int(maxval), "seed": s1, "seed2": s2}
        if is_runtime_shape(shape) and static_value(shape) is None:   # TF's packed shape input
            with name_scope(name, "random_uniform") as scope:
                dims = shape_tensor(shape, "shape")
                out = apply(REGISTRY["RandomUniformIntDynamic"], (dims,), attrs, name=scope[:-1] + "/")
            out.set_shape(constant_value_as_shape(dims))
            return out
        return apply(REGISTRY["RandomUniformInt"], (), {"shape": _static_shape(shape), **attrs},
                     name=name or "random_uniform")
    maxval = 1 if maxval is None else maxval
    with name_scope(name, "random_uniform") as scope:   # TF: only the Python ints 0 and 1
        zero = isinstance(minval, int) and minval == 0      # skip the arithmetic
        one = isinstance(maxval, int) and maxval == 1
        if not (zero and one):
            lo = convert_to_tensor(minval, dtype=dt, name="min")
            hi = convert_to_tensor(maxval, dtype=dt, name="max")
        rnd = _draw("RandomUniform", shape, _float(dt), seed, "RandomUniform")
        if zero:
            return rnd if one else multiply(rnd, hi, name="mul")
        return add(multiply(rnd, subtract(hi, lo, name="sub"), name="mul"), lo, name=scope[:-1] + "/")


def random_shuffle(value, seed=None, name=None) -> Tensor:
    """``value`` with its first dimension in a random order."""
    s1, s2 = get_seed(seed)
    return apply(REGISTRY["RandomShuffle"], (convert_to_tensor(value),), {"seed": s1, "seed2": s2},
                 name=name or "RandomShuffle")


def categorical(logits, num_samples, dtype=None, seed=None, name=None) -> Tensor:
    """``[batch, num_samples]`` class indices drawn from ``softmax(logits)`` per row."""
    s1, s2 = get_seed(seed)
    dt = _dtypes.as_dtype(dtype or _dtypes.int64)
    with name_scope(name, "categorical"):
        return apply(REGISTRY["Multinomial"], (convert_to_tensor(logits),),
                     {"num_samples": int(num_samples), "dtype": dt._np, "seed": s1, "seed2": s2},
                     name="Multinomial")


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None) -> Tensor:
    """TF1's name for :func:`categorical` (ops under ``multinomial/``)."""
    return categorical(logits, num_samples, output_dtype, seed, name or "multinomial")


def random_poisson(lam, shape, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Poisson draws: ``shape + lam.shape`` values, ``shape`` for each rate in ``lam``.

    >>> import staticgraph as tf
    >>> tf.random.poisson([1.0, 5.0], [3]).shape.as_list()
    [3, 2]
    """
    s1, s2 = get_seed(seed)
    dt = _dtypes.as_dtype(dtype)
    with name_scope(name, "random_poisson"):
        lam = convert_to_tensor(lam, name="lam")
        return apply(REGISTRY["RandomPoissonV2"], (lam,),
                     {"shape": _static_shape(shape), "dtype": dt._np, "seed": s1, "seed2": s2},
                     name="RandomPoissonV2")


def random_gamma(shape, alpha, beta=None, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Gamma(alpha, rate=beta) draws, ``shape + broadcast(alpha, beta).shape`` of them, at
    least the dtype's tiniest positive number (TF's ``random_gamma/Maximum``).

    >>> import staticgraph as tf
    >>> tf.random.gamma([3], [1.0, 2.0], beta=[1.0, 3.0]).shape.as_list()
    [3, 2]
    """
    s1, s2 = get_seed(seed)
    dt = _float(dtype)
    with name_scope(name, "random_gamma"):
        alpha = convert_to_tensor(alpha, dtype=dt, name="alpha")
        if beta is not None:
            beta = convert_to_tensor(beta, dtype=dt, name="beta")
            alpha = multiply(alpha, ones_like(beta), name="BroadcastTo")
        draws = apply(REGISTRY["RandomGamma"], (alpha,),
                      {"shape": _static_shape(shape), "seed": s1, "seed2": s2}, name="RandomGamma")
        if beta is not None:
            draws = realdiv(draws, beta)
        return maximum(draws, np.finfo(dt._np).tiny, name="Maximum")

"""``tf.data.Dataset``: an input pipeline described at build time, run by an iterator.

A Dataset is a recipe: the graph tensors it reads (its *inputs*: the arrays of
``from_tensor_slices``, placeholders, tensors captured by a ``map`` function)
and a function that, given their values, yields elements as flat tuples of
arrays.  Nothing runs until an iterator is initialized in a Session::

    ds = Dataset.from_tensor_slices((x, y)).shuffle(100, seed=1).batch(32).repeat()
    it = ds.make_one_shot_iterator()          # or make_initializable_iterator()
    xb, yb = it.get_next()                    # IteratorGetNext:0, IteratorGetNext:1
    sess.run(xb)  ... OutOfRangeError("End of sequence") when the data ends

``map(fn)`` traces ``fn`` once on placeholders in a sub-graph (as TF traces a
``tf.function``) and runs that sub-graph's compiled plan per element.
``shuffle`` is TF's: its buffer algorithm, seed rules and Philox stream, so a
seeded pipeline yields TF's very order; each Session (and each re-initialization)
replays it, and every ``repeat`` epoch reshuffles unless
``reshuffle_each_iteration=False``.

>>> import staticgraph as tf
>>> ds = tf.data.Dataset.range(5).batch(2)
>>> ds.output_shapes
TensorShape([Dimension(None)])
"""
from __future__ import annotations

import itertools
import secrets
from typing import Any, Callable, Iterator

import numpy as np

from common.philox import PhiloxRandom

from ..framework import dtypes as _dtypes
from ..framework.build import convert_to_tensor
from ..framework.graph import SubGraph, Tensor, creation_site, get_default_graph
from ..ops.random_ops import get_seed
from ..framework.shape import TensorShape
from ..framework.sources import placeholder
from . import iterator
from .structure import flatten, pack_as
from ..compiler.pipeline import compile_plan
from ..framework.kinds import SessionState
from ..control.function import TensorSpec

__all__ = ["Dataset", "experimental", "AUTOTUNE", "get_output_types", "get_output_shapes",
           "get_output_classes"]

Make = Callable[[list, dict], Iterator[tuple]]
"""(input values, per-initialization context) -> elements as flat tuples of arrays."""


class Dataset:
    """An input pipeline (see the module docstring).  Methods return new Datasets."""

    def __init__(self, inputs: list[Tensor], structure: Any, specs: list[tuple], make: Make,
                 desc: tuple | None = None):
        self._inputs = inputs          # graph tensors whose values the pipeline reads
        self._structure = structure    # nesting of one element (leaves are placeholders' slots)
        self._specs = specs            # flat list of (shape tuple, numpy dtype)
        self._make = make
        self._desc = desc              # (TF's dataset op, JSON-able params, parents): its graph form

    # --- sources --------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors) -> "Dataset":
        """One element per row (first-axis slice) of every component."""
        structure, flat = _as_tensors(tensors)
        dims = {t._shape[0] for t in flat if t._shape}
        if any(t.ndim == 0 for t in flat):
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            raise ValueError(f"Dimensions {sorted(known)[0]} and {sorted(known)[1]} are not compatible")
        specs = [(None if t._shape is None else t._shape[1:], t.np_dtype) for t in flat]

        def make(values, ctx):
            n = len(values[0]) if values else 0
            if any(len(v) != n for v in values):
                raise ValueError("all components of from_tensor_slices need the same first dimension")
            return (tuple(v[i] for v in values) for i in range(n))
        return Dataset(flat, structure, specs, make, ("TensorSliceDataset", {}, ()))

    @staticmethod
    def from_tensors(tensors) -> "Dataset":
        """A single element: ``tensors`` whole."""
        structure, flat = _as_tensors(tensors)
        return Dataset(flat, structure, [(t._shape, t.np_dtype) for t in flat],
                       lambda values, ctx: iter([tuple(values)]), ("TensorDataset", {}, ()))

    @staticmethod
    def range(*args, output_type=_dtypes.int64) -> "Dataset":
        """``range(stop)``, ``range(start, stop[, step])`` as int64 scalars."""
        bounds = range(*(int(a) for a in args))
        dt = _dtypes.as_dtype(output_type)._np
        return Dataset([], 0, [((), dt)], lambda values, ctx: ((np.array(i, dt),) for i in bounds),
                       ("RangeDataset", {"args": [bounds.start, bounds.stop, bounds.step],
                                         "output_type": dt.str}, ()))

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None) -> "Dataset":
        """Elements from a Python generator function (called anew at each initialization)."""
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        types = _tuples(output_types)
        dts = [_dtypes.as_dtype(t)._np for t in flatten(types)]
        shapes = [None] * len(dts) if output_shapes is None else \
            [TensorShape(s).dims_tuple for s in flatten(_tuples(_shape_leaves(output_shapes)))]
        call_args = tuple(args or ())

        def make(values, ctx):
            for element in generator(*call_args):
                leaves = flatten(_tuples(element))
                if len(leaves) != len(dts):
                    raise TypeError(f"`generator` yielded an element of {len(leaves)} components "
                                    f"where {len(dts)} were expected by output_types")
                yield tuple(np.asarray(v, dtype=d) for v, d in zip(leaves, dts))
        return Dataset([], _renumber(types), list(zip(shapes, dts)), make,
                       ("GeneratorDataset", {"site": creation_site()}, None))

    @staticmethod
    def zip(datasets) -> "Dataset":
        """Elements of several datasets side by side (stops with the shortest)."""
        parts = flatten(datasets)
        structure = pack_as(datasets, [d._structure for d in parts])
        inputs = [t for d in parts for t in d._inputs]
        specs = [s for d in parts for s in d._specs]

        def make(values, ctx):
            its, k = [], 0
            for d in parts:
                its.append(d._make(values[k:k + len(d._inputs)], ctx))
                k += len(d._inputs)
            return (tuple(x for e in elems for x in e) for elems in zip(*its))
        return Dataset(inputs, _renumber(structure), specs, make,
                       ("ZipDataset", {"datasets": _renumber(datasets)}, tuple(parts)))

    # --- transformations ---------------------------------------------------------------
    def _derive(self, make_from_parent: Callable, kind: str, params: dict, specs=None) -> "Dataset":
        """A dataset whose elements ``make_from_parent(upstream, ctx)`` computes, where
        ``upstream()`` starts a fresh pass over this dataset's elements; ``kind`` and
        ``params`` are TF's dataset op for it and what rebuilds it (:func:`describe`)."""
        parent = self._make
        return Dataset(self._inputs, self._structure, self._specs if specs is None else specs,
                       lambda values, ctx: make_from_parent(lambda: parent(values, ctx), ctx),
                       (kind, params, (self,)))

    def batch(self, batch_size: int, drop_remainder: bool = False) -> "Dataset":
        """Consecutive elements stacked along a new first axis (the last batch may be short)."""
        n = _batch_size(batch_size)
        specs = [(None if s is None else (n if drop_remainder else None, *s), d) for s, d in self._specs]
        return self._batched(n, drop_remainder, specs, lambda i, column: np.stack(column),
                             "BatchDataset", {"batch_size": n, "drop_remainder": bool(drop_remainder)})

    def padded_batch(self, batch_size: int, padded_shapes=None, padding_values=None,
                     drop_remainder: bool = False) -> "Dataset":
        """Batches whose components are padded (with 0, or ``padding_values``) to the longest
        in the batch along unknown dims, or to ``padded_shapes``."""
        n = _batch_size(batch_size)
        targets = [None] * len(self._specs) if padded_shapes is None else \
            [TensorShape(p).dims_tuple for p in flatten(_tuples(_shape_leaves(padded_shapes)))]
        fills = [0] * len(self._specs) if padding_values is None else flatten(_tuples(padding_values))
        return self._padded_batch(n, targets, [np.asarray(f).item() for f in fills], bool(drop_remainder))

    def _padded_batch(self, n: int, targets: list, fills: list, drop_remainder: bool) -> "Dataset":
        specs = [((n if drop_remainder else None,
                   *(t if t is not None else tuple(None for _ in (s or ())))), d)
                 for (s, d), t in zip(self._specs, targets)]
        return self._batched(n, drop_remainder, specs,
                             lambda i, column: _pad_stack(column, targets[i], fills[i]),
                             "PaddedBatchDataset", {"n": n, "targets": [None if t is None else list(t)
                                                                       for t in targets],
                                                    "fills": fills, "drop_remainder": drop_remainder})

    def _batched(self, n: int, drop_remainder: bool, specs: list, join, kind: str,
                 params: dict) -> "Dataset":
        """Chunks of ``n`` consecutive elements; component ``i`` of a batch is
        ``join(i, that component of each element)`` (the last chunk may be short);
        ``kind``/``params``: the dataset op it is (see :meth:`_derive`)."""
        def batches(upstream, ctx):
            it = upstream()
            while True:
                chunk = list(itertools.islice(it, n))
                if not chunk or (drop_remainder and len(chunk) < n):
                    return
                yield tuple(join(i, column) for i, column in enumerate(zip(*chunk)))
        return self._derive(batches, kind, params, specs)

    def shuffle(self, buffer_size: int, seed=None, reshuffle_each_iteration=None) -> "Dataset":
        """TF's buffer shuffle: keep ``buffer_size`` elements, emit a random one, refill."""
        size = int(buffer_size)
        if size <= 0:
            raise ValueError("buffer_size must be greater than zero.")
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        return self._shuffle(size, list(get_seed(seed)), reshuffle)

    def _shuffle(self, size: int, seeds: list, reshuffle: bool = True) -> "Dataset":
        key = object()

        def shuffled(upstream, ctx):
            if key not in ctx:  # per initialization: a re-initialized iterator replays
                ctx[key] = _ShuffleSeeds(*seeds, reshuffle)
            return _ShuffleBuffer(upstream, size, ctx[key].next())
        return self._derive(shuffled, "ShuffleDataset",
                            {"size": size, "seeds": seeds, "reshuffle": reshuffle})

    def repeat(self, count=None) -> "Dataset":
        """The elements ``count`` times (None or -1: forever)."""
        count = None if count is None or count == -1 else int(count)

        def repeated(upstream, ctx):
            epochs = itertools.count() if count is None else range(count)
            for _ in epochs:
                empty = True
                for e in upstream():
                    empty = False
                    yield e
                if empty:
                    return
        return self._derive(repeated, "RepeatDataset", {"count": count})

    def take(self, count: int) -> "Dataset":
        count = int(count)
        return self._derive(lambda up, ctx: up() if count < 0 else itertools.islice(up(), count),
                            "TakeDataset", {"count": count})

    def skip(self, count: int) -> "Dataset":
        count = int(count)
        return self._derive(lambda up, ctx: itertools.islice(up(), max(count, 0), None) if count >= 0
                            else iter(()), "SkipDataset", {"count": count})

    def concatenate(self, dataset) -> "Dataset":
        """This dataset's elements, then ``dataset``'s (same structure and dtypes); a dim the two
        disagree on becomes unknown."""
        if [d for _, d in self._specs] != [d for _, d in dataset._specs]:
            raise TypeError(f"Incompatible dataset element types: "
                            f"{[np.dtype(d).name for _, d in self._specs]} and "
                            f"{[np.dtype(d).name for _, d in dataset._specs]}")
        specs = [(_common_shape(a, b), d) for (a, d), (b, _) in zip(self._specs, dataset._specs)]
        n, first, second = len(self._inputs), self._make, dataset._make

        def make(values, ctx):
            return itertools.chain(first(values[:n], ctx), second(values[n:], ctx))
        return Dataset([*self._inputs, *dataset._inputs], self._structure, specs, make,
                       ("ConcatenateDataset", {}, (self, dataset)))

    def unbatch(self) -> "Dataset":
        """Each element split along its first axis into that many elements."""
        specs = [(None if sh is None else tuple(sh[1:]), d) for sh, d in self._specs]

        def unbatched(upstream, ctx):
            for element in upstream():
                for i in range(len(element[0])):
                    yield tuple(c[i] for c in element)
        return self._derive(unbatched, "UnbatchDataset", {}, specs)

    def prefetch(self, buffer_size=None) -> "Dataset":
        """Accepted (elements are produced on demand, in the Session's thread)."""
        return self

    def cache(self, filename: str = "") -> "Dataset":
        """Accepted: the pipeline is recomputed from its (immutable) inputs each epoch."""
        return self

    def _per_element(self, traced):
        """``fn`` traced once into a sub-graph (``traced``: what :func:`_trace` returns); gives
        its outer tensors captured and ``pairs(values, ctx)``: each parent element with
        ``fn``'s values for it (the sub-graph compiled when an iterator starts)."""
        sub, structure, outs = traced
        captured = list(sub.captures)
        feeds = sub.element_placeholders + [sub.captures[t] for t in captured]
        n_in, parent = len(self._inputs), self._make

        def pairs(values, ctx):
            plan = _plan(sub, outs, feeds)
            extra = values[n_in:]
            return ((e, plan(*e, *extra)) for e in parent(values[:n_in], ctx))
        return structure, outs, captured, pairs

    def map(self, map_func, num_parallel_calls=None, deterministic=None) -> "Dataset":
        """``map_func`` applied to every element (traced once into a sub-graph of graph ops)."""
        return self._map(_trace(map_func, self._structure, self._specs))

    def _map(self, traced) -> "Dataset":
        structure, outs, captured, pairs = self._per_element(traced)

        def make(values, ctx):
            return (tuple(result) for _, result in pairs(values, ctx))
        specs = [(t._shape, t.np_dtype) for t in outs]
        return Dataset(self._inputs + captured, structure, specs, make,
                       ("MapDataset", {"fn": traced}, (self,)))

    def filter(self, predicate) -> "Dataset":
        """The elements for which ``predicate`` (a function of graph tensors) is True."""
        return self._filter(_trace(predicate, self._structure, self._specs))

    def _filter(self, traced) -> "Dataset":
        _, outs, captured, pairs = self._per_element(traced)
        if len(outs) != 1 or outs[0].dtype != _dtypes.bool or outs[0]._shape not in ((), None):
            raise ValueError("`predicate` return type must be convertible to a scalar boolean tensor.")

        def make(values, ctx):
            return (e for e, keep in pairs(values, ctx) if bool(keep[0]))
        return Dataset(self._inputs + captured, self._structure, self._specs, make,
                       ("FilterDataset", {"fn": traced}, (self,)))

    # --- element facts and iterators ----------------------------------------------------
    @property
    def output_types(self):
        return pack_as(self._structure, [_dtypes.as_dtype(d) for _, d in self._specs])

    @property
    def output_shapes(self):
        return pack_as(self._structure, [TensorShape(s) for s, _ in self._specs])

    @property
    def output_classes(self):
        return pack_as(self._structure, [Tensor for _ in self._specs])

    @property
    def element_spec(self):
        return pack_as(self._structure, [TensorSpec(s, _dtypes.as_dtype(d)) for s, d in self._specs])

    def make_one_shot_iterator(self):
        """An iterator initialised on first use.  TF takes an op seed here (for the graph seed
        of the function it wraps the dataset in): the seeds of later random ops count it."""
        get_seed(None)
        return iterator.Iterator(self, one_shot=True)

    def make_initializable_iterator(self, shared_name=None):
        return iterator.Iterator(self, one_shot=False)

    def __iter__(self):
        raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in eager mode "
                           "or within tf.function.")


class _ShuffleSeeds:
    """The Philox stream of each pass over a shuffled dataset, as TF's ``ShuffleDataset``.

    Unseeded (``(0, 0)``) means random seeds.  With ``reshuffle_each_iteration`` (the default)
    a seed generator -- itself a Philox stream of the dataset's seeds -- gives every pass
    (every ``repeat`` epoch) two fresh uint32 seeds; without it every pass uses the dataset's."""

    def __init__(self, seed, seed2, reshuffle: bool):
        seed, seed2 = seed or 0, seed2 or 0
        if seed == 0 and seed2 == 0:
            seed, seed2 = secrets.randbits(64), secrets.randbits(64)
        self._seeds, self._reshuffle, self._passes = (seed, seed2), reshuffle, 0

    def next(self) -> PhiloxRandom:
        self._passes += 1
        if not self._reshuffle:
            return PhiloxRandom.from_seeds(*self._seeds)
        bits = PhiloxRandom.from_seeds(*self._seeds).uint32s(2 * self._passes)[-2:]
        return PhiloxRandom.from_seeds(int(bits[0]), int(bits[1]))


class _ShuffleBuffer:
    """An iterator over ``upstream()`` in TF's buffer-shuffled order: a ring of ``size``
    elements, filled before each pick; pick ``start + bits % filled``, move the element at
    ``start`` into its place, advance ``start`` -- one uint32 of ``gen`` per element."""

    _CHUNK = 1024  # uint32 drawn at a time

    def __init__(self, upstream, size: int, gen: PhiloxRandom):
        self._it, self._size, self._gen = upstream(), size, gen
        self._ring, self._start, self._end = [None] * size, 0, 0
        self._bits, self._used = [], 0

    def __iter__(self):
        return self

    def _uint32(self) -> int:
        if self._used == len(self._bits):
            self._bits = self._gen.uint32s(self._CHUNK).tolist()
            self._gen, self._used = self._gen.skip(self._CHUNK // 4), 0
        self._used += 1
        return self._bits[self._used - 1]

    def __next__(self):
        ring, size = self._ring, self._size
        while self._it is not None and self._end - self._start < size:
            e = next(self._it, None)
            if e is None:
                self._it = None
            else:
                ring[self._end % size], self._end = e, self._end + 1
        if self._end == self._start:
            raise StopIteration
        i = (self._start + self._uint32() % (self._end - self._start)) % size
        out, ring[i] = ring[i], ring[self._start % size]
        ring[self._start % size], self._start = None, self._start + 1
        return out


def _shape_leaves(shapes: Any) -> Any:
    """Shapes written as lists are leaves, not structure (``[None]`` is one shape)."""
    if isinstance(shapes, dict):
        return {k: _shape_leaves(v) for k, v in shapes.items()}
    if isinstance(shapes, tuple):
        return tuple(_shape_leaves(v) for v in shapes)
    return TensorShape(shapes)


def _batch_size(batch_size) -> int:
    n = int(batch_size)
    if n <= 0:
        raise ValueError("batch_size must be greater than zero.")
    return n


def _pad_stack(values, target, fill) -> np.ndarray:
    arrays = [np.asarray(v) for v in values]
    dims = [max(a.shape[k] for a in arrays) if target is None or target[k] is None else target[k]
            for k in range(arrays[0].ndim)]
    out = np.full((len(arrays), *dims), fill, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        if any(s > d for s, d in zip(a.shape, dims)):
            raise ValueError(f"Attempted to pad to a smaller size than the input element: "
                             f"{list(a.shape)} into {dims}")
        out[(i, *(slice(0, s) for s in a.shape))] = a
    return out


def _renumber(structure: Any) -> Any:
    return pack_as(structure, list(range(len(flatten(structure)))))


def _as_tensors(tensors) -> tuple[Any, list[Tensor]]:
    """The element structure (leaves numbered) and its components as graph tensors."""
    leaves = [convert_to_tensor(t) if not isinstance(t, Tensor) else t
              for t in flatten(_tuples(tensors))]
    return _renumber(_tuples(tensors)), leaves


def _tuples(x: Any) -> Any:
    """Lists inside a structure are values (TF converts them to tensors); tuples nest."""
    if isinstance(x, dict):
        return {k: _tuples(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_tuples(v) for v in x)
    return x


def _trace(fn, structure: Any, specs: list[tuple]):
    """Call ``fn`` on placeholders for one element inside a sub-graph; return its outputs."""
    graph = get_default_graph()
    sub = SubGraph(graph, name="dataset_fn")
    with sub.as_default():
        phs = [placeholder(d, s, name=f"arg{i}") for i, (s, d) in enumerate(specs)]
        element = pack_as(structure, phs)
        result = fn(*element) if isinstance(element, tuple) else fn(element)
        result = _tuples(result)
        outs = [convert_to_tensor(t) for t in flatten(result)]
    sub.element_placeholders = phs
    return sub, _renumber(result), outs


def _plan(sub: SubGraph, outs: list[Tensor], feeds: list[Tensor]):
    exe = compile_plan(outs, feeds, SessionState(), "list")
    return exe.fn


def _common_shape(a, b):
    """The most specific shape both ``a`` and ``b`` fit (None dims where they differ)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


class experimental:  # noqa: N801  (tf.data.experimental)
    AUTOTUNE = -1


AUTOTUNE = experimental.AUTOTUNE


def get_output_types(dataset_or_iterator):
    """``tf.data.get_output_types(ds)``: ``ds.output_types`` (TF1's accessor)."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes

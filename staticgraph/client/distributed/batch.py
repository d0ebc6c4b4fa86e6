"""Batched runs: the whole graph once per chunk of the batch, chunk results tree-summed.

::

    feed x = dask.array, chunks (c0, c1, c2, c3) along the batch      (out of core), or
    fetch a data_parallel train op, numpy x split into n_shards       (data parallel)

      chunk i --run_shard(weight_i = n_i / N)--> values_i      (on a worker, one chunk in memory)
      values_0 + values_1 -> s01,  values_2 + values_3 -> s23,  s01 + s23 -> total  (tree, on workers)
      train op: the driver applies total (the summed gradients) once, after every shard finished

How a fetch combines over chunks is declared, not guessed: ``reduces_batch(t,
"mean")`` (a mean over the batch: each chunk weighted by its share -- exact for
uneven chunks) or ``"sum"``; a tensor whose first dimension is None (per
example) is concatenated in order.  A data-parallel step's gradients combine
by its optimizer's ``aggregation``.
"""
from __future__ import annotations

import uuid
from typing import Any, NamedTuple

import numpy as np
from dask import delayed, is_dask_collection

from ...framework.graph import Operation, Tensor
from ...util.nest import flatten_with_rebuild
from ..session import _Feed, _run_key
from .partition import partition_run
from .worker import merge_values, run_shard

__all__ = ["reduces_batch", "BATCH_REDUCTIONS", "DATA_PARALLEL", "compiled", "run_batched"]

BATCH_REDUCTIONS = "staticgraph.distributed.batch_reductions"
DATA_PARALLEL = "staticgraph.distributed.data_parallel"
_RULES = ("mean", "sum")


def reduces_batch(tensor: Tensor, how: str = "mean") -> Tensor:
    """Declare that ``tensor`` reduces over the batch by ``how`` ("mean" or "sum").

    A run fed a chunked ``dask.array`` then computes it chunk by chunk and combines
    the chunks' values exactly (a mean: each chunk weighted by its size).

    >>> loss = reduces_batch(tf.reduce_mean(tf.square(y - t)), "mean")   # doctest: +SKIP
    """
    if how not in _RULES:
        raise ValueError(f"how must be one of {_RULES}, got {how!r}")
    tensor.graph.add_to_collection(BATCH_REDUCTIONS, (tensor, how))
    return tensor


class _Batched(NamedTuple):
    """A compiled batched signature."""

    partition: Any
    feeds: list            # _Feed per feed_dict entry
    split: list[int]       # feed positions split along the batch
    dask: tuple[int, ...]  # feed positions holding dask arrays
    fetch_pos: list        # per flat fetch: index into the shard values, or None (the train op)
    rules: tuple[str, ...]
    step: Any              # the data-parallel step, or None
    rebuild: Any


def compiled(sess, fetches: Any, feed_dict: dict) -> _Batched | None:
    """The batched plan for this signature, or None when the run is an ordinary placed one."""
    dask_pos = tuple(i for i, v in enumerate(feed_dict.values()) if is_dask_collection(v))
    key = (_run_key(fetches), tuple(feed_dict), dask_pos)
    try:
        return sess.batched[key]
    except KeyError:
        c = sess.batched[key] = _compile(sess, fetches, feed_dict, dask_pos)
        return c


def _compile(sess, fetches, feed_dict: dict, dask_pos: tuple) -> _Batched | None:
    graph = sess.graph
    flat: list = []
    rebuild = flatten_with_rebuild(fetches, graph.as_graph_element, flat)
    steps = [s for s in graph.get_collection(DATA_PARALLEL) if any(f is s.op for f in flat)]
    if not dask_pos and not steps:
        return None
    if len(steps) > 1:
        raise ValueError("A run can execute one data_parallel train op at a time.")
    step = steps[0] if steps else None
    sess.compile_count += 1
    feeds = [_Feed(sess._feed_tensor(k)) for k in feed_dict]
    declared = {id(t): how for t, how in graph.get_collection(BATCH_REDUCTIONS)}
    shard_fetches, rules, fetch_pos = [], [], []
    for f in flat:
        if step is not None and f is step.op:
            fetch_pos.append(None)
            continue
        fetch_pos.append(len(shard_fetches))
        shard_fetches.append(f)
        rules.append(_rule(f, declared))
    if step is not None:
        shard_fetches += step.grads
        rules += [step.aggregation] * len(step.grads)
    split = list(dask_pos) if dask_pos else [i for i, f in enumerate(feeds) if _is_batch(f.tensor)]
    if not split:
        raise ValueError("A data_parallel step needs a batch to split: feed a placeholder whose "
                         "first dimension is None.")
    layout = partition_run(graph, shard_fetches, [f.tensor for f in feeds], placed=False)
    if len(layout.partitions) != 1 or any(s is None or s[0] == "feed" for s in layout.fetches):
        raise ValueError("A batched run must compute its fetches from the batch (a fetch that is "
                         "fed, or an Operation, cannot be split over chunks).")
    sess.ship(layout.partitions)
    return _Batched(layout.partitions[0], feeds, split, dask_pos, fetch_pos, tuple(rules), step, rebuild)


def _is_batch(t: Tensor) -> bool:
    return t._shape is not None and len(t._shape) > 0 and t._shape[0] is None


def _rule(f, declared: dict) -> str:
    if isinstance(f, Operation):
        raise ValueError(f"Operation {f.name} cannot run once per batch chunk: only tensors "
                         f"are fetched from a run split over a chunked batch.")
    rule = declared.get(id(f))
    if rule is None and _is_batch(f):
        return "concat"
    if rule is None:
        raise ValueError(
            f"Fetch {f.name} does not say how its per-chunk values combine: declare it with "
            f"staticgraph.client.distributed.reduces_batch(t, 'mean' or 'sum'), or fetch per-example "
            f"values (first dimension None), which are concatenated.")
    return rule


def _chunks(c: _Batched, sess, values: list) -> tuple[list[list], list[int]]:
    """Per chunk, its value of every split feed; and the chunk sizes along the batch."""
    if c.dask:
        arrays = [values[i].rechunk({d: -1 for d in range(1, values[i].ndim)}) for i in c.split]
        sizes = arrays[0].chunks[0]
        if any(a.chunks[0] != sizes for a in arrays):
            raise ValueError(f"dask.array feeds must share their chunks along the batch dimension "
                             f"(got {[a.chunks[0] for a in arrays]}).")
        blocks = [a.to_delayed().ravel() for a in arrays]
        return [list(b) for b in zip(*blocks)], list(sizes)
    n = c.step.n_shards or len(sess.client.scheduler_info()["workers"])
    arrays = [values[i] for i in c.split]
    if any(len(a) != len(arrays[0]) for a in arrays):
        raise ValueError(f"The batch feeds of a data_parallel step must have the same first "
                         f"dimension (got {[len(a) for a in arrays]}).")
    n = max(1, min(n, len(arrays[0])))                  # no empty shard (its mean would be NaN)
    pieces = [np.array_split(a, n) for a in arrays]      # shards travel inside their tasks
    return [list(ps) for ps in zip(*pieces)], [len(p) for p in pieces[0]]


def run_batched(sess, c: _Batched, feed_dict: dict) -> Any:
    """Run every chunk on the workers, combine by a tree, apply a train op on the driver."""
    raw = list(feed_dict.values())
    values = [raw[i] if i in c.dask else f(v) for i, (f, v) in enumerate(zip(c.feeds, raw))]
    chunks, sizes = _chunks(c, sess, values)
    total = float(sum(sizes))
    p = c.partition
    whole = [i for i in range(len(values)) if i not in c.split]
    shared = {i: values[i] for i in whole}
    feed_of = {name: src[1] for name, src in p.inputs}
    variables = sess.variable_specs(p)
    tag = uuid.uuid4().hex
    level = []
    for i, (chunk, n) in enumerate(zip(chunks, sizes)):
        by_pos = dict(zip(c.split, chunk))
        recv = [(name, ("v", by_pos[k] if k in by_pos else shared[k])) for name, k in feed_of.items()]
        level.append(delayed(run_shard, pure=False)(
            n / total, c.rules, p.digest, p.fetch_names, len(p.outputs), recv, variables,
            dask_key_name=f"staticgraph-step-shard-{i}-{tag}"))
    depth = 0
    while len(level) > 1:
        depth += 1
        level = [delayed(merge_values)(level[i], level[i + 1], c.rules,
                                       dask_key_name=f"staticgraph-step-sum-{depth}-{i}-{tag}")
                 if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
    combined = sess.gather([sess.client.compute(level[0], optimize_graph=False)])[0]
    if c.step is not None:
        feeds = {k: values[i] for i, k in enumerate(feed_dict) if i not in c.dask}
        n_out = len(c.rules) - len(c.step.grads)
        feeds.update(zip(c.step.slots, combined[n_out:]))
        sess._local.run(c.step.op, feeds)
    return c.rebuild([None if i is None else combined[i] for i in c.fetch_pos])

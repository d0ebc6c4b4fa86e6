"""``data_parallel(optimizer, n_shards)``: TF's SyncReplicasOptimizer idea on Dask workers.

::

    minimize(loss):  grads = optimizer.compute_gradients(loss)          (graph nodes)
                     g_in  = placeholder_with_default(g)  per gradient  (the driver can feed it)
                     train = optimizer.apply_gradients(g_in)

    tf.Session().run(train)            -> g_in defaults to g: the ordinary single-process step
    tf.Session(target=dask).run(train) -> the batch split in n_shards, each shard's gradients
                                          computed on a worker, tree-summed there, fed into g_in
                                          and applied once on the driver

With ``aggregation="mean"`` (the default, for mean-reduced losses) each shard's
gradient is weighted by its share of the batch, so uneven shards still give
exactly the full-batch gradient; ``"sum"`` is for sum-reduced losses.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...framework.graph import Operation, Tensor, get_default_graph, name_scope
from ...framework.sources import placeholder_with_default
from .batch import _RULES, DATA_PARALLEL

__all__ = ["data_parallel", "DataParallelOptimizer", "DataParallelStep"]


@dataclass
class DataParallelStep:
    """What a distributed Session needs to run a data-parallel train op."""

    op: Operation
    grads: list[Tensor]
    slots: list[Tensor]
    n_shards: int | None
    aggregation: str


class DataParallelOptimizer:
    """Wraps a ``tf.train`` optimizer; its train ops split each batch over Dask workers."""

    def __init__(self, optimizer, n_shards: int | None = None, aggregation: str = "mean"):
        if aggregation not in _RULES:
            raise ValueError(f"aggregation must be one of {_RULES}, got {aggregation!r}")
        if n_shards is not None and n_shards < 1:
            raise ValueError(f"n_shards must be at least 1, got {n_shards}")
        self.optimizer, self.n_shards, self.aggregation = optimizer, n_shards, aggregation

    def compute_gradients(self, loss, var_list=None, **kwargs):
        return self.optimizer.compute_gradients(loss, var_list, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name: str | None = None) -> Operation:
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        with name_scope("data_parallel"):
            slots = [placeholder_with_default(g, g.shape, name="gradient") for g, _ in pairs]
        op = self.optimizer.apply_gradients(list(zip(slots, (v for _, v in pairs))), global_step, name)
        get_default_graph().add_to_collection(DATA_PARALLEL, DataParallelStep(
            op, [g for g, _ in pairs], slots, self.n_shards, self.aggregation))
        return op

    def minimize(self, loss, global_step=None, var_list=None, name: str | None = None,
                 colocate_gradients_with_ops: bool = False, **_) -> Operation:
        grads = self.compute_gradients(loss, var_list, colocate_gradients_with_ops=colocate_gradients_with_ops)
        return self.apply_gradients(grads, global_step, name)

    def get_slot(self, var, name: str):
        return self.optimizer.get_slot(var, name)


def data_parallel(optimizer, n_shards: int | None = None, aggregation: str = "mean") -> DataParallelOptimizer:
    """``optimizer`` whose train ops run data-parallel on a distributed Session.

    ``n_shards``: how many pieces each batch is split into (None: one per worker).

    >>> train = data_parallel(tf.train.GradientDescentOptimizer(0.1), 2).minimize(loss)  # doctest: +SKIP
    >>> tf.Session(target=client).run(train, {x: X, y: Y})                               # doctest: +SKIP
    """
    return DataParallelOptimizer(optimizer, n_shards, aggregation)

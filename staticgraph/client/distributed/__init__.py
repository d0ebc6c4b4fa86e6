"""staticgraph on a Dask cluster: the graph is data, so it travels and runs elsewhere.

Needs the optional extra: ``pip install -e ".[distributed]"`` (dask.distributed).

::

    import staticgraph as tf
    from staticgraph.client import distributed
    from dask.distributed import Client, LocalCluster

    client = Client(LocalCluster(n_workers=2))       # or Client("tcp://scheduler:8786")
    with tf.device("/job:worker/task:1"):
        h = tf.matmul(x, w)                           # runs on the worker named 1
    sess = tf.Session(target=client)                  # a DistributedSession
    sess.run(h, {x: batch})                           # same values as tf.Session().run

    train = distributed.data_parallel(tf.train.GradientDescentOptimizer(0.1)).minimize(loss)
    sess.run(train, {x: X, y: Y})                     # batch split over the workers

    full = distributed.reduces_batch(loss, "mean")
    sess.run(full, {x: dask_array, y: dask_labels})   # chunk by chunk, out of core

See :mod:`.session` (placement), :mod:`.batch` (chunked and data-parallel runs),
:mod:`.worker` (what a worker holds), :mod:`.partition` (cutting a run by device).
"""
from __future__ import annotations

from .batch import reduces_batch
from .data_parallel import DataParallelOptimizer, data_parallel
from .faults import KillOnStep
from .session import DistributedSession, is_dask_target

__all__ = ["DistributedSession", "data_parallel", "DataParallelOptimizer", "reduces_batch",
           "KillOnStep", "is_dask_target"]

"""``Session(target=<dask Client or scheduler address>)``: ``run`` executed by Dask workers.

::

    run(fetches, feed_dict)                        (the signature is compiled once, cached)
      placed:   partition_run -> one Dask task per partition, pinned to the worker its
                tf.device names (no device: any worker), cross-partition tensors = task results
      batched:  a dask.array feed, or a data_parallel train op -> the whole graph once per
                batch chunk, results tree-summed on the workers (see batch.py)
      gather every task; only then write the variables the tasks assigned into this
      Session's state (the driver's): a failed step changes nothing, a retried task
      cannot apply an update twice

Graphs travel once per worker as a :class:`worker.GraphPlugin` (the JSON
export, keyed by digest); a step sends feeds and variable values, and a
variable's value is re-sent only after it changed.
"""
from __future__ import annotations

import uuid
from typing import Any

from distributed import Client, KilledWorker

from ...framework.errors import FailedPreconditionError, UnavailableError
from ...framework.graph import Graph
from ...util.nest import flatten_dict_items, flatten_with_rebuild
from ..session import SCHEDULER_SCHEMES, Session, _Feed, _run_key
from . import batch as _batch
from .partition import Layout, partition_run
from .worker import GraphPlugin, hold, run_partition

__all__ = ["DistributedSession", "is_dask_target"]

def is_dask_target(target: Any) -> bool:
    """A dask ``Client`` or a scheduler address (``tcp://host:8786``)."""
    return isinstance(target, Client) or isinstance(target, str) and target.startswith(SCHEDULER_SCHEMES)


class _Placed:
    """A compiled placed run: its layout, feed validators, fetch rebuild, worker per partition,
    and which partitions' results come back to the driver (``gathered``)."""

    __slots__ = ("layout", "feeds", "flat", "rebuild", "workers", "gathered")

    def __init__(self, layout: Layout, feeds, flat, rebuild, workers):
        self.layout, self.feeds, self.flat, self.rebuild = layout, feeds, flat, rebuild
        self.workers = workers
        self.gathered = _gathered(layout)


class DistributedSession(Session):
    """A Session whose runs execute on a Dask cluster; variables stay here, on the driver.

    >>> sess = tf.Session(target=client)          # doctest: +SKIP
    >>> sess.run(loss, {x: batch})                # same result as tf.Session().run(...)
    """

    def __init__(self, target: Any = "", graph: Graph | None = None, config=None):
        super().__init__("", graph, config)
        if isinstance(target, Client):
            self.client, self._own_client = target, False
        else:
            self.client, self._own_client = Client(target), True
        self._local = Session(graph=self.graph, config=config)   # the driver's own steps
        self._local.state = self.state
        self._token = uuid.uuid4().hex[:8]
        self._plugins: dict[str, str] = {}
        self._shipped_vars: dict[str, tuple] = {}
        self._placed: dict = {}
        self.batched: dict = {}
        self.transfer_count = 0

    # --- run -----------------------------------------------------------------------
    def run(self, fetches: Any, feed_dict: dict | None = None, options=None, run_metadata=None):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self.graph.version != self._version:
            self._placed.clear()
            self.batched.clear()
            self._version = self.graph.version
        feed_dict = flatten_dict_items(feed_dict) if feed_dict else {}
        batched = _batch.compiled(self, fetches, feed_dict)
        if batched is not None:
            return _batch.run_batched(self, batched, feed_dict)
        return self._run_placed(fetches, feed_dict)

    def _run_placed(self, fetches: Any, feed_dict: dict) -> Any:
        c = self._placed_for(fetches, feed_dict)
        values = [f(v) for f, v in zip(c.feeds, feed_dict.values())]
        futures: list = []
        for p in c.layout.partitions:       # feeds travel inside the tasks (recoverable)
            futures.append(self.submit_partition(p, [("v", values[src[1]]) if src[0] == "feed" else
                                                     ("p", futures[src[1]], src[2]) for _, src in p.inputs],
                                                 futures, workers=c.workers[p.index]))
        results = dict(zip(c.gathered, self.gather([futures[i] for i in c.gathered])))
        self.commit([results[i][1] for i in c.gathered])
        out = [None if src is None else values[src[1]] if src[0] == "feed" else results[src[1]][0][src[2]]
               for src in c.layout.fetches]
        return c.rebuild(out)

    def partitions(self, fetches: Any, feed_dict: dict | None = None) -> list:
        """The partitions ``run(fetches, feed_dict)`` executes (place, level, ops, digest)."""
        return self._placed_for(fetches, feed_dict or {}).layout.partitions

    def _placed_for(self, fetches: Any, feed_dict: dict) -> _Placed:
        key = (_run_key(fetches), tuple(feed_dict))
        c = self._placed.get(key)
        if c is None:
            c = self._placed[key] = self._compile_placed(fetches, feed_dict)
        return c

    def _compile_placed(self, fetches: Any, feed_dict: dict) -> _Placed:
        self.compile_count += 1
        feeds = [_Feed(self._feed_tensor(k)) for k in feed_dict]
        flat: list = []
        rebuild = flatten_with_rebuild(fetches, self.graph.as_graph_element, flat)
        layout = partition_run(self.graph, flat, [f.tensor for f in feeds])
        names = self.worker_names()
        workers = [None if p.place is None else [_worker_for(p.place, names)] for p in layout.partitions]
        self.ship(layout.partitions)
        return _Placed(layout, feeds, flat, rebuild, workers)

    # --- shared by placed and batched runs ----------------------------------------------
    def submit_partition(self, p, recv: list, futures: list, workers=None):
        """One Dask task running partition ``p`` (``futures``: the step's earlier partitions)."""
        return self.client.submit(run_partition, p.digest, p.fetch_names, len(p.outputs),
                                  [(name, spec) for (name, _), spec in zip(p.inputs, recv)],
                                  self.variable_specs(p, futures), *[futures[i] for i in p.after],
                                  key=f"staticgraph-step-{p.index}-{uuid.uuid4().hex}",
                                  workers=workers, allow_other_workers=False, pure=False)

    def variable_specs(self, p, futures: list | None = None) -> list[tuple]:
        """What each variable ``p`` touches is loaded from: an earlier partition's write or
        the driver's value (sent to the cluster once per value)."""
        specs = []
        shipped = self._ship_variables(list(p.variables))
        for var, src in p.variables.items():
            value = shipped.get(var)
            if src is not None and futures is not None:
                specs.append((var, ("w", futures[src], var, value)))
            elif value is not None:
                specs.append((var, value))
        return specs

    def _ship_variables(self, names: list[str]) -> dict:
        """Where each of ``names``' driver value is: ``("d", future, name)``.

        Only changed values are sent (assignments replace arrays, so identity tells what
        changed), all of them in one task returning a dict -- a task, not ``scatter``ed
        data: the scheduler keeps its recipe, so when the worker holding it dies Dask
        recomputes it elsewhere and the step goes on (scattered data dies with its worker).
        """
        store, held = self.state.variables, self._shipped_vars
        stale = [n for n in names if n in store and (n not in held or held[n][0] is not store[n])]
        if stale:
            values = {n: store[n] for n in stale}
            future = self.client.submit(hold, values, key=f"staticgraph-values-{uuid.uuid4().hex}",
                                        pure=False)
            held.update((n, (values[n], ("d", future, n))) for n in stale)
            self.transfer_count += len(stale)
        return {n: held[n][1] for n in names if n in store}

    def ship(self, partitions) -> None:
        """Install each partition's graph on every worker once (a WorkerPlugin per digest)."""
        for p in partitions:
            if p.digest not in self._plugins:
                name = f"staticgraph-graph-{p.digest[:16]}-{self._token}"
                self.client.register_plugin(GraphPlugin(name, p.digest, p.text))
                self._plugins[p.digest] = name

    def gather(self, futures):
        """All results, or a clear error when the cluster lost the step (nothing applied)."""
        try:
            return self.client.gather(futures)
        except KilledWorker as e:
            raise UnavailableError(None, None, (
                f"The step could not complete: the workers running it died ({e}). Dask retried "
                f"it on the remaining workers until its allowed-failures limit; no variable was "
                f"updated.")) from None

    def commit(self, writes: list[dict]) -> None:
        """Apply the variables the tasks assigned, in partition order (after the whole step)."""
        for w in writes:
            self.state.variables.update(w)

    def worker_names(self) -> dict[Any, str]:
        return {w["name"]: addr for addr, w in self.client.scheduler_info()["workers"].items()}

    # --- lifecycle ------------------------------------------------------------------
    def close(self) -> None:
        if self._closed:
            return
        super().close()
        self._placed.clear()
        self._shipped_vars.clear()
        try:
            for name in self._plugins.values():
                self.client.unregister_worker_plugin(name)
        except Exception:  # noqa: BLE001  (a cluster already gone has nothing to clean)
            pass
        self._plugins.clear()
        if self._own_client:
            self.client.close()


def _gathered(layout: Layout) -> list[int]:
    """Partitions whose results the driver needs: a user fetch, a variable it may assign (by
    its ops' declared effects), or no successor (so the step waits for it).  The others'
    tensors only go worker to worker; their success is implied by their successors'."""
    needed = {src[1] for src in layout.fetches if src is not None and src[0] == "part"}
    used = set()
    for p in layout.partitions:
        used.update(src[1] for _, src in p.inputs if src[0] == "part")
        used.update(i for i in p.variables.values() if i is not None)
        used.update(p.after)
    return [p.index for p in layout.partitions
            if p.index in needed or p.writes or p.index not in used]


def _worker_for(place: tuple[str, int], names: dict) -> Any:
    """The Dask worker a ``/job:J/task:T`` partition is pinned to.

    A worker named ``"/job:J/task:T"`` if there is one; else, for job ``worker``, the
    worker named ``T`` (LocalCluster names its workers 0, 1, ...).
    """
    job, task = place
    for name in (f"/job:{job}/task:{task}", *((task, str(task)) if job == "worker" else ())):
        if name in names:
            return name
    raise FailedPreconditionError(None, None, (
        f"No Dask worker for device /job:{job}/task:{task}: the cluster's workers are named "
        f"{sorted(map(str, names))}. Name a worker '/job:{job}/task:{task}' (dask worker "
        f"--name), or use job 'worker' with a task index below the number of workers."))

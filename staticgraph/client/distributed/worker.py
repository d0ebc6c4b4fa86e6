"""What runs inside a Dask worker: graphs arrive once, steps send only values.

::

    driver                                  worker process
    GraphPlugin(digest, json) --register--> setup(): _TEXTS[digest] = json       (once per worker,
                                                                                  and on restart)
    submit(run_partition, digest, ...) ---> _session(digest): from_json + Session (once, cached)
                                            load the shipped variable values, run, return
                                            (fetched values, variables this run wrote)

The worker never keeps variable values between steps: they come with each
task and what the task wrote goes back to the driver, which applies it only
when the whole step succeeded -- so a task Dask retries on another worker
cannot apply an update twice.  No Python function is shipped but this
module's, by reference.
"""
from __future__ import annotations

import hashlib
import threading
from typing import Any

import numpy as np

from distributed.diagnostics.plugin import WorkerPlugin

from ...framework.errors import DataLossError
from ...framework.graph import Graph
from ...interop.serialize import from_json
from ..session import Session

__all__ = ["GraphPlugin", "run_partition", "run_shard", "shard_values", "merge_values", "hold", "compile_counts"]

_TEXTS: dict[str, list] = {}          # digest -> [json, how many registrations hold it]
_LOADED: dict[str, tuple[Session, threading.Lock]] = {}
_LOCK = threading.Lock()


class GraphPlugin(WorkerPlugin):
    """Installs one serialized graph on every worker (Dask re-installs it on new workers)."""

    def __init__(self, name: str, digest: str, text: str):
        self.name, self.digest, self.text = name, digest, text

    def setup(self, worker=None) -> None:
        with _LOCK:
            _TEXTS.setdefault(self.digest, [self.text, 0])[1] += 1

    def teardown(self, worker=None) -> None:
        with _LOCK:
            entry = _TEXTS.get(self.digest)
            if entry is not None:
                entry[1] -= 1
                if entry[1] <= 0:
                    del _TEXTS[self.digest]
                    _LOADED.pop(self.digest, None)


def _session(digest: str) -> tuple[Session, threading.Lock]:
    """The Session over the graph ``digest`` names: loaded and compiled once per worker."""
    entry = _LOADED.get(digest)
    if entry is None:
        with _LOCK:
            entry = _LOADED.get(digest)
            if entry is None:
                if digest not in _TEXTS:
                    raise RuntimeError(f"graph {digest[:12]} was not shipped to this worker")
                entry = _LOADED[digest] = (Session(graph=_load(digest, _TEXTS[digest][0])),
                                           threading.Lock())
    return entry


def _load(digest: str, text: str) -> Graph:
    """The shipped graph, checked as every loaded graph is (``from_json``: DataLossError
    naming the node for a text that is not a valid graph) and against its digest first, so
    a text damaged on the way is named as such."""
    source = f"the graph {digest[:12]} shipped to this worker"
    if hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != digest:
        raise DataLossError(None, None, f"Cannot parse {source}: its text does not match its "
                                        f"SHA-256 digest (damaged on the way)")
    return from_json(text, source=source)


def _value(spec: tuple) -> Any:
    """A shipped value: ``("v", array)`` or ``("p", partition_result, j)`` (its j-th output)."""
    return spec[1] if spec[0] == "v" else spec[1][0][spec[2]]


def _variable(spec: tuple) -> Any:
    """``("d", values, name)``: the driver's value; ``("w", earlier_result, name, driver_spec)``:
    what an earlier partition of the step wrote, else the driver's value."""
    if spec[0] == "d":
        return spec[1][spec[2]]
    written = spec[1][1]
    return written[spec[2]] if spec[2] in written else _variable(spec[3])


def run_partition(digest: str, fetches: list[str], n_out: int, recv: list[tuple],
                  variables: list[tuple], *after) -> tuple[list, dict]:
    """Run graph ``digest``: feed ``recv`` (name, spec), load ``variables`` (name, spec).

    Returns the first ``n_out`` fetched values and ``{variable: new value}`` for each
    variable the run assigned.  ``after``: results of partitions that must finish first.
    """
    sess, lock = _session(digest)
    shipped = {name: _variable(spec) for name, spec in variables}
    feeds = {name: _value(spec) for name, spec in recv}
    with lock:                          # one run at a time: the plan binds this state dict
        store = sess.state.variables
        store.clear()
        store.update(shipped)
        try:
            out = sess.run(fetches, feeds)
            writes = {k: v for k, v in store.items() if shipped.get(k) is not v}
        finally:
            store.clear()
    return out[:n_out], writes


def shard_values(result: tuple, weight: float, rules: tuple[str, ...]) -> list:
    """One shard's fetched values, ready to sum: ``mean`` ones scaled by the shard's share."""
    out, writes = result
    if writes:
        raise ValueError(f"a run split over batch chunks cannot assign variables (it assigned "
                         f"{sorted(writes)}); fetch gradients instead, or use data_parallel()")
    return [(np.asarray(v) * weight).astype(np.result_type(v), copy=False) if r == "mean" else v
            for v, r in zip(out, rules)]


def run_shard(weight: float, rules: tuple[str, ...], *args) -> list:
    """:func:`run_partition` on one batch chunk, its values ready to sum (one task)."""
    return shard_values(run_partition(*args), weight, rules)


def merge_values(a: list, b: list, rules: tuple[str, ...]) -> list:
    """Two partial results combined: sums add, per-example values concatenate (a before b)."""
    return [np.concatenate([x, y]) if r == "concat" else np.add(x, y) for x, y, r in zip(a, b, rules)]


def hold(value: Any) -> Any:
    """Driver values as a task result (recomputable when its worker dies)."""
    return value


def compile_counts() -> dict[str, int]:
    """Per loaded graph digest, how many plans this worker compiled (a check for tests)."""
    return {d: s.compile_count for d, (s, _) in _LOADED.items()}

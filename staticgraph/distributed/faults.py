"""A deterministic worker failure, for testing recovery: kill the worker that starts a step.

``KillOnStep(victim)`` is a Dask ``WorkerPlugin``: on the worker at address
``victim`` (or every worker, ``victim=None``) the first task of a staticgraph
step that starts executing kills its process with SIGKILL -- mid-step, at a
known point, without sleeping or timing races.  A nanny restarts the process
under a new address, where the plugin (re-installed by the scheduler) kills
again only when ``victim`` is None.

    >>> client.register_plugin(KillOnStep(victim="tcp://127.0.0.1:40000"))  # doctest: +SKIP
"""
from __future__ import annotations

import os
import signal

from distributed.diagnostics.plugin import WorkerPlugin

__all__ = ["KillOnStep"]


class KillOnStep(WorkerPlugin):
    """Kill the worker at address ``victim`` (None: any) when it starts executing a step task."""

    name = "staticgraph-kill-on-step"

    def __init__(self, victim=None, prefix: str = "staticgraph-step"):
        self.victim, self.prefix = victim, prefix
        self._armed = False

    def setup(self, worker) -> None:
        self._armed = self.victim is None or worker.address == self.victim

    def transition(self, key, start: str, finish: str, **kwargs) -> None:
        if self._armed and finish == "executing" and str(key).startswith(self.prefix):
            os.kill(os.getpid(), signal.SIGKILL)

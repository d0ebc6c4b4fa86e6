"""A deterministic worker failure, for testing recovery: kill the worker that starts a step.

``KillOnStep`` is a Dask ``WorkerPlugin``: a worker that starts executing a
task of a staticgraph step kills its own process with SIGKILL -- mid-step, at
a known point, without sleeping or timing races.  Which worker dies:

* ``once=path``: the first worker to start a step task, exactly once in the
  cluster (it creates ``path`` exclusively and writes its address there first);
* ``victim=address``: that worker only (a nanny restarts it under a new address);
* neither: every worker, every time (a step that cannot complete).

    >>> client.register_plugin(KillOnStep(once="/tmp/killed"))    # doctest: +SKIP
"""
from __future__ import annotations

import os
import signal

from distributed.diagnostics.plugin import WorkerPlugin

__all__ = ["KillOnStep"]


class KillOnStep(WorkerPlugin):
    """Kill a worker when it starts executing a step task (see the module docstring)."""

    name = "staticgraph-kill-on-step"

    def __init__(self, victim: str | None = None, once: str | None = None,
                 prefix: str = "staticgraph-step"):
        self.victim, self.once, self.prefix = victim, once, prefix
        self._address = None

    def setup(self, worker) -> None:
        self._address = worker.address

    def transition(self, key, start: str, finish: str, **kwargs) -> None:
        if finish != "executing" or not str(key).startswith(self.prefix):
            return
        if self.victim is not None and self._address != self.victim:
            return
        if self.once is not None:
            try:
                fd = os.open(self.once, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, str(self._address).encode())
            os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)

"""Which Session a ``target`` gets: a dask ``Client`` or a scheduler address
(``Session(target="tcp://host:8786")``) gets a :class:`~.distributed.DistributedSession`.

``session.py`` cannot import ``distributed/``: a DistributedSession is a Session (it builds on
``session.py``), and dask is an optional extra, imported only when a target asks for it.  So
this module, above both, registers with :func:`.session.register_target` how such a target
makes its Session; the package imports it.
"""
from __future__ import annotations

from typing import Any

from .session import SCHEDULER_SCHEMES, Session, register_target

__all__ = ["distributed_session_class"]


def distributed_session_class(target: Any) -> type[Session] | None:
    """DistributedSession for anything but a string (a dask ``Client``) or a scheduler address."""
    if not isinstance(target, str) or target.startswith(SCHEDULER_SCHEMES):
        from .distributed import DistributedSession  # dask: an optional extra, loaded when asked for
        return DistributedSession
    return None


register_target(distributed_session_class)

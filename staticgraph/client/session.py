"""``Session``: compile a run's signature once, then execute the cached plan.

::

    run(fetches, feed_dict)
      key = (fetch structure, feed keys)          graph.version change -> cache cleared
      miss: resolve names, flatten fetches, compile_plan(...)   <- all graph work is here
      hit:  convert/validate feeds -> plan.fn(*fed) -> rebuild the fetch structure
    fast path (flat fetches, once compiled): the same fetches object (or a list equal to it)
      and the same feed keys in order skip the key entirely: one dict lookup by id(fetches),
      then plan.fn (a signature's first runs are interpreted, on the general path)

``compile_count`` counts cache misses, so tests (and users) can see that a
steady loop of ``run`` calls does no graph work.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from ..compiler.passes.manager import PassConfig
from ..compiler.pipeline import Executable, compile_plan
from ..framework.graph import (Graph, Operation, Tensor, default_session, get_default_graph,
                               get_default_session, session_stack as _session_stack)
from ..framework.kinds import SessionState, intra_op_threads
from ..util.nest import flatten_dict_items, flatten_with_rebuild

__all__ = ["Session", "InteractiveSession", "get_default_session", "default_session",
           "register_target", "SCHEDULER_SCHEMES"]

SCHEDULER_SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")
"""The dask scheduler addresses a ``target`` may be (``client/targets.py``,
``distributed.is_dask_target``)."""

_TARGETS: list[Callable[[Any], "type[Session] | None"]] = []
"""For a non-empty ``target``: the Session class it asks for, or None (not this kind of
target).  Filled by :func:`register_target` (``client/targets.py``: dask targets)."""


def register_target(session_class: Callable[[Any], "type[Session] | None"]) -> None:
    """Let ``Session(target=...)`` make ``session_class(target)``'s Session when it is not None
    (the classes live above this module: they subclass Session)."""
    _TARGETS.append(session_class)


def _fetch_key(fetches: Any) -> Any:
    """A hashable image of the fetch structure (tensors/ops by identity)."""
    if isinstance(fetches, (Tensor, Operation, str)):
        return fetches
    if isinstance(fetches, dict):
        return (type(fetches), tuple((k, _fetch_key(v)) for k, v in fetches.items()))
    if isinstance(fetches, (list, tuple)):
        return (type(fetches), tuple(_fetch_key(v) for v in fetches))
    el = getattr(fetches, "_as_graph_element", None)
    if el is not None:
        return el()
    kind = type(fetches).__name__
    if fetches is None:
        raise TypeError(f'Argument `fetch` = None has invalid type "{kind}". Cannot be None')
    raise TypeError(f'Argument `fetch` = {fetches!r} has invalid type "{kind}" must be a string or '
                    f"Tensor. (Can not convert a {kind} into a Tensor or Operation.)")


def _run_key(fetches: Any) -> Any:
    """The fetch part of a cache key: cheap for a Tensor or a flat list/tuple of Tensors."""
    cls = fetches.__class__
    if cls is Tensor:
        return fetches
    if cls is list or cls is tuple:
        for f in fetches:
            if f.__class__ is not Tensor:
                return _fetch_key(fetches)
        return (cls, *fetches)
    return _fetch_key(fetches)


_FLAT = frozenset({Tensor, Operation, str})   # fetches compared by identity (str: by value)


class _Feed:
    """Converts and validates one fed value against its tensor's static dtype and shape."""

    __slots__ = ("tensor", "dtype", "shape", "exact")

    def __init__(self, tensor: Tensor):
        self.tensor = tensor
        self.dtype = tensor.np_dtype
        self.shape = tensor._shape
        self.exact = self.shape is not None and None not in self.shape

    def __call__(self, value: Any) -> np.ndarray:
        if isinstance(value, Tensor):
            raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed "
                            "values include Python scalars, strings, lists, numpy ndarrays, or "
                            "TensorHandles.")
        a = self._convert(value)
        if self.exact:
            if a.shape != self.shape:
                self._refuse(a)
        elif self.shape is not None and (a.ndim != len(self.shape) or any(
                d is not None and d != n for d, n in zip(self.shape, a.shape))):
            self._refuse(a)
        return a

    def _convert(self, value: Any) -> np.ndarray:
        """``value`` in the feed's dtype -- refused if that would silently change it."""
        try:
            raw = np.asarray(value)
        except ValueError as e:  # ragged nested lists
            raise ValueError(f"Cannot feed value for Tensor {self.tensor.name}: {e}") from None
        want, got = self.dtype.kind, raw.dtype.kind
        if (got in "OSUV" and want not in "OSUV" or got == "c" and want != "c"
                or got == "f" and want in "iub" and not np.all(raw == np.trunc(raw))):
            raise TypeError(f"Type of feed value {raw.dtype.name} {_short(value)} is not compatible "
                            f"with Tensor {self.tensor.name} of type {self.tensor.dtype.name}: it "
                            f"would not convert exactly (cast it first if that is intended).")
        return raw.astype(self.dtype, copy=False)

    def _refuse(self, a: np.ndarray):
        raise ValueError(f"Cannot feed value of shape {a.shape} for Tensor {self.tensor.name}, "
                         f"which has shape {self.tensor.shape}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Compiled:
    """A cached run signature: its plan (interpreted first, compiled once it keeps running:
    see :class:`compiler.Executable`) and how to rebuild the fetch structure."""

    __slots__ = ("exe", "rebuild")

    def __init__(self, exe: Executable, rebuild):
        self.exe, self.rebuild = exe, rebuild


class Session:
    """Runs (parts of) a graph; holds variable values; caches one plan per run signature.

    ``target``: "" runs in this process; a dask ``Client`` or a scheduler address
    (``"tcp://host:8786"``) gives a :class:`staticgraph.client.distributed.DistributedSession`.
    """

    def __new__(cls, target: Any = "", graph: Graph | None = None, config=None):
        if cls is Session and target:
            for session_class in _TARGETS:
                found = session_class(target)
                if found is not None:
                    return super().__new__(found)
        return super().__new__(cls)

    def __init__(self, target: str = "", graph: Graph | None = None, config=None):
        """``config``: a :class:`compiler.PassConfig` choosing the optimisation passes for this
        Session's plans; a TF ConfigProto is accepted (the first Session's
        ``intra_op_parallelism_threads`` sizes the process's pool: :func:`intra_op_threads`)."""
        self.graph = graph or get_default_graph()
        self.passes = config if isinstance(config, PassConfig) else None
        self.state = SessionState(intra_op_threads(config))
        self.compile_count = 0
        self._cache: dict = {}
        self._fast: dict = {}   # id(fetches) -> (class, copy, feed keys, graph version, fn, exe)
        self._version = self.graph.version
        self._closed = False
        self._lock = threading.Lock()

    # --- the hot path ----------------------------------------------------------------
    def run(self, fetches: Any, feed_dict: dict | None = None, options=None, run_metadata=None):
        """Evaluate ``fetches`` (any nesting of tensors/ops/names) given ``feed_dict``.

        All or nothing for variables: when a run raises, whatever raised -- an op's error
        after some assignments ran, an unfed placeholder, a ``py_func``, a ``while_loop``
        body, a numpy floating-point error that ``np.seterr`` makes an exception,
        ``tf.debugging.enable_check_numerics`` stopping a write -- every variable holds the
        value it held before the run, and one the run initialized is uninitialized again.
        TF promises less: there a failed run keeps the assignments that ran.  Not rolled
        back, as in TF: other state the run consumed -- an iterator's elements, a random op's
        draws, a ``tf.Print``'s ``first_n`` count.  A run started inside this one (by a
        ``py_func``) is a run of its own: what it wrote stays.  A run that writes no
        variable pays nothing for this; one that does holds each variable's previous array
        until it returns (:mod:`staticgraph.compiler.rollback`).
        """
        hit = self._fast.get(id(fetches))
        if (hit is not None and hit[0] is fetches.__class__ and hit[1] == fetches
                and hit[3] == self.graph.version and hit[2] == (tuple(feed_dict) if feed_dict else ())):
            try:
                return hit[4](*feed_dict.values()) if feed_dict else hit[4]()
            except Exception as e:  # noqa: BLE001  (re-raised naming the node that failed)
                hit[5].reraise(e)
        return self._run(fetches, feed_dict)

    def _run(self, fetches: Any, feed_dict: dict | None) -> Any:
        """The general path: the signature's cache key, compiling on a miss."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self.graph.version != self._version:
            self._cache.clear()
            self._fast.clear()
            self._version = self.graph.version
        if feed_dict and any(k.__class__ is not Tensor and isinstance(k, tuple) for k in feed_dict):
            feed_dict = flatten_dict_items(feed_dict)   # keyed by a structure of tensors
        key = (_run_key(fetches), tuple(feed_dict) if feed_dict else ())
        c = self._cache.get(key)
        if c is None:
            c = self._compile_once(key, fetches, feed_dict or {})
        exe = c.exe
        try:
            out = exe.fn(*feed_dict.values()) if feed_dict else exe.fn()
        except Exception as e:  # noqa: BLE001  (re-raised naming the node that failed)
            exe.reraise(e)
        if c.rebuild is None and exe.compiled:   # (only compiled plans take the fast path)
            self._remember(fetches, key[1], c)
        return out if c.rebuild is None else c.rebuild(out)

    def _remember(self, fetches: Any, feed_keys: tuple, c: "_Compiled") -> None:
        """Put a flat signature on the fast path: keyed by the fetches object's ``id``, checked
        by content (a copy of a list, so changing it in place misses), feed keys in order
        and graph version.  Bounded: code making a new fetch list per call still hits when
        Python reuses the list's address, and otherwise cannot grow it past 64 entries."""
        cls = fetches.__class__
        if cls is list or cls is tuple:
            if any(f.__class__ not in _FLAT for f in fetches):
                return
            snapshot = list(fetches) if cls is list else fetches
        elif cls in _FLAT:
            snapshot = fetches
        else:
            return
        if len(self._fast) >= 64:
            self._fast.clear()
        self._fast[id(fetches)] = (cls, snapshot, feed_keys, self._version, c.exe.fn, c.exe)

    # --- compilation (once per signature) ---------------------------------------------
    def _compile_once(self, key: Any, fetches: Any, feed_dict: dict) -> "_Compiled":
        """Compile under a lock, re-checking the cache: threads racing on a new signature
        compile it once (runs themselves take no lock)."""
        with self._lock:
            c = self._cache.get(key)
            if c is None:
                c = self._cache[key] = self._compile(fetches, feed_dict)
            return c

    def _compile(self, fetches: Any, feed_dict: dict) -> _Compiled:
        """All graph work of a run signature: resolve, flatten, compile (with feed guards)."""
        self.compile_count += 1
        feeds = [_Feed(self._feed_tensor(k)) for k in feed_dict]
        flat: list = []
        rebuild = flatten_with_rebuild(fetches, self.graph.as_graph_element, flat)
        for t in flat:
            if not self.graph.is_fetchable(t):
                shown = t.op if isinstance(t, Tensor) else t
                raise ValueError(f"Operation {shown.name!r} has been marked as not fetchable.")
            if isinstance(t, Tensor) and t.op.type == "VarHandleOp":
                raise TypeError(f"Fetching {t.name}, the resource handle of variable "
                                f"'{t.op.name}', gives no value here (TF returns the handle's "
                                f"bytes); fetch the variable object or its read, "
                                f"'{t.op.name}/Read/ReadVariableOp:0'")
        if not isinstance(fetches, (list, tuple, dict)):
            container, rebuild = "single", None
        elif type(fetches) in (list, tuple) and all(isinstance(f, (Tensor, Operation, str))
                                                    for f in fetches):
            container, rebuild = type(fetches).__name__, None
        else:
            container = "tuple"
        exe = compile_plan(flat, [f.tensor for f in feeds], self.state, container, guards=feeds,
                           optimize=self.passes)
        return _Compiled(exe, rebuild)

    def _feed_tensor(self, key: Any) -> Tensor:
        try:
            t = self.graph.as_graph_element(key)
        except (KeyError, ValueError, TypeError) as e:
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e}") from None
        if not isinstance(t, Tensor):
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {key!r} is an Operation.")
        if not self.graph.is_feedable(t):
            raise ValueError(f"Tensor {t.name} may not be fed.")
        return t

    def explain(self, fetches: Any, feed_dict: dict | None = None) -> str:
        """What ``run(fetches, feed_dict)`` executes: the pass report, the generated source, and
        the generated source of each loop/branch kernel it calls, nested under it."""
        return self.compiled(fetches, feed_dict).explain()

    def compiled(self, fetches: Any, feed_dict: dict | None = None) -> Executable:
        """The compiled plan for this run signature (``.source``, ``.report``, ``.plan``)."""
        key = (_run_key(fetches), tuple(feed_dict) if feed_dict else ())
        c = self._cache.get(key) or self._compile(fetches, feed_dict or {})
        return c.exe

    # --- lifecycle -------------------------------------------------------------------
    def close(self) -> None:
        self._closed = True
        self._cache.clear()
        self._fast.clear()
        self.state.variables.clear()
        self.state.resources.clear()

    def as_default(self):
        return _DefaultSession(self)

    def __enter__(self) -> "Session":
        _session_stack.append(self)
        self._graph_ctx = self.graph.as_default()
        self._graph_ctx.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._graph_ctx.__exit__(*exc)
        _session_stack.remove(self)
        self.close()


class _DefaultSession:
    def __init__(self, sess: Session):
        self.sess = sess

    def __enter__(self) -> Session:
        _session_stack.append(self.sess)
        return self.sess

    def __exit__(self, *exc) -> None:
        _session_stack.remove(self.sess)


class InteractiveSession(Session):
    """A Session that installs itself as the default one (for ``t.eval()`` at a prompt)."""

    def __init__(self, target: str = "", graph: Graph | None = None, config=None):
        super().__init__(target, graph, config)
        _session_stack.append(self)

    def close(self) -> None:
        if self in _session_stack:
            _session_stack.remove(self)
        super().close()

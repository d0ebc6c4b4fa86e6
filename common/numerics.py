"""Opt-in NaN/Inf checking for every registry op, in both engines, free when off.

::

    checking off:  REGISTRY["Log"].impl is np.log                    (nothing added, anywhere)
    checking on:   REGISTRY["Log"].impl is checked(np.log)           (one isfinite per float result)

Both engines call ``op.impl`` (the eager engine on every op, the static one
when it compiles a plan), so swapping the impls is the whole mechanism: no
flag is read on any hot path while checking is off.  The first op whose float
result holds a NaN or an Inf raises :class:`NonFiniteError` naming the op;
the engines add their context (dyngraph: the user's line; staticgraph: the
node name and creation site).  Backward passes run the same impls, so a
gradient that turns NaN is caught at the op of the rule that produced it.

Enabling nests (a counter); it is process-wide, like PyTorch's anomaly mode.
"""
from __future__ import annotations

import threading
from typing import Callable

import numpy as np

from .registry import REGISTRY, OpDef

__all__ = ["NonFiniteError", "enable", "disable", "enabled"]


class NonFiniteError(FloatingPointError, RuntimeError):
    """An op produced NaN or Inf while numeric checking is on (a RuntimeError, as in PyTorch)."""


_lock = threading.Lock()
_depth = 0
_originals: dict[str, Callable] = {}


def enabled() -> bool:
    return _depth > 0


def enable() -> None:
    """Start checking every op's float results (nested calls need as many :func:`disable`)."""
    global _depth
    with _lock:
        if _depth == 0:
            for op in REGISTRY.values():
                _originals[op.name] = op.impl
                op.impl = _checked(op, op.impl)
        _depth += 1


def disable() -> None:
    """Undo one :func:`enable`; the last one restores the original impls."""
    global _depth
    with _lock:
        if _depth == 0:
            return
        _depth -= 1
        if _depth == 0:
            for op in REGISTRY.values():
                op.impl = _originals.pop(op.name, op.impl)


def _checked(op: OpDef, impl: Callable) -> Callable:
    def impl_checked(*args, **attrs):
        with np.errstate(all="ignore"):  # the check below reports it, precisely
            out = impl(*args, **attrs)
        values = np.asarray(out)
        if values.dtype.kind == "f" and not np.isfinite(values).all():
            raise NonFiniteError(_describe(op, values, args))
        return out
    impl_checked.__name__ = getattr(impl, "__name__", op.fname)
    impl_checked.__wrapped__ = impl
    return impl_checked


def _describe(op: OpDef, values: np.ndarray, args: tuple) -> str:
    nan, inf = int(np.isnan(values).sum()), int(np.isinf(values).sum())
    what = " and ".join(f"{n} {kind}" for n, kind in ((nan, "NaN"), (inf, "Inf")) if n)
    arrays = [np.asarray(a) for a in args if not isinstance(a, (str, bytes))]
    bad_inputs = any(a.dtype.kind == "f" and not np.isfinite(a).all() for a in arrays)
    origin = ("its inputs already held NaN/Inf (fed or initial values?)" if bad_inputs else
              "its inputs were all finite: this op produced them")
    return (f"op {op.name} produced {what} in its result of shape {list(values.shape)} "
            f"({values.size} values); {origin}")

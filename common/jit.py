"""When to use the compiled random-stream kernels (:mod:`common.random_jit`), and loading them.

numba makes the exact random streams as fast as numpy's own generators, but importing it
costs about half a second and its first call (machine code from the on-disk cache) a few
tenths more; compiling from scratch, once per machine, a few seconds.  A program that draws
a handful of small tensors should not pay that, so the kernels load on the first draw of
:data:`THRESHOLD` values or more -- from then on every draw uses them, small ones included
(about a microsecond a call instead of the numpy code's hundreds for ``randn(64)``).  Where
numba is not installed (it is the ``fast`` extra), the numpy code runs: the same bits.

>>> kernels(10) is None or kernels(10) is kernels(THRESHOLD)  # small: whatever is loaded
True
"""
from __future__ import annotations

import contextlib
import importlib
import os
from types import ModuleType
from typing import Iterator

__all__ = ["THRESHOLD", "kernels", "forced"]

THRESHOLD = 1 << 15
"""Values in one draw from which the kernels are loaded (the numpy code then takes ~10 ms)."""

_loaded: ModuleType | None = None
_available = os.environ.get("DYNGRAPH_NO_JIT", "") in ("", "0")
"""False once numba proved missing (or is switched off: ``DYNGRAPH_NO_JIT=1``)."""


def kernels(n: int) -> ModuleType | None:
    """The compiled kernels for a draw of ``n`` values, or None: use the numpy code."""
    if _loaded is not None or n < THRESHOLD or not _available:
        return _loaded
    return _load()


def _load() -> ModuleType | None:
    global _loaded, _available
    # numba vectorises libm calls through Intel's SVML when that library is installed: not
    # glibc's bits.  Switched off before numba reads its configuration (on first import).
    os.environ.setdefault("NUMBA_DISABLE_INTEL_SVML", "1")
    try:
        import numba
    except ImportError:
        _available = False
        return None
    if numba.config.USING_SVML:       # imported earlier by the program, with SVML on
        _available = False
        return None
    _loaded = importlib.import_module("common.random_jit")
    return _loaded


@contextlib.contextmanager
def forced(compiled: bool) -> Iterator[bool]:
    """Inside the block every draw, whatever its size, takes one path: the compiled kernels
    (``compiled=True``; yields False, and the numpy code runs, where numba is missing) or the
    numpy code.  Tests draw the recorded streams both ways."""
    global _loaded, _available
    saved = _loaded, _available
    if compiled:
        loaded = _load()
        _loaded, _available = loaded, loaded is not None
    else:
        _loaded, _available = None, False
    try:
        yield _loaded is not None
    finally:
        _loaded, _available = saved

"""When to use the compiled random-stream kernels (:mod:`common.random_jit`), and loading them.

numba makes the exact random streams as fast as numpy's own generators, but it costs CPU time
once per process: about 0.3 s to import and 0.3 s for its first call (the kernels' machine
code comes from numba's on-disk cache; compiling them from scratch, once per machine and
version of ``random_jit.py``, takes a few seconds per kernel).  A program that draws a few
small tensors should not pay that, so the kernels load on the first draw of
:data:`THRESHOLD` values or more -- from then on every draw uses them, small ones included
(a few microseconds a call instead of the numpy code's hundreds for ``randn(64)``).  Where
numba cannot load (a platform without its wheels), or ``RANDOM_STREAMS_NUMPY=1`` is set, the
numpy code runs: the same bits, slower.

The ops' own kernels (the fused cells', the convolution's) load the same way, each module on
the first op large enough to repay it: :func:`jit_module`.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sys
from types import ModuleType
from typing import Iterator

import numpy as np

__all__ = ["THRESHOLD", "kernels", "forced", "numba_module", "jit_module", "jit_module_if_loaded",
           "same_float", "KERNEL_DTYPES"]

THRESHOLD = 1 << 15
"""Values in one draw from which the kernels are loaded (the numpy code takes ~1-3 ms there)."""

_loaded: ModuleType | None = None
_available = os.environ.get("RANDOM_STREAMS_NUMPY", "") in ("", "0")
"""False once numba proved missing (or when switched off: ``RANDOM_STREAMS_NUMPY=1``)."""


def kernels(n: int) -> ModuleType | None:
    """The compiled kernels for a draw of ``n`` values, or None: use the numpy code."""
    if _loaded is not None or n < THRESHOLD or not _available:
        return _loaded
    return _load()


def numba_module() -> ModuleType | None:
    """numba, imported with Intel's SVML off; None where it is missing, or was imported
    earlier by the program with SVML on.  Every compiled kernel of the project (the random
    streams here, the static compiler's fused loops) loads numba through this."""
    # numba vectorises libm calls through Intel's SVML when that library is installed: not
    # glibc's bits.  Switched off before numba reads its configuration (on first import).
    os.environ.setdefault("NUMBA_DISABLE_INTEL_SVML", "1")
    try:
        import numba  # ~0.3 s to import: only when a caller needs compiled code
    except ImportError:
        return None
    return None if numba.config.USING_SVML else numba


KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
"""The dtypes the op kernels (:mod:`common.cells_jit`, :mod:`common.conv_jit`) are compiled for."""

JIT_MODULES: dict[str, ModuleType | None] = {}
"""Each op-kernel module by name once asked for: the module, or None where numba is missing
(tests set an entry to None to run the numpy code)."""


def jit_module(name: str) -> ModuleType | None:
    """The op-kernel module ``name`` (``"common.cells_jit"``...), imported -- and numba with it,
    through :func:`numba_module` -- on the first call, by the first op large enough to repay
    it; None where numba is missing: the op runs its numpy code."""
    try:
        return JIT_MODULES[name]
    except KeyError:
        module = importlib.import_module(name) if numba_module() is not None else None
        JIT_MODULES[name] = module
        return module


def jit_module_if_loaded(name: str) -> ModuleType | None:
    """:func:`jit_module` ``name`` once numba is imported (by the kernels that repay its
    ~0.3-0.6 s import: a convolution's, the fused cells', a fused plan's), else None without
    importing it: for loops that save a fraction of a millisecond per call (``ops_jit``),
    which would take hundreds of calls to repay the import themselves."""
    module = JIT_MODULES.get(name)
    if module is not None or name in JIT_MODULES:
        return module
    return jit_module(name) if "numba" in sys.modules else None


def same_float(*arrays) -> bool:
    """Are all ``arrays`` numpy arrays of one dtype of :data:`KERNEL_DTYPES` (what the op
    kernels take)?"""
    dtype = getattr(arrays[0], "dtype", None)
    return dtype in KERNEL_DTYPES and all(getattr(a, "dtype", None) == dtype for a in arrays)


def _load() -> ModuleType | None:
    """Import the kernels (None where numba is missing or would not give libm's bits)."""
    global _loaded, _available
    if numba_module() is None:
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

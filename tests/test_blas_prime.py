"""``import common`` primes OpenBLAS's float32 products once (see :mod:`common.blas`).

Not a timing test: what is checked is that the priming product ran at import, that it runs
once per process, and that its shapes give OpenBLAS's whole-panel packing over the region
later small products prefetch (the arithmetic of the module docstring, for Haswell/Zen's
``GEMM_P = GEMM_Q = 320``)."""
from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np

import common

PRIMED_BY_IMPORT = getattr(sys.modules.get("common.blas"), "primed", False)
"""Read before this file imports ``common.blas`` itself: did ``import common`` run it?"""

from common import blas  # noqa: E402


def test_import_primed():
    assert PRIMED_BY_IMPORT is True
    assert common.blas is blas and blas.primed is True


def test_prime_runs_once(monkeypatch):
    calls = []

    class Spy(np.ndarray):
        def __matmul__(self, other):
            calls.append(other.shape)
            return np.ndarray.__matmul__(self, other)

    monkeypatch.setattr(blas, "np", SimpleNamespace(
        float32=np.float32, zeros=lambda shape, dtype: np.zeros(shape, dtype).view(Spy)))
    blas.prime_sgemm()
    assert calls == []                    # primed at import: nothing more to do
    monkeypatch.setattr(blas, "primed", False)
    blas.prime_sgemm()
    assert calls == [blas.PRIME_SHAPES[1]] and blas.primed is True


def test_prime_shapes_cover_the_prefetched_region():
    (rows, k), (k2, cols) = blas.PRIME_SHAPES
    assert k == k2
    gemm_p = gemm_q = 320                 # OpenBLAS 0.3.x param.h, HASWELL and ZEN (x86_64)
    # numpy's a @ b is OpenBLAS's column-major b.T @ a.T: its m is cols, its n is rows
    assert cols > gemm_p                  # level3.c: l1stride = 1, whole panels packed
    min_l = gemm_q if k >= 2 * gemm_q else (k if k <= gemm_q else -(-(k // 2) // 8) * 8)
    assert min_l * rows >= 12 * gemm_q + gemm_p * gemm_q // 32   # floats written >= read ahead


def test_the_loop_pass_primes_scipys_copy():
    import staticgraph.compiler.passes.loops  # noqa: F401  (calls scipy's sgemm in loops)
    assert blas.scipy_primed is True

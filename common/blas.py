"""One float32 product at import, so OpenBLAS's small sgemm runs at full speed in every process.

Why.  numpy's OpenBLAS (scipy-openblas 0.3.31, core "Haswell", which AMD Zen uses too) runs
every small float32 product 1.5-3x slower in a process whose first products were small,
for as long as the process lives.  The cause is one prefetch in its sgemm kernel
(``kernel/x86_64/sgemm_kernel_8x4_haswell_2.c``, ``COMPUTE_n12``): while it multiplies one
packed 12-column panel of B it prefetches the *next* panel (``prefetcht1 (next_b)``,
``next_b = b + 12*K``).  When the product has at most ``GEMM_P = 320`` rows in OpenBLAS's
column-major terms (numpy's ``a @ b`` with ``b.shape[1] <= 320``), the level-3 driver
(``driver/level3/level3.c``, ``l1stride = 0``) packs each 12-column panel over the same spot at
the start of the B buffer, so that next panel is the 15-30 KB just past it: pages of the
per-thread 32 MB ``mmap`` buffer that nothing ever wrote.  A prefetch into a page that is not
mapped is dropped without faulting the page in and without filling the TLB, so every one
(hundreds per kernel call) pays a full page walk again -- a two-level one in a virtual machine.
A process whose first product had more than 320 rows packed whole panels, writing those pages
once; from then on the same prefetches are cheap.

The fix is that one wider product, done here once: ``[48, 512] @ [512, 544]`` of zeros.
544 > GEMM_P gives the whole-panel packing; it writes ``min_l * 48 >= 256 * 48`` floats of the
B buffer, more than the ``12*K + rows*K/32 <= 22 * GEMM_Q`` floats (``GEMM_Q = 320``) any later
small product reads or prefetches there (the margin covers GEMM_P < 544, GEMM_Q <= 1024).
With another BLAS it is a harmless product.

Measured (2 cores AMD EPYC (Zen 1), AVX2, in a VM; ``OPENBLAS_NUM_THREADS=1``; thread CPU
time in microseconds per float32 product, best of 7x20 calls, best of 6 processes that
imported ``common`` without and with this product):

    =====================  =====  =====
    shape                  cold   here
    =====================  =====  =====
    [32,512] @ [512,128]   393    136
    [32,128] @ [128,512]   201    135
    [64,784] @ [784,256]   2,342  810
    [50,160] @ [160,640]   574    342
    [32,512] @ [512,160]   179    176   (prefetch mostly within pages earlier products wrote)
    [16,64] @ [64,128]     13     12
    [128,27] @ [27,512]    124    121   (512 > GEMM_P columns: whole panels either way)
    =====================  =====  =====

Writing the pages after the first small product (ctypes) made it as fast, one page at a
time: +1 page 2,100 -> 1,700 us, +2 1,200, +4 820, +8 770; pages elsewhere in the buffer
did nothing.  float64 products (a different kernel) are the same either way.
scipy.linalg.blas has its own OpenBLAS copy with its own buffer and the same slow state; the
static compiler's loop pass calls its ``sgemm`` (in-place weight-gradient sums), so it primes
that copy too when it loads (:func:`prime_scipy_sgemm`: ``[160,32] @ [32,512]`` accumulated in
place, 241 -> 170 us).  The cost: ~3 ms CPU once (-X importtime: 3-8 ms wall, of
a ~5 s ``import common`` on the loaded machine); 2 ms of it the product, the rest OpenBLAS's
first-call setup, which a program's first product pays anyway.  Threads: this primes the
calling thread's buffer; with ``OPENBLAS_NUM_THREADS > 1`` the products OpenBLAS splits use the
workers' buffers too, which this product may leave unprimed (not measured: a loaded 2-core
machine cannot time it); the bench and tests run single-threaded.
"""
from __future__ import annotations

import numpy as np

__all__ = ["prime_sgemm", "prime_scipy_sgemm", "PRIME_SHAPES"]

PRIME_SHAPES: tuple[tuple[int, int], tuple[int, int]] = ((48, 512), (512, 544))
"""The operands' shapes of the one product (see the module docstring for the arithmetic)."""

primed = False
"""True once :func:`prime_sgemm` ran in this process (``import common`` runs it)."""

scipy_primed = False
"""True once :func:`prime_scipy_sgemm` ran in this process."""


def prime_sgemm() -> None:
    """Run the one priming float32 product, once per process (later calls return at once)."""
    global primed
    if primed:
        return
    a_shape, b_shape = PRIME_SHAPES
    np.zeros(a_shape, np.float32) @ np.zeros(b_shape, np.float32)
    primed = True


def prime_scipy_sgemm() -> None:
    """The same product through ``scipy.linalg.blas.sgemm`` (scipy's own OpenBLAS), once per
    process.  It is column-major: its ``a`` has the rows OpenBLAS packs, so the shapes are
    :data:`PRIME_SHAPES` transposed (``[544, 512] @ [512, 48]``)."""
    global scipy_primed
    if scipy_primed:
        return
    from scipy.linalg import blas        # (loaded by whoever calls this: the loop pass)
    a_shape, b_shape = PRIME_SHAPES
    blas.sgemm(1.0, np.zeros(b_shape[::-1], np.float32, order="F"),
               np.zeros(a_shape[::-1], np.float32, order="F"))
    scipy_primed = True


prime_sgemm()

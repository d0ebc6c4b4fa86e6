"""The one product entry point of both engines -- MKL where installed, numpy otherwise -- and
one float32 product at import, so OpenBLAS's small sgemm runs at full speed in every process.

Products.  :func:`matmul` (``a @ b``, the registry's ``MatMul`` itself) and :func:`gemm`
(``out = a @ b + beta * out`` in place: the static loop pass's weight-gradient sums, the
convolutions' GEMMs) run a float32 or float64 product on Intel's MKL (``cblas_?gemm``) when
the ``mkl`` wheel is installed (the ``[blas]`` extra) and the product is large enough, else
numpy's ``matmul``.  Operands of any strides: a transposed view (``w.T``, ``h.T``) is MKL's
``CblasTrans`` with no copy.  :mod:`common.blas_jit` calls MKL from numba-compiled code (a
ctypes call costs more than small products gain); the first product that runs on MKL loads
numba, MKL and the cached kernels, ~0.3 s of CPU once per process (0.13 s numba's import,
0.17 s the rest, measured).  MKL runs with the threads numpy's
OpenBLAS would use (``MKL_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``, the
CPUs): one thread is MKL's SEQUENTIAL layer (no OpenMP runtime loaded at all: checked in
``/proc/self/maps``), more the Intel OpenMP one (``libiomp5`` beside PyTorch's ``libgomp``:
both load, nothing breaks; their spinning pools may compete when a program interleaves
them).

PyTorch in the same process.  ``libmkl_rt`` loads its pieces (``libmkl_core``,
``libmkl_intel_lp64``...) into the process's global symbol scope itself, whatever mode
ctypes loads it with; PyTorch's ``libtorch_cpu`` carries a static MKL whose symbols it
exports, and its calls bind to the first definition: loaded after this MKL, ``torch.mm``
runs on the wheel's oneMKL 2026 Update 2 instead of its own 2024.0 Update 2 (``MKL_VERBOSE=1``);
loaded before, on its own.  The same functions either way, and no change measured (one
thread, 512x512x512 float32: 1.83 against 1.81 ms; the bench's LSTM is oneDNN's, not MKL's
BLAS).  Loading MKL into a namespace of its own (``dlmopen``) crashed on the first call.

Why MKL.  On this machine (2 vCPUs Sapphire Rapids, AVX-512, one thread, float32) numpy's
OpenBLAS (SkylakeX kernels) runs the project's product shapes at ~100 GFLOP/s, MKL (which
PyTorch links) at ~145: thread CPU time per product, best of 9x(2e6 / work) calls::

    ======================  =======  =======  =====
    shape (m x k x n)       numpy    MKL      ratio
    ======================  =======  =======  =====
    32 x 128 x 512 (LSTM)   39.8 us  27.9 us  0.70
    32 x 512 x 128          41.8     27.4     0.66
    64 x 784 x 256 (mlp)    207      152      0.73
    1600 x 32 x 512         538      359      0.67
    64 x 64 x 64            4.48     5.08     1.13   (through matmul: numpy keeps it)
    32 x 64 x 128           4.65     5.06     1.09
    64 x 128 x 128          19.1     14.7     0.77
    ======================  =======  =======  =====

float64: 0.6-0.8 from 32 x 64 x 128.  Below ``m * n * k`` of 2**20 (float32; 2**19 float64:
:data:`MIN_WORK`) the two are within the call's overhead of each other and numpy keeps the
product; an in-place sum (``gemm`` with ``beta`` 1) runs on MKL at any size: numpy needs a
temporary and an addition (``acc += s.T @ g``, 32 x 32 x 512: numpy 10.7 us, scipy's in-place
``sgemm`` 8.9, MKL 8.1; 20 x 20 x 1: 1.2 / 0.8 / 0.6 us).

Same bits every run.  Which library runs a product depends on its shapes and dtypes only (no
timing race); MKL's result does not depend on the operands' alignment (tested), and its
threads are fixed at load.  ``set_library("numpy")`` (or ``COMMON_BLAS=numpy`` in the
environment) runs every product on numpy: ``np.matmul``'s bits, ``out += a @ b`` for a sum.

Priming.  numpy's OpenBLAS (scipy-openblas 0.3.31, core "Haswell", which AMD Zen uses too) runs
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

import ctypes
import importlib.metadata as metadata
import os
import sys
from typing import Callable

import numpy as np

from .fastpath import jit_module

__all__ = ["prime_sgemm", "prime_scipy_sgemm", "PRIME_SHAPES", "matmul", "gemm", "matmul_for",
           "library", "set_library", "mkl_library", "mkl_path", "MIN_WORK", "ENV", "LIBRARIES"]

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


# --- one product entry point: MKL where installed, numpy otherwise ----------------------------

ENV = "COMMON_BLAS"
"""The environment variable choosing the library at import: ``numpy`` (numpy's bits
everywhere) or ``mkl`` (the default where the ``mkl`` wheel is installed)."""

LIBRARIES = ("mkl", "numpy")

MIN_WORK: dict[np.dtype, int] = {np.dtype(np.float32): 1 << 20, np.dtype(np.float64): 1 << 19}
"""``m * n * k`` (per matrix of a stack) from which a product into a new array runs on MKL:
below it numpy's ``matmul``, as fast there (see the module docstring).  A product accumulated
in place (:func:`gemm` with ``beta`` not 0) runs on MKL at any size."""

_NEVER = 1 << 62
_LEAST = min(MIN_WORK.values())         # the least MIN_WORK: below it no dtype is looked up
_THREADING = {"intel": 0, "sequential": 1, "gnu": 3, "tbb": 4}    # MKL_THREADING_*
_mkl: ctypes.CDLL | None | bool = False          # False: not looked for yet
_library: str | None = None                      # None: not chosen yet
_jit = None                                      # common.blas_jit once loaded


def mkl_path() -> str | None:
    """Where the installed ``mkl`` wheel put ``libmkl_rt`` (from the distribution's file
    list), else ``sys.prefix``'s ``lib``; None when neither has it."""
    names = ("libmkl_rt.so", "mkl_rt.", "libmkl_rt.")
    try:
        files = metadata.distribution("mkl").files or []
    except metadata.PackageNotFoundError:
        files = []
    for f in files:
        if f.name.startswith(names) and not f.name.endswith((".a", ".lib", ".dbg")):
            path = os.path.realpath(f.locate())
            if os.path.exists(path):
                return path
    lib = os.path.join(sys.prefix, "lib")
    found = sorted(n for n in os.listdir(lib) if n.startswith("libmkl_rt.so")) \
        if os.path.isdir(lib) else []
    return os.path.join(lib, found[-1]) if found else None


def _threads() -> int:
    """MKL's threads: ``MKL_NUM_THREADS``, else what numpy's OpenBLAS runs with by default:
    ``OPENBLAS_NUM_THREADS``, else ``OMP_NUM_THREADS``, else the CPUs this process may run
    on."""
    for name in ("MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        try:
            n = int(os.environ.get(name, "").split(",")[0])
        except ValueError:
            continue
        if n > 0:
            return n
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                                  # (not on Linux)
        return os.cpu_count() or 1


def mkl_library() -> ctypes.CDLL | None:
    """MKL's ``libmkl_rt``, loaded once and set up -- the 32-bit
    integer interface, and with one thread MKL's SEQUENTIAL layer (no OpenMP runtime beside
    numpy's or PyTorch's), else the Intel OpenMP layer with :func:`_threads` threads; a
    ``MKL_THREADING_LAYER`` of the environment wins.  None where it is not installed or does
    not load."""
    global _mkl
    if _mkl is not False:
        return _mkl
    path = mkl_path()
    lib = None
    if path is not None:
        try:
            lib = ctypes.CDLL(path)
            lib.MKL_Set_Interface_Layer.argtypes = [ctypes.c_int]
            lib.MKL_Set_Threading_Layer.argtypes = [ctypes.c_int]
            lib.MKL_Set_Num_Threads.argtypes = [ctypes.c_int]
            lib.MKL_Set_Interface_Layer(0)                  # MKL_INTERFACE_LP64
            threads = _threads()
            if "MKL_THREADING_LAYER" not in os.environ:
                lib.MKL_Set_Threading_Layer(_THREADING["sequential" if threads == 1 else "intel"])
            lib.MKL_Set_Num_Threads(threads)
        except (OSError, AttributeError):
            lib = None
    _mkl = lib
    return lib


def library() -> str:
    """The library float products from :data:`MIN_WORK` run on: ``"mkl"`` or ``"numpy"``.
    The default (:data:`ENV` unset or ``mkl``): MKL where the ``mkl`` wheel is installed and
    numba loads; looked for on the first such product (or here)."""
    global _library
    if _library is None:
        _library = "mkl" if mkl_library() is not None else "numpy"
        if _library == "numpy":
            _select("numpy")
    return _library


def set_library(name: str) -> None:
    """Run float products on ``name`` from now on: ``"numpy"`` (numpy's bits everywhere) or
    ``"mkl"`` (an error where the ``mkl`` wheel is not installed)."""
    global _library
    if name not in LIBRARIES:
        raise ValueError(f"set_library: {name!r} is not one of {LIBRARIES}")
    if name == "mkl" and mkl_library() is None:
        raise RuntimeError("set_library('mkl'): MKL's libmkl_rt is not installed "
                           "(pip install mkl, or the project's [blas] extra)")
    _library = name
    _select(name)
    if name == "mkl" and _jit is not None:
        _fill(_jit)


def _select(name: str) -> None:
    """Point the kernel tables at ``name``'s products (MKL's loaded by the first one)."""
    for table in _KERNELS:
        table.clear()
    if name == "mkl":
        for dtype in MIN_WORK:
            for table, first in zip(_KERNELS, _FIRST):
                table[dtype] = first


def _fill(jit) -> None:
    for table, name in zip(_KERNELS, _NAMES):
        table.update(dict.fromkeys(MIN_WORK, getattr(jit, name)))


def _load():
    """``common.blas_jit`` (numba and MKL's products), once, its kernels in the tables; None
    (and numpy the library) where MKL or numba is missing."""
    global _jit, _library
    if _jit is None and library() == "mkl":
        _jit = jit_module("common.blas_jit")
        if _jit is None:
            _library = "numpy"
            _select("numpy")
    if _jit is not None and _library == "mkl":
        _fill(_jit)
        return _jit
    return None


def _first(name: str, failed) -> Callable:
    """A table's entry until MKL's products are loaded: load them, then run ``name``."""
    def first(*args):
        jit = _load()
        return failed if jit is None else getattr(jit, name)(*args)
    first.__name__ = f"first_{name}"
    return first


_GEMM: dict[np.dtype, Callable] = {}
"""dtype -> MKL's in-place ``c = a @ b + beta * c`` of matrices (False: use numpy); empty
while numpy is the library."""
_GEMM_STACK: dict[np.dtype, Callable] = {}
"""Likewise for stacks of matrices."""
_KERNELS = (_GEMM, _GEMM_STACK)
_NAMES = ("gemm", "gemm_stack")
_FIRST = (_first("gemm", False), _first("gemm_stack", False))


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (numpy's ``matmul`` semantics): on MKL (the library, :func:`library`) for two
    float32 or two float64 matrices -- or stacks of as many matrices (3-D) -- with ``m * n *
    k >= MIN_WORK``, of any strides (transposed views without a copy); numpy's ``matmul``
    otherwise.  A new C-contiguous array.

    A stack of matrices times one matrix is ONE product: numpy multiplies such a stack matrix
    by matrix, ~10x slower (float32 16x32x128 @ 128x128: 157 ms against 15 ms folded,
    measured) -- every ``Linear`` on a sequence is this product.  A stack that is a permuted
    view is copied first (a copy costs a few percent of the product it saves).  (The registry's
    ``MatMul`` runs this itself, no call between.)  Small products leave at once, ``m * n * k
    <= a.size * b.size``: 15-45 ns more than the former impl (which only tested for the fold)
    a product of 20x20 by 20x1 (747-754 against 707-732 ns, measured)."""
    if a.ndim > 2 and b.ndim == 2 and a.shape[-1] and a.size:
        return matmul(a.reshape(-1, a.shape[-1]), b).reshape(*a.shape[:-1], b.shape[-1])
    if a.size * b.size < _LEAST:
        return np.matmul(a, b)
    if b.ndim == 2:
        if a.ndim == 2:
            m, k = a.shape
            n = b.shape[1]
            dtype = a.dtype
            if m * k * n >= MIN_WORK.get(dtype, _NEVER) and b.dtype == dtype:
                kernel = _GEMM.get(dtype)
                if kernel is not None:
                    c = np.empty((m, n), dtype)
                    if kernel(a, b, c, 0.0):
                        return c
    elif b.ndim == 3 and a.ndim == 3 and a.shape[1] * a.shape[2] * b.shape[2] >= _LEAST:
        return _large(a, b, _GEMM_STACK)
    return np.matmul(a, b)


def _large(a: np.ndarray, b: np.ndarray, kernels: dict) -> np.ndarray:
    """``a @ b`` of two matrices or two stacks of ``_LEAST`` work or more: MKL's when the
    dtypes and :data:`MIN_WORK` say so, into a result numpy allocates."""
    kernel = kernels.get(a.dtype)
    if kernel is not None and b.dtype == a.dtype and a.shape[:-2] == b.shape[:-2] and \
            a.shape[-2] * a.shape[-1] * b.shape[-1] >= MIN_WORK[a.dtype]:
        c = np.empty(a.shape[:-1] + b.shape[-1:], a.dtype)
        if kernel(a, b, c, 0.0):
            return c
    return np.matmul(a, b)


def gemm(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None, *,
         beta: float = 0.0) -> np.ndarray:
    """``out = a @ b + beta * out`` written into ``out`` and returned (``out`` None: ``a @ b``,
    a new array).  Matrices, or stacks of as many matrices (3-D) and no broadcasting, of any
    strides; ``out`` row- or column-major (a transposed view: ``acc.T``), sharing no memory
    with ``a`` or ``b`` (not checked: BLAS writes it while reading them).  With ``beta`` 0
    what ``out`` held is not read (NaN included), as in BLAS.  On MKL (the library) for one
    float dtype throughout -- at any size with ``beta`` not 0 (in place: no temporary), from
    :data:`MIN_WORK` with ``beta`` 0 -- else numpy's bits: ``np.matmul(a, b, out=out)``, or
    ``out *= beta; out += a @ b``."""
    if out is None:
        if beta != 0:
            raise ValueError("gemm: beta needs an out to scale")
        return matmul(a, b)
    dtype = out.dtype
    if a.dtype == dtype and b.dtype == dtype and a.ndim == b.ndim == out.ndim and \
            out.flags.writeable:
        if beta == 0:
            work = a.shape[-2] * a.shape[-1] * b.shape[-1]
            go = work >= MIN_WORK.get(dtype, _NEVER)
        else:
            go = True
        if go:
            kernel = (_GEMM if a.ndim == 2 else _GEMM_STACK if a.ndim == 3 else {}).get(dtype)
            if kernel is not None and kernel(a, b, out, beta):
                return out
    if beta == 0:
        return np.matmul(a, b, out=out)
    if beta != 1:
        out *= beta
    out += np.matmul(a, b)
    return out


def matmul_for(a_shape: tuple | None, b_shape: tuple | None) -> Callable:
    """The product function for operands of these (static, maybe partly unknown) shapes:
    numpy's ``matmul`` itself for matrices known to be below every :data:`MIN_WORK` or for
    operands known not to be two matrices or two stacks (no Python call between),
    :func:`matmul` otherwise (it decides per call: the library may change after a graph is
    compiled)."""
    if a_shape is None or b_shape is None:
        return matmul
    if len(a_shape) != len(b_shape) or len(a_shape) not in (2, 3):
        return np.matmul
    m, k, n = a_shape[-2], a_shape[-1], b_shape[-1]
    if m is not None and k is not None and n is not None and m * k * n < min(MIN_WORK.values()):
        return np.matmul
    return matmul


_wanted = os.environ.get(ENV, "").strip().lower() or "mkl"
if _wanted not in LIBRARIES:
    raise ValueError(f"{ENV}={os.environ[ENV]!r}: not one of {LIBRARIES}")
if _wanted == "numpy":
    _library = "numpy"
else:
    _select("mkl")              # MKL looked for (and loaded) by the first large product

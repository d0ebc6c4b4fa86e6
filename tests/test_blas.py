"""``common.blas``'s one product entry point: MKL where installed, numpy otherwise.

What is checked: MKL's products agree with numpy's within float rounding over shapes,
layouts (transposed views, strided slices, empty, one row), ``beta`` and dtypes; the choice
of library is by size and dtype only (the same bits every run, whatever the operands'
alignment); ``set_library("numpy")`` and ``COMMON_BLAS=numpy`` give numpy's own bits; without
MKL everything runs on numpy; shape errors are numpy's (the static engine's error text reads
them); the loop pass emits the MKL product for large shapes only."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from common import blas

HAVE_MKL = blas.mkl_library() is not None
needs_mkl = pytest.mark.skipif(not HAVE_MKL, reason="the mkl wheel is not installed "
                               "(the project's [blas] extra, in [dev])")
RTOL = {np.float32: 2e-5, np.float64: 1e-12}
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def everywhere(monkeypatch):
    """MKL for every float product, whatever its size (MKL the library while the test runs)."""
    for dtype in list(blas.MIN_WORK):
        monkeypatch.setitem(blas.MIN_WORK, dtype, 0)
    monkeypatch.setattr(blas, "_LEAST", 0)
    previous = blas.library()
    blas.set_library("mkl")
    yield
    blas.set_library(previous)


def _layouts(x: np.ndarray) -> dict:
    """``x`` as the same values in several memory layouts."""
    rows, cols = x.shape
    wide = np.zeros((rows, 2 * cols + 3), x.dtype)
    wide[:, 1:2 * cols + 1:2] = x                           # every other column: neither order
    padded = np.zeros((rows, cols + 5), x.dtype)
    padded[:, 2:2 + cols] = x                               # row-major, a larger stride
    return {"c": x.copy(), "f": np.asfortranarray(x), "t": np.ascontiguousarray(x.T).T,
            "strided": wide[:, 1:2 * cols + 1:2], "padded": padded[:, 2:2 + cols]}


SHAPES = [(3, 4, 5), (1, 7, 6), (6, 7, 1), (1, 1, 1), (0, 3, 4), (3, 0, 4), (3, 4, 0),
          (33, 65, 130), (64, 128, 512)]


def _close(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max(initial=0)))
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=RTOL[dtype] * scale)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_mkl_agrees_with_numpy_on_every_layout(everywhere, dtype, m, k, n):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    want = a @ b
    for la, a2 in _layouts(a).items():
        for lb, b2 in _layouts(b).items():
            got = blas.matmul(a2, b2)
            assert got.flags.c_contiguous, (la, lb)
            _close(got, want, dtype)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("beta", [0.0, 1.0, 0.5])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_gemm_into_out_with_beta(everywhere, dtype, beta, m, k, n):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((k, m)).astype(dtype).T           # a transposed view
    b = rng.standard_normal((k, n)).astype(dtype)
    start = rng.standard_normal((m, n)).astype(dtype)
    want = a @ b + beta * start if beta else a @ b
    for order in "CF":
        out = np.array(start, order=order)
        if not beta:
            out[...] = np.nan                                 # beta 0: never read
        assert blas.gemm(a, b, out, beta=beta) is out
        _close(out, want.astype(dtype), dtype)
    out = np.array(start)                                     # a strided out: numpy's path
    view = np.zeros((m, 2 * n), dtype)[:, ::2]
    view[...] = out
    _close(blas.gemm(a, b, view, beta=beta), want.astype(dtype), dtype)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stacks_of_matrices(everywhere, dtype):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 9, 4)).astype(dtype)
    b = rng.standard_normal((5, 11, 4)).astype(dtype).transpose(0, 2, 1)
    _close(blas.matmul(a, b), a @ b, dtype)
    out = rng.standard_normal((5, 9, 11)).astype(dtype)
    want = out + a @ b
    blas.gemm(a, b, out, beta=1.0)
    _close(out, want, dtype)
    part = np.empty((5, 20, 11), dtype)                      # rows of a larger block
    blas.gemm(a, b, part[:, 3:12])
    _close(part[:, 3:12], a @ b, dtype)
    with pytest.raises(ValueError):                           # numpy's error: 5 against 4
        blas.matmul(a, b[:4])


@needs_mkl
def test_the_choice_is_by_size_and_dtype(monkeypatch):
    blas.set_library("mkl")
    calls = []
    def spy(a, b, c, beta):
        calls.append(a.shape)
        np.matmul(a, b, out=c)
        return True
    monkeypatch.setitem(blas._GEMM, np.dtype(np.float32), spy)
    small = np.ones((8, 8), np.float32)
    big = np.ones((128, 128), np.float32)
    blas.matmul(small, small)
    blas.matmul(big, big.astype(np.float64))                  # mixed dtypes: numpy
    blas.matmul(big.astype(np.float16), big.astype(np.float16))
    assert calls == []
    blas.matmul(big, big)
    blas.matmul(big[:, :64], big.T[:64])                     # 128 * 64 * 128 = 2 ** 20
    assert calls == [(128, 128), (128, 64)]
    assert blas.matmul_for((8, 8), (8, 8)) is np.matmul
    assert blas.matmul_for((2, 8, 8), (8, 8)) is np.matmul    # not two matrices or stacks
    assert blas.matmul_for((None, 128), (128, 128)) is blas.matmul
    assert blas.matmul_for((128, 128), (128, 128)) is blas.matmul
    assert blas.matmul_for(None, (8, 8)) is blas.matmul


@needs_mkl
def test_shape_errors_are_numpys(everywhere):
    a, b = np.ones((300, 400), np.float32), np.ones((300, 400), np.float32)
    with pytest.raises(ValueError, match="matmul: Input operand"):
        blas.matmul(a, b)
    with pytest.raises(ValueError, match="matmul: Input operand"):
        blas.gemm(a, b, np.zeros((300, 400), np.float32))
    with pytest.raises(ValueError):
        blas.gemm(a, b.T, np.zeros((300, 301), np.float32), beta=1.0)
    with pytest.raises(ValueError, match="beta needs an out"):
        blas.gemm(a, b.T, beta=1.0)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_same_bits_whatever_the_alignment(dtype):
    """MKL's result of one product does not depend on where its operands sit in memory (numpy
    allocates at varying 16-byte alignments) nor on the call: the same bits every run."""
    blas.set_library("mkl")
    rng = np.random.default_rng(11)
    a = rng.standard_normal((96, 300)).astype(dtype)
    b = rng.standard_normal((300, 200)).astype(dtype)
    want = blas.matmul(a, b)
    size = np.dtype(dtype).itemsize
    for shift in range(0, 64 // size):
        a2 = np.empty(a.size + 64, dtype)[shift:shift + a.size].reshape(a.shape)
        b2 = np.empty(b.size + 64, dtype)[2 * shift:2 * shift + b.size].reshape(b.shape)
        a2[...], b2[...] = a, b
        assert np.array_equal(blas.matmul(a2, b2), want)
        out = np.empty(want.size + 64, dtype)[shift:shift + want.size].reshape(want.shape)
        assert np.array_equal(blas.gemm(a2, b2, out), want)


_PROBE = """
import sys, numpy as np
from common import blas
rng = np.random.default_rng(5)
a = rng.standard_normal((64, 300)).astype(np.float32)
b = rng.standard_normal((300, 128)).astype(np.float32)
sys.stdout.write(blas.library() + " " + blas.matmul(a, b).tobytes().hex())
"""


def _probe(env: dict) -> tuple[str, bytes]:
    run = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": REPO, **env}, check=True)
    name, hexed = run.stdout.split()
    return name, bytes.fromhex(hexed)


@needs_mkl
def test_a_fresh_process_gives_the_same_bits():
    blas.set_library("mkl")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 300)).astype(np.float32)
    b = rng.standard_normal((300, 128)).astype(np.float32)
    name, bits = _probe({blas.ENV: "mkl"})
    assert name == "mkl" and bits == blas.matmul(a, b).tobytes()
    name, bits = _probe({blas.ENV: "numpy"})
    assert name == "numpy" and bits == (a @ b).tobytes()


def test_an_unknown_library_is_an_error():
    with pytest.raises(ValueError, match="not one of"):
        blas.set_library("openblas")
    run = subprocess.run([sys.executable, "-c", "import common"], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": REPO, blas.ENV: "blis"})
    assert run.returncode != 0 and "COMMON_BLAS='blis': not one of" in run.stderr


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_numpy_switch_gives_numpys_bits(monkeypatch, dtype):
    previous = blas.library()
    blas.set_library("numpy")
    try:
        assert blas.library() == "numpy"
        rng = np.random.default_rng(2)
        a = rng.standard_normal((200, 300)).astype(dtype)
        b = rng.standard_normal((200, 400)).astype(dtype)
        assert np.array_equal(blas.matmul(a.T, b), np.matmul(a.T, b))
        acc = rng.standard_normal((300, 400)).astype(dtype)
        want = acc + np.matmul(a.T, b)
        assert np.array_equal(blas.gemm(a.T, b, acc, beta=1.0), want)
        s = rng.standard_normal((4, 300, 200)).astype(dtype)
        assert np.array_equal(blas.matmul(s, b[None].repeat(4, 0)), np.matmul(s, b[None]))
    finally:
        blas.set_library(previous)


def test_without_mkl_everything_runs_on_numpy(monkeypatch):
    """MKL "missing": the library is numpy, the products numpy's, and asking for MKL fails."""
    monkeypatch.setattr(blas, "mkl_path", lambda: None)
    monkeypatch.setattr(blas, "_mkl", False)
    monkeypatch.setattr(blas, "_library", None)
    monkeypatch.setattr(blas, "_jit", None)
    blas._select("mkl")                         # as at import: MKL looked for on first use
    try:
        a = np.random.default_rng(1).standard_normal((128, 256)).astype(np.float32)
        assert np.array_equal(blas.matmul(a, a.T), np.matmul(a, a.T))
        acc = np.ones((128, 128), np.float32)
        assert np.array_equal(blas.gemm(a, a.T, acc, beta=1.0), 1 + np.matmul(a, a.T))
        assert blas.library() == "numpy" and blas.mkl_library() is None
        assert not blas._GEMM and not blas._GEMM_STACK
        with pytest.raises(RuntimeError, match="not installed"):
            blas.set_library("mkl")
    finally:
        monkeypatch.undo()
        blas._select(blas.library())
        blas._load()


def test_mkl_is_found_from_the_installed_wheel():
    path = blas.mkl_path()
    if not HAVE_MKL:
        pytest.skip("the mkl wheel is not installed")
    assert os.path.basename(path).startswith("libmkl_rt") and os.path.exists(path)


def test_the_loop_pass_emits_mkls_product_for_large_shapes_only():
    from staticgraph.compiler.passes.loops import HELPERS, _product
    assert _product("h", "w", (2, 5), (5, 20)) == "h @ w"
    assert _product("h", "w", (32, 128), (128, 512)) == "_matmul(h, w)"
    assert _product("h", "w", (None, 128), (128, 512)) == "_matmul(h, w)"
    assert HELPERS["_matmul"] is blas.matmul


def test_threads_follow_numpys_openblas_defaults(monkeypatch):
    for name in ("MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert blas._threads() == 3
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    assert blas._threads() == 2
    monkeypatch.setenv("MKL_NUM_THREADS", "5")
    assert blas._threads() == 5
    for name in ("MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.setenv(name, "many")
    assert blas._threads() == len(os.sched_getaffinity(0))


_MAPS = """
import numpy as np
from common import blas
a = np.ones((256, 256), np.float32)
blas.matmul(a, a)
assert blas._jit is not None
print(open("/proc/self/maps").read())
"""


@needs_mkl
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_one_thread_is_mkls_sequential_layer_without_openmp():
    env = {**os.environ, "PYTHONPATH": REPO, "MKL_NUM_THREADS": "1"}
    env.pop("MKL_THREADING_LAYER", None)
    maps = subprocess.run([sys.executable, "-c", _MAPS], capture_output=True, text=True,
                          env=env, check=True).stdout
    assert "libmkl_sequential" in maps and "libiomp5" not in maps and "libmkl_intel_thread" \
        not in maps


@needs_mkl
def test_mkls_results_are_seen_by_tracemalloc():
    """The result is numpy's allocation (numba's allocator is invisible to tracemalloc, which
    the bench's peak-memory figures read)."""
    import tracemalloc
    blas.set_library("mkl")
    a = np.ones((256, 512), np.float32)
    blas.matmul(a, a.T)                                      # (compiled and loaded first)
    tracemalloc.start()
    try:
        c = blas.matmul(a, a.T)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak >= c.nbytes == 256 * 256 * 4


@needs_mkl
def test_read_only_operands_and_a_read_only_out(everywhere):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(20, dtype=np.float32).reshape(4, 5)
    a.flags.writeable = b.flags.writeable = False
    np.testing.assert_array_equal(blas.matmul(a, b), a @ b)
    np.testing.assert_array_equal(blas.matmul(b.T, a.T), b.T @ a.T)
    out = np.zeros((3, 5), np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        blas.gemm(a, b, out)

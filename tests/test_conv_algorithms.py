"""The convolution's algorithms (common/ops/conv_algorithms.py): Winograd F(2x2, 3x3) and the
shifted GEMM agree with a float64 reference to float32 tolerance, forward and input gradient;
``set_algorithm("im2col")`` gives the plain GEMM's exact bits; the per-shape choice is cached
(eager) and made once per call site (static)."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from common import fastpath
from common.ops import conv_algorithms as ca
from common.ops.conv import (conv_filter_grad_nhwc, conv_filter_grad_nhwc_with, conv_input_grad_nhwc,
                             conv_input_grad_nhwc_with, conv_nhwc_with)
from common.registry import REGISTRY

RNG = np.random.default_rng(32)

# (x NHWC, w HWIO, padding): even and odd outputs, TF's asymmetric SAME, explicit, VALID
SHAPES = [((2, 6, 8, 3), (3, 3, 3, 4), ((1, 1), (1, 1))),
          ((1, 7, 5, 2), (3, 3, 2, 5), "SAME"),
          ((3, 9, 9, 4), (3, 3, 4, 2), "VALID"),
          ((2, 8, 7, 3), (3, 3, 3, 3), ((2, 0), (0, 1))),
          ((2, 6, 6, 2), (2, 4, 2, 3), "SAME"),            # not 3x3: direct only
          ((1, 4, 4, 1), (3, 3, 1, 1), ((1, 1), (1, 1)))]


@pytest.fixture(autouse=True)
def _restore_setting():
    previous = ca.set_algorithm("auto")
    yield
    ca.set_algorithm(previous)


def _operands(xs, ws):
    return (RNG.standard_normal(xs).astype(np.float32),
            (RNG.standard_normal(ws) * 0.3).astype(np.float32))


def _close(got, want):
    """float32 tolerance, relative to the magnitude of the result."""
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("algorithm", ["winograd", "direct"])
@pytest.mark.parametrize("xs,ws,padding", SHAPES)
def test_forward_matches_float64_reference(algorithm, xs, ws, padding):
    x, w = _operands(xs, ws)
    ca.set_algorithm(algorithm)
    name, y = conv_nhwc_with(x, w, (1, 1), padding, (1, 1), 1)
    assert name == (algorithm if algorithm == "direct" or ws[:2] == (3, 3) else "im2col")
    ca.set_algorithm("im2col")
    _close(y, conv_nhwc_with(x.astype(np.float64), w.astype(np.float64), (1, 1), padding, (1, 1), 1)[1])


@pytest.mark.parametrize("algorithm", ["winograd", "direct"])
@pytest.mark.parametrize("xs,ws,padding", SHAPES)
def test_input_grad_matches_float64_reference(algorithm, xs, ws, padding):
    x, w = _operands(xs, ws)
    y = conv_nhwc_with(x, w, (1, 1), padding, (1, 1), 1, "im2col")[1]
    g = RNG.standard_normal(y.shape).astype(np.float32)
    ca.set_algorithm(algorithm)
    name, dx = conv_input_grad_nhwc_with(g, w, xs[1:3], (1, 1), padding, (1, 1), 1)
    assert name in (algorithm, "im2col")
    assert (name == algorithm) == (algorithm == "direct" or ws[:2] == (3, 3))
    ca.set_algorithm("im2col")
    want = conv_input_grad_nhwc(g.astype(np.float64), w.astype(np.float64), xs[1:3], (1, 1), padding,
                                (1, 1), 1)
    _close(dx, want)


def test_im2col_switch_gives_the_exact_bits():
    """The switch reproduces the plain GEMM bit for bit (a forced algorithm, not the choice)."""
    x, w = _operands((4, 10, 10, 8), (3, 3, 8, 16))
    ca.set_algorithm("winograd")
    fast = conv_nhwc_with(x, w, (1, 1), "SAME", (1, 1), 1)[1]
    ca.set_algorithm("im2col")
    exact = conv_nhwc_with(x, w, (1, 1), "SAME", (1, 1), 1)[1]
    assert not np.array_equal(fast, exact)         # Winograd rounds differently ...
    np.testing.assert_array_equal(exact, conv_nhwc_with(x, w, (1, 1), "SAME", (1, 1), 1, "im2col")[1])
    ca.set_algorithm("auto")                       # ... and auto is one of the candidates, cached
    name, y = conv_nhwc_with(x, w, (1, 1), "SAME", (1, 1), 1)
    assert name in ("im2col", "winograd", "direct")
    assert conv_nhwc_with(x, w, (1, 1), "SAME", (1, 1), 1)[0] == name
    np.testing.assert_array_equal(conv_nhwc_with(x, w, (1, 1), "SAME", (1, 1), 1, name)[1], y)


def test_unknown_algorithm_is_refused_and_setting_kept():
    with pytest.raises(ValueError, match=r"unknown convolution algorithm 'fft': expected one of "
                                         r"'auto', 'im2col', 'winograd', 'direct'"):
        ca.set_algorithm("fft")
    assert ca.ALGORITHM == "auto"


@pytest.mark.parametrize("case", [
    dict(dtype=np.int32), dict(dtype=np.float64), dict(strides=(2, 2)), dict(dilations=(2, 1)),
    dict(groups=2)])
def test_only_im2col_where_the_fast_kernels_do_not_apply(case):
    """Integers (exact wrap-around sums), float64 (keeps Winograd out: the plain accuracy), strides,
    dilations and groups take the exact kernel whatever the setting."""
    dtype = case.get("dtype", np.float32)
    x = (RNG.standard_normal((2, 8, 8, 4)) * 3).astype(dtype)
    w = (RNG.standard_normal((3, 3, 4 // case.get("groups", 1), 4)) * 3).astype(dtype)
    args = (case.get("strides", (1, 1)), "SAME", case.get("dilations", (1, 1)), case.get("groups", 1))
    ca.set_algorithm("winograd")
    name, y = conv_nhwc_with(x, w, *args)
    assert name == "im2col"
    np.testing.assert_array_equal(y, conv_nhwc_with(x, w, *args, "im2col")[1])


def test_input_grad_with_a_pad_wider_than_the_filter_stays_exact():
    """An explicit pad wider than the filter leaves no convolution form for the input gradient."""
    g = RNG.standard_normal((1, 9, 6, 2)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 3, 2)).astype(np.float32)
    ca.set_algorithm("direct")
    name, dx = conv_input_grad_nhwc_with(g, w, (5, 6), (1, 1), ((3, 3), (1, 1)), (1, 1), 1)
    assert name == "im2col"
    np.testing.assert_array_equal(dx, conv_input_grad_nhwc_with(g, w, (5, 6), (1, 1), ((3, 3), (1, 1)),
                                                         (1, 1), 1, "im2col")[1])


@pytest.mark.parametrize("xs,ws,padding", SHAPES)
def test_filter_grad_matches_float64_reference(xs, ws, padding):
    """Winograd's filter gradient (3x3 filters; others keep im2col, which has no competitor)."""
    x, w = _operands(xs, ws)
    g = RNG.standard_normal(conv_nhwc_with(x, w, (1, 1), padding, (1, 1), 1, "im2col")[1].shape)
    g = g.astype(np.float32)
    ca.set_algorithm("winograd")
    name, dw = conv_filter_grad_nhwc_with(x, g, ws[:2], (1, 1), padding, (1, 1), 1)
    assert name == ("winograd" if ws[:2] == (3, 3) else "im2col")
    ca.set_algorithm("im2col")
    _close(dw, conv_filter_grad_nhwc(x.astype(np.float64), g.astype(np.float64), ws[:2], (1, 1),
                                     padding, (1, 1), 1))


def test_static_call_site_picks_once_and_again_after_the_switch():
    """The static kernel of a known-shape node keeps its pick; ``set_algorithm`` makes it pick again."""
    site = REGISTRY["Conv2D"].static_impl((2, 8, 8, 4), (3, 3, 4, 5))
    assert REGISTRY["Conv2D"].static_impl((None, 8, 8, 4), (3, 3, 4, 5)) is None
    x, w = _operands((2, 8, 8, 4), (3, 3, 4, 5))
    ca.set_algorithm("winograd")
    wino = site(x, w, padding="SAME")
    ca.set_algorithm("im2col")
    exact = site(x, w, padding="SAME")
    np.testing.assert_array_equal(exact, REGISTRY["Conv2D"].impl(x, w, padding="SAME"))
    assert not np.array_equal(wino, exact)
    _close(wino, exact.astype(np.float64))


def test_both_engines_agree_within_float32_tolerance():
    """A float32 conv2d and its two gradients: dyngraph (NCHW) and staticgraph (NHWC) against the
    float64 exact kernels, with the fast kernels forced."""
    x, w = _operands((2, 10, 10, 4), (3, 3, 4, 6))
    ca.set_algorithm("winograd")
    xt = torch.tensor(x.transpose(0, 3, 1, 2).copy(), requires_grad=True)
    wt = torch.tensor(w.transpose(3, 2, 0, 1).copy(), requires_grad=True)
    yt = torch.nn.functional.conv2d(xt, wt, padding=1)
    (yt * yt).sum().backward()
    with tf.Graph().as_default():
        xs, ws = tf.constant(x), tf.constant(w)
        ys = tf.nn.conv2d(xs, ws, strides=1, padding="SAME")
        dxs, dws = tf.gradients(tf.reduce_sum(ys * ys), [xs, ws])
        with tf.compat.v1.Session() as sess:
            y_s, dx_s, dw_s = sess.run([ys, dxs, dws])
    ca.set_algorithm("im2col")
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    y64 = conv_nhwc_with(x64, w64, (1, 1), "SAME", (1, 1), 1)[1]
    dx64 = conv_input_grad_nhwc(2 * y64, w64, (10, 10), (1, 1), "SAME", (1, 1), 1)
    dw64 = conv_filter_grad_nhwc(x64, 2 * y64, (3, 3), (1, 1), "SAME", (1, 1), 1)
    _close(yt.detach().numpy().transpose(0, 2, 3, 1), y64)
    _close(xt.grad.numpy().transpose(0, 2, 3, 1), dx64)
    _close(wt.grad.numpy().transpose(2, 3, 1, 0), dw64)
    _close(y_s, y64)
    _close(dx_s, dx64)
    _close(dw_s, dw64)


@pytest.mark.parametrize("xs,ws,padding", SHAPES[:4] + [((5, 14, 14, 8), (3, 3, 8, 16), "SAME")])
def test_compiled_winograd_transforms_give_the_numpy_code_bits(monkeypatch, xs, ws, padding):
    """numba's transforms (common/conv_jit.py) against the numpy code they replace: forward, input
    and filter gradient, bit for bit -- a channels-first input's view included, and chunks of
    two images (the last one short)."""
    monkeypatch.setattr(ca, "JIT_MIN", 0)
    monkeypatch.setattr(ca, "CHUNK_BYTES", 16 * 64 * 16 * 4 * 2)
    if ca.compiled_kernels(np.zeros(1, np.float32)) is None:
        pytest.skip("numba cannot load here: the numpy code is the only path")
    x, w = _operands(xs, ws)
    views = (x, x.transpose(0, 3, 1, 2).copy().transpose(0, 2, 3, 1))

    def run():
        ys = [conv_nhwc_with(v, w, (1, 1), padding, (1, 1), 1, "winograd")[1] for v in views]
        g = np.ascontiguousarray(ys[0]) * np.float32(0.5)
        return ys + [conv_input_grad_nhwc_with(g, w, xs[1:3], (1, 1), padding, (1, 1), 1, "winograd")[1],
                     conv_filter_grad_nhwc_with(x, g, (3, 3), (1, 1), padding, (1, 1), 1, "winograd")[1]]
    compiled = run()
    monkeypatch.setitem(fastpath.JIT_MODULES, "common.conv_jit", None)
    for got, want in zip(compiled, run()):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("xs,ksize,strides,padding,data_format", [
    ((2, 8, 8, 5), (2, 2), (2, 2), "VALID", "NHWC"),
    ((2, 7, 9, 3), (2, 2), (2, 2), "SAME", "NHWC"),       # padding cells: -inf, may take a tie
    ((2, 3, 9, 8), (2, 3), (3, 3), "SAME", "NCHW"),       # windows with gaps between them
    ((2, 9, 7, 3), (2, 2), (2, 2), "VALID", "NHWC"),      # a last row and column in no window
    ((1, 9, 7, 4), (1, 2), (2, 2), "VALID", "NHWC")])
def test_compiled_max_pool_grad_gives_the_numpy_code_bits(monkeypatch, xs, ksize, strides, padding,
                                                          data_format):
    """numba's max-pool gradient against the numpy code: ties (first maximum wins), NaN and -inf
    inputs, inf/NaN/negative gradients (``g * 0`` is NaN or -0 there), both layouts."""
    monkeypatch.setattr(ca, "JIT_MIN", 0)
    if ca.compiled_kernels(np.zeros(1, np.float32)) is None:
        pytest.skip("numba cannot load here: the numpy code is the only path")
    x = np.round(RNG.standard_normal(xs) * 2).astype(np.float32)       # many ties
    x.flat[::7], x.flat[::11] = np.nan, -np.inf
    attrs = dict(ksize=ksize, strides=strides, padding=padding, data_format=data_format)
    y = REGISTRY["MaxPool"].impl(x, **attrs)
    g = RNG.standard_normal(y.shape).astype(np.float32)
    g.flat[::5], g.flat[::13], g.flat[::3] = np.inf, np.nan, -g.flat[::3] ** 2
    compiled = REGISTRY["MaxPoolGrad"].impl(x, g, **attrs)
    monkeypatch.setitem(fastpath.JIT_MODULES, "common.conv_jit", None)
    with np.errstate(invalid="ignore"):                                  # inf * 0
        want = REGISTRY["MaxPoolGrad"].impl(x, g, **attrs)
    np.testing.assert_array_equal(compiled, want)
    assert np.array_equal(np.signbit(compiled), np.signbit(want))


@pytest.mark.parametrize("xs,ksize,strides,padding,data_format", [
    ((2, 8, 8, 5), (2, 2), (2, 2), "VALID", "NHWC"),
    ((2, 7, 9, 3), (2, 2), (2, 2), "SAME", "NHWC"),       # padding cells: -inf
    ((2, 9, 7, 4), (3, 3), (2, 1), "SAME", "NHWC"),       # overlapping windows
    ((2, 4, 9, 8), (2, 3), (3, 3), "SAME", "NCHW"),       # a NCHW view of channels-last memory
    ((2, 4, 9, 8), (2, 2), (2, 2), "VALID", "NCHW-memory")])   # numpy's chain, its layout kept
def test_compiled_max_pool_gives_the_numpy_code_bits(monkeypatch, xs, ksize, strides, padding,
                                                     data_format):
    """numba's max-pool forward against numpy's ``np.maximum`` chain bit for bit: ties of
    signed zeros (the earlier one's sign), NaN (wins, the same NaN), -inf; the result's memory
    layout is the numpy code's."""
    monkeypatch.setattr(ca, "JIT_MIN", 0)
    if ca.compiled_kernels(np.zeros(1, np.float32)) is None:
        pytest.skip("numba cannot load here: the numpy code is the only path")
    x = np.round(RNG.standard_normal(xs) * 2).astype(np.float32)       # many ties
    x[x == 0] = np.where(RNG.random(int((x == 0).sum())) < 0.5, -0.0, 0.0)
    x.flat[::7], x.flat[::11] = np.nan, -np.inf
    x.flat[::17] = -np.nan
    if data_format == "NCHW":
        x = x.transpose(0, 3, 1, 2)                        # NHWC memory seen as NCHW
    attrs = dict(ksize=ksize, strides=strides, padding=padding, data_format=data_format[:4])
    compiled = REGISTRY["MaxPool"].impl(x, **attrs)
    monkeypatch.setitem(fastpath.JIT_MODULES, "common.conv_jit", None)
    want = REGISTRY["MaxPool"].impl(x, **attrs)
    assert compiled.shape == want.shape and compiled.strides == want.strides
    np.testing.assert_array_equal(compiled.view(np.int32), want.view(np.int32))


@pytest.mark.parametrize("shape,dtype", [((8, 7, 9, 32), np.float32), ((300, 16), np.float64),
                                         ((4, 5, 6, 3), np.float32)])
def test_compiled_bias_add_gives_numpys_values(monkeypatch, shape, dtype):
    """numba's channels-last bias add against numpy's broadcast ``x + bias``: the same IEEE
    additions (NaN where numpy's is, -0.0 kept: -0.0 + -0.0), shape and dtype."""
    monkeypatch.setattr(ca, "JIT_MIN", 0)
    if ca.compiled_kernels(np.zeros(1, np.float32)) is None:
        pytest.skip("numba cannot load here: the numpy code is the only path")
    x = RNG.standard_normal(shape).astype(dtype)
    bias = RNG.standard_normal(shape[-1]).astype(dtype)
    x.flat[::7], x.flat[::11], x.flat[::13] = np.nan, np.inf, -0.0
    bias[0], bias[1] = -0.0, -np.inf
    got = REGISTRY["BiasAdd"].impl(x, bias)
    with np.errstate(invalid="ignore"):
        want = x + bias
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got)[~nan], np.signbit(want)[~nan])

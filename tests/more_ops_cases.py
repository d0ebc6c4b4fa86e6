"""The calls of ``tests/test_more_ops.py``: the same code runs on PyTorch (to record
``tests/fixtures/torch_more_ops.json`` with ``tests/fixtures/record_torch_more_ops.py``) and
on dyngraph.  ``inputs`` are shapes (``randn`` from a fixed numpy seed, in float32, and again in float64; a shape in
``pos(...)`` is made positive, ``unit(...)`` put in (0, 1)); every float input gets a gradient.
"""
from __future__ import annotations

import numpy as np


def pos(shape):
    return ("pos", shape)


def unit(shape):
    return ("unit", shape)


def make_inputs(specs, seed: int, dtype=np.float32) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for spec in specs:
        kind, shape = spec if isinstance(spec, tuple) and spec and isinstance(spec[0], str) \
            else ("randn", spec)
        a = rng.standard_normal(shape).astype(np.float32)
        if kind == "pos":
            a = np.abs(a) + np.float32(0.5)
        elif kind == "unit":
            a = (1 / (1 + np.exp(-a))).astype(np.float32)
        out.append(a.astype(dtype))
    return out


X4 = (2, 4, 3, 3)
INF = float("inf")

# label -> (inputs, call(torch, *tensors))
CASES = {
    "logsigmoid": ([(3, 4)], lambda t, x: t.nn.functional.logsigmoid(x * 10)),
    "glu": ([X4], lambda t, x: t.nn.functional.glu(x, 1)),
    "mish": ([(3, 4)], lambda t, x: t.nn.functional.mish(x * 3)),
    "hardswish": ([(4, 5)], lambda t, x: t.nn.functional.hardswish(x * 4)),
    "hardsigmoid": ([(4, 5)], lambda t, x: t.nn.functional.hardsigmoid(x * 4)),
    "selu": ([(3, 4)], lambda t, x: t.nn.functional.selu(x)),
    "celu": ([(3, 4)], lambda t, x: t.nn.functional.celu(x, 0.7)),
    "softmin": ([(3, 4)], lambda t, x: t.nn.functional.softmin(x, 1)),
    "softsign": ([(3, 4)], lambda t, x: t.nn.functional.softsign(x)),
    "tanhshrink": ([(3, 4)], lambda t, x: t.nn.functional.tanhshrink(x)),
    "threshold": ([(3, 4)], lambda t, x: t.nn.functional.threshold(x, 0.1, -2.0)),
    "rrelu_eval": ([(3, 4)], lambda t, x: t.nn.functional.rrelu(x)),
    "logit": ([unit((3, 4))], lambda t, x: t.logit(x)),
    "logit_eps": ([unit((3, 4))], lambda t, x: t.logit(x, 0.2)),
    "addmm": ([(3, 4), (3, 5), (5, 4)], lambda t, a, b, c: t.addmm(a, b, c, beta=0.5, alpha=2)),
    "addmm_beta0": ([(4,), (3, 5), (5, 4)], lambda t, a, b, c: t.addmm(a, b, c, beta=0)),
    "addmv": ([(3,), (3, 4), (4,)], lambda t, a, m, v: t.addmv(a, m, v, alpha=3)),
    "addr": ([(3, 4), (3,), (4,)], lambda t, a, u, v: t.addr(a, u, v, beta=2)),
    "baddbmm": ([(2, 3, 4), (2, 3, 5), (2, 5, 4)], lambda t, a, b, c: t.baddbmm(a, b, c)),
    "addbmm": ([(3, 4), (2, 3, 5), (2, 5, 4)], lambda t, a, b, c: t.addbmm(a, b, c, alpha=0.5)),
    "addcmul": ([(3, 4), (3, 1), (4,)], lambda t, a, b, c: t.addcmul(a, b, c, value=0.3)),
    "addcdiv": ([(3, 4), (3, 4), pos((4,))], lambda t, a, b, c: t.addcdiv(a, b, c, value=2)),
    "lerp": ([(3, 4), (3, 4)], lambda t, a, b: t.lerp(a, b, 0.3)),
    "lerp_tensor": ([(3, 4), (3, 4), unit((4,))], lambda t, a, b, w: t.lerp(a, b, w)),
    "group_norm": ([X4, (4,), (4,)], lambda t, x, w, b: t.nn.functional.group_norm(x, 2, w, b)),
    "instance_norm": ([X4], lambda t, x: t.nn.functional.instance_norm(x)),
    "rms_norm": ([X4, (3, 3)], lambda t, x, w: t.nn.functional.rms_norm(x, (3, 3), w)),
    "pixel_shuffle": ([X4], lambda t, x: t.nn.functional.pixel_shuffle(x, 2)),
    "pixel_unshuffle": ([(2, 1, 4, 6)], lambda t, x: t.nn.functional.pixel_unshuffle(x, 2)),
    "index_add": ([(5, 3), (2, 3)],
                  lambda t, x, s: x.index_add(0, t.tensor([4, 1]), s, alpha=2)),
    "index_copy": ([(5, 3), (2, 3)], lambda t, x, s: x.index_copy(0, t.tensor([4, 1]), s)),
    "index_fill": ([(3, 5)], lambda t, x: x.index_fill(1, t.tensor([0, 3]), -1.5)),
    "mT": ([(2, 3, 4)], lambda t, x: x.mT * 2),
    "reshape_as": ([(3, 4)], lambda t, x: x.reshape_as(t.zeros(2, 6))),
    "nan_to_num": ([(3, 4)], lambda t, x: (x.log()).nan_to_num(1.0, 5.0, -5.0)),
    "cdist": ([(4, 3), (5, 3)], lambda t, a, b: t.cdist(a, b)),
    "cdist_p1": ([(2, 4, 3), (2, 5, 3)], lambda t, a, b: t.cdist(a, b, p=1)),
    "cdist_p3": ([(4, 3), (5, 3)], lambda t, a, b: t.cdist(a, b, p=3)),
    "hstack": ([(3, 2), (3, 4)], lambda t, a, b: t.hstack([a, b])),
    "vstack": ([(4,), (2, 4)], lambda t, a, b: t.vstack([a, b])),
    "dstack": ([(2, 3), (2, 3)], lambda t, a, b: t.dstack([a, b])),
    "column_stack": ([(3,), (3, 2)], lambda t, a, b: t.column_stack([a, b])),
    "repeat_interleave": ([(2, 3)], lambda t, x: x.repeat_interleave(2, 1)),
    "repeat_interleave_flat": ([(2, 3)], lambda t, x: x.repeat_interleave(3)),
    "repeat_interleave_tensor": ([(3, 2)],
                                 lambda t, x: t.repeat_interleave(x, t.tensor([1, 0, 2]), 0)),
    "meshgrid_ij": ([(3,), (4,)], lambda t, a, b: t.stack(t.meshgrid(a, b, indexing="ij"))),
    "meshgrid_xy": ([(3,), (4,)], lambda t, a, b: t.stack(t.meshgrid(a, b, indexing="xy"))),
    "vector_norm": ([(3, 4)], lambda t, x: t.linalg.vector_norm(x)),
    "vector_norm_dim": ([(3, 4)], lambda t, x: t.linalg.vector_norm(x, 3, 1, True)),
    "vector_norm_inf": ([(3, 4)], lambda t, x: t.linalg.vector_norm(x, INF, 0)),
    "vector_norm_-inf": ([(3, 4)], lambda t, x: t.linalg.vector_norm(x, -INF)),
    "vector_norm_0": ([(3, 4)], lambda t, x: t.linalg.vector_norm(x, 0)),
    "vector_norm_1": ([(3, 4)], lambda t, x: t.linalg.vector_norm(x, 1, (0, 1))),
    "vector_norm_-1.5": ([(3, 4)], lambda t, x: t.linalg.vector_norm(x, -1.5, 1)),
    "vector_norm_zero": ([(3, 4)], lambda t, x: t.linalg.vector_norm(x * 0, 2.5, 1)),
    "matrix_norm_fro": ([(2, 3, 4)], lambda t, x: t.linalg.matrix_norm(x)),
    "matrix_norm_1": ([(2, 3, 4)], lambda t, x: t.linalg.matrix_norm(x, 1)),
    "matrix_norm_-inf": ([(3, 4)], lambda t, x: t.linalg.matrix_norm(x, -INF, keepdim=True)),
    "linalg_norm": ([(3, 4)], lambda t, x: t.linalg.norm(x)),
    "linalg_norm_inf_matrix": ([(3, 4)], lambda t, x: t.linalg.norm(x, INF)),
    "linalg_norm_dim": ([(3, 4)], lambda t, x: t.linalg.norm(x, 1, 0)),
    "interp_nearest": ([X4], lambda t, x: t.nn.functional.interpolate(x, scale_factor=2)),
    "interp_nearest_size": ([X4], lambda t, x: t.nn.functional.interpolate(x, size=(5, 2))),
    "interp_nearest_1_7": ([(1, 2, 5)],
                           lambda t, x: t.nn.functional.interpolate(x, scale_factor=1.7)),
    "interp_nearest_exact": ([X4], lambda t, x: t.nn.functional.interpolate(
        x, size=(5, 4), mode="nearest-exact")),
    "interp_linear": ([(2, 3, 4)], lambda t, x: t.nn.functional.interpolate(
        x, size=7, mode="linear")),
    "interp_linear_ac": ([(2, 3, 4)], lambda t, x: t.nn.functional.interpolate(
        x, size=7, mode="linear", align_corners=True)),
    "interp_bilinear": ([X4], lambda t, x: t.nn.functional.interpolate(
        x, scale_factor=2, mode="bilinear")),
    "interp_bilinear_down": ([(1, 2, 7, 6)], lambda t, x: t.nn.functional.interpolate(
        x, scale_factor=0.6, mode="bilinear")),
    "interp_bilinear_recompute": ([(1, 2, 7, 6)], lambda t, x: t.nn.functional.interpolate(
        x, scale_factor=1.3, mode="bilinear", recompute_scale_factor=True)),
    "interp_bilinear_ac": ([X4], lambda t, x: t.nn.functional.interpolate(
        x, size=(5, 7), mode="bilinear", align_corners=True)),
    "interp_bicubic": ([X4], lambda t, x: t.nn.functional.interpolate(
        x, size=(5, 7), mode="bicubic")),
    "interp_bicubic_ac": ([X4], lambda t, x: t.nn.functional.interpolate(
        x, scale_factor=(2, 1.5), mode="bicubic", align_corners=True)),
    "interp_trilinear": ([(1, 2, 2, 3, 2)], lambda t, x: t.nn.functional.interpolate(
        x, scale_factor=2, mode="trilinear")),
    "interp_area": ([(1, 2, 6, 4)], lambda t, x: t.nn.functional.interpolate(
        x, size=(3, 2), mode="area")),
    "Upsample_bilinear2d": ([X4], lambda t, x: t.nn.UpsamplingBilinear2d(scale_factor=2)(x)),
}

"""TensorFlow's rejection samplers (``RandomGamma``, ``RandomPoissonV2``) on arrays, in lockstep.

A rejection sampler draws until a candidate is accepted, so each output uses its own number
of random values.  TF keeps the outputs independent of each other (and of its threads) by
giving output ``o`` its own stretch of the stream: blocks ``256 * o``, ``256 * o + 1``, ...
(``gen.Skip(kReservedSamplesPerOutput * output_idx)``).  Here every output is a *lane*; one
pass of the ``while`` loop below is one pass of TF's ``while (true)`` for every lane still
drawing, so the loop runs as many times as the unluckiest output needs -- a handful.

TF draws through distribution objects that return a block's worth of values and hands them
out from the last one down (``uniform_remaining--``); :class:`_Buffered` is that, per lane.

>>> import numpy as np
>>> from common.philox import PhiloxRandom
>>> gamma(PhiloxRandom.from_seeds(1, 2), np.array([0.5, 1.0, 4.0])).round(4)
array([0.0144, 1.1294, 3.8693])
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from . import libm64
from .philox import PhiloxRandom, box_muller_double, uint64_to_double

__all__ = ["gamma", "poisson"]

_RESERVED = 256  # blocks per output, TF's kReservedSamplesPerOutput


class _Buffered:
    """For each lane, the values of its last block of one distribution, used last first."""

    def __init__(self, gen: PhiloxRandom, lanes: int, used: np.ndarray,
                 convert: Callable[[np.ndarray], np.ndarray], width: int, dtype):
        self.gen, self.used, self.convert = gen, used, convert
        self.values = np.empty((lanes, width), dtype)
        self.left = np.zeros(lanes, np.int64)

    def take(self, lanes: np.ndarray) -> np.ndarray:
        """One value for each of ``lanes`` (a lane with none left draws its next block)."""
        dry = lanes[self.left[lanes] == 0]
        if dry.size:
            offsets = dry.astype(np.uint64) * np.uint64(_RESERVED) + self.used[dry]
            self.values[dry] = self.convert(self.gen.blocks_at(offsets))
            self.used[dry] += np.uint64(1)
            self.left[dry] = self.values.shape[1]
        self.left[lanes] -= 1
        return self.values[lanes, self.left[lanes]]


def _doubles(bits: np.ndarray) -> np.ndarray:
    return uint64_to_double(bits[:, 0::2], bits[:, 1::2])


def _normal_doubles(bits: np.ndarray) -> np.ndarray:
    return np.stack(box_muller_double(bits[:, 0], bits[:, 1], bits[:, 2], bits[:, 3]), axis=1)


def gamma(gen: PhiloxRandom, alpha: np.ndarray) -> np.ndarray:
    """One Gamma(alpha[o], 1) draw per output ``o``, in double, as TF's ``RandomGammaOp``:
    ``alpha == 1`` is ``-log1p(-u)``; otherwise Marsaglia-Tsang's transformation-rejection
    from a normal ``x`` and a uniform ``u`` (``alpha < 1``: boosted, times ``u ** (1/alpha)``)."""
    n = alpha.size
    used = np.zeros(n, np.uint64)
    normal = _Buffered(gen, n, used, _normal_doubles, 2, np.float64)
    uniform = _Buffered(gen, n, used, _doubles, 2, np.float64)
    out = np.empty(n)
    one = np.flatnonzero(alpha == 1.0)
    out[one] = -libm64.log1p(-uniform.take(one))
    small = alpha < 1
    d = alpha + np.where(small, 2.0 / 3, -1.0 / 3)
    c = 1.0 / 3 / np.sqrt(d)
    drawing = np.flatnonzero(alpha != 1.0)
    while drawing.size:
        x = normal.take(drawing)
        v = 1 + c[drawing] * x
        tried, x, v = drawing[v > 0], x[v > 0], v[v > 0]     # v <= 0: TF's `continue`
        v = v * v * v
        u = uniform.take(tried)
        with np.errstate(divide="ignore"):
            ok = (u < 1 - 0.0331 * (x * x) * (x * x)) | (
                libm64.log(u) < 0.5 * x * x + d[tried] * (1 - v + libm64.log(v)))
        done, res = tried[ok], d[tried[ok]] * v[ok]
        boost = small[done]
        if boost.any():
            res[boost] *= libm64.pow(uniform.take(done[boost]), 1 / alpha[done[boost]])
        out[done] = res
        drawing = np.setdiff1d(drawing, done, assume_unique=True)
    return out


def poisson(gen: PhiloxRandom, rate: np.ndarray, highest: float = math.inf) -> np.ndarray:
    """One Poisson(rate[o]) draw per output ``o``, in double, as TF's ``PoissonFunctor``:
    Knuth's product of uniforms below rate 10, Hormann's transformed rejection (PTRS) from 10
    on; a count above ``highest`` (the output dtype's largest value) is drawn again."""
    rate = rate.astype(np.float64)
    used = np.zeros(rate.size, np.uint64)
    uniform = _Buffered(gen, rate.size, used, _doubles, 2, np.float64)
    out = np.zeros(rate.size)
    _knuth(uniform, rate, out, np.flatnonzero(rate < 10), highest)
    _hormann(uniform, rate, out, np.flatnonzero(~(rate < 10)), highest)
    return out


def _knuth(uniform: _Buffered, rate, out, drawing, highest: float) -> None:
    """Count uniforms until their product falls to ``exp(-rate)``."""
    exp_neg = libm64.exp(-rate)
    prod = np.ones(rate.size)
    while drawing.size:
        prod[drawing] = prod[drawing] * uniform.take(drawing)
        stop = (prod[drawing] <= exp_neg[drawing]) & (out[drawing] <= highest)
        out[drawing[~stop]] += 1
        drawing = drawing[~stop]


def _hormann(uniform: _Buffered, rate, out, drawing, highest: float) -> None:
    """Hormann (1993), "The transformed rejection method for generating Poisson random
    variables", with TF's constants."""
    lam = rate[drawing]
    log_rate = libm64.log(lam)
    b = 0.931 + 2.53 * np.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    lanes = np.arange(drawing.size)
    while lanes.size:
        u = uniform.take(drawing[lanes]) - 0.5
        v = uniform.take(drawing[lanes])
        us = 0.5 - np.abs(u)
        k = np.floor((2 * a[lanes] / us + b[lanes]) * u + lam[lanes] + 0.43)
        fits = ~(k > highest)
        quick = fits & (us >= 0.07) & (v <= v_r[lanes])
        test = fits & ~quick & ~((k < 0) | ((us < 0.013) & (v > us)))
        ok = quick.copy()
        if test.any():
            t_l = lanes[test]
            with np.errstate(divide="ignore"):
                s = libm64.log(v[test] * inv_alpha[t_l] / (a[t_l] / (us[test] * us[test]) + b[t_l]))
            t = -lam[t_l] + k[test] * log_rate[t_l] - _lgamma(k[test] + 1)
            ok[test] = s <= t
        out[drawing[lanes[ok]]] = k[ok]
        lanes = lanes[~ok]


def _lgamma(x: np.ndarray) -> np.ndarray:
    """``lgamma`` of whole numbers (Python's; glibc's agrees on these up to rare last bits)."""
    return np.array([math.lgamma(v) for v in x.tolist()], np.float64)

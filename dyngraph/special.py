"""``torch.special``: the special functions, each one registry op (``common/ops/special_fns.py``)
under PyTorch's name, plus the names ``torch.special`` gives functions found elsewhere
(``psi`` is ``digamma``, ``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``...).

>>> import dyngraph as torch
>>> torch.special.ndtr(torch.tensor([0.0])).item()
0.5
"""
from __future__ import annotations

import math

from common import REGISTRY

from .creation import arange
from .engine import apply
from .functions import _t, log_softmax, sigmoid, softmax
from .node import renamed, torch_node
from .pointwise import PRODUCT_AT_ZERO, digamma, erf, erfinv, exp2, expm1, lgamma, log1p, polygamma, round, xlogy
from .composite import logit
from .reductions import logsumexp

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "i0",
           "i0e", "i1", "i1e", "entr", "erfc", "erfcx", "ndtr", "ndtri", "log_ndtr", "sinc",
           "zeta", "xlog1py", "gammainc", "gammaincc", "multigammaln", "polygamma", "digamma",
           "psi", "gammaln", "erf", "erfinv", "exp2", "expit", "expm1", "log1p", "logit",
           "logsumexp", "log_softmax", "softmax", "round", "xlogy",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]

_R = REGISTRY


def _one(op_name: str, name: str):
    op = _R[op_name]

    def f(input):
        return apply(op, (_t(input),))
    f.__name__, f.__qualname__ = name, name
    f.__doc__ = op.doc
    return f


airy_ai = _one("AiryAi", "airy_ai")
bessel_j0, bessel_j1 = _one("BesselJ0", "bessel_j0"), _one("BesselJ1", "bessel_j1")
bessel_y0, bessel_y1 = _one("BesselY0", "bessel_y0"), _one("BesselY1", "bessel_y1")
modified_bessel_i0 = i0 = _one("BesselI0", "i0")
modified_bessel_i1 = i1 = _one("BesselI1", "i1")
modified_bessel_k0 = _one("BesselK0", "modified_bessel_k0")
modified_bessel_k1 = _one("BesselK1", "modified_bessel_k1")
scaled_modified_bessel_k0 = _one("BesselK0e", "scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _one("BesselK1e", "scaled_modified_bessel_k1")
spherical_bessel_j0 = _one("SphericalBesselJ0", "spherical_bessel_j0")
i0e, i1e = _one("BesselI0e", "i0e"), _one("BesselI1e", "i1e")
entr, erfc, erfcx = _one("Entr", "entr"), _one("Erfc", "erfc"), _one("Erfcx", "erfcx")
ndtr, ndtri, log_ndtr = _one("Ndtr", "ndtr"), _one("Ndtri", "ndtri"), _one("LogNdtr", "log_ndtr")
sinc = _one("Sinc", "sinc")
psi, gammaln, expit = digamma, lgamma, sigmoid


def _two(op_name: str, name: str):
    op = _R[op_name]

    def f(input, other):
        return apply(op, (_t(input), _t(other)))
    f.__name__, f.__qualname__ = name, name
    f.__doc__ = op.doc
    return f


zeta = _two("Zeta", "zeta")


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input == 0`` unless ``other`` is NaN (torch's)."""
    return apply(_R["Xlog1py"], (_t(input), _t(other)), PRODUCT_AT_ZERO)
gammainc = igamma = _two("Igamma", "igamma")
gammaincc = igammac = _two("Igammac", "igammac")


def _polynomial(kind: str, name: str):
    op = _R["OrthogonalPolynomial"]

    def f(input, n):
        return apply(op, (_t(input), _t(n)), {"kind": kind})
    f.__name__, f.__qualname__ = name, name
    f.__doc__ = f"The {kind.replace('_', ' ')} polynomial of degree ``n`` (truncated) at ``input``."
    return f


(chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v, chebyshev_polynomial_w,
 shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
 shifted_chebyshev_polynomial_w, hermite_polynomial_h, hermite_polynomial_he,
 laguerre_polynomial_l, legendre_polynomial_p) = (
    _polynomial(f"{k}_{s}", f"{k}_polynomial_{s}") for k, s in (
        ("chebyshev", "t"), ("chebyshev", "u"), ("chebyshev", "v"), ("chebyshev", "w"),
        ("shifted_chebyshev", "t"), ("shifted_chebyshev", "u"), ("shifted_chebyshev", "v"),
        ("shifted_chebyshev", "w"), ("hermite", "h"), ("hermite", "he"), ("laguerre", "l"),
        ("legendre", "p")))


@torch_node("MvlgammaBackward0")
def multigammaln(input, p: int):
    """``log Gamma_p(x) = p(p-1)/4 log(pi) + sum_{j<p} lgamma(x - j/2)`` (PyTorch 2.13 no longer
    refuses ``x <= (p-1)/2``: lgamma's values, +inf at its poles)."""
    x = _t(input)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    steps = arange(p, dtype=x.dtype) / -2.0
    terms = lgamma(x.unsqueeze(-1) + steps).sum(-1)
    return renamed(terms + p * (p - 1) / 4 * math.log(math.pi), multigammaln.node)


mvlgamma = multigammaln

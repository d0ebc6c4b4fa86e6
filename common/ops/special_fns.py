"""``torch.special``'s functions and TF's ``tf.math.special``: Bessel, Airy, the normal
distribution, ``erfc``/``erfcx``, ``zeta``, incomplete gamma, ``entr``, ``sinc``, ``xlog1py``
and the classical orthogonal polynomials.

numpy lacks these kernels; ``scipy.special`` has them (a core dependency), each computed in
float64 and returned in the input's float dtype. The gradient rules are the derivatives
PyTorch's ``derivatives.yaml`` and TF's ``math_grad.py`` write, over registry ops::

    d i0(x)  = i1(x)                 d i0e(x) = i1e(x) - sign(x) i0e(x)
    d i1(x)  = i0(x) - i1(x)/x       (1/2 at 0)     d k0(x) = -k1(x)  ...
    d ndtr(x) = exp(-x^2/2)/sqrt(2 pi)              d ndtri(p) = sqrt(2 pi) exp(ndtri(p)^2/2)

The polynomials (``OrthogonalPolynomial``) follow PyTorch's own kernels (ATen's ``Math.h``)
step by step -- its special cases at ``|x| = 1``, its closed forms for large ``n`` inside
(-1, 1), and the three-term recurrences -- computed in the input's dtype, so float32 rounds
as PyTorch's does. ``n`` is a tensor truncated to an integer; ``n < 0`` gives 0. PyTorch
declares no gradient for them, nor for ``airy_ai``/``spherical_bessel_j0``.

>>> import numpy as np
>>> from common import REGISTRY
>>> float(REGISTRY["Ndtr"].impl(np.array(0.0)))
0.5
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special as sc

from ..examples import Example as E, pos
from ..registry import Spec, defop
from ..shapes import broadcast_shapes, result_dtype, unbroadcast as ub
from .elementwise import BINARY, UNARY, floating
from .special import XY, _as_float, floating_binary, x_grad, x_over, zero_where_x_is

__all__: list[str] = []

_SQRT_2PI = math.sqrt(2 * math.pi)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _kernel(fn, name: str, doc: str):
    """An impl computing scipy's ``fn`` in float64, returned in the input's float dtype."""
    def impl(x):
        v, dtype = _as_float(x)
        with np.errstate(all="ignore"):
            return np.asarray(fn(v)).astype(dtype, copy=False)
    impl.__name__, impl.__doc__ = name, doc
    return impl


def _kernel2(fn, name: str, doc: str):
    """The two-input form of :func:`_kernel` (dtypes promoted first, as numpy's ufuncs)."""
    def impl(a, b):
        dtype = result_dtype(np.result_type(a, b), np.float16)
        with np.errstate(all="ignore"):
            return np.asarray(fn(np.asarray(a, np.float64), np.asarray(b, np.float64))).astype(
                dtype, copy=False)
    impl.__name__, impl.__doc__ = name, doc
    return impl


def _safe(F, x):
    """``x`` with its zeros made 1: the untaken side of a ``where`` at 0 stays finite."""
    return F.where(F.eq(x, 0.0), F.ones_like(x), x)


def _at_zero(F, x, value, rest):
    """``value`` where ``x == 0``, else ``rest`` (a derivative with a removable 0/0 there)."""
    return F.where(F.eq(x, 0.0), F.add(F.zeros_like(rest), value), rest)


POSX = (E((pos((4,)),)), E((np.array([[0.3, 1.5], [4.0, 9.0]]),)))
NONZERO = (E((np.array([-2.5, -0.4, 0.3, 1.7, 6.0]),)), E((np.array([[0.5, -1.5], [3.0, 2.0]]),)))
UNIT_OPEN = (E((np.array([0.02, 0.3, 0.5, 0.8, 0.97]),)),)

# name, fname, scipy kernel, gradient rule (None: neither framework has one; TF has the Bessel
# J/Y/K ones PyTorch lacks, so both engines get them), examples, doc
_UNARY = [
    ("BesselI0", "bessel_i0", sc.i0, lambda F, g, x: F.mul(g, F.bessel_i1(x)), UNARY,
     "The modified Bessel function of the first kind, order 0 (torch.i0)."),
    ("BesselI0e", "bessel_i0e", sc.i0e,
     lambda F, g, x, out: F.mul(g, F.sub(F.bessel_i1e(x), F.mul(F.sign(x), out))), UNARY,
     "``exp(-|x|) i0(x)``."),
    ("BesselI1", "bessel_i1", sc.i1,
     lambda F, g, x, out: F.mul(g, _at_zero(F, x, 0.5, F.sub(F.bessel_i0(x), F.div(out, _safe(F, x))))),
     UNARY + NONZERO, "The modified Bessel function of the first kind, order 1."),
    ("BesselI1e", "bessel_i1e", sc.i1e,
     lambda F, g, x, out: F.mul(g, _at_zero(F, x, 0.5, F.sub(F.bessel_i0e(x), F.mul(
         out, F.add(F.sign(x), F.div(1.0, _safe(F, x))))))),
     UNARY + NONZERO, "``exp(-|x|) i1(x)``."),
    ("BesselK0", "bessel_k0", sc.k0, lambda F, g, x: F.neg(F.mul(g, F.bessel_k1(x))), POSX,
     "The modified Bessel function of the second kind, order 0 (inf at 0, NaN below)."),
    ("BesselK0e", "bessel_k0e", sc.k0e,
     lambda F, g, x, out: F.mul(g, F.sub(out, F.bessel_k1e(x))), POSX, "``exp(x) k0(x)``."),
    ("BesselK1", "bessel_k1", sc.k1,
     lambda F, g, x, out: F.neg(F.mul(g, F.add(F.bessel_k0(x), F.div(out, x)))), POSX,
     "The modified Bessel function of the second kind, order 1."),
    ("BesselK1e", "bessel_k1e", sc.k1e,
     lambda F, g, x, out: F.mul(g, F.sub(F.mul(out, F.sub(1.0, F.div(1.0, x))), F.bessel_k0e(x))),
     POSX, "``exp(x) k1(x)``."),
    ("BesselJ0", "bessel_j0", sc.j0, lambda F, g, x: F.neg(F.mul(g, F.bessel_j1(x))), UNARY,
     "The Bessel function of the first kind, order 0."),
    ("BesselJ1", "bessel_j1", sc.j1,
     lambda F, g, x, out: F.mul(g, _at_zero(F, x, 0.5, F.sub(F.bessel_j0(x), F.div(out, _safe(F, x))))),
     UNARY + NONZERO, "The Bessel function of the first kind, order 1."),
    ("BesselY0", "bessel_y0", sc.y0, lambda F, g, x: F.neg(F.mul(g, F.bessel_y1(x))), POSX,
     "The Bessel function of the second kind, order 0 (-inf at 0, NaN below)."),
    ("BesselY1", "bessel_y1", sc.y1,
     lambda F, g, x, out: F.mul(g, F.sub(F.bessel_y0(x), F.div(out, x))), POSX,
     "The Bessel function of the second kind, order 1."),
    ("AiryAi", "airy_ai", lambda v: sc.airy(v)[0], None, UNARY,
     "The Airy function ``Ai(x)``."),
    ("SphericalBesselJ0", "spherical_bessel_j0", lambda v: sc.spherical_jn(0, v), None,
     UNARY, "``sin(x) / x`` (1 at 0): the spherical Bessel function of the first kind, order 0."),
    ("Erfc", "erfc", sc.erfc,
     lambda F, g, x: F.mul(g, F.mul(F.exp(F.neg(F.mul(x, x))), -_TWO_OVER_SQRT_PI)), UNARY,
     "``1 - erf(x)``, without the cancellation for large x."),
    ("Erfcx", "erfcx", sc.erfcx,
     lambda F, g, x, out: F.mul(g, F.sub(F.mul(F.mul(x, out), 2.0), _TWO_OVER_SQRT_PI)), UNARY,
     "``exp(x^2) erfc(x)``, the scaled complementary error function."),
    ("Ndtr", "ndtr", sc.ndtr,
     lambda F, g, x: F.mul(g, F.div(F.exp(F.mul(F.mul(x, x), -0.5)), _SQRT_2PI)), UNARY,
     "The standard normal distribution function ``P(N(0, 1) <= x)``."),
    ("LogNdtr", "log_ndtr", sc.log_ndtr,
     lambda F, g, x, out: F.mul(g, F.div(F.exp(F.sub(F.mul(F.mul(x, x), -0.5), out)), _SQRT_2PI)),
     UNARY, "``log(ndtr(x))``, accurate far into the lower tail."),
    ("Ndtri", "ndtri", sc.ndtri,
     lambda F, g, out: F.mul(g, F.mul(F.exp(F.mul(F.mul(out, out), 0.5)), _SQRT_2PI)), UNIT_OPEN,
     "The inverse of ``ndtr``: the standard normal quantile of ``p`` (+-inf at 1 and 0)."),
    ("Entr", "entr", sc.entr, lambda F, g, x: F.neg(F.mul(g, F.add(F.log(x), 1.0))), POSX,
     "``-x log(x)``: 0 at 0, -inf below 0 (an entropy's terms)."),
]

#: the ``grad_fn`` names PyTorch prints, where they are not ``<name>Backward0``
_TORCH_NAMES = {"BesselI0": "I0Backward0", "BesselI0e": "SpecialI0EBackward0",
                "BesselI1": "SpecialI1Backward0", "BesselI1e": "SpecialI1EBackward0",
                "Erfcx": "SpecialErfcxBackward0", "Ndtr": "MulBackward1",
                "LogNdtr": "SpecialLogNdtrBackward0", "Ndtri": "SpecialNdtriBackward0",
                "Entr": "SpecialEntrBackward0"}

for _name, _fname, _fn, _grad, _examples, _doc in _UNARY:
    defop(_name, _kernel(_fn, _fname, _doc), floating, inputs=("x",), fname=_fname,
          examples=_examples, grads=(_grad,) if _grad else (), doc=_doc,
          torch_name=_TORCH_NAMES.get(_name))


def _sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0 (the normalised sinc, numpy's and PyTorch's)."""
    v, dtype = _as_float(x)
    return np.asarray(np.sinc(v)).astype(dtype, copy=False)


def _sinc_grad(F, g, x):
    """``(cos(pi x) pi x - sin(pi x)) / (pi x^2)``, 0 at 0 (PyTorch's ``sinc_backward``)."""
    px = F.mul(_safe(F, x), math.pi)
    d = F.div(F.sub(F.mul(F.cos(px), px), F.sin(px)), F.mul(px, _safe(F, x)))
    return F.mul(g, _at_zero(F, x, 0.0, d))


defop("Sinc", _sinc, floating, inputs=("x",), fname="sinc", examples=UNARY + NONZERO,
      grads=(_sinc_grad,))

# --- two inputs -----------------------------------------------------------------------------

_zeta = _kernel2(sc.zeta, "zeta", "The Hurwitz zeta function ``sum_k (k + q)^-x``.")
_igamma = _kernel2(sc.gammainc, "igamma",
                   "The regularized lower incomplete gamma function ``P(a, x)``.")
_igammac = _kernel2(sc.gammaincc, "igammac",
                    "The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``.")


def _igamma_dx(F, g, a, x):
    """``d P(a, x) / dx = x^(a-1) e^-x / Gamma(a)``."""
    return F.mul(g, F.exp(F.sub(F.sub(F.mul(F.sub(a, 1.0), F.log(x)), x), F.lgamma(a))))


GAMMA_AX = (E((pos((3,)), pos((3,)))), E((pos((2, 1)), pos((1, 4)))))
ZETA_XQ = (E((np.array([2.0, 3.5, 5.0]), pos((3,)))), E((np.array([[2.5], [4.0]]), pos((1, 3)))))

defop("Zeta", _zeta, floating_binary, inputs=("x", "q"), fname="zeta", examples=ZETA_XQ,
      torch_name="SpecialZetaBackward0",
      grads=(None, lambda F, g, x, q, q_shape: ub(F, F.mul(F.neg(g), F.mul(x, F.zeta(F.add(x, 1.0), q))),
                                                  q_shape)))
defop("Igamma", _igamma, floating_binary, inputs=("a", "x"), fname="igamma", examples=GAMMA_AX,
      grads=(None, lambda F, g, a, x, x_shape: ub(F, _igamma_dx(F, g, a, x), x_shape)))
defop("Igammac", _igammac, floating_binary, inputs=("a", "x"), fname="igammac", examples=GAMMA_AX,
      grads=(None, lambda F, g, a, x, x_shape: ub(F, F.neg(_igamma_dx(F, g, a, x)), x_shape)))


def _xlog1py(x, y, product_at_zero=False):
    """``x * log1p(y)``, and 0 where ``x == 0`` (see ``special.zero_where_x_is``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(zero_where_x_is(x, y, product_at_zero), 0.0, x * np.log1p(y))).astype(
            result_dtype(np.result_type(x, y), np.float16), copy=False)


defop("Xlog1py", _xlog1py, floating_binary, inputs=("x", "y"), fname="xlog1py",
      examples=XY + (E(((2, 3), pos((3,))), {"product_at_zero": True}),),
      torch_name="SpecialXlog1PyBackward0",
      grads=(lambda F, g, x, y, x_shape, product_at_zero:
             ub(F, x_grad(F, g, x, y, product_at_zero, F.xlog1py, -1.0), x_shape),
             lambda F, g, x, y, y_shape, product_at_zero:
             ub(F, F.mul(g, x_over(F, x, F.add(y, 1.0), product_at_zero)), y_shape)))

# --- orthogonal polynomials, as PyTorch's kernels compute them --------------------------------


def _chebyshev(y, n, kind: str, closed_above: int):
    """Chebyshev ``T``/``U``/``V``/``W`` of degree ``n`` at ``y`` (ATen's kernels; the shifted
    ones call this with ``y = 2x - 1``, their own ``closed_above`` threshold)."""
    one = np.ones_like(y)
    first = {"t": y, "u": y + y, "v": y + y - 1, "w": y + y + 1}[kind]
    q = _recur(lambda k, p, q: (y + y) * q - p, one, first, n, 2, inclusive=True)
    with np.errstate(all="ignore"):
        nf = n.astype(y.dtype)
        odd = (n % 2) == 1
        sign = np.where(odd, -1, 1).astype(y.dtype)
        theta = np.arccos(y)
        inside = (n > closed_above) & (np.abs(y) < 1)
        if kind == "t":
            edge = np.where((y > 0) | ~odd, 1, -1).astype(y.dtype)
            closed = np.cos(nf * theta)
        elif kind == "u":
            edge = np.where((y > 0) | ~odd, nf + 1, -(nf + 1))
            s = np.sin(theta)
            closed = np.where(s != 0, np.sin((nf + 1) * theta) / s, (nf + 1) * np.cos((nf + 1) * theta) / y)
        elif kind == "v":
            edge = np.where(y > 0, one, sign * (nf + nf + 1))
            c = np.sin(theta / 2) != 1
            closed = np.where(c, np.cos((nf + 0.5) * theta) / np.cos(theta / 2), sign * (nf + nf + 1))
        else:
            edge = np.where(y > 0, nf + nf + 1, sign)
            c = np.cos(theta / 2) != 1
            closed = np.where(c, np.sin((nf + 0.5) * theta) / np.sin(theta / 2),
                              np.where(y > 0, nf + nf + 1, sign))
        out = np.where(inside, closed, np.where(n == 0, one, q))
        out = np.where(np.abs(y) == 1, edge, out)
    return np.where(n < 0, 0, out).astype(y.dtype)


def _recur(step, p, q, n, start: int, inclusive: bool = False, nan_stops: bool = True):
    """``p, q = q, step(k, p, q)`` for ``k = start, start + 1, ...`` while ``k <= n``
    (``k < n`` unless ``inclusive``), each element on its own count and, with ``nan_stops``,
    stopping once its ``q`` is NaN -- ATen's loops, vectorised; returns ``q``."""
    top = int(n.max(initial=0))
    with np.errstate(all="ignore"):
        for k in range(start, top + 1):
            live = (k <= n) if inclusive else (k < n)
            if nan_stops:
                live &= ~np.isnan(q)
            if not live.any():
                break
            r = step(k, p, q)
            p, q = np.where(live, q, p), np.where(live, r, q)
    return q


def _hermite(x, n, kind: str):
    """Physicists' ``H`` (``kind='h'``) or probabilists' ``He``; NaN beyond ATen's degree
    limit (128 in float32, 512 in float64)."""
    if kind == "h":
        q = _recur(lambda k, p, q: (x + x) * q - (k + k) * p, np.ones_like(x), x + x, n, 1,
                   nan_stops=False)
    else:
        q = _recur(lambda k, p, q: x * q - k * p, np.ones_like(x), x, n, 1, nan_stops=False)
    limit = 128 if x.dtype == np.float32 else 512
    out = np.where(n == 0, 1, np.where(n > limit, np.nan, q))
    return np.where(n < 0, 0, out).astype(x.dtype)


def _laguerre(x, n):
    q = _recur(lambda k, p, q: (((k + k) + (1 - x)) * q - k * p) / (k + 1), np.ones_like(x), 1 - x,
               n, 1)
    out = np.where((n == 0) | (x == 0), 1, q)
    return np.where(n < 0, 0, out).astype(x.dtype)


def _legendre(x, n):
    q = _recur(lambda k, p, q: ((k + k + 1) * x * q - k * p) / (k + 1), np.ones_like(x), x, n, 1)
    edge = np.where((x > 0) | (n % 2 == 0), 1, -1)
    out = np.where(np.abs(x) == 1, edge, np.where(n == 0, 1, q))
    return np.where(n < 0, 0, out).astype(x.dtype)


#: kind -> (how its value is computed from x (in x's dtype) and the integer degree n)
_POLYNOMIALS = {
    "chebyshev_t": lambda x, n: _chebyshev(x, n, "t", 6),
    "chebyshev_u": lambda x, n: _chebyshev(x, n, "u", 8),
    "chebyshev_v": lambda x, n: _chebyshev(x, n, "v", 8),
    "chebyshev_w": lambda x, n: _chebyshev(x, n, "w", 8),
    "shifted_chebyshev_t": lambda x, n: _chebyshev(x + x - 1, n, "t", 6),
    "shifted_chebyshev_u": lambda x, n: _chebyshev(x + x - 1, n, "u", 6),
    "shifted_chebyshev_v": lambda x, n: _chebyshev(x + x - 1, n, "v", 6),
    "shifted_chebyshev_w": lambda x, n: _chebyshev(x + x - 1, n, "w", 4),
    "hermite_h": lambda x, n: _hermite(x, n, "h"),
    "hermite_he": lambda x, n: _hermite(x, n, "he"),
    "laguerre_l": _laguerre,
    "legendre_p": _legendre,
}


def _polynomial(x, n, kind: str = "chebyshev_t"):
    """The degree-``n`` polynomial of family ``kind`` at ``x`` (``n`` truncated to an integer,
    as ATen's ``static_cast<int64_t>``)."""
    dtype = result_dtype(np.result_type(x, n), np.float16)
    xb, nb = np.broadcast_arrays(np.asarray(x, dtype), np.asarray(n))
    with np.errstate(invalid="ignore"):
        degree = nb.astype(np.int64) if nb.dtype.kind == "f" else nb.astype(np.int64, copy=False)
    return np.asarray(_POLYNOMIALS[kind](np.array(xb), degree), dtype=dtype)


def _polynomial_infer(x: Spec, n: Spec, kind: str = "chebyshev_t") -> Spec:
    if kind not in _POLYNOMIALS:
        raise ValueError(f"unknown polynomial family {kind!r}; known: {sorted(_POLYNOMIALS)}")
    return Spec(broadcast_shapes(x.shape, n.shape), result_dtype(np.result_type(x.dtype, n.dtype),
                                                                 np.float16))


defop("OrthogonalPolynomial", _polynomial, _polynomial_infer, inputs=("x", "n"),
      fname="orthogonal_polynomial",
      examples=tuple(E((np.array([-1.0, -0.6, 0.0, 0.3, 1.0, 1.7]), np.array([0.0, 1.0, 2.0, 5.0, 9.0, 12.0])),
                       {"kind": k}) for k in _POLYNOMIALS) + (E(BINARY[1].args, {"kind": "legendre_p"}),),
      doc="PyTorch's ``special.<kind>_polynomial_*(x, n)``: see the module docstring.")

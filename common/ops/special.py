"""Special functions and their relatives: inverse trig and hyperbolic functions, ``atan2``,
``lgamma``/``digamma``/``polygamma``, and the zero-safe products ``xlogy``/``xdivy``.

numpy has no gamma-family functions and scipy is no dependency, so they are computed here:

    lgamma       ``math.lgamma`` elementwise (exact to double precision); +inf at the poles
    digamma      recurrence ``psi(x) = psi(x + 1) - 1/x`` up to x >= 10, then the asymptotic
                 series ``log x - 1/(2x) - sum B_2k / (2k x^2k)``; reflection for x < 0
    polygamma    ``psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1)`` up to x >= 15, then
                 the asymptotic series; the gradient of ``psi^(n)`` is ``psi^(n+1)``

which is as accurate as float64 allows (~1e-15 relative) away from the poles.  ``xlogy(x, y)``
is ``x * log(y)`` but 0 where ``x == 0`` (so ``0 * log(0)`` is 0, as entropy sums need).

>>> import numpy as np
>>> from common import REGISTRY
>>> round(float(REGISTRY["Digamma"].impl(np.array(1.0))), 12)  # -Euler's gamma
-0.577215664902
"""
from __future__ import annotations

import math

import numpy as np

from ..examples import Example as E, pos
from ..registry import defop
from ..shapes import result_dtype, unbroadcast as ub
from .elementwise import BINARY, UNARY, binary, floating

__all__: list[str] = []

# Bernoulli numbers B_2 .. B_16, for the asymptotic series.
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def floating_binary(a, b, **_):
    """Broadcast shapes; the promoted dtype, ints and bools made floats (as numpy's ufuncs)."""
    return floating(binary(a, b))


def _as_float(x) -> tuple[np.ndarray, np.dtype]:
    """``x`` as float64 for the computation, and the dtype to give the result."""
    x = np.asarray(x)
    return x.astype(np.float64), result_dtype(x.dtype, np.float16)


def _lgamma_one(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:  # a pole: 0, -1, -2, ...
        return math.inf


_LGAMMA = np.frompyfunc(_lgamma_one, 1, 1)


def _lgamma(x):
    """``log |Gamma(x)|``, elementwise; +inf at the poles (0, -1, -2...)."""
    v, dtype = _as_float(x)
    return np.asarray(_LGAMMA(v), dtype=np.float64).astype(dtype, copy=False)


def _digamma64(x: np.ndarray) -> np.ndarray:
    x = np.array(x, dtype=np.float64)
    out = np.zeros_like(x)
    pole = (x <= 0) & (x == np.floor(x))
    neg = (x < 0) & ~pole
    # reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[neg] = -np.pi / np.tan(np.pi * x[neg])
    x = np.where(neg, 1.0 - x, np.where(pole, 1.0, x))
    small = x < 10.0
    while small.any():
        out[small] -= 1.0 / x[small]
        x = np.where(small, x + 1.0, x)
        small = x < 10.0
    inv2 = 1.0 / (x * x)
    series = np.zeros_like(x)  # sum_k B_2k / (2k) x^-2k, by Horner in x^-2
    for k in range(len(_B2K), 0, -1):
        series = (series + _B2K[k - 1] / (2 * k)) * inv2
    out += np.log(x) - 0.5 / x - series
    out[pole] = np.nan
    return out


def _digamma(x, inf_at_zero=False):
    """``d/dx log Gamma(x)``, elementwise; NaN at the poles (0, -1, -2...), as TF -- but with
    ``inf_at_zero``, PyTorch's ``-inf`` at 0 (``+inf`` at -0.0), the limit from that side."""
    v, dtype = _as_float(x)
    out = _digamma64(v)
    if inf_at_zero:
        out = np.where(v == 0, np.where(np.signbit(v), np.inf, -np.inf), out)
    return out.astype(dtype, copy=False)


def _polygamma(n, x):
    """``psi^(n)(x)``, the n-th derivative of digamma (``n`` a non-negative integer)."""
    v, dtype = _as_float(x)
    n_arr = np.asarray(n)
    orders = np.unique(n_arr)
    if orders.size == 1:
        return _polygamma64(int(orders[0]), v).astype(dtype, copy=False)
    nb, vb = np.broadcast_arrays(n_arr, v)
    out = np.empty(vb.shape)
    for order in orders:
        mask = nb == order
        out[mask] = _polygamma64(int(order), vb[mask])
    return out.astype(dtype, copy=False)


def _polygamma64(n: int, x: np.ndarray) -> np.ndarray:
    if n < 0 or n != int(n):
        return np.full(np.shape(x), np.nan)
    if n == 0:
        return _digamma64(x)
    x = np.array(x, dtype=np.float64)
    sign = 1.0 if n % 2 else -1.0  # (-1)^(n+1)
    fact = math.factorial(n)
    out = np.zeros_like(x)
    small = x < 15.0
    with np.errstate(divide="ignore", invalid="ignore"):
        while small.any():
            out[small] += fact / x[small] ** (n + 1)
            x = np.where(small, x + 1.0, x)
            small = x < 15.0
        series = math.factorial(n - 1) / x ** n + fact / (2.0 * x ** (n + 1))
        for k, b in enumerate(_B2K, start=1):
            series += b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / x ** (2 * k + n)
    return sign * (out + series)


defop("Lgamma", _lgamma, floating, inputs=("x",), fname="lgamma", examples=UNARY + (E((pos((3,)),)),),
      grads=(lambda F, g, x: F.mul(g, F.digamma(x)),))
defop("Digamma", _digamma, floating, inputs=("x",), fname="digamma",
      examples=(E((pos((4,)),)), E((np.array([-2.5, -0.3, 0.7, 12.0, 40.0]),)),
                E((pos((3,)),), {"inf_at_zero": True})),
      grads=(lambda F, g, x: F.mul(g, F.polygamma(F.ones_like(x), x)),))
defop("Polygamma", _polygamma, floating_binary, inputs=("a", "x"), fname="polygamma",
      examples=(E((np.array(1.0), pos((4,)))), E((np.array([[1.0], [2.0]]), np.array([0.7, 3.0, 20.0])))),
      grads=(None, lambda F, g, a, x, x_shape: ub(F, F.mul(g, F.polygamma(F.add(a, 1.0), x)), x_shape)),
      doc="``psi^(a)(x)``: the ``a``-th derivative of digamma (``a`` a non-negative integer).")

# --- the rest of tf.math's trigonometry ----------------------------------------------

UNIT = (E((np.array([-0.7, -0.2, 0.1, 0.6]),)), E((np.array([[0.3, -0.5], [0.8, 0.0]]),)))

defop("Asin", np.arcsin, floating, inputs=("x",), fname="asin", examples=UNIT,
      grads=(lambda F, g, x: F.div(g, F.sqrt(F.sub(1.0, F.mul(x, x)))),))
defop("Acos", np.arccos, floating, inputs=("x",), fname="acos", examples=UNIT,
      grads=(lambda F, g, x: F.neg(F.div(g, F.sqrt(F.sub(1.0, F.mul(x, x))))),))
defop("Atan", np.arctan, floating, inputs=("x",), fname="atan", examples=UNARY,
      grads=(lambda F, g, x: F.div(g, F.add(F.mul(x, x), 1.0)),))
defop("Sinh", np.sinh, floating, inputs=("x",), fname="sinh", examples=UNARY,
      grads=(lambda F, g, x: F.mul(g, F.cosh(x)),))
defop("Cosh", np.cosh, floating, inputs=("x",), fname="cosh", examples=UNARY,
      grads=(lambda F, g, x: F.mul(g, F.sinh(x)),))
defop("Asinh", np.arcsinh, floating, inputs=("x",), fname="asinh", examples=UNARY,
      grads=(lambda F, g, x: F.div(g, F.sqrt(F.add(F.mul(x, x), 1.0))),))
defop("Acosh", np.arccosh, floating, inputs=("x",), fname="acosh",
      examples=(E((np.array([1.2, 2.0, 5.0]),)),),
      grads=(lambda F, g, x: F.div(g, F.sqrt(F.sub(F.mul(x, x), 1.0))),))
defop("Atanh", np.arctanh, floating, inputs=("x",), fname="atanh", examples=UNIT,
      grads=(lambda F, g, x: F.div(g, F.sub(1.0, F.mul(x, x))),))


def _atan2(y, x, zero_at_origin=False):
    """The angle of the point ``(x, y)``: ``atan(y / x)`` in the right quadrant.
    ``zero_at_origin`` chooses the gradient at (0, 0): 0 (PyTorch's) rather than NaN (TF's)."""
    return np.arctan2(y, x)


def _over_norm2(F, g, y, x, zero_at_origin=False):
    """``g / (x^2 + y^2)``; with ``zero_at_origin`` 0 where that is ``g / 0``."""
    norm2 = F.add(F.mul(x, x), F.mul(y, y))
    if not zero_at_origin:
        return F.div(g, norm2)
    origin = F.eq(norm2, 0.0)
    return F.where(origin, 0.0, F.div(g, F.where(origin, 1.0, norm2)))


defop("Atan2", _atan2, floating_binary, inputs=("y", "x"), fname="atan2",
      examples=BINARY + (E(((3,), (3,)), {"zero_at_origin": True}),),
      grads=(lambda F, g, y, x, y_shape, zero_at_origin:
             ub(F, F.mul(_over_norm2(F, g, y, x, zero_at_origin), x), y_shape),
             lambda F, g, y, x, x_shape, zero_at_origin:
             ub(F, F.neg(F.mul(_over_norm2(F, g, y, x, zero_at_origin), y)), x_shape)))

# --- zero-safe products -----------------------------------------------------------


# ``x * log(y)`` and ``x * log1p(y)`` are 0 where ``x == 0``. TF's ops make that a region
# where nothing depends on ``y`` (0 even for a NaN ``y``; gradients 0 there). PyTorch's keep
# the product (``product_at_zero``): a NaN ``y`` gives NaN, the x-gradient is ``log(y)``
# (0 only where ``y`` is outside the domain), the y-gradient ``x / y`` (NaN at (0, 0)).


def zero_where_x_is(x, y, product_at_zero: bool):
    """Where ``x * f(y)`` is 0 by convention: ``x == 0``, and ``y`` not NaN for PyTorch's."""
    zero = np.equal(x, 0)
    return zero & ~np.isnan(y) if product_at_zero else zero


def _xlogy(x, y, product_at_zero=False):
    """``x * log(y)``, and 0 where ``x == 0`` (see :func:`zero_where_x_is`)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(zero_where_x_is(x, y, product_at_zero), 0.0, x * np.log(y))
                          ).astype(result_dtype(np.result_type(x, y), np.float16), copy=False)


def _xdivy(x, y):
    """``x / y``, and 0 where ``x == 0`` (whatever ``y`` is)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(np.equal(x, 0), 0.0, np.true_divide(x, y))).astype(
            result_dtype(np.result_type(x, y), np.float16), copy=False)


def _nonzero(F, x):
    """1 where ``x != 0``, else 0, in ``x``'s dtype."""
    return F.where(F.ne(x, 0.0), F.ones_like(x), F.zeros_like(x))


XY = (E(((3,), pos((3,)))), E(((2, 3), pos((3,)))), E(((2, 1), pos((1, 4)))))  # x == 0: tested apart

def x_over(F, x, y, product_at_zero: bool):
    """The y-gradient factor of ``x * log(y)``: ``x / y``, 0 where ``x == 0`` (TF's ``xdivy``)
    or the quotient itself (PyTorch's: NaN at (0, 0))."""
    return F.div(x, y) if product_at_zero else F.xdivy(x, y)


def x_grad(F, g, x, y, product_at_zero: bool, log_of, edge: float):
    """The x-gradient of ``x * log_of(y)``: TF's ``log_of(y)`` where ``x != 0`` (else 0), or
    PyTorch's ``log_of(y)`` everywhere but ``x == 0 and y <= edge`` (0 there: ``log`` of a
    point outside the domain)."""
    if not product_at_zero:
        return F.mul(g, log_of(_nonzero(F, x), y))
    d = log_of(g, y, product_at_zero=True)
    return F.where(F.logical_and(F.eq(x, 0.0), F.le(y, edge)), F.zeros_like(d), d)


defop("Xlogy", _xlogy, floating_binary, inputs=("x", "y"), fname="xlogy",
      examples=XY + (E(((2, 3), pos((3,))), {"product_at_zero": True}),),
      grads=(lambda F, g, x, y, x_shape, product_at_zero:
             ub(F, x_grad(F, g, x, y, product_at_zero, F.xlogy, 0.0), x_shape),
             lambda F, g, x, y, y_shape, product_at_zero:
             ub(F, F.mul(g, x_over(F, x, y, product_at_zero)), y_shape)))
defop("Xdivy", _xdivy, floating_binary, inputs=("x", "y"), fname="xdivy", examples=XY,
      grads=(lambda F, g, x, y, x_shape: ub(F, F.mul(g, F.xdivy(_nonzero(F, x), y)), x_shape),
             lambda F, g, x, y, y_shape: ub(F, F.mul(g, F.xdivy(F.neg(x), F.mul(y, y))), y_shape)))

# --- the inverse error function ---------------------------------------------------------------

_ERF, _ERFC = np.frompyfunc(math.erf, 1, 1), np.frompyfunc(math.erfc, 1, 1)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _erfinv_guess(a: np.ndarray) -> np.ndarray:
    """Giles' single-precision approximation of ``erfinv(a)`` for ``0 <= a < 1`` (relative
    error below 4e-7): the starting point of the refinement."""
    w = -np.log((1.0 - a) * (1.0 + a))
    centre = w - 2.5
    p = np.full_like(a, 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * centre
    tail = np.sqrt(w) - 3.0
    q = np.full_like(a, -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        q = c + q * tail
    return np.where(w < 5.0, p, q) * a


def _erfinv(x):
    """``y`` with ``erf(y) = x``, elementwise: +-inf at +-1, NaN outside [-1, 1].

    numpy and the standard library have no erfinv, and scipy is no dependency: Giles' rational
    approximation, then two Halley steps on ``f(y) = erf(y) - a`` (``a = |x|``), written as
    ``(1 - a) - erfc(y)`` for ``a >= 1/2`` so the tail does not cancel, each step roughly
    tripling the correct digits, so the result is as accurate as float64 and ``math.erfc``.
    """
    v, dtype = _as_float(x)
    a = np.abs(v)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inside = a < 1.0
        y = _erfinv_guess(np.where(inside, a, 0.0))
        for _ in range(2):
            body = np.asarray(_ERF(y), dtype=np.float64) - a
            tail = (1.0 - a) - np.asarray(_ERFC(y), dtype=np.float64)
            f = np.where(inside, np.where(a < 0.5, body, tail), 0.0)
            slope = _TWO_OVER_SQRT_PI * np.exp(-y * y)  # d erf / dy; f' = slope
            y = y - f / (slope + y * f)                  # Halley: f'' = -2 y f'
        out = np.where(inside, y, np.where(a == 1.0, np.inf, np.nan))
    return (np.copysign(out, v)).astype(dtype, copy=False)


defop("Erfinv", _erfinv, floating, inputs=("x",), fname="erfinv",
      examples=(E((np.array([-0.9, -0.3, 0.0, 0.25, 0.75, 0.999]),)),
                E((np.array([[0.1, -0.6], [0.95, 0.5]]),))),
      grads=(lambda F, g, out: F.mul(g, F.mul(F.exp(F.mul(out, out)), math.sqrt(math.pi) / 2)),),
      doc="The inverse of ``erf``; its derivative is ``sqrt(pi) / 2 * exp(erfinv(x)**2)``.")

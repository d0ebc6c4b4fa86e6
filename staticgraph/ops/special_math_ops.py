"""``tf.math``'s special functions and ``tf.math.special`` (TF's ``special_math_ops.py``): the
Bessel functions, ``erfc``, ``ndtri``, the incomplete gamma functions, ``zeta``, ``xlog1py``,
``cumulative_logsumexp``, ``nextafter`` -- each the registry op of TF's type,
named as TF names it (``bessel_i0/BesselI0``, ``Erfc``, ``ndtri/Ndtri``...).

>>> import staticgraph as tf
>>> with tf.Session() as s:
...     float(s.run(tf.math.ndtri(0.5)))
0.0
"""
from __future__ import annotations

from common import REGISTRY

from ..framework.build import apply, convert_to_tensor
from ..framework.graph import name_scope
from .core_ops import _binary, _unary

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1",
           "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1",
           "erfc", "ndtri", "igamma", "igammac", "zeta", "xlog1py", "cumulative_logsumexp",
           "nextafter"]

#: what ``tf.math`` itself exports of these (the rest is ``tf.math.special`` only)
MATH = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "erfc", "ndtri", "igamma",
        "igammac", "zeta", "xlog1py", "cumulative_logsumexp", "nextafter"]
#: ``tf.math.special``
SPECIAL = [n for n in __all__ if n.startswith("bessel_")]


def _scoped(op_type: str, scope: str):
    """A unary function whose node TF names ``<scope>/<op_type>``."""
    def f(x, name=None):
        with name_scope(name, scope):
            return _unary(op_type, x, None)
    f.__name__ = f.__qualname__ = scope
    f.__doc__ = REGISTRY[op_type].doc
    return f


(bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, bessel_j0, bessel_j1, bessel_k0, bessel_k0e,
 bessel_k1, bessel_k1e, bessel_y0, bessel_y1) = (
    _scoped("Bessel" + s[0].upper() + s[1:], "bessel_" + s)
    for s in ("i0", "i0e", "i1", "i1e", "j0", "j1", "k0", "k0e", "k1", "k1e", "y0", "y1"))
ndtri = _scoped("Ndtri", "ndtri")


def erfc(x, name=None): return _unary("Erfc", x, name)
def igamma(a, x, name=None): return _binary("Igamma", a, x, name)
def igammac(a, x, name=None): return _binary("Igammac", a, x, name)
def zeta(x, q, name=None): return _binary("Zeta", x, q, name)
def nextafter(x1, x2, name=None): return _binary("NextAfter", x1, x2, name)


def xlog1py(x, y, name=None):
    """``x * log1p(y)``, 0 where ``x == 0`` (TF's node: ``xlog1py/Xlog1py``)."""
    with name_scope(name, "xlog1py"):
        return _binary("Xlog1py", x, y, None)


def cumulative_logsumexp(x, axis=0, exclusive: bool = False, reverse: bool = False, name=None):
    """``log(cumsum(exp(x)))`` along ``axis``, without overflow."""
    return apply(REGISTRY["CumulativeLogsumexp"], (convert_to_tensor(x),),
                 {"axis": int(axis), "exclusive": bool(exclusive), "reverse": bool(reverse)},
                 name=name)


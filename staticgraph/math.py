"""``tf.math``: the elementwise and reduction functions under their ``tf.math`` names."""
from .ops.math_ops import *  # noqa: F403
from .ops.math_ops import __all__ as _math_all
from .ops.core_ops import (abs, add, divide, equal, exp, greater, greater_equal, less, less_equal, log,  # noqa: A004
                           logical_and, logical_not, logical_or, maximum, minimum, multiply, negative,
                           not_equal, pow, reciprocal, reduce_max, reduce_mean, reduce_min, reduce_sum,
                           sigmoid, sign, sqrt, square, subtract, tanh, truediv, add_n, realdiv)
from .ops.array_ops import argmax, argmin, squared_difference
from .ops.math_ops import reduce_euclidean_norm  # tf.math only, as in TF
from .ops.nn_ops import l2_normalize, softplus
from .ops.complex_ops import angle, complex, conj, imag, real  # noqa: A004

__all__ = [*_math_all, "abs", "add", "divide", "equal", "exp", "greater", "greater_equal", "less",
           "less_equal", "log", "logical_and", "logical_not", "logical_or", "maximum", "minimum",
           "multiply", "negative", "not_equal", "pow", "reciprocal", "reduce_max", "reduce_mean",
           "reduce_min", "reduce_sum", "sigmoid", "sign", "sqrt", "square", "subtract", "tanh",
           "truediv", "add_n", "realdiv", "argmax", "argmin", "squared_difference", "l2_normalize",
           "softplus", "reduce_euclidean_norm", "angle", "complex", "conj", "imag", "real"]

# the special functions (TF's special_math_ops), tf.math.special, tf.math.logical_xor
from .ops import special_math_ops as _special_math_ops  # noqa: E402
from .ops.special_math_ops import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e,  # noqa: E402
                                   cumulative_logsumexp, erfc, igamma, igammac, ndtri, nextafter,
                                   xlog1py, zeta)
from .ops.array_ops import logical_xor  # noqa: E402
from . import _math_special as special  # noqa: E402

__all__ += [*_special_math_ops.MATH, "logical_xor", "special"]

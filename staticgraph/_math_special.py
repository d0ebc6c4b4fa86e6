"""``tf.math.special``: the Bessel functions (TF's ``special_math_ops``)."""
from .ops.special_math_ops import SPECIAL as __all__  # noqa: F401
from .ops.special_math_ops import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e,  # noqa: F401
                                   bessel_j0, bessel_j1, bessel_k0, bessel_k0e, bessel_k1,
                                   bessel_k1e, bessel_y0, bessel_y1)

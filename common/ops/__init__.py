"""The op declarations, grouped by kind.  Importing this package registers them all.

    elementwise      broadcasting arithmetic, unary math, comparisons, logic
    misc             no arithmetic of their own: cast, identity, stop_gradient, fills
    shape            data moved without arithmetic: reshape, transpose, concat, slicing
    reduce           sum, mean, max, min over an axis
    linalg           matrix multiplication (2-D and batched), einsum's equation
    decompositions   inverse, determinants, solves, Cholesky, QR, eigh, SVD (LAPACK kernels)
    gather_scatter   index ops along one axis: gather and scatter_add
    nn               softmax, log-softmax, sparse softmax cross-entropy, one-hot
    conv, pool       convolution and its gradients; max/average pooling and padding
    sequence         ops over a sequence axis (ReverseV2, ReverseSequence)
    random           draws from a generator the engine owns
    candidate        candidate samplers of sampled losses (TF's draws), accidental hits
    special          inverse trig/hyperbolic, atan2, lgamma/digamma/polygamma, xlogy/xdivy
    special_fns      scipy's kernels: Bessel, Airy, ndtr, erfc, zeta, igamma, entr, sinc, polynomials
    numeric          hypot, copysign, fmax/fmin, nextafter, logaddexp, running logsumexp, gcd, bits
    complex          conj, real, imag, angle, complex, the absolute value of a complex tensor
    fft              discrete Fourier transforms: complex, real-to-complex, complex-to-real
    cells            fused LSTM/GRU cells (one step's pointwise part) and their gradients
    rnn_layer        a whole LSTM layer-direction over a padded sequence, and its gradient
"""
from . import (conv, elementwise, gather_scatter, linalg, misc, nn, pool, random, reduce,  # noqa: F401
               sequence, shape, special)
from . import dynamic_shape  # noqa: F401,E402  (registered after shape, whose tile-sum it reuses)
from . import candidate  # noqa: F401,E402
from . import special_fns  # noqa: F401,E402  (its rules use special's ops)
from . import numeric  # noqa: F401,E402
from . import complex  # noqa: F401,E402  (conj, real, imag, angle, complex; ComplexAbs)
from . import fft  # noqa: F401,E402
from . import decompositions  # noqa: F401,E402  (inverses, solves, factorizations: after linalg)
from . import cells  # noqa: F401,E402  (fused LSTM/GRU cells: their rules use split, concat, sigmoid)
from . import rnn_layer  # noqa: F401,E402  (a whole LSTM layer: its rules use the cells' gradients)
from . import tensor_list  # noqa: F401,E402  (TensorArray elements of different shapes)

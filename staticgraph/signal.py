"""``tf.signal`` (TF1: also ``tf.spectral``): the Fourier transforms."""
from __future__ import annotations

from .ops.signal_ops import *  # noqa: F403
from .ops.signal_ops import __all__  # noqa: F401

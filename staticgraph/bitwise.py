"""``tf.bitwise``: the bitwise ops of integer tensors."""
from .ops.bitwise_ops import *  # noqa: F401,F403
from .ops.bitwise_ops import __all__  # noqa: F401

"""``tf.metrics``: streaming metrics on local variables (``training/metrics.py``) -- names only."""
from .training.metrics import *  # noqa: F403
from .training.metrics import __all__  # noqa: F401

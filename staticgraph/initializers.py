"""``tf.initializers``: the variable initializers (``training/initializers.py``) -- names only."""
from .training.initializers import *  # noqa: F403
from .training.initializers import __all__  # noqa: F401

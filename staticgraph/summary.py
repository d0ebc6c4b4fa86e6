"""``tf.summary``: summary ops and the FileWriter (``training/summary.py``) -- names only."""
from .training.summary import *  # noqa: F403
from .training.summary import __all__  # noqa: F401

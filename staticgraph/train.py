"""``tf.train``: the optimizers (``training/optimizers.py``), the global step, the Saver and
checkpoint files (``training/saver.py``, ``training/checkpoint_state.py``), learning-rate
schedules (``training/learning_rate_decay.py``) and ``ExponentialMovingAverage``
(``training/moving_averages.py``) -- names only."""
from .training.optimizers import *  # noqa: F403
from .training.optimizers import __all__  # noqa: F401

"""``tf.logging`` (TF1): the ``tensorflow`` logger under TF's names and levels -- names only; the
code lives in ``platform/tf_logging.py``."""
from __future__ import annotations

from .platform.tf_logging import *  # noqa: F403

__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "set_verbosity", "get_verbosity", "debug",
           "info", "warn", "warning", "error", "fatal", "log", "log_every_n", "log_first_n",
           "vlog"]

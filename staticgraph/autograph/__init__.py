"""``tf.autograph``: Python ``while``/``if``/``for`` on tensors become graph control flow -- names
only.  ``conversion.py`` rewrites a function's source (with ``transformer.py`` and
``analysis.py``); the rewritten code calls the helpers of ``runtime.py``."""
from __future__ import annotations

from .conversion import AutoGraphWarning, convert, to_code
from .runtime import UNDEFINED, AutoGraphError

__all__ = ["convert", "to_code", "AutoGraphError", "AutoGraphWarning", "UNDEFINED"]

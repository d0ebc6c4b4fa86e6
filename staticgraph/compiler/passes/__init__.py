"""The rewrite passes (fold, simplify, cse, dce; carry and liveness for codegen), one module each,
and ``manager.py``: their switches (``PassConfig``, :func:`enable`/:func:`disable`/:func:`options`)
and :func:`run_passes` -- names only.  A new pass: a ``Program -> Program`` function in its own
module, registered in ``manager.py``'s ``REWRITES`` and ``PassConfig``.
"""
from __future__ import annotations

from .cse import cse
from .dce import dce
from .fold import fold
from .manager import REWRITES, PassConfig, current, disable, enable, options, run_passes
from .program import Program
from .report import PassRecord, PassReport
from .simplify import simplify

__all__ = ["PassConfig", "PassReport", "PassRecord", "Program", "run_passes", "enable", "disable",
           "options", "current", "fold", "simplify", "cse", "dce", "REWRITES"]

"""The compile pipeline (prune -> order -> passes -> lower -> liveness -> generate), one module
per stage; ``pipeline.py`` runs them (``compile_plan``, what a Session calls on a cache miss,
and ``Executable``, a plan in its interpreted or compiled tier).  See ``README.md`` here.

Names only: the code lives in the stage modules.  The tier switch is
``staticgraph.compiler.pipeline.COMPILE_AFTER`` (set it there: it is read there).
"""
from __future__ import annotations

from .codegen import generate
from .order import topological_order
from .passes.manager import PassConfig
from .pipeline import Executable, compile_plan
from .plan import Plan, Step, lower_plan
from .prune import prune

__all__ = ["compile_plan", "Executable", "Plan", "Step", "prune", "topological_order",
           "lower_plan", "generate", "PassConfig"]

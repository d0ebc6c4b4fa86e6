"""``tf.debugging.enable_check_numerics()``: fail at the node that first makes a NaN/Inf.

Plans compiled while checking is on bind checking kernels (:mod:`common.numerics`);
plans compiled while it is off bind the plain ones, so a steady run pays
nothing.  Switching bumps the default graph's version, so its Sessions
recompile on their next run.  The failure is TF's ``InvalidArgumentError``
naming the node, its op type, input shapes and the line that built it.
"""
from __future__ import annotations

from common import numerics

from .graph import get_default_graph

__all__ = ["enable_check_numerics", "disable_check_numerics"]


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    if not numerics.enabled():
        numerics.enable()
    get_default_graph()._bump()


def disable_check_numerics() -> None:
    while numerics.enabled():
        numerics.disable()
    get_default_graph()._bump()

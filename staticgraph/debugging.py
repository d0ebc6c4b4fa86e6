"""``tf.debugging.enable_check_numerics()``: fail at the node that first makes a NaN/Inf.

Plans compiled while checking is on bind checking kernels (:mod:`common.numerics`);
plans compiled while it is off bind the plain ones, so a steady run pays
nothing.  Switching bumps the default graph's version, so its Sessions
recompile on their next run.  The failure is TF's ``InvalidArgumentError``
naming the node, its op type, input shapes and the line that built it.

Every op that writes a variable (``assign``, ``assign_add``, ``assign_sub``: what optimizers,
moving averages and metrics run) checks the value it is about to store, which TF's check does
not look at: the failure names the variable in TF's words for a check_numerics failure
(``!!! Detected Infinity or NaN ...`` / `` : Tensor had +Inf values``), and, as any failed
run, leaves every variable as it was (see ``Session.run``).
"""
from __future__ import annotations

from common import numerics

from .graph import get_default_graph

__all__ = ["enable_check_numerics", "disable_check_numerics", "Assert", "assert_equal",
           "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
           "assert_greater_equal", "assert_positive", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_rank", "assert_type", "assert_scalar", "check_numerics",
           "assert_all_finite"]


def __getattr__(name: str):
    """``tf.debugging.assert_*``: the assertion ops of :mod:`.check_ops` (imported lazily:
    this module loads before the ops it would need)."""
    if name in __all__[2:]:
        from . import check_ops  # noqa: PLC0415
        return getattr(check_ops, name)
    raise AttributeError(f"module 'tf.debugging' has no attribute {name!r}")


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    if not numerics.enabled():
        numerics.enable()
    get_default_graph().invalidate()


def disable_check_numerics() -> None:
    while numerics.enabled():
        numerics.disable()
    get_default_graph().invalidate()

"""``tf.debugging.enable_check_numerics()``: fail at the node that first makes a NaN/Inf
(TF's ``python/debug/lib/check_numerics_callback.py``).

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

from typing import Callable

import numpy as np

from common import numerics

from .errors import InvalidArgumentError
from .error_text import at_node as _at_node
from .graph import Operation, get_default_graph

__all__ = ["enable_check_numerics", "disable_check_numerics", "finite_check"]


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    if not numerics.enabled():
        numerics.enable()
    get_default_graph().invalidate()


def disable_check_numerics() -> None:
    while numerics.enabled():
        numerics.disable()
    get_default_graph().invalidate()


def finite_check(op: Operation, made_at: str) -> Callable[[np.ndarray], None]:
    """With ``enable_check_numerics()`` on when ``op``, a write to a variable made at
    ``made_at``, is lowered: a check of the value it is about to store, raising TF's
    check_numerics failure naming the variable."""
    var = op.attrs["var"]

    def check(value: np.ndarray) -> None:
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            raise InvalidArgumentError(None, op, _non_finite_write(op, var, made_at, value))
    return check


def _non_finite_write(op: Operation, var: str, made_at: str, value: np.ndarray) -> str:
    """TF 2's words for a NaN/Inf caught by ``enable_check_numerics`` (there: "in output 0 of
    graph op ..."; here in the value ``op`` writes to ``var``), then where both were made."""
    found = [kind for kind, n in (("-Inf", np.isneginf(value).any()),
                                  ("+Inf", np.isposinf(value).any()),
                                  ("NaN", np.isnan(value).any())) if n]
    what = found[0] if len(found) == 1 else (
        " and ".join(found) if len(found) == 2 else f"{found[0]}, {found[1]}, and {found[2]}")
    inputs = "".join(f"         {i}: {t}\n" for i, t in enumerate(op.inputs))
    tf_sentence = _at_node(f" : Tensor had {what} values", op.name)
    return (f"\n\n!!! Detected Infinity or NaN in the value written to variable \"{var}\" by "
            f"graph op \"{op.type}\" !!!\n  dtype: <dtype: '{value.dtype.name}'>\n"
            f"  shape: {tuple(value.shape)}\n\n  Input tensors ({len(op.inputs)}):\n{inputs}\n"
            f"{tf_sentence}\n"
            f"  the run is undone: '{var}' and every other variable keep their values\n"
            f"  variable created at {made_at}\n  node created at {op.site}")

"""``tf.compat.v2``: the few TF 2 functions whose behaviour differs from their TF1 names here.

``while_loop`` returns the structure of ``loop_vars`` as given (a one-element list stays a
list), where TF1's (``tf.while_loop`` / ``tf.compat.v1.while_loop``) unpacks it.
"""
from __future__ import annotations

from ..control.control_flow import while_loop as _while_loop_v1

__all__ = ["while_loop"]


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """TF 2's ``while_loop``: the results keep ``loop_vars``' structure exactly."""
    return _while_loop_v1(cond, body, loop_vars, shape_invariants, parallel_iterations, back_prop,
                          swap_memory, name, maximum_iterations, return_same_structure=True)

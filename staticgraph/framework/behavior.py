"""TF1 classic mode: the process-global switches ``tf.compat.v1.disable_v2_behavior()`` and
``disable_resource_variables()`` / ``disable_control_flow_v2()`` (and their ``enable_``s).

Programs written for TF 1.x call them first thing; TF 2.21 then builds *ref* variables
(``VariableV2``, ``<tf.Variable 'v:0' shape=() dtype=float32_ref>``) and v1 control flow
(``while/Exit:0``, ``cond/Merge:0``).  Here the switches change only what graph building
*presents* -- node names and the types TF would show (``Operation.type``), a variable's
repr and dtype, TF1's error words -- never what runs: every node keeps its engine kind
(a ref variable is a ``VarHandleOp`` shown as ``VariableV2``, its ``v/read`` a
``ReadVariableOp`` shown as ``Identity``, a ``while/Exit`` an ``Identity`` shown as
``Exit``), so the compiler lowers both modes to the same plans and ``Session.run`` never
looks at a mode.  As in TF the switches are global and read while building: a graph built
before a switch keeps what it was built with.

Like TF, nothing here switches eager execution (staticgraph is always in graph mode).
"""
from __future__ import annotations

__all__ = ["disable_v2_behavior", "enable_v2_behavior", "disable_resource_variables",
           "enable_resource_variables", "resource_variables_enabled", "disable_control_flow_v2",
           "enable_control_flow_v2", "control_flow_v2_enabled"]

_resource_variables = True   # TF 2's default; False: new variables are TF1 ref variables
_control_flow_v2 = True      # TF 2's default; False: while_loop/cond show TF1's node names


def resource_variables_enabled() -> bool:
    """Whether ``tf.Variable`` builds resource variables (TF 2) rather than ref variables."""
    return _resource_variables


def control_flow_v2_enabled() -> bool:
    """Whether ``while_loop``/``cond`` present TF 2's nodes rather than TF1's."""
    return _control_flow_v2


def enable_resource_variables() -> None:
    global _resource_variables
    _resource_variables = True


def disable_resource_variables() -> None:
    """Variables built from now on are TF1 ref variables (``VariableV2``, ``float32_ref``)."""
    global _resource_variables
    _resource_variables = False


def enable_control_flow_v2() -> None:
    global _control_flow_v2
    _control_flow_v2 = True


def disable_control_flow_v2() -> None:
    """Loops and conds built from now on show TF1's nodes (``while/Exit``, ``cond/Merge``)."""
    global _control_flow_v2
    _control_flow_v2 = False


def disable_v2_behavior() -> None:
    """TF1 classic mode: ref variables and v1 control flow (TF's switch; eager stays off)."""
    disable_resource_variables()
    disable_control_flow_v2()


def enable_v2_behavior() -> None:
    """Back to TF 2's default: resource variables and control flow v2."""
    enable_resource_variables()
    enable_control_flow_v2()

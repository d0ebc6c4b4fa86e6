"""Anomaly detection (``torch.autograd.detect_anomaly``): stop at the op that makes a NaN/Inf.

PyTorch's mode checks what backward functions return; this one checks every
op's result, forward and backward (:mod:`common.numerics`), and costs nothing
while off.  The error is a ``RuntimeError`` naming the op and the user's line::

    with torch.autograd.detect_anomaly():
        y = torch.log(x)      # RuntimeError: log: op Log produced 1 NaN ... (at train.py:12)

While the mode is on, every recorded node also keeps the stack of the forward
call that created it, so an error in backward names the backward node and the
forward line, as PyTorch does::

    with torch.autograd.detect_anomaly():
        y = torch.sqrt(x)               # x[0] == 0
        (y * 0).sum().backward()        # UserWarning: Error detected in SqrtBackward0.
                                        # Traceback of forward call that caused the error:
                                        #   File "train.py", line 2, in <module>
                                        #     y = torch.sqrt(x)
                                        # RuntimeError: Function 'SqrtBackward0' returned nan
                                        # values in its 0th output. (op RealDiv produced ...)

Unlike PyTorch (which checks only for NaN, in each backward node's results),
an Inf is reported too, at the op inside the gradient rule that produced it.
"""
from __future__ import annotations

import functools
import traceback
import warnings
import weakref

from common import numerics

from .errors import internal

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "STATE",
           "remember_forward", "backward_error"]


class _State:
    """``on``: whether recording nodes keep their forward stack (read once per recorded node)."""

    __slots__ = ("on",)

    def __init__(self):
        self.on = False


STATE = _State()
_STACKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def remember_forward(node) -> None:
    """Keep the stack of the forward call creating ``node`` (engine frames left out)."""
    frames = [f for f in traceback.extract_stack()[:-1] if not internal(f.filename)]
    _STACKS[node] = "".join(traceback.format_list(frames))


def backward_error(node, index: int, error: Exception) -> RuntimeError:
    """The error of a backward node whose gradient rule produced NaN/Inf: PyTorch's wording
    (``Function 'SqrtBackward0' returned nan values in its 0th output.``), the op that made
    them, and the forward call that created the node (also warned, as PyTorch does)."""
    name = node.name()
    stack = _STACKS.get(node)
    if stack is None:
        where = ("(no forward traceback: the forward pass ran without anomaly detection; "
                 "enable it before the forward call to record one)")
    else:
        warnings.warn(f"Error detected in {name}. Traceback of forward call that caused the "
                      f"error:\n{stack}", UserWarning, stacklevel=4)
        where = "Traceback of forward call that caused the error:\n" + stack.rstrip()
    kind = "nan" if "NaN" in str(error) else "inf"
    return RuntimeError(f"Function '{name}' returned {kind} values in its {index}th output.\n"
                        f"  ({error})\n{where}")


def _sync() -> None:
    STATE.on = numerics.enabled()


def is_anomaly_enabled() -> bool:
    return numerics.enabled()


class detect_anomaly:
    """Context manager / decorator: check every op's result for NaN/Inf inside the block."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> "detect_anomaly":
        if self.check_nan:
            numerics.enable()
            _sync()
        return self

    def __exit__(self, *exc) -> bool:
        if self.check_nan:
            numerics.disable()
            _sync()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """``set_detect_anomaly(True)`` turns checking on now (off with False); also a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = numerics.enabled()
        self.mode = bool(mode and check_nan)
        _set(self.mode)

    def __enter__(self) -> "set_detect_anomaly":
        return self

    def __exit__(self, *exc) -> bool:
        _set(self.prev)
        return False


def _set(mode: bool) -> None:
    if mode and not numerics.enabled():
        numerics.enable()
    elif not mode:
        while numerics.enabled():
            numerics.disable()
    _sync()

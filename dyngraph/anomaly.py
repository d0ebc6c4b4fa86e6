"""Anomaly detection (``torch.autograd.detect_anomaly``): stop at the op that makes a NaN/Inf.

PyTorch's mode checks what backward functions return; this one checks every
op's result, forward and backward (:mod:`common.numerics`), and costs nothing
while off.  The error is a ``RuntimeError`` naming the op and the user's line::

    with torch.autograd.detect_anomaly():
        y = torch.log(x)      # RuntimeError: log: op Log produced 1 NaN ... (at train.py:12)
"""
from __future__ import annotations

import functools

from common import numerics

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]


def is_anomaly_enabled() -> bool:
    return numerics.enabled()


class detect_anomaly:
    """Context manager / decorator: check every op's result for NaN/Inf inside the block."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self) -> "detect_anomaly":
        if self.check_nan:
            numerics.enable()
        return self

    def __exit__(self, *exc) -> bool:
        if self.check_nan:
            numerics.disable()
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

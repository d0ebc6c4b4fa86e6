"""Grad mode: whether operations record a graph (``no_grad`` / ``enable_grad``).

One flag per thread, read on every op (``STATE.enabled``), as PyTorch keeps
grad mode thread-local: ``no_grad()`` in a data-loading thread does not stop
the training thread from recording.  A new thread starts with grad enabled.
The context managers flip the flag and restore it; they also work as
decorators, as in PyTorch.
"""
from __future__ import annotations

import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "STATE"]


class _State(threading.local):
    """``enabled``: this thread's grad mode; ``inference``: inside ``inference_mode``."""

    def __init__(self):
        self.enabled = True
        self.inference = False


STATE = _State()


def is_grad_enabled() -> bool:
    return STATE.enabled


class set_grad_enabled:
    """Set grad mode to ``mode`` (now, and as a context manager until the block ends)."""

    def __init__(self, mode: bool):
        self.prev = STATE.enabled
        self.mode = bool(mode)
        STATE.enabled = self.mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        STATE.enabled = self.prev
        return False


class _Mode:
    """Base of ``no_grad``/``enable_grad``: a context manager and a decorator."""

    mode = True

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = self.mode
        return self

    def __exit__(self, *exc):
        STATE.enabled = self.prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_Mode):
    """Operations inside do not record a graph (evaluation, optimizer updates)."""

    mode = False


class enable_grad(_Mode):
    """Re-enables recording inside a ``no_grad`` block."""

    mode = True


class inference_mode(_Mode):
    """``no_grad`` for pure inference (PyTorch's faster variant; here the same thing).

    ``inference_mode(False)`` leaves the mode unchanged, as in PyTorch.
    """

    def __init__(self, mode: bool = True):
        self.active = bool(mode)

    def __enter__(self):
        self.prev, self.prev_inference = STATE.enabled, STATE.inference
        if self.active:
            STATE.enabled, STATE.inference = False, True
        return self

    def __exit__(self, *exc):
        STATE.enabled, STATE.inference = self.prev, self.prev_inference
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(self.active):
                return fn(*args, **kwargs)
        return wrapper


def is_inference_mode_enabled() -> bool:
    return STATE.inference

"""Grad mode: whether operations record a graph (``no_grad`` / ``enable_grad``).

One module-level flag, read on every op (``STATE.enabled``); the context
managers flip it and restore it.  Both also work as decorators, as in PyTorch.
"""
from __future__ import annotations

import functools

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "STATE"]


class _State:
    __slots__ = ("enabled",)

    def __init__(self):
        self.enabled = True


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

"""Grad mode: whether operations record a graph (``no_grad`` / ``enable_grad``).

One flag per thread, read on every op (``STATE.enabled``), as PyTorch keeps
grad mode thread-local: ``no_grad()`` in a data-loading thread does not stop
the training thread from recording.  A new thread starts with grad enabled.
The context managers flip the flag and restore it; they also work as
decorators, as in PyTorch.
"""
from __future__ import annotations

import functools
import inspect
import threading
from typing import Callable

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


class _DecoratorContextManager:
    """A context manager that is also a decorator, as PyTorch's ``_DecoratorContextManager``:
    ``@no_grad()`` runs each call of a function -- and each step of a generator function, so
    the mode holds only while the generator's own code runs -- inside a fresh copy of it."""

    def clone(self) -> "_DecoratorContextManager":
        return type(self)()

    def __call__(self, fn: Callable) -> Callable:
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(self.clone, fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper


def _wrap_generator(context: Callable, fn: Callable) -> Callable:
    """``fn``'s generator with every resumption (send, throw, close) inside ``context()``."""
    @functools.wraps(fn)
    def generator(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with context():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with context():
                        gen.close()
                    raise
                except BaseException as e:
                    with context():
                        response = gen.throw(e)
                else:
                    with context():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value
    return generator


class _NoParamDecorator(_DecoratorContextManager):
    """``@no_grad`` without parentheses decorates too, as in PyTorch."""

    def __new__(cls, orig_func: Callable | None = None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode`` now; as a context manager, until the block ends; as a
    decorator (``@set_grad_enabled(False)``), for each call only (the mode set when the
    decorator was made is undone at once, as in PyTorch)."""

    def __init__(self, mode: bool):
        self.prev = STATE.enabled
        self.mode = bool(mode)
        STATE.enabled = self.mode

    def __call__(self, fn: Callable) -> Callable:
        STATE.enabled = self.prev
        return super().__call__(fn)

    def clone(self) -> "set_grad_enabled":
        return type(self)(self.mode)

    def __enter__(self):
        STATE.enabled = self.mode
        return self

    def __exit__(self, *exc):
        STATE.enabled = self.prev
        return False


class _Mode(_NoParamDecorator):
    """Base of ``no_grad``/``enable_grad``: set the mode for a block, restore it after."""

    mode = True

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = self.mode
        return self

    def __exit__(self, *exc):
        STATE.enabled = self.prev
        return False


class no_grad(_Mode):
    """Operations inside do not record a graph (evaluation, optimizer updates)."""

    mode = False


class enable_grad(_Mode):
    """Re-enables recording inside a ``no_grad`` block."""

    mode = True


class inference_mode(_DecoratorContextManager):
    """``no_grad`` for pure inference (PyTorch's faster variant; here the same thing).

    ``inference_mode(False)`` leaves the mode unchanged, as in PyTorch; ``@inference_mode``
    without parentheses decorates too.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True):
        self.active = bool(mode)

    def clone(self) -> "inference_mode":
        return type(self)(self.active)

    def __enter__(self):
        self.prev, self.prev_inference = STATE.enabled, STATE.inference
        if self.active:
            STATE.enabled, STATE.inference = False, True
        return self

    def __exit__(self, *exc):
        STATE.enabled, STATE.inference = self.prev, self.prev_inference
        return False


def is_inference_mode_enabled() -> bool:
    return STATE.inference

"""Exception types shared by both engines.

Each subclasses the builtin a PyTorch or TF user would catch (``ValueError``
for shapes, ``TypeError`` for dtypes), so ``except ValueError`` keeps working.
"""
from __future__ import annotations

__all__ = ["ShapeError", "DTypeError", "LinAlgError", "invalid"]


class ShapeError(ValueError):
    """Shapes that do not fit an op.  Engines add the op name and the user's line.

    One check, three wordings: the registry's rule raises once, and the surface that called
    it picks the words its users search for.

    ``tf``: the same fact in TensorFlow's words ("Dimensions must be equal, but are 3
    and 2"), which the static engine puts first, before TF's node description.
    ``torch``: the same fact in PyTorch's words, the whole message a dyngraph surface
    raises (as a ``RuntimeError``, as PyTorch does) when it calls the check itself.
    """

    def __init__(self, message: str, tf: str | None = None, torch: str | None = None):
        super().__init__(message)
        self.tf = tf
        self.torch = torch


class DTypeError(TypeError):
    """A dtype an op cannot take, or dtypes that do not combine."""


def invalid(message: str) -> ValueError:
    """A kernel's run-time refusal in TF's words: ``tf`` is set, so the static engine puts the
    words first, as TF's kernels say them (its ``InvalidArgumentError``)."""
    err = ValueError(message)
    err.tf = message  # type: ignore[attr-defined]
    return err


class LinAlgError(RuntimeError):
    """A matrix the kernel cannot factor or invert (singular, not positive-definite).

    A ``RuntimeError``, as PyTorch's ``torch.linalg.LinAlgError`` (whose class is
    ``torch._C._LinAlgError``; dyngraph exports a subclass under both names).  The message is
    PyTorch's sentence; ``tf`` is TF's (``Input is not invertible.``), which the static engine
    puts first, as it does for :class:`ShapeError`.
    """

    def __init__(self, message: str, tf: str | None = None):
        super().__init__(message)
        self.tf = tf

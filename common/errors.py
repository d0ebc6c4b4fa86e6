"""Exception types shared by both engines.

Each subclasses the builtin a PyTorch or TF user would catch (``ValueError``
for shapes, ``TypeError`` for dtypes), so ``except ValueError`` keeps working.
"""
from __future__ import annotations

__all__ = ["ShapeError", "DTypeError"]


class ShapeError(ValueError):
    """Shapes that do not fit an op.  Engines add the op name and the user's line.

    ``tf``: the same fact in TensorFlow's words ("Dimensions must be equal, but are 3
    and 2"), which the static engine puts first so a search finds TF's answers.
    """

    def __init__(self, message: str, tf: str | None = None):
        super().__init__(message)
        self.tf = tf


class DTypeError(TypeError):
    """A dtype an op cannot take, or dtypes that do not combine."""

"""Exception types shared by both engines.

Each subclasses the builtin a PyTorch or TF user would catch (``ValueError``
for shapes, ``TypeError`` for dtypes), so ``except ValueError`` keeps working.
"""
from __future__ import annotations

__all__ = ["ShapeError", "DTypeError"]


class ShapeError(ValueError):
    """Shapes that do not fit an op.  Engines add the op name and the user's line."""


class DTypeError(TypeError):
    """A dtype an op cannot take, or dtypes that do not combine."""

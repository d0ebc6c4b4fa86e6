"""The single op registry shared by both engines.

>>> from common import REGISTRY
>>> REGISTRY["Mul"].torch_name
'MulBackward0'
"""
from . import ops  # noqa: F401  (registers every op)
from .errors import DTypeError, ShapeError
from .registry import REGISTRY, Namespace, OpDef, ShapeRef, Spec, defop, get_op, numpy_namespace

__all__ = ["REGISTRY", "Namespace", "OpDef", "ShapeRef", "Spec", "defop", "get_op",
           "numpy_namespace", "ShapeError", "DTypeError"]

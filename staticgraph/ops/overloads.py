"""Python operators on symbolic tensors (and Variables): ``x + y`` builds an ``Add`` node.

``==``/``!=`` stay identity comparisons, as in TF1 graph mode, so tensors can
be dict keys (``feed_dict={x: ...}``); use ``tf.equal`` for elementwise equality.
"""
from __future__ import annotations

from . import core_ops as ops, math_ops
from ..framework.graph import Tensor
from ..training.variables import Variable
from .array_ops import logical_xor

__all__ = ["install"]


_BINARY = {  # operator -> builder; TF names the node after the operator ("add", "mul"...)
    "add": ops.add, "sub": ops.subtract, "mul": ops.multiply, "truediv": ops.truediv,
    "matmul": ops.matmul, "pow": ops.pow, "floordiv": math_ops.floordiv, "mod": math_ops.floormod,
}


def _forward(fn, name):
    return lambda self, other: fn(self, other, name=name)


def _reflected(fn, name):
    """``2 - x`` is ``fn(2, x)``."""
    return lambda self, other: fn(other, self, name=name)


def _xor(x, y):
    """``x ^ y`` on bools: TF's composite ``(x | y) & ~(x & y)``, named ``xor``."""
    return logical_xor(x, y, name="xor")


def _methods() -> dict:
    m = {}
    for name, fn in _BINARY.items():
        m[f"__{name}__"] = _forward(fn, name)
        m[f"__r{name}__"] = _reflected(fn, name)
    m.update({
        "__neg__": lambda self: ops.negative(self),
        "__abs__": lambda self: ops.abs(self),
        "__lt__": lambda self, o: ops.less(self, o),
        "__le__": lambda self, o: ops.less_equal(self, o),
        "__gt__": lambda self, o: ops.greater(self, o),
        "__ge__": lambda self, o: ops.greater_equal(self, o),
        "__and__": lambda self, o: ops.logical_and(self, o, name="and"),
        "__rand__": lambda self, o: ops.logical_and(o, self, name="and"),
        "__or__": lambda self, o: ops.logical_or(self, o, name="or"),
        "__ror__": lambda self, o: ops.logical_or(o, self, name="or"),
        "__xor__": lambda self, o: _xor(self, o),
        "__rxor__": lambda self, o: _xor(o, self),
        "__invert__": lambda self: ops.logical_not(self),
        "__getitem__": lambda self, key: ops.gather_index(self, key),
    })
    return m


def install() -> None:
    """Attach the operators to Tensor and Variable (done once, on import)."""
    for cls in (Tensor, Variable):
        for name, fn in _methods().items():
            setattr(cls, name, fn)
    Variable.__hash__ = object.__hash__
    Variable.__bool__ = lambda self: bool(self.value())
    for cls in (Tensor, Variable):
        cls.__array_ufunc__ = None  # numpy defers: np.ones(3) + x calls x.__radd__

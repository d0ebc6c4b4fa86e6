"""``tf.bitwise``: AND, OR, XOR, NOT and shifts of integer tensors (TF's op types).

>>> import staticgraph as tf
>>> with tf.Session() as s:
...     s.run(tf.bitwise.bitwise_and(12, 10)).item()
8
"""
from __future__ import annotations

from .core_ops import _binary, _unary

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def bitwise_and(x, y, name=None): return _binary("BitwiseAnd", x, y, name)
def bitwise_or(x, y, name=None): return _binary("BitwiseOr", x, y, name)
def bitwise_xor(x, y, name=None): return _binary("BitwiseXor", x, y, name)
def invert(x, name=None): return _unary("Invert", x, name)
def left_shift(x, y, name=None): return _binary("LeftShift", x, y, name)
def right_shift(x, y, name=None): return _binary("RightShift", x, y, name)

"""``tf.keras.regularizers`` (as ``tf_keras``, the Keras TF1 programs get): weight penalties.

A regularizer is a callable from a weight to a scalar loss::

    L1(l1)        l1 * reduce_sum(abs(w))
    L2(l2)        2 * l2 * nn.l2_loss(w)          (= l2 * reduce_sum(square(w)))
    L1L2(l1, l2)  0 + the two above, each only when its factor is nonzero

Factors are stored as float32 (Keras's ``floatx``), so ``get_config`` shows the float32 value
(``l2(1e-4).get_config() == {'l2': 9.999999747378752e-05}``).  Given to ``tf.get_variable`` or
a ``tf.layers`` call, the penalty is built under ``<variable>/Regularizer/`` and collected in
``REGULARIZATION_LOSSES`` (``dense/kernel/Regularizer/mul:0``), where
``tf.losses.get_regularization_loss()`` sums it.

>>> import staticgraph as tf
>>> x = tf.placeholder(tf.float32, (None, 2))
>>> y = tf.layers.dense(x, 3, kernel_regularizer=tf.keras.regularizers.l2(1e-4))
>>> tf.losses.get_regularization_losses()[0].name
'dense/kernel/Regularizer/mul:0'
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..framework.build import constant
from ..ops.nn_ops import l2_loss
from ..ops.core_ops import abs as _abs, reduce_sum

__all__ = ["Regularizer", "L1", "L2", "L1L2", "l1", "l2", "l1_l2", "get", "serialize",
           "deserialize"]


def _penalty(x: Any) -> np.float32:
    """The factor as Keras keeps it (float32), after Keras's checks."""
    if not isinstance(x, (float, int)):
        raise ValueError(f"Value {x} is not a valid regularization penalty number, "
                         "expected an int or float value.")
    if math.isinf(x) or math.isnan(x):
        raise ValueError(f"Value {x} is not a valid regularization penalty number, "
                         "an infinite number or NaN are not valid values.")
    return np.float32(x)


class Regularizer:
    """The base class: ``__call__(weight) -> scalar loss`` and a config to rebuild it from."""

    def __call__(self, x):
        return 0.0

    @classmethod
    def from_config(cls, config: dict) -> "Regularizer":
        return cls(**config)

    def get_config(self) -> dict:
        raise NotImplementedError(f"{self} does not implement get_config()")


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)`` (both factors 0 by default; ``l1_l2()`` uses 0.01)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _penalty(0.0 if l1 is None else l1)
        self.l2 = _penalty(0.0 if l2 is None else l2)

    def __call__(self, x):
        regularization = constant(0.0, dtype=x.dtype)
        if self.l1:
            regularization += self.l1 * reduce_sum(_abs(x))
        if self.l2:
            regularization += 2.0 * self.l2 * l2_loss(x)
        return regularization

    def get_config(self) -> dict:
        return {"l1": float(self.l1), "l2": float(self.l2)}


class L1(Regularizer):
    """``l1 * sum(|x|)`` (``l1`` 0.01 by default)."""

    def __init__(self, l1=0.01, **kwargs):
        l1 = kwargs.pop("l", l1)  # Keras's older keyword
        if kwargs:
            raise TypeError(f"Argument(s) not recognized: {kwargs}")
        self.l1 = _penalty(0.01 if l1 is None else l1)

    def __call__(self, x):
        return self.l1 * reduce_sum(_abs(x))

    def get_config(self) -> dict:
        return {"l1": float(self.l1)}


class L2(Regularizer):
    """``l2 * sum(x**2)``, computed as ``2 * l2 * nn.l2_loss(x)`` (``l2`` 0.01 by default)."""

    def __init__(self, l2=0.01, **kwargs):
        l2 = kwargs.pop("l", l2)  # Keras's older keyword
        if kwargs:
            raise TypeError(f"Argument(s) not recognized: {kwargs}")
        self.l2 = _penalty(0.01 if l2 is None else l2)

    def __call__(self, x):
        return 2.0 * self.l2 * l2_loss(x)

    def get_config(self) -> dict:
        return {"l2": float(self.l2)}


def l1_l2(l1=0.01, l2=0.01) -> L1L2:
    """Both penalties, 0.01 each by default (unlike ``L1L2()``)."""
    return L1L2(l1=l1, l2=l2)


l1 = L1
l2 = L2
_BY_NAME = {"L1": L1, "L2": L2, "L1L2": L1L2, "l1": L1, "l2": L2}


def serialize(regularizer: Regularizer | None) -> dict | None:
    """The Keras config dict of ``regularizer`` (what ``deserialize``/``get`` read back)."""
    if regularizer is None:
        return None
    return {"module": "keras.regularizers", "class_name": type(regularizer).__name__,
            "config": regularizer.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None) -> Regularizer:
    """A regularizer from a name (``"l2"``, ``"l1_l2"``...) or a ``serialize`` dict."""
    if config == "l1_l2":
        return L1L2(l1=0.01, l2=0.01)
    known = {**_BY_NAME, **(custom_objects or {})}
    name = config if isinstance(config, str) else config["class_name"]
    if name not in known:      # (tf_keras hands an unknown *string* back unchanged; we refuse it)
        raise ValueError(f"Unknown regularizer: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included "
                         "in the scope. See https://www.tensorflow.org/guide/keras/"
                         "save_and_serialize#registering_the_custom_object for details.")
    if isinstance(config, str):
        return known[name]()
    return known[name].from_config(config.get("config", {}))


def get(identifier):
    """``None``, a name, a config dict or a callable, as ``kernel_regularizer=`` accepts it."""
    if identifier is None:
        return None
    if isinstance(identifier, (dict, str)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")

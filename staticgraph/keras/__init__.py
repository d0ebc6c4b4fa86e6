"""``tf.keras`` as TF1 programs touch it: only ``tf.keras.regularizers``, which they pass to
``tf.layers.*(kernel_regularizer=...)`` and ``tf.get_variable(regularizer=...)``.

(The rest of Keras -- models, layers, fit -- is TF 2's eager world and out of this engine's
scope; ``tf.layers`` is the TF1 layer API.)

>>> import staticgraph as tf
>>> tf.keras.regularizers.l2(1e-4).get_config()
{'l2': 9.999999747378752e-05}
"""
from __future__ import annotations

from . import regularizers

__all__ = ["regularizers"]

"""``tf.layers`` (TF1): dense, convolution, pooling, dropout and batch-normalization layers as
functions creating their variables under a variable scope -- names only; the code lives in
``layers/core.py`` (as TF 1.x's ``python/layers/layers.py`` re-exports ``core``,
``convolutional``...)."""
from __future__ import annotations

from .core import *  # noqa: F403

__all__ = ["dense", "conv2d", "conv1d", "conv2d_transpose", "max_pooling2d", "average_pooling2d",
           "flatten", "dropout", "batch_normalization", "UPDATE_OPS", "REGULARIZATION_LOSSES"]

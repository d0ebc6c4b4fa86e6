"""``tf.losses`` (TF1): per-element losses, weighted, reduced and collected as TF does -- names
only; the code lives in ``ops/losses.py``."""
from __future__ import annotations

from .ops.losses import *  # noqa: F403

__all__ = ["Reduction", "compute_weighted_loss", "mean_squared_error", "absolute_difference",
           "huber_loss", "log_loss", "softmax_cross_entropy", "sparse_softmax_cross_entropy",
           "sigmoid_cross_entropy", "hinge_loss", "cosine_distance", "add_loss", "get_losses",
           "get_regularization_losses", "get_regularization_loss", "get_total_loss"]

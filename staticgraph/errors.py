"""``tf.errors``: TF's exception classes -- names only; the code lives in ``framework/errors.py``."""
from __future__ import annotations

from .framework.errors import *  # noqa: F403

__all__ = ["graph_execution_error", "OpError", "InvalidArgumentError", "FailedPreconditionError",
           "NotFoundError", "OutOfRangeError", "UnimplementedError", "InternalError",
           "ResourceExhaustedError", "DataLossError", "UnavailableError", "UnknownError",
           "AlreadyExistsError", "PermissionDeniedError", "OperatorNotAllowedInGraphError",
           "GraphShapeError", "GraphDTypeError"]

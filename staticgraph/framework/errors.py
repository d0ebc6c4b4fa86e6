"""TF's exception classes (``tf.errors``), plus the build-time errors of this engine.

Run-time failures are ``OpError`` subclasses that carry the failing node, as
TF's do; build-time shape/dtype mismatches are ``ValueError``/``TypeError``
subclasses raised at the user's line, before any Session exists.
"""
from __future__ import annotations

__all__ = ["graph_execution_error", "OpError", "InvalidArgumentError", "FailedPreconditionError", "NotFoundError",
           "OutOfRangeError", "UnimplementedError", "InternalError", "ResourceExhaustedError", "DataLossError", "UnavailableError",
           "UnknownError", "AlreadyExistsError", "PermissionDeniedError",
           "OperatorNotAllowedInGraphError", "GraphShapeError", "GraphDTypeError"]


class OpError(Exception):
    """A failure while running a graph; ``op`` is the failing Operation (or None)."""

    def __init__(self, node_def, op, message: str):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __reduce__(self):
        """Pickled (from a worker process) as type and message; the node stays behind."""
        return (type(self), (None, None, self.message))


def graph_execution_error(err: OpError) -> OpError:
    """``err`` laid out as TF 2 reports a failure inside ``Session.run``: ``Graph execution
    error:``, the node and the user's line that built it, then the op's own message (TF's
    sentence first, so a search for it finds TF's answers).  ``err`` itself when it names no
    node or already has the layout.

    For example (a reshape fed 3 values for 4 places)::

        Graph execution error:

        Detected at node 'Reshape' defined at (most recent call last):
            File "train.py", line 3
        Node: 'Reshape'
        Input to reshape is a tensor with 3 values, but the requested shape has 4
        	 [[{{node Reshape}}]]
        ...
    """
    op = err.op
    if op is None or err.message.startswith("Graph execution error:"):
        return err
    path, _, line = op.site.rpartition(":")
    where = f'    File "{path}", line {line}\n' if path else ""
    return type(err)(err.node_def, op,
                     f"Graph execution error:\n\nDetected at node '{op.name}' defined at (most "
                     f"recent call last):\n{where}Node: '{op.name}'\n{err.message}")


class InvalidArgumentError(OpError):
    """An op received an argument it cannot use (e.g. an unfed placeholder, bad shapes)."""

    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class FailedPreconditionError(OpError):
    """The system is not in a state the op needs (e.g. an uninitialized variable)."""

    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class NotFoundError(OpError):
    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class OutOfRangeError(OpError):
    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class UnimplementedError(OpError):
    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class InternalError(OpError):
    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class ResourceExhaustedError(OpError):
    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class DataLossError(OpError):
    """Unrecoverable data loss or corruption (e.g. a truncated or damaged checkpoint)."""

    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class UnavailableError(OpError):
    """The runtime is unavailable (e.g. the workers running a step were lost)."""

    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class UnknownError(OpError):
    """A failure TF cannot classify (e.g. an exception raised inside ``tf.py_func``'s function)."""

    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class AlreadyExistsError(OpError):
    """An entity (a file, by ``tf.gfile.Copy``/``Rename``) already exists."""

    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class PermissionDeniedError(OpError):
    """The caller may not do this (e.g. write to a ``GFile`` opened for reading)."""

    def __init__(self, node_def, op, message: str):
        super().__init__(node_def, op, message)


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where Python needs a concrete value (``if t:``)."""


class GraphShapeError(ValueError):
    """Build time: an op's input shapes do not fit it (message names op, shapes and line)."""


class GraphDTypeError(TypeError):
    """Build time: an op's input dtypes do not fit it."""

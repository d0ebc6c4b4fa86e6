"""Collections: named lists a graph keeps (``tf.GraphKeys``, ``tf.get_collection``...).

Variables put themselves in ``GLOBAL_VARIABLES`` (and ``TRAINABLE_VARIABLES``),
``tf.losses.*`` in ``LOSSES``, ``get_variable(regularizer=)`` in
``REGULARIZATION_LOSSES``; programs read them back by key::

    tf.add_to_collection("activations", h)
    tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="layer1")  # re.match on names

>>> import staticgraph as tf
>>> tf.GraphKeys.TRAINABLE_VARIABLES
'trainable_variables'
"""
from __future__ import annotations

from typing import Any

from .graph import get_default_graph
from ..training.variables import GLOBAL_VARIABLES, TRAINABLE_VARIABLES

__all__ = ["GraphKeys", "add_to_collection", "add_to_collections", "get_collection",
           "get_collection_ref"]


class GraphKeys:
    """TF's standard collection names (the same strings, so ``get_collection("losses")`` works)."""

    GLOBAL_VARIABLES = GLOBAL_VARIABLES
    VARIABLES = GLOBAL_VARIABLES
    TRAINABLE_VARIABLES = TRAINABLE_VARIABLES
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    METRIC_VARIABLES = "metric_variables"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    SUMMARIES = "summaries"
    SUMMARY_OP = "summary_op"
    ACTIVATIONS = "activations"
    WEIGHTS = "weights"
    BIASES = "biases"
    TRAIN_OP = "train_op"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SAVERS = "savers"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    QUEUE_RUNNERS = "queue_runners"
    CONCATENATED_VARIABLES = "concatenated_variables"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


def add_to_collection(name: str, value: Any) -> None:
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value: Any) -> None:
    get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: str | None = None) -> list:
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> list:
    return get_default_graph().get_collection_ref(key)

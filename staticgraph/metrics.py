"""``tf.metrics`` (TF1): streaming metrics accumulated in local variables across ``run`` calls.

Each metric returns ``(value, update_op)``.  Its state is a few scalar float32 variables made
under the metric's variable scope (``accuracy/total:0``, ``accuracy/count:0``,
``precision/true_positives/count:0``), non-trainable and in the ``LOCAL_VARIABLES`` and
``METRIC_VARIABLES`` collections -- so ``tf.local_variables_initializer()`` (re)starts them and a
Saver of the global variables leaves them out.  Running ``update_op`` folds one batch in and
gives the metric over everything seen so far; ``value`` reads the state without changing it.
A metric over no data is 0, as TF's ``div_no_nan`` makes it::

    accuracy = mean(cast(equal(predictions, labels)))          total / count
    mean_squared_error = mean(squared_difference(labels, predictions))
    precision = tp / (tp + fp)        recall = tp / (tp + fn)

``weights`` scale each value (and count for the denominator), broadcast to the values as TF
broadcasts them.

>>> import staticgraph as tf
>>> acc, update = tf.metrics.accuracy([1, 2, 3], [1, 2, 0])
>>> [v.name for v in tf.local_variables()]
['accuracy/total:0', 'accuracy/count:0']
>>> with tf.Session() as sess:
...     sess.run(tf.local_variables_initializer())
...     print(sess.run(acc), sess.run(update), sess.run(acc))
0.0 0.6666667 0.6666667
"""
from __future__ import annotations

from . import dtypes as _dtypes
from .array_ops import size, squared_difference
from .build import convert_to_tensor
from .graph import Tensor, control_dependencies, get_default_graph
from .graph_keys import GraphKeys
from .ops import (add, cast, equal, expand_dims, greater, logical_and, logical_not, maximum,
                  multiply, ones_like, reduce_sum, squeeze, truediv, where, zeros, zeros_like)
from .variable_scope import variable_scope
from .variables import Variable

__all__ = ["accuracy", "mean", "mean_squared_error", "precision", "recall", "true_positives",
           "false_positives", "false_negatives", "metric_variable"]


def metric_variable(shape, dtype, validate_shape: bool = True, name: str | None = None) -> Variable:
    """A zero-initialized, non-trainable variable in ``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``."""
    return Variable(lambda: zeros(shape, dtype), trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                    validate_shape=validate_shape, name=name)


def _div_no_nan(num: Tensor, den: Tensor, name: str) -> Tensor:
    """``num / den``, and 0 where ``den`` is 0 (TF's ``div_no_nan``; no division by zero runs)."""
    positive = greater(den, 0.0)
    return where(positive, truediv(num, where(positive, den, ones_like(den))), zeros_like(num),
                 name=name)


def _add_to(collections, value) -> None:
    if collections:
        get_default_graph().add_to_collections(list(collections), value)


def _remove_squeezable_dimensions(predictions, labels, weights):
    """TF's alignment: a trailing size-1 dimension of labels or predictions is squeezed when the
    ranks differ by one; weights lose or gain a trailing dimension to match (scalars stay)."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels = convert_to_tensor(labels)
        lr, pr = labels.shape.ndims, predictions.shape.ndims
        if lr is not None and pr is not None:
            if lr - pr == 1 and labels.shape.as_list()[-1] in (1, None):
                labels = squeeze(labels, [-1])
            elif pr - lr == 1 and predictions.shape.as_list()[-1] in (1, None):
                predictions = squeeze(predictions, [-1])
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError(f"Shapes {predictions.shape} and {labels.shape} are incompatible")
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    wr, pr = weights.shape.ndims, predictions.shape.ndims
    if wr and pr is not None:
        if wr - pr == 1:
            weights = squeeze(weights, [-1])
        elif pr - wr == 1:
            weights = expand_dims(weights, -1)
    return predictions, labels, weights


def mean(values, weights=None, metrics_collections=None, updates_collections=None,
         name: str | None = None):
    """The (weighted) mean of every value seen: ``total / count`` in ``<name>/total``,
    ``<name>/count``.

    >>> import staticgraph as tf
    >>> m, update = tf.metrics.mean([1.0, 2.0, 6.0])
    >>> m.name, update.name
    ('mean/value:0', 'mean/update_op:0')
    """
    with variable_scope(name, "mean"):
        values = cast(values, _dtypes.float32)
        total = metric_variable([], _dtypes.float32, name="total")
        count = metric_variable([], _dtypes.float32, name="count")
        if weights is None:
            num_values = cast(size(values), _dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = multiply(cast(weights, _dtypes.float32), ones_like(values))
            values = multiply(values, weights)
            num_values = reduce_sum(weights)
        update_total = total.assign_add(reduce_sum(values))
        with control_dependencies([values]):
            update_count = count.assign_add(num_values)
        value = _div_no_nan(total.value(), maximum(count.value(), 0.0), name="value")
        _add_to(metrics_collections, value)
        update_op = _div_no_nan(convert_to_tensor(update_total), maximum(update_count, 0.0),
                                name="update_op")
        _add_to(updates_collections, update_op)
        return value, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name: str | None = None):
    """How often ``predictions`` equals ``labels``: the mean of ``cast(equal(...), float32)``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    if labels.dtype != predictions.dtype:
        predictions = cast(predictions, labels.dtype)
    is_correct = cast(equal(predictions, labels), _dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name: str | None = None):
    """The mean of ``(labels - predictions) ** 2`` over every element seen."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    return mean(squared_difference(labels, predictions), weights, metrics_collections,
                updates_collections, name or "mean_squared_error")


def _count_condition(values: Tensor, weights, metrics_collections, updates_collections):
    """A ``count`` variable summing the (weighted) true entries of the boolean ``values``."""
    if values.dtype != _dtypes.bool:
        raise TypeError(f"{values.name} must be of type <dtype: 'bool'>; got {values.dtype!r}")
    count = metric_variable([], _dtypes.float32, name="count")
    values = cast(values, _dtypes.float32)
    if weights is not None:
        values = multiply(values, cast(weights, _dtypes.float32))
    value = count.value()
    _add_to(metrics_collections, value)
    update_op = count.assign_add(reduce_sum(values))
    _add_to(updates_collections, update_op)
    return value, update_op


def _confusion_count(kind: str, label_true: bool, prediction_true: bool):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name: str | None = None):
        with variable_scope(name, kind):
            predictions, labels, weights = _remove_squeezable_dimensions(
                cast(predictions, _dtypes.bool), cast(labels, _dtypes.bool), weights)
            hit = logical_and(labels if label_true else logical_not(labels),
                              predictions if prediction_true else logical_not(predictions))
            return _count_condition(hit, weights, metrics_collections, updates_collections)
    metric.__name__ = metric.__qualname__ = kind
    metric.__doc__ = (f"The (weighted) number of entries with label {label_true} and "
                      f"prediction {prediction_true}, in ``<name>/count``.")
    return metric


true_positives = _confusion_count("true_positives", True, True)
false_positives = _confusion_count("false_positives", False, True)
false_negatives = _confusion_count("false_negatives", True, False)


def _ratio(kind: str, other):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name: str | None = None):
        with variable_scope(name, kind):
            predictions, labels, weights = _remove_squeezable_dimensions(
                cast(predictions, _dtypes.bool), cast(labels, _dtypes.bool), weights)
            tp, tp_update = true_positives(labels, predictions, weights)
            wrong, wrong_update = other(labels, predictions, weights)
            value = _div_no_nan(tp, add(tp, wrong), name="value")
            _add_to(metrics_collections, value)
            tp_update, wrong_update = convert_to_tensor(tp_update), convert_to_tensor(wrong_update)
            update_op = _div_no_nan(tp_update, add(tp_update, wrong_update), name="update_op")
            _add_to(updates_collections, update_op)
            return value, update_op
    metric.__name__ = metric.__qualname__ = kind
    return metric


precision = _ratio("precision", false_positives)
precision.__doc__ = """``tp / (tp + fp)`` over every (weighted) entry seen; labels and predictions
are cast to bool (nonzero is positive)."""
recall = _ratio("recall", false_negatives)
recall.__doc__ = """``tp / (tp + fn)`` over every (weighted) entry seen; labels and predictions
are cast to bool (nonzero is positive)."""

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
    auc = the area under the ROC (or PR) curve summed over num_thresholds confusion counts

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
from . import tf_logging
from .array_ops import size, squared_difference
from .build import constant, convert_to_tensor
from .check_ops import assert_greater_equal, assert_less_equal
from .graph import Tensor, control_dependencies, get_default_graph
from .graph_keys import GraphKeys
from .ops import (add, cast, equal, expand_dims, greater, log, logical_and, logical_not, maximum,
                  minimum, multiply, ones_like, reduce_sum, reshape, squeeze, subtract, truediv,
                  where, zeros, zeros_like)
from .variable_scope import variable_scope
from .variables import Variable

__all__ = ["accuracy", "auc", "mean", "mean_squared_error", "precision", "recall", "true_positives",
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


def _confusion_matrix_at_thresholds(labels, predictions, thresholds: list[float], weights):
    """Per threshold ``t``: the (weighted) counts of ``prediction > t`` against the labels, in
    ``[len(thresholds)]`` variables ``true_positives``, ``false_negatives``, ``true_negatives``,
    ``false_positives`` (TF's order); returns ``(values, update_ops)`` keyed tp/fn/tn/fp."""
    predictions = convert_to_tensor(predictions)
    with control_dependencies([
            assert_greater_equal(predictions, cast(0.0, predictions.dtype),
                                 message="predictions must be in [0, 1]"),
            assert_less_equal(predictions, cast(1.0, predictions.dtype),
                              message="predictions must be in [0, 1]")]):
        predictions, labels, weights = _remove_squeezable_dimensions(
            cast(predictions, _dtypes.float32), cast(labels, _dtypes.bool), weights)
    n = len(thresholds)
    pred_is_pos = greater(reshape(predictions, [1, -1]),
                          reshape(constant(thresholds, dtype=_dtypes.float32), [n, 1]))
    pred_is_neg = logical_not(pred_is_pos)
    label_is_pos = reshape(labels, [1, -1])
    label_is_neg = logical_not(label_is_pos)
    if weights is not None:
        weights = multiply(cast(weights, _dtypes.float32), ones_like(predictions))
        weights = reshape(weights, [1, -1])
    values, updates = {}, {}
    for key, name, label, pred in (("tp", "true_positives", label_is_pos, pred_is_pos),
                                   ("fn", "false_negatives", label_is_pos, pred_is_neg),
                                   ("tn", "true_negatives", label_is_neg, pred_is_neg),
                                   ("fp", "false_positives", label_is_neg, pred_is_pos)):
        var = metric_variable([n], _dtypes.float32, name=name)
        hit = cast(logical_and(label, pred), _dtypes.float32)
        if weights is not None:
            hit = multiply(hit, weights)
        updates[key] = convert_to_tensor(var.assign_add(reduce_sum(hit, 1)))
        values[key] = var.value()
    return values, updates


def _interpolate_pr_auc(tp, fp, fn, n: int) -> Tensor:
    """TF's careful interpolation of the PR curve (precision linear in the positives)."""
    dtp = subtract(tp[:n - 1], tp[1:])
    p = add(tp, fp)
    prec_slope = _div_no_nan(dtp, maximum(subtract(p[:n - 1], p[1:]), 0.0), name="prec_slope")
    intercept = subtract(tp[1:], multiply(prec_slope, p[1:]))
    safe_p_ratio = where(logical_and(greater(p[:n - 1], 0.0), greater(p[1:], 0.0)),
                         _div_no_nan(p[:n - 1], maximum(p[1:], 0.0), name="recall_relative_ratio"),
                         ones_like(p[1:]))
    increment = _div_no_nan(multiply(prec_slope, add(dtp, multiply(intercept, log(safe_p_ratio)))),
                            maximum(add(tp[1:], fn[1:]), 0.0), name="pr_auc_increment")
    return reduce_sum(increment, name="interpolate_pr_auc")


_SUMMATIONS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


def auc(labels, predictions, weights=None, num_thresholds: int = 200, metrics_collections=None,
        updates_collections=None, curve: str = "ROC", name: str | None = None,
        summation_method: str = "trapezoidal", thresholds=None):
    """The area under the ROC (or ``curve="PR"``) curve, from confusion counts at
    ``num_thresholds`` thresholds spread over [0, 1] (``predictions`` must lie there).

    >>> import staticgraph as tf
    >>> value, update = tf.metrics.auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> value.name, update.name
    ('auc/value:0', 'auc/update_op:0')
    """
    with variable_scope(name, "auc"):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        kepsilon = 1e-7
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
        else:
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon] + list(thresholds) + [1.0 + kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                             weights)
        epsilon = 1.0e-6
        n = num_thresholds

        def compute_auc(tp, fn, tn, fp, name):
            if curve == "PR":
                if summation_method == "trapezoidal":
                    tf_logging.warning("Trapezoidal rule is known to produce incorrect PR-AUCs; "
                                       'please switch to "careful_interpolation" instead.')
                elif summation_method == "careful_interpolation":
                    return _interpolate_pr_auc(tp, fp, fn, n)
            rec = truediv(add(tp, epsilon), add(add(tp, fn), epsilon))
            if curve == "ROC":
                x, y = truediv(fp, add(add(fp, tn), epsilon)), rec
            else:
                x, y = rec, truediv(add(tp, epsilon), add(add(tp, fp), epsilon))
            if summation_method not in _SUMMATIONS:
                raise ValueError(f"Invalid summation_method: {summation_method} summation_method "
                                 "should be 'trapezoidal', 'careful_interpolation', 'minoring', "
                                 "or 'majoring'.")
            if summation_method == "minoring":
                height = minimum(y[:n - 1], y[1:])
            elif summation_method == "majoring":
                height = maximum(y[:n - 1], y[1:])
            else:
                height = truediv(add(y[:n - 1], y[1:]), 2.0)
            return reduce_sum(multiply(subtract(x[:n - 1], x[1:]), height), name=name)

        value = compute_auc(values["tp"], values["fn"], values["tn"], values["fp"], "value")
        _add_to(metrics_collections, value)
        update_op = compute_auc(update_ops["tp"], update_ops["fn"], update_ops["tn"],
                                update_ops["fp"], "update_op")
        _add_to(updates_collections, update_op)
        return value, update_op

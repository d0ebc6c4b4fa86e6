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
    mean_iou, mean_per_class_accuracy = per-class ratios from streaming class counts
    (also mean_absolute_error, root_mean_squared_error, true/false positives/negatives,
    precision_at_thresholds, recall_at_thresholds)

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

from ..framework import dtypes as _dtypes
from ..platform import tf_logging
from ..ops.array_ops import eye, size, squared_difference
from ..framework.build import constant, convert_to_tensor
from ..ops.check_ops import assert_greater_equal, assert_less_equal
from ..framework.graph import Tensor, control_dependencies, get_default_graph
from ..framework.graph_keys import GraphKeys
from ..ops.core_ops import (abs as _abs, add, cast, equal, expand_dims, greater, identity, log, logical_and,
                            logical_not, matmul, maximum, minimum, multiply, not_equal, one_hot, ones_like,
                            reduce_mean, reduce_sum, reshape, sqrt, squeeze, subtract, transpose, truediv,
                            where, zeros, zeros_like)
from .variable_scope import variable_scope
from .variables import Variable

__all__ = ["accuracy", "auc", "precision_at_thresholds", "recall_at_thresholds", "mean", "mean_absolute_error", "mean_iou", "mean_per_class_accuracy",
           "mean_squared_error", "precision", "recall", "root_mean_squared_error", "true_positives",
           "true_negatives", "false_positives", "false_negatives", "metric_variable"]


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


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name: str | None = None):
    """The mean of ``|predictions - labels|`` over every element seen."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    return mean(_abs(subtract(predictions, labels)), weights, metrics_collections,
                updates_collections, name or "mean_absolute_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name: str | None = None):
    """``sqrt`` of the streaming mean squared error (the square roots are made outside the
    metric's scope, as TF makes them: ``Sqrt:0``)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse = mean_squared_error(labels, predictions, weights, None, None,
                                         name or "root_mean_squared_error")
    rmse = sqrt(mse)
    _add_to(metrics_collections, rmse)
    update_rmse = sqrt(update_mse)
    _add_to(updates_collections, update_rmse)
    return rmse, update_rmse


def _flat_classes(labels, predictions, weights):
    """Labels and predictions as flat int64 class ids, weights flat float32 (or None)."""
    labels, predictions = cast(labels, _dtypes.int64), cast(predictions, _dtypes.int64)
    if labels.shape.ndims is None or labels.shape.ndims > 1:
        labels = reshape(labels, [-1])
    if predictions.shape.ndims is None or predictions.shape.ndims > 1:
        predictions = reshape(predictions, [-1])
    if not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError(f"Shapes {predictions.shape} and {labels.shape} are incompatible")
    if weights is not None:
        weights = cast(weights, _dtypes.float32)
        if weights.shape.ndims is None or weights.shape.ndims > 1:
            weights = reshape(weights, [-1])
    return labels, predictions, weights


def mean_iou(labels, predictions, num_classes: int, weights=None, metrics_collections=None,
             updates_collections=None, name: str | None = None):
    """The mean over classes of ``|pred & label| / |pred | label|`` from a streaming float64
    confusion matrix ``mean_iou/total_confusion_matrix`` (rows: labels); classes never seen
    are left out of the mean.  The update returns the accumulated matrix, as TF's does."""
    with variable_scope(name, "mean_iou"):
        total_cm = metric_variable([num_classes, num_classes], _dtypes.float64,
                                   name="total_confusion_matrix")
        labels, predictions, weights = _flat_classes(labels, predictions, weights)
        rows = one_hot(labels, num_classes, dtype=_dtypes.float64)
        if weights is not None:
            rows = multiply(rows, expand_dims(cast(weights, _dtypes.float64), -1))
        current_cm = matmul(transpose(rows), one_hot(predictions, num_classes, dtype=_dtypes.float64))
        update_op = total_cm.assign_add(current_cm)
        cm = total_cm.value()
        sum_over_row = cast(reduce_sum(cm, 0), _dtypes.float32)
        sum_over_col = cast(reduce_sum(cm, 1), _dtypes.float32)
        cm_diag = cast(reduce_sum(multiply(cm, eye(num_classes, dtype=_dtypes.float64)), 1),
                       _dtypes.float32)
        denominator = subtract(add(sum_over_row, sum_over_col), cm_diag)
        num_valid = reduce_sum(cast(not_equal(denominator, 0.0), _dtypes.float32))
        denominator = where(greater(denominator, 0.0), denominator, ones_like(denominator))
        iou = truediv(cm_diag, denominator)
        value = where(greater(num_valid, 0.0),
                      truediv(reduce_sum(iou, name="mean_iou"), maximum(num_valid, 1.0)), 0.0)
        _add_to(metrics_collections, value)
        _add_to(updates_collections, update_op)
        return value, update_op


def mean_per_class_accuracy(labels, predictions, num_classes: int, weights=None,
                            metrics_collections=None, updates_collections=None,
                            name: str | None = None):
    """The mean over classes of each class's accuracy (``mean_accuracy/count / total`` per
    label class); the update gives the per-class accuracies, shape ``[num_classes]``."""
    with variable_scope(name, "mean_accuracy"):
        labels, predictions, weights = _flat_classes(labels, predictions, weights)
        total = metric_variable([num_classes], _dtypes.float32, name="total")
        count = metric_variable([num_classes], _dtypes.float32, name="count")
        per_label = one_hot(labels, num_classes, dtype=_dtypes.float32)
        is_correct = cast(equal(predictions, labels), _dtypes.float32)
        if weights is not None:
            per_label = multiply(per_label, expand_dims(weights, -1))
        update_total = total.assign_add(reduce_sum(per_label, 0))
        update_count = count.assign_add(reduce_sum(multiply(per_label,
                                                            expand_dims(is_correct, -1)), 0))
        per_class = _div_no_nan(count.value(), maximum(total.value(), 0.0), name="div_no_nan")
        value = reduce_mean(per_class, name="mean_accuracy")
        _add_to(metrics_collections, value)
        update_op = _div_no_nan(convert_to_tensor(update_count),
                                maximum(convert_to_tensor(update_total), 0.0), name="update_op")
        _add_to(updates_collections, update_op)
        return value, update_op


def _count_condition(values: Tensor, weights, metrics_collections, updates_collections):
    """A ``count`` variable summing the (weighted) true entries of the boolean ``values``."""
    if values.dtype != _dtypes.bool:
        raise TypeError(f"{values.name} must be of type <dtype: 'bool'>; got {values.dtype!r}")
    count = metric_variable([], _dtypes.float32, name="count")
    values = cast(values, _dtypes.float32)
    if weights is not None:
        values = multiply(values, cast(weights, _dtypes.float32))
    value = identity(count)
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
true_negatives = _confusion_count("true_negatives", False, False)


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


def _confusion_matrix_at_thresholds(labels, predictions, thresholds: list[float], weights,
                                    includes=("tp", "fn", "tn", "fp")):
    """Per threshold ``t``: the (weighted) counts of ``prediction > t`` against the labels, in
    ``[len(thresholds)]`` variables ``true_positives``, ``false_negatives``, ``true_negatives``,
    ``false_positives`` (TF's order; those in ``includes``); returns ``(values, update_ops)``
    keyed tp/fn/tn/fp."""
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
        if key not in includes:
            continue
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


def _at_thresholds(kind: str, other: str):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None,
               updates_collections=None, name: str | None = None):
        with variable_scope(name, f"{kind}_at_thresholds"):
            values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                                 weights, includes=("tp", other))
            epsilon = 1e-7

            def ratio(tp, wrong, name):
                return truediv(tp, add(add(epsilon, tp), wrong), name=f"{kind}_{name}")
            value = ratio(values["tp"], values[other], "value")
            _add_to(metrics_collections, value)
            update_op = ratio(update_ops["tp"], update_ops[other], "update_op")
            _add_to(updates_collections, update_op)
            return value, update_op
    metric.__name__ = metric.__qualname__ = f"{kind}_at_thresholds"
    return metric


precision_at_thresholds = _at_thresholds("precision", "fp")
precision_at_thresholds.__doc__ = """Per threshold ``t`` of ``thresholds``: ``tp / (tp + fp)`` of
``predictions > t`` (a ``[len(thresholds)]`` tensor)."""
recall_at_thresholds = _at_thresholds("recall", "fn")
recall_at_thresholds.__doc__ = """Per threshold ``t`` of ``thresholds``: ``tp / (tp + fn)`` of
``predictions > t`` (a ``[len(thresholds)]`` tensor)."""

"""tf.metrics: names, collections, streaming values and weights as TF 2.x's compat.v1 gives them
(every expectation below was printed by tensorflow 2.21 running the same program)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-6)


def test_accuracy_names_collections_and_streaming_values():
    labels, preds = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.int64, [None])
    acc, update = tf.metrics.accuracy(labels, preds)
    other, _ = tf.metrics.accuracy(labels, preds)
    assert (acc.name, update.name, other.name) == ("accuracy/value:0", "accuracy/update_op:0",
                                                   "accuracy_1/value:0")
    assert acc.dtype == tf.float32 and acc.shape.as_list() == []
    names = ["accuracy/total:0", "accuracy/count:0", "accuracy_1/total:0", "accuracy_1/count:0"]
    assert [v.name for v in tf.local_variables()] == names
    assert [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == names
    assert tf.global_variables() == [] and tf.trainable_variables() == []
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(acc) == 0.0                               # nothing seen: 0, not NaN
        _close(sess.run(update, {labels: [1, 2, 3], preds: [1, 2, 0]}), 2 / 3)
        _close(sess.run(acc), 2 / 3)
        assert sess.run(other) == 0.0                             # its own variables
        _close(sess.run(update, {labels: [1, 2, 3], preds: [1, 1, 1]}), 0.5)
        _close(sess.run(acc), 0.5)
        sess.run(tf.local_variables_initializer())               # restarts the metric
        assert sess.run(acc) == 0.0


def test_accuracy_casts_predictions_to_the_labels_dtype_and_fills_collections():
    with tf.variable_scope("eval"):
        acc, update = tf.metrics.accuracy(tf.constant([1, 2]), tf.constant([1.0, 2.0]),
                                          metrics_collections=["mc"], updates_collections=["uc"])
    assert (acc.name, update.name) == ("eval/accuracy/value:0", "eval/accuracy/update_op:0")
    assert tf.get_collection("mc") == [acc] and tf.get_collection("uc") == [update]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(update) == 1.0


def test_mean_with_weights_broadcast_as_tf():
    values = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    m, update = tf.metrics.mean(values, weights=tf.constant([1.0, 0.0]), name="wmean")
    m2, update2 = tf.metrics.mean(values, weights=tf.constant([[1.0], [0.0]]))
    plain, plain_update = tf.metrics.mean(values)
    assert (m.name, update.name, m2.name) == ("wmean/value:0", "wmean/update_op:0", "mean/value:0")
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(m) == 0.0
        _close([sess.run(update), sess.run(update), sess.run(m)], [1.5, 1.5, 1.5])
        _close(sess.run(update2), 1.5)   # a rank-1 weight gains a trailing axis: rows weigh
        _close(sess.run(plain_update), 2.5)


def test_mean_squared_error_squeezes_a_trailing_label_axis():
    mse, update = tf.metrics.mean_squared_error(tf.constant([[1.0], [2.0]]), tf.constant([1.0, 3.0]))
    assert (mse.name, update.name) == ("mean_squared_error/value:0", "mean_squared_error/update_op:0")
    assert [v.name for v in tf.local_variables()] == ["mean_squared_error/total:0",
                                                      "mean_squared_error/count:0"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        _close([sess.run(update), sess.run(mse)], [0.5, 0.5])


def test_precision_and_recall_variables_and_values():
    pr, pr_update = tf.metrics.precision(tf.constant([1, 0, 1, 1]), tf.constant([1, 1, 0, 1]),
                                         weights=[1.0, 2.0, 3.0, 4.0])
    rc, rc_update = tf.metrics.recall(tf.constant([True, False, True]),
                                      tf.constant([True, True, False]))
    empty, empty_update = tf.metrics.precision([0, 0], [0, 0])
    assert (pr.name, pr_update.name, rc.name) == ("precision/value:0", "precision/update_op:0",
                                                  "recall/value:0")
    assert [v.name for v in tf.local_variables()] == [
        "precision/true_positives/count:0", "precision/false_positives/count:0",
        "recall/true_positives/count:0", "recall/false_negatives/count:0",
        "precision_1/true_positives/count:0", "precision_1/false_positives/count:0"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(pr) == 0.0 and sess.run(rc) == 0.0
        _close(sess.run(pr_update), 5 / 7)                        # tp 1+4, fp 2
        _close(sess.run(pr), 5 / 7)
        _close([sess.run(rc_update), sess.run(rc)], [0.5, 0.5])
        assert sess.run(empty_update) == 0.0                      # no positives: 0, not NaN


def test_incompatible_shapes_are_refused_with_tfs_words():
    with pytest.raises(ValueError, match=r"^Shapes \(3,\) and \(2,\) are incompatible"):
        tf.metrics.accuracy(tf.constant([1, 2]), tf.constant([1, 2, 3]))


def test_metrics_is_the_compat_v1_namespace_too():
    assert tf.compat.v1.metrics is tf.metrics


def test_auc_variables_curves_summations_and_values():
    labels, preds = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.float32, [None])
    roc, roc_update = tf.metrics.auc(labels, preds)
    assert (roc.name, roc_update.name) == ("auc/value:0", "auc/update_op:0")
    assert [v.name for v in tf.local_variables()] == ["auc/true_positives:0", "auc/false_negatives:0",
                                                      "auc/true_negatives:0", "auc/false_positives:0"]
    assert tf.local_variables()[0].shape.as_list() == [200]
    pr, pr_update = tf.metrics.auc(labels, preds, curve="PR", num_thresholds=50,
                                   summation_method="careful_interpolation")
    assert pr.name == "auc_1/interpolate_pr_auc:0"                  # TF's name, not value:0
    minor, minor_update = tf.metrics.auc(labels, preds, curve="PR", summation_method="minoring",
                                         weights=tf.constant([1.0, 2.0, 1.0, 3.0]),
                                         thresholds=[0.3, 0.5, 0.7])
    major, major_update = tf.metrics.auc(tf.constant([[1], [0], [1], [0]]),
                                         tf.constant([[0.9], [0.2], [0.6], [0.7]]),
                                         summation_method="majoring", name="m")
    assert major.name == "m/value:0"
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        np.testing.assert_allclose(sess.run([roc, pr, minor]), [0.0, 0.0, 0.0])
        feed = {labels: [0, 0, 1, 1], preds: [0.1, 0.4, 0.35, 0.8]}
        np.testing.assert_allclose(
            [sess.run(roc_update, feed), sess.run(roc), sess.run(pr_update, feed),
             sess.run(minor_update, feed), sess.run(major_update)],
            [0.74999976, 0.74999976, 0.79726744, 0.91666645, 0.74999976], rtol=1e-5)
        feed = {labels: [0, 1, 1, 0], preds: [0.60276335, 0.5448832, 0.4236548, 0.6458941]}
        np.testing.assert_allclose(
            [sess.run(roc_update, feed), sess.run(pr_update, feed), sess.run(minor_update, feed)],
            [0.5625, 0.6289742, 0.74114764], rtol=1e-5)
        with pytest.raises(tf.errors.InvalidArgumentError, match="predictions must be in \\[0, 1\\]"):
            sess.run(roc_update, {labels: [0, 1], preds: [0.5, 1.5]})


def test_auc_bad_curve_and_summation_are_refused_with_tfs_words():
    with pytest.raises(ValueError, match=r"^Curve must be either ROC or PR\. Curve XX is unknown\.$"):
        tf.metrics.auc([0, 1], [0.2, 0.8], curve="XX")
    with pytest.raises(ValueError, match=r"^Invalid summation_method: foo summation_method should be "
                                         r"'trapezoidal', 'careful_interpolation', 'minoring', or "
                                         r"'majoring'\.$"):
        tf.metrics.auc(tf.constant([0, 1]), tf.constant([0.2, 0.8]), summation_method="foo")


def test_rmse_mae_true_negatives_mean_iou_and_per_class_accuracy():
    labels, preds = tf.constant([[0, 1], [2, 2]]), tf.constant([[0, 2], [2, 1]])
    rmse, rmse_update = tf.metrics.root_mean_squared_error(tf.constant([1.0, 2.0, 3.0]),
                                                           tf.constant([1.0, 4.0, 4.0]))
    mae, mae_update = tf.metrics.mean_absolute_error(tf.constant([1.0, 2.0, 3.0]),
                                                     tf.constant([1.0, 4.0, 4.0]), weights=[1.0, 0.0, 2.0])
    tn, tn_update = tf.metrics.true_negatives(tf.constant([0, 1, 0]), tf.constant([0, 0, 0]))
    iou, iou_update = tf.metrics.mean_iou(labels, preds, 4)
    pc, pc_update = tf.metrics.mean_per_class_accuracy(labels, preds, 4,
                                                       weights=tf.constant([[1.0, 1.0], [2.0, 1.0]]))
    assert (rmse.name, rmse_update.name) == ("Sqrt:0", "Sqrt_1:0")     # outside the scope, as TF
    assert (mae.name, tn.name) == ("mean_absolute_error/value:0", "true_negatives/Identity:0")
    assert repr(tn_update) == "<tf.Variable 'true_negatives/AssignAddVariableOp' shape=() dtype=float32>"
    assert iou.name == "mean_iou/Select_1:0"
    assert repr(iou_update) == "<tf.Variable 'mean_iou/AssignAddVariableOp' shape=(4, 4) dtype=float64>"
    assert (pc.name, pc_update.name) == ("mean_accuracy/mean_accuracy:0", "mean_accuracy/update_op:0")
    assert pc_update.shape.as_list() == [4]
    assert [(v.name, v.dtype, v.shape.as_list()) for v in tf.local_variables()][-4:] == [
        ("true_negatives/count:0", tf.float32, []),
        ("mean_iou/total_confusion_matrix:0", tf.float64, [4, 4]),
        ("mean_accuracy/total:0", tf.float32, [4]), ("mean_accuracy/count:0", tf.float32, [4])]
    cm = [[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 1, 0], [0, 0, 0, 0]]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        np.testing.assert_allclose(sess.run([rmse, mae, tn, iou, pc]), [0, 0, 0, 0, 0])
        _close([sess.run(rmse_update), sess.run(mae_update), sess.run(tn_update)],
               [1.2909944, 0.6666667, 2.0])
        np.testing.assert_array_equal(sess.run(iou_update), cm)
        _close(sess.run(pc_update), [1.0, 0.0, 0.6666667, 0.0])
        _close(sess.run([rmse, mae, tn, iou, pc]), [1.2909944, 0.6666667, 2.0, 0.44444445, 0.4166667])
        np.testing.assert_array_equal(sess.run(iou_update), 2 * np.array(cm))
        _close(sess.run(iou), 0.44444445)


def test_precision_and_recall_at_thresholds():
    labels, preds = tf.constant([0, 1, 1, 0, 1]), tf.constant([0.2, 0.7, 0.4, 0.6, 0.9])
    pr, pr_update = tf.metrics.precision_at_thresholds(labels, preds, [0.3, 0.5, 0.8])
    rc, rc_update = tf.metrics.recall_at_thresholds(labels, preds, [0.3, 0.5, 0.8],
                                                    weights=tf.constant([1.0, 2.0, 1.0, 1.0, 3.0]))
    assert (pr.name, pr_update.name, rc.name) == ("precision_at_thresholds/precision_value:0",
                                                  "precision_at_thresholds/precision_update_op:0",
                                                  "recall_at_thresholds/recall_value:0")
    assert pr.shape.as_list() == [3]
    assert [v.name for v in tf.local_variables()] == [
        "precision_at_thresholds/true_positives:0", "precision_at_thresholds/false_positives:0",
        "recall_at_thresholds/true_positives:0", "recall_at_thresholds/false_negatives:0"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        np.testing.assert_array_equal(sess.run(pr), [0, 0, 0])
        _close(sess.run(pr_update), [0.75, 0.6666667, 0.9999999])
        _close([sess.run(rc_update), sess.run(rc)], [[1.0, 0.8333333, 0.5]] * 2)

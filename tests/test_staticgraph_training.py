"""TF1 training helpers: losses with weights/reductions, RMSProp/Adagrad, schedules, clipping,
checkpoint utilities -- values checked against TF 2.x compat.v1 (figures recorded from it)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def run(fetches):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(fetches)


def test_losses_weights_reductions_names_and_collection():
    mse = tf.losses.mean_squared_error([[1., 2.], [3., 4.]], [[1.5, 2.], [3., 5.]], weights=[[1.], [0.]])
    sce = tf.losses.softmax_cross_entropy([[0., 1.], [1., 0.]], [[1., 2.], [3., 1.]], weights=[2., 0.5],
                                          label_smoothing=0.1)
    sparse = tf.losses.sparse_softmax_cross_entropy([1, 0], [[1., 2.], [3., 1.]])
    sig = tf.losses.sigmoid_cross_entropy([[0., 1.]], [[1., -2.]], reduction=tf.losses.Reduction.SUM)
    none = tf.losses.mean_squared_error([1., 2.], [2., 2.], reduction=tf.losses.Reduction.NONE)
    mean = tf.losses.absolute_difference([1., 2.], [2., 4.], reduction=tf.losses.Reduction.MEAN,
                                         weights=[1., 3.])
    huber = tf.losses.huber_loss([1., 2.], [2., 4.5])
    assert (mse.name, sce.name, sparse.name, sig.name, huber.name) == (
        "mean_squared_error/value:0", "softmax_cross_entropy_loss/value:0",
        "sparse_softmax_cross_entropy_loss/value:0", "sigmoid_cross_entropy_loss/Sum:0", "huber_loss/value:0")
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [mse, sce, sparse, sig, none, mean, huber]
    got = run([mse, sce, sparse, sig, none, mean, huber])
    want = [0.125, 0.41999364, 0.22009486, 3.4401898, [1., 0.], 1.75, 1.25]  # TF 2.21 compat.v1
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_zero_weights_give_zero_not_nan_and_bad_reduction_is_refused():
    loss = tf.losses.mean_squared_error([1., 2.], [3., 3.], weights=0.0)
    assert run(loss) == 0.0
    with pytest.raises(ValueError, match="Invalid Reduction Key nope."):
        tf.losses.mean_squared_error([1.], [2.], reduction="nope")


def test_total_and_regularization_losses():
    assert tf.losses.get_regularization_loss().op.type == "Const"
    with pytest.raises(ValueError, match="No losses found in the collections."):
        tf.losses.get_total_loss()
    with tf.variable_scope("l", regularizer=lambda w: tf.reduce_sum(w)):
        tf.get_variable("w", initializer=tf.constant([1.0, 2.0]))
    a = tf.losses.absolute_difference([1.], [3.])
    total = tf.losses.get_total_loss()
    assert total.name == "total_loss:0"
    assert run(total) == 5.0 and run(tf.losses.get_regularization_loss()) == 3.0
    assert tf.losses.get_losses() == [a]


@pytest.mark.parametrize("make,expected", [
    (lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5), [0.3871540129184723, -1.0017285346984863]),
    (lambda: tf.train.RMSPropOptimizer(0.1, centered=True), [0.5589303970336914, -1.262505292892456]),
    (lambda: tf.train.AdagradOptimizer(0.5), [0.16145572066307068, -0.9838668704032898]),
])
def test_rmsprop_and_adagrad_match_tf1_after_three_steps(make, expected):
    w = tf.get_variable("w", initializer=tf.constant([1.0, -2.0]))
    loss = tf.reduce_sum(tf.square(w) * tf.constant([1.0, 3.0]))
    gs = tf.train.get_or_create_global_step()
    opt = make()
    train = opt.minimize(loss, global_step=gs)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(train)
        np.testing.assert_allclose(s.run(w), expected, rtol=2e-6)  # TF 2.21's figures
        assert s.run(gs) == 3
    assert opt.get_slot(w, "rms" if "RMS" in type(opt).__name__ else "accumulator") is not None


def test_compute_and_apply_gradients_with_clipping():
    w = tf.get_variable("w", initializer=tf.constant([3.0, 4.0]))
    loss = tf.reduce_sum(tf.square(w))   # gradient 2w = [6, 8], norm 10
    opt = tf.train.GradientDescentOptimizer(0.1)
    grads, variables = zip(*opt.compute_gradients(loss))
    clipped, norm = tf.clip_by_global_norm(list(grads), 5.0)
    step = opt.apply_gradients(zip(clipped, variables))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(norm) == pytest.approx(10.0)
        s.run(step)
        np.testing.assert_allclose(s.run(w), [3.0 - 0.3, 4.0 - 0.4], rtol=1e-6)


def test_adagrad_rejects_nonpositive_accumulator():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_schedules_follow_the_global_step():
    gs = tf.train.get_or_create_global_step()
    assert (gs.name, gs.dtype) == ("global_step:0", tf.int64)
    lr = tf.train.exponential_decay(0.1, gs, 10, 0.5, staircase=True)
    smooth = tf.train.exponential_decay(0.1, gs, 10, 0.5)
    pc = tf.train.piecewise_constant(gs, [5, 10], [1.0, 0.5, 0.1])
    assert lr.name == "ExponentialDecay:0" and lr.dtype == tf.float32
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run([lr, pc]) == [pytest.approx(0.1), 1.0]
        for step, want_lr, want_pc in [(5, 0.1, 1.0), (6, 0.1, 0.5), (12, 0.05, 0.1)]:
            s.run(gs.assign(step))
            assert s.run([lr, pc]) == [pytest.approx(want_lr), want_pc]
        assert s.run(smooth) == pytest.approx(0.1 * 0.5 ** 1.2)
    with pytest.raises(ValueError, match="The length of boundaries should be 1 less"):
        tf.train.piecewise_constant(gs, [1], [1.0])


def test_clip_and_norm_values_and_names():
    cn = tf.clip_by_norm(tf.constant([3., 4.]), 1.0)
    gn = tf.global_norm([tf.constant([3., 4.]), tf.constant([12.])])
    cl, g2 = tf.clip_by_global_norm([tf.constant([3., 4.]), None, tf.constant([12.])], 6.5)
    assert (cn.name, gn.name, cl[1]) == ("clip_by_norm:0", "global_norm/global_norm:0", None)
    nm = tf.norm(tf.constant([[3., 4.]]), axis=1)
    n1 = tf.norm(tf.constant([3., -4.]), ord=1)
    vals = run([cn, gn, cl[0], cl[2], g2, nm, n1, tf.clip_by_value([-2., 0.5, 3.], -1., 1.)])
    want = [[0.6, 0.8], 13.0, [1.5, 2.0], [6.0], 13.0, [5.0], 7.0, [-1., 0.5, 1.]]
    for g, w in zip(vals, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        tf.clip_by_global_norm(tf.constant([1.0]), 1.0)


def test_clip_by_norm_gradient_at_zero_is_finite():
    x = tf.constant([0.0, 0.0])
    (g,) = tf.gradients(tf.reduce_sum(tf.clip_by_norm(x, 1.0)), [x])
    assert np.isfinite(run(g)).all()


def test_checkpoint_utilities(tmp_path):
    w = tf.get_variable("w", initializer=tf.constant([1.0, 2.0]))
    b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    saver = tf.train.Saver(var_list={"weights": w, "bias": b})
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        saver.save(s, str(tmp_path / "model"), global_step=1)
        s.run(w.assign([5.0, 6.0]))
        path = saver.save(s, str(tmp_path / "model"), global_step=2)
    assert tf.train.latest_checkpoint(str(tmp_path)) == path == str(tmp_path / "model-2")
    assert tf.train.list_variables(str(tmp_path)) == [("bias", [3]), ("weights", [2])]
    np.testing.assert_array_equal(tf.train.load_variable(path, "weights"), [5.0, 6.0])
    np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path / "model-1"), "weights:0"), [1., 2.])
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found in checkpoint"):
        tf.train.load_variable(path, "nope")
    restorer = tf.train.Saver(var_list=[w])
    with tf.Session() as s, pytest.raises(tf.errors.NotFoundError, match="Key w not found"):
        restorer.restore(s, path)

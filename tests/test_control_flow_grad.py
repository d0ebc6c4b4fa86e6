"""Gradients through while_loop and cond: vs finite differences, vs dyngraph, and what is kept."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from tests.gradcheck import numeric_grad

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.default_rng(0)


def finite_difference(f, x) -> np.ndarray:
    """d f(x) / d x, by the suite's central differences."""
    x = np.array(x, dtype=np.float64)
    return numeric_grad(lambda: f(x), x)


# --- while_loop ----------------------------------------------------------------------

def test_grad_wrt_loop_var_and_captured_weight_summed_over_iterations():
    x = tf.placeholder(tf.float64, (3,), name="x")
    w = tf.placeholder(tf.float64, (3,), name="w")
    n = tf.placeholder(tf.int32, (), name="n")
    _, h = tf.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, tf.tanh(h * w + 0.1)), [0, x])
    loss = tf.reduce_sum(h * h)
    gx, gw = tf.gradients(loss, [x, w])

    def ref(xv, wv, steps):
        h = xv
        for _ in range(steps):
            h = np.tanh(h * wv + 0.1)
        return (h * h).sum()
    xv, wv = RNG.normal(size=3), RNG.normal(size=3)
    with tf.Session() as s:
        for steps in (0, 1, 4):
            lv, gxv, gwv = s.run([loss, gx, gw], {x: xv, w: wv, n: steps})
            assert lv == pytest.approx(ref(xv, wv, steps))
            np.testing.assert_allclose(gxv, finite_difference(lambda v: ref(v, wv, steps), xv), atol=1e-7)
            np.testing.assert_allclose(gwv, finite_difference(lambda v: ref(xv, v, steps), wv), atol=1e-7)
        assert s.compile_count == 1


def test_grad_when_the_loss_reads_one_of_two_interacting_loop_vars():
    a0, b0, w = (tf.placeholder(tf.float64, (), name=k) for k in ("a0", "b0", "w"))
    _, a, b = tf.while_loop(lambda i, a, b: i < 5, lambda i, a, b: (i + 1, b, a * w + b), [0, a0, b0])
    grads = tf.gradients(a, [a0, b0, w])

    def ref(v):
        a, b = v[0], v[1]
        for _ in range(5):
            a, b = b, a * v[2] + b
        return a
    v = np.array([0.3, -0.8, 1.1])
    got = tf.Session().run(grads, {a0: v[0], b0: v[1], w: v[2]})
    np.testing.assert_allclose(got, finite_difference(ref, v), atol=1e-7)


def test_zero_iterations_pass_the_gradient_through_and_give_weights_zero():
    x = tf.placeholder(tf.float64, (2,), name="x")
    w = tf.constant([2.0, 3.0], tf.float64)
    h = tf.while_loop(lambda h: tf.reduce_sum(h) < 0.0, lambda h: h * w, [x])
    gx, gw = tf.gradients(tf.reduce_sum(h * 3.0), [x, w])
    got = tf.Session().run([gx, gw], {x: [1.0, 1.0]})
    np.testing.assert_array_equal(got[0], [3.0, 3.0])
    np.testing.assert_array_equal(got[1], [0.0, 0.0])


def test_grad_through_a_loop_that_hits_maximum_iterations():
    x = tf.placeholder(tf.float64, (), name="x")
    y = tf.while_loop(lambda v: v < 1e9, lambda v: v * v + 0.5, [x], maximum_iterations=3)
    g, = tf.gradients(y, [x])

    def ref(v):
        for _ in range(3):
            v = v * v + 0.5
        return v
    with tf.Session() as s:
        yv, gv = s.run([y, g], {x: 0.7})
    assert yv == pytest.approx(ref(0.7))
    assert gv == pytest.approx(finite_difference(ref, np.array(0.7)), rel=1e-6)


def test_grad_through_nested_loops_wrt_a_weight_captured_two_levels_deep():
    x = tf.placeholder(tf.float64, (2,), name="x")
    w = tf.placeholder(tf.float64, (2,), name="w")
    n = tf.placeholder(tf.int32, (), name="n")

    def outer(i, h):
        _, h = tf.while_loop(lambda j, g: j < i, lambda j, g: (j + 1, tf.tanh(g * w)), [0, h])
        return i + 1, h + w
    _, h = tf.while_loop(lambda i, h: i < n, outer, [0, x])
    loss = tf.reduce_sum(h)
    gx, gw = tf.gradients(loss, [x, w])

    def ref(xv, wv, steps):
        h = xv
        for i in range(steps):
            for _ in range(i):
                h = np.tanh(h * wv)
            h = h + wv
        return h.sum()
    xv, wv = RNG.normal(size=2), RNG.normal(size=2)
    with tf.Session() as s:
        lv, gxv, gwv = s.run([loss, gx, gw], {x: xv, w: wv, n: 4})
    assert lv == pytest.approx(ref(xv, wv, 4))
    np.testing.assert_allclose(gxv, finite_difference(lambda v: ref(v, wv, 4), xv), atol=1e-7)
    np.testing.assert_allclose(gwv, finite_difference(lambda v: ref(xv, v, 4), wv), atol=1e-7)


def test_forward_keeps_one_tuple_per_iteration_of_only_loop_dependent_values():
    w = tf.placeholder(tf.float64, (2, 2), name="w")
    n = tf.placeholder(tf.int32, (), name="n")
    _, h = tf.while_loop(lambda i, h: i < n,
                         lambda i, h: (i + 1, tf.tanh(tf.matmul(h, tf.transpose(w)))),
                         [0, tf.ones((1, 2), tf.float64)])
    tf.gradients(tf.reduce_sum(h), [w])
    loop = h.op.inputs[0].op                              # h = Identity(while:1)
    prog = loop.graph.grad_programs[loop.name]
    kept = sorted(t.op.type for t in prog.needed)
    assert kept == ["Placeholder", "Tanh"]               # h (arg) and tanh's output; not transpose(w)
    trace = tf.Session().run(loop.outputs[-1], {n: 5, w: np.eye(2)})
    assert len(trace) == 5 and all(len(saved) == 2 for saved in trace)


def test_differentiating_never_changes_the_forward_node_and_forward_runs_keep_nothing():
    """The gradient's bookkeeping lives in the graph's table, not in the forward node's attrs;
    a run that fetches only forward values keeps no per-iteration trace (TF 1 keeps it)."""
    w = tf.placeholder(tf.float64, (2, 2), name="w")
    n = tf.placeholder(tf.int32, (), name="n")
    _, h = tf.while_loop(lambda i, h: i < n,
                         lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w))), [0, tf.ones((1, 2), tf.float64)])
    loss = tf.reduce_sum(h)
    loop = h.op.inputs[0].op
    attrs = dict(loop.attrs)
    sess = tf.Session()
    before = sess.compiled(loss, {n: 3, w: np.eye(2)}).source
    gw, = tf.gradients(loss, [w])
    assert loop.attrs == attrs and "grad" not in loop.attrs
    assert sess.compiled(loss, {n: 3, w: np.eye(2)}).source.replace("_1", "_0") \
        .count("push(") == before.count("push(") == 0
    _, trace = sess.run([loss, loop.outputs[-1]], {n: 3, w: np.eye(2)})
    assert trace is not None and len(trace) == 3
    assert sess.run(gw, {n: 3, w: np.eye(2)}).shape == (2, 2)


def test_no_gradient_without_back_prop_or_for_integer_loop_vars():
    x = tf.placeholder(tf.float32, (), name="x")
    i, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0), [0, x], back_prop=False)
    assert tf.gradients(y, [x]) == [None]
    k = tf.placeholder(tf.int32, (), name="k")
    j, z = tf.while_loop(lambda j, z: j < 3, lambda j, z: (j + k, z * 2.0), [k, x])
    assert tf.gradients(z, [k]) == [None]


# --- cond ----------------------------------------------------------------------------

def test_cond_gradient_only_from_the_taken_branch():
    x = tf.placeholder(tf.float64, (3,), name="x")
    w = tf.placeholder(tf.float64, (3,), name="w")
    p = tf.placeholder(tf.bool, (), name="p")
    y = tf.cond(p, lambda: tf.reduce_sum(tf.tanh(x * w)), lambda: tf.reduce_sum(x * x))
    gx, gw = tf.gradients(y, [x, w])
    xv, wv = RNG.normal(size=3), RNG.normal(size=3)
    with tf.Session() as s:
        t = s.run([gx, gw], {x: xv, w: wv, p: True})
        f = s.run([gx, gw], {x: xv, w: wv, p: False})
    np.testing.assert_allclose(t[0], finite_difference(lambda v: np.tanh(v * wv).sum(), xv), atol=1e-7)
    np.testing.assert_allclose(t[1], finite_difference(lambda v: np.tanh(xv * v).sum(), wv), atol=1e-7)
    np.testing.assert_allclose(f[0], 2 * xv)
    np.testing.assert_array_equal(f[1], np.zeros(3))      # w is not used by the taken branch
    assert (gx.op.kind, gx.op.type) == ("CondGrad", "StatelessIf")   # TF: the gradient is an If


def test_cond_inside_a_loop_and_a_loop_inside_a_cond_are_differentiable():
    x = tf.placeholder(tf.float64, (), name="x")
    n = tf.placeholder(tf.int32, (), name="n")
    _, y = tf.while_loop(lambda i, v: i < n,
                         lambda i, v: (i + 1, tf.cond(v > 1.0, lambda: v * 0.5, lambda: v * v + 1.0)),
                         [0, x])
    p = tf.placeholder(tf.bool, (), name="p")
    z = tf.cond(p, lambda: tf.while_loop(lambda v: v < 50.0, lambda v: v * x, [x]), lambda: x * 3.0)
    gy, gz = tf.gradients(y, [x])[0], tf.gradients(z, [x])[0]

    def ref_y(v):
        for _ in range(5):
            v = v * 0.5 if v > 1.0 else v * v + 1.0
        return v

    def ref_z(v, taken):
        if not taken:
            return v * 3.0
        r = v
        while r < 50.0:
            r = r * v
        return r
    with tf.Session() as s:
        assert s.run(gy, {x: 0.3, n: 5}) == pytest.approx(finite_difference(ref_y, np.array(0.3)))
        for taken in (True, False):
            got = s.run(gz, {x: 1.7, p: taken})
            assert got == pytest.approx(finite_difference(lambda v: ref_z(v, taken), np.array(1.7)))


# --- the RNN: length fed at run time, trained with an optimizer ------------------------

B, D, H = 2, 3, 4


def rnn_graph():
    xs = tf.placeholder(tf.float64, (None, B, D), name="xs")
    n = tf.placeholder(tf.int32, (), name="n")
    h0 = tf.placeholder(tf.float64, (B, H), name="h0")
    wx = tf.Variable(RNG.normal(size=(D, H)) * 0.5, name="wx")
    wh = tf.Variable(RNG.normal(size=(H, H)) * 0.5, name="wh")
    _, h = tf.while_loop(lambda t, h: t < n,
                         lambda t, h: (t + 1, tf.tanh(tf.matmul(xs[t], wx) + tf.matmul(h, wh))),
                         [0, h0])
    loss = tf.reduce_mean(h * h)
    return xs, n, h0, wx, wh, loss


def eager_rnn(xs, h0, wx, wh):
    """The same RNN in dyngraph: a plain Python loop over the sequence."""
    h = h0
    for t in range(xs.shape[0]):
        h = torch.tanh(xs[t] @ wx + h @ wh)
    return (h * h).mean()


@pytest.mark.parametrize("steps", [0, 1, 6])
def test_rnn_loss_and_gradients_equal_dyngraph_and_finite_differences(steps):
    xs, n, h0, wx, wh, loss = rnn_graph()
    grads = tf.gradients(loss, [wx, wh, h0, xs])
    xv, hv = RNG.normal(size=(steps, B, D)), RNG.normal(size=(B, H))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        wxv, whv = s.run([wx, wh])
        lv, *gv = s.run([loss, *grads], {xs: xv, n: steps, h0: hv})
    leaves = [torch.tensor(a, requires_grad=True) for a in (wxv, whv, hv, xv)]
    eager = eager_rnn(leaves[3], leaves[2], leaves[0], leaves[1])
    eager.backward()
    assert lv == pytest.approx(eager.item(), abs=1e-12)
    for g, leaf in zip(gv, leaves):     # eager: None where no step used it (steps == 0)
        want = np.zeros(leaf.shape) if leaf.grad is None else leaf.grad.numpy()
        np.testing.assert_allclose(g, want, atol=1e-12)
    args = [wxv, whv, hv, xv]
    for k in range(4):
        fd = finite_difference(lambda a: numpy_rnn_loss(*args[:k], a, *args[k + 1:]), args[k])
        np.testing.assert_allclose(gv[k], fd, atol=1e-7)


def numpy_rnn_loss(wx, wh, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ wx + h @ wh)
    return (h * h).mean()


def test_minimize_trains_an_rnn_built_with_while_loop():
    xs, n, h0, wx, wh, loss = rnn_graph()
    opt = tf.train.GradientDescentOptimizer(0.5)
    gwx, gwh = tf.gradients(loss, [wx, wh])
    train = opt.minimize(loss)
    feed = {xs: RNG.normal(size=(5, B, D)), n: 5, h0: RNG.normal(size=(B, H))}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        before, g_wx, g_wh, wx0 = s.run([loss, gwx, gwh, wx], feed)
        s.run(train, feed)
        np.testing.assert_allclose(s.run(wx), wx0 - 0.5 * g_wx)
        for _ in range(30):
            s.run(train, feed)
        assert s.run(loss, feed) < 0.5 * before


def test_error_second_order_gradient_through_a_loop_that_draws_random_numbers():
    """The second order recomputes the loop: a body with a random draw (or a state change)
    cannot be recomputed, so it is refused, naming the op."""
    x = tf.placeholder(tf.float64, (), name="x")
    y = tf.while_loop(lambda v: v < 10.0,
                      lambda v: v * v + tf.random.uniform((), dtype=tf.float64), [x])
    g, = tf.gradients(y, [x])
    with pytest.raises(LookupError, match=r"No second-order gradient through while_body_\d+: it "
                                          r"would recompute operation 'random_uniform"):
        tf.gradients(g, [x])


def test_loop_differentiates_only_the_captures_asked_for():
    """d loss/d w does not differentiate the fed sequence; asking for it later grows the program."""
    xs = tf.placeholder(tf.float64, (None, 3), name="xs")
    w = tf.placeholder(tf.float64, (3,), name="w")
    steps = tf.placeholder(tf.int32, (), name="T")
    _, h = tf.while_loop(lambda t, h: t < steps, lambda t, h: (t + 1, tf.tanh(h * w + xs[t])),
                         [0, tf.zeros((3,), tf.float64)])
    loss = tf.reduce_sum(h * h)
    (gw,) = tf.gradients(loss, [w])
    while_op = next(op for op in tf.get_default_graph().get_operations() if op.type == "StatelessWhile")
    body = while_op.attrs["body"]
    programs = while_op.graph.grad_programs
    assert body.graph.captures[xs] not in programs[while_op.name].wrt
    gxs, gw2 = tf.gradients(loss, [xs, w])
    assert body.graph.captures[xs] in programs[while_op.name].wrt

    xv, wv = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    feed = {xs: xv, w: wv, steps: 4}

    def ref(xv_, wv_):
        h = np.zeros(3)
        for t in range(4):
            h = np.tanh(h * wv_ + xv_[t])
        return (h * h).sum()

    with tf.Session() as s:
        got_w, got_xs, got_w2 = s.run([gw, gxs, gw2], feed)
    np.testing.assert_allclose(got_w, finite_difference(lambda v: ref(xv, v), wv), rtol=1e-6)
    np.testing.assert_allclose(got_w2, got_w, rtol=1e-12)
    np.testing.assert_allclose(got_xs, finite_difference(lambda v: ref(v, wv), xv), rtol=1e-6)


def test_a_loop_keeps_only_the_shape_of_values_its_gradient_reads_for_shape():
    """A TensorArray's buffer is read by its gradient for its shape only: the trace keeps a
    ShapeRef per iteration, not the whole buffer (memory linear, not quadratic, in T)."""
    from common import ShapeRef
    xs = tf.placeholder(tf.float64, (6, 3), name="xs")
    w = tf.placeholder(tf.float64, (3,), name="w")
    ta = tf.TensorArray(tf.float64, size=6)

    def body(t, ta):
        return t + 1, ta.write(t, tf.tanh(xs[t] * w))
    _, ta = tf.while_loop(lambda t, ta: t < 6, body, [0, ta])
    loss = tf.reduce_sum(ta.stack())
    gw, = tf.gradients(loss, [w])
    while_op = next(op for op in tf.get_default_graph().get_operations() if op.type == "StatelessWhile")
    prog = while_op.graph.grad_programs[while_op.name]
    assert any(prog.shape_only())
    feed = {xs: RNG.standard_normal((6, 3)), w: RNG.standard_normal(3)}
    with tf.Session() as s:
        trace, got = s.run([while_op.outputs[-1], gw], feed)
    kept = [v for saved in trace for v, flag in zip(saved, prog.shape_only()) if flag]
    assert len(kept) == 6 and all(isinstance(v, ShapeRef) for v in kept)
    x, wv = feed[xs], feed[w]
    np.testing.assert_allclose(got, ((1 - np.tanh(x * wv) ** 2) * x).sum(axis=0), rtol=1e-12)

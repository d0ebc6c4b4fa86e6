"""Every registry op through staticgraph: values vs numpy, gradients vs finite differences.

Each op's own examples drive the checks (as in tests/test_registry.py), once with
fully known shapes and once with placeholders whose first dim is ``None`` -- the
gradient graph must then work out shapes at run time (SumLike, BroadcastLike...).
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from common import REGISTRY
from common.examples import materialize
from common.ops.tensor_list import KERNELS as LIST_KERNELS
from staticgraph.framework.build import apply
from tests.gradcheck import cotangents, numeric_grad, results, weighted

pytestmark = pytest.mark.usefixtures("fresh_graph")

CASES = [(name, k) for name, op in sorted(REGISTRY.items()) for k in range(len(op.examples))
         if name not in LIST_KERNELS]   # lists of arrays: checked through tf.TensorArray
SHAPES = ["static", "unknown-first-dim"]


def _example(name, k, seed=0):
    op = REGISTRY[name]
    args, attrs = materialize(op.examples[k], np.random.default_rng(seed))
    return op, [np.array(a) for a in args], attrs


def _placeholders(args, mode):
    phs = []
    for i, a in enumerate(args):
        shape = list(a.shape)
        if mode != "static" and shape:
            shape[0] = None
        phs.append(tf.placeholder(a.dtype, shape=shape, name=f"in{i}"))
    return phs


@pytest.mark.parametrize("mode", SHAPES)
@pytest.mark.parametrize("name,k", CASES)
def test_forward_matches_impl(name, k, mode):
    op, args, attrs = _example(name, k)
    phs = _placeholders(args, mode)
    ys = results(op, apply(op, tuple(phs), attrs))
    # a random op called with its seed attributes draws what a Session's first run draws
    expected = results(op, op.impl(*args, **attrs))
    with tf.Session() as s:
        gots = s.run(ys, dict(zip(phs, args)))
    assert len(ys) == len(expected) and len({y.op for y in ys}) == 1     # one node
    for y, got, want in zip(ys, gots, map(np.asarray, expected)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
        assert np.asarray(got).dtype == want.dtype == y.dtype
        assert y.shape.is_compatible_with(want.shape)


def _differentiable_cases():
    for name, k in CASES:
        if REGISTRY[name].differentiable:
            yield name, k


@pytest.mark.parametrize("mode", SHAPES)
@pytest.mark.parametrize("name,k", list(_differentiable_cases()))
def test_gradient_matches_finite_differences(name, k, mode):
    op, args, attrs = _example(name, k)
    outs = [np.asarray(o) for o in results(op, op.impl(*args, **attrs))]
    if outs[0].dtype != np.float64:
        pytest.skip("finite differences need a float64 result")
    _, gs = cotangents(op, outs, np.random.default_rng(1))
    phs = _placeholders(args, mode)
    ys = results(op, apply(op, tuple(phs), attrs))
    loss = tf.add_n([tf.reduce_sum(y * g) for y, g in zip(ys, gs) if g is not None])
    wrt = [i for i, a in enumerate(args)
           if op.input_differentiable(i) and np.issubdtype(a.dtype, np.floating)]
    grads = tf.gradients(loss, [phs[i] for i in wrt])
    wrt, grads = [i for i, g in zip(wrt, grads) if g is not None], [g for g in grads if g is not None]
    with tf.Session() as s:
        values = s.run(grads, dict(zip(phs, args)))
    checked = 0
    for i, got in zip(wrt, values):
        numeric = numeric_grad(lambda: weighted(gs, results(op, op.impl(*args, **attrs))), args[i])
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} example {k} input {i} ({mode})")
        checked += 1
    assert checked, f"{name} example {k}: no input was gradient-checked"


def test_gradients_live_in_the_graph_under_a_scope():
    x = tf.placeholder(tf.float64, shape=(3,), name="x")
    y = tf.reduce_sum(x * x)
    (gx,) = tf.gradients(y, [x])
    assert gx.name.startswith("gradients/")
    (gx2,) = tf.gradients(y, x)
    assert gx2.name.startswith("gradients_1/")
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(gx, {x: [1.0, 2.0, 3.0]}), [2.0, 4.0, 6.0])


def test_unconnected_x_gets_none_and_int_paths_are_cut():
    x = tf.placeholder(tf.float32, shape=(2,))
    other = tf.placeholder(tf.float32, shape=(2,))
    y = tf.reduce_sum(x * 3.0)
    through_int = tf.reduce_sum(tf.cast(tf.cast(other, tf.int32), tf.float32))
    assert tf.gradients(y, [x, other])[1] is None
    assert tf.gradients(through_int, other) == [None]


def test_stop_gradients_and_grad_ys():
    x = tf.placeholder(tf.float64, shape=(), name="x")
    a = x * x
    y = a * x                                               # x**3
    gx_stop, = tf.gradients(y, x, stop_gradients=[a])      # a treated as a constant: a
    gx_scaled, = tf.gradients(y, x, grad_ys=tf.constant(2.0, tf.float64))
    gx_sg, = tf.gradients(tf.stop_gradient(a) * x, x)
    with tf.Session() as s:
        assert s.run(gx_stop, {x: 3.0}) == 9.0
        assert s.run(gx_scaled, {x: 3.0}) == 54.0
        assert s.run(gx_sg, {x: 3.0}) == 9.0


@pytest.mark.parametrize("fn", [
    lambda x: tf.reduce_sum(tf.tanh(x) * x),
    lambda x: tf.reduce_sum(tf.exp(x) / (1.0 + x * x)),
    lambda x: tf.reduce_sum(tf.nn.softmax(x) * tf.sigmoid(x)),
    lambda x: tf.reduce_sum(tf.matmul(tf.reshape(x, [2, 2]), tf.reshape(x, [2, 2])) ** 2.0),
])
def test_gradients_of_gradients(fn):
    x = tf.placeholder(tf.float64, shape=(4,), name="x")
    v = np.array([0.3, -1.0, 2.0, 0.5])
    (g,) = tf.gradients(fn(x), x)
    (h,) = tf.gradients(tf.reduce_sum(g * v), x)            # Hessian-vector product
    x0 = np.array([0.1, -0.4, 0.7, 0.2])
    with tf.Session() as s:
        got = s.run(h, {x: x0})
        numeric = numeric_grad(lambda: float(np.dot(s.run(g, {x: x0}), v)), x0)
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)


def test_seed_gradient_example_is_five():
    w = tf.Variable([1.0], name="w")
    x = tf.Variable([2.0], name="x")
    a = tf.add(w, x)
    b = tf.add(w, 1)
    y = tf.multiply(a, b)
    gw, gx = tf.gradients(y, [w, x])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(gw).tolist() == [5.0] and s.run(gx).tolist() == [2.0]


def test_a_tensor_used_many_times_sums_its_gradients_in_one_addn_node():
    """As TF: the terms of a tensor's gradient meet in ONE ``AddN`` (not a chain of adds)."""
    x = tf.placeholder(tf.float32, shape=(2, 2), name="x")
    c = tf.placeholder(tf.float32, shape=(2, 2), name="c")
    y = x
    for _ in range(4):
        y = y + c
    before = len(tf.get_default_graph().get_operations())
    gx, gc = tf.gradients(tf.reduce_sum(y), [x, c])
    made = tf.get_default_graph().get_operations()[before:]
    assert [(op.name, op.type) for op in made if op.type.startswith("Add")] == [("gradients/AddN", "AddN")]
    assert gc.name == "gradients/AddN:0" and len(gc.op.inputs) == 4 and gc.shape == (2, 2)
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(gc, {x: np.zeros((2, 2)), c: np.zeros((2, 2))}),
                                      np.full((2, 2), 4.0))


def test_tf_add_n_is_one_addn_node_and_broadcasting_terms_keep_adds():
    a = tf.placeholder(tf.float32, shape=(None, 3), name="a")
    b = tf.placeholder(tf.float32, shape=(2, None), name="b")
    s3 = tf.add_n([a, b, a])
    assert (s3.op.name, s3.op.type, s3.shape.as_list()) == ("AddN", "AddN", [2, 3])
    s2 = tf.add_n([a, b])
    assert (s2.op.name, s2.op.type, s2.shape.as_list()) == ("AddN_1", "AddN", [2, 3])  # as TF
    mixed = tf.add_n([a, tf.ones((3,)), a])           # broadcasting terms: a chain of adds
    assert (mixed.op.name, mixed.op.type) == ("AddN_2", "AddV2")


def test_tf_add_n_of_one_term_is_that_term_and_of_none_is_tfs_error():
    a = tf.placeholder(tf.float32, shape=(2, 3), name="a")
    assert tf.add_n([a]) is a and tf.add_n(t for t in [a]) is a           # TF: no node
    named = tf.add_n([a], name="s")
    assert (named.op.name, named.op.type) == ("s", "Identity")
    for empty in ([], None, a):
        with pytest.raises(ValueError, match=r"^Inputs must be an iterable of at least one "
                                             r"Tensor/IndexedSlices with the same dtype and shape\.$"):
            tf.add_n(empty)


def test_addn_refuses_terms_of_different_shapes_or_dtypes():
    x = tf.placeholder(tf.float32, shape=(2, 3))
    with pytest.raises(ValueError, match=r"Shapes must be equal rank, but are 2 and 1"):
        apply(REGISTRY["AddN"], (x, tf.placeholder(tf.float32, shape=(3,)), x), {})
    with pytest.raises(ValueError, match=r"Dimension 1 in both shapes must be equal, but are 3 and 4. "
                                         r"Shapes are \[2, 3\] and \[2, 4\]."):
        apply(REGISTRY["AddN"], (x, tf.placeholder(tf.float32, shape=(2, 4))), {})
    with pytest.raises(TypeError, match=r"AddN's inputs must share one dtype"):
        apply(REGISTRY["AddN"], (x, tf.placeholder(tf.float64, shape=(2, 3))), {})

"""``tf.custom_gradient``, ``RegisterGradient`` + ``gradient_override_map``, ``identity_n``,
``hessians`` and ``parallel_stack`` in graph mode (issue #30); values, names and messages
recorded from TF 2.21's ``compat.v1`` graph mode."""
import numpy as np
import pytest

import staticgraph as tf


@pytest.fixture(autouse=True)
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def test_custom_gradient_replaces_the_inner_gradient():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        return tf.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))

    x = tf.constant(100.0)
    y = log1pexp(x)
    dy = tf.gradients(y, x)
    assert (y.name, dy[0].name) == ("IdentityN:0", "gradients/IdentityN_grad/mul:0")  # TF's names
    with np.errstate(over="ignore"):
        got = _run([y, dy])
    assert got[0] == np.inf and got[1] == [1.0]   # TF 2.21: inf, [1.0] (the inner rule: nan)


def test_custom_gradient_with_variables():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            assert variables == [v]
            return dy * 10.0, [dy * 100.0]
        return x * v, grad

    x = tf.constant(3.0)
    z = scale(x)
    assert _run([z, tf.gradients(z, [v, x])]) == [6.0, [100.0, 10.0]]

    @tf.custom_gradient
    def no_kwarg(x):
        return x * v, lambda dy: dy
    with pytest.raises(TypeError, match="grad_fn must accept keyword argument 'variables'"):
        no_kwarg(x)


def test_register_gradient_and_override_map():
    @tf.RegisterGradient("ReverseForTest")
    def _reverse(op, grad):
        return -grad

    w = tf.constant([1.0, 2.0])
    with tf.get_default_graph().gradient_override_map({"Identity": "ReverseForTest"}):
        r = tf.identity(w)
    plain = tf.identity(w)                     # made outside the block: its own gradient
    assert _run(tf.gradients(r * 3.0 + plain, w))[0].tolist() == [-2.0, -2.0]
    with pytest.raises(KeyError, match="^\"Registering two gradient with name 'ReverseForTest'! "
                                       r"\(Previous registration was in "):
        tf.RegisterGradient("ReverseForTest")(_reverse)
    with tf.get_default_graph().gradient_override_map({"Identity": "NoSuchGradient"}):
        q = tf.identity(w)
    with pytest.raises(LookupError, match="^gradient registry has no entry for: NoSuchGradient$"):
        tf.gradients(q, w)
    with pytest.raises(TypeError, match="op_type_map must be a dictionary mapping strings to strings"):
        with tf.get_default_graph().gradient_override_map({"Identity": 3}):
            pass


def test_identity_n():
    a, b = tf.constant([1.0, 2.0]), tf.constant(3.0)
    outs = tf.identity_n([a, b])
    assert [t.name for t in outs] == ["IdentityN:0", "IdentityN:1"] and outs[0].op.type == "IdentityN"
    got = _run(outs + tf.gradients(outs[0] * 2.0 + outs[1], [a, b]))
    assert got[0].tolist() == [1.0, 2.0] and got[1] == 3.0
    assert got[2].tolist() == [2.0, 2.0] and got[3] == 2.0     # b broadcast over 2 elements


def test_hessians():
    x = tf.constant([1.0, 2.0, 3.0])
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.reduce_sum(x * x * x) + tf.reduce_sum(m * m * tf.reduce_sum(m))
    hx, hm = tf.hessians(y, [x, m])
    assert hx.shape.as_list() == [3, 3] and hm.shape.as_list() == [2, 2, 2, 2]
    gx, gm = _run([hx, hm])
    np.testing.assert_array_equal(gx, np.diag([6.0, 12.0, 18.0]))     # TF 2.21's values
    np.testing.assert_array_equal(gm, [[[[24, 6], [8, 10]], [[6, 28], [10, 12]]],
                                       [[[8, 10], [32, 14]], [[10, 12], [14, 36]]]])


def test_hessians_of_a_linear_function_are_refused_in_tfs_words():
    """testHessianInvalidDimension: the gradient of the gradient is None (TF 2.21's words)."""
    x = tf.placeholder(tf.float32, (10, 10))
    with pytest.raises(ValueError, match=r"^None values not supported\. "):
        tf.hessians(x, x)


def test_parallel_stack():
    x = tf.constant([1.0, 2.0, 3.0])
    ps = tf.parallel_stack([x, x * 2])
    assert (ps.name, ps.op.type, ps.shape.as_list()) == ("parallel_stack/ParallelConcat:0",
                                                         "ParallelConcat", [2, 3])
    assert _run(ps).tolist() == [[1, 2, 3], [2, 4, 6]]
    with pytest.raises(ValueError, match=r"^shape attr must be fully defined\. for '\{\{node "
                                         r"parallel_stack_1/ParallelConcat\}\} = ParallelConcat"
                                         r"\[N=1, T=DT_FLOAT, shape=\[1,\?\]\]"):
        tf.parallel_stack([tf.placeholder(tf.float32, [None])])

"""What TensorFlow's control-flow tests check, recorded from TF 2.21 (graph mode) as literals.

Found by running TF's ``control_flow_ops_py_test``, ``while_v2_test``, ``cond_v2_test``,
``tensor_array_ops_test``, ``map_fn_test``, ``scan_ops_test`` and ``gradients_test``
through ``tools/tf_tests`` (issue #30).  CI has neither TF nor its test files: the values
below are what ``tf.compat.v1`` (control flow v2, TF's default) printed for the same programs.
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


def _run(fetches, init: bool = False):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


# --- IndexedSlices through cond and while_loop (testCondIndexedSlices*, testWhile*IndexedSlices)

def test_cond_of_indexed_slices_casts_mismatched_indices_to_int64():
    with tf.Graph().as_default():
        x = tf.IndexedSlices(tf.constant([10]), tf.constant([0]))
        r = tf.cond(tf.less(1, 2), lambda: tf.IndexedSlices(x.values + 1, x.indices),
                    lambda: tf.IndexedSlices(x.values - 1, tf.constant([0], tf.int64)))
        assert isinstance(r, tf.IndexedSlices)
        assert (r.values.name, r.indices.name, r.indices.dtype) == (
            "cond/Identity:0", "cond/Identity_1:0", tf.int64)   # TF 2.21
        values, indices = _run([r.values, r.indices])
    assert values.tolist() == [11] and indices.tolist() == [0]


def test_cond_of_indexed_slices_and_a_tensor_cannot_be_reconciled():
    with tf.Graph().as_default():
        x = tf.IndexedSlices(tf.constant([10]), tf.constant([0]))
        with pytest.raises(TypeError, match=r"^Cannot reconcile tf.cond 0-th outputs:\n"
                                            r"  branches returned: \(IndexedSlices"):
            tf.cond(tf.constant(True), lambda: x, lambda: x.values)


def test_while_loop_carries_indexed_slices_and_differentiates_their_values():
    with tf.Graph().as_default():
        values = tf.constant([[2.0, 4.0], [3.0, 5.0]])
        x = tf.IndexedSlices(values, tf.constant([0, 3]), dense_shape=tf.constant([10, 2]))

        def body(i, x):
            return [i + 1, tf.IndexedSlices(x.values * 2.0, x.indices, x.dense_shape)]

        _, r = tf.while_loop(lambda i, _: i < 10, body, [tf.constant(0), x])
        assert isinstance(r, tf.IndexedSlices) and r.values.name == "while/Identity_3:0"
        assert (r.values.shape, r.indices.shape, r.dense_shape.shape) == ((2, 2), (2,), (2,))
        _, r2 = tf.while_loop(lambda i, _: i < 10, body, [tf.constant(0), x],
                              [tf.TensorShape([]), tf.TensorShape([None, 2])])
        # an IndexedSlices' invariant is its dense shape (TF's IndexedSlicesSpec)
        assert (r2.values.shape.as_list(), r2.indices.shape.as_list(),
                r2.dense_shape.shape.as_list()) == ([None, 2], [None], [2])
        grad = tf.gradients(r.values, values)[0]
        out, g = _run([r.values, grad])
    np.testing.assert_array_equal(out, [[2048.0, 4096.0], [3072.0, 5120.0]])
    np.testing.assert_array_equal(g, np.full((2, 2), 1024.0))


# --- static shapes inside bodies (while_v2_test testFillOpsShape, testReshapeShape...) -------

def test_a_captured_constant_keeps_its_value_for_shape_inference_in_a_body():
    with tf.Graph().as_default():
        shape = tf.constant([3, 4])
        seen = []

        def body(i, u):
            u = tf.zeros(tf.concat([[5], shape], 0))
            seen.append(u.shape.as_list())
            return i + 1, u

        tf.while_loop(lambda i, _: i < 3, body, [0, tf.zeros([5, 3, 4])])
        branch = tf.cond(tf.constant(True), lambda: tf.reshape(tf.zeros([12]), shape),
                         lambda: tf.ones([3, 4]))
        assert seen == [[5, 3, 4]] and branch.shape.as_list() == [3, 4]   # TF 2.21


# --- a tf.function called while a graph is built adds to it (gradients_test, cond_v2_test) ---

def test_a_function_called_while_building_uses_the_outer_tensors_it_closes_over():
    with tf.Graph().as_default():
        x = tf.constant(1.0, name="x")
        y = tf.constant(2.0, name="y")

        @tf.function
        def grad_of_captured():
            return tf.gradients(tf.multiply(x, 2.0, name="y"), x)[0]

        def true_fn():
            @tf.function
            def fn():
                return x * y * 2.0
            return fn()

        g = grad_of_captured()
        out = tf.cond(tf.constant(True), true_fn, lambda: 2.0)
        assert isinstance(g, tf.Tensor) and isinstance(out, tf.Tensor)
        grads = tf.gradients(out, [x, y])
        assert _run([g, out, *grads]) == [2.0, 4.0, 4.0, 2.0]   # TF 2.21


def test_a_python_argument_of_a_function_built_into_a_graph_takes_the_signature_shape():
    with tf.Graph().as_default():
        def gather(indices):
            ta = tf.TensorArray(dtype=tf.float32, size=3).write(0, tf.constant([1.0, 2.0, 3.0]))
            return ta.gather(indices)

        loose = tf.function(gather, input_signature=[tf.TensorSpec([None], tf.int32)])
        assert tf.function(gather)([0]).shape.as_list() == [1, 3]
        assert loose([0]).shape.as_list() == [None, 3]   # TF 2.21 (testGatherShape)


# --- structure mismatches in TF's words (testCheckNestedOutputStruct, testWhile_NestedBadArityFails)

def test_cond_branches_of_different_structures_raise_tf2s_type_error_and_tf1s_value_error():
    with tf.Graph().as_default():
        x, y = tf.constant(10), tf.constant(200)
        fn1, fn2 = (lambda: {"a": x + y, "b": x + y}), (lambda: {"c": y, "d": y})
        with pytest.raises(TypeError) as info:
            tf.cond(tf.less(1, 2), fn1, fn2)
    text = str(info.value)
    assert text.startswith(   # TF 2.21, to "Entire second structure"
        "true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
        "structure of return values.\n\ntrue_fn output: {'a': <tf.Tensor 'add:0' shape=() "
        "dtype=int32>, 'b': <tf.Tensor 'add_1:0' shape=() dtype=int32>}\nfalse_fn output: "
        "{'c': <tf.Tensor 'Const_1:0' shape=() dtype=int32>, 'd': <tf.Tensor 'Const_1:0' "
        "shape=() dtype=int32>}\n\nError details:\nThe two structures don't have the same nested "
        "structure.\n\n")
    assert ("More specifically: The two dictionaries don't have the same set of keys. First "
            "structure has keys type=list str=['a', 'b'], while second structure has keys "
            "type=list str=['c', 'd']\nEntire first structure:\n{'a': ., 'b': .}\nEntire second "
            "structure:\n{'c': ., 'd': .}") in text
    tf.compat.v1.disable_control_flow_v2()
    try:
        with tf.Graph().as_default(), pytest.raises(
                ValueError, match="^The two structures don't have the same nested structure"):
            x, y = tf.constant(10), tf.constant(200)
            tf.cond(tf.less(1, 2), fn1, fn2)
    finally:
        tf.compat.v1.enable_control_flow_v2()


def test_while_body_of_another_arity_is_refused_in_nests_words():
    import collections
    named = collections.namedtuple("named", ("a", "b"))
    with tf.Graph().as_default():
        loop_vars = [named(a=tf.constant(0.0), b=tf.constant(1.0)),
                     (tf.constant(2.0), tf.constant(3.0)), tf.constant(4.0)]
        with pytest.raises(ValueError) as info:
            tf.while_loop(lambda lv0, _1, _2: lv0.a < 100.0, lambda lv0, lv1, _: [lv0, lv1],
                          loop_vars)
    text = str(info.value)
    assert text.startswith("The two structures don't have the same nested structure.\n\n"
                           "First structure: type=list str=[named(a=")
    assert ("More specifically: The two structures don't have the same number of elements. "
            in text)
    assert ("Entire first structure:\n[named(a=., b=.), (., .)]\nEntire second structure:\n"
            "[named(a=., b=.), (., .), .]") in text   # TF 2.21


def test_a_branch_using_the_other_branchs_tensor_is_refused_in_tfs_words():
    with tf.Graph().as_default():
        inputs = {"c": tf.constant(1.0)}

        def true_fn():
            inputs["c"] = tf.identity(inputs["c"], name="true_branch")
            return inputs["c"]

        with pytest.raises(ValueError, match=r"^Tensor true_branch:0 in true_fn is accessed "
                                             r"from false_fn\.$"):   # TF 2.21
            tf.cond(tf.constant(True), true_fn, lambda: tf.identity(inputs["c"]))


# --- gradients_test: UnconnectedGradients, AggregationMethod, recompute_grad ---------------

def test_unconnected_gradients_is_an_enum_and_aggregation_methods_are_tfs_numbers():
    assert repr(tf.UnconnectedGradients.ZERO) == "<UnconnectedGradients.ZERO: 'zero'>"
    assert tf.UnconnectedGradients("zero") is tf.UnconnectedGradients.ZERO
    assert (tf.AggregationMethod.ADD_N, tf.AggregationMethod.DEFAULT,
            tf.AggregationMethod.EXPERIMENTAL_TREE,
            tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N) == (0, 0, 1, 2)   # TF 2.21
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        y = x * 2.0
        z = y + y + y
        with pytest.raises(ValueError, match=r"^Invalid `aggregation_method` specified 5\. "
                                             r"Accepted values are \[0, 1, 2\]\.$"):
            tf.gradients(z, x, aggregation_method=5)
        g = tf.gradients(z, [x, y], aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE)
        zero = tf.gradients(x * 2.0, [x, tf.constant(3.0)],
                            unconnected_gradients=tf.UnconnectedGradients.ZERO)
        assert _run(g) == [6.0, 3.0] and _run(zero) == [2.0, 0.0]


def test_recompute_grad_gives_fs_values_and_gradients_variables_included():
    with tf.Graph().as_default():
        v = tf.Variable([2.0, 2.0, 2.0])
        x = tf.constant([1.0, 2.0, 3.0])

        def f(x):
            return tf.reduce_sum(tf.sin(x) * v)

        r = tf.recompute_grad(f)
        assert r.__wrapped__ is f
        y = r(x)
        y_value, (gx, gv) = _run([y, tf.gradients(y, [x, v])], init=True)
    np.testing.assert_allclose(y_value, 3.7837768, rtol=1e-6)   # TF 2.21
    np.testing.assert_allclose(gx, [1.0806046, -0.8322937, -1.979985], rtol=1e-6)
    np.testing.assert_allclose(gv, [0.84147096, 0.9092974, 0.14112], rtol=1e-6)


def test_custom_gradient_takes_nested_arguments_one_gradient_per_leaf():
    # testCustomGradientStructuralInputOutput: grad_fn answers for the flattened arguments
    with tf.Graph().as_default():
        a, b, c = tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)

        @tf.custom_gradient
        def f(x, pair):
            assert isinstance(pair, tuple) and len(pair) == 2
            return x * pair[0] * pair[1], lambda dy: [dy * 10.0, dy * 20.0, dy * 30.0]

        y = f(a, (b, c))
        assert _run([y, tf.gradients(y, [a, b, c])]) == [6.0, [10.0, 20.0, 30.0]]


def test_a_custom_gradient_in_a_loop_body_may_use_outer_tensors_and_variables():
    # while_v2_test testCustomGradient: grad_fn captures `n` (the forward did not) and reads m
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        n = tf.constant(1.0, name="const-n")
        m = tf.Variable(1.0)

        def body_fn(v):
            @tf.custom_gradient
            def inner_fn(v):
                def grad_fn(dy, variables=None):
                    return dy * 2 * v * n * m, [v * v]
                return v * v * m, grad_fn
            return inner_fn(v)

        ret = tf.while_loop(lambda v: v < 8.0, body_fn, [x], return_same_structure=False)
        branch = tf.cond(x > 1.0, lambda: body_fn(x), lambda: x)
        assert _run([ret, tf.gradients(ret, [x]), branch, tf.gradients(branch, [x])],
                    init=True) == [16.0, [32.0], 4.0, [4.0]]   # TF 2.21


# --- map_fn (map_fn_test) -------------------------------------------------------------------

def test_map_fn_over_nothing_and_over_an_unknown_rank():
    with tf.Graph().as_default():
        ones = tf.map_fn(lambda x: 1, tf.constant([], dtype=tf.int32))
        blocks = tf.map_fn(lambda x: tf.zeros([3, 2]), tf.constant([]))
        x = tf.placeholder(tf.float32)
        same = tf.map_fn(lambda e: e, x)
        assert (ones.shape.as_list(), blocks.shape.as_list(), same.shape.dims) == (
            [0], [0, 3, 2], None)   # TF 2.21
        with tf.Session() as sess:
            a, b = sess.run([ones, blocks])
            c = sess.run(same, {x: np.ones((2, 3))})
    assert (a.shape, b.shape, c.shape) == ((0,), (0, 3, 2), (2, 3))


def test_map_fn_result_of_another_sequence_type_than_its_dtype_is_a_type_error():
    with tf.Graph().as_default(), pytest.raises(
            TypeError, match=r"^The two structures don't have the same nested structure\.\n\n"
                             r"First structure: type=list str=\[tf\.int64, tf\.int64\]\n\n"
                             r"Second structure: type=tuple str=\(<tf\.Tensor '"):   # TF 2.21
        tf.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), np.array([1, 2, 3]),
                  dtype=[tf.int64, tf.int64])


# --- a gradient computed inside a loop body or branch (testCallGradInLoop, testCondGrad_3) ----

def test_gradients_inside_a_body_reach_outer_tensors_through_outer_ops():
    with tf.Graph().as_default():
        params = tf.constant(5.0)
        params_1 = tf.square(params)

        def body(i, x):
            data = tf.multiply(tf.constant([1.0, 2.0, 3.0]), params_1)
            return i + 1, x + tf.gradients(data, params)[0]

        out = tf.while_loop(lambda i, _: i < 10, body, [tf.constant(0), tf.constant(0.0)])
        c = tf.placeholder(tf.int32, shape=[])
        ox = tf.constant(10.0)
        y = tf.multiply(7.0, ox)
        r = tf.cond(c < 2, lambda: tf.gradients(y * y, [ox])[0], lambda: ox * 3.0)
        with tf.Session() as sess:
            assert sess.run(out)[1] == 600.0   # TF 2.21
            assert (sess.run(r, {c: 1}), sess.run(r, {c: 3})) == (980.0, 30.0)


def test_shape_invariants_may_be_tensor_specs_and_graphs_say_what_is_fetchable():
    with tf.Graph().as_default() as g:
        i, x = tf.constant(0), tf.constant([1])
        _, r = tf.while_loop(lambda i, _: i < 10, lambda i, x: (i + 1, tf.stack([x, x])), [i, x],
                             [tf.TensorSpec([], dtype=tf.int32), tf.TensorSpec(None, dtype=tf.int32)])
        assert r.shape.dims is None and g.is_fetchable(r) and g.is_fetchable(r.op)
        g.prevent_fetching(r.op)
        assert not g.is_fetchable(r)
        with tf.Session() as sess, pytest.raises(ValueError, match="has been marked as not fetchable"):
            sess.run(r)


# --- while_v2_test: a one-element condition, TF's dtype words, control-flow graphs ------------

def test_a_loop_condition_of_one_element_and_a_body_changing_a_dtype():
    with tf.Graph().as_default():
        x, y = tf.constant([[5.0]]), tf.constant(3.0)
        seen = []

        def cond(v, _):
            seen.append(v.graph.is_control_flow_graph)
            return v < 45.0   # shape [1, 1]: TF's While takes it

        ret = tf.while_loop(cond, lambda v, w: (v * w, w), [x, y])
        out, grad = _run([ret[0], tf.gradients(ret[0], x)[0]])
        assert seen == [True] and out.tolist() == [[45.0]] and grad.tolist() == [[9.0]]
        with pytest.raises(TypeError, match=r"^Loop var Const_2:0 enters the loop with type "
                                            r"<dtype: 'float32'> but has type <dtype: 'float16'> "
                                            r"after 1 iteration\."):   # TF 2.21
            tf.while_loop(lambda x: x < 10, lambda x: tf.cast(x, tf.float16) + 1,
                          [tf.constant(1.0)])

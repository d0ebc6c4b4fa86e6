"""Control flow v2 as TF 2.21 builds it (issue #30: while_v2_test, cond_v2_test,
control_flow_ops_py_test, resource_variable_ops_test): second-order gradients through loops and
conds, ``switch_case``, functions that use the caller's tensors, and the branches' names.

Values, names and messages were recorded from TF 2.21 (``tf.compat.v1`` graph mode)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf


def _run(fetches, feed=None):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(fetches, feed)


# --- second-order gradients (testDoubleDerivative, testMultipleWhileLoops, testSecondDerivative) ---

def test_second_derivative_through_a_while_loop():
    with tf.Graph().as_default():
        x = tf.constant(2.)
        ret = tf.while_loop(lambda v: v < 8., lambda v: v ** 2, [x])   # x**4
        grad = tf.gradients(ret, [x])                                  # 4x**3
        grad_grad = tf.gradients(grad, [x])                            # 12x**2
        assert _run([ret, grad, grad_grad]) == [16., [32.], [48.]]


def test_second_derivative_through_two_chained_loops():
    """Partial derivatives only: the path from the first loop into the second's gradient is
    followed once (by the caller), not again inside the gradient node's own gradient."""
    with tf.Graph().as_default():
        x = tf.constant(2.)
        ret1 = tf.while_loop(lambda v: v < 4., lambda v: v * v, [x])      # x**2
        ret2 = tf.while_loop(lambda v: v < 16., lambda v: v * v, [ret1])  # x**4
        grad = tf.gradients(ret2, [x])
        grad_grad = tf.gradients(grad, [x])
        assert _run([grad, grad_grad]) == [[32.], [48.]]


def test_hessian_through_a_loop_with_a_counter_and_a_capture_equals_the_unrolled_ones():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, (), name="x")
        w = tf.placeholder(tf.float64, (), name="w")
        _, looped = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v * w)), [0, x])
        unrolled = x
        for _ in range(3):
            unrolled = tf.sin(unrolled * w)
        hessians = [[tf.gradients(g, [x, w]) for g in tf.gradients(y, [x, w])]
                    for y in (looped, unrolled)]
        got, want = _run(hessians, {x: 0.7, w: 1.3})
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_second_derivative_through_a_cond():
    with tf.Graph().as_default():
        pred = tf.placeholder(tf.bool, name="pred")
        x = tf.constant(3.0, name="x")
        c = tf.cond(pred, lambda: tf.pow(x, 3), lambda: x, name="cond")
        grad = tf.gradients(c, [x])
        grad_grad = tf.gradients(grad, [x])
        with tf.Session() as s:
            assert s.run([grad, grad_grad], {pred: True}) == [[27.], [18.]]
            assert s.run([grad, grad_grad], {pred: False}) == [[1.], [0.]]


@pytest.mark.parametrize("build", [
    lambda x: tf.cond(tf.constant(True), lambda: tf.cos(tf.identity(x)),
                      lambda: tf.sin(tf.identity(x))),
    lambda x: tf.switch_case(tf.constant(1), [lambda: tf.sin(tf.identity(x)),
                                              lambda: tf.cos(tf.identity(x))]),
], ids=["cond", "switch_case"])
def test_iterated_gradients_of_cos_through_a_branch(build):
    """testIteratedGradientsCond/Case: the 4th derivative of cos is cos again."""
    with tf.Graph().as_default():
        x = tf.constant(1.)
        ys = [build(x)]
        for _ in range(4):
            ys.append(tf.gradients(ys[-1], [x])[0])
        np.testing.assert_allclose(_run(ys), [np.cos(1.), -np.sin(1.), -np.cos(1.), np.sin(1.),
                                              np.cos(1.)], rtol=1e-6)


# --- switch_case (cond_v2 CaseTest, testSwitchCaseAccessBranch1TensorInBranch4Raises) ---------

def test_switch_case_is_one_stateless_case_node_named_as_tf_names_it():
    with tf.Graph().as_default():
        x = tf.constant(1)
        out = tf.switch_case(tf.constant(0), [lambda: x + 1, lambda: x + 2])
        case = out.op.inputs[0].op
        assert (out.name, case.type, case.name) == (
            "switch_case/indexed_case/Identity:0", "StatelessCase", "switch_case/indexed_case")
        assert [t.name for t in case.inputs] == ["Const_1:0", "Const:0"]
        assert _run(out) == 2


def test_switch_case_runs_the_last_branch_for_an_index_out_of_range_and_differentiates():
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32, ())
        x = tf.constant(2.)
        out = tf.switch_case(i, {1: lambda: x * x, 0: lambda: x * 2.}, default=lambda: x * 10.)
        grad, = tf.gradients(out, [x])
        with tf.Session() as s:
            assert [s.run([out, grad], {i: k}) for k in (0, 1, 2, 7, -1)] == [
                [4., 2.], [4., 4.], [20., 10.], [20., 10.], [20., 10.]]


@pytest.mark.parametrize("fns, error, words", [
    ([], ValueError, "Must provide at least one item in 'branch_fns'"),
    ([1], TypeError, "Each entry in 'branch_fns' must be a 2-tuple. Received 1."),
    ({0: lambda: 1, "a": lambda: 2}, TypeError, "key must be a Python `int`, got <class 'str'>"),
    ([(0, lambda: 1), (0, lambda: 2)], ValueError,
     "branch indices (keys) must form contiguous range of [0 to 2) but found {0,0}"),
    ({0: lambda: 1, 3: lambda: 2}, ValueError,
     "branch indices (keys) must form contiguous range of [0 to 2) but found {0,3}"),
])
def test_switch_case_checks_its_branches_in_tfs_words(fns, error, words):
    with tf.Graph().as_default():
        with pytest.raises(error) as e:
            tf.switch_case(tf.constant(0), fns)
        assert str(e.value) == words


def test_a_switch_case_branch_using_another_branchs_tensor_is_refused_in_tfs_words():
    with tf.Graph().as_default():
        inputs = {"c": tf.constant(1.)}

        def br1():
            inputs["c"] = tf.identity(inputs["c"], name="br1_identity")
            return inputs["c"]
        other = lambda: tf.constant(0.)   # noqa: E731
        with pytest.raises(ValueError, match=r"^Tensor br1_identity:0 in branch 1 is accessed "
                                             r"from branch 4\.$"):
            tf.switch_case(tf.constant(2), [other, br1, other, other,
                                            lambda: tf.identity(inputs["c"])])


# --- regions' names, waits and collections (testDefaultName, testExternalControlDependencies) ---

def test_a_cond_and_a_loop_name_their_regions_as_tfs_functions():
    with tf.Graph().as_default():
        x, p = tf.constant(1.), tf.constant(True)
        op = tf.cond(p, lambda: x * 2, lambda: x).op.inputs[0].op
        assert op.name == "cond"
        assert op.get_attr("then_branch").name.startswith("cond_true_")
        assert op.get_attr("else_branch").name.startswith("cond_false_")
        with tf.name_scope("foo"):
            op = tf.cond(p, lambda: x * 2, lambda: x).op.inputs[0].op
            assert (op.name, op.get_attr("then_branch").name.rsplit("_", 1)[0]) == (
                "foo/cond", "foo_cond_true")
            loop = tf.while_loop(lambda v: v < 3., lambda v: v + 1, [x], name="").op.inputs[0].op
            assert (loop.name, loop.get_attr("cond").name.rsplit("_", 1)[0],
                    loop.get_attr("body").name.rsplit("_", 1)[0]) == (
                "foo/while", "foo_while_cond", "foo_while_body")


def test_a_branch_waiting_for_an_outer_op_makes_the_cond_wait_even_when_not_taken():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        bump = v.assign_add(1.0)

        def true_branch():
            with tf.control_dependencies([bump]):
                return 1.0
        out = tf.cond(tf.placeholder_with_default(False, None), true_branch, lambda: 2.0)
        with tf.Session() as s:
            s.run(v.initializer)
            assert s.run(out) == 2.0 and s.run(v) == 2.0


def test_a_branch_reads_its_graphs_collections():
    with tf.Graph().as_default():
        x, y = tf.constant(2), tf.constant(5)
        tf.add_to_collection("x", x)
        tf.add_to_collection("y", y)

        def fn():
            return tf.add(tf.get_collection("x")[0], tf.get_collection("y")[0])
        assert _run(tf.cond(tf.less(x, y), fn, fn)) == 7


def test_a_branch_returning_an_operation_returns_the_predicate_read_after_it():
    """testCondPruning: fetching the second result runs only the op behind it; a function's
    result runs all of its state changes (TF's automatic control dependencies)."""
    with tf.Graph().as_default():
        v1, v2, v3 = tf.Variable(7), tf.Variable(7), tf.Variable(7)

        def f():
            pred = tf.greater(tf.constant(3), tf.constant(2))
            r = tf.cond(pred, lambda: [tf.assign(v1, 1).op, tf.assign(v2, 2).op],
                        lambda: [tf.assign(v3, 3).op, tf.constant(10).op])
            return r[1]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(f()) and s.run([v1, v2, v3]) == [7, 2, 7]
            assert s.run(tf.function(f)()) and s.run([v1, v2, v3]) == [1, 2, 7]


# --- functions using the caller's tensors (testMultipleWhileLoopsWith*, testCondTensorDeps) ----

def test_a_traced_function_captures_the_callers_tensors_and_orders_uses_of_a_variable():
    with tf.Graph().as_default():
        x1, x2, c = tf.Variable(2.), tf.Variable(3.), tf.constant(2.)

        def body(var, times):
            def fn(v):
                var.assign(var)
                return v * var ** times
            return fn

        @tf.function
        def loops():
            return [tf.while_loop(lambda v: v < limit, body(var, k), [c], name=name)
                    for limit, var, k, name in ((4., x1, 1, "while_1"), (16., x1, 2, "while_2"),
                                                (4., x2, 1, "while_3"))] + [
                tf.while_loop(lambda v: v < 16., lambda v: v * v, [c], name="while_stateless")]
        graph = loops.get_concrete_function().graph
        op = graph.get_operation_by_name
        assert [op(n).type for n in ("while_1", "while_2", "while_3", "while_stateless")] == [
            "While", "While", "While", "StatelessWhile"]
        assert [list(op(n).control_inputs) for n in ("while_1", "while_2", "while_3")] == [
            [], [op("while_1")], []]
        assert not op("while_stateless").control_inputs
        assert _run(loops()) == [4., 32., 6., 16.]


def test_a_traced_function_may_wait_for_a_callers_tensor():
    with tf.Graph().as_default():
        t = tf.identity(1.)

        @tf.function
        def f():
            with tf.control_dependencies([t]):
                return tf.identity(2.)
        assert f.get_concrete_function().graph.control_captures == [t.op]


# --- a variable made inside a loop (testControlFlowInitialization) -------------------------------

def _variable_in_a_loop():
    def body(i, _):
        v = tf.Variable(initial_value=tf.zeros([], dtype=tf.int32))
        return i + 1, v.read_value()
    tf.compat.v1.while_loop(lambda i, _: i < 10, body, [0, 0])


def test_a_variable_initialised_inside_a_loop_is_refused_in_tfs_words():
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as e:
            _variable_in_a_loop()
    assert str(e.value) == (
        "Argument `initial_value` (Tensor(\"zeros:0\", shape=(), dtype=int32)) could not be lifted "
        "out of a `tf.function`. (Tried to create variable with name='None'). To avoid this "
        "error, when constructing `tf.Variable`s inside of `tf.function` you can create the "
        "`initial_value` tensor in a `tf.init_scope` or pass a callable `initial_value` (e.g., "
        "`tf.Variable(lambda : tf.truncated_normal([10, 40]))`). Please file a feature request "
        "if this restriction inconveniences you.")


def test_a_variable_initialised_inside_a_classic_loop_is_refused_in_tf1s_words():
    with tf.Graph().as_default():
        tf.compat.v1.disable_control_flow_v2()
        try:
            with pytest.raises(ValueError, match=r"^The `initial_value` passed to `tf.Variable` "
                                                 r"while/Variable/ is from inside a control-flow  "
                                                 r"construct, such as a loop or conditional\. When "
                                                 r"creating a `tf.Variable` inside a loop or "
                                                 r"conditional, use a lambda as the "
                                                 r"`initial_value`\. Got: initial_value=\(Tensor"):
                _variable_in_a_loop()
        finally:
            tf.compat.v1.enable_control_flow_v2()


def test_a_differentiated_switch_case_survives_a_json_round_trip():
    g = tf.Graph()
    with g.as_default():
        i, x = tf.placeholder(tf.int32, [], name="i"), tf.placeholder(tf.float32, [], name="x")
        out = tf.switch_case(i, [lambda: tf.sin(x), lambda: x * x, lambda: x * 3.])
        grad, = tf.gradients(out, [x])
    loaded = tf.from_json(tf.to_json(g))
    with tf.Session(graph=loaded) as s:
        got = [s.run([loaded.get_tensor_by_name(out.name), loaded.get_tensor_by_name(grad.name)],
                     {"i:0": k, "x:0": 2.}) for k in range(3)]
    np.testing.assert_allclose(got, [[np.sin(2.), np.cos(2.)], [4., 4.], [6., 3.]], rtol=1e-6)


def test_the_gradient_of_a_loop_is_shown_as_a_loop():
    """testMultipleWhileLoopsGradStateless: TF's gradient of a while loop is a While op."""
    with tf.Graph().as_default():
        x = tf.constant(2.)
        ret1 = tf.while_loop(lambda v: v < 4., lambda v: v * v, [x], name="while_1")
        ret2 = tf.while_loop(lambda v: v < 16., lambda v: v * v, [x], name="while_2")
        grad, = tf.gradients(ret1 + ret2, [x])
        loops = [op for op in tf.get_default_graph().get_operations() if "While" in op.type]
        assert [op.type for op in loops] == ["StatelessWhile"] * 4
        assert [op.kind for op in loops] == ["StatelessWhile"] * 2 + ["WhileGrad"] * 2
        assert not any(op.control_inputs for op in loops) and _run(grad) == 36.


def test_an_assignment_inside_a_function_or_a_loop_reads_the_variable_only_when_used():
    """testUnreadVariableInsideFunction: TF reads an assignment's result only in
    session.run-land; inside a function (or a loop body) only when something uses it."""
    with tf.Graph().as_default():
        v = tf.Variable(1.0)

        @tf.function
        def assign():
            v.assign(1.0)
        graph = assign.get_concrete_function().graph
        assert [op.type for op in graph.get_operations()] == ["Const", "Placeholder",
                                                              "AssignVariableOp"]
        w = tf.Variable(0.)
        i, r = tf.while_loop(lambda i, r: i < 3, lambda i, r: (i + 1, w.assign_add(1.)), [0, 0.])
        assert _run([i, r]) == [3, 3.]


def test_a_function_made_in_a_graph_runs_its_state_changes_but_not_its_variables_initializers():
    with tf.Graph().as_default():
        made = []

        @tf.function
        def f(x):
            if not made:
                made.append(tf.Variable(1.0))
            made[0].assign_add(1.0)
            return x * 2.
        x = tf.placeholder(tf.float32, [])
        y = f(x)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert [s.run(y, {x: 1.}) for _ in range(2)] == [2., 2.] and s.run(made[0]) == 3.

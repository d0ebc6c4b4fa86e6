"""A loop or cond computes only the outputs something needs -- and the state changes only
those reach -- as TF 2.21's lowered control flow does.

Every case below starts from ``v = w = 0.0`` (resource variables), runs one fetch, and
checks the fetched values and then ``v`` and ``w`` against what ``tf.compat.v1`` graph mode
(TensorFlow 2.21, control flow v2; the same with Grappler on and off) gave for the same
code.  TF lowers a ``While`` to one ``Enter/Merge/Switch/NextIteration/Exit`` chain per
loop variable and an ``If`` to one ``Merge`` per result, and runs only what the fetches
reach through data and control edges; see :mod:`staticgraph.control.control_flow_prune`.
"""
from __future__ import annotations

import pytest

import staticgraph as tf
from staticgraph.compiler.prune import pruned_order

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _loop(body, n=3, **kw):
    """``i, a = while i < n: body(i, a)`` from (0, 0.0)."""
    return tf.while_loop(lambda i, a: i < n, body, [0, tf.constant(0.0)], **kw)


def _bumped(var, then):
    """``then()`` built after ``var += 1``."""
    with tf.control_dependencies([var.assign_add(1.0)]):
        return then()


# --- loops: a loop variable nobody needs is not computed --------------------------------

def _issue_loop(v):
    """The issue's smallest form: the accumulator's *initial* value waits on s0."""
    s0 = v.assign_add(1.0)
    with tf.control_dependencies([s0]):
        s1 = tf.identity(v)
    return tf.while_loop(lambda i, a: i < 1, lambda i, a: [i + 1, tf.constant(1.0)],
                         [0, tf.identity(s1)])


def issue_example(v, w):
    return _issue_loop(v)[0]


def issue_example_fetching_acc(v, w):
    return _issue_loop(v)[1]


def body_write_waited_on_by_acc(v, w):
    return _loop(lambda i, a: [i + 1, _bumped(v, lambda: tf.identity(a))])[0]


def body_write_waited_on_by_acc_fetching_acc(v, w):
    return _loop(lambda i, a: [i + 1, _bumped(v, lambda: tf.identity(a))])[1]


def body_write_read_by_acc(v, w):
    return _loop(lambda i, a: [i + 1, a + v.assign_add(1.0)])[0]


def dangling_body_write(v, w):
    """A write nothing in the body waits on never runs (TF 1.x graph mode: no auto deps)."""
    def body(i, a):
        v.assign_add(1.0)
        return [i + 1, a + 1.0]
    return list(_loop(body))


def two_accumulators_fetching_one(v, w):
    def body(i, a, b):
        return [i + 1, _bumped(v, lambda: a + 1.0), _bumped(w, lambda: b + 1.0)]
    return tf.while_loop(lambda i, a, b: i < 3, body, [0, tf.constant(0.0), tf.constant(0.0)])[2]


def two_accumulators_fetching_the_counter(v, w):
    def body(i, a, b):
        return [i + 1, _bumped(v, lambda: a + 1.0), _bumped(w, lambda: b + 1.0)]
    return tf.while_loop(lambda i, a, b: i < 3, body, [0, tf.constant(0.0), tf.constant(0.0)])[0]


def fetched_variable_reads_another(v, w):
    """b's next value reads a: a's chain is needed too, across iterations."""
    def body(i, a, b):
        return [i + 1, _bumped(v, lambda: a + 1.0), b + a]
    return tf.while_loop(lambda i, a, b: i < 3, body, [0, tf.constant(0.0), tf.constant(0.0)])[2]


def fetched_variable_waits_on_another(v, w):
    def body(i, a, b):
        a2 = _bumped(v, lambda: a + 1.0)
        with tf.control_dependencies([a2]):
            return [i + 1, a2, b + 1.0]
    return tf.while_loop(lambda i, a, b: i < 3, body, [0, tf.constant(0.0), tf.constant(0.0)])[2]


def fetched_variable_waits_on_anothers_input(v, w):
    """A control edge on a loop variable's *input* (an argument) needs that variable."""
    def body(i, a, b):
        a2 = _bumped(v, lambda: a + 1.0)
        with tf.control_dependencies([a]):
            b2 = b + 1.0
        return [i + 1, a2, b2]
    return tf.while_loop(lambda i, a, b: i < 3, body, [0, tf.constant(0.0), tf.constant(0.0)])[2]


def condition_reads_a_variable(v, w):
    body = lambda i, a: [i + 1, _bumped(v, lambda: a + 1.0)]  # noqa: E731
    return tf.while_loop(lambda i, a: tf.logical_and(i < 3, w < 5.0), body,
                         [0, tf.constant(0.0)])[0]


def condition_reads_the_accumulator(v, w):
    body = lambda i, a: [i + 1, _bumped(v, lambda: a + 1.0)]  # noqa: E731
    return tf.while_loop(lambda i, a: tf.logical_and(i < 3, a < 10.0), body,
                         [0, tf.constant(0.0)])[0]


def cond_in_the_body(v, w):
    return _loop(lambda i, a: [i + 1, tf.cond(i < 2, lambda: a + v.assign_add(1.0),
                                              lambda: a - 1.0)])[0]


def cond_in_the_body_with_two_results(v, w):
    def body(i, a):
        c1, c2 = tf.cond(i < 5, lambda: (a + v.assign_add(1.0), i + 1), lambda: (a, i + 1))
        return [c2, c1]
    return _loop(body)[0]


def loop_in_the_body(v, w):
    def body(i, a):
        _, c = tf.while_loop(lambda j, c: j < 2, lambda j, c: [j + 1, c + v.assign_add(1.0)], [0, a])
        return [i + 1, c]
    return _loop(body)[0]


def inner_loop_partly_needed(v, w):
    """The outer fetch needs the inner loop's counter only: its accumulator never runs."""
    def body(i, a):
        j, _ = tf.while_loop(lambda j, c: j < 2, lambda j, c: [j + 1, c + v.assign_add(1.0)], [0, a])
        return [i + 1, a + tf.cast(j, tf.float32)]
    return _loop(body)[1]


def start_from_a_cond(v, w):
    c = tf.cond(tf.constant(True), lambda: v.assign_add(1.0), lambda: tf.identity(v))
    return tf.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a + 1.0], [0, c])[0]


def start_from_a_loop(v, w):
    _, c = tf.while_loop(lambda j, c: j < 2, lambda j, c: [j + 1, c + v.assign_add(1.0)],
                         [0, tf.constant(0.0)])
    return tf.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a + 1.0], [0, c])[0]


def start_from_a_loops_counter(v, w):
    """Another loop's counter starts i, its accumulator starts a: only the counter runs."""
    j, c = tf.while_loop(lambda j, c: j < 2, lambda j, c: [j + 1, c + v.assign_add(1.0)],
                         [0, tf.constant(0.0)])
    return tf.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a + 1.0], [j, c])[0]


def zero_iterations(v, w):
    s0 = v.assign_add(1.0)
    with tf.control_dependencies([s0]):
        s1 = tf.identity(v)
    return tf.while_loop(lambda i, a: i < 0, lambda i, a: [i + 1, a + 1.0], [0, s1])[0]


def passed_through(v, w):
    with tf.control_dependencies([v.assign_add(1.0)]):
        x = tf.identity(w)
    return [tf.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a], [0, x])[0]]


def captured_by_the_unneeded_variable(v, w):
    """An outer tensor only the unneeded variable's body reads is not computed."""
    with tf.control_dependencies([v.assign_add(1.0)]):
        x = tf.identity(w)
    return tf.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a + x], [0, tf.constant(0.0)])[0]


def with_maximum_iterations(v, w):
    body = lambda i, a: [i + 1, _bumped(v, lambda: a + 1.0)]  # noqa: E731
    return tf.while_loop(lambda i, a: i < 10, body, [0, tf.constant(0.0)], maximum_iterations=2)[0]


def grouped_counter(v, w):
    return [tf.group(_loop(lambda i, a: [i + 1, _bumped(v, lambda: a + 1.0)])[0])]


def body_reads_a_variable_after_a_write(v, w):
    return _loop(lambda i, a: [i + 1, _bumped(w, lambda: a + v)])[0]


# --- what the loop still runs whole -----------------------------------------------------

def loop_run_as_an_operation(v, w):
    """A loop fetched (or waited on) as an operation runs every variable (TF: all Exits)."""
    i, _ = _loop(lambda i, a: [i + 1, _bumped(v, lambda: a + 1.0)])
    return [i.op.inputs[0].op]


def under_control_dependencies(v, w):
    """The loop's own control inputs run whenever any of its outputs is needed."""
    with tf.control_dependencies([v.assign_add(1.0)]):
        return _loop(lambda i, a: [i + 1, a + 1.0])[0]


def body_waiting_on_an_outer_write(v, w):
    s0 = v.assign_add(1.0)
    return _loop(lambda i, a: [i + 1, _bumped_on(s0, lambda: a + 1.0)])[0]


def _bumped_on(op, then):
    with tf.control_dependencies([op]):
        return then()


# --- conds: a result nobody needs is not computed ---------------------------------------

def cond_result_unneeded(v, w):
    return tf.cond(tf.constant(True), lambda: (v.assign_add(1.0), w + 1.0),
                   lambda: (tf.identity(v), w + 2.0))[1]


def cond_result_waits_unneeded(v, w):
    def then():
        return _bumped(v, lambda: tf.constant(1.0)), w + 1.0
    return tf.cond(tf.constant(True), then, lambda: (tf.constant(2.0), w + 2.0))[1]


def cond_constant_result(v, w):
    return tf.cond(tf.constant(True), lambda: (v.assign_add(1.0), tf.constant(1.0)),
                   lambda: (tf.identity(v), tf.constant(2.0)))[1]


def cond_capture_of_the_unneeded_result(v, w):
    with tf.control_dependencies([v.assign_add(1.0)]):
        x = tf.identity(w)
    return tf.cond(tf.constant(True), lambda: (x + 1.0, w + 1.0), lambda: (x + 2.0, w + 2.0))[1]


def cond_dangling_write(v, w):
    def then():
        v.assign_add(1.0)
        return w + 1.0
    return tf.cond(tf.constant(True), then, lambda: w + 2.0)


def cond_under_control_dependencies(v, w):
    with tf.control_dependencies([v.assign_add(1.0)]):
        return tf.cond(tf.constant(True), lambda: (w + 1.0, tf.constant(1.0)),
                       lambda: (w + 2.0, tf.constant(2.0)))[1]


def cond_branch_waiting_on_an_outer_write(v, w):
    s0 = v.assign_add(1.0)
    then = lambda: (_bumped_on(s0, lambda: w + 1.0), tf.constant(1.0))  # noqa: E731
    return tf.cond(tf.constant(True), then, lambda: (w + 2.0, tf.constant(2.0)))[1]


def cond_predicate_after_a_write(v, w):
    """The predicate is always needed, with what it waits for."""
    with tf.control_dependencies([v.assign_add(1.0)]):
        p = w < 5.0
    return tf.cond(p, lambda: (w + 1.0, tf.constant(1.0)), lambda: (w + 2.0, tf.constant(2.0)))[1]


# --- gradients: the zeros for an output with no gradient do not read that output ---------

def gradient_of_one_loop_variable(v, w):
    x = tf.constant(2.0)
    def body(i, a, b):
        return [i + 1, a * x, _bumped(v, lambda: b + 1.0)]
    _, a, _ = tf.while_loop(lambda i, a, b: i < 3, body, [0, tf.constant(1.0), tf.constant(0.0)])
    return tf.gradients(a, [x])[0]


def gradient_of_one_cond_result(v, w):
    x = tf.constant(3.0)
    c1, _ = tf.cond(tf.constant(True), lambda: (x * x, _bumped(v, lambda: w + 1.0)),
                    lambda: (x, w + 2.0))
    return tf.gradients(c1, [x])[0]


TF_2_21 = {   # case -> (fetched values, v, w) in TF 2.21
    issue_example: ([1], 0, 0),
    issue_example_fetching_acc: ([1], 1, 0),
    body_write_waited_on_by_acc: ([3], 0, 0),
    body_write_waited_on_by_acc_fetching_acc: ([0], 3, 0),
    body_write_read_by_acc: ([3], 0, 0),
    dangling_body_write: ([3, 3], 0, 0),
    two_accumulators_fetching_one: ([3], 0, 3),
    two_accumulators_fetching_the_counter: ([3], 0, 0),
    fetched_variable_reads_another: ([3], 3, 0),
    fetched_variable_waits_on_another: ([3], 3, 0),
    fetched_variable_waits_on_anothers_input: ([3], 3, 0),
    condition_reads_a_variable: ([3], 0, 0),
    condition_reads_the_accumulator: ([3], 3, 0),
    cond_in_the_body: ([3], 0, 0),
    cond_in_the_body_with_two_results: ([3], 0, 0),
    loop_in_the_body: ([3], 0, 0),
    inner_loop_partly_needed: ([6], 0, 0),
    start_from_a_cond: ([3], 0, 0),
    start_from_a_loop: ([3], 0, 0),
    start_from_a_loops_counter: ([3], 0, 0),
    zero_iterations: ([0], 0, 0),
    passed_through: ([3], 0, 0),
    captured_by_the_unneeded_variable: ([3], 0, 0),
    with_maximum_iterations: ([2], 0, 0),
    grouped_counter: ([None], 0, 0),
    body_reads_a_variable_after_a_write: ([3], 0, 0),
    loop_run_as_an_operation: ([None], 3, 0),
    under_control_dependencies: ([3], 1, 0),
    body_waiting_on_an_outer_write: ([3], 1, 0),
    cond_result_unneeded: ([1], 0, 0),
    cond_result_waits_unneeded: ([1], 0, 0),
    cond_constant_result: ([1], 0, 0),
    cond_capture_of_the_unneeded_result: ([1], 0, 0),
    cond_dangling_write: ([1], 0, 0),
    cond_under_control_dependencies: ([1], 1, 0),
    cond_branch_waiting_on_an_outer_write: ([1], 1, 0),
    cond_predicate_after_a_write: ([1], 1, 0),
    gradient_of_one_loop_variable: ([12], 0, 0),
    gradient_of_one_cond_result: ([6], 0, 0),
}


@pytest.mark.parametrize("case", list(TF_2_21), ids=lambda f: f.__name__)
def test_what_runs_matches_tf(case):
    v, w = tf.Variable(0.0, name="v"), tf.Variable(0.0, name="w")
    fetch = case(v, w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(fetch)
        got = [None if x is None else float(x) for x in (got if isinstance(got, list) else [got])]
        assert (got, float(sess.run(v)), float(sess.run(w))) == TF_2_21[case]


def test_the_narrowed_loop_reads_only_what_its_needed_variables_read():
    """The plan's loop node is a clone computing variable 0 only; the node in the graph, its
    regions and a plan fetching everything are untouched."""
    v = tf.Variable(0.0, name="v")
    s0 = v.assign_add(1.0)
    with tf.control_dependencies([s0]):
        start = tf.identity(v)
    i, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a + 1.0], [0, start])
    loop = i.op.inputs[0].op
    order = pruned_order([i], set())
    narrowed, = [op for op in order if op.name == loop.name]
    assert narrowed is not loop and narrowed.attrs["computed"] == (0,)
    assert narrowed.outputs == loop.outputs and len(narrowed.inputs) == 1
    assert s0.op not in order and "computed" not in loop.attrs
    assert loop in pruned_order([i, acc], set())
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(i) == 3 and sess.run(v) == 0.0
        assert sess.run([i, acc]) == [3, 4.0] and sess.run(v) == 1.0


def test_a_loop_fetched_for_its_gradient_keeps_what_the_gradient_reads():
    """Only the gradient fetched, with ``grad_ys`` given (so nothing reads the loop's results):
    the loop computes the variables its trace keeps values of (a*x keeps a) and what the
    condition reads -- and the gradient is right."""
    x = tf.constant(2.0)
    i, a = tf.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a * x], [0, tf.constant(1.0)])
    g, = tf.gradients(a, [x], grad_ys=tf.constant(1.0))
    with tf.Session() as sess:
        assert sess.run(g) == 12.0                # d(x^3)/dx at 2
        assert sess.run([g, a, i]) == [12.0, 8.0, 3]

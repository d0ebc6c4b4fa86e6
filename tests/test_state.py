"""State is exactly right: reads see the writes ordered before them, loop bodies' effects run
every iteration, assignment results read again, and graphs with loops save whole.

Every expected value below is what tensorflow-cpu 2.21 (``tf.compat.v1`` graph mode, resource
variables; ``parallel_iterations=1`` where iterations race in TF) printed for the same program.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import staticgraph as tf
from tests.tf_errors import RUN

pytestmark = pytest.mark.usefixtures("fresh_graph")


def run_all(*fetches):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return [s.run(f) for f in fetches]


# --- reads ordered after writes by control_dependencies --------------------------------

def test_every_kind_of_read_under_control_dependencies_sees_the_write():
    v = tf.Variable(0.0, name="v")
    inc = v.assign_add(1.0)
    with tf.control_dependencies([inc]):
        reads = [tf.identity(v), v + 0, v * 3.0, tf.convert_to_tensor(v), v.read_value()]
    first, again, (plus, now) = run_all(reads, reads[0], [reads[1], v])
    assert [float(r) for r in first] == [1.0, 1.0, 3.0, 1.0, 1.0]
    assert again == 2.0 and (plus, now) == (3.0, 2.0)          # each run increments once more


def test_the_seed_counter_read_sees_its_increment_on_every_run():
    counter = tf.Variable(0, name="counter")
    inc = counter.assign_add(1)
    with tf.control_dependencies([inc]):
        out = tf.identity(counter)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert [s.run(out) for _ in range(3)] == [1, 2, 3]


def test_a_cond_predicate_reads_after_the_write_it_depends_on():
    v = tf.Variable(0, name="v")
    inc = v.assign_add(1)
    with tf.control_dependencies([inc]):
        r = tf.cond(v > 0, lambda: tf.constant(1), lambda: tf.constant(-1))
    assert run_all(r) == [1]


def test_an_assignment_result_used_after_a_later_write_reads_again():
    v = tf.Variable(1.0, name="v")
    a1 = v.assign(2.0)
    with tf.control_dependencies([a1]):
        a2 = v.assign(7.0)
    with tf.control_dependencies([a2]):
        x = a1 * 1.0
    assert run_all(x) == [7.0]
    assert repr(a1) == "<tf.Variable 'AssignVariableOp' shape=() dtype=float32>"


def test_a_control_dependency_on_a_read_orders_a_write_after_it():
    v, w = tf.Variable(1.0, name="v"), tf.Variable(0.0, name="w")
    with tf.control_dependencies([tf.convert_to_tensor(v)]):
        asn = w.assign(5.0)
    with tf.control_dependencies([asn]):
        out = tf.identity(w)
    assert run_all(out) == [5.0]


def test_reads_and_writes_that_no_edge_orders_run_in_program_order():
    v = tf.Variable(1.0, name="v")
    before = v * 1.0
    asn = v.assign(3.0)
    after = tf.identity(asn)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run([after, before]) == [3.0, 1.0]


# --- effects inside loops and branches -------------------------------------------------

def test_assignments_inside_a_while_body_run_every_iteration_in_control_order():
    """TF's testWhileUpdateVariable family: a = 10, b = 1 + 2 + ... + 10 = 55."""
    a, b = tf.Variable(0, name="a"), tf.Variable(0, name="b")

    def body(i):
        asn1 = a.assign_add(1)
        with tf.control_dependencies([asn1]):
            asn2 = b.assign_add(a)
        with tf.control_dependencies([asn2]):
            return i + 1
    r = tf.while_loop(lambda i: i < 10, body, [0])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(r) == 10
        assert s.run([a, b]) == [10, 55]


def test_loop_values_read_each_iterations_state():
    v = tf.Variable(0, name="v")

    def body(i, acc):
        with tf.control_dependencies([v.assign_add(i)]):
            return i + 1, acc + v
    assert [list(map(int, r)) for r in run_all(tf.while_loop(lambda i, a: i < 4, body, [0, 0]))] \
        == [[4, 10]]


def test_an_optimizer_style_update_in_a_loop_and_a_read_after_it():
    w = tf.Variable(np.array([1.0, 2.0]), name="w")

    def body(i):
        with tf.control_dependencies([w.assign_sub(0.5 * w)]):
            return i + 1
    r = tf.while_loop(lambda i: i < 3, body, [0])
    with tf.control_dependencies([r]):
        out = tf.identity(w)
    np.testing.assert_array_equal(run_all(out)[0], [0.125, 0.25])


def test_effects_no_output_depends_on_are_not_run_as_in_tf():
    c, d = tf.Variable(0, name="c"), tf.Variable(0.0, name="d")

    def body(i):
        c.assign_add(1)          # nothing waits for it: pruned, as TF does
        return i + 1

    def true_branch():
        d.assign_add(1.0)
        return tf.constant(1.0)
    r2 = tf.while_loop(lambda i: i < 5, body, [0])
    r3 = tf.cond(tf.constant(True), true_branch, lambda: tf.constant(2.0))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert (s.run(r2), s.run(c), s.run(r3), s.run(d)) == (5, 0, 1.0, 0.0)


def test_control_dependencies_on_a_loop_variable_inside_the_body():
    def body(i):
        with tf.control_dependencies([i]):
            return i + 1
    assert run_all(tf.while_loop(lambda i: i < 3, body, [0])) == [3]


def test_a_branch_waiting_on_an_outer_assignment_and_a_read():
    v = tf.Variable(1.0, name="v")
    asn = v.assign(5.0)

    def true_branch():
        with tf.control_dependencies([asn, tf.convert_to_tensor(v)]):
            return tf.identity(v)
    r = tf.cond(tf.constant(True), true_branch, lambda: tf.constant(0.0))
    assert asn.op in r.op.inputs[0].op.control_inputs       # the If node waits on it
    assert run_all(r) == [5.0]


def test_gradients_through_a_loop_that_reads_a_variable_it_also_updates():
    """The forward reads are saved per iteration (never re-read during backward)."""
    w = tf.Variable(np.float64(2.0), name="w")
    x = tf.placeholder(tf.float64, (), name="x")

    def body(i, h):
        with tf.control_dependencies([w.assign_add(1.0)]):
            return i + 1, h * w                         # reads 3, 4, 5
    _, h = tf.while_loop(lambda i, h: i < 3, body, [0, x])
    gx, gw = tf.gradients(h, [x, w])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        hv, gxv, gwv = s.run([h, gx, gw], {x: 1.5})
    assert hv == 1.5 * 3 * 4 * 5 and gxv == 60.0
    assert gwv == pytest.approx(1.5 * (4 * 5 + 3 * 5 + 3 * 4))   # d/dw of each read, summed


# --- errors name what went wrong, and where ------------------------------------------------

def test_uninitialized_variable_and_missing_feed_errors_name_where_they_were_made():
    v = tf.Variable(1.0, name="v")
    x = tf.placeholder(tf.float32, (), name="x")
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match=RUN + r"Could not find variable v\. This could mean that the variable has been deleted\. "
                                 r"In TF1, it can also mean the variable is uninitialized\.(.|\n)*  variable created "
                                 r"at .*test_state.py:\d+"):
            s.run(v * 2.0)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=RUN + r"You must feed a value for placeholder tensor 'x' with dtype float"
                                 r"(.|\n)*  placeholder created at .*test_state.py:\d+"):
            s.run(x + 1.0)
        s.run(v.initializer)
        assert s.run(v * 2.0) == 2.0                      # the session is still usable


def test_a_kind_without_a_gradient_on_the_path_raises_lookup_error_naming_it():
    v = tf.Variable(1.0, name="v")
    flag = tf.cast(v.is_initialized(), tf.float32)
    y = tf.get_default_graph().create_op("VarIsInitializedOp", (v.handle,), {"var": "v"},
                                          [((), np.dtype(np.float32))], name="odd").outputs[0]
    assert tf.gradients(flag * v, [v])[0] is not None      # bool -> no gradient wanted: fine
    with pytest.raises(LookupError, match=r"No gradient defined for operation 'odd' "
                                          r"\(op type: VarIsInitializedOp\)\n  created at "):
        tf.gradients(y * 2.0, [v])


# --- saving graphs with loops ---------------------------------------------------------------

def rnn_program():
    xs = tf.placeholder(tf.float64, (None, 2, 3), name="xs")
    w = tf.Variable(np.linspace(-1, 1, 12).reshape(3, 4), name="w")
    u = tf.Variable(np.linspace(1, -1, 16).reshape(4, 4) * 0.3, name="u")
    steps = tf.placeholder(tf.int32, (), name="steps")

    def body(t, h):
        def pos():
            return tf.tanh(tf.matmul(xs[t], w) + tf.matmul(h, u))

        def neg():
            return h * 0.5
        return t + 1, tf.cond(tf.reduce_sum(xs[t]) > 0.0, pos, neg)
    _, h = tf.while_loop(lambda t, h: t < steps, body, [0, tf.zeros((2, 4), tf.float64)])
    loss = tf.reduce_sum(h * h)
    grads = tf.gradients(loss, [w, u, xs])
    return xs, steps, loss, grads


def test_graphs_with_nested_loops_and_branches_round_trip_through_json():
    xs, steps, loss, grads = rnn_program()
    feed = {xs: np.random.default_rng(0).normal(size=(5, 2, 3)), steps: 5}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        before = s.run([loss, *grads], feed)
    text = tf.to_json(tf.get_default_graph())
    g2 = tf.from_json(text)
    assert tf.to_json(g2) == text
    with g2.as_default(), tf.Session(graph=g2) as s:
        s.run("init")
        after = s.run([loss.name] + [g.name for g in grads], {"xs:0": feed[xs], "steps:0": 5})
    for b, a in zip(before, after):
        np.testing.assert_array_equal(b, a)


def test_a_save_that_cannot_serialize_the_graph_writes_nothing(tmp_path):
    tf.Variable(1.0, name="v")
    tf.get_default_graph().create_op("NoOp", (), {"callback": object()}, [], name="odd")
    path = str(tmp_path / "model")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        with pytest.raises(TypeError, match="cannot serialize attribute value"):
            tf.train.Saver().save(s, path)
    assert os.listdir(tmp_path) == []


def test_a_trained_loop_graph_restored_in_a_fresh_process_gives_identical_results(tmp_path):
    xs, steps, loss, grads = rnn_program()
    opt = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed_x = np.random.default_rng(1).normal(size=(4, 2, 3))
    path = str(tmp_path / "model")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(opt, {xs: feed_x, steps: 4})
        want = s.run([loss, *grads], {xs: feed_x, steps: 4})
        tf.train.Saver().save(s, path)
    np.save(tmp_path / "x.npy", feed_x)
    script = textwrap.dedent(f"""
        import numpy as np, staticgraph as tf
        saver = tf.train.import_meta_graph({path + '.meta'!r})
        g = tf.get_default_graph()
        with tf.Session() as s:
            saver.restore(s, {path!r})
            out = s.run([{loss.name!r}] + {[g.name for g in grads]!r},
                        {{"xs:0": np.load({str(tmp_path / 'x.npy')!r}), "steps:0": 4}})
        np.savez({str(tmp_path / 'out.npz')!r}, *out)
    """)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run([sys.executable, "-c", script], check=True, cwd=root, timeout=120)
    got = np.load(tmp_path / "out.npz")
    for k, w in enumerate(want):
        np.testing.assert_array_equal(got[f"arr_{k}"], w)


def test_passes_never_merge_reads_across_a_write_nor_hand_out_the_stored_array():
    """CSE must not merge two reads of one variable with a write between them; a fetched value
    that is the stored array (through Identity, reshapes...) is a copy, with every pass on or off."""
    from staticgraph.compiler import PassConfig
    v = tf.Variable(np.array([1.0, 2.0]), name="v")
    r1 = v * 1.0
    with tf.control_dependencies([r1]):
        asn = v.assign_add([10.0, 10.0])
    with tf.control_dependencies([asn]):
        r2 = v * 1.0
    view = tf.reshape(tf.identity(v), (2, 1))
    for config in (None, PassConfig.off()):
        with tf.Session(config=config) as s:
            s.run(tf.global_variables_initializer())
            a, b = s.run([r1, r2])
            np.testing.assert_array_equal(a, [1.0, 2.0])
            np.testing.assert_array_equal(b, [11.0, 12.0])
            got = s.run(view)
            got[:] = -1.0                                  # the caller owns what it fetched
            np.testing.assert_array_equal(s.run(v), [11.0, 12.0])


def test_a_loop_body_reads_a_variable_from_the_store_and_names_a_missing_one():
    """Inside a loop kernel a read is the store lookup itself (no kernel call per
    iteration); an uninitialized variable still raises TF's error naming it."""
    v = tf.Variable(2.0, name="v")
    out = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + v), [tf.constant(0), tf.constant(0.0)])
    with tf.Session() as s:
        assert ".store[" in s.explain(out)
        with pytest.raises(tf.errors.FailedPreconditionError, match="Could not find variable v"):
            s.run(out)
        s.run(v.initializer)
        assert s.run(out)[1] == 6.0


def test_a_large_update_writes_in_place_only_into_an_array_its_run_made_that_nobody_holds(
        monkeypatch):
    """assign_add/assign_sub never write into the array a variable held when the run began
    (the run holds it, to put it back if it fails: staticgraph/compiler/rollback.py): a run's first
    update makes a new array, and the old one is freed (nothing keeps it past the run).  A
    later update in the same run (a loop's) writes into the array the run made -- only while
    nothing but the store references it.  A value read earlier (fetched), an array the caller
    holds or a view of it keep their values; small variables always get a new array.  (The
    thread count is pinned to one: threads an earlier test left behind are checked below.)"""
    import threading
    import weakref
    from staticgraph.framework.kinds import IN_PLACE_MIN_SIZE
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    n = IN_PLACE_MIN_SIZE
    v = tf.Variable(np.zeros(n), name="v")
    small = tf.Variable(np.zeros(3), name="small")
    r1 = v * 1.0                      # simplify makes this the read itself: the stored array
    with tf.control_dependencies([r1]):
        add = v.assign_add(np.ones(n))
    sub = v.assign_sub(np.full(n, 0.5))
    inc_small = small.assign_add(np.ones(3))
    seen = []

    def note(i):                      # the array the variable holds after each iteration's add
        seen.append(weakref.ref(s.state.variables["v"]))
        return i

    def body(i):
        with tf.control_dependencies([v.assign_add(np.ones(n))]):
            return tf.reshape(tf.py_func(note, [i], tf.int32), ()) + 1
    loop = tf.while_loop(lambda i: i < 3, body, [0])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        store = s.state.variables
        stored = weakref.ref(store["v"])
        s.run(sub.op)                                          # a new array; the old one is gone
        assert stored() is None and not store["v"].flags.writeable
        np.testing.assert_array_equal(store["v"], np.full(n, -0.5))
        stored = weakref.ref(store["v"])
        s.run(loop)                      # iteration 0 makes an array, 1 and 2 write into it
        assert stored() is None and [r() is store["v"] for r in seen] == [True] * 3
        np.testing.assert_array_equal(store["v"], np.full(n, 2.5))
        before, _ = s.run([r1, add.op])                        # read then written in one run
        np.testing.assert_array_equal(before, np.full(n, 2.5))
        np.testing.assert_array_equal(s.run(v), np.full(n, 3.5))
        held = store["v"]                                      # the caller keeps the array
        view = held[:2]
        s.run(sub.op)
        assert store["v"] is not held
        np.testing.assert_array_equal(held, np.full(n, 3.5))
        np.testing.assert_array_equal(view, [3.5, 3.5])
        np.testing.assert_array_equal(s.run(v), np.full(n, 3.0))
        kept = weakref.ref(store["small"])
        s.run(inc_small.op)
        assert kept() is None and s.run(small).tolist() == [1.0, 1.0, 1.0]


def test_with_another_thread_alive_a_large_update_replaces_the_array_whole():
    """Another thread could read the variable while numpy writes it (the GIL is released
    inside the write): then the update makes a new array, as for a held one."""
    import threading
    import weakref
    from staticgraph.framework.kinds import IN_PLACE_MIN_SIZE
    v = tf.Variable(np.zeros(IN_PLACE_MIN_SIZE), name="v")
    sub = v.assign_sub(np.ones(IN_PLACE_MIN_SIZE))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with tf.Session() as s:
            s.run(v.initializer)
            stored = weakref.ref(s.state.variables["v"])
            s.run(sub.op)
            assert stored() is None
            np.testing.assert_array_equal(s.run(v), -np.ones(IN_PLACE_MIN_SIZE))
    finally:
        stop.set()
        other.join()


def test_an_sgd_step_with_gradients_and_a_print_inside_a_loop_body(capfd):
    """Gradients taken inside the body (w.r.t. the variable, seen there as its capture), the
    update and a tf.Print all run once per iteration; TF prints and ends with w = 1.25."""
    w = tf.Variable(np.float64(3.0), name="w")

    def body(i):
        loss = (w - 1.0) * (w - 1.0)
        g, = tf.gradients(loss, [w])
        p = tf.Print(g, [i, g], message="it ")
        with tf.control_dependencies([w.assign_sub(0.25 * p)]):
            return i + 1
    r = tf.while_loop(lambda i: i < 3, body, [0])
    with tf.control_dependencies([r]):
        out = tf.identity(w)
    assert run_all(out) == [1.25]
    assert capfd.readouterr().err == "it [0][4]\nit [1][2]\nit [2][1]\n"


def test_print_formats_tensors_as_tf_does(capfd):
    a, b = tf.constant([1.5, 2.0, 3.0, 4.0]), tf.constant([[1, 2], [3, 4]])
    p = tf.Print(a, [a, b, tf.constant(True), tf.constant(1e-8), tf.constant(0.1)], message="m: ")
    p2 = tf.Print(a, [b], message="s: ", summarize=10)
    with tf.Session() as s:
        s.run([p, p2])
    assert capfd.readouterr().err == "m: [1.5 2 3...][[1 2][3...]...][1][1e-08][0.1]\ns: [[1 2][3 4]]\n"


def test_a_kind_cannot_take_a_registry_ops_name():
    """A node's type names exactly one declaration (else a reloaded graph would pick the op)."""
    from staticgraph.framework.kinds import defkind
    with pytest.raises(ValueError, match="node kind 'Add' is already declared"):
        defkind("Add", lambda op, ctx: None)
    with pytest.raises(ValueError, match="node kind 'ReadVariableOp' is already declared"):
        defkind("ReadVariableOp", lambda op, ctx: None)

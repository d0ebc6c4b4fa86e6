"""A run that raises leaves every variable as it was (issue #26, item 4).

staticgraph: a ``Session.run`` is all or nothing for variables, whatever raised -- a numpy
floating-point error turned into an exception by ``np.seterr``, an op's ``InvalidArgumentError``
after some assignments ran, an unfed placeholder, a ``py_func``, a ``while_loop`` body, the
numerics check.  TF promises less (its kernels do not raise on overflow, and a failed run keeps
the assignments that ran: recorded below).  dyngraph: ``optimizer.step()`` is all or nothing for
parameters and optimizer state.  Not rolled back, as in TF: an iterator's position.
"""
import re
import threading
import weakref

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from staticgraph.errors import InvalidArgumentError
from staticgraph.framework.kinds import IN_PLACE_MIN_SIZE
from tests.tf_errors import op_message

pytestmark = pytest.mark.usefixtures("fresh_graph")


@pytest.fixture
def raising():
    """numpy floating-point errors raise (``FloatingPointError``) during the test."""
    old = np.seterr(all="raise")
    yield
    np.seterr(**old)


@pytest.fixture
def one_thread(monkeypatch):
    """The in-place update is only taken with one thread alive (threads an earlier test left
    behind would hide it): pinned, so the tests see that path."""
    monkeypatch.setattr(threading, "active_count", lambda: 1)


def _values(sess, variables) -> list:
    return [np.array(sess.state.variables[v.op.name]) for v in variables]


def _same(before: list, after: list) -> bool:
    return all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(before, after))


# --- staticgraph: Session.run ----------------------------------------------------------

def test_a_gradient_descent_step_whose_second_update_overflows_changes_no_variable(raising, tier):
    """The issue's finding: the first variable was updated, the third untouched."""
    a = tf.Variable(np.float32([1.0]), name="a")
    b = tf.Variable(np.float32([3e38]), name="b")
    c = tf.Variable(np.float32([2.0]), name="c")
    x = tf.placeholder(tf.float32, (1,), name="x")
    loss = tf.reduce_sum(a * x - b * x + c * x)     # b's update adds 1e38 to 3e38: overflow
    train = tf.train.GradientDescentOptimizer(1e38).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        stored = dict(s.state.variables)
        with pytest.raises(InvalidArgumentError) as e:
            s.run(train, {x: [1.0]})
        assert op_message(e.value).startswith(
            "FloatingPointError: overflow encountered in subtract\n  in node "
            "'GradientDescent/AssignSubVariableOp_1' (AssignSubVariableOp)")
        assert all(s.state.variables[k] is v for k, v in stored.items())   # the same arrays
        assert s.run([a, b, c]) == [1.0, np.float32(3e38), 2.0]
        s.run(train, {x: [1e-37]})                    # the session goes on: the step applies
        assert [v[0] for v in s.run([a, b, c])] == pytest.approx([-9.0, 3e38, -8.0], rel=1e-6)


def test_a_large_variable_keeps_its_value_when_its_in_place_update_overflows(raising, one_thread,
                                                                            tier):
    """The in-place path for 16,384+ elements wrote inf into the variable, then raised."""
    n = IN_PLACE_MIN_SIZE
    big = tf.Variable(np.full(n, 3e38, np.float32), name="big")
    d = tf.placeholder(tf.float32, (n,), name="d")
    add = big.assign_add(d)
    with tf.Session() as s:
        s.run(big.initializer)
        with pytest.raises(InvalidArgumentError, match="overflow encountered in add"):
            s.run(add.op, {d: np.full(n, 1e38, np.float32)})
        assert np.array_equal(s.run(big), np.full(n, 3e38, np.float32))
        s.run(add.op, {d: np.full(n, -1e38, np.float32)})
        assert np.array_equal(s.run(big), np.full(n, np.float32(3e38) - np.float32(1e38)))


def test_a_large_update_that_succeeded_is_undone_when_a_later_step_fails(one_thread, tier):
    """A later step's failure (here a py_func's) undoes an update that wrote nothing wrong:
    the run's first update of a variable never writes into the array it held."""
    n = IN_PLACE_MIN_SIZE
    big = tf.Variable(np.zeros(n), name="big")
    add = big.assign_add(np.ones(n))

    def refuse(x):
        raise ValueError("no")
    with tf.control_dependencies([add]):
        fail = tf.py_func(refuse, [tf.constant(0.0)], tf.float32)
    with tf.Session() as s:
        s.run(big.initializer)
        with pytest.raises(InvalidArgumentError, match="ValueError: no"):
            s.run(fail)
        assert np.array_equal(s.run(big), np.zeros(n))


def _late_step(n: int):
    """A large variable updated by a computed delta with nothing after that could look: the
    update is held back to the end of the run (compiler.rollback.late_updates)."""
    big = tf.Variable(np.full(n, 3e38, np.float32), name="big")
    d = tf.placeholder(tf.float32, (n,), name="d")
    return big, d, big.assign_add(d * 2.0)


def test_a_train_step_still_updates_a_large_variable_in_place(one_thread, tier):
    """Held back to the end of the run, the update writes into the variable's own array (the
    compiled tier; the interpreter makes a new one) -- no second array, as before."""
    big, d, add = _late_step(IN_PLACE_MIN_SIZE)
    with tf.Session() as s:
        s.run(big.initializer)
        stored = weakref.ref(s.state.variables["big"])
        s.run(add.op, {d: np.full(IN_PLACE_MIN_SIZE, -5e37, np.float32)})
        assert (s.state.variables["big"] is stored()) == (tier == "compiled")
        assert "applied at the end" in s.compiled(add.op, {d: None}).source
        expected = np.full(IN_PLACE_MIN_SIZE, np.float32(3e38) - np.float32(1e38))
        assert np.array_equal(s.run(big), expected)


def test_an_update_held_to_the_end_is_not_applied_when_a_later_step_fails(one_thread, tier):
    """The step after the held update writes a variable that does not exist yet."""
    big, d, add = _late_step(IN_PLACE_MIN_SIZE)
    missing = tf.Variable(0.0, name="missing")
    with tf.control_dependencies([add]):
        bump = missing.assign_add(1.0)
    with tf.Session() as s:
        s.run(big.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError, match="find variable missing"):
            s.run(bump.op, {d: np.full(IN_PLACE_MIN_SIZE, -5e37, np.float32)})
        assert np.array_equal(s.run(big), np.full(IN_PLACE_MIN_SIZE, 3e38, np.float32))


def test_an_update_held_to_the_end_that_overflows_is_undone(raising, one_thread, tier):
    """At the end of the run the held update meets np.seterr(all="raise"): it is then computed
    into a new array, so the overflow leaves the variable as it was."""
    big, d, add = _late_step(IN_PLACE_MIN_SIZE)
    with tf.Session() as s:
        s.run(big.initializer)
        with pytest.raises(InvalidArgumentError, match="overflow encountered in add"):
            s.run(add.op, {d: np.full(IN_PLACE_MIN_SIZE, 5e37, np.float32)})
        assert np.array_equal(s.run(big), np.full(IN_PLACE_MIN_SIZE, 3e38, np.float32))


@pytest.mark.parametrize("after, late", [
    ("nothing", True), ("a read of the variable", False), ("the delta fetched", False),
    ("a view of the delta read", False), ("a py_func", False), ("a fed delta", False)])
def test_which_updates_are_held_to_the_end(after, late):
    n = IN_PLACE_MIN_SIZE
    big = tf.Variable(np.zeros(n, np.float32), name="big")
    d = tf.placeholder(tf.float32, (n,), name="d")
    delta = d if after == "a fed delta" else d * 2.0
    view = tf.reshape(delta, (-1, 2))          # made (and run) before the update
    add = big.assign_add(delta)
    fetches = [add.op]
    with tf.control_dependencies([add]):
        if after == "a read of the variable":
            fetches.append(big.read_value())
        elif after == "the delta fetched":
            fetches.append(delta)
        elif after == "a view of the delta read":
            fetches.append(tf.reduce_sum(view))
        elif after == "a py_func":
            fetches.append(tf.py_func(lambda: np.float32(0), [], tf.float32))
    with tf.Session() as s:
        s.run(big.initializer)
        exe = s.compiled(fetches, {d: None})
        assert ("applied at the end" in exe.source) == late, exe.source


def test_a_while_loop_that_assigns_and_raises_midway_changes_no_variable(one_thread, tier):
    """Three iterations assigned (a counter and a large variable, whose later updates go in
    place into the array the run made), the fourth raised: both keep their values."""
    n = IN_PLACE_MIN_SIZE
    count = tf.Variable(0.0, name="count")
    big = tf.Variable(np.zeros(n), name="big")

    def check(i):
        if i == 3:
            raise ValueError("iteration 3 fails")
        return i

    def body(i):
        with tf.control_dependencies([count.assign_add(1.0), big.assign_add(np.ones(n))]):
            return tf.reshape(tf.py_func(check, [i], tf.int32), ()) + 1
    loop = tf.while_loop(lambda i: i < 5, body, [0])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        with pytest.raises(InvalidArgumentError, match="iteration 3 fails"):
            s.run(loop)
        assert s.run(count) == 0.0
        assert np.array_equal(s.run(big), np.zeros(n))


def test_an_op_failing_after_assignments_leaves_them_undone(tier):
    """TF 2.21 keeps the assignment a failing run made (recorded: w = 1.0 after a reshape of 3
    values into [2] failed behind ``w.assign_add(1.0)``); staticgraph undoes it."""
    w = tf.Variable(0.0, name="w")
    x = tf.placeholder(tf.float32, (None,), name="x")
    with tf.control_dependencies([w.assign_add(1.0), w.assign_add(2.0)]):
        r = tf.reshape(x, (2, 2))
    with tf.Session() as s:
        s.run(w.initializer)
        with pytest.raises(InvalidArgumentError, match="Input to reshape is a tensor with 3 "):
            s.run(r, {x: [1.0, 2.0, 3.0]})
        assert s.run(w) == 0.0
        assert s.run(r, {x: [1.0, 2.0, 3.0, 4.0]}).shape == (2, 2) and s.run(w) == 3.0


def test_an_unfed_placeholder_reached_after_an_assignment_undoes_it(tier):
    w = tf.Variable(1.0, name="w")
    with tf.control_dependencies([w.assign(5.0)]):
        p = tf.placeholder(tf.float32, (), name="p")
    with tf.Session() as s:
        s.run(w.initializer)
        with pytest.raises(InvalidArgumentError, match="You must feed a value for placeholder "
                                                        "tensor 'p'"):
            s.run(p + 1.0)
        assert s.run(w) == 1.0


def test_a_variable_a_failing_run_initialized_is_uninitialized_again(tier):
    v = tf.Variable(1.0, name="v")
    x = tf.placeholder(tf.float32, (None,), name="x")
    with tf.control_dependencies([v.initializer]):
        r = tf.reshape(x, (2,))
    with tf.Session() as s:
        with pytest.raises(InvalidArgumentError):
            s.run(r, {x: [1.0, 2.0, 3.0]})
        assert "v" not in s.state.variables
        assert s.run(tf.report_uninitialized_variables()).tolist() == [b"v"]


@pytest.mark.parametrize("same_thread", [True, False])
def test_a_run_started_inside_a_failing_run_keeps_what_it_wrote(same_thread, tier):
    """A run a py_func starts -- in this thread or another -- is a run of its own: what it
    wrote stays when the outer run fails."""
    a = tf.Variable(0.0, name="a")
    b = tf.Variable(0.0, name="b")
    inc_b = b.assign_add(1.0).op
    x = tf.placeholder(tf.float32, (None,), name="x")
    s = tf.Session()

    def run_inner(flag):
        if same_thread:
            s.run(inc_b)
        else:
            t = threading.Thread(target=s.run, args=(inc_b,))
            t.start()
            t.join()
        return flag
    with tf.control_dependencies([a.assign_add(1.0)]):
        inner = tf.py_func(run_inner, [tf.constant(0.0)], tf.float32)
    with tf.control_dependencies([inner]):
        r = tf.reshape(x, (2,))
    s.run(tf.global_variables_initializer())
    with pytest.raises(InvalidArgumentError):
        s.run(r, {x: [1.0, 2.0, 3.0]})
    assert s.run([a, b]) == [0.0, 1.0]
    s.close()


def test_an_iterator_is_not_rolled_back():
    """As in TF 2.21 (recorded: 0, the failing run, then 2): the element a failed run took
    stays taken."""
    nxt = tf.data.make_one_shot_iterator(tf.data.Dataset.range(10)).get_next()
    bad = tf.placeholder(tf.int64, (None,), name="bad")
    with tf.control_dependencies([nxt]):
        y = tf.reshape(bad, (2,))
    with tf.Session() as s:
        assert s.run(nxt) == 0
        with pytest.raises(InvalidArgumentError):
            s.run([nxt, y], {bad: [1, 2, 3]})
        assert s.run(nxt) == 2


def test_only_a_plan_that_writes_variables_takes_a_snapshot(tier):
    """A run that writes nothing runs no rollback code: it pays nothing."""
    w = tf.Variable(1.0, name="w")
    y = w * 2.0
    add = w.assign_add(1.0).op
    with tf.Session() as s:
        s.run(w.initializer)
        assert s.run(y) == 2.0 and s.run(add) is None
        reads, writes = s.compiled(y), s.compiled(add)
        assert "_snapshot" not in reads.source and "_undo" not in reads.source
        assert "    _before = _snapshot()\n    try:\n" in writes.source
        assert "    except BaseException:\n        _undo(_before)\n        raise\n" in writes.source


# --- staticgraph: enable_check_numerics covers writes ---------------------------------------

@pytest.fixture
def check_numerics():
    tf.debugging.enable_check_numerics()
    yield
    tf.debugging.disable_check_numerics()


def test_check_numerics_stops_an_update_that_overflows_naming_the_variable(check_numerics, tier):
    """TF 2.21's enable_check_numerics does not look at variable updates (the variable silently
    becomes inf); here the write is checked, in TF's words for a check_numerics failure, and the
    run is undone (``other``, assigned first, keeps its value too)."""
    w = tf.Variable(np.float32([3e38, 1.0]), name="w")
    other = tf.Variable(0.0, name="other")
    with tf.control_dependencies([other.assign(5.0)]):
        add = w.assign_add(np.float32([3e38, 1.0]), name="update_w")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        with pytest.raises(InvalidArgumentError) as e:
            s.run(add.op)
        message = op_message(e.value)
        assert message.startswith(
            '\n\n!!! Detected Infinity or NaN in the value written to variable "w" by graph op '
            '"AssignAddVariableOp" !!!\n'
            "  dtype: <dtype: 'float32'>\n"
            "  shape: (2,)\n\n"
            "  Input tensors (2):\n"
            '         0: Tensor("w:0", shape=(), dtype=resource)\n'
            '         1: Tensor("Const_1:0", shape=(2,), dtype=float32)\n\n'
            " : Tensor had +Inf values\n\t [[{{node update_w}}]]\n"), message
        assert "variable created at" in message and __file__ in message
        np.testing.assert_array_equal(s.run(w), np.float32([3e38, 1.0]))
        assert s.run(other) == 0.0


@pytest.mark.parametrize("values, words", [   # TF 2.21's CheckNumericsV2 wording, recorded
    ([np.inf], "+Inf"), ([-np.inf], "-Inf"), ([np.nan], "NaN"),
    ([np.inf, -np.inf], "-Inf and +Inf"), ([np.inf, np.nan], "+Inf and NaN"),
    ([-np.inf, np.nan], "-Inf and NaN"), ([np.inf, -np.inf, np.nan], "-Inf, +Inf, and NaN")])
def test_check_numerics_stops_an_assignment_of_nan_or_inf(check_numerics, values, words):
    w = tf.Variable(np.zeros(len(values), np.float32), name="w")
    v = tf.placeholder(tf.float32, (len(values),), name="v")
    put = w.assign(v)
    with tf.Session() as s:
        s.run(w.initializer)
        with pytest.raises(InvalidArgumentError, match=re.escape(
                f" : Tensor had {words} values\n\t [[{{{{node AssignVariableOp}}}}]]\n")):
            s.run(put.op, {v: values})
        np.testing.assert_array_equal(s.run(w), np.zeros(len(values)))
        s.run(put.op, {v: np.ones(len(values))})      # finite values are written
        np.testing.assert_array_equal(s.run(w), np.ones(len(values)))


# --- dyngraph: optimizer.step() ---------------------------------------------------------

def _snapshot(params, opt) -> tuple:
    data = [np.array(p._data) for p in params]
    state = {i: {k: np.array(t._data) for k, t in opt.state.get(p, {}).items()}
             for i, p in enumerate(params)}
    return data, state, [p._version for p in params]


def _equal(a: tuple, b: tuple) -> bool:
    data_a, state_a, vers_a = a
    data_b, state_b, vers_b = b
    return (all(np.array_equal(x, y) for x, y in zip(data_a, data_b)) and vers_a == vers_b
            and state_a.keys() == state_b.keys()
            and all(state_a[i].keys() == state_b[i].keys() and
                    all(np.array_equal(state_a[i][k], state_b[i][k]) for k in state_a[i])
                    for i in state_a))


@pytest.mark.parametrize("make_opt", [
    lambda ps: torch.optim.SGD(ps, lr=0.1),
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    lambda ps: torch.optim.Adam(ps, lr=0.1),
    lambda ps: torch.optim.AdamW(ps, lr=0.1, amsgrad=True),
    lambda ps: torch.optim.RMSprop(ps, lr=0.1, momentum=0.5, centered=True),
    lambda ps: torch.optim.Adagrad(ps, lr=0.1),
    lambda ps: torch.optim.Adamax(ps, lr=0.1),
    lambda ps: torch.optim.NAdam(ps, lr=0.1),
    lambda ps: torch.optim.RAdam(ps, lr=0.1)],
    ids=["SGD", "SGD-nesterov", "Adam", "AdamW-amsgrad", "RMSprop-centered", "Adagrad",
         "Adamax", "NAdam", "RAdam"])
def test_an_optimizer_step_that_overflows_changes_no_parameter_and_no_state(raising, make_opt):
    """The issue's finding (p1 updated, p2 inf, p3 untouched; Adam's state at step 1 while no
    parameter changed): the second parameter's update overflows at lr 1e38 -- on the first
    step and, after a good step, with the rate a scheduler would set."""
    params = [torch.nn.Parameter(torch.tensor(np.float32([v]))) for v in (1.0, 3e38, 2.0)]
    opt = make_opt(params)

    def set_grads():
        for p, g in zip(params, (1.0, -1.0, 1.0)):
            p.grad = torch.tensor(np.float32([g]))

    def failing_step():
        before = _snapshot(params, opt)
        for group in opt.param_groups:
            group["lr"] = 1e38
        with pytest.raises(FloatingPointError, match="overflow"):
            opt.step()
        assert _equal(_snapshot(params, opt), before)
        for group in opt.param_groups:
            group["lr"] = 0.1

    set_grads()
    fresh = _snapshot(params, opt)
    failing_step()
    opt.step()                                         # the optimizer goes on
    after_one = _snapshot(params, opt)
    assert not _equal(after_one, fresh)
    failing_step()
    assert _equal(_snapshot(params, opt), after_one)


def test_a_step_writes_into_a_parameter_array_others_share_and_replaces_one_nobody_holds():
    """The new value becomes the parameter's array when nothing else holds the old one; a view
    or a detached tensor sharing it sees the update, as in PyTorch.  Either way the parameter
    keeps its layout: a weight's gradient from a transposed product is column-major."""
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    u = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    shared = w.detach()
    alone = weakref.ref(u._data)
    w.grad = u.grad = torch.tensor([1.0, 1.0])
    torch.optim.SGD([w, u], lr=0.5).step()
    assert shared._data is w._data and shared.tolist() == [0.5, 1.5]
    assert alone() is None and u.tolist() == [0.5, 1.5]
    layer = torch.nn.Linear(4, 3)
    layer(torch.randn(5, 4)).sum().backward()
    assert not layer.weight.grad._data.flags.c_contiguous
    torch.optim.SGD(layer.parameters(), lr=0.1).step()
    assert layer.weight.is_contiguous() and layer.weight._data.flags.c_contiguous


@pytest.mark.parametrize("cls, value, step", [(torch.optim.SGD, 0.9, None),
                                               (torch.optim.Adam, 0.8, 2.0)])
def test_a_parameter_listed_twice_is_updated_twice(cls, value, step):
    """PyTorch 2.13 (recorded): SGD([w, w], lr=0.1) with grad 0.5 gives 0.9, version 2; Adam
    gives 0.8 and step 2 -- each update starts from the one before, within one step."""
    w = torch.nn.Parameter(torch.tensor([1.0]))
    w.grad = torch.tensor([0.5])
    with pytest.warns(UserWarning, match="duplicate parameters"):
        opt = cls([w, w], lr=0.1)
    opt.step()
    assert w.tolist() == pytest.approx([value]) and w._version == 2
    if step is not None:
        assert opt.state[w]["step"].item() == step

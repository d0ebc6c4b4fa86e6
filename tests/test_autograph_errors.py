"""AutoGraph: every construct it cannot convert fails at trace time saying what to rewrite.

Each of these functions works as plain Python on Python values (the statement
is left as Python); only a *tensor* condition makes it an error.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.autograph import AutoGraphError, AutoGraphWarning, convert


def _line(fn, offset: int) -> str:
    return f"line {fn.__code__.co_firstlineno + offset}"


def _raises(fn, *args, match: str):
    with pytest.raises(AutoGraphError, match=match):
        tf.function(fn)(*args)


def test_break_inside_try_in_a_tensor_loop():
    def f(x):
        while x < 10.:
            x = x + 1.
            try:
                if x > 5.:
                    break
            finally:
                pass
        return x

    _raises(f, np.float32(0), match=re.escape(
        f"this statement's condition is a tensor, so it would have to become graph control flow, "
        f"but it contains `break` ({_line(f, 5)}); fold the exit condition into the loop test "
        f"(while cond and not done:)"))
    assert convert(f)(0.0) == 6.0                      # Python values: the loop stays Python


def test_return_inside_a_tensor_loop_is_refused_as_tf_refuses_it():
    def f(xs):
        for x in xs:
            if x > 2.:
                return x
        return -1.

    with pytest.raises(NotImplementedError, match=re.escape(
            "a return statement cannot be placed inside this TensorFlow loop; this may happen if "
            "a return statement depends on a static Python condition such as a hyperparameter\n"
            "  at ") + r".*test_autograph_errors.py:\d+: .*contains `return`"):
        tf.function(f)(np.array([1., 3.], np.float32))
    assert convert(f)([1., 3., 5.]) == 3. and convert(f)([1.]) == -1.   # Python lists: fine


def test_return_inside_a_tensor_if():
    def f(x):
        if x > 0.:
            return x
        return -x

    _raises(f, np.float32(1), match=r"test_autograph_errors.py:\d+: .*contains `return` \(line \d+\); "
                                    r"assign the result to a variable in every branch/iteration and "
                                    r"return it after the statement")
    assert convert(f)(-2.0) == 2.0


def test_while_else():
    def f(x):
        while x < 3.:
            x = x + 1.
        else:
            x = x * 2.
        return x

    _raises(f, np.float32(0), match="the loop has an `else:` clause; move that code after the loop")


def test_global_in_a_converted_statement():
    def f(x):
        global _COUNT
        if x > 0.:
            _COUNT = 1
            x = x * 2.
        return x

    _raises(f, np.float32(1), match=r"it assigns '_COUNT' \(line \d+\), declared global/nonlocal; "
                                    r"keep the value in a local variable")

    def g(x):
        if x > 0.:
            global _OTHER  # noqa: F824  (declared, never assigned: still refused)
            x = x * 2.
        return x

    _raises(g, np.float32(1), match=r"it declares _OTHER global \(line \d+\); keep the value in a local")


def test_item_assignment_in_a_tensor_branch():
    def f(x, out):
        if x > 0.:
            out["y"] = x
        return x

    _raises(f, np.float32(1), {}, match=re.escape("it assigns to `out['y']`") +
            r".*keep the value in a variable and store it after the statement")


def test_variable_defined_in_one_branch_only_and_used_after():
    def f(x):
        if x > 0.:
            y = x * 2.
        return y

    _raises(f, np.float32(1), match=re.escape(
        "'y' is assigned only in the if branch of this if (its condition is a tensor), but is used "
        "after it; in a graph both branches must produce it: assign 'y' in the else branch too, "
        "or before the if."))


def test_variable_defined_in_else_only():
    def f(x):
        if x > 0.:
            pass
        else:
            z = x
        return z

    _raises(f, np.float32(1), match="'z' is assigned only in the else branch .* assign 'z' in the if branch too")


def test_loop_variable_first_assigned_in_the_body_and_used_after():
    def f(x):
        while x < 10.:
            x = x + 1.
            last = x
        return last

    _raises(f, np.float32(0), match=re.escape(
        "'last' is first assigned inside the while loop body but is used after the loop or in its "
        "condition; a graph loop needs every loop variable to have a value (and a dtype and shape) "
        "before it starts: initialize 'last' before the loop"))


def test_tensor_range_needs_a_python_int_step():
    def f(n, step):
        s = tf.constant(0)
        for i in range(0, n, step):
            s += 1
        return s

    _raises(f, np.int32(5), np.int32(2), match=r"a tensor range's step must be a nonzero Python int")
    _raises(f, np.int32(5), 0, match=r"a tensor range's step must be a nonzero Python int \(got 0\)")


def test_tensor_if_whose_branches_set_nothing_used_after():
    def f(x):
        if x > 0.:
            print("positive")
        return x

    _raises(f, np.float32(1), match=r"neither branch assigns a variable used after it .*use tf.print")


def test_condition_that_becomes_a_tensor_inside_the_loop():
    def f(x):
        i = 0.
        while i < 3.:
            i = i + x
        return i

    _raises(f, np.float32(1), match="the while condition was a Python value when the loop started "
                                    "but became a tensor inside it")

    def g(x):                                  # TF refuses this too: `while True` stays Python
        while True:
            x = x * 2.
            if x > 50.:
                break
        return x

    with pytest.raises(NotImplementedError, match=re.escape(
            "The condition of while loop started as non-Tensor, then changed to Tensor. This may "
            "happen either because variables changed type, or when a break or return statement "
            "inside the loop depends on a Tensor condition.")):
        tf.function(g)(np.float32(3))
    assert convert(g)(3.) == 96.


def test_tensor_loop_that_changes_no_variable():
    def f(x):
        while x < 10.:
            print(x)
        return x

    _raises(f, np.float32(1), match="the loop's condition is a tensor but the loop changes no variable")


def test_loop_variable_that_cannot_be_a_tensor():
    def f(x):
        log = object()
        while x < 10.:
            x = x + 1.
            log = log
        return x, log

    _raises(f, np.float32(1), match="loop variable 'log' holds object .*which a graph loop cannot carry")


def test_function_without_source_runs_unconverted_with_a_warning():
    ns: dict = {}
    exec("def f(x):\n    if x > 0.:\n        x = x * 2.\n    return x\n", {"tf": tf}, ns)
    with pytest.warns(AutoGraphWarning, match="could not read the source of f"):
        g = convert(ns["f"])
    assert g is ns["f"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AutoGraphWarning)
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="tf.cond"):
            tf.function(ns["f"])(np.float32(1))


def test_a_function_wrapped_by_another_decorator_runs_unconverted_with_a_warning():
    import functools

    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args)
        return wrapper

    @logged
    def f(x):
        if x > 0.:
            x = x * 2.
        return x

    with pytest.warns(AutoGraphWarning, match="it is wrapped by another decorator"):
        assert convert(f) is f


def test_zero_argument_super_inside_a_tensor_branch():
    class Base:
        def scale(self, x):
            return x * 2.

    class Child(Base):
        def scale(self, x):
            if x > 0.:
                x = super().scale(x)
            return x

    with pytest.raises(AutoGraphError, match=r"it calls super\(\) without arguments \(line \d+\), "
                                             r"which cannot find its class .* write super\(ClassName, self\)"):
        tf.function(Child().scale)(np.float32(3))
    assert tf.function(Child().scale)(3.0) == 6.0           # a Python condition: stays Python


def test_variable_left_undefined_by_a_python_branch_fails_when_used():
    def f(x, flag):
        if flag:
            y = x * 2.
        return y + 1.

    g = convert(f)
    assert g(1.0, True) == 3.0
    with pytest.raises(UnboundLocalError, match="a variable is used before it is assigned: the "
                                                "branch or loop that assigns it did not run"):
        g(1.0, False)
    with pytest.raises(UnboundLocalError):
        f(1.0, False)                                      # as the original does


def test_a_tensor_break_in_a_python_for_loop_is_refused_as_tf_refuses_it():
    def f(x):
        for i in range(10):
            if x > 5.:
                break
            x = x * 2.
        return x

    with pytest.raises(NotImplementedError, match=re.escape(
            "break and return statements which depend on a TF condition are not supported in "
            "Python for loops. Did you intend to make it a TF loop?")):
        tf.function(f)(np.float32(1))
    assert convert(f)(1.) == 8.

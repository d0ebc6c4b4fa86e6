"""AutoGraph: Python while/if/for-range on tensors become while_loop/cond (values, graphs, gradients)."""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.autograph import convert, to_code

OFFSET = 3.0   # a global read by a converted function (must stay live)


def _f32(*v):
    return np.array(v, dtype=np.float32)


def _ops(fn, *args):
    return [op.type for op in fn.get_concrete_function(*args).graph.get_operations()]


def test_seed_counter_as_a_python_while_is_one_while_loop():
    @tf.function
    def counter():
        first = tf.constant(0.)
        second = tf.constant(10.)
        while first < second:
            first += 2
            second += 1
        return first, second

    assert counter() == (np.float32(20.0), np.float32(20.0))
    assert _ops(counter) == ["Const", "Const", "StatelessWhile", "Identity", "Identity"]
    assert counter.get_concrete_function().count_ops("StatelessWhile") == 1


def test_while_on_python_values_runs_at_trace_time():
    @tf.function
    def f(x):
        i = 0
        while i < 3:              # a Python condition: unrolled while tracing
            x = x * 2.0
            i += 1
        return x

    assert np.array_equal(f(_f32(1)), _f32(8))
    assert _ops(f, _f32(1)).count("Mul") == 3 and "StatelessWhile" not in _ops(f, _f32(1))


def test_while_with_a_fed_bound_runs_as_many_times_as_the_data_says():
    @tf.function
    def count(n):
        i = tf.constant(0)
        total = tf.constant(0)
        while i < n:
            i += 1
            total += i
        return total

    assert [count(np.int32(k)) for k in (0, 1, 4, 100)] == [0, 1, 10, 5050]
    assert count.trace_count == 1


def test_if_on_a_tensor_becomes_cond_and_only_the_taken_branch_counts():
    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0.:
            y = x * 2.0
        else:
            y = -x + OFFSET
        return y

    np.testing.assert_array_equal(f(_f32(1, 2)), _f32(2, 4))
    np.testing.assert_array_equal(f(_f32(-1, -2)), _f32(4, 5))
    assert f.trace_count == 1 and "StatelessIf" in _ops(f, _f32(1, 2))


def test_if_on_a_python_value_keeps_only_one_branch():
    @tf.function
    def f(x, training):
        if training:
            x = x * 0.5
        return x

    assert "Mul" in _ops(f, _f32(1), True) and "Mul" not in _ops(f, _f32(1), False)
    assert "StatelessIf" not in _ops(f, _f32(1), True)


def test_elif_chain_and_a_variable_modified_in_one_branch_only():
    @tf.function
    def sign_label(x):
        y = x
        if x > 0.:
            y = y * 10.0
        elif x < 0.:
            y = y * 100.0
        return y

    assert [sign_label(np.float32(v)) for v in (2, -2, 0)] == [20, -200, 0]
    assert sign_label.get_concrete_function(np.float32(1)).count_ops("StatelessIf") == 1  # elif: nested


def test_for_range_with_a_tensor_bound_becomes_one_while_loop():
    @tf.function
    def power(x, n):
        y = tf.ones_like(x)
        for _ in range(n):
            y = y * x
        return y

    assert power(np.float32(2), np.int32(10)) == 1024
    assert power(np.float32(2), np.int32(0)) == 1
    assert power.get_concrete_function(np.float32(2), np.int32(1)).count_ops("StatelessWhile") == 1
    assert power(np.float32(2), 3) == 8                     # Python bound: unrolled
    assert power.get_concrete_function(np.float32(2), 3).count_ops("StatelessWhile") == 0


def test_for_range_start_stop_step_and_index_used_in_the_body():
    @tf.function
    def f(n):
        s = tf.constant(0)
        for i in range(10, n, -3):
            s += i
        return s

    assert f(np.int32(0)) == 10 + 7 + 4 + 1
    assert f(np.int32(20)) == 0


def test_loop_index_is_available_after_the_loop():
    @tf.function
    def f(n):
        s = tf.constant(0)
        for i in range(n):
            s += 1
        return i + s

    assert f(np.int32(4)) == 3 + 4
    assert f(4) == 3 + 4


def test_nested_loops_and_if_inside_while():
    @tf.function
    def collatz_steps(n):
        steps = tf.constant(0)
        while n > 1:
            half = tf.cast(tf.cast(n, tf.float32) * 0.5, tf.int32)   # a temporary of the body
            if tf.equal(half * 2, n):
                n = half
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    assert [collatz_steps(np.int32(k)) for k in (1, 6, 27)] == [0, 8, 111]
    assert collatz_steps.trace_count == 1


def test_nested_while_inside_while():
    @tf.function
    def table(n):
        i = tf.constant(0)
        total = tf.constant(0)
        while i < n:
            j = tf.constant(0)
            while j < i:
                total += 1
                j += 1
            i += 1
        return total

    assert table(np.int32(5)) == 10
    assert table.get_concrete_function(np.int32(1)).count_ops("StatelessWhile") == 1   # inner is in the body


def test_gradients_flow_through_converted_while_and_if():
    @tf.function
    def f(x, n):
        y = x
        for _ in range(n):
            if tf.reduce_sum(y) > 10.:
                y = y * 0.5
            else:
                y = y * 3.0
        return tf.reduce_sum(y * y)

    x = _f32(1, 2)
    value, (gx, gn) = f.value_and_gradients(x, np.int32(3))
    # x*3 -> [3, 6] (sum 9) -> *3 -> [9, 18] (27) -> *0.5 -> [4.5, 9]: y = 4.5 x
    assert np.isclose(value, (4.5 ** 2) * (1 + 4))
    np.testing.assert_allclose(gx, 2 * 4.5 ** 2 * x, rtol=1e-6)
    assert gn is None
    eps = 1e-3
    fd = (f(x + _f32(eps, 0), np.int32(3)) - f(x - _f32(eps, 0), np.int32(3))) / (2 * eps)
    assert np.isclose(fd, gx[0], rtol=1e-2)


def test_gradient_of_the_seed_counter_wrt_the_step():
    @tf.function
    def f(step):
        first = tf.constant(0.)
        second = tf.constant(10.)
        while first < second:
            first += step
            second += 1.
        return first

    value, (g,) = f.value_and_gradients(np.float32(2.))
    assert value == 20 and g == 10          # ten iterations, each adds `step`


def test_closures_and_globals_stay_live():
    scale = np.float32(2.0)

    def make():
        k = np.float32(1.0)

        def g(x):
            while x < 100.:
                x = x * scale + k + OFFSET
            return x
        return g

    f = tf.function(make())
    x = np.float32(1.0)
    while x < 100:
        x = x * 2 + 1 + 3
    assert f(np.float32(1.0)) == x


def test_method_and_indented_source_and_other_decorators():
    class Model:
        def __init__(self):
            self.w = np.float32(3.0)

        def step(self, x):
            if x > 0.:
                x = x * self.w
            else:
                x = x - self.w
            return x

    m = Model()
    f = tf.function(m.step.__func__)
    assert f(m, np.float32(2)) == 6 and f(m, np.float32(-2)) == -5


def test_converted_code_keeps_the_users_line_numbers():
    def f(x):
        while x < 10.:
            x = x + tf.reduce_sum(tf.matmul(tf.ones([2, 3]), tf.ones([4, 5])))  # shape error here
        return x

    with pytest.raises(tf.errors.GraphShapeError, match=r"test_autograph.py:%d" % (f.__code__.co_firstlineno + 2)):
        tf.function(f)(np.float32(1.0))


def test_to_code_shows_the_rewrite():
    def f(x):
        while x < 10.:
            x = x * 2.
        return x

    code = to_code(f)
    assert "_ag__.while_stmt(_ag_test_1, _ag_body_1" in code
    assert "def _ag_body_1(x):" in code and "return (x,)" in code


def test_functions_without_control_flow_are_returned_unchanged():
    def f(x):
        return x + 1
    assert convert(f) is f
    g = lambda x: x  # noqa: E731
    assert convert(g) is g


def test_python_semantics_are_unchanged_for_plain_values():
    def f(n):
        out = []
        total = 0
        for i in range(n):
            if i % 2:
                continue
            out.append(i)
        k = 0
        while k < n:
            total += k
            k += 1
        if total > 5:
            label = "big"
        else:
            label = "small"
        return out, total, label

    assert convert(f)(6) == f(6) == ([0, 2, 4], 15, "big")
    assert convert(f)(2) == f(2)


def test_and_or_not_in_tensor_conditions():
    @tf.function
    def f(x, limit):
        steps = tf.constant(0)
        while x < limit and not x > 50. or steps < 1:
            x = x * 2.
            steps += 1
        if steps > 3 or x > 40.:
            x = -x
        return x, steps

    assert f(np.float32(1), np.float32(20)) == (np.float32(-32), 5)
    assert f(np.float32(100), np.float32(20)) == (np.float32(-200), 1)
    assert f.get_concrete_function(np.float32(1), np.float32(20)).count_ops("StatelessWhile") == 1


def test_and_or_keep_python_short_circuit():
    def f(items):
        total = 0
        if items and items[0] > 1:
            total = 1
        while not total or total < 3:
            total += 1
        return total

    assert convert(f)([]) == f([]) == 3 and convert(f)([5]) == f([5]) == 3


def _clip_down(v):
    """A helper with tensor control flow, called from a converted function."""
    while v > 10.:
        v = v - 10.
    return v


def test_called_user_functions_are_converted_too():
    @tf.function
    def f(x):
        if x < 0.:
            x = -x
        return _clip_down(x) + tf.reduce_sum(tf.ones([2]))   # library calls stay as they are

    assert f(np.float32(-35)) == 5 + 2 and f(np.float32(7)) == 7 + 2
    assert f.get_concrete_function(np.float32(1)).count_ops("StatelessWhile") == 1
    assert "_ag__.call(_clip_down, x)" in to_code(f.python_function)


def test_calls_that_read_their_frame_stay_direct():
    class Base:
        def scale(self, x):
            return x * 2.

    class Child(Base):
        def scale(self, x):
            y = super().scale(x)
            if x > 0.:
                x = y
            return x

    f = tf.function(Child().scale)
    assert f(np.float32(3)) == 6 and f(np.float32(-3)) == -3


# --- for x in tensor; break and continue in tensor loops (values checked against TF 2.21) ----

def test_for_over_a_tensor_with_continue_and_break_is_one_while_loop():
    @tf.function
    def f(xs):
        s = 0.0
        for x in xs:
            if x < 0.0:
                continue
            if x > 10.0:
                break
            y = x * 2.0
            s += y
        return s

    assert f(_f32(1.0, -2.0, 3.0, 20.0, 5.0)) == 8.0          # TF: 8.0
    assert f(_f32(-1.0, 4.0)) == 8.0 and f(_f32(30.0, 1.0)) == 0.0
    assert _ops(f, _f32(1.0, 2.0)).count("StatelessWhile") == 1
    from staticgraph.autograph import to_code
    code = to_code(f.python_function)
    assert "_ag__.for_stmt(xs, _ag_extra_" in code and "_ag_break_1 = True" in code


def test_for_over_a_tensor_of_unknown_length_and_rows_of_a_matrix():
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def f(m):
        total = tf.zeros([2])
        for row in m:
            total = total + row * row
        return total

    assert f(np.array([[1, 2], [3, 4]], np.float32)).tolist() == [10.0, 20.0]
    assert f(np.zeros((0, 2), np.float32)).tolist() == [0.0, 0.0]


def test_break_in_a_tensor_while_loop_and_continue_in_a_tensor_range():
    @tf.function
    def f(x):
        while x < 100.0:
            x = x * 2.0
            if x > 50.0:
                break
        return x

    @tf.function
    def g(n):
        s = tf.constant(0)
        for i in range(n):
            if i > 2:
                continue
            s += 1
        return s

    assert f(np.float32(3.0)) == 96.0 and f(np.float32(200.0)) == 200.0    # TF: 96.0, 200.0
    assert g(np.int32(5)) == 3 and g(np.int32(2)) == 2


def test_break_and_continue_keep_python_semantics_on_python_values():
    def f(items):
        out = []
        for v in items:
            if v == 3:
                continue
            if v == 6:
                break
            out.append(v)
        k = 0
        while True:
            k += 1
            if k >= 4:
                break
        return out, k, v

    from staticgraph.autograph import convert
    assert convert(f)(range(10)) == f(range(10)) == ([0, 1, 2, 4, 5], 4, 6)


def test_a_gradient_flows_through_a_loop_over_a_tensor():
    with tf.Graph().as_default():
        xs = tf.placeholder(tf.float32, [3], name="xs")
        w = tf.placeholder(tf.float32, [], name="w")

        def f(xs, w):
            s = 0.0
            for x in xs:
                s += x * w
            return s
        s = tf.function(f)(xs, w)
        dw, = tf.gradients(s, [w])
        with tf.Session() as sess:
            assert sess.run([s, dw], {xs: [1.0, 2.0, 3.0], w: 2.0}) == [12.0, 6.0]


def test_the_loop_item_after_a_tensor_loop_is_the_last_one_and_scalars_are_refused():
    @tf.function
    def f(xs):
        s = 0.0
        for x in xs:
            s += x
        return s, x

    s, last = f(_f32(1.0, 2.0, 3.0))
    assert (s, last) == (6.0, 3.0)                    # TF: (6.0, 3.0)

    @tf.function
    def g(xs):
        for x in xs:
            pass
        return 1.0

    from staticgraph.autograph import AutoGraphError
    with pytest.raises(AutoGraphError, match=r"len requires a non-scalar tensor, got one of shape \(\)"):
        g(np.float32(3.0))

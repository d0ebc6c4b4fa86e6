"""Bad input a user really commits: a specific, actionable error, and nothing corrupted after it.

Every case asserts the exception type and message, then uses the same graph /
session / variables / tensors again to show they still work.
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from common import REGISTRY, numerics
from tests.tf_errors import RUN

HERE = "test_misuse.py"


# --- staticgraph: a small trained-model fixture ------------------------------------------

class Model:
    """x[?, 3] @ w[3, 2] -> tanh -> mean; GradientDescent step; one initialized session."""

    def __init__(self):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.x = tf.placeholder(tf.float32, [None, 3], name="x")
            self.n = tf.placeholder(tf.int32, [], name="n")
            self.w = tf.Variable(np.ones((3, 2), np.float32), name="w")
            self.y = tf.tanh(tf.matmul(self.x, self.w), name="y")
            self.loss = tf.reduce_mean(self.y, name="loss")
            self.step = tf.train.GradientDescentOptimizer(0.1).minimize(self.loss)
            self.sess = tf.Session()
            self.sess.run(tf.global_variables_initializer())
        self.good = np.arange(6, dtype=np.float32).reshape(2, 3) / 6

    def w_value(self) -> np.ndarray:
        return self.sess.run(self.w)

    def still_works(self) -> None:
        """The session runs, trains, and the variable moved only by the good step."""
        before = self.w_value()
        out = self.sess.run(self.y, {self.x: self.good})
        assert out.shape == (2, 2) and np.all(np.isfinite(out))
        self.sess.run(self.step, {self.x: self.good})
        assert not np.array_equal(self.w_value(), before)


@pytest.fixture
def m():
    model = Model()
    yield model
    model.sess.close()


def _refused(m, error, match, fetch=None, feed=None):
    before, ops = m.w_value(), len(m.graph.get_operations())
    with pytest.raises(error, match=match):
        m.sess.run(m.y if fetch is None else fetch, feed)
    assert np.array_equal(m.w_value(), before) and len(m.graph.get_operations()) == ops
    m.still_works()


# --- feeds --------------------------------------------------------------------------------

@pytest.mark.parametrize("value, error, match", [
    (np.zeros((2, 4), np.float32), ValueError,
     r"Cannot feed value of shape \(2, 4\) for Tensor x:0, which has shape \(None, 3\)"),
    (np.zeros(3, np.float32), ValueError, r"Cannot feed value of shape \(3,\) for Tensor x:0"),
    ([["a", "b", "c"]], TypeError, r"feed value str32 .* is not compatible with Tensor x:0 of type float32"),
    (np.ones((1, 3), np.complex64), TypeError, r"complex64 .* not compatible with Tensor x:0"),
    ([[1.0, 2.0], [3.0]], ValueError, r"Cannot feed value for Tensor x:0: setting an array element"),
    (None, TypeError, r"feed value object None is not compatible with Tensor x:0"),
])
def test_bad_feed_value(m, value, error, match):
    _refused(m, error, match, feed={m.x: value})


def test_fractional_float_fed_into_an_int_placeholder(m):
    with m.graph.as_default():
        doubled = m.n * 2
    assert m.sess.run(doubled, {m.n: 3.0}) == 6  # an integral float is exact: accepted
    _refused(m, TypeError, r"float64 2.5 is not compatible with Tensor n:0 of type int32",
             fetch=doubled, feed={m.n: 2.5})


def test_feed_value_that_is_a_symbolic_tensor(m):
    _refused(m, TypeError, "The value of a feed cannot be a tf.Tensor object",
             feed={m.x: m.y})


def test_feeding_a_tensor_that_is_not_feedable(m):
    m.graph.prevent_feeding(m.y)
    _refused(m, ValueError, r"Tensor y:0 may not be fed\.", fetch=m.loss, feed={m.y: np.zeros((2, 2))})


def test_feeding_a_control_flow_internal_output(m):
    with m.graph.as_default():
        out = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
    trace = out.op.inputs[0].op.outputs[-1]      # out = Identity(while:0)
    _refused(m, ValueError, rf"Tensor {trace.name} may not be fed\.", fetch=out, feed={trace: 5})
    assert m.sess.run(out, {out: 7}) == 7  # the loop's result itself is an ordinary tensor


def test_feed_key_that_is_an_operation_or_from_another_graph(m):
    _refused(m, TypeError, "Cannot interpret feed_dict key as Tensor: .* is an Operation",
             feed={m.step: 1.0, m.x: m.good})
    with tf.Graph().as_default():
        alien = tf.placeholder(tf.float32, [], name="alien")
    _refused(m, TypeError, "Cannot interpret feed_dict key as Tensor: .* is not an element of "
                           "this graph", feed={alien: 1.0, m.x: m.good})


def test_missing_feed_names_the_placeholder(m):
    _refused(m, tf.errors.InvalidArgumentError,
             "You must feed a value for placeholder tensor 'x' with dtype float and shape \\[\\?,3\\]")


def test_fetching_a_tensor_of_another_graph(m):
    with tf.Graph().as_default():
        alien = tf.constant(1.0, name="alien")
    _refused(m, ValueError, r'Tensor\("alien:0".*is not an element of this graph', fetch=alien)


def test_running_a_closed_session(m):
    m.sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        m.sess.run(m.y, {m.x: m.good})
    with tf.Session(graph=m.graph) as fresh:  # the graph itself is fine
        fresh.run(tf.variables_initializer([m.w]))
        assert fresh.run(m.y, {m.x: m.good}).shape == (2, 2)


def test_uninitialized_variable_names_it():
    with tf.Graph().as_default():
        v = tf.Variable([1.0], name="never_initialized")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match=RUN + "Could not find variable never_initialized. This could mean that the variable has been deleted. In TF1, it can also mean the variable is uninitialized."):
                sess.run(v * 2)
            sess.run(v.initializer)
            assert sess.run(v * 2).tolist() == [2.0]


# --- NaN / Inf: the opt-in check mode names the op ----------------------------------------------

@pytest.fixture
def checking_off():
    yield
    tf.debugging.disable_check_numerics()
    torch.autograd.set_detect_anomaly(False)
    assert not numerics.enabled()


def test_check_mode_is_free_when_off(checking_off):
    """Off: the registry holds the plain numpy kernels (nothing wraps them)."""
    assert REGISTRY["Log"].impl is np.log
    with torch.autograd.detect_anomaly():
        assert REGISTRY["Log"].impl is not np.log and torch.autograd.is_anomaly_enabled()
        with torch.autograd.detect_anomaly():  # nesting
            pass
        assert numerics.enabled()
    assert REGISTRY["Log"].impl is np.log and not torch.autograd.is_anomaly_enabled()


def test_staticgraph_check_numerics_names_the_node_and_line(m, checking_off):
    with m.graph.as_default():
        logy = tf.log(m.y, name="log_of_y")  # tanh < 0 for negative inputs: NaN
        loss = tf.reduce_sum(logy)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    bad = -m.good - 0.5
    with np.errstate(invalid="ignore"):
        assert np.isnan(m.sess.run(loss, {m.x: bad}))  # off: NaN flows silently
    compiles = m.sess.compile_count
    with m.graph.as_default():
        tf.debugging.enable_check_numerics()
    before = m.w_value()
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        m.sess.run(step, {m.x: bad})
    assert m.sess.compile_count > compiles  # enabling made the session recompile its plans
    text = str(e.value)
    assert "op Log produced 4 NaN" in text and "in node 'log_of_y' (Log)" in text and HERE in text
    assert np.array_equal(m.w_value(), before)  # the failing step assigned nothing
    assert np.isfinite(m.sess.run(loss, {m.x: m.good + 0.5}))
    m.still_works()


def test_staticgraph_check_numerics_catches_a_gradient(checking_off):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [2], name="x")
        dx, = tf.gradients(tf.reduce_sum(tf.sqrt(x)), [x])
        tf.debugging.enable_check_numerics()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"produced 1 Inf(.|\n)*in node 'gradients/"):
                sess.run(dx, {x: [0.0, 4.0]})
            assert sess.run(dx, {x: [1.0, 4.0]}).tolist() == [0.5, 0.25]
    assert g is not None


def test_dyngraph_detect_anomaly_names_the_op_and_line(checking_off):
    x = torch.tensor([1.0, -1.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match=rf"log: op Log produced 1 NaN .*this op produced "
                                               rf"them .*{HERE}:\d+"):
            torch.log(x)
        y = torch.log(x * x + 1.0).sum()  # finite: fine inside the mode
        y.backward()
    assert x.grad.tolist() == pytest.approx([1.0, -1.0])
    with np.errstate(invalid="ignore"):
        assert np.isnan(torch.log(x).detach().numpy()[1])  # off again: NaN flows


def test_dyngraph_anomaly_in_backward_leaves_grads_untouched(checking_off):
    x = torch.tensor([0.0, 4.0], requires_grad=True)
    y = torch.sqrt(x).sum()
    torch.autograd.set_detect_anomaly(True)
    with pytest.raises(RuntimeError, match="op RealDiv produced 1 Inf"):
        y.backward()
    torch.autograd.set_detect_anomaly(False)
    assert x.grad is None  # nothing accumulated by the failed backward
    z = torch.sqrt(x + 1.0).sum()
    z.backward()
    assert x.grad.tolist() == pytest.approx([0.5, 0.5 / np.sqrt(5.0)])


def test_dyngraph_anomaly_in_backward_names_the_node_and_the_forward_line(checking_off):
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = torch.autograd.detect_anomaly()
    with mode:
        y = torch.sqrt(x)  # the forward line the error must show
        forward_line = f'line {sys._getframe().f_lineno - 1}'
        with pytest.warns(UserWarning, match=r"Error detected in SqrtBackward0\. Traceback of "
                                             r"forward call that caused the error:\n  File "):
            with pytest.raises(RuntimeError) as e:
                (y * 0).sum().backward()
    text = str(e.value)
    assert text.startswith("Function 'SqrtBackward0' returned nan values in its 0th output.\n"
                           "  (op RealDiv produced 1 NaN")
    assert f'{HERE}", {forward_line}' in text and "y = torch.sqrt(x)  # the forward line" in text
    assert "dyngraph" + os.sep not in text.split("Traceback of forward call")[1]


def test_dyngraph_anomaly_after_an_unrecorded_forward_says_so(checking_off):
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = (torch.sqrt(x) * 0).sum()
    torch.autograd.set_detect_anomaly(True)
    with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' (.|\n)*no forward traceback"):
        y.backward()


def test_inputs_already_non_finite_are_reported_as_such(checking_off):
    with torch.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="inputs already held NaN/Inf"):
            torch.tensor([np.nan]) * 2.0


# --- data that is not numbers ---------------------------------------------------------------------

@pytest.mark.parametrize("data, error, match", [
    ("abc", TypeError, r"new\(\): invalid data type 'str'"),
    ([object()], TypeError, r"new\(\): invalid data type 'object'"),
    (None, TypeError, r"new\(\): invalid data type 'NoneType'"),
    ({"a": 1}, TypeError, r"new\(\): invalid data type 'dict'"),
    ([[1, 2], [3]], ValueError, r"expected sequence of length 2 at dim 1 \(got 1\)"),
    ([[[1.0], [2.0, 3.0]]], ValueError, r"expected sequence of length 1 at dim 2 \(got 2\)"),
    (np.array([1 + 2j], np.clongdouble), TypeError,
     r"numpy dtype complex256 has no dyngraph equivalent \(supported: float16"),
    (np.array([1.0], np.longdouble), TypeError, r"float128 has no dyngraph equivalent"),
])
def test_dyngraph_tensor_refuses_non_numeric_data(data, error, match):
    with pytest.raises(error, match=match):
        torch.tensor(data)
    assert torch.tensor([[1, 2], [3, 4]]).sum().item() == 10  # creation still works


def test_dyngraph_other_creators_refuse_unsupported_dtypes():
    with pytest.raises(TypeError, match="numpy dtype <U1 has no dyngraph equivalent"):
        torch.from_numpy(np.array(["x"]))
    with pytest.raises(TypeError, match="complex256 has no dyngraph equivalent"):
        torch.zeros(2, dtype=np.clongdouble)
    with pytest.raises(TypeError, match="complex256 has no dyngraph equivalent"):
        torch.tensor([1.0], dtype=np.clongdouble)


def test_dyngraph_huge_shape_refused_before_allocation():
    with pytest.raises(MemoryError, match=r"Unable to allocate .* shape \(10000000, 10000000\)"):
        torch.zeros(10**7, 10**7)
    assert torch.zeros(2, 2).sum().item() == 0.0


@pytest.mark.parametrize("value, error, match", [
    (None, ValueError, "None values not supported."),
    ([object()], TypeError, r"Failed to convert elements of \[<object object"),
    ([[1, 2], [3]], ValueError, "Can't convert non-rectangular Python sequence to Tensor."),
    (np.array([1 + 2j], np.clongdouble), TypeError, "staticgraph has no complex256 tensors"),
])
def test_staticgraph_constant_refuses_non_numeric_data(m, value, error, match):
    ops = len(m.graph.get_operations())
    with m.graph.as_default():
        with pytest.raises(error, match=match):
            tf.constant(value)
        c = tf.constant([1.0, 2.0])
    assert len(m.graph.get_operations()) == ops + 1
    assert m.sess.run(c).tolist() == [1.0, 2.0]
    m.still_works()


def test_staticgraph_placeholder_of_unsupported_dtype(m):
    with m.graph.as_default():
        for dtype in (np.clongdouble, np.dtype("U5"), "complex256"):
            with pytest.raises(TypeError, match="staticgraph has no .* tensors"):
                tf.placeholder(dtype, [2])
    m.still_works()


def test_staticgraph_huge_result_refused_at_build_time(m):
    ops = len(m.graph.get_operations())
    with m.graph.as_default():
        with pytest.raises(tf.errors.ResourceExhaustedError,
                           match=r"OOM when allocating tensor with shape\[1000000,1000000\] and type "
                                 rf"float32: 4000000000000 bytes(.|\n)*in op 'zeros'(.|\n)*{HERE}"):
            tf.zeros([10**6, 10**6])
        big = tf.placeholder(tf.float32, [10**6, 10**6], name="big")  # no allocation: fine
        with pytest.raises(tf.errors.ResourceExhaustedError, match=r"in op 'add' \(Add\)"):
            big + 1.0
    assert len(m.graph.get_operations()) == ops + 2  # the placeholder and add's constant "y"
    m.still_works()


def test_build_time_shape_error_names_op_shapes_and_line(m):
    with m.graph.as_default():
        with pytest.raises(ValueError, match=rf"in op 'MatMul(_\d+)?' \(MatMul\) with input shapes: "
                                             rf"\[\?, 3\] \(float32\), \[2, 2\] \(float32\)(.|\n)*{HERE}"):
            tf.matmul(m.x, tf.ones((2, 2)))
    m.still_works()


def test_python_bool_of_a_symbolic_tensor(m):
    with m.graph.as_default(), pytest.raises(tf.errors.OperatorNotAllowedInGraphError,
                                             match="use tf.cond"):
        if m.loss > 0:
            pass
    m.still_works()


# --- control flow mistakes ------------------------------------------------------------------------

def test_while_loop_body_returning_the_wrong_structure(m):
    with m.graph.as_default():
        i = tf.constant(0)
        with pytest.raises(ValueError, match="body must return the same structure as loop_vars"):
            tf.while_loop(lambda i, s: i < 3, lambda i, s: i + 1, (i, tf.constant(0.0)))
        with pytest.raises(TypeError, match="loop variable 0 .* enters the loop with"):
            tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32) + 1.0, [i])
        ok = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i])
    assert m.sess.run(ok) == 3
    m.still_works()


def test_cond_branches_with_different_dtypes(m):
    with m.graph.as_default():
        p = m.loss > 0.0
        with pytest.raises(TypeError, match="^true_fn and false_fn arguments to tf.cond must have "
                                            "the same number, type, and overall structure"):
            tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(1))
        with pytest.raises(TypeError, match="pred must not be a Python bool"):
            tf.cond(True, lambda: m.loss, lambda: m.loss)
        ok = tf.cond(p, lambda: m.loss * 2.0, lambda: m.loss)
    assert m.sess.run(ok, {m.x: m.good}) == pytest.approx(2 * m.sess.run(m.loss, {m.x: m.good}))
    m.still_works()

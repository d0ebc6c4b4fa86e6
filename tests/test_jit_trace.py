"""dyngraph.jit.trace: record once, replay as a compiled static graph; the trace-freezing pitfall."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngraph as torch
from dyngraph import engine
from dyngraph.jit import TracedFunction, TracerWarning, TracingError

WORDING = ("Converting a tensor to a Python boolean might cause the trace to be incorrect. We "
           "can't record the data flow of Python values, so this value will be treated as a "
           "constant in the future. This means that the trace might not generalize to other inputs!")


def _trace(fn, *examples):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(fn, examples)
    return traced, [w for w in caught if w.category is TracerWarning]


def test_replays_the_recorded_ops_as_a_compiled_graph():
    def f(x, y):
        return torch.tanh(x @ y).sum(dim=1) * 2.0

    x, y = torch.randn(3, 4), torch.randn(4, 2)
    traced, warned = _trace(f, x, y)
    assert isinstance(traced, TracedFunction) and not warned
    assert [op.type for op in traced.graph.get_operations()] == [
        "Placeholder", "Placeholder", "MatMul", "Tanh", "Sum", "Const", "Mul"]
    np.testing.assert_allclose(traced(x, y).numpy(), f(x, y).numpy(), rtol=1e-6)
    x5 = torch.randn(5, 4)                       # input dims are left unknown: other batch sizes run
    np.testing.assert_allclose(traced(x5, y).numpy(), f(x5, y).numpy(), rtol=1e-6)
    assert "MatMul 'MatMul'" in traced.code and "test_jit_trace.py" in traced.code
    assert engine.TRACER is None


def test_data_dependent_branch_is_frozen_and_the_line_is_named():
    def f(x):
        if x.sum() > 0:                  # the example takes this branch; the trace keeps it
            return x * 2
        return -x

    traced, warned = _trace(f, torch.tensor([1.0, 2.0]))
    assert [str(w.message) for w in warned] == [WORDING]
    assert (warned[0].filename, warned[0].lineno) == (__file__, f.__code__.co_firstlineno + 1)
    neg = torch.tensor([-1.0, -2.0])
    assert traced(neg).tolist() == [-2.0, -4.0]      # silently wrong: the eager answer is [1, 2]
    assert f(neg).tolist() == [1.0, 2.0]


def test_data_dependent_loop_count_is_frozen():
    def f(x):
        steps = 0
        while x.max().item() < 10:
            x = x * 2
            steps += 1
        return x

    traced, warned = _trace(f, torch.tensor([1.0]))
    assert "a Python number" in str(warned[0].message)
    assert traced.graph.get_operations().__len__() and traced(torch.tensor([3.0])).tolist() == [48.0]
    assert f(torch.tensor([3.0])).tolist() == [12.0]


@pytest.mark.parametrize("convert, what", [(float, "a Python float"), (int, "a Python integer"),
                                           (lambda t: t.tolist(), "a Python list"),
                                           (lambda t: t.numpy(), "a NumPy array")])
def test_every_conversion_of_a_traced_value_warns(convert, what):
    def f(x):
        convert(x.sum())
        return x + 1

    _, warned = _trace(f, torch.tensor([1.0]))
    assert len(warned) == 1 and str(warned[0].message).startswith(f"Converting a tensor to {what} ")


def test_values_that_do_not_depend_on_the_inputs_convert_silently():
    def f(x):
        n = torch.tensor(3)
        return x * float(n) if bool(n > 2) else x

    traced, warned = _trace(f, torch.tensor([1.0]))
    assert not warned and traced(torch.tensor([2.0])).tolist() == [6.0]


def test_gradients_flow_through_the_traced_function():
    w = torch.tensor([0.5, -1.5], requires_grad=True)

    def f(x):
        return (torch.tanh(x * w) ** 2).sum()

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    traced, _ = _trace(f, x)
    out = traced(x)
    assert out.grad_fn.name() == "DifferentiableGraphBackward"
    out.backward()
    gx, gw = x.grad.numpy().copy(), w.grad.numpy().copy()
    x.grad = w.grad = None
    f(x).backward()
    np.testing.assert_allclose(gx, x.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(gw, w.grad.numpy(), rtol=1e-6)


def test_parameters_are_read_at_every_call():
    w = torch.tensor([1.0], requires_grad=True)
    traced, _ = _trace(lambda x: x * w, torch.tensor([2.0]))
    with torch.no_grad():
        w.mul_(3.0)                                   # an optimizer step, say
    assert traced(torch.tensor([2.0])).tolist() == [6.0]
    assert len(traced.params) == 1


def test_multiple_outputs_each_get_their_own_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    traced, _ = _trace(lambda x: (x * 3, (x * x).sum()), x)
    a, b = traced(x)
    torch.autograd.backward([a.sum(), b])
    assert x.grad.tolist() == [3 + 2, 3 + 4]


def test_second_backward_through_a_traced_call_is_refused():
    x = torch.tensor([1.0], requires_grad=True)
    traced, _ = _trace(lambda x: (x * x).sum(), x)
    out = traced(x)
    out.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.backward()


def test_in_place_arithmetic_is_recorded():
    def f(x):
        y = x * 1.0
        y += 1
        y.mul_(2)
        return y

    traced, _ = _trace(f, torch.tensor([1.0]))
    assert traced(torch.tensor([5.0])).tolist() == [12.0]


def test_unrecordable_in_place_write_is_an_error():
    def f(x):
        y = x * 1.0
        y[0] = 7.0
        return y + 1

    with pytest.raises(TracingError, match=r"test_jit_trace.py:\d+: a traced tensor was modified "
                                           r"in place by an operation the trace cannot record"):
        torch.jit.trace(f, torch.tensor([1.0, 2.0]))
    assert engine.TRACER is None and torch.Tensor.__bool__.__name__ == "__bool__"


def test_non_tensor_output_is_an_error():
    with pytest.raises(TracingError, match="Only tensors, lists, tuples of tensors, or dictionary "
                                           "of tensors can be output from traced functions"):
        torch.jit.trace(lambda x: (x + 1, 3), torch.tensor([1.0]))


def test_wrong_number_of_inputs():
    traced, _ = _trace(lambda x, y: x + y, torch.tensor([1.0]), torch.tensor([1.0]))
    with pytest.raises(TypeError, match="<lambda>\\(\\) was traced with 2 inputs, got 1"):
        traced(torch.tensor([1.0]))


def test_pytorch_dtype_rules_survive_the_trace():
    traced, _ = _trace(lambda a, b: a / b, torch.tensor([3, 4]), torch.tensor([2, 2]))
    out = traced(torch.tensor([5, 6]), torch.tensor([2, 4]))
    assert out.dtype == torch.float32 and out.tolist() == [2.5, 1.5]
    assert "Cast" in [op.type for op in traced.graph.get_operations()]


def test_dict_and_nested_outputs_and_numpy_inputs():
    traced, _ = _trace(lambda x: {"a": x + 1, "b": [x * 2]}, np.array([1.0], np.float32))
    out = traced(np.array([2.0], np.float32))
    assert out["a"].tolist() == [3.0] and out["b"][0].tolist() == [4.0]


def test_hook_is_cleared_when_the_traced_function_raises():
    def f(x):
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        torch.jit.trace(f, torch.tensor([1.0]))
    assert engine.TRACER is None


def test_a_traced_module_trains_like_the_module():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    x, target = torch.randn(5, 3), torch.randn(5, 1)
    traced, _ = _trace(model, x)
    assert repr(traced).startswith("<dyngraph.jit traced Sequential:") and len(traced.params) == 4
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(traced(x), target)
        loss.backward()
        opt.step()
        with torch.no_grad():
            losses.append((loss.item(), torch.nn.functional.mse_loss(model(x), target).item()))
    for (_, after), (before_next, _) in zip(losses, losses[1:]):
        assert np.isclose(after, before_next, rtol=1e-6)   # the trace reads the updated weights
    assert losses[-1][1] < losses[0][0]


def test_second_and_third_order_through_a_traced_call_match_eager():
    w = torch.tensor([3.0], requires_grad=True)
    f = lambda x: (x * x * x * w).sum()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    traced, _ = _trace(f, x)
    results = []
    for fn in (traced, f):
        g, = torch.autograd.grad(fn(x), x, create_graph=True)
        assert g.requires_grad and g.grad_fn is not None
        hx, hw = torch.autograd.grad(g.sum(), [x, w], create_graph=True)
        third, = torch.autograd.grad(hx.sum(), x)
        results.append([t.tolist() for t in (g, hx, hw, third)])
    assert results[0] == results[1] == [[9.0, 36.0], [18.0, 36.0], [15.0], [18.0, 18.0]]
    assert traced(x).grad_fn.name() == "DifferentiableGraphBackward"

"""Custom autograd Functions, autograd.functional, gradcheck and node hooks (beyond the golden program)."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
from dyngraph.autograd import Function, GradcheckError, gradcheck, gradgradcheck
from dyngraph.autograd.function import once_differentiable


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2


def test_backward_written_with_differentiable_ops_gives_second_derivatives():
    x = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(Cube.apply(x), x, create_graph=True)
    (h,) = torch.autograd.grad(g, x)
    assert g.item() == 12.0 and h.item() == 12.0
    assert gradgradcheck(Cube.apply, (x,))


def test_once_differentiable_backward_is_not_recorded():
    class Plain(Cube):
        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2
    x = torch.tensor([2.0], requires_grad=True)
    (g,) = torch.autograd.grad(Plain.apply(x), x, create_graph=True)
    assert not g.requires_grad


def test_materialize_grads_and_non_differentiable_outputs():
    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            idx = (x > 0).long()
            ctx.mark_non_differentiable(idx)
            return x * 2, x * 3, idx

        @staticmethod
        def backward(ctx, a, b, idx):
            assert b is None and idx is None
            return a * 2
    x = torch.tensor([1.0, -1.0], requires_grad=True)
    a, b, idx = Two.apply(x)
    assert not idx.requires_grad and b.requires_grad
    a.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_no_record_without_grad_and_mark_dirty_refused():
    with torch.no_grad():
        y = Cube.apply(torch.tensor([2.0], requires_grad=True))
    assert y.grad_fn is None and not y.requires_grad
    assert Cube.apply(torch.tensor([2.0])).grad_fn is None

    class Dirty(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x
    with pytest.raises(RuntimeError, match="mark_dirty"):
        Dirty.apply(torch.tensor([1.0], requires_grad=True))


def test_second_backward_through_a_custom_function_needs_retain_graph():
    x = torch.tensor([2.0], requires_grad=True)
    y = Cube.apply(x)
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 24.0
    z = Cube.apply(x)
    z.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()


def test_gradcheck_catches_a_wrong_backward_and_warns_on_float32():
    class Wrong(Cube):
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x ** 2
    x = torch.tensor([1.5, -0.5], dtype=torch.float64, requires_grad=True)
    assert gradcheck(Cube.apply, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(Wrong.apply, (x,))
    assert gradcheck(Wrong.apply, (x,), raise_exception=False) is False
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
        gradcheck(torch.sin, (torch.tensor([0.5], requires_grad=True),), atol=1e-2, rtol=1e-2)


def test_functional_jacobian_hessian_jvp_vjp():
    F = torch.autograd.functional
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    f = lambda x: torch.stack([x[0] * x[1], x[0].sin()])  # noqa: E731
    J = F.jacobian(f, x)
    np.testing.assert_allclose(J.numpy(), [[2, 1], [np.cos(1), 0]])
    v = torch.tensor([1.0, 0.5], dtype=torch.float64)
    np.testing.assert_allclose(F.jvp(f, x, v)[1].numpy(), J.numpy() @ v.numpy())
    np.testing.assert_allclose(F.vjp(f, x, v)[1].numpy(), v.numpy() @ J.numpy())
    H = F.hessian(lambda x: (x ** 3).sum() * x[0], x)
    np.testing.assert_allclose(H.numpy(), [[12, 12], [12, 12]])
    assert not x.requires_grad  # the caller's tensor is never put in a graph
    J2 = F.jacobian(lambda x: x * 2, x, create_graph=True)
    assert J2.shape == (2, 2)


def test_node_hooks_can_be_removed():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    z = (w * 2).exp()
    calls = []
    h = z.grad_fn.register_prehook(lambda go: calls.append("pre"))
    h2 = z.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    h.remove()
    h2.remove()
    z.sum().backward()
    assert calls == [] and np.allclose(w.grad.numpy(), 2 * np.exp([2.0, 4.0]))

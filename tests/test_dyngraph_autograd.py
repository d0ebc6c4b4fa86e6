"""dyngraph's autograd rules (leaves, retain_grad, accumulation, hooks, freeing) and its errors.

Every error is asserted by type and by PyTorch's wording.
"""
from __future__ import annotations

import gc
import sys
import weakref

import numpy as np
import pytest

import dyngraph as torch
from common import ShapeError


def leaves():
    w = torch.tensor([1.], requires_grad=True)
    x = torch.tensor([2.], requires_grad=True)
    return w, x


# --- leaves, retain_grad, accumulation ------------------------------------------------------


def test_only_leaves_keep_grad_unless_retained():
    w, x = leaves()
    a = torch.add(w, x)
    a.retain_grad()
    b = torch.add(w, 1)
    y = torch.mul(a, b)
    y.backward()
    assert [t.is_leaf for t in (w, x, a, b, y)] == [True, True, False, False, False]
    assert (w.grad.item(), x.grad.item(), a.grad.item()) == (5.0, 2.0, 2.0)
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf "
                                         "Tensor is being accessed"):
        assert b.grad is None
    assert w.grad.grad_fn is None  # reading a leaf's .grad does not warn
    assert a.retains_grad and not b.retains_grad
    assert w.grad.grad_fn is None and not w.grad.requires_grad


def test_grads_accumulate_across_backward_calls():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert y.grad.tolist() == [8.0] * 3 and x.grad.tolist() == [16.0] * 3
    grad = x.grad
    (x * 1).sum().backward()
    assert x.grad is grad and grad.tolist() == [17.0] * 3  # accumulated in place


def test_gradient_argument_weights_a_non_scalar_output():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    (x * x).backward(torch.tensor([1., 0., 2.]))
    assert x.grad.tolist() == [2.0, 0.0, 12.0]


def test_shared_subexpression_gets_the_sum_of_its_paths():
    x = torch.tensor(3.0, requires_grad=True)
    a = x * x
    (a + a * a).backward()  # d/dx (x^2 + x^4) = 2x + 4x^3
    assert x.grad.item() == 6.0 + 108.0


def test_detach_and_no_grad_cut_the_graph():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x.detach()
    y.backward()
    assert x.grad.item() == 2.0
    assert torch.ones(1).requires_grad is False
    with torch.no_grad():
        assert not (x * 3).requires_grad


def test_autograd_grad_returns_without_accumulating():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * x
    (gx,) = torch.autograd.grad(y.sum(), x, retain_graph=True)
    (gy,) = torch.autograd.grad(y.sum(), y)
    assert gx.tolist() == [2.0, 4.0] and gy.tolist() == [1.0, 1.0] and x.grad is None
    z = torch.ones(2, requires_grad=True)
    assert torch.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)[1] is None


def test_saved_values_are_freed_after_backward_unless_retained():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    y.sum().backward(retain_graph=True)
    assert node.saved["out"] is not None
    y.sum().backward()
    assert node.saved is None and x.grad.tolist() == pytest.approx([2 * np.e] * 3)


def test_add_can_backward_twice_since_it_saves_no_tensor():
    x = torch.ones(3, requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0] * 3


def test_graph_is_released_with_its_output():
    x = torch.ones(3, requires_grad=True)
    y = (x * 2).exp()
    ref = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert ref() is None


def test_inputs_argument_limits_accumulation():
    w, x = leaves()
    (w * x).backward(inputs=[w])
    assert w.grad.item() == 2.0 and x.grad is None


# --- hooks -------------------------------------------------------------------------------


def test_hooks_see_and_replace_gradients():
    x = torch.tensor([1., 2.], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    y = x * 3
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert seen == [[30.0, 30.0]] and x.grad.tolist() == [30.0, 30.0]
    handle = y.register_hook(lambda g: g * 0)
    handle.remove()
    x.grad = None
    y = x * 3
    y.register_hook(lambda g: g * 2).remove()
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and len(seen) == 2


def test_hook_on_tensor_without_grad_is_refused():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        torch.ones(2).register_hook(print)


# --- errors (PyTorch's types and wording) -------------------------------------------------


def test_backward_on_non_scalar_needs_gradient():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        x.exp().backward()
    assert x.grad is None


def test_second_backward_through_freed_graph():
    x = torch.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time "
                                           r"\(or directly access saved tensors after they have "
                                           r"already been freed\)\. .*Specify retain_graph=True"):
        y.backward()
    assert x.grad.tolist() == [2.0] * 3  # unchanged by the failed call


def test_requires_grad_on_integer_tensor():
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype "
                                           "can require gradients$"):
        torch.tensor([1, 2], requires_grad=True)
    t = torch.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype "
                                           "can require gradients$"):
        t.requires_grad = True
    assert not t.requires_grad


def test_requires_grad_of_non_leaf_cannot_change():
    y = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False


@pytest.mark.parametrize("update", [lambda t: t.__iadd__(1), lambda t: t.add_(1),
                                    lambda t: t.mul_(2), lambda t: t.zero_()])
def test_inplace_on_leaf_that_requires_grad(update):
    t = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^a leaf Variable that requires grad is being used in "
                                           r"an in-place operation\.$"):
        update(t)
    assert t.tolist() == [1.0] * 3 and t._version == 0
    with torch.no_grad():
        update(t)  # allowed outside recording (an optimizer step)
    assert t._version == 1


def test_inplace_through_a_view_of_a_leaf_that_requires_grad():
    x = torch.ones(2, 3, requires_grad=True)
    row = x[0]
    with pytest.raises(RuntimeError, match=r"^a view of a leaf Variable that requires grad is being "
                                           r"used in an in-place operation\.$"):
        row.mul_(2)
    assert x.tolist() == [[1.0] * 3] * 2 and x._version == 0
    x.detach()[0].add_(1)  # outside the graph: allowed, and counted
    assert x._version == 1
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[1].add_(1)  # the view's base is still known to be x


def test_inplace_change_of_saved_output_is_reported_at_backward():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    y += 1
    with pytest.raises(RuntimeError, match=r"^one of the variables needed for gradient computation "
                                           r"has been modified by an inplace operation: "
                                           r"\[torch\.FloatTensor \[3\]\], which is output 0 of Exp, "
                                           r"is at version 1; expected version 0 instead\. Hint:"):
        y.sum().backward()


def test_inplace_change_of_saved_input_is_reported_at_backward():
    x = torch.ones(3, requires_grad=True)
    w = torch.ones(3)
    y = x * w
    w += 1
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torch\.FloatTensor "
                                           r"\[3\]\] is at version 1; expected version 0 instead"):
        y.sum().backward()
    assert x.grad is None and y.grad_fn.saved is not None  # refused before anything changed
    h = x * 2
    z = h * h
    h.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch\.FloatTensor \[3\]\], which is output 0 of Add, "
                                           r"is at version 1"):
        z.sum().backward()


def test_inplace_change_through_a_view_is_reported():
    """A view shares its base's version counter (as in PyTorch), so either side's change counts."""
    x = torch.ones(2, 3, requires_grad=True)
    y = x.exp()
    row = y[0]
    row.mul_(2)
    assert y._version == 1 and y.tolist()[0] == pytest.approx([2 * np.e] * 3)
    with pytest.raises(RuntimeError, match=r"\[torch\.FloatTensor \[2, 3\]\], which is output 0 of Exp, "
                                           r"is at version 1; expected version 0 instead"):
        y.sum().backward()
    z = torch.ones(4)
    flat = z.view(2, 2)
    z.add_(1)
    assert flat._version == 1 and torch.ones(4).clone()._version == 0


def test_bool_of_multi_element_tensor():
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(torch.ones(3))


@pytest.mark.parametrize("expr,message", [
    ("torch.ones(2, 3) + torch.ones(4)",
     r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1 "
     r"\(in add on shapes \[2, 3\], \[4\], at <string>:1\)$"),
    ("torch.ones(3) * torch.ones(2)",
     r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 0"),
    ("torch.mm(torch.ones(2, 3), torch.ones(4, 5))",
     r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\) \(in matmul"),
    ("torch.ones(2, 3) @ torch.ones(4, 5)", r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
])
def test_shape_mismatch_names_op_shapes_and_line(expr, message):
    with pytest.raises(RuntimeError, match=message) as info:
        eval(expr, {"torch": torch})
    assert isinstance(info.value, ShapeError)


def test_shape_error_points_at_the_users_line():
    line = sys._getframe().f_lineno + 2
    with pytest.raises(RuntimeError) as info:
        torch.ones(2, 3).exp() * torch.ones(4)
    assert str(info.value).endswith(f"(in mul on shapes [2, 3], [4], at test_dyngraph_autograd.py:{line})")


@pytest.mark.parametrize("expr,error,message", [
    ("torch.ones(2, 3).reshape(4)", RuntimeError, r"^shape '\[4\]' is invalid for input of size 6$"),
    ("torch.cat([torch.ones(2, 3), torch.ones(2, 4)])", RuntimeError,
     r"^Sizes of tensors must match except in dimension 0\. Expected size 3 but got size 4 for "
     r"tensor number 1 in the list\.$"),
    ("torch.stack([torch.ones(2, 3), torch.ones(2, 4)])", RuntimeError,
     r"^stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 and \[2, 4\] at entry 1$"),
    ("torch.ones(3).sum(dim=2)", IndexError,
     r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got 2\)$"),
    ("torch.ones(2, 3).t().t()[0, 5]", IndexError, "index 5 is out of bounds for dimension 1 with size 3"),
    ("torch.ones(2, 3, 4).t()", RuntimeError, r"^t\(\) expects a tensor with <= 2 dimensions, but self is 3D$"),
    ("torch.ones(3).item()", RuntimeError, "^a Tensor with 3 elements cannot be converted to Scalar$"),
    ("torch.ones(2, dtype=torch.int64).mean()", RuntimeError,
     r"^mean\(\): could not infer output dtype\. Input dtype must be either a floating point or "
     r"complex dtype\. Got: Long$"),
    ("torch.ones(3, requires_grad=True).numpy()", RuntimeError, r"Use tensor\.detach\(\)\.numpy\(\)"),
    ("torch.tensor([True]) - torch.tensor([False])", RuntimeError,
     r"^Subtraction, the `-` operator, with two bool tensors is not supported\. Use the `\^` or "
     r"`logical_xor\(\)` operator instead\.$"),
    ("-torch.tensor([True])", RuntimeError,
     r"^Negation, the `-` operator, on a bool tensor is not supported\. If you are trying to "
     r"invert a mask, use the `~` or `logical_not\(\)` operator instead\.$"),
])
def test_other_errors_use_pytorch_wording(expr, error, message):
    with pytest.raises(error, match=message):
        eval(expr, {"torch": torch})


@pytest.mark.parametrize("a,b,names", [
    ("torch.ones(2, 3)", "torch.ones(3, 5, dtype=torch.int64)", "float != long int"),
    ("torch.ones(2, 3)", "torch.ones(3, 5, dtype=torch.float64)", "float != double"),
])
def test_matmul_refuses_mixed_dtypes(a, b, names):
    for form in ("torch.mm({a}, {b})", "{a} @ {b}", "torch.matmul({a}, {b})"):
        with pytest.raises(RuntimeError, match=f"^expected m1 and m2 to have the same dtype, but got: {names}$"):
            eval(form.format(a=a, b=b), {"torch": torch})


def test_inplace_cast_and_broadcast_errors():
    t = torch.ones(2, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        t += 1.5
    u = torch.ones(3)
    with pytest.raises(RuntimeError, match=r"^output with shape \[3\] doesn't match the broadcast shape \[2, 3\]$"):
        u += torch.ones(2, 3)
    assert t.tolist() == [1, 1] and u.tolist() == [1.0] * 3


def test_backward_on_tensor_without_grad():
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn$"):
        torch.ones(2).sum().backward()


def test_autograd_grad_of_unused_input():
    x = torch.ones(2, requires_grad=True)
    z = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^The differentiated Tensor at index 1 appears to not have "
                                           r"been used in the graph\. Set allow_unused=True"):
        torch.autograd.grad((x * 2).sum(), [x, z])


def test_gradient_shape_must_match_output():
    x = torch.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"torch\.Size\(\[3\]\) and output\[0\] has a shape of "
                                           r"torch\.Size\(\[2, 2\]\)"):
        (x * 2).backward(torch.ones(3))


def test_index_assignment_inside_a_graph_is_recorded_as_copy_slices():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y[0] = 5.0
    assert type(y.grad_fn).__name__ == "CopySlices"
    y.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), [5.0, 2.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 2.0, 2.0])


def test_boolean_mask_assignment_sends_gradients_to_the_value():
    x = torch.ones(2, 3, requires_grad=True)
    v = torch.tensor([1., 2, 3], requires_grad=True)
    y = x * 1
    y[torch.tensor([True, False])] = v * 2
    (y * torch.arange(6.).reshape(2, 3)).sum().backward()  # values checked against PyTorch 2
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 0], [3, 4, 5]])
    np.testing.assert_array_equal(v.grad.numpy(), [0, 2, 4])


@pytest.mark.parametrize("op_name,attrs", [("SwapLastAxes", {}), ("Identity", {}),
                                           ("StopGradient", {}), ("Transpose", {})])
def test_every_declared_alias_shares_the_version_counter(op_name, attrs):
    """Aliasing is read off the op's declaration (``aliases``), including ops that return the
    input array itself: an in-place change through the result is seen by nodes that saved the
    input, and backward refuses (it would otherwise give a silently wrong gradient)."""
    from common import REGISTRY
    from dyngraph.engine import apply
    x = torch.ones(2, 2, requires_grad=True)
    y = x.exp()
    view = apply(REGISTRY[op_name], (y,), attrs)
    with torch.no_grad():
        view.mul_(2)
    assert y._version == 1
    with pytest.raises(RuntimeError, match=r"which is output 0 of Exp, is at version 1"):
        y.sum().backward()


def test_sum_like_of_the_same_shape_shares_the_version_counter():
    """SumLike returns its input itself when the shapes already agree (declared aliases=(0,))."""
    from common import REGISTRY, ShapeRef
    from dyngraph.engine import apply
    y = torch.ones(2, 2, requires_grad=True).exp()
    same = apply(REGISTRY["SumLike"], (y, ShapeRef((2, 2), np.dtype(np.float32))), {})
    assert np.shares_memory(same._data, y._data)
    with torch.no_grad():
        same.add_(1)
    assert y._version == 1


def test_vjp_and_jvp_without_v_need_a_single_element_in_torchs_words():
    from dyngraph.autograd.functional import jvp, vjp
    with pytest.raises(RuntimeError, match=r"^The vector v can only be None if the user-provided "
                                           r"function returns a single Tensor with a single element\.$"):
        vjp(lambda x: x * 2, torch.ones(3))
    with pytest.raises(RuntimeError, match=r"^The vector v can only be None if the input to the "
                                           r"user-provided function is a single Tensor with a "
                                           r"single element\.$"):
        jvp(lambda x: x * 2, torch.ones(3))
    assert vjp(lambda x: (x * 3).sum(), torch.ones(1))[1].tolist() == [3.0]


def test_accumulated_grads_never_share_memory_with_user_values():
    """backward keeps a gradient array as ``.grad`` only when nothing else refers to it."""
    x, w = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    seed = torch.full((3,), 2.0)
    (x + w).backward(seed)                          # Add hands ``seed`` to both leaves as is
    assert not np.shares_memory(x.grad.numpy(), seed.numpy())
    assert not np.shares_memory(w.grad.numpy(), seed.numpy())
    assert not np.shares_memory(x.grad.numpy(), w.grad.numpy())
    x.grad = w.grad = None
    x.backward(seed)                                # a leaf as the root: its seed
    assert not np.shares_memory(x.grad.numpy(), seed.numpy())
    x.grad = None
    kept = []
    x.register_hook(lambda g: kept.append(g))
    (x * 3.0).sum().backward()                      # a hook held on to the gradient
    assert not np.shares_memory(x.grad.numpy(), kept[0].numpy())
    seed.numpy()[:] = 0
    kept[0].numpy()[:] = 0
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])


def test_a_fresh_gradient_is_kept_without_a_copy(monkeypatch):
    """A rule's fresh result that nothing else holds becomes ``.grad`` as is (no copy)."""
    copies = []
    real_array = np.array
    monkeypatch.setattr(np, "array", lambda *a, **k: copies.append(k) or real_array(*a, **k))
    x = torch.ones(4, requires_grad=True)
    (x * 3.0).sum().backward()
    assert not [k for k in copies if k.get("copy")]
    np.testing.assert_array_equal(x.grad.numpy(), [3.0] * 4)


@pytest.mark.parametrize("symbol", ["+", "-", "*", "/"])
def test_operators_with_both_operands_requiring_grad(symbol):
    """The operators' own recording path: gradients of both operands, the output saved too."""
    a0, b0 = np.array([1.0, -2.0, 3.0], np.float32), np.array([2.0, 4.0, -0.5], np.float32)
    a, b = torch.tensor(a0, requires_grad=True), torch.tensor(b0, requires_grad=True)
    y = {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[symbol]
    (y * y).sum().backward()
    out = {"+": a0 + b0, "-": a0 - b0, "*": a0 * b0, "/": a0 / b0}[symbol]
    da, db = {"+": (1, 1), "-": (1, -1), "*": (b0, a0), "/": (1 / b0, -a0 / b0 ** 2)}[symbol]
    np.testing.assert_allclose(a.grad.numpy(), 2 * out * da, rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), 2 * out * db, rtol=1e-6)

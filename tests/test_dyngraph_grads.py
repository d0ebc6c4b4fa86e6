"""dyngraph's gradients against finite differences, driven by the registry's examples.

Every differentiable op is run through the engine (``dyngraph.functions.OPS``,
the same ``apply`` the PyTorch surface uses) on each of its examples in
float64: first derivatives by ``backward()``, second derivatives by
``autograd.grad(..., create_graph=True)`` differentiated again.
"""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
from common import REGISTRY
from common.examples import materialize
from common.ops.tensor_list import KERNELS as LIST_KERNELS
from dyngraph.functions import OPS
from tests.gradcheck import cotangents, numeric_grad, results, weighted

CASES = [(name, k) for name, op in sorted(REGISTRY.items()) if op.differentiable
         and name not in LIST_KERNELS   # static-engine lists of arrays: no dyngraph tensors
         for k in range(len(op.examples))]


def _setup(name, k, seed=0):
    """The example's arrays, attrs, and which inputs are float and differentiable."""
    op = REGISTRY[name]
    args, attrs = materialize(op.examples[k], np.random.default_rng(seed))
    args = [np.array(a) for a in args]
    wrt = [i for i, a in enumerate(args) if a.dtype == np.float64 and op.input_differentiable(i)]
    return op, args, attrs, wrt


def _run(op, arrays, attrs, wrt):
    tensors = [torch.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
    return tensors, getattr(OPS, op.fname)(*tensors, **attrs)


def _loss(op, out, gs):
    """sum_k <g_k, out_k> over the (first, or every float) result(s) as a dyngraph scalar."""
    terms = [(o * torch.tensor(g)).sum() for o, g in zip(results(op, out), gs) if g is not None]
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total


def _first(op, out):
    return results(op, out)[0]


def _value(t) -> np.ndarray:
    return np.zeros(()) if t is None else t.detach().numpy()


@pytest.mark.parametrize("name,k", CASES)
def test_backward_matches_finite_differences(name, k):
    op, args, attrs, wrt = _setup(name, k)
    tensors, out = _run(op, args, attrs, wrt)
    if _first(op, out).dtype != torch.float64 or not wrt:
        pytest.skip("finite differences need a float64 result and a float input")
    _, gs = cotangents(op, [o.detach().numpy() for o in results(op, out)], np.random.default_rng(1))
    _loss(op, out, gs).backward()
    for i in wrt:
        numeric = numeric_grad(lambda: weighted(gs, results(op, op.impl(*args, **attrs))), args[i])
        analytic = tensors[i].grad
        assert analytic is None or analytic.shape == tensors[i].shape
        np.testing.assert_allclose(_value(analytic) + np.zeros_like(numeric), numeric,
                                   rtol=1e-5, atol=1e-6, err_msg=f"{name} example {k} input {i}")


def _first_grads(op, arrays, attrs, wrt, gs, create_graph):
    tensors, out = _run(op, arrays, attrs, wrt)
    loss = _loss(op, out, gs)
    grads = torch.autograd.grad(loss, [tensors[i] for i in wrt], create_graph=create_graph,
                                allow_unused=True)
    return tensors, grads


@pytest.mark.parametrize("name,k", CASES)
def test_second_derivatives_match_finite_differences(name, k):
    """d/dx of <grad(x), v>, by create_graph, against differences of first gradients."""
    op, args, attrs, wrt = _setup(name, k)
    tensors, out = _run(op, args, attrs, wrt)
    if _first(op, out).dtype != torch.float64 or not wrt:
        pytest.skip("finite differences need a float64 result and a float input")
    if any(isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in op.examples[k].args):
        pytest.skip("literal inputs sit on ties, where the first derivative jumps")
    rng = np.random.default_rng(2)
    _, g = cotangents(op, [o.detach().numpy() for o in results(op, out)], rng)
    vs = [rng.standard_normal(args[i].shape) for i in wrt]
    tensors, grads = _first_grads(op, args, attrs, wrt, g, create_graph=True)
    inner = [(gr * torch.tensor(v)).sum() for gr, v in zip(grads, vs) if gr is not None]
    total = inner[0]
    for term in inner[1:]:
        total = total + term
    if total.requires_grad:
        second = torch.autograd.grad(total, [tensors[i] for i in wrt], allow_unused=True)
    else:
        second = [None] * len(wrt)

    def h():
        _, gs = _first_grads(op, args, attrs, wrt, g, create_graph=False)
        return sum(float(np.sum(_value(gr) * v)) for gr, v in zip(gs, vs))

    for j, i in enumerate(wrt):
        numeric = numeric_grad(h, args[i], eps=1e-5)
        np.testing.assert_allclose(_value(second[j]) + np.zeros_like(numeric), numeric,
                                   rtol=1e-4, atol=1e-5, err_msg=f"{name} example {k} input {i}")


def test_every_differentiable_op_is_checked():
    checked = {name for name, _ in CASES}
    assert checked == {n for n, op in REGISTRY.items() if op.differentiable and n not in LIST_KERNELS}


# --- hand-derived results -------------------------------------------------------------


def test_seed_graph_by_hand():
    """y = (x + w) * (w + 1): dy/dw = (w + 1) + (x + w) = 5, dy/dx = w + 1 = 2 at w=1, x=2."""
    w = torch.tensor([1.], requires_grad=True)
    x = torch.tensor([2.], requires_grad=True)
    y = torch.mul(torch.add(w, x), torch.add(w, 1))
    y.backward()
    assert w.grad.tolist() == [5.0] and x.grad.tolist() == [2.0]


def test_chain_by_hand():
    """y = (x + 2) * 3: dy/dx = 3; z = x**3: dz/dx = 3x^2, d2z/dx2 = 6x."""
    x = torch.tensor([2.0], requires_grad=True)
    ((x + 2) * 3).backward()
    assert x.grad.tolist() == [3.0]
    x = torch.tensor(2.0, requires_grad=True)
    (dz,) = torch.autograd.grad(x ** 3, x, create_graph=True)
    (d2z,) = torch.autograd.grad(dz, x, create_graph=True)
    (d3z,) = torch.autograd.grad(d2z, x)
    assert (dz.item(), d2z.item(), d3z.item()) == (12.0, 12.0, 6.0)


def test_backward_with_create_graph_gives_differentiable_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x * x).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None
    np.testing.assert_allclose(x.grad.detach().numpy(), [3.0, 12.0])
    g = x.grad
    x.grad = None
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


def test_rnn_like_loop_matches_unrolled_formula():
    """h <- tanh(w * h + x_t) over a sequence: gradient equals the hand-unrolled chain rule."""
    xs = [0.5, -0.3, 0.8]
    w = torch.tensor(0.7, requires_grad=True)
    h = torch.tensor(0.0)
    for x in xs:
        h = torch.tanh(w * h + x)
    h.backward()
    hv, dh_dw, wv = 0.0, 0.0, 0.7
    for x in xs:
        new = np.tanh(wv * hv + x)
        dh_dw = (1 - new ** 2) * (hv + wv * dh_dw)
        hv = new
    assert w.grad.item() == pytest.approx(dh_dw, rel=1e-6)

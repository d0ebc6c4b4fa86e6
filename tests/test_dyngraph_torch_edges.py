"""dyngraph's answers where it used to differ from torch silently (issue 28): broadcasting in
``cosine_similarity``, ``embedding(max_norm=)``, tensor bounds of ``clamp``, gradients at zeros,
kinks and NaN. The expected values are torch 2.13's, recorded as literals."""
from __future__ import annotations

import math

import numpy as np

import dyngraph as torch
import dyngraph.nn.functional as F

NAN, INF = float("nan"), float("inf")


def _grads(f, *values):
    """``f``'s output and the gradients of its sum, at float64 leaves holding ``values``."""
    xs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    y = f(*xs)
    y.sum().backward()
    return y.tolist(), [x.grad.tolist() for x in xs]


def _same(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-6, atol=1e-12)


def test_cosine_similarity_norms_along_the_broadcast_dim():
    a = torch.tensor([[1., 2, 3, 4, 5]]).T
    c = torch.tensor([[1., 0, 2, 1, 1]])
    _same(F.cosine_similarity(a, c, dim=-2).tolist(), [0.904534, 0.0, 0.904534, 0.904534, 0.904534])


def test_clamp_with_tensor_bounds_gives_the_bound_its_gradient():
    x = torch.tensor([[0.1, 0.5, -0.3], [1.0, -2.0, 0.2]], requires_grad=True)
    b = torch.tensor([[0.0], [0.3]], requires_grad=True)
    y = torch.clamp_min(x, b)
    (y * torch.tensor([[1., 2, 3], [4, 5, 6]])).sum().backward()
    _same(y.tolist(), [[0.1, 0.5, 0.0], [1.0, 0.3, 0.3]])
    assert x.grad.tolist() == [[1., 2., 0.], [4., 0., 0.]]
    assert b.grad.tolist() == [[3.], [11.]]
    x.grad = None
    lo, hi = torch.tensor([-0.2, 0., 0.], requires_grad=True), torch.tensor(0.4, requires_grad=True)
    y = torch.clamp(x, min=lo, max=hi)
    y.sum().backward()
    _same(y.tolist(), [[0.1, 0.4, 0.0], [0.4, 0.0, 0.2]])
    assert x.grad.tolist() == [[1., 0., 0.], [0., 0., 1.]]
    assert lo.grad.tolist() == [0., 1., 1.] and hi.grad.tolist() == 2.0
    x.grad = None
    torch.clamp_max(x, torch.tensor([[0.3], [0.0]])).sum().backward()
    assert x.grad.tolist() == [[1., 0., 1.], [0., 1., 0.]]


def test_elu_gradient_is_finite_for_large_inputs():
    assert _grads(F.elu, [1000., 0., -1.]) == ([1000.0, 0.0, -0.6321205588285577],
                                                [[1.0, 1.0, 0.36787944117144233]])


def test_hardtanh_and_relu6_pass_no_gradient_at_their_bounds_and_x_s_at_nan():
    y, (g,) = _grads(F.hardtanh, [-1., 1., NAN, 0.5])
    assert y[:2] == [-1.0, 1.0] and math.isnan(y[2]) and g == [0.0, 0.0, 1.0, 1.0]
    y, (g,) = _grads(F.relu6, [0., 6., NAN, 7.])
    assert g == [0.0, 0.0, 1.0, 0.0]
    assert _grads(lambda x: torch.clamp(x, -1, 1), [-1., 1.])[1] == [[1.0, 1.0]]  # clamp: inclusive


def test_cumprod_gradient_is_exact_at_zeros():
    assert _grads(lambda x: torch.cumprod(x, 0), [2., 0., 3., 0., 5.])[1] == [[1., 8., 0., 0., 0.]]
    x = torch.tensor([[0.5, 0.0, 2.0], [0.0, 3.0, 1.0]], dtype=torch.float64, requires_grad=True)
    torch.cumprod(x, 1).backward(torch.tensor([[1., 2., 3.], [0.5, 1., 2.]], dtype=torch.float64))
    assert x.grad.tolist() == [[1.0, 4.0, 0.0], [9.5, 0.0, 0.0]]


def test_running_totals_and_clone_of_a_0d_tensor_keep_its_shape():
    x = torch.tensor(3.0, requires_grad=True)
    for f in (lambda t: torch.cumsum(t, 0), lambda t: torch.cumprod(t, -1), torch.clone):
        y = f(x)
        assert y.shape == torch.Size([]) and y.item() == 3.0
        y.backward()
    assert x.grad.item() == 3.0
    try:
        torch.cumsum(x, 1)
    except IndexError as e:
        assert str(e) == "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
    else:
        raise AssertionError("cumsum(dim=1) of a 0-d tensor must raise")


def test_embedding_max_norm_renormalises_the_looked_up_rows_in_the_weight():
    w = torch.tensor([[3., 4.], [0.3, 0.4], [1., -2.], [6., 8.]], requires_grad=True)
    y = F.embedding(torch.tensor([[0, 2], [0, 1]]), w, max_norm=1.0)
    _same(y.tolist(), [[[0.6, 0.8], [0.4472136, -0.8944271]], [[0.6, 0.8], [0.3, 0.4]]])
    _same(w.tolist(), [[0.6, 0.8], [0.3, 0.4], [0.4472136, -0.8944271], [6.0, 8.0]])  # row 3 unseen
    assert w._version == 1
    y.sum().backward()
    assert w.grad.tolist() == [[2.0, 2.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    w2 = torch.tensor([[3., 4.], [1., 1.]])
    _same(F.embedding(torch.tensor([1, 0]), w2, max_norm=2.0, norm_type=1.0).tolist(),
          [[1.0, 1.0], [0.8571428, 1.1428571]])
    e = torch.nn.Embedding(3, 2, max_norm=0.5)
    assert repr(e) == "Embedding(3, 2, max_norm=0.5)"
    e(torch.tensor([0, 1, 2]))
    assert (e.weight.norm(dim=1) <= 0.5 + 1e-6).all()


def test_sign_digamma_and_xlogy_at_nan_and_zero_are_torchs():
    assert torch.sign(torch.tensor([NAN, 0., -0., -2.])).tolist() == [0.0, 0.0, 0.0, -1.0]
    assert torch.tensor([NAN]).sign().tolist() == [0.0]
    y = torch.digamma(torch.tensor([0., -0., -1., 1.], dtype=torch.float64))
    assert y.tolist()[:2] == [-INF, INF] and math.isnan(y.tolist()[2])
    _same(y.tolist()[3], -0.5772156649015329)
    z = torch.xlogy(torch.tensor([0., 0., 2.]), torch.tensor([NAN, 3., NAN]))
    assert math.isnan(z.tolist()[0]) and z.tolist()[1] == 0.0 and math.isnan(z.tolist()[2])
    assert torch.xlogy(torch.tensor([0., 1.]), 2.0).tolist() == [0.0, 0.6931471824645996]


def test_div_rounding_modes_rsub_alpha_and_softmax_dtype():
    a, b = torch.tensor([-7., 7., 5.5]), torch.tensor([2., -2., 0.])
    assert torch.div(a, b, rounding_mode="trunc").tolist() == [-3., -3., INF]
    assert torch.div(a, b, rounding_mode="floor").tolist() == [-4., -4., INF]
    assert a.div(2.0, rounding_mode="floor").tolist() == [-4., 3., 2.]
    q = torch.div(torch.tensor([-7, 7]), torch.tensor([2, -2]), rounding_mode="trunc")
    assert q.tolist() == [-3, -3] and q.dtype == torch.int64
    assert torch.div(torch.tensor([-7, 7]), 2, rounding_mode="floor").tolist() == [-4, 3]
    for mode, error, message in [
            ("x", RuntimeError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                                "but found 'x'"),
            ("trunc", RuntimeError, "ZeroDivisionError")]:
        try:
            torch.div(torch.tensor([1]), torch.tensor([0]), rounding_mode=mode)
        except error as e:
            assert str(e) == message
        else:
            raise AssertionError(mode)
    assert torch.rsub(a, b, alpha=2).tolist() == [16., -16., -11.]
    assert torch.rsub(a, 3., alpha=2).tolist() == [17., -11., -8.]
    assert torch.add(1.0, a, alpha=2).tolist() == [-13., 15., 12.]
    assert torch.softmax(a, 0, dtype=torch.float64).dtype == torch.float64
    assert a.softmax(0, dtype=torch.float64).dtype == torch.float64
    assert a.log_softmax(dim=0, dtype=torch.float64).dtype == torch.float64


def test_memory_formats_and_layout_are_accepted_with_torchs_checks():
    x = torch.ones(2, 3, 4, 5)
    assert repr(torch.channels_last) == "torch.channels_last" and repr(torch.strided) == "torch.strided"
    for fmt in (torch.channels_last, torch.contiguous_format, torch.preserve_format):
        assert x.to(memory_format=fmt).shape == x.shape
        assert x.contiguous(memory_format=fmt).shape == x.shape
        assert x.clone(memory_format=fmt).tolist() == x.tolist()
        assert x.double(memory_format=fmt).dtype == torch.float64
    assert x.to(torch.float64, memory_format=torch.preserve_format).dtype == torch.float64
    for call, error, message in [
            (lambda: torch.ones(3).to(memory_format=torch.channels_last), RuntimeError,
             "required rank 4 tensor to use channels_last format"),
            (lambda: torch.ones(3).contiguous(memory_format=torch.strided), TypeError,
             "contiguous(): argument 'memory_format' must be torch.memory_format, not torch.layout"),
            (lambda: torch.ones(3).float(memory_format=3), TypeError,
             "float(): argument 'memory_format' must be torch.memory_format, not int")]:
        try:
            call()
        except error as e:
            assert str(e) == message
        else:
            raise AssertionError(message)


def test_fill_and_zero_cut_the_gradient_of_what_they_overwrite():
    x = torch.tensor([1., 2.], requires_grad=True)
    for f, name, value in [(lambda t: t.zero_(), "ZeroBackward0", 0.0),
                           (lambda t: t.fill_(3.0), "FillBackward0", 3.0)]:
        y = f(x.clone())
        assert y.requires_grad and type(y.grad_fn).__name__ == name and y.tolist() == [value] * 2
        (y * torch.tensor([3., 4.])).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0]
        x.grad = None


def test_reducing_a_0d_tensor_along_dim_0_gives_a_0d_gradient():
    for f in (lambda t: torch.max(t, 0)[0], lambda t: torch.prod(t, 0), lambda t: torch.amin(t, 0),
              lambda t: torch.sum(t, dim=-1), lambda t: torch.logsumexp(t, 0)):
        x = torch.tensor(2.0, requires_grad=True)
        f(x).backward()
        assert x.grad.shape == torch.Size([]) and x.grad.item() == 1.0


def test_to_takes_non_blocking_and_copy_positionally():
    x = torch.ones(2, 3)
    y = x.to("cpu", torch.float32, False, True)
    assert y is not x and y.tolist() == x.tolist()
    assert x.to("cpu", torch.float32, True, False) is x
    assert x.to("cpu", torch.float64, True, True, memory_format=torch.preserve_format).dtype == \
        torch.float64

"""PyTorch's tensor surface: devices, dtypes, operators, math, reductions, selection.

Expected values were produced by PyTorch 2 (CPU) running the same expressions.
"""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch


def same(t, expected, dtype=None):
    np.testing.assert_allclose(np.asarray(t.detach().numpy(), dtype=float), expected, rtol=1e-3,
                               atol=1e-4)  # PyTorch's printed precision
    if dtype is not None:
        assert t.dtype == dtype


# --- devices and conversions -------------------------------------------------------------------

def test_the_cpu_is_the_device_and_gpus_fail_loudly():
    x = torch.tensor([1.0])
    assert x.device == torch.device("cpu") and str(x.device) == "cpu"
    assert repr(torch.device("cuda:0")) == "device(type='cuda', index=0)"
    assert x.cpu() is x and x.to("cpu") is x and x.to(torch.device("cpu")) is x
    assert not torch.cuda.is_available() and x.is_cuda is False
    for attempt in (x.cuda, lambda: x.to("cuda"), lambda: torch.zeros(2, device="cuda"),
                    lambda: torch.randn(2, device="cuda:0"), lambda: torch.nn.Linear(2, 2).cuda()):
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            attempt()
    with pytest.raises(RuntimeError, match="device type at start of device string: gpu"):
        torch.device("gpu")


def test_type_item_tolist_and_casts():
    assert torch.tensor([1.0]).type() == "torch.FloatTensor"
    assert torch.tensor([1]).type(torch.float64).dtype == torch.float64
    assert torch.tensor([1]).type("torch.DoubleTensor").dtype == torch.float64
    assert torch.tensor(3.5).item() == 3.5 and torch.tensor([[1, 2]]).tolist() == [[1, 2]]
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        torch.tensor([1.0, 2.0]).item()
    assert torch.tensor([1.7]).long().tolist() == [1] and torch.tensor([1.7]).int().dtype == torch.int32
    assert torch.tensor([0.0, 2.0]).bool().tolist() == [False, True]
    assert torch.tensor([1]).double().dtype == torch.float64
    assert torch.tensor([1.0]).to(torch.device("cpu"), torch.float64).dtype == torch.float64
    assert torch.tensor([1.0]).to(torch.tensor([1])).dtype == torch.int64


def test_dtype_promotion_as_pytorch():
    assert (torch.tensor([1, 2]) + 1.5).dtype == torch.float32
    assert (torch.tensor([1, 2], dtype=torch.int32) * 2).dtype == torch.int32
    assert (torch.tensor([1, 2]) * torch.tensor(2.5, dtype=torch.float64)).dtype == torch.float64
    assert (torch.tensor([1, 2]) / 2).dtype == torch.float32
    assert (torch.tensor([True]) + torch.tensor([True])).tolist() == [True]


# --- operators --------------------------------------------------------------------------------

def test_floor_division_and_remainders_follow_python_and_c():
    a, b = torch.tensor([-7, 7, 5]), torch.tensor([2, -2, 3])
    assert (a // b).tolist() == [-4, -4, 1] and (a % b).tolist() == [1, -1, 2]
    assert torch.fmod(a, b).tolist() == [-1, 1, 2] and torch.remainder(a, b).tolist() == [1, -1, 2]
    assert (-7 // b).tolist() == [-4, 3, -3] and (7 % b).tolist() == [1, -1, 1]
    f = torch.tensor([-7.5, 7.5])
    same(f // 2, [-4, 3]), same(f % 2, [0.5, 1.5]), same(torch.fmod(f, 2), [-1.5, 1.5])
    same(f % -2, [-1.5, -0.5]), same(2 ** f, [5.5243e-03, 1.8102e+02])
    c = a.clone()
    c //= 2
    assert c.tolist() == [-4, 3, 2]
    c %= 2
    assert c.tolist() == [0, 1, 0]


def test_round_is_half_to_even():
    same(torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5])), [0, 2, 2, -0.0, -2])
    same(torch.round(torch.tensor([1.2345]), decimals=2), [1.23])
    assert torch.tensor([3, -2]).floor().dtype == torch.int64  # integers pass through


@pytest.mark.parametrize("name,node", [
    ("sin", "SinBackward0"), ("cos", "CosBackward0"), ("tan", "TanBackward0"),
    ("rsqrt", "RsqrtBackward0"), ("log1p", "Log1PBackward0"), ("expm1", "Expm1Backward0"),
    ("floor", "FloorBackward0"), ("ceil", "CeilBackward0"), ("round", "RoundBackward0"),
    ("square", "PowBackward0"), ("trunc", "TruncBackward0"), ("frac", "FracBackward0")])
def test_unary_math_names_its_backward_as_pytorch(name, node):
    x = torch.tensor([[1.5, 2.5, 0.5]], requires_grad=True)
    y = getattr(torch, name)(x)
    assert y.grad_fn.name() == node and y.dtype == torch.float32


def test_in_place_forms_record_and_refuse_leaves():
    x = torch.tensor([1.0, -2.0], requires_grad=True) * 1
    x.relu_()
    assert x.grad_fn.name() == "ReluBackward0"
    x.clamp_(0, 0.5)
    assert x.grad_fn.name() == "ClampBackward1" and x.tolist() == [0.5, 0.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an "
                                           "in-place operation."):
        torch.tensor([1.0], requires_grad=True).relu_()
    q = torch.tensor([4.0, 9.0])
    assert q.sqrt_() is q and q.tolist() == [2.0, 3.0]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output "
                                           "type Long"):
        torch.tensor([4, 9]).sqrt_()


# --- reductions --------------------------------------------------------------------------------

Y = [[1., 5., 3.], [4., 2., 6.]]


def test_max_min_with_dim_return_values_and_indices():
    y = torch.tensor(Y)
    values, indices = torch.max(y, 1)
    same(values, [5, 6]), same(indices, [1, 2])
    r = torch.min(y, dim=0, keepdim=True)
    same(r.values, [[1, 2, 3]]) and same(r.indices, [[0, 1, 0]])
    assert repr(torch.max(y, 1)).startswith("torch.return_types.max(\nvalues=tensor([5., 6.]),")


def test_topk_and_sort():
    y = torch.tensor(Y)
    t = torch.topk(y, 2)
    same(t.values, [[5, 3], [6, 4]]), same(t.indices, [[1, 2], [2, 0]])
    t = torch.topk(y, 1, dim=0, largest=False)
    same(t.values, [[1, 2, 3]]), same(t.indices, [[0, 1, 0]])
    s = torch.sort(y, descending=True)
    same(s.values, [[5, 3, 1], [6, 4, 2]]), same(s.indices, [[1, 2, 0], [2, 0, 1]])
    assert s.indices.dtype == torch.int64
    same(torch.argsort(y, dim=0), [[0, 1, 0], [1, 0, 1]])
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        torch.topk(y, 4)


def test_reductions_match_pytorch():
    y = torch.tensor(Y)
    same(y.prod(), 720), same(y.prod(1), [15, 48]), same(y.cumsum(1), [[1, 6, 9], [4, 6, 12]])
    assert torch.tensor([1, 2, 3]).cumsum(0).tolist() == [1, 3, 6]
    same(y.logsumexp(1), [5.1429, 6.1429]), same(y.std(), 1.8708), same(y.var(1), [4, 4])
    same(y.std(0, unbiased=False), [1.5, 1.5, 1.5]), same(y.norm(), 9.5394)
    same(y.norm(dim=1), [5.9161, 7.4833]), same(y.norm(p=1), 21)
    assert torch.tensor([True, False]).any().item() and not torch.tensor([True, False]).all().item()
    assert (y > 2).all(1).tolist() == [False, False]
    assert torch.equal(y, y.clone()) and torch.allclose(y, y + 1e-9)
    assert not torch.equal(y, y[:1])


# --- selection ------------------------------------------------------------------------------------

def test_gather_scatter_index_select_masked_fill():
    y = torch.tensor(Y)
    same(torch.gather(y, 1, torch.tensor([[2, 0], [1, 1]])), [[3, 1], [2, 2]])
    same(torch.index_select(y, 1, torch.tensor([2, 0])), [[3, 1], [6, 4]])
    same(y.masked_fill(y > 3, 0.), [[1, 0, 3], [0, 2, 0]])
    same(torch.scatter(torch.zeros(2, 3), 1, torch.tensor([[2], [0]]), 7.), [[0, 0, 7], [7, 0, 0]])
    same(torch.zeros(2, 3).scatter_add(0, torch.tensor([[1, 0, 1]]), torch.ones(1, 3)),
         [[0, 1, 0], [1, 0, 1]])
    assert torch.tensor([1, 2, 3]).masked_fill(torch.tensor([True, False, True]), 2.7).tolist() \
        == [2, 2, 2]
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
        torch.gather(y, 1, torch.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks"):
        y.masked_fill(torch.tensor([1, 0, 1]), 0.0)


def test_cutting_and_joining():
    y = torch.tensor(Y)
    a, b = torch.split(y, 2, 1)
    same(a, [[1, 5], [4, 2]]), same(b, [[3], [6]])
    assert [t.shape[1] for t in torch.chunk(y, 3, 1)] == [1, 1, 1]
    same(torch.unbind(y)[1], [4, 2, 6])
    assert y.unflatten(1, (3, 1)).shape == (2, 3, 1) and y.repeat(2, 2).shape == (4, 6)
    same(y.narrow(1, 1, 2), [[5, 3], [2, 6]]), same(y.roll(1, 1), [[3, 1, 5], [6, 4, 2]])
    same(torch.roll(y, 1), [[6, 1, 5], [3, 4, 2]]), same(y.flip(1), [[3, 5, 1], [6, 2, 4]])
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly "
                                           "to 5"):
        torch.arange(5).split([2, 2])


def test_einsum_bmm_and_batched_matmul():
    y = torch.tensor(Y)
    same(torch.einsum("ij,kj->ik", y, y), [[35, 32], [32, 56]])
    same(torch.einsum("ii", torch.eye(3)), 3), same(torch.einsum("i,i", y[0], y[1]), 32)
    assert torch.einsum("...ij->...ji", torch.zeros(4, 1, 3, 2)).shape == (4, 1, 2, 3)
    m, n = torch.randn(4, 2, 3), torch.randn(4, 3, 5)
    assert torch.bmm(m, n).shape == (4, 2, 5) and (m @ n[0]).shape == (4, 2, 5)
    with pytest.raises(RuntimeError, match="batch2 must be a 3D tensor"):
        torch.bmm(m, n[0])


def test_indexing_and_index_assignment():
    z = torch.arange(24).reshape(2, 3, 4)
    assert z[..., 1].tolist() == [[1, 5, 9], [13, 17, 21]] and z[None, 0, :, ::2].shape == (1, 3, 2)
    assert z[z > 20].tolist() == [21, 22, 23] and z[0, [0, 2]].shape == (2, 4)
    with pytest.raises(ValueError, match="step must be greater than zero"):
        z[::-1]
    w = torch.zeros(2, 3)
    w[0] = torch.tensor([1., 2., 3.])
    w[:, 1] = 9
    w[w > 5] = -1
    w[..., 2] = 4
    same(w, [[1, -1, 4], [0, -1, 4]])


@pytest.mark.parametrize("fn,node,grad", [
    (lambda t: t.sin(), "SinBackward0", [-0.4161, -0.99]),
    (lambda t: t.prod(), "ProdBackward0", [3.0, 2.0]),
    (lambda t: t.cumsum(0), "CumsumBackward0", [2.0, 1.0]),
    (lambda t: t.logsumexp(0), "LogsumexpBackward0", [0.2689, 0.7311]),
    (lambda t: t.std(), "StdBackward0", [-0.7071, 0.7071]),
    (lambda t: t.norm(), "LinalgVectorNormBackward0", [0.5547, 0.8321]),
    (lambda t: torch.topk(t, 1).values, "TopkBackward0", [0.0, 1.0]),
    (lambda t: torch.sort(t).values, "SortBackward0", [1.0, 1.0]),
    (lambda t: t.gather(0, torch.tensor([1, 1])), "GatherBackward0", [0.0, 2.0]),
    (lambda t: t.masked_fill(t > 2, 0.), "MaskedFillBackward0", [1.0, 0.0]),
    (lambda t: t.repeat(2), "RepeatBackward0", [2.0, 2.0]),
    (lambda t: t.roll(1), "RollBackward0", [1.0, 1.0]),
    (lambda t: torch.fmod(t, 1.5), "FmodBackward0", [1.0, 1.0]),
    (lambda t: t.square(), "PowBackward0", [4.0, 6.0]),
    (lambda t: t.rsqrt(), "RsqrtBackward0", [-0.1768, -0.0962])])
def test_gradients_and_node_names_match_pytorch(fn, node, grad):
    p = torch.tensor([2.0, 3.0], requires_grad=True)
    out = fn(p)
    assert out.grad_fn.name() == node
    out.sum().backward()
    same(p.grad, grad)


def test_creation_defaults():
    assert torch.arange(5).dtype == torch.int64 and torch.arange(1., 2., 0.25).dtype == torch.float32
    assert torch.full((2,), 3).dtype == torch.int64 and torch.full((2,), 3.).dtype == torch.float32
    assert torch.zeros_like(torch.ones(2), dtype=torch.int64).dtype == torch.int64
    assert torch.from_numpy(np.zeros(2, np.float64)).dtype == torch.float64
    assert torch.numel(torch.zeros(2, 3)) == 6


def test_norm_and_std_of_zeros_have_zero_gradients_as_pytorch():
    for fn in (lambda t: t.norm(), lambda t: t.std(), lambda t: t.norm(dim=1).sum()):
        x = torch.zeros(2, 3, requires_grad=True)
        fn(x).backward()
        assert x.grad.tolist() == [[0.0] * 3] * 2


def test_device_selection_boilerplate_picks_the_cpu():
    dev = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
    dev2 = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(2, 1).to(dev)
    x = torch.ones(3, 2).to(dev2)
    assert model(x).device == torch.device("cpu") and str(dev2) == "cpu"


def test_indexing_with_a_0d_integer_tensor_is_a_view_as_in_pytorch():
    """``x[torch.tensor(1)]`` picks like ``x[1]``: a view (PyTorch 2.13: ``y._base is x``, and
    an in-place change shows in ``x``); a 1-d index tensor gathers a copy."""
    import dyngraph as torch
    x = torch.zeros(3, 2)
    y = x[torch.tensor(1)]
    y.add_(1)
    assert x.sum().item() == 2.0 and x[1].tolist() == [1.0, 1.0]
    z = x[torch.tensor([0])]
    z.add_(5)
    assert x.sum().item() == 2.0

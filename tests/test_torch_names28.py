"""Issue #28's torch names and refusals, against values and messages recorded from torch 2.13.

The op_db fixture (tests/test_opdb.py) replays torch's own samples; these cases cover what those
samples do not: messages, kinks (zeros, NaN, ties), keyword arguments, 0-d and empty tensors.
Every literal below was printed by torch 2.13.0 (CPU) for the same call.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import dyngraph as torch

NAN = float("nan")


def raises(exc: type, message: str, f) -> None:
    with pytest.raises(exc) as info:
        f()
    assert str(info.value).startswith(message), str(info.value)


# --- refusals of issue #28, now answered as torch answers -----------------------------------------


def test_diag_and_diagonal_off_the_main_diagonal():
    x = torch.arange(12.).reshape(3, 4)
    assert torch.diag(x, 1).tolist() == [1.0, 6.0, 11.0]
    assert torch.diag(x, -2).tolist() == [8.0]
    assert torch.diag(torch.tensor([1., 2.]), -1).tolist() == [[0., 0., 0.], [1., 0., 0.],
                                                               [0., 2., 0.]]
    assert torch.diagonal(torch.arange(24.).reshape(2, 3, 4), 1, 2, 0).tolist() == [
        [12.0], [16.0], [20.0]]
    a = torch.arange(6., requires_grad=True)
    torch.diagonal(a.reshape(2, 3), -1).sum().backward()
    assert a.grad.tolist() == [0., 0., 0., 1., 0., 0.]
    assert torch.diag_embed(torch.tensor([[1., 2.]]), 1, 0, 2).tolist() == [
        [[0., 1., 0.]], [[0., 0., 2.]], [[0., 0., 0.]]]


def test_squeeze_with_a_tuple_of_dims():
    assert tuple(torch.squeeze(torch.zeros(1, 2, 1, 3), (0, 1, -2)).shape) == (2, 3)
    raises(RuntimeError, "dim 0 appears multiple times in the list of dims",
           lambda: torch.squeeze(torch.zeros(1, 2), (0, -2)))


def test_rounded_division_has_a_zero_gradient_even_at_a_zero_divisor():
    a = torch.tensor([1., -3.], requires_grad=True)
    b = torch.tensor([0., 2.], requires_grad=True)
    with np.errstate(divide="ignore"):
        y = torch.div(a, b, rounding_mode="floor")
    y.sum().backward()
    assert y.tolist() == [math.inf, -2.0]
    assert a.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0, 0.0]


def test_fill_is_out_of_place_with_a_zero_gradient():
    a = torch.tensor([1., 2.], requires_grad=True)
    y = torch.fill(a * 2, 5.)
    y.sum().backward()
    assert y.tolist() == [5.0, 5.0] and a.grad.tolist() == [0.0, 0.0]
    raises(RuntimeError, "fill_ only supports 0-dimension value tensor but got tensor with 1 "
           "dimensions.", lambda: torch.fill(torch.zeros(2), torch.tensor([1.])))


def test_var_mean_takes_unbiased_positionally():
    var, mean = torch.var_mean(torch.tensor([1., 2., 4.]), False)
    assert (round(var.item(), 4), round(mean.item(), 4)) == (1.5556, 2.3333)


def test_zero_dim_tensors_reduce_over_dim_0_and_minus_1():
    s = torch.tensor(2.)
    assert tuple(torch.sum(s, 0).shape) == () and tuple(torch.amax(s, -1).shape) == ()
    assert torch.logsumexp(s, (0,)).item() == 2.0
    assert [v.tolist() for v in torch.topk(s, 1)] == [2.0, 0]
    raises(IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
           lambda: torch.mean(s, 1))
    raises(RuntimeError, "dim 0 appears multiple times in the list of dims",
           lambda: torch.sum(s, (0, -1)))
    raises(RuntimeError, "index_select(): Index to scalar can have only 1 value, got 2 value(s)",
           lambda: torch.index_select(s, 0, torch.tensor([0, 0])))
    raises(IndexError, "index out of range in self",
           lambda: torch.index_select(s, 0, torch.tensor([1])))


def test_empty_tensors():
    with np.errstate(divide="ignore"):
        assert torch.logsumexp(torch.zeros(0, 2), 0).tolist() == [-math.inf, -math.inf]
    assert tuple(torch.softmax(torch.zeros(2, 0), 1).shape) == (2, 0)
    assert tuple(torch.cat([torch.zeros(0), torch.ones(2, 2)], 1).shape) == (2, 2)


def test_gather_and_scatter_index_types_and_multiply():
    x = torch.arange(12.).reshape(3, 4)
    index = torch.tensor([[3], [0], [1]], dtype=torch.int32)
    assert torch.gather(x, 1, index).tolist() == [[3.0], [4.0], [9.0]]
    raises(RuntimeError, "gather(): Expected dtype int32/int64 for index",
           lambda: torch.gather(x, 1, torch.tensor([[3]], dtype=torch.int16)))
    out = torch.scatter(torch.ones(2, 2), 0, torch.tensor([[1, 1]]), torch.tensor([[3., 4.]]),
                        reduce="multiply")
    assert out.tolist() == [[1.0, 1.0], [3.0, 4.0]]
    raises(RuntimeError, "reduce argument must be either add or multiply.",
           lambda: torch.scatter(torch.ones(2), 0, torch.tensor([1]), torch.tensor([3.]),
                                 reduce="max"))


@pytest.mark.parametrize("p, value, grad", [
    (-1, 0.3871, [0.01665, -0.00937, 0.59938]),
    (-math.inf, 0.5, [0.0, 0.0, 1.0]),
    (0.5, 19.70612, [2.56295, -2.21958, 6.27792]),
    (0, 3.0, [0.0, 0.0, 0.0]),          # torch: no gradient at all (None); here zeros
])
def test_norm_takes_every_vector_p(p, value, grad):
    a = torch.tensor([3., -4., 0.5], requires_grad=True)
    y = torch.norm(a, p)
    y.backward()
    assert round(y.item(), 4) == round(value, 4)
    assert np.allclose(a.grad.tolist(), grad, atol=1e-5)


# --- new names ------------------------------------------------------------------------------------


def test_masked_reductions_use_each_ops_identity():
    x = torch.arange(12.).reshape(3, 4)
    mask = torch.tensor([[True] * 4, [False] * 4, [True, False, True, False]])
    assert torch.masked.sum(x, 1, mask=mask).tolist() == [6.0, 0.0, 18.0]
    assert np.allclose(torch.masked.mean(x, 1, mask=mask).tolist(), [1.5, NAN, 9.0],
                       equal_nan=True)
    assert torch.masked.amax(x, 1, mask=mask).tolist() == [3.0, -math.inf, 10.0]
    raises(IndexError, "_input_mask expected broadcastable mask (got mask dimensionality higher "
           "than of the input)",
           lambda: torch.masked.sum(torch.zeros(2), mask=torch.ones(1, 2, dtype=torch.bool)))


def test_order_statistics_at_nan_and_ties():
    values, indices = torch.median(torch.tensor([[3., NAN, 1.], [2., 5., 4.]]), 1)
    assert np.allclose(values.tolist(), [NAN, 4.0], equal_nan=True)
    assert indices.tolist() == [1, 2]
    assert torch.nanmedian(torch.tensor([3., NAN, 1., 2.])).item() == 2.0
    assert [v.tolist() for v in torch.mode(torch.tensor([3., 1., 2., 1., 3., 0.5]))] == [1.0, 3]
    values, indices = torch.cummax(torch.tensor([1., 3., 3., 2., NAN, 5.]), 0)
    assert np.allclose(values.tolist(), [1., 3., 3., 3., NAN, NAN], equal_nan=True)
    assert indices.tolist() == [0, 1, 2, 2, 4, 4]


def test_quantile():
    q = torch.quantile(torch.tensor([[1., 2., 3., 4.], [1., NAN, 3., 4.]]),
                       torch.tensor([0.25, 0.5]), dim=1, keepdim=True)
    assert np.allclose(q.tolist(), [[[1.75], [NAN]], [[2.5], [NAN]]], equal_nan=True)
    assert torch.quantile(torch.tensor([1., 2., 3., 4.]), torch.tensor([0.5, 1 / 6]),
                          interpolation="nearest").tolist() == [3.0, 1.0]
    raises(RuntimeError, "quantile() q must be in the range [0, 1] but got 1.5",
           lambda: torch.quantile(torch.tensor([1., 2.]), 1.5))


def test_histogram_with_edges_that_do_not_increase():
    hist, edges = torch.histogram(torch.tensor([0.5, 0.2, 0.1, 0.7]), torch.tensor([0., 1., 0.6]))
    assert hist.tolist() == [3.0, 0.0]
    assert np.allclose(edges.tolist(), [0.0, 1.0, 0.6])


def test_cov_with_importance_weights():
    c = torch.cov(torch.tensor([[0., 1., 2.], [2., 1., 0.5]]), correction=0,
                  aweights=torch.tensor([1., 2., 1.]))
    assert c.tolist() == [[0.5, -0.375], [-0.375, 0.296875]]


def test_scatter_reduce_gradients_as_torch_derives_them():
    a = torch.tensor([1., 0., 3., 2.], requires_grad=True)
    b = torch.tensor([2., 0., 5., 0., 4.], requires_grad=True)
    y = torch.scatter_reduce(a, 0, torch.tensor([0, 0, 1, 2, 2]), b, "prod")
    (y * torch.tensor([1., 2., 3., 4.])).sum().backward()
    assert y.tolist() == [0.0, 0.0, 0.0, 2.0]
    assert a.grad.tolist() == [0.0, 10.0, 0.0, 4.0]
    assert b.grad.tolist() == [0.0, 2.0, 0.0, 36.0, 0.0]
    a = torch.tensor([1., 5., 3.], requires_grad=True)
    b = torch.tensor([5., 2., 5.], requires_grad=True)
    y = torch.scatter_reduce(a, 0, torch.tensor([1, 0, 1]), b, "amax")   # a three-way tie
    (y * torch.tensor([1., 2., 3.])).sum().backward()
    assert y.tolist() == [2.0, 5.0, 3.0]
    assert np.allclose(a.grad.tolist(), [0.0, 2 / 3, 3.0])
    assert np.allclose(b.grad.tolist(), [2 / 3, 1.0, 2 / 3])
    assert torch.scatter_reduce(torch.ones(3), 0, torch.tensor([1, 1]), torch.tensor([3., 5.]),
                                "max").tolist() == [1.0, 5.0, 1.0]
    raises(RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin, got add",
           lambda: torch.scatter_reduce(torch.ones(3), 0, torch.tensor([1]), torch.tensor([3.]),
                                        "add"))


def test_shaping_values_and_messages():
    assert torch.rot90(torch.tensor([[1, 2], [3, 4]]), 1, (0, 1)).tolist() == [[2, 4], [1, 3]]
    assert [t.tolist() for t in torch.tensor_split(torch.arange(7), [1, 5, 3])] == [
        [0], [1, 2, 3, 4], [], [3, 4, 5, 6]]
    assert torch.combinations(torch.tensor([1, 2, 3]), 2, with_replacement=True).tolist() == [
        [1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]]
    assert torch.masked_scatter(torch.zeros(2, 2), torch.tensor([True, False]),
                                torch.tensor([1., 2., 3.])).tolist() == [[1.0, 0.0], [2.0, 0.0]]
    assert torch.tril_indices(3, 2, 0).tolist() == [[0, 1, 1, 2, 2], [0, 0, 1, 0, 1]]
    assert torch.constant_pad_nd(torch.arange(6.).reshape(2, 3), (-1, 1, 1, 0), 9.).tolist() == [
        [9.0, 9.0, 9.0], [1.0, 2.0, 9.0], [4.0, 5.0, 9.0]]
    assert torch.ones(2, 3).sum_to_size(1, 3).tolist() == [[2.0, 2.0, 2.0]]
    assert tuple(torch.broadcast_shapes((2, 1), (3,), (5, 1, 1))) == (5, 2, 3)
    for message, f in [
        ("torch.hsplit attempted to split along dimension 1, but the size of the dimension 5 is "
         "not divisible by the split_size 2!", lambda: torch.hsplit(torch.zeros(5, 5), 2)),
        ("expected rotation dims to be different, but got dim0 = 0 and dim1 = 0",
         lambda: torch.rot90(torch.zeros(2, 2), 1, (0, 0))),
        ("Number of elements of source < number of ones in mask",
         lambda: torch.masked_scatter(torch.zeros(2, 2), torch.tensor([True, True]),
                                      torch.tensor([1.]))),
        ("size {[2, 1, 3]} is not expandable to size {[2, 3]}.",
         lambda: torch.ones(2, 3).sum_to_size(2, 1, 3)),
        ("Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 "
         "had (3,); but expected shape should be broadcastable to [2]",
         lambda: torch.broadcast_shapes((2,), (3,))),
    ]:
        raises(RuntimeError, message, f)
    raises(IndexError, "out of range: tried to access index 3 on a tensor of 3 elements.",
           lambda: torch.take(torch.zeros(3), torch.tensor([3])))
    raises(IndexError, "select(): index 3 out of range for tensor of size [2, 3] at dimension 1",
           lambda: torch.select(torch.zeros(2, 3), 1, 3))
    raises(NotImplementedError, "\"tril_indices\" not implemented for 'Float'",
           lambda: torch.tril_indices(3, 2, dtype=torch.float32))


def test_randint_like_takes_torchs_keywords():
    out = torch.randint_like(torch.zeros(2, 3), 5, device="cpu", requires_grad=False)
    assert tuple(out.shape) == (2, 3) and out.dtype == torch.float32
    assert 0 <= out.min().item() and out.max().item() < 5

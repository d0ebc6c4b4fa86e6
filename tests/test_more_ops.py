"""The ops added for issue 28 ("the ops people call"), against PyTorch 2.13's answers.

Values, gradients (of a fixed weighted sum), result dtypes and ``grad_fn`` names come from
``tests/fixtures/torch_more_ops.json`` (recorded by ``tests/fixtures/record_torch_more_ops.py``
from the calls in ``tests/more_ops_cases.py``); the error messages below were copied from
PyTorch 2.13.
"""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import dyngraph as torch
from tests.more_ops_cases import CASES, make_inputs

F = torch.nn.functional
TORCH = json.loads((pathlib.Path(__file__).parent / "fixtures/torch_more_ops.json").read_text())


# float64 agrees to 1e-7 relative: PyTorch's own float64 kernels for hardsigmoid's and celu's
# gradients multiply by float32 constants (1/6, alpha), off by ~4e-8 from the exact value
TOLERANCE = {np.float32: (1e-4, 1e-5), np.float64: (1e-7, 1e-9)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("label", sorted(CASES))
def test_value_gradient_dtype_and_name_are_torchs(label, dtype):
    want = TORCH["cases"][label if dtype is np.float32 else f"{label}/float64"]
    rtol, atol = TOLERANCE[dtype]
    specs, call = CASES[label]
    xs = [torch.tensor(a, requires_grad=True) for a in make_inputs(specs, len(label), dtype)]
    y = call(torch, *xs)
    np.testing.assert_allclose(y.detach().numpy(), np.array(want["out"], dtype=np.float64),
                               rtol=rtol, atol=atol)
    assert str(y.dtype).replace("torch.", "") == want["dtype"]
    assert type(y.grad_fn).__name__ == want["grad_fn"]
    w = np.random.default_rng(7).standard_normal(tuple(y.shape)).astype(dtype)
    (y * torch.tensor(w)).sum().backward()
    for x, g in zip(xs, want["grads"]):
        if g is None:
            assert x.grad is None or not x.grad.numpy().any()
        else:
            np.testing.assert_allclose(x.grad.numpy(), np.array(g), rtol=rtol, atol=atol)


def test_integer_lookups_match_torch():
    x = torch.tensor([0, 3, 3, 1, 5])
    assert torch.bincount(x).tolist() == [1, 1, 0, 2, 0, 1]
    assert torch.bincount(x, minlength=8).tolist() == [1, 1, 0, 2, 0, 1, 0, 0]
    wb = torch.bincount(x, torch.tensor([0.5, 1.0, 2.0, 0.25, 1.0]))
    assert wb.dtype == torch.float32 and wb.tolist() == [0.5, 0.25, 0.0, 3.0, 0.0, 1.0]
    assert torch.bincount(x, torch.tensor([1, 2, 3, 4, 5])).dtype == torch.float64
    seq = torch.tensor([1.0, 3.0, 5.0, 7.0])
    v = torch.tensor([[3.0, 6.0], [9.0, 1.0]])
    assert torch.searchsorted(seq, v).tolist() == [[1, 3], [4, 0]]
    assert torch.searchsorted(seq, v, right=True).tolist() == [[2, 3], [4, 1]]
    assert torch.searchsorted(seq, v, side="right").dtype == torch.int64
    assert torch.searchsorted(seq, v, out_int32=True).dtype == torch.int32
    rows = torch.tensor([[1, 3, 5], [2, 4, 6]])
    assert torch.searchsorted(rows, torch.tensor([[3, 6], [1, 7]])).tolist() == [[1, 3], [0, 3]]
    assert torch.bucketize(torch.tensor([1, 5, 9, 3]), torch.tensor([1, 3, 5, 7])).tolist() == [0, 2, 4, 1]
    assert torch.bucketize(torch.tensor([1, 5, 9, 3]), torch.tensor([1, 3, 5, 7]),
                           right=True).tolist() == [1, 3, 4, 2]
    assert torch.isin(torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4])).tolist() == [False, True, False, True]
    assert torch.isin(torch.tensor([1, 2]), torch.tensor([2]), invert=True).tolist() == [True, False]
    assert torch.repeat_interleave(torch.tensor([2, 0, 1])).tolist() == [0, 0, 2]


@pytest.mark.parametrize("call, exc, message", [
    (lambda: torch.bincount(torch.tensor([-1, 2])), RuntimeError,
     "bincount only supports 1-d non-negative integral inputs."),
    (lambda: torch.bincount(torch.tensor([1.0])), NotImplementedError,
     "\"bincount_cpu\" not implemented for 'Float'"),
    (lambda: F.one_hot(torch.tensor([], dtype=torch.int64)), RuntimeError,
     "Can not infer total number of classes from empty tensor."),
    (lambda: F.glu(torch.zeros(2, 3)), RuntimeError,
     "Halving dimension must be even, but dimension 1 is size 3"),
    (lambda: F.pixel_shuffle(torch.zeros(1, 3, 2, 2), 2), RuntimeError,
     "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
     "upscale_factor, but input.size(-3)=3 is not divisible by 4"),
    (lambda: F.pixel_unshuffle(torch.zeros(1, 1, 5, 4), 2), RuntimeError,
     "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=5 "
     "is not divisible by 2"),
    (lambda: F.group_norm(torch.zeros(2, 4, 3), 3), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups, but got input of shape "
     "[2, 4, 3] and num_groups=3"),
    (lambda: F.interpolate(torch.zeros(1, 1, 4, 4), scale_factor=2, align_corners=True),
     ValueError, "align_corners option can only be set with the interpolating modes: "
                 "linear | bilinear | bicubic | trilinear"),
    (lambda: F.interpolate(torch.zeros(1, 1, 4, 4), size=3, scale_factor=2), ValueError,
     "only one of size or scale_factor should be defined"),
    (lambda: F.interpolate(torch.zeros(1, 1, 4, 4)), ValueError,
     "either size or scale_factor should be defined"),
    (lambda: F.interpolate(torch.zeros(1, 1, 4), size=3, mode="bilinear"), NotImplementedError,
     "Got 3D input, but bilinear mode needs 4D input"),
    (lambda: torch.zeros(3).mT, RuntimeError,
     "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
    (lambda: torch.cdist(torch.zeros(3, 2), torch.zeros(3, 4)), RuntimeError,
     "X1 and X2 must have the same number of columns. X1: 2 X2: 4"),
    (lambda: torch.addmm(torch.zeros(2, 2), torch.zeros(2), torch.zeros(2, 2)), RuntimeError,
     "mat1 must be a matrix, got 1-D tensor"),
    (lambda: torch.linalg.vector_norm(torch.tensor([1, 2])), RuntimeError,
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: torch.meshgrid(torch.zeros(2), indexing="yx"), RuntimeError,
     'torch.meshgrid: indexing must be one of "xy" or "ij", but received: yx'),
    (lambda: torch.repeat_interleave(torch.zeros(3), torch.tensor([1, 2])), RuntimeError,
     "repeats must have the same size as input along dim, but got repeats.size(0) = 2 and "
     "input.size(0) = 3"),
    (lambda: F.pixel_unshuffle(torch.zeros(1, 1, 4, 4), -1), RuntimeError,
     "pixel_unshuffle expects a positive downscale_factor, but got -1"),
    (lambda: F.pixel_shuffle(torch.zeros(2, 2), 2), RuntimeError,
     "pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 "
     "dimension(s)"),
    (lambda: F.glu(torch.tensor(1.0)), RuntimeError,
     "glu does not support scalars because halving size must be even"),
    (lambda: F.celu(torch.zeros(2), 0.0), RuntimeError,
     "ZeroDivisionError: alpha cannot be 0 for CELU"),
    (lambda: F.rrelu(torch.zeros(2), 0.5, 0.2), RuntimeError,
     "Lower bound should be less than or equal to the upper bound"),
    (lambda: torch.linalg.matrix_norm(torch.zeros(3)), RuntimeError,
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    (lambda: torch.linalg.matrix_norm(torch.zeros(3, 3), 3), RuntimeError,
     "linalg.matrix_norm: Order 3 not supported."),
    (lambda: torch.linalg.norm(torch.zeros(2, 2, 2), 1), RuntimeError,
     "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
    (lambda: torch.linalg.vector_norm(torch.zeros(0), float("inf")), RuntimeError,
     "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation "
     "does not have an identity"),
    (lambda: torch.cdist(torch.zeros(3), torch.zeros(3, 3)), RuntimeError,
     "cdist only supports at least 2D tensors, X1 got: 1D"),
    (lambda: torch.cdist(torch.zeros(3, 3), torch.zeros(3, 3), p=-1), RuntimeError,
     "cdist only supports non-negative p values"),
    (lambda: torch.addmv(torch.zeros(3), torch.zeros(3), torch.zeros(3)), RuntimeError,
     "vector + matrix @ vector expected, got 1, 1, 1"),
    (lambda: torch.baddbmm(torch.zeros(3, 3, 3), torch.zeros(3, 3), torch.zeros(3, 3, 3)),
     RuntimeError, "batch1 must be a 3D tensor"),
    (lambda: torch.addr(torch.zeros(3, 3), torch.zeros(3), torch.zeros(3, 3)), RuntimeError,
     "addr: Expected 1-D argument vec2, but got 2-D"),
    (lambda: torch.hstack(torch.zeros(3)), TypeError,
     "hstack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    (lambda: torch.hstack([]), RuntimeError, "hstack expects a non-empty TensorList"),
    (lambda: torch.repeat_interleave(torch.zeros(3), torch.tensor([-1, 1, 1])), RuntimeError,
     "repeats can not be negative"),
    (lambda: torch.bucketize(torch.zeros(3), torch.zeros(2, 2)), RuntimeError,
     "boundaries tensor must be 1 dimension, but got dim(2)"),
    (lambda: torch.searchsorted(torch.zeros(2, 3), torch.zeros(3, 3)), RuntimeError,
     "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
     "of boundaries tensor and input value tensor must match, but we got boundaries tensor "
     "[2, 3] and input value tensor [3, 3]"),
    (lambda: torch.searchsorted(torch.zeros(3), torch.zeros(3), side="middle"), RuntimeError,
     "torch.searchsorted(): side can only be 'left' or 'right' but got middle"),
    (lambda: torch.searchsorted(torch.zeros(3), torch.zeros(3), right=True, side="left"),
     RuntimeError, "torch.searchsorted(): side and right can't be set to opposites, got side of "
                   "left while right was True"),
    (lambda: torch.zeros(3).index_add(0, torch.tensor([[0]]), torch.zeros(1, 1)), IndexError,
     "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: "
     "[1, 1]"),
    (lambda: torch.zeros(3).index_add(0, torch.tensor([0.0]), torch.zeros(1)), RuntimeError,
     "index_add_(): Expected dtype int32/int64 for index but got: Float"),
    (lambda: torch.zeros(3).index_copy(0, torch.tensor([[0]]), torch.zeros(1, 1)), IndexError,
     "index_copy_(): Index should have dimension 1 or 0 (got 2)"),
    (lambda: torch.zeros(3).index_copy(0, torch.tensor([0.0]), torch.zeros(1)), RuntimeError,
     "index_copy_(): Expected a long tensor for index, but got Float"),
    (lambda: torch.zeros(3).index_fill(0, torch.tensor([[0]]), 1.0), RuntimeError,
     "Index has to be a vector/scalar"),
    (lambda: torch.bincount(torch.tensor([1]), minlength=-1), RuntimeError,
     "minlength should be >= 0"),
    (lambda: torch.bincount(torch.tensor([1, 2]), torch.tensor([1.0])), RuntimeError,
     "weights should be 1-d and have the same length as input"),
    (lambda: torch.meshgrid([], indexing="ij"), RuntimeError,
     "meshgrid expects a non-empty TensorList"),
    (lambda: F.rms_norm(torch.zeros(2, 3), (4, 5)), RuntimeError,
     "Given normalized_shape=[4, 5], expected input with shape [*4, 5], but got input of "
     "size[2, 3]"),
    (lambda: F.group_norm(torch.zeros(2), 1), RuntimeError,
     "Expected at least 2 dimensions for input tensor but received 1"),
    (lambda: F.interpolate(torch.zeros(1, 1, 4, 4), size=2, mode="bogus"), NotImplementedError,
     "Input Error: Only 3D, 4D and 5D input Tensors supported (got 4D) for the modes: nearest | "
     "linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got bogus)"),
    (lambda: F.interpolate(torch.zeros(1, 1, 4), size=2, mode="bicubic"), NotImplementedError,
     "Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for the modes: nearest | "
     "linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got bicubic)"),
    (lambda: F.interpolate(torch.zeros(1, 1, 4, 4), size=(2, 2, 2)), ValueError,
     "Input and output must have the same number of spatial dimensions, but got input with "
     "spatial dimensions of [4, 4] and output size of (2, 2, 2). Please provide input tensor in "
     "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."),
])
def test_errors_are_torchs(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_meshgrid_without_indexing_warns_as_torch():
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        torch.meshgrid(torch.zeros(2), torch.zeros(3))


def test_in_place_forms_and_modules():
    x = torch.zeros(3, 2)
    x.index_add_(0, torch.tensor([2, 2]), torch.ones(2, 2))
    x.index_fill_(1, torch.tensor([0]), 7.0)
    assert x.tolist() == [[7.0, 0.0], [7.0, 0.0], [7.0, 2.0]]
    m = torch.nn.InstanceNorm1d(2, track_running_stats=True)
    m(torch.tensor([[[1.0, 2.0, 3.0], [0.0, 0.0, 3.0]]]))
    # PyTorch 2.13: running_mean 0.1 * instance mean, running_var 0.9 + 0.1 * unbiased var
    np.testing.assert_allclose(m.running_mean.numpy(), [0.2, 0.1], rtol=1e-6)
    np.testing.assert_allclose(m.running_var.numpy(), [1.0, 1.2], rtol=1e-6)
    assert repr(torch.nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True)"
    assert repr(torch.nn.Upsample(scale_factor=2, mode="bilinear")) == \
        "Upsample(scale_factor=2.0, mode='bilinear')"


def test_erfinv_is_torchs_to_float64_accuracy():
    # torch.erfinv and its gradient in float64 (PyTorch 2.13)
    x = torch.tensor([-0.999999, 1e-10, 0.5, 0.9999999999, 0.3], dtype=torch.float64,
                     requires_grad=True)
    y = torch.erfinv(x)
    np.testing.assert_allclose(y.detach().numpy(), [-3.45891073727549880e+00, 8.86226925452758085e-11,
                                                    4.76936276204469878e-01, 4.57282495854492499e+00,
                                                    2.72462714726754318e-01], rtol=1e-14)
    assert type(y.grad_fn).__name__ == "ErfinvBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[:4], [1.39146310326708626e+05, 8.86226925452757941e-01,
                                                    1.11258481897194961e+00, 1.06895338712892795e+09],
                               rtol=1e-9)
    edge = torch.erfinv(torch.tensor([-1.0, 1.0, 1.5, 0.0]))
    assert edge.tolist()[:2] == [float("-inf"), float("inf")] and np.isnan(edge.tolist()[2])
    assert torch.erfinv(torch.tensor([1, 0])).dtype == torch.float32
    assert torch.tensor([0.5]).erfinv().item() == pytest.approx(0.4769362762044699, rel=1e-6)


def test_one_hot_edge_cases_are_torchs():
    assert F.one_hot(torch.tensor([], dtype=torch.int64), 3).shape == (0, 3)
    assert F.one_hot(torch.zeros(2, 0, dtype=torch.int64), 2).shape == (2, 0, 2)
    assert F.one_hot(torch.tensor(2)).tolist() == [0, 0, 1]
    assert F.one_hot(torch.tensor([0, 0]), 1).tolist() == [[1], [1]]


def test_softmin_without_dim_warns_and_picks_torchs_dim():
    x = torch.tensor([[1.0, 2.0], [3.0, 5.0]])
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        y = F.softmin(x)
    np.testing.assert_allclose(y.sum(1).numpy(), [1.0, 1.0], rtol=1e-6)  # dim 1 for 2-D

"""dyngraph's PyTorch surface: printing, creation, dtypes, methods, operators, grad_fn names.

Every expected string here is what PyTorch 2.13 prints for the same expression.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dyngraph as torch


def addr(text: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "0x...", text)


# --- repr / str ------------------------------------------------------------------------

REPRS = [
    ("torch.tensor([20.])", "tensor([20.])"),
    ("torch.tensor(5.)", "tensor(5.)"),
    ("torch.tensor([1, 2])", "tensor([1, 2])"),
    ("torch.tensor([5.], requires_grad=True)", "tensor([5.], requires_grad=True)"),
    ("torch.tensor([3.], requires_grad=True) * 2", "tensor([6.], grad_fn=<MulBackward0>)"),
    ("torch.tensor([1.5, 2], dtype=torch.float64, requires_grad=True) * 2",
     "tensor([3., 4.], dtype=torch.float64, grad_fn=<MulBackward0>)"),
    ("torch.tensor([1, 2], dtype=torch.int32)", "tensor([1, 2], dtype=torch.int32)"),
    ("torch.tensor([True, False])", "tensor([ True, False])"),
    ("torch.tensor(3)", "tensor(3)"),
    ("torch.tensor(2.5)", "tensor(2.5000)"),
    ("torch.tensor(-0.5)", "tensor(-0.5000)"),
    ("torch.tensor([1., -2.])", "tensor([ 1., -2.])"),
    ("torch.tensor([100., 1.5])", "tensor([100.0000,   1.5000])"),
    ("torch.tensor([[1e-5, 1.], [3, 4]])",
     "tensor([[1.0000e-05, 1.0000e+00],\n        [3.0000e+00, 4.0000e+00]])"),
    ("torch.tensor([1e9, 1.])", "tensor([1.0000e+09, 1.0000e+00])"),
    ("torch.tensor([float('nan'), float('inf'), 1.5])", "tensor([   nan,    inf, 1.5000])"),
    ("torch.tensor([])", "tensor([])"),
    ("torch.Tensor()", "tensor([])"),
    ("torch.Tensor([0])", "tensor([0.])"),
    ("torch.zeros(0, 3)", "tensor([], size=(0, 3))"),
    ("torch.zeros(0, 3, dtype=torch.int64)", "tensor([], size=(0, 3), dtype=torch.int64)"),
    ("torch.arange(2000)", "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    ("torch.arange(12.).reshape(2, 2, 3)",
     "tensor([[[ 0.,  1.,  2.],\n         [ 3.,  4.,  5.]],\n\n        [[ 6.,  7.,  8.],\n"
     "         [ 9., 10., 11.]]])"),
    ("torch.ones(3).sum()", "tensor(3.)"),
    ("torch.ones(3, dtype=torch.int32).sum()", "tensor(3)"),
    ("torch.ones(2, 3).shape", "torch.Size([2, 3])"),
    ("torch.float32", "torch.float32"),
    ("torch.tensor([[1., 2.], [3., 4.]]).max(1)",
     "torch.return_types.max(\nvalues=tensor([2., 4.]),\nindices=tensor([1, 1]))"),
    ("torch.nn.Parameter(torch.ones(2))", "Parameter containing:\ntensor([1., 1.], requires_grad=True)"),
]


@pytest.mark.parametrize("expr,expected", REPRS)
def test_repr_matches_pytorch(expr, expected):
    value = eval(expr, {"torch": torch})
    assert repr(value) == expected
    assert str(value) == expected


def test_long_rows_wrap_at_80_columns():
    text = repr(torch.arange(30.) / 7)
    lines = text.splitlines()
    assert lines[0] == ("tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, "
                        "1.0000, 1.1429,")
    assert all(len(line) <= 80 for line in lines) and lines[1].startswith("        1.2857")


def test_grad_fn_repr_and_name():
    y = torch.tensor([1.], requires_grad=True) * 2
    assert addr(repr(y.grad_fn)) == "<MulBackward0 object at 0x...>"
    assert y.grad_fn.name() == "MulBackward0" and type(y.grad_fn).__name__ == "MulBackward0"
    (fn, k), = y.sum().grad_fn.next_functions
    assert fn is y.grad_fn and k == 0
    assert addr(repr(y.grad_fn.next_functions)) == "((<AccumulateGrad object at 0x...>, 0), (None, 0))"


# --- grad_fn names follow PyTorch's per call form ------------------------------------

x = torch.randn(2, 3, requires_grad=True)
v = torch.randn(3, requires_grad=True)
s = torch.randn(3, 4, requires_grad=True)
NAMES = {
    "x ** 2": "PowBackward0", "x.abs() ** x": "PowBackward1", "2 ** x": "PowBackward2",
    "x.sum()": "SumBackward0", "x.sum(0)": "SumBackward1", "x.sum(dim=1, keepdim=True)": "SumBackward1",
    "x.mean()": "MeanBackward0", "x.mean(1)": "MeanBackward1", "x.max()": "MaxBackward1",
    "x.max(1)[0]": "MaxBackward0", "x.min()": "MinBackward1", "x.min(0).values": "MinBackward0",
    "x.mm(s)": "MmBackward0", "x @ s": "MmBackward0", "x @ v": "MvBackward0", "v @ v": "DotBackward0",
    "x.t()": "TBackward0", "x.T": "PermuteBackward0", "x.transpose(0, 1)": "TransposeBackward0",
    "x.permute(1, 0)": "PermuteBackward0", "x.reshape(6)": "ViewBackward0",
    "x.view(3, 2)": "ViewBackward0", "x.flatten()": "ViewBackward0", "x[0]": "SelectBackward0",
    "x[1:]": "SliceBackward0", "x[:, 1]": "SelectBackward0",
    "x[torch.tensor([0, 1])]": "IndexBackward0", "x[None]": "UnsqueezeBackward0",
    "torch.cat([x, x])": "CatBackward0", "torch.stack([x, x])": "StackBackward0",
    "torch.where(x > 0, x, v)": "WhereBackward0", "torch.maximum(x, v)": "MaximumBackward0",
    "x.clamp(0, 1)": "ClampBackward1", "x.softmax(1)": "SoftmaxBackward0",
    "torch.log_softmax(x, 1)": "LogSoftmaxBackward0", "x.relu()": "ReluBackward0",
    "x.sigmoid()": "SigmoidBackward0", "x.abs()": "AbsBackward0", "-x": "NegBackward0",
    "x - v": "SubBackward0", "1 - x": "RsubBackward1", "x / v": "DivBackward0",
    "x.unsqueeze(0)": "UnsqueezeBackward0", "x[None].squeeze(0)": "SqueezeBackward1",
    "x[None].squeeze()": "SqueezeBackward0", "v.expand(2, 3)": "ExpandBackward0",
    "x.double()": "ToCopyBackward0", "x.to(torch.float64)": "ToCopyBackward0",
    "x.detach() + v": "AddBackward0", "x.exp()": "ExpBackward0", "x.tanh()": "TanhBackward0",
    "x.clone()": "CloneBackward0", "torch.nn.functional.cross_entropy(x, torch.tensor([0, 1]))":
        "NllLossBackward0", "x.abs().sqrt()": "SqrtBackward0", "x.abs().log()": "LogBackward0",
}


@pytest.mark.parametrize("expr", sorted(NAMES))
def test_grad_fn_names_follow_pytorch(expr):
    y = eval(expr, {"torch": torch, "x": x, "v": v, "s": s})
    assert type(y.grad_fn).__name__ == NAMES[expr]


# --- creation and dtypes ------------------------------------------------------------------


@pytest.mark.parametrize("expr,dtype", [
    ("torch.tensor([1.5, 2])", torch.float32), ("torch.tensor([1, 2])", torch.int64),
    ("torch.tensor([True])", torch.bool), ("torch.Tensor([0])", torch.float32),
    ("torch.tensor(np.zeros(2))", torch.float64), ("torch.zeros(2, 3)", torch.float32),
    ("torch.ones(2, dtype=torch.int32)", torch.int32), ("torch.full((2, 2), 7)", torch.int64),
    ("torch.full((2, 2), 7.)", torch.float32), ("torch.arange(5)", torch.int64),
    ("torch.arange(0, 1, 0.25)", torch.float32), ("torch.eye(3)", torch.float32),
    ("torch.rand(2)", torch.float32), ("torch.randn(2, 3)", torch.float32),
    ("torch.zeros_like(torch.tensor([1, 2]))", torch.int64),
    ("torch.ones_like(torch.randn(2))", torch.float32),
    ("torch.from_numpy(np.zeros(2, np.int32))", torch.int32),
    # PyTorch's promotion: weak Python numbers, 0-dim tensors below dimensioned ones
    ("torch.tensor([1, 2, 3]) * 1.5", torch.float32), ("torch.tensor([1, 2, 3]) * 2", torch.int64),
    ("torch.tensor([1, 2, 3]) / 2", torch.float32), ("torch.tensor([True]) + 1", torch.int64),
    ("torch.ones(2) + torch.tensor(2., dtype=torch.float64)", torch.float32),
    ("torch.tensor([1, 2]) + torch.tensor(2.5, dtype=torch.float64)", torch.float64),
    ("torch.tensor([1., 2.], dtype=torch.float64) * torch.ones(2)", torch.float64),
    ("torch.tensor([1, 2], dtype=torch.int32) + torch.tensor([1, 2])", torch.int64),
    ("torch.tensor([1, 2]).exp()", torch.float32), ("torch.ones(2, 3) * np.float64(2)", torch.float32),
    ("torch.ones(2) > 0", torch.bool), ("torch.tensor([1, 2]).float()", torch.float32),
])
def test_dtypes_follow_pytorch(expr, dtype):
    assert eval(expr, {"torch": torch, "np": np}).dtype is dtype


def test_creation_values():
    torch.manual_seed(0)
    a = torch.randn(3)
    torch.manual_seed(0)
    assert torch.randn(3).tolist() == a.tolist()
    assert torch.arange(1, 7, 2).tolist() == [1, 3, 5]
    assert torch.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert torch.full((2,), 3.5).tolist() == [3.5, 3.5]
    assert torch.Tensor(2, 3).shape == (2, 3)
    array = np.zeros(3, np.float32)
    torch.from_numpy(array).add_(1)
    assert array.tolist() == [1.0, 1.0, 1.0]


# --- tensor attributes, methods and operators ----------------------------------------------


def test_attributes_and_conversions():
    t = torch.tensor([[1., 2.], [3., 4.]])
    assert t.shape == (2, 3 - 1) and t.size() == torch.Size([2, 2]) and t.size(1) == 2
    assert t.dim() == 2 and t.ndim == 2 and t.numel() == 4 and len(t) == 2
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]] and np.asarray(t).shape == (2, 2)
    assert [row.tolist() for row in t] == [[1.0, 2.0], [3.0, 4.0]]
    assert torch.tensor([3.5]).item() == 3.5 and float(torch.tensor(2.)) == 2.0
    assert bool(torch.tensor([1.])) and not bool(torch.tensor(0))
    assert f"{torch.tensor(2.0):.2f}" == "2.00"
    assert t.numpy() is t.numpy()


def test_math_methods_and_operators():
    a = torch.tensor([[1., 2.], [3., 4.]])
    b = torch.tensor([1., -1.])
    assert (a + b).tolist() == [[2.0, 1.0], [4.0, 3.0]] and (1 - b).tolist() == [0.0, 2.0]
    assert (a @ b).tolist() == [-1.0, -1.0] and (b @ b).item() == 2.0
    assert (a ** 2).sum().item() == 30.0 and (2 ** b).tolist() == [2.0, 0.5]
    assert (1 / b).tolist() == [1.0, -1.0] and (-b).tolist() == [-1.0, 1.0]
    assert a.mean(dim=1, keepdim=True).tolist() == [[1.5], [3.5]]
    assert a.max(1).indices.tolist() == [1, 1] and a.argmax().item() == 3
    assert a.t().tolist() == [[1.0, 3.0], [2.0, 4.0]] and a.T.tolist() == a.t().tolist()
    assert a.view(-1).tolist() == [1.0, 2.0, 3.0, 4.0] and a.unsqueeze(0).shape == (1, 2, 2)
    assert a[a > 1.5].tolist() == [2.0, 3.0, 4.0] and a[torch.tensor([1, 0])][0].tolist() == [3, 4]
    assert a[:, 1].tolist() == [2.0, 4.0] and a[-1, ...].tolist() == [3.0, 4.0]
    assert (a == 2).tolist() == [[False, True], [False, False]]
    assert ((a > 1) & (a < 4)).sum().item() == 2 and (~(a > 1)).sum().item() == 1
    assert torch.clamp(b, min=0).tolist() == [1.0, 0.0] and b.abs().tolist() == [1.0, 1.0]
    assert torch.cat([b, b]).shape == (4,) and torch.stack([b, b], dim=1).shape == (2, 2)
    assert torch.where(b > 0, b, 0.0).tolist() == [1.0, 0.0]
    assert torch.softmax(torch.tensor([0., 0.]), 0).tolist() == [0.5, 0.5]
    assert torch.sum_like(a, torch.zeros(2)).tolist() == [4.0, 6.0]  # a registry op by its name


def test_inplace_ops_update_memory_and_version():
    t = torch.zeros(3)
    alias = t.detach()
    t += 2
    t.mul_(3).sub_(1)
    t[0] = 10
    assert t.tolist() == [10.0, 5.0, 5.0] and alias.tolist() == t.tolist()
    assert t._version == 4
    t.zero_()
    assert t.tolist() == [0.0, 0.0, 0.0]
    t.copy_(torch.tensor([1, 2, 3]))
    assert t.tolist() == [1.0, 2.0, 3.0]


def test_copy_into_a_plain_tensor_records_the_source():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = torch.zeros(2, 3)
    y.copy_(x * 2)  # broadcast, recorded
    assert y.requires_grad and not y.is_leaf
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0]


def test_inplace_on_intermediate_rebases_its_history():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y *= x  # y = 2x * x, recorded
    assert type(y.grad_fn).__name__ == "MulBackward0" and not y.is_leaf
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_no_grad_and_enable_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = x * 2
        with torch.enable_grad():
            z = x * 2
    assert y.grad_fn is None and not y.requires_grad and z.grad_fn is not None

    @torch.no_grad()
    def f(t):
        return t * 2
    assert f(x).grad_fn is None and torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert (x + 1).grad_fn is None
    assert (x + 1).grad_fn is not None


def test_integer_and_comparison_results_do_not_require_grad():
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    assert not (x > 0).requires_grad and not x.argmax().requires_grad
    assert not x.long().requires_grad and x.double().requires_grad


def test_graph_of_exports_the_recorded_graph():
    w = torch.tensor([1.], requires_grad=True)
    x = torch.tensor([2.], requires_grad=True)
    y = torch.mul(torch.add(w, x), torch.add(w, 1))
    g = torch.graph_of(y)
    ops = sorted(d["op"] for _, d in g.nodes(data=True))
    assert ops == ["AccumulateGrad", "AccumulateGrad", "Add", "Add", "Mul"]
    assert g.out_degree("MulBackward0_0") == 0 and g.in_degree("MulBackward0_0") == 2
    leaves = [n for n in g if g.in_degree(n) == 0]
    assert len(leaves) == 2 and all(n.startswith("AccumulateGrad") for n in leaves)
    assert torch.graph_of(torch.ones(2)).number_of_nodes() == 0
    sq = torch.graph_of(w * w)
    assert [d["inputs"] for _, _, d in sq.edges(data=True)] == [(0, 1)]


def test_engine_imports_neither_torch_nor_networkx_to_compute():
    code = ("import sys, dyngraph as torch\n"
            "x = torch.ones(2, requires_grad=True)\n"
            "(x * 2).sum().backward()\n"
            "assert 'torch' not in sys.modules and 'networkx' not in sys.modules\n"
            "torch.graph_of(x * 2)\n"
            "assert 'networkx' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[1])


def test_tensor_of_a_numpy_scalar_keeps_its_dtype():
    """torch 2.13: ``torch.tensor(np.float64(1.5)).dtype`` is float64 (np.float64 is a Python
    float subclass, but torch reads it as a numpy scalar); int32 stays int32."""
    import numpy as np
    import dyngraph as torch
    cases = [(np.float64(1.5), torch.float64), (np.float32(1.5), torch.float32),
             (np.int32(3), torch.int32), (np.int64(3), torch.int64), (np.bool_(True), torch.bool)]
    for value, dtype in cases:
        t = torch.tensor(value)
        assert t.dtype == dtype and t.shape == () and t.item() == value
    assert torch.tensor(1.5).dtype == torch.float32 and torch.tensor(3).dtype == torch.int64

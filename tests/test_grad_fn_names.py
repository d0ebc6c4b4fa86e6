"""The ``grad_fn`` names dyngraph prints are PyTorch 2.13's, and they are declared on the op.

``tests/grad_fn_cases.py`` holds the calls (every nn layer, loss, indexing form and common
tensor method); ``tests/fixtures/torch_grad_fn_names.json`` what PyTorch printed for them
(recorded by ``tests/fixtures/record_torch_grad_fn_names.py``).
"""
from __future__ import annotations

import ast
import json
import pathlib
import re
import warnings

import pytest

import dyngraph
from common import REGISTRY
from tests.grad_fn_cases import grad_fn_names

ROOT = pathlib.Path(__file__).resolve().parent.parent
TORCH = json.loads((ROOT / "tests/fixtures/torch_grad_fn_names.json").read_text())["cases"]

# Cases whose name still differs, each with the reason; the test checks they still do, so a
# fix has to take its case off this list.
KNOWN_DIFFERENT = {
    "einsum": "PyTorch lowers einsum to permutes, a bmm and a view, and names the node after "
              "whichever comes last for the equation; dyngraph records one Einsum node",
}

# Cases whose ``next_functions`` names also follow PyTorch (where the call is one node over
# the inputs in both).  Composites (losses, layers) and ops whose index/mask/constant inputs
# dyngraph lists as None entries, where PyTorch lists none, are not compared.
NEXT_FOLLOWS_TORCH = (
    "-x", "2 / x", "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "Dropout_train",
    "F.cosine_similarity", "F.dropout", "F.hardtanh", "F.kl_div[batchmean]", "F.kl_div[mean]",
    "F.kl_div[none]", "F.kl_div[sum]", "F.l1_loss[mean]", "F.l1_loss[none]", "F.l1_loss[sum]",
    "F.log_softmax", "F.one_hot.float", "F.pad", "F.relu", "F.relu6", "F.softmax", "Flatten",
    "GRU", "Hardtanh", "LogSoftmax", "MaxPool1d", "MaxPool2d", "RNN", "RNNCell", "ReLU", "ReLU6",
    "Sigmoid", "Softmax", "T", "Tanh", "abs", "add_", "amax", "bmm", "cat", "ceil", "clamp",
    "clamp(min)", "clamp_min", "clone", "contiguous_t", "cos", "cumprod", "cumsum", "detach_mul",
    "double", "erf", "exp", "gather", "where", "sort", "topk", "expand", "expand_as", "expm1", "flatten", "flip", "floor", "log",
    "log1p", "log_softmax", "logsumexp", "matmul", "matmul[1d@2d]", "max", "max(dim)", "maximum",
    "mean", "mean(dim)", "min", "min(dim)", "mm", "mul_", "narrow", "neg", "nn.KLDivLoss[mean]",
    "nn.KLDivLoss[none]", "nn.KLDivLoss[sum]", "nn.L1Loss[mean]", "nn.L1Loss[none]",
    "nn.L1Loss[sum]", "permute", "prod", "prod(dim)", "relu", "relu_", "reshape", "round",
    "rsqrt", "sigmoid", "sign", "sin", "softmax", "sqrt", "square", "squeeze", "squeeze(1)",
    "stack", "sum", "sum(dim)", "t", "tanh", "to(float64)", "transpose", "trunc", "unsqueeze",
    "view", "x * 2", "x * y", "x + 1", "x + y", "x - y", "x ** y", "x / 2", "x / y", "x[...]",
    "x[..., 0]", "x[0]", "x[1:3]", "x[::2]", "x[:, 1:3]", "x[:, 1]", "x[:]", "x[None]",
)


@pytest.fixture(scope="module")
def dyngraph_names() -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kl_div's 'mean' warning, size warnings
        return grad_fn_names(dyngraph)


def test_fixture_covers_every_case(dyngraph_names):
    assert set(TORCH) == set(dyngraph_names)
    assert len(TORCH) > 260


@pytest.mark.parametrize("label", sorted(TORCH))
def test_grad_fn_name_is_torchs(label, dyngraph_names):
    have, want = dyngraph_names[label], TORCH[label]
    assert "error" not in have, f"{label}: dyngraph raised {have.get('error')}"
    if label in KNOWN_DIFFERENT:
        assert have["name"] != want["name"], f"{label} now matches: take it off KNOWN_DIFFERENT"
    else:
        assert have["name"] == want["name"], label


@pytest.mark.parametrize("label", NEXT_FOLLOWS_TORCH)
def test_next_functions_names_are_torchs(label, dyngraph_names):
    assert dyngraph_names[label]["next"] == TORCH[label]["next"], label


_NAME = re.compile(r"Backward\d|^CopySlices$")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (module, class, function)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _declarations(tree: ast.AST) -> set[int]:
    """ids of the string constants that are arguments of a ``@torch_node(...)`` decorator:
    a composite's one declaration of its name, on its own ``def``."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                name = getattr(dec.func, "id", "") if isinstance(dec, ast.Call) else ""
                if name.endswith("torch_node"):  # torch_node, or imported as _torch_node
                    found.update(id(a) for a in [*dec.args, *(k.value for k in dec.keywords)])
    return found


def test_no_grad_fn_name_literal_in_dyngraph():
    """PyTorch's names live on the registry op (``torch_name``/``torch_names``) or, for a
    composite, in its ``@torch_node`` declaration -- never as a string in the code."""
    found, declared = [], []
    for path in sorted((ROOT / "dyngraph").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        skip, decl = _docstrings(tree), _declarations(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and _NAME.search(node.value) and id(node) not in skip:
                where = f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}"
                (declared if id(node) in decl else found).append(where)
    assert not found, "grad_fn names written outside a declaration:\n" + "\n".join(found)
    assert declared, "the scan found no @torch_node declaration: is it still reading dyngraph?"


def test_registry_names_are_pytorch_shaped():
    """Every declared name reads like a PyTorch node class, and every form key is a name."""
    for op in REGISTRY.values():
        for form, name in {None: op.torch_name, **op.torch_names}.items():
            assert re.fullmatch(r"[A-Z]\w*Backward\d+(_copy)?|CopySlices", name), (op.name, name)
            assert form is None or form.isidentifier(), (op.name, form)


def test_an_undeclared_form_names_the_declared_ones():
    with pytest.raises(KeyError, match=r"op 'Sum' declares no torch name for call form 'dims'; "
                                       r"declared: \['dim', 'trace'\]"):
        REGISTRY["Sum"].grad_fn_name("dims")
    assert REGISTRY["Sum"].grad_fn_name() == "SumBackward0"
    assert REGISTRY["Sum"].grad_fn_name("dim") == "SumBackward1"


def test_embedding_prints_torchs_name():
    """The issue's example: ``grad_fn=<EmbeddingBackward0>``, not ``IndexBackward0``."""
    emb = dyngraph.nn.Embedding(5, 3)
    out = emb(dyngraph.tensor([1, 2]))
    assert repr(out).endswith("grad_fn=<EmbeddingBackward0>)")
    out.sum().backward()
    assert emb.weight.grad[1].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("layer, shape", [("Conv2d", (1, 2, 5, 5)), ("Conv1d", (1, 2, 5)),
                                          ("ConvTranspose2d", (1, 2, 5, 5))])
def test_a_frozen_convolution_with_a_trainable_bias_is_one_convolution_node(layer, shape):
    """The bias is part of PyTorch's convolution node, even when only the bias needs a
    gradient (the convolution itself then records nothing to take the name from)."""
    conv = getattr(dyngraph.nn, layer)(2, 3, 3)
    conv.weight.requires_grad_(False)
    y = conv(dyngraph.ones(*shape))
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"
    y.sum().backward()
    assert conv.bias.grad.tolist() == [float(y[0, 0].numel())] * 3

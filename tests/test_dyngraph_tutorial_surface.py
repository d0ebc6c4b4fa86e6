"""What a PyTorch tutorial reaches after its first lines, as PyTorch 2.13 does it.

Grad-mode decorators, datasets and loaders, gradient clipping and parameter vectors,
``torch.nn.init``, buffers, module traversal, train/eval and the default dtype.  Every
expected value, message and warning is PyTorch 2.13's (recorded in a scratch venv); the
seeded streams are compared bit for bit with ``tests/fixtures/torch_streams.npz``
(``tests/fixtures/record_torch_streams.py`` records it from ``tests/torch_stream_cases.py``).
"""
from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import dyngraph as torch
import dyngraph.nn as nn
from dyngraph.utils.data import (BatchSampler, ConcatDataset, DataLoader, RandomSampler, Subset,
                                 TensorDataset, random_split)
from tests.torch_stream_cases import APPROXIMATE, CASES

RECORDED = np.load(Path(__file__).parent / "fixtures" / "torch_streams.npz")


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_streams_are_pytorchs(name):
    got = CASES[name](torch)
    expected = [RECORDED[f"{name}/{i}"] for i in range(len(got))]
    assert f"{name}/{len(got)}" not in RECORDED.files
    for i, (g, e) in enumerate(zip(got, expected)):
        g = np.asarray(g)
        assert (g.dtype, g.shape) == (e.dtype, e.shape), (name, i)
        if name in APPROXIMATE:
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6, err_msg=f"{name}/{i}")
        else:
            assert np.array_equal(g, e), (name, i)


# --- grad mode as decorators -------------------------------------------------------------


def test_grad_modes_decorate_with_and_without_parentheses():
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def f(a):
        return a * 2

    @torch.no_grad
    def f2(a):
        return a * 2

    @torch.enable_grad()
    def g(a):
        return a * 2

    @torch.set_grad_enabled(False)
    def h(a):
        return a * 2

    @torch.inference_mode
    def k(a):
        return torch.is_inference_mode_enabled(), (a * 2).requires_grad

    assert (f(x).requires_grad, f.__name__, f2(x).requires_grad, f2.__name__) == (False, "f", False, "f2")
    with torch.no_grad():
        assert g(x).requires_grad
    assert not h(x).requires_grad and torch.is_grad_enabled()   # the decorator undid its set
    assert k(x) == (True, False) and not torch.is_inference_mode_enabled()
    with torch.inference_mode(False):
        assert not torch.is_inference_mode_enabled()
    torch.set_grad_enabled(False)
    assert not torch.is_grad_enabled()
    torch.set_grad_enabled(True)


def test_a_decorated_generator_runs_each_step_in_the_mode():
    @torch.no_grad()
    def steps():
        received = yield torch.is_grad_enabled()
        try:
            yield received, torch.is_grad_enabled()
        except ValueError as e:
            yield str(e), torch.is_grad_enabled()

    gen = steps()
    assert next(gen) is False and torch.is_grad_enabled()     # outside a step: enabled again
    assert gen.send("s") == ("s", False)
    assert gen.throw(ValueError("v")) == ("v", False)
    gen.close()


# --- datasets and loaders -----------------------------------------------------------------


def _ds():
    return TensorDataset(torch.arange(20.).view(10, 2), torch.arange(10))


def test_dataset_wrappers_and_their_errors():
    ds = _ds()
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        TensorDataset(torch.zeros(10), torch.zeros(9))
    s = Subset(ds, [1, 3, 5])
    x, y = s[[0, 2]]
    assert x.tolist() == [[2., 3.], [10., 11.]] and y.tolist() == [1, 5]
    assert [b[1].item() for b in s.__getitems__([2, 0])] == [5, 1]
    c = ConcatDataset([ds, s])
    assert (len(c), c[10][1].item(), c[-1][1].item(), c.cumulative_sizes) == (13, 1, 5, [10, 13])
    with pytest.raises(IndexError, match="^list index out of range$"):
        c[13]
    with pytest.raises(ValueError, match="^absolute value of index should not exceed dataset length$"):
        c[-14]
    with pytest.raises(AssertionError, match="^datasets should not be an empty iterable$"):
        ConcatDataset([])
    assert type(ds + s) is ConcatDataset


def test_random_split_lengths_fractions_and_errors():
    with pytest.warns(UserWarning, match=r"^Length of split at index 0 is 0\. This might result "
                                         r"in an empty dataset\.$"):
        a, b = random_split(range(10), [0.0, 1.0], generator=torch.Generator().manual_seed(1))
    assert (len(a), len(b)) == (0, 10)
    for lengths in ([5, 4], [0.5, 0.6]):
        with pytest.raises(ValueError, match="^Sum of input lengths does not equal the length of "
                                             "the input dataset!$"):
            random_split(range(10), lengths)
    with pytest.raises(ValueError, match="^Fraction at index 0 is not between 0 and 1$"):
        random_split(range(10), [1.5, -0.5])


def test_dataloader_options_as_pytorch():
    ds = _ds()
    collated = [b.tolist() for b in DataLoader(range(10), batch_size=4,
                                               collate_fn=lambda xs: torch.tensor(xs) * 10)]
    assert collated == [[0, 10, 20, 30], [40, 50, 60, 70], [80, 90]]
    assert [b[1].tolist() for b in DataLoader(ds, sampler=[9, 0, 4], batch_size=2)] == [[9, 0], [4]]
    assert [b[1].tolist() for b in DataLoader(ds, batch_sampler=[[1, 2], [7]])] == [[1, 2], [7]]
    assert (len(DataLoader(ds, batch_size=4)), len(DataLoader(ds, batch_size=4, drop_last=True))) == (3, 2)
    loader = DataLoader(ds, batch_size=5, pin_memory=True)
    with pytest.warns(UserWarning, match=r"^'pin_memory' argument is set as true but no "
                                         r"accelerator is found, then device pinned memory won't "
                                         r"be used\.$"):
        assert [b[1].tolist() for b in loader] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    unbatched = list(DataLoader(ds, batch_size=None))
    assert len(unbatched) == 10 and unbatched[1][1].tolist() == 1
    batch = next(iter(DataLoader([{"a": 1, "b": torch.ones(2)}, {"a": 2, "b": torch.zeros(2)}],
                                 batch_size=2)))
    assert batch["a"].tolist() == [1, 2] and batch["b"].tolist() == [[1., 1.], [0., 0.]]
    exclusive = "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
    for kwargs, message in [(dict(batch_sampler=[[1]], batch_size=2), exclusive),
                            (dict(batch_sampler=[[1]], shuffle=True), exclusive),
                            (dict(sampler=[1], shuffle=True), "sampler option is mutually exclusive with shuffle"),
                            (dict(batch_size=None, drop_last=True), "batch_size=None option disables "
                             "auto-batching and is mutually exclusive with drop_last")]:
        with pytest.raises(ValueError) as info:
            DataLoader(ds, **kwargs)
        assert str(info.value) == message
    assert isinstance(BatchSampler(RandomSampler(ds), 2, False), BatchSampler)


# --- clipping and parameter vectors -------------------------------------------------------


def _grads():
    torch.manual_seed(0)
    ps = [nn.Parameter(torch.randn(3)), nn.Parameter(torch.randn(2, 2))]
    for p in ps:
        p.grad = torch.randn_like(p) * 3
    return ps


@pytest.mark.parametrize("kwargs, norm, first", [
    (dict(max_norm=1.0), 5.7836, [0.4347, -0.3731, -0.2092]),
    (dict(max_norm=1.0, norm_type=float("inf")), 3.3018, [0.7614, -0.6535, -0.3665]),
    (dict(max_norm=100.0, norm_type=1), 14.0897, [2.5141, -2.1578, -1.2100]),
])
def test_clip_grad_norm_returns_the_total_norm_and_scales(kwargs, norm, first):
    ps = _grads()
    total = nn.utils.clip_grad_norm_(ps, **kwargs)
    assert total.dim() == 0 and round(total.item(), 4) == norm
    assert [round(v, 4) for v in ps[0].grad.tolist()] == first


def test_clip_grad_edge_cases():
    ps = _grads()
    assert round(nn.utils.clip_grad_norm_(ps[0], 0.5, norm_type="inf").item(), 4) == 2.5141
    ps[0].grad[0] = float("nan")
    with pytest.raises(RuntimeError, match=r"^The total norm of order 2\.0 for gradients from "
                                           r"`parameters` is non-finite, so it cannot be clipped\."):
        nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    assert repr(nn.utils.clip_grad_norm_([], 1.0)) == "tensor(0.)"
    q = nn.Parameter(torch.zeros(4))
    q.grad = torch.tensor([-3., 0.5, 2., -0.1])
    assert nn.utils.clip_grad_value_(q, 1.0) is None
    assert nn.utils.clip_grad_value_([q], 0.2) is None
    assert [round(v, 4) for v in q.grad.tolist()] == [-0.2, 0.2, 0.2, -0.1]


def test_parameters_to_vector_and_back():
    m = nn.Linear(3, 2)
    v = nn.utils.parameters_to_vector(m.parameters())
    assert (v.shape, v.requires_grad, type(v.grad_fn).__name__) == ((8,), True, "CatBackward0")
    vec = torch.arange(8.)
    assert nn.utils.vector_to_parameters(vec, m.parameters()) is None
    assert m.weight.tolist() == [[0., 1., 2.], [3., 4., 5.]] and m.bias.tolist() == [6., 7.]
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    vec[0] = 9                                        # the parameters view the vector's memory
    assert m.weight[0, 0].item() == 9
    with pytest.raises(TypeError, match="^expected torch.Tensor, but got: list$"):
        nn.utils.vector_to_parameters([1.], m.parameters())


# --- init ---------------------------------------------------------------------------------


def test_calculate_gain_and_init_errors():
    init = nn.init
    gains = [init.calculate_gain(*a) for a in [("linear",), ("sigmoid",), ("tanh",), ("relu",),
                                                ("leaky_relu",), ("leaky_relu", 0.2), ("selu",), ("conv2d",)]]
    assert [repr(g) for g in gains] == ["1", "1", "1.6666666666666667", "1.4142135623730951",
                                        "1.4141428569978354", "1.3867504905630728", "0.75", "1"]
    for call, message in [
            (lambda: init.calculate_gain("foo"), "Unsupported nonlinearity foo"),
            (lambda: init.calculate_gain("leaky_relu", True), "negative_slope True not a valid number"),
            (lambda: init.dirac_(torch.empty(2, 2)), "Only tensors with 3, 4, or 5 dimensions are supported"),
            (lambda: init.dirac_(torch.empty(3, 2, 3), 2), "dim 0 must be divisible by groups"),
            (lambda: init.sparse_(torch.empty(2, 2, 2), 0.1), "Only tensors with 2 dimensions are supported"),
            (lambda: init.kaiming_uniform_(torch.empty(2, 2), mode="foo"),
             "Mode foo not supported, please use one of ['fan_in', 'fan_out']")]:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == message
    with pytest.warns(UserWarning, match="^Initializing zero-element tensors is a no-op$"):
        assert init.kaiming_uniform_(torch.empty(0, 3)).shape == (0, 3)
    x = torch.empty(3, 3, requires_grad=True)
    assert init.normal_(x) is x and x.requires_grad and x.grad_fn is None and x._version == 1


# --- modules: buffers, traversal, train/eval ------------------------------------------------


class _Buffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("a", torch.ones(1))
        self.register_buffer("b", torch.zeros(1), persistent=False)
        self.register_buffer("c", None)
        self.lin = nn.Linear(1, 1)


def test_non_persistent_buffers_stay_out_of_state_dict():
    m = _Buffers()
    assert list(m.state_dict()) == ["a", "lin.weight", "lin.bias"]
    assert [n for n, _ in m.named_buffers()] == ["a", "b"] and m._non_persistent_buffers_set == {"b"}
    state = {"a": torch.ones(1) * 2, "lin.weight": torch.ones(1, 1), "lin.bias": torch.ones(1)}
    assert repr(m.load_state_dict(state)) == "<All keys matched successfully>" and m.a.item() == 2
    assert repr(m.load_state_dict({**state, "b": torch.ones(1)}, strict=False)) == \
        "_IncompatibleKeys(missing_keys=[], unexpected_keys=['b'])"
    for call, kind, message in [
            (lambda: m.register_buffer("a.b", torch.ones(1)), KeyError, 'buffer name can\'t contain "."'),
            (lambda: m.register_buffer("", torch.ones(1)), KeyError, 'buffer name can\'t be empty string ""'),
            (lambda: m.register_buffer("lin", torch.ones(1)), KeyError, "attribute 'lin' already exists"),
            (lambda: m.register_buffer("x", 3), TypeError,
             "cannot assign 'int' object to buffer 'x' (torch Tensor or None required)"),
            (lambda: m.register_buffer(1, torch.ones(1)), TypeError, "buffer name should be a string. Got int")]:
        with pytest.raises(kind) as info:
            call()
        assert info.value.args[0] == message


def test_traversal_order_and_shared_modules():
    shared = nn.Linear(1, 1)
    net = nn.Sequential(shared, nn.ReLU(), nn.Sequential(shared, nn.Tanh()), shared)
    assert [n for n, _ in net.named_modules()] == ["", "0", "1", "2", "2.1"]
    assert [n for n, _ in net.named_modules(remove_duplicate=False)] == ["", "0", "1", "2", "2.0", "2.1", "3"]
    assert [n for n, _ in net.named_modules(prefix="net")] == ["net", "net.0", "net.1", "net.2", "net.2.1"]
    assert [n for n, _ in net.named_children()] == ["0", "1", "2"]
    assert (len(list(net.children())), len(list(net.modules()))) == (3, 5)
    assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in net.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "2.0.weight", "2.0.bias", "3.weight", "3.bias"]
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Linear", "Tanh", "Sequential", "Sequential"]
    assert list(net.state_dict()) == ["0.weight", "0.bias", "2.0.weight", "2.0.bias", "3.weight", "3.bias"]


def test_train_and_eval_reach_every_layer():
    d = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.BatchNorm1d(2))
    d.eval()
    assert [m.training for m in d.modules()] == [False] * 4
    x = torch.randn(4, 2)
    assert torch.equal(d(x), d(x))                   # no dropout, running statistics
    assert d.train() is d and [m.training for m in d.modules()] == [True] * 4
    with pytest.raises(ValueError, match="^training mode is expected to be boolean$"):
        d.train("yes")
    assert d.requires_grad_(False) is d and not any(p.requires_grad for p in d.parameters())


# --- the default dtype --------------------------------------------------------------------


def test_set_default_dtype_reaches_factories_layers_promotion_and_printing():
    assert torch.get_default_dtype() is torch.float32
    torch.set_default_dtype(torch.float64)
    try:
        made = [torch.tensor([1.5]), torch.tensor(1.5), torch.zeros(2), torch.ones(1), torch.empty(1),
                torch.full((1,), 2.), torch.arange(3.), torch.linspace(0, 1, 3), torch.eye(2),
                torch.rand(2), torch.randn(2), torch.Tensor(2), torch.Tensor([1]),
                nn.Linear(2, 2).weight, torch.tensor([1, 2]) / 2, torch.exp(torch.tensor([1])),
                torch.tensor([1]) * 1.5, torch.as_tensor([1.0])]
        assert {t.dtype for t in made} == {torch.float64}
        kept = [torch.full((1,), 2), torch.arange(3), torch.FloatTensor([1]),
                torch.tensor([1, 2]).float(), torch.from_numpy(np.zeros(1, np.float32))]
        assert [t.dtype for t in kept] == [torch.int64, torch.int64, torch.float32, torch.float32,
                                           torch.float32]
        assert (repr(torch.tensor([1.5])), repr(torch.tensor([1.5], dtype=torch.float32))) == (
            "tensor([1.5000])", "tensor([1.5000], dtype=torch.float32)")
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.tensor([1.5]).dtype is torch.float32
    with pytest.raises(TypeError, match="^only floating-point types are supported as the default type$"):
        torch.set_default_dtype(torch.int64)
    with pytest.raises(TypeError, match="^invalid dtype object: only floating-point types are "
                                        "supported as the default type$"):
        torch.set_default_dtype("float64")
    assert torch.get_default_dtype() is torch.float32


def test_set_default_tensor_type_is_the_old_spelling(monkeypatch):
    """PyTorch's warning (once per process) ends with "(Triggered internally at <its build
    path>)"; the rest is its text."""
    from dyngraph import legacy
    monkeypatch.setattr(legacy, "_warned", [])
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.set_default_tensor_type(torch.DoubleTensor)
            assert torch.tensor([1.]).dtype is torch.float64 and torch.Tensor([1]).dtype is torch.float64
            torch.set_default_tensor_type("torch.FloatTensor")
        assert [str(w.message) for w in caught] == [
            "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
            "torch.set_default_dtype() and torch.set_default_device() as alternatives."]
        for bad, kind, message in [
                ("torch.LongTensor", TypeError, "only floating-point types are supported as the default type"),
                (torch.LongTensor, TypeError, "only floating-point types are supported as the default type"),
                (3, TypeError, "invalid type object: only floating-point types are supported as the default type"),
                ("foo", ModuleNotFoundError, "No module named 'foo'"),
                ("torch.FooTensor", AttributeError, "module 'torch' has no attribute 'FooTensor'")]:
            with pytest.raises(kind) as info:
                torch.set_default_tensor_type(bad)
            assert str(info.value) == message
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.get_default_dtype() is torch.float32
